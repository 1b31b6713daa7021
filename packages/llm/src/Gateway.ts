/**
 * A trajectory-recording OpenAI-compatible gateway: an HTTP server that any agent (the `openai` package, the Vercel
 * AI SDK, LangChain.js, Python clients) talks to as if it were the model server, that forwards every request to the
 * real upstream (vLLM, llama.cpp, Ollama, a hosted API) and records every exchange as training data, grouped into
 * trajectories, with rewards attached afterwards. This is how Agent Lightning, rLLM, AReaL and OpenPipe ART collect
 * agent-RL data without touching the agent's code: only its base URL changes.
 *
 * **Details**
 * - Routes: `POST /v1/chat/completions` (non-streaming, and `stream: true` relayed chunk by chunk as the upstream
 *   sends it), `GET /v1/models` (proxied), `POST /v1/rewards` ({@link RewardRequest}), `GET /health`.
 * - Grouping: the session is the `x-autodidact-session` header; without it, one session per API key
 *   (`key-<first 12 hex of sha256(Authorization)>`, or of `Bearer <api-key>` for an `api-key` / `x-api-key` header),
 *   and `default` when there is no key either. The optional
 *   `x-autodidact-episode` header splits a session into episodes. Every answer carries `x-autodidact-exchange-id`
 *   and `x-autodidact-session` headers, so a client can attach a reward to one exchange.
 * - Recording: every exchange goes to the `Recorder` ({@link Recorder.Exchange}): request messages, tools, tool
 *   choice, sampling parameters (`temperature`, `top_p`, `max_tokens`, `seed`, `stop`, `n`, `logprobs`,
 *   `top_logprobs`, penalties, `response_format`), the answer's content, reasoning and tool calls,
 *   `logprobs.content` and token ids (vLLM's `token_ids`/`prompt_token_ids`) when the upstream returns them, usage,
 *   latency (to the last byte) and time to the upstream's headers, the status, and the error. An upstream that fails
 *   or breaks mid-stream, and a client that disconnects, are recorded too (`error.kind`), with what arrived before.
 *   For usage on streams, ask for it as OpenAI clients do (`stream_options: { include_usage: true }`); the gateway
 *   does not change the request.
 * - Errors to the client: a body over `maxBodyBytes` (default 8 MiB) is `413`, invalid JSON `400`, an upstream
 *   status is relayed with its body (OpenAI-style error bodies pass through), an unreachable upstream is `502` and
 *   a timeout (to the upstream's headers, default 300 s) `504`, each with `{ error: { message, type, code } }`. A
 *   stream that breaks after it started ends with one SSE event `data: {"error": {...}}` (the `openai` package
 *   raises it as an `APIError`).
 * - Rate limits: every relayed answer keeps the upstream's `Retry-After`, `retry-after-ms`, `x-ratelimit-*` and
 *   `ratelimit-*` headers ({@link isRateLimitHeader}). With `retry` ({@link RetryOptions}; off by default) the gateway
 *   retries upstream `429`/`503` answers itself, waiting at least what the upstream asks and at most `maxWait`
 *   ({@link retryDelay}); the exchange is recorded once, with `upstreamAttempts`.
 * - Auth: the client's `Authorization`, `api-key` and `x-api-key` headers are forwarded unless `upstreamApiKey` is
 *   set, which replaces them (as `Authorization: Bearer <key>`).
 * - Secrets: request headers are never recorded, and every recorded row, recording error (logged) and reward has
 *   the request's keys ({@link secretsOf}: the `Authorization` value and its credentials, `api-key`, `x-api-key`)
 *   and `upstreamApiKey` replaced by `[redacted]` ({@link redact}) wherever they appear, e.g. an upstream error
 *   message that quotes the key, or a key pasted into a prompt. Relayed non-streaming bodies have `upstreamApiKey`
 *   redacted (the client's own key is the client's to see). Keys shorter than {@link minSecretLength} are not
 *   treated as secrets.
 * - Binding: `127.0.0.1` unless `host` says otherwise (there is no authentication of its own: keep it local).
 *
 * @example
 * ```ts
 * import { Gateway, Recorder } from "@autodidact/llm"
 * import { Effect, Layer } from "effect"
 * import { FetchHttpClient } from "effect/http"
 *
 * const program = Effect.gen(function*() {
 *   const gw = yield* Gateway.start({ upstream: "http://127.0.0.1:8080/v1", port: 4000 })
 *   console.log(`point your agent at ${gw.url}/v1`)
 *   return yield* Effect.never
 * }).pipe(Effect.scoped, Effect.provide(Layer.mergeAll(Recorder.layerJsonl("./gateway-data"), FetchHttpClient.layer)))
 * ```
 * @see Luo et al., "Agent Lightning: Train ANY AI Agents with Reinforcement Learning", arXiv:2508.03680
 * @since 0.1.0
 */
import { Cause, Duration, Effect, Option, Result, type Scope, Stream } from "effect"
import { Headers, HttpClient, type HttpClientError, HttpClientRequest, type HttpClientResponse, HttpServerRequest, HttpServerResponse } from "effect/http"
import { createHash, randomUUID } from "node:crypto"
import * as HttpListen from "./internal/HttpListen.js"
import { LlmConfigError, RecordError, type ServerStartError } from "./LlmErrors.js"
import { type Exchange, Recorder, type Reward } from "./Recorder.js"
import * as Sse from "./internal/Sse.js"

/** Options of the gateway. @category models @since 0.1.0 */
export interface Options {
  /** The upstream API root, e.g. `http://127.0.0.1:8000/v1`. */
  readonly upstream: string
  /** Default `127.0.0.1`. */
  readonly host?: string | undefined
  /** Default 0 (any free port). */
  readonly port?: number | undefined
  /** Replaces the client's `Authorization` toward the upstream. */
  readonly upstreamApiKey?: string | undefined
  /** Largest accepted request body (default 8 MiB). */
  readonly maxBodyBytes?: number | undefined
  /** Time limit to the upstream's response headers (default 300 s). */
  readonly timeout?: Duration.Input | undefined
  /** Called with a recording failure (default: log a warning); the client still gets its answer. */
  readonly onRecordError?: ((error: unknown) => Effect.Effect<void>) | undefined
  /**
   * Retry of upstream `429` / `503` answers by the gateway itself, before anything is relayed (default: none; the
   * rate-limit headers are passed through, so the client's own retry policy can honour them).
   */
  readonly retry?: RetryOptions | undefined
  /**
   * How many recent exchange ids the gateway keeps in memory to resolve a reward given by `exchange_id` alone
   * (default 100 000, about 20 MB at most; the oldest are forgotten first, after which such a reward needs its
   * `session` too). Keeps a long-running gateway's memory bounded.
   */
  readonly maxIndexedExchanges?: number | undefined
}

/**
 * The gateway's own retry of upstream `429 Too Many Requests` / `503 Service Unavailable` answers (see
 * {@link retryDelay}).
 *
 * @category models
 * @since 0.2.0
 */
export interface RetryOptions {
  /** Retries after the first attempt (integer ≥ 0, default 0: off). */
  readonly maxRetries?: number | undefined
  /**
   * The longest wait before one retry (default 30 s). An upstream that asks for longer (`Retry-After`,
   * `retry-after-ms`) is not retried: its answer is relayed with its headers, so the client waits itself.
   */
  readonly maxWait?: Duration.Input | undefined
  /** Wait before retry `n` (0-based) when the upstream says nothing: `base · 2^n`, capped by `maxWait` (default 500 ms). */
  readonly base?: Duration.Input | undefined
}

/**
 * The body of `POST /v1/rewards`: a reward for one exchange (`exchange_id`), an episode (`session` + `episode`) or a
 * session, with optional `terminated` / `success` flags and free-form `info`. Answers `{ id, session }`.
 *
 * @category models
 * @since 0.1.0
 */
export interface RewardRequest {
  readonly session?: string
  readonly episode?: string
  readonly exchange_id?: string
  readonly reward?: number
  readonly terminated?: boolean
  readonly success?: boolean
  readonly info?: unknown
}

/** Header names. @category constants @since 0.1.0 */
export const headers = {
  session: "x-autodidact-session",
  episode: "x-autodidact-episode",
  exchangeId: "x-autodidact-exchange-id"
} as const

/**
 * Upstream answer headers relayed to the client on every relayed answer (errors included): `retry-after`,
 * OpenAI's `retry-after-ms`, and every `x-ratelimit-*` / `ratelimit-*` header (IETF draft "RateLimit header
 * fields"), so the client's SDK can back off as it would against the upstream itself.
 *
 * @category constants
 * @since 0.2.0
 */
export const isRateLimitHeader = (name: string): boolean => {
  const n = name.toLowerCase()
  return n === "retry-after" || n === "retry-after-ms" || n.startsWith("x-ratelimit-") || n.startsWith("ratelimit")
}

const rateLimitHeaders = (h: { readonly [key: string]: string | undefined }): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const k in h) if (isRateLimitHeader(k) && h[k] !== undefined) out[k.toLowerCase()] = h[k]
  return out
}

/**
 * How long the upstream asks to wait before a retry, from its answer headers: the larger of `retry-after-ms`
 * (milliseconds, a non-negative decimal) and `Retry-After` (whole seconds or an HTTP date, RFC 9110 §10.2.3; a
 * date in the past is 0), in milliseconds; `undefined` when neither is present and valid.
 *
 * @category retry
 * @since 0.2.0
 */
export const retryAfterMillis = (h: { readonly [key: string]: string | undefined }, now: number = Date.now()): number | undefined => {
  let ms: number | undefined
  const raw = h["retry-after-ms"]?.trim()
  if (raw !== undefined && /^\d+(\.\d+)?$/.test(raw)) ms = Number(raw)
  const ra = h["retry-after"]
  if (ra !== undefined) {
    const parsed = Headers.parseRetryAfter(ra)
    if (Result.isSuccess(parsed)) {
      const d = Duration.toMillis(Headers.retryAfterDelay(parsed.success, now))
      if (Number.isFinite(d)) ms = Math.max(ms ?? 0, d)
      else ms = Number.POSITIVE_INFINITY
    }
  }
  return ms
}

/**
 * The gateway's wait before retry `attempt` (0-based) of an upstream `429`/`503`, in milliseconds, or `undefined`
 * for "do not retry": at least what the upstream asks ({@link retryAfterMillis}), else `base · 2^attempt` capped by
 * `maxWait`; an upstream asking for more than `maxWait` is not retried.
 *
 * @category retry
 * @since 0.2.0
 */
export const retryDelay = (
  h: { readonly [key: string]: string | undefined },
  attempt: number,
  policy: { readonly maxWaitMs: number; readonly baseMs: number },
  now: number = Date.now()
): number | undefined => {
  const asked = retryAfterMillis(h, now)
  if (asked !== undefined) return asked > policy.maxWaitMs ? undefined : asked
  return Math.min(policy.baseMs * 2 ** attempt, policy.maxWaitMs)
}

const SAMPLING_KEYS = [
  "temperature", "top_p", "max_tokens", "max_completion_tokens", "seed", "stop", "n", "logprobs", "top_logprobs",
  "presence_penalty", "frequency_penalty", "response_format", "stream_options", "top_k", "min_p", "repetition_penalty"
]

type Obj = { readonly [key: string]: unknown }
const isObj = (u: unknown): u is Obj => typeof u === "object" && u !== null && !Array.isArray(u)
const nums = (u: unknown): Array<number> | undefined => (Array.isArray(u) && u.every((x) => typeof x === "number") ? u as Array<number> : undefined)

/** Request headers that carry an API key: forwarded upstream (unless `upstreamApiKey` is set), never recorded. */
const KEY_HEADERS = ["api-key", "x-api-key"] as const

/**
 * The session of a request (see the module docs).
 *
 * @category grouping
 * @since 0.1.0
 */
export const sessionOf = (requestHeaders: { readonly [key: string]: string | undefined }): string => {
  const explicit = requestHeaders[headers.session]?.trim()
  if (explicit !== undefined && explicit !== "") return explicit
  const auth = requestHeaders["authorization"]
  if (auth !== undefined && auth !== "") return `key-${createHash("sha256").update(auth).digest("hex").slice(0, 12)}`
  for (const h of KEY_HEADERS) {
    const key = requestHeaders[h]
    if (key !== undefined && key !== "") return `key-${createHash("sha256").update(`Bearer ${key}`).digest("hex").slice(0, 12)}`
  }
  return "default"
}

/** Shortest value treated as a secret by {@link redact} (shorter ones would blank out ordinary text). */
export const minSecretLength = 8

/**
 * The secrets a request carries: the `Authorization` value and its credentials (the part after the scheme), and
 * the `api-key` / `x-api-key` values; each at least {@link minSecretLength} characters.
 *
 * @category recording
 * @since 0.2.0
 */
export const secretsOf = (requestHeaders: { readonly [key: string]: string | undefined }, extra: ReadonlyArray<string | undefined> = []): Array<string> => {
  const out = new Set<string>()
  const add = (v: string | undefined) => {
    const t = v?.trim()
    if (t !== undefined && t.length >= minSecretLength) out.add(t)
  }
  const auth = requestHeaders["authorization"]
  add(auth)
  add(auth?.trim().replace(/^\S+\s+/, ""))
  for (const h of KEY_HEADERS) add(requestHeaders[h])
  extra.forEach(add)
  // longest first, so a secret that contains another is replaced whole
  return [...out].sort((a, b) => b.length - a.length)
}

/** What {@link redact} writes in place of a secret. @category recording @since 0.2.0 */
export const REDACTED = "[redacted]"

/**
 * A copy of a JSON-like value with every occurrence of each secret in its strings (object keys included) replaced by
 * {@link REDACTED}; the value itself when nothing matched. The gateway applies it to every row it records and every
 * recording error it logs, with the request's {@link secretsOf} and `upstreamApiKey`.
 *
 * @category recording
 * @since 0.2.0
 */
export const redact = <A>(value: A, secrets: ReadonlyArray<string>): A => {
  if (secrets.length === 0) return value
  const str = (s: string): string => {
    let out = s
    for (const k of secrets) if (out.includes(k)) out = out.split(k).join(REDACTED)
    return out
  }
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return str(v)
    if (Array.isArray(v)) {
      let changed = false
      const out = v.map((x) => {
        const y = walk(x)
        if (y !== x) changed = true
        return y
      })
      return changed ? out : v
    }
    if (typeof v === "object" && v !== null) {
      let changed = false
      const out: Record<string, unknown> = {}
      for (const [k, x] of Object.entries(v)) {
        const k2 = str(k)
        const y = walk(x)
        if (y !== x || k2 !== k) changed = true
        out[k2] = y
      }
      return changed ? out : v
    }
    return v
  }
  return walk(value) as A
}

/**
 * Accumulates an OpenAI chat-completions answer from a full body or from stream chunks.
 *
 * @category recording
 * @since 0.1.0
 */
export class Accumulator {
  id: string | undefined
  model: string | undefined
  content = ""
  hasContent = false
  reasoning = ""
  finishReason: string | null | undefined = undefined
  usage: Exchange["usage"] = undefined
  readonly toolCalls = new Map<number, { id: string; type: string; function: { name: string; arguments: string } }>()
  readonly logprobs: Array<unknown> = []
  readonly tokenIds: Array<number> = []
  promptTokenIds: Array<number> | undefined
  upstreamError: string | undefined

  /** A complete (non-streamed) body. */
  completion(json: unknown): void {
    if (!isObj(json)) return
    this.meta(json)
    const choice = Array.isArray(json["choices"]) ? json["choices"][0] : undefined
    if (!isObj(choice)) return
    const m = isObj(choice["message"]) ? choice["message"] : {}
    if (typeof m["content"] === "string") {
      this.content = m["content"]
      this.hasContent = true
    }
    const r = m["reasoning_content"] ?? m["reasoning"]
    if (typeof r === "string") this.reasoning = r
    if (Array.isArray(m["tool_calls"])) {
      m["tool_calls"].forEach((c, i) => {
        if (!isObj(c)) return
        const fn = isObj(c["function"]) ? c["function"] : {}
        this.toolCalls.set(i, {
          id: typeof c["id"] === "string" ? c["id"] : `call_${i}`,
          type: typeof c["type"] === "string" ? c["type"] : "function",
          function: { name: typeof fn["name"] === "string" ? fn["name"] : "", arguments: typeof fn["arguments"] === "string" ? fn["arguments"] : JSON.stringify(fn["arguments"] ?? {}) }
        })
      })
    }
    this.choiceExtras(choice)
  }

  /** One streamed chunk. */
  chunk(json: unknown): void {
    if (!isObj(json)) return
    if (json["error"] !== undefined) {
      this.upstreamError = JSON.stringify(json["error"]).slice(0, 1000)
      return
    }
    this.meta(json)
    const choice = Array.isArray(json["choices"]) ? json["choices"][0] : undefined
    if (!isObj(choice)) return
    const d = isObj(choice["delta"]) ? choice["delta"] : {}
    if (typeof d["content"] === "string") {
      this.content += d["content"]
      this.hasContent = true
    }
    const r = d["reasoning_content"] ?? d["reasoning"]
    if (typeof r === "string") this.reasoning += r
    if (Array.isArray(d["tool_calls"])) {
      d["tool_calls"].forEach((c, k) => {
        if (!isObj(c)) return
        const index = typeof c["index"] === "number" ? c["index"] : k
        const fn = isObj(c["function"]) ? c["function"] : {}
        let t = this.toolCalls.get(index)
        if (t === undefined) {
          t = { id: typeof c["id"] === "string" ? c["id"] : `call_${index}`, type: "function", function: { name: "", arguments: "" } }
          this.toolCalls.set(index, t)
        }
        if (typeof fn["name"] === "string") t.function.name += fn["name"]
        if (typeof fn["arguments"] === "string") t.function.arguments += fn["arguments"]
      })
    }
    this.choiceExtras(choice)
  }

  private meta(json: Obj): void {
    if (typeof json["id"] === "string") this.id ??= json["id"]
    if (typeof json["model"] === "string") this.model ??= json["model"]
    if (isObj(json["usage"])) {
      const u = json["usage"]
      this.usage = {
        ...(typeof u["prompt_tokens"] === "number" ? { prompt_tokens: u["prompt_tokens"] } : {}),
        ...(typeof u["completion_tokens"] === "number" ? { completion_tokens: u["completion_tokens"] } : {}),
        ...(typeof u["total_tokens"] === "number" ? { total_tokens: u["total_tokens"] } : {})
      }
    }
    const p = nums(json["prompt_token_ids"])
    if (p !== undefined) this.promptTokenIds = p
  }

  private choiceExtras(choice: Obj): void {
    const lp = choice["logprobs"]
    if (isObj(lp) && Array.isArray(lp["content"])) this.logprobs.push(...lp["content"])
    const ids = nums(choice["token_ids"])
    if (ids !== undefined) this.tokenIds.push(...ids)
    const p = nums(choice["prompt_token_ids"])
    if (p !== undefined) this.promptTokenIds = p
    if (choice["finish_reason"] !== undefined && choice["finish_reason"] !== null) this.finishReason = choice["finish_reason"] as string
  }

  /** The recorded response. */
  response(): NonNullable<Exchange["response"]> {
    return {
      ...(this.id === undefined ? {} : { id: this.id }),
      ...(this.model === undefined ? {} : { model: this.model }),
      content: this.hasContent ? this.content : null,
      ...(this.reasoning === "" ? {} : { reasoning: this.reasoning }),
      toolCalls: [...this.toolCalls.entries()].sort((a, b) => a[0] - b[0]).map(([, t]) => t),
      ...(this.finishReason === undefined ? {} : { finishReason: this.finishReason }),
      ...(this.logprobs.length === 0 ? {} : { logprobs: this.logprobs }),
      ...(this.tokenIds.length === 0 ? {} : { tokenIds: this.tokenIds }),
      ...(this.promptTokenIds === undefined ? {} : { promptTokenIds: this.promptTokenIds })
    }
  }
}

const requestOf = (body: Obj): Exchange["request"] => {
  const sampling: { [key: string]: unknown } = {}
  for (const k of SAMPLING_KEYS) if (body[k] !== undefined) sampling[k] = body[k]
  return {
    ...(typeof body["model"] === "string" ? { model: body["model"] } : {}),
    messages: Array.isArray(body["messages"]) ? body["messages"] : [],
    ...(Array.isArray(body["tools"]) ? { tools: body["tools"] } : {}),
    ...(body["tool_choice"] === undefined ? {} : { toolChoice: body["tool_choice"] }),
    sampling
  }
}

/**
 * Start the gateway as a scoped resource (closed with its scope). Needs a `Recorder` and an `HttpClient` (use
 * `FetchHttpClient.layer` or `NodeHttpClient.layerNodeHttp`; never the undici client on Node 20). Fails with
 * `LlmConfigError` for bad `retry` options or `maxIndexedExchanges` (negative or fractional `maxRetries`, a negative or infinite duration) and
 * `ServerStartError` when the address cannot be bound.
 *
 * @category servers
 * @since 0.1.0
 */
export const start = (
  options: Options
): Effect.Effect<HttpListen.Listening, ServerStartError | LlmConfigError, Scope.Scope | Recorder | HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const recorder = yield* Recorder
    const client = yield* HttpClient.HttpClient
    const upstream = options.upstream.replace(/\/+$/, "")
    const maxBody = options.maxBodyBytes ?? 8 * 1024 * 1024
    const timeout = Duration.fromInputUnsafe(options.timeout ?? Duration.seconds(300))
    const maxRetries = options.retry?.maxRetries ?? 0
    if (!Number.isSafeInteger(maxRetries) || maxRetries < 0) return yield* new LlmConfigError({ option: "retry.maxRetries", value: maxRetries, reason: "must be an integer >= 0" })
    const retryPolicy = {
      maxWaitMs: Duration.toMillis(Duration.fromInputUnsafe(options.retry?.maxWait ?? Duration.seconds(30))),
      baseMs: Duration.toMillis(Duration.fromInputUnsafe(options.retry?.base ?? Duration.millis(500)))
    }
    for (const [k, v] of [["retry.maxWait", retryPolicy.maxWaitMs], ["retry.base", retryPolicy.baseMs]] as const) {
      if (!(v >= 0 && Number.isFinite(v))) return yield* new LlmConfigError({ option: k, value: v, reason: "must be a finite duration >= 0" })
    }
    const onRecordError = options.onRecordError ?? ((e: unknown) => Effect.logWarning(`gateway: could not record: ${String((e as Error)?.message ?? e)}`))
    const maxIndexed = options.maxIndexedExchanges ?? 100_000
    if (!Number.isSafeInteger(maxIndexed) || maxIndexed < 0) return yield* new LlmConfigError({ option: "maxIndexedExchanges", value: maxIndexed, reason: "must be an integer >= 0" })
    // insertion-ordered: the first key is the oldest
    const exchangeIndex = new Map<string, { session: string; episode: string | undefined }>()

    const gatewaySecrets = secretsOf({}, [options.upstreamApiKey])
    const record = (x: Exchange, secrets: ReadonlyArray<string>) => {
      if (maxIndexed > 0) {
        exchangeIndex.set(x.id, { session: x.session, episode: x.episode })
        if (exchangeIndex.size > maxIndexed) exchangeIndex.delete(exchangeIndex.keys().next().value!)
      }
      return recorder.exchange(redact(x, secrets)).pipe(Effect.catch((e) => onRecordError(redactError(e, secrets))))
    }

    const forwardHeaders = (req: HttpServerRequest.HttpServerRequest): Record<string, string> => {
      const h: Record<string, string> = { "content-type": "application/json" }
      const auth = options.upstreamApiKey !== undefined ? `Bearer ${options.upstreamApiKey}` : req.headers["authorization"]
      if (auth !== undefined) h["authorization"] = auth
      if (options.upstreamApiKey === undefined) for (const k of KEY_HEADERS) if (req.headers[k] !== undefined) h[k] = req.headers[k]
      return h
    }

    const chat = (req: HttpServerRequest.HttpServerRequest) =>
      Effect.gen(function*() {
        const t0 = performance.now()
        const startedAt = Date.now()
        const id = `xch_${randomUUID()}`
        const session = sessionOf(req.headers)
        const secrets = secretsOf(req.headers, gatewaySecrets)
        const rec = (x: Exchange) => record(x, secrets)
        const ep = req.headers[headers.episode]?.trim()
        const episode = ep === undefined || ep === "" ? undefined : ep
        const tag = { [headers.exchangeId]: id, [headers.session]: session }
        const base = { type: "exchange" as const, id, session, ...(episode === undefined ? {} : { episode }), startedAt }
        const elapsed = () => Math.max(performance.now() - t0, 1e-3)

        const body = yield* HttpListen.readBody(req, maxBody)
        if (body._tag === "TooLarge") {
          yield* rec({ ...base, latencyMs: elapsed(), stream: false, request: { messages: [], sampling: {} }, status: 413, error: { kind: "bad-request", message: `request body of ${body.bytes} bytes is over the limit of ${maxBody}` } })
          return addHeaders(HttpListen.openAiError(413, `request body of at least ${body.bytes} bytes is over the gateway's limit of ${maxBody} bytes`, "invalid_request_error", "request_too_large"), tag)
        }
        if (body._tag === "Broken") return addHeaders(HttpListen.openAiError(400, `could not read the request body: ${body.reason}`, "invalid_request_error"), tag)
        let parsed: unknown
        try {
          parsed = JSON.parse(body.text)
        } catch {
          parsed = undefined
        }
        if (!isObj(parsed) || !Array.isArray(parsed["messages"])) {
          yield* rec({ ...base, latencyMs: elapsed(), stream: false, request: { messages: [], sampling: {} }, status: 400, error: { kind: "bad-request", message: "the body is not a JSON object with a messages array" } })
          return addHeaders(HttpListen.openAiError(400, "the request body must be a JSON object with a messages array", "invalid_request_error"), tag)
        }
        const stream = parsed["stream"] === true
        const request = requestOf(parsed)
        const upstreamRequest = HttpClientRequest.post(`${upstream}/chat/completions`).pipe(
          HttpClientRequest.setHeaders(forwardHeaders(req)),
          HttpClientRequest.bodyText(body.text, "application/json")
        )
        // a client that goes away before the answer (non-streaming, or before the upstream's headers) is recorded too
        const closedEarly = Effect.suspend(() =>
          rec({ ...base, latencyMs: elapsed(), stream, request, status: 499, error: { kind: "client-closed", message: "the client closed the connection before the answer" } })
        )
        const gone = HttpListen.clientGone(req)
        let attempts = 0
        const attempt: Effect.Effect<Result.Result<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError | Cause.TimeoutError>> = Effect.gen(function*() {
          const r = yield* client.execute(upstreamRequest).pipe(Effect.timeout(timeout), Effect.result)
          attempts++
          if (r._tag === "Failure" || (r.success.status !== 429 && r.success.status !== 503) || attempts > maxRetries) return r
          const wait = retryDelay(r.success.headers, attempts - 1, retryPolicy)
          if (wait === undefined) return r
          yield* Effect.ignore(r.success.text) // let the connection be reused
          yield* Effect.sleep(Duration.millis(wait))
          return yield* attempt
        })
        const openedOrGone = yield* Effect.raceFirst(
          attempt.pipe(Effect.map(Option.some)),
          Effect.as(gone, Option.none())
        ).pipe(Effect.onInterrupt(() => closedEarly))
        if (Option.isNone(openedOrGone)) {
          yield* closedEarly
          return HttpServerResponse.empty({ status: 499 })
        }
        const opened = openedOrGone.value
        const firstByteMs = elapsed()
        if (opened._tag === "Failure") {
          const timedOut = opened.failure._tag === "TimeoutError"
          const message = timedOut ? `upstream gave no response within ${Duration.format(timeout)}` : `upstream unreachable: ${opened.failure.message}`
          const status = timedOut ? 504 : 502
          yield* rec({ ...base, latencyMs: elapsed(), stream, request, status, error: { kind: timedOut ? "upstream-timeout" : "upstream-unreachable", message } })
          return addHeaders(HttpListen.openAiError(status, message, "upstream_error"), tag)
        }
        const res = opened.success
        const retried = attempts > 1 ? { upstreamAttempts: attempts } : {}
        const contentType = res.headers["content-type"] ?? "application/json"
        if (!stream || res.status < 200 || res.status >= 300 || !contentType.includes("text/event-stream")) {
          const textOrGone = yield* Effect.raceFirst(Effect.map(Effect.result(res.text), Option.some), Effect.as(gone, Option.none())).pipe(
            Effect.onInterrupt(() => closedEarly)
          )
          if (Option.isNone(textOrGone)) {
            yield* closedEarly
            return HttpServerResponse.empty({ status: 499 })
          }
          const text = textOrGone.value
          if (text._tag === "Failure") {
            const message = `upstream body broke: ${text.failure.message}`
            yield* rec({ ...base, latencyMs: elapsed(), firstByteMs, stream, request, status: 502, error: { kind: "stream-broken", message } })
            return addHeaders(HttpListen.openAiError(502, message, "upstream_error"), tag)
          }
          const acc = new Accumulator()
          let json: unknown
          try {
            json = JSON.parse(text.success)
          } catch {
            json = undefined
          }
          const ok = res.status >= 200 && res.status < 300
          if (ok && json !== undefined) acc.completion(json)
          yield* rec({
            ...base,
            latencyMs: elapsed(),
            firstByteMs,
            ...retried,
            stream,
            request,
            status: res.status,
            ...(ok && json !== undefined ? { response: acc.response() } : {}),
            ...(acc.usage === undefined ? {} : { usage: acc.usage }),
            ...(ok
              ? json === undefined ? { error: { kind: "malformed-response" as const, message: `upstream body is not JSON: ${text.success.slice(0, 300)}` } } : {}
              : { error: { kind: "upstream-status" as const, status: res.status, message: text.success.slice(0, 1000) } })
          })
          return HttpServerResponse.text(redact(text.success, gatewaySecrets), { status: res.status, contentType: contentType.split(";")[0]!, headers: { ...rateLimitHeaders(res.headers), ...tag } })
        }
        // streaming: relay chunk by chunk, parse alongside, record at the end whatever happens
        const acc = new Accumulator()
        const parser = new Sse.Parser()
        const decoder = new TextDecoder()
        let failure: Exchange["error"] = undefined
        const feed = (text: string) => {
          for (const e of parser.push(text)) {
            if (Sse.isDone(e)) continue
            try {
              acc.chunk(JSON.parse(e.data))
            } catch {
              // not JSON: relayed as is, not recorded
            }
          }
        }
        const relayed = res.stream.pipe(
          Stream.tap((bytes) => Effect.sync(() => feed(decoder.decode(bytes, { stream: true })))),
          Stream.catchCause((cause) => {
            const squashed = Cause.squash(cause) as { message?: unknown } | undefined
            const message = `upstream stream broke: ${String(squashed?.message ?? squashed ?? "unknown")}`
            failure = { kind: "stream-broken", message }
            return Stream.make(new TextEncoder().encode(Sse.encode(JSON.stringify({ error: { message, type: "upstream_error", param: null, code: "stream_broken" } }))))
          }),
          Stream.onExit((exit) =>
            Effect.suspend(() => {
              feed(decoder.decode())
              for (const e of parser.end()) if (!Sse.isDone(e)) {
                try {
                  acc.chunk(JSON.parse(e.data))
                } catch {
                  // ignore
                }
              }
              const error: Exchange["error"] = failure ?? (exit._tag === "Failure"
                ? { kind: "client-closed", message: "the client closed the connection before the end of the stream" }
                : acc.upstreamError !== undefined
                ? { kind: "stream-broken", message: `upstream sent an error event: ${acc.upstreamError}` }
                : undefined)
              return rec({
                ...base,
                latencyMs: elapsed(),
                firstByteMs,
                ...retried,
                stream: true,
                request,
                status: res.status,
                response: acc.response(),
                ...(acc.usage === undefined ? {} : { usage: acc.usage }),
                ...(error === undefined ? {} : { error })
              })
            })
          )
        )
        return HttpServerResponse.stream(relayed, {
          status: res.status,
          contentType: "text/event-stream",
          headers: { ...rateLimitHeaders(res.headers), ...tag, "cache-control": "no-cache", "x-accel-buffering": "no" }
        })
      })

    const models = (req: HttpServerRequest.HttpServerRequest) =>
      client.execute(HttpClientRequest.get(`${upstream}/models`).pipe(HttpClientRequest.setHeaders(forwardHeaders(req)))).pipe(
        Effect.flatMap((res) => Effect.map(res.text, (text) => HttpServerResponse.text(text, { status: res.status, contentType: "application/json", headers: rateLimitHeaders(res.headers) }))),
        Effect.timeout(timeout),
        Effect.catch((e) => Effect.succeed(HttpListen.openAiError(502, `upstream unreachable: ${e.message}`, "upstream_error")))
      )

    const rewards = (req: HttpServerRequest.HttpServerRequest) =>
      Effect.gen(function*() {
        const body = yield* HttpListen.readBody(req, 1024 * 1024)
        if (body._tag === "TooLarge") return HttpListen.openAiError(413, "reward body over 1 MiB", "invalid_request_error", "request_too_large")
        if (body._tag === "Broken") return HttpListen.openAiError(400, body.reason, "invalid_request_error")
        let b: unknown
        try {
          b = JSON.parse(body.text)
        } catch {
          return HttpListen.openAiError(400, "the body is not JSON", "invalid_request_error")
        }
        const checked = checkReward(b)
        if (typeof checked === "string") return HttpListen.openAiError(400, checked, "invalid_request_error")
        const known = checked.exchange_id === undefined ? undefined : exchangeIndex.get(checked.exchange_id)
        const session = checked.session ?? known?.session ?? (checked.exchange_id === undefined ? undefined : undefined)
        if (session === undefined) {
          return HttpListen.openAiError(
            checked.exchange_id === undefined ? 400 : 404,
            checked.exchange_id === undefined ? "give a session (or an exchange_id)" : `unknown exchange_id ${JSON.stringify(checked.exchange_id)} (not recorded by this gateway process, or older than its last ${maxIndexed} exchanges): give its session too`,
            "invalid_request_error"
          )
        }
        const episode = checked.episode ?? known?.episode
        const row: Reward = {
          type: "reward",
          id: `rwd_${randomUUID()}`,
          session,
          ...(episode === undefined ? {} : { episode }),
          ...(checked.exchange_id === undefined ? {} : { exchangeId: checked.exchange_id }),
          ...(checked.reward === undefined ? {} : { reward: checked.reward }),
          ...(checked.terminated === undefined ? {} : { terminated: checked.terminated }),
          ...(checked.success === undefined ? {} : { success: checked.success }),
          ...(checked.info === undefined ? {} : { info: checked.info }),
          at: Date.now()
        }
        const secrets = secretsOf(req.headers, gatewaySecrets)
        const saved = yield* Effect.result(recorder.reward(redact(row, secrets)))
        if (saved._tag === "Failure") return HttpListen.openAiError(500, redact(saved.failure.message, secrets), "server_error")
        return HttpListen.json({ id: row.id, session, ...(episode === undefined ? {} : { episode }) })
      })

    const app = Effect.gen(function*() {
      const req = yield* HttpServerRequest.HttpServerRequest
      const url = new URL(req.url, "http://gateway")
      const p = url.pathname.replace(/\/+$/, "")
      if (req.method === "POST" && (p === "/v1/chat/completions" || p === "/chat/completions")) return yield* chat(req)
      if (req.method === "GET" && (p === "/v1/models" || p === "/models")) return yield* models(req)
      if (req.method === "POST" && (p === "/v1/rewards" || p === "/rewards")) return yield* rewards(req)
      if (req.method === "GET" && p === "/health") return HttpListen.json({ ok: true, upstream, recorder: recorder.location })
      return HttpListen.openAiError(404, `no route ${req.method} ${url.pathname}`, "invalid_request_error", "not_found")
    })

    return yield* HttpListen.listen(app, { host: options.host, port: options.port })
  })

/** A recording error with the secrets taken out of its message (what gets logged). */
const redactError = (e: unknown, secrets: ReadonlyArray<string>): unknown => {
  if (secrets.length === 0) return e
  if (e instanceof RecordError) {
    const [location, reason] = [redact(e.location, secrets), redact(e.reason, secrets)]
    return location === e.location && reason === e.reason ? e : new RecordError({ location, reason })
  }
  const message = String((e as Error)?.message ?? e)
  const clean = redact(message, secrets)
  return clean === message ? e : new Error(clean)
}

const addHeaders = (res: HttpServerResponse.HttpServerResponse, h: Record<string, string>) => HttpServerResponse.setHeaders(res, h)

/**
 * Validate a reward body: a message naming the problem, or the request.
 *
 * @category rewards
 * @since 0.1.0
 */
export const checkReward = (b: unknown): RewardRequest | string => {
  if (!isObj(b)) return "the body must be a JSON object"
  const str = (k: string) => b[k] === undefined || (typeof b[k] === "string" && b[k] !== "")
  for (const k of ["session", "episode", "exchange_id"]) if (!str(k)) return `${k} must be a non-empty string`
  if (b["reward"] !== undefined && !(typeof b["reward"] === "number" && Number.isFinite(b["reward"]))) return `reward must be a finite number, got ${JSON.stringify(b["reward"])}`
  for (const k of ["terminated", "success"]) if (b[k] !== undefined && typeof b[k] !== "boolean") return `${k} must be a boolean`
  if (b["session"] === undefined && b["exchange_id"] === undefined) return "give a session (or an exchange_id)"
  if (b["reward"] === undefined && b["terminated"] === undefined && b["success"] === undefined) return "give a reward, terminated or success"
  return b as RewardRequest
}

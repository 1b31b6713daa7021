/**
 * An `effect/ai` `LanguageModel` for any OpenAI-compatible `/v1/chat/completions` endpoint: vLLM, llama.cpp's
 * `llama-server`, Ollama, LM Studio, SGLang and hosted APIs, over effect's `HttpClient` (no provider package).
 *
 * **When to use**
 * Whenever an Autodidact component (the LLM policy, the training-free optimizers, a judge) needs a model: provide
 * {@link layer} (or {@link layerFetch}) and use `LanguageModel.generateText` / `streamText` from `effect/ai`.
 *
 * **Details**
 * - Configuration ({@link Options}, resolved by {@link resolveConfig}): `baseUrl` (the API root, `.../v1`), `model`
 *   and `apiKey`, each from the options or else the environment: `AUTODIDACT_LLM_BASE_URL`, `AUTODIDACT_LLM_MODEL`,
 *   `AUTODIDACT_LLM_API_KEY`, then `OPENAI_API_KEY`. A key is required unless the base URL is on loopback
 *   (`localhost`, `127.0.0.0/8`, `::1`), where local servers need none; a missing one fails with `LlmConfigError`.
 * - Request: `POST {baseUrl}/chat/completions`, `Authorization: Bearer {apiKey}`. The prompt's messages map to chat
 *   messages (system; user text and image files; assistant text and `tool_calls`; tool results as `role: "tool"`
 *   messages, the result JSON-encoded unless it is a string). User-defined and dynamic `Tool`s of a `Toolkit` are
 *   sent as `{ type: "function", function: { name, description, parameters } }` with the tool choice (`auto`,
 *   `none`, `required`, one named tool; `oneOf` is sent as `auto`/`required` with the subset of tools). A JSON
 *   response format (`generateObject`) is sent as `response_format: { type: "json_schema", ... }`.
 * - Sampling ({@link Sampling}): `temperature`, `top_p`, `max_tokens`, `seed`, `stop`, `logprobs`/`top_logprobs`,
 *   `presence_penalty`, `frequency_penalty`, set per layer in the options and per call with {@link withSampling}.
 * - Response: `response-metadata` (id, model, time), `reasoning` (`reasoning_content` of vLLM/llama.cpp reasoning
 *   models), `text`, `tool-call` (arguments parsed as JSON; invalid JSON fails with `AiError` reason
 *   `InvalidOutputError` naming the text), and `finish` with the usage (`prompt_tokens`, `completion_tokens`,
 *   cached and reasoning tokens) and, when the server returned them, the log-probabilities and token ids in
 *   `metadata.openaiCompat` (`{ logprobs, promptTokenIds, tokenIds }`; vLLM returns token ids with
 *   `return_token_ids`, see {@link Sampling.extraBody}).
 * - Streaming: `stream: true` with `stream_options.include_usage`; the server-sent events are parsed incrementally
 *   (`Sse`) into `text-start/-delta/-end`, `reasoning-*`, `tool-params-start/-delta/-end` then `tool-call`, and a
 *   final `finish`.
 * - Errors (all `AiError`): HTTP 400/401/403/429/5xx map through `AiError.reasonFromHttpStatus` with the status and
 *   the first 1000 characters of the body; an unreachable server or a request past `timeout` (default 60 s, up to
 *   the response headers) is `NetworkError` (`TransportError`); a body that is not the chat-completions JSON is
 *   `InvalidResponseError`. Retryable ones (429, 5xx, transport and timeout) are retried `retries` times (default 3)
 *   with exponential backoff from `retryBase` (default 200 ms); a stream is retried only until its first byte.
 *
 * **Gotchas**
 * Use {@link layerFetch} or provide `NodeHttpClient.layerNodeHttp`; on Node 20 never `NodeHttpClient.layerUndici`.
 * `@effect/ai-openai-compat` targets an older effect and does not load on effect 4.1, hence this module.
 *
 * @example
 * ```ts
 * import { OpenAiCompat } from "@autodidact/llm"
 * import { Effect } from "effect"
 * import { LanguageModel } from "effect/ai"
 *
 * const program = LanguageModel.generateText({ prompt: "Say hi" }).pipe(
 *   OpenAiCompat.withSampling({ temperature: 0, maxTokens: 16 }),
 *   Effect.provide(OpenAiCompat.layerFetch({ baseUrl: "http://127.0.0.1:8080/v1", model: "qwen2.5-1.5b-instruct" }))
 * )
 * // Effect.runPromise(program).then((r) => console.log(r.text, r.usage))
 * ```
 * @see https://platform.openai.com/docs/api-reference/chat/create
 * @since 0.1.0
 */
import { Context, Duration, Effect, Layer, Schedule, Stream } from "effect"
import { AiError, LanguageModel, Prompt, Response, Tool } from "effect/ai"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import * as LlmPolicy from "./LlmPolicy.js"
import { LlmConfigError } from "./LlmErrors.js"
import * as Sse from "./Sse.js"

/**
 * Sampling parameters (OpenAI names in comments). Unset ones are not sent, so the server's defaults apply.
 *
 * @category models
 * @since 0.1.0
 */
export interface Sampling {
  /** `temperature` */
  readonly temperature?: number | undefined
  /** `top_p` */
  readonly topP?: number | undefined
  /** `max_tokens` */
  readonly maxTokens?: number | undefined
  /** `seed` (vLLM and llama.cpp honour it per request) */
  readonly seed?: number | undefined
  /** `stop` */
  readonly stop?: ReadonlyArray<string> | undefined
  /** `logprobs` */
  readonly logprobs?: boolean | undefined
  /** `top_logprobs` */
  readonly topLogprobs?: number | undefined
  /** `presence_penalty` */
  readonly presencePenalty?: number | undefined
  /** `frequency_penalty` */
  readonly frequencyPenalty?: number | undefined
  /** Extra JSON fields merged into the request body (e.g. `{ return_token_ids: true }` for vLLM, `{ top_k: 20 }`). */
  readonly extraBody?: { readonly [key: string]: unknown } | undefined
}

/**
 * Options of the model layer.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options extends Sampling {
  /** API root, e.g. `http://127.0.0.1:8000/v1` (default `AUTODIDACT_LLM_BASE_URL`). */
  readonly baseUrl?: string | undefined
  /** Model name sent in the body (default `AUTODIDACT_LLM_MODEL`). */
  readonly model?: string | undefined
  /** Bearer token (default `AUTODIDACT_LLM_API_KEY`, then `OPENAI_API_KEY`). */
  readonly apiKey?: string | undefined
  /** Time limit of one request up to its response headers (default 60 seconds). */
  readonly timeout?: Duration.Input | undefined
  /** Retries of a retryable failure (default 3). */
  readonly retries?: number | undefined
  /** First backoff delay, doubled on each retry (default 200 millis). */
  readonly retryBase?: Duration.Input | undefined
  /** Extra request headers. */
  readonly headers?: { readonly [key: string]: string } | undefined
  /** The environment to read the defaults from (default `process.env`). */
  readonly env?: { readonly [key: string]: string | undefined } | undefined
}

/**
 * A resolved configuration.
 *
 * @category models
 * @since 0.1.0
 */
export interface Config {
  readonly baseUrl: string
  readonly model: string
  readonly apiKey: string | undefined
  readonly timeout: Duration.Duration
  readonly retries: number
  readonly retryBase: Duration.Duration
  readonly headers: { readonly [key: string]: string }
  readonly sampling: Sampling
}

/**
 * Whether a URL's host is a loopback address (`localhost`, `127.0.0.0/8`, `::1`).
 *
 * @category config
 * @since 0.1.0
 */
export const isLoopbackUrl = (url: string): boolean => {
  try {
    return isLoopbackHost(new URL(url).hostname)
  } catch {
    return false
  }
}

/**
 * Whether a host name or address is loopback.
 *
 * @category config
 * @since 0.1.0
 */
export const isLoopbackHost = (host: string): boolean => {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase()
  return h === "localhost" || h.endsWith(".localhost") || h === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || h === "::ffff:127.0.0.1"
}

/**
 * Resolve options and environment into a {@link Config}, failing with `LlmConfigError` on a missing or malformed
 * base URL or model, a missing API key for a non-loopback URL, or an out-of-range number.
 *
 * @category config
 * @since 0.1.0
 */
export const resolveConfig = (options: Options = {}): Effect.Effect<Config, LlmConfigError> =>
  Effect.gen(function*() {
    const env = options.env ?? process.env
    const baseUrl = (options.baseUrl ?? env["AUTODIDACT_LLM_BASE_URL"])?.trim()
    if (baseUrl === undefined || baseUrl === "") {
      return yield* new LlmConfigError({ option: "baseUrl", value: baseUrl ?? null, reason: "no base URL: pass baseUrl or set AUTODIDACT_LLM_BASE_URL (e.g. http://127.0.0.1:8080/v1)" })
    }
    let parsed: URL
    try {
      parsed = new URL(baseUrl)
    } catch {
      return yield* new LlmConfigError({ option: "baseUrl", value: baseUrl, reason: "not a URL" })
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
      return yield* new LlmConfigError({ option: "baseUrl", value: baseUrl, reason: "must be http or https" })
    }
    const model = options.model ?? env["AUTODIDACT_LLM_MODEL"]
    if (model === undefined || model.trim() === "") {
      return yield* new LlmConfigError({ option: "model", value: model ?? null, reason: "no model: pass model or set AUTODIDACT_LLM_MODEL" })
    }
    const apiKey = options.apiKey ?? env["AUTODIDACT_LLM_API_KEY"] ?? env["OPENAI_API_KEY"]
    if ((apiKey === undefined || apiKey === "") && !isLoopbackHost(parsed.hostname)) {
      return yield* new LlmConfigError({
        option: "apiKey",
        value: null,
        reason: `missing API key for the non-loopback ${parsed.host}: pass apiKey or set AUTODIDACT_LLM_API_KEY or OPENAI_API_KEY`
      })
    }
    const timeout = Duration.fromInputUnsafe(options.timeout ?? Duration.seconds(60))
    if (!(Duration.toMillis(timeout) > 0)) return yield* new LlmConfigError({ option: "timeout", value: Duration.format(timeout), reason: "must be positive" })
    const retries = options.retries ?? 3
    if (!Number.isSafeInteger(retries) || retries < 0) return yield* new LlmConfigError({ option: "retries", value: retries, reason: "must be a non-negative integer" })
    const { baseUrl: _b, model: _m, apiKey: _k, timeout: _t, retries: _r, retryBase, headers, env: _e, ...sampling } = options
    const bad = checkSampling(sampling)
    if (bad !== undefined) return yield* bad
    return {
      baseUrl: baseUrl.replace(/\/+$/, ""),
      model,
      apiKey: apiKey === "" ? undefined : apiKey,
      timeout,
      retries,
      retryBase: Duration.fromInputUnsafe(retryBase ?? Duration.millis(200)),
      headers: headers ?? {},
      sampling
    }
  })

const checkSampling = (s: Sampling): LlmConfigError | undefined => {
  const num = (name: string, v: number | undefined, ok: (x: number) => boolean, reason: string) =>
    v !== undefined && !(Number.isFinite(v) && ok(v)) ? new LlmConfigError({ option: name, value: v, reason }) : undefined
  return num("temperature", s.temperature, (x) => x >= 0, "must be a finite number >= 0") ??
    num("topP", s.topP, (x) => x > 0 && x <= 1, "must be in (0, 1]") ??
    num("maxTokens", s.maxTokens, (x) => Number.isSafeInteger(x) && x > 0, "must be a positive integer") ??
    num("seed", s.seed, Number.isSafeInteger, "must be an integer") ??
    num("topLogprobs", s.topLogprobs, (x) => Number.isSafeInteger(x) && x >= 0 && x <= 20, "must be an integer in [0, 20]")
}

/**
 * Per-call sampling parameters, merged over the layer's (see {@link withSampling}).
 *
 * @category services
 * @since 0.1.0
 */
export const CurrentSampling = Context.Reference<Sampling>("@autodidact/llm/OpenAiCompat/CurrentSampling", { defaultValue: () => ({}) })

/**
 * Run an effect (`LanguageModel.generateText`, `generateObject`) with sampling parameters merged over the current
 * ones.
 *
 * @category combinators
 * @since 0.1.0
 */
export const withSampling = (sampling: Sampling) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.gen(function*() {
    const current = yield* CurrentSampling
    return yield* Effect.provideService(self, CurrentSampling, { ...current, ...sampling })
  })

/**
 * Run a stream (`LanguageModel.streamText`) with sampling parameters merged over the current ones.
 *
 * @category combinators
 * @since 0.1.0
 */
export const withSamplingStream = (sampling: Sampling) => <A, E, R>(self: Stream.Stream<A, E, R>): Stream.Stream<A, E, R> =>
  Stream.unwrap(Effect.gen(function*() {
    const current = yield* CurrentSampling
    return Stream.provideService(self, CurrentSampling, { ...current, ...sampling })
  }))

// ---------------------------------------------------------------------------------------------------------------
// Request encoding
// ---------------------------------------------------------------------------------------------------------------

/** An OpenAI chat message as sent on the wire. @category models @since 0.1.0 */
export type ChatMessage =
  | { readonly role: "system"; readonly content: string }
  | { readonly role: "user"; readonly content: string | ReadonlyArray<{ readonly [key: string]: unknown }> }
  | { readonly role: "assistant"; readonly content: string | null; readonly tool_calls?: ReadonlyArray<WireToolCall> }
  | { readonly role: "tool"; readonly tool_call_id: string; readonly content: string }

/** A tool call on the wire. @category models @since 0.1.0 */
export interface WireToolCall {
  readonly id: string
  readonly type: "function"
  readonly function: { readonly name: string; readonly arguments: string }
}

const jsonText = (v: unknown): string => (typeof v === "string" ? v : JSON.stringify(v ?? null))

const fileUrl = (part: Prompt.FilePart): string | undefined => {
  if (part.data instanceof URL) return part.data.href
  if (typeof part.data === "string") return /^(https?:|data:)/.test(part.data) ? part.data : `data:${part.mediaType};base64,${part.data}`
  return `data:${part.mediaType};base64,${Buffer.from(part.data).toString("base64")}`
}

/**
 * The chat messages of a prompt.
 *
 * @category encoding
 * @since 0.1.0
 */
export const toChatMessages = (prompt: Prompt.Prompt): Array<ChatMessage> => {
  const out: Array<ChatMessage> = []
  for (const m of prompt.content) {
    switch (m.role) {
      case "system":
        out.push({ role: "system", content: m.content })
        break
      case "user": {
        const hasFile = m.content.some((p) => p.type === "file" && p.mediaType.startsWith("image/"))
        if (!hasFile) {
          out.push({ role: "user", content: m.content.filter((p) => p.type === "text").map((p) => p.text).join("") })
        } else {
          out.push({
            role: "user",
            content: m.content.flatMap((p): Array<{ readonly [key: string]: unknown }> =>
              p.type === "text"
                ? [{ type: "text", text: p.text }]
                : p.mediaType.startsWith("image/")
                ? [{ type: "image_url", image_url: { url: fileUrl(p) } }]
                : []
            )
          })
        }
        break
      }
      case "assistant": {
        const text = m.content.filter((p) => p.type === "text").map((p) => (p as Prompt.TextPart).text).join("")
        const calls: Array<WireToolCall> = []
        const results: Array<ChatMessage> = []
        for (const p of m.content) {
          if (p.type === "tool-call" && !p.providerExecuted) {
            calls.push({ id: p.id, type: "function", function: { name: p.name, arguments: jsonText(p.params) } })
          } else if (p.type === "tool-result" && !p.providerExecuted) {
            results.push({ role: "tool", tool_call_id: p.id, content: jsonText(p.result) })
          }
        }
        out.push(calls.length > 0 ? { role: "assistant", content: text === "" ? null : text, tool_calls: calls } : { role: "assistant", content: text })
        out.push(...results)
        break
      }
      case "tool":
        for (const p of m.content) {
          if (p.type === "tool-result") out.push({ role: "tool", tool_call_id: p.id, content: jsonText(p.result) })
        }
        break
    }
  }
  return out
}

const wireTools = (tools: ReadonlyArray<Tool.Any>) =>
  tools
    .filter((t) => Tool.isUserDefined(t) || Tool.isDynamic(t))
    .map((t) => {
      const description = Tool.getDescription(t)
      return {
        type: "function" as const,
        function: { name: t.name, ...(description === undefined ? {} : { description }), parameters: Tool.getJsonSchema(t) }
      }
    })

const wireToolChoice = (choice: LanguageModel.ProviderOptions["toolChoice"], names: ReadonlyArray<string>): { readonly choice: unknown; readonly keep: ReadonlyArray<string> } => {
  if (choice === "auto" || choice === "none" || choice === "required") return { choice, keep: names }
  if ("tool" in choice) return { choice: { type: "function", function: { name: choice.tool } }, keep: names }
  return { choice: choice.mode === "required" ? "required" : "auto", keep: choice.oneOf }
}

/**
 * The JSON body of a chat-completions request for provider options and sampling parameters.
 *
 * @category encoding
 * @since 0.1.0
 */
export const requestBody = (
  model: string,
  options: Pick<LanguageModel.ProviderOptions, "prompt" | "tools" | "toolChoice" | "responseFormat">,
  sampling: Sampling,
  stream: boolean
): { [key: string]: unknown } => {
  const body: { [key: string]: unknown } = { model, messages: toChatMessages(options.prompt) }
  const tools = wireTools(options.tools)
  if (tools.length > 0 && options.toolChoice !== "none") {
    const { choice, keep } = wireToolChoice(options.toolChoice, tools.map((t) => t.function.name))
    body["tools"] = tools.filter((t) => keep.includes(t.function.name))
    body["tool_choice"] = choice
  }
  if (options.responseFormat.type === "json") {
    body["response_format"] = {
      type: "json_schema",
      json_schema: { name: options.responseFormat.objectName, schema: Tool.getJsonSchemaFromSchema(options.responseFormat.schema), strict: false }
    }
  }
  if (sampling.temperature !== undefined) body["temperature"] = sampling.temperature
  if (sampling.topP !== undefined) body["top_p"] = sampling.topP
  if (sampling.maxTokens !== undefined) body["max_tokens"] = sampling.maxTokens
  if (sampling.seed !== undefined) body["seed"] = sampling.seed
  if (sampling.stop !== undefined) body["stop"] = sampling.stop
  if (sampling.logprobs !== undefined) body["logprobs"] = sampling.logprobs
  if (sampling.topLogprobs !== undefined) body["top_logprobs"] = sampling.topLogprobs
  if (sampling.presencePenalty !== undefined) body["presence_penalty"] = sampling.presencePenalty
  if (sampling.frequencyPenalty !== undefined) body["frequency_penalty"] = sampling.frequencyPenalty
  if (stream) {
    body["stream"] = true
    body["stream_options"] = { include_usage: true }
  }
  return { ...body, ...sampling.extraBody }
}

// ---------------------------------------------------------------------------------------------------------------
// Response decoding
// ---------------------------------------------------------------------------------------------------------------

type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }
type Obj = { readonly [key: string]: unknown }

const isObj = (u: unknown): u is Obj => typeof u === "object" && u !== null && !Array.isArray(u)
const int = (u: unknown): number | undefined => (typeof u === "number" && Number.isSafeInteger(u) && u >= 0 ? u : undefined)

/**
 * The effect/ai finish reason of an OpenAI `finish_reason`.
 *
 * @category decoding
 * @since 0.1.0
 */
export const finishReason = (r: unknown): Response.FinishReason => {
  switch (r) {
    case "stop":
      return "stop"
    case "length":
      return "length"
    case "content_filter":
      return "content-filter"
    case "tool_calls":
    case "function_call":
      return "tool-calls"
    case null:
    case undefined:
      return "unknown"
    default:
      return "other"
  }
}

/**
 * The effect/ai usage of an OpenAI `usage` object (absent fields stay absent).
 *
 * @category decoding
 * @since 0.1.0
 */
export const usageOf = (u: unknown): typeof Response.Usage.Encoded => {
  if (!isObj(u)) return { inputTokens: {}, outputTokens: {} }
  const prompt = int(u["prompt_tokens"])
  const completion = int(u["completion_tokens"])
  const cached = isObj(u["prompt_tokens_details"]) ? int(u["prompt_tokens_details"]["cached_tokens"]) : undefined
  const reasoning = isObj(u["completion_tokens_details"]) ? int(u["completion_tokens_details"]["reasoning_tokens"]) : undefined
  return {
    inputTokens: {
      ...(prompt === undefined ? {} : { total: prompt }),
      ...(cached === undefined ? {} : { cacheRead: cached, ...(prompt === undefined ? {} : { uncached: prompt - cached }) })
    },
    outputTokens: {
      ...(completion === undefined ? {} : { total: completion }),
      ...(reasoning === undefined ? {} : { reasoning, ...(completion === undefined ? {} : { text: completion - reasoning }) })
    }
  }
}

const invalidResponse = (method: string, description: string, body?: string) =>
  AiError.make({
    module: "OpenAiCompat",
    method,
    reason: new AiError.InvalidResponseError({ description, ...(body === undefined ? {} : { http: { body: body.slice(0, 1000) } }) })
  })

const parseToolArguments = (method: string, name: string, args: string): Effect.Effect<unknown, AiError.AiError> => {
  if (args.trim() === "") return Effect.succeed({})
  try {
    return Effect.succeed(JSON.parse(args))
  } catch {
    return Effect.fail(
      AiError.make({
        module: "OpenAiCompat",
        method,
        reason: new AiError.InvalidOutputError({ description: `the arguments of tool call ${JSON.stringify(name)} are not JSON: ${args.slice(0, 500)}` })
      })
    )
  }
}

const compatMetadata = (fields: { logprobs?: unknown; promptTokenIds?: unknown; tokenIds?: unknown }): { readonly openaiCompat?: Json } => {
  const m: { [key: string]: Json } = {}
  if (fields.logprobs !== undefined && fields.logprobs !== null) m["logprobs"] = fields.logprobs as Json
  if (fields.promptTokenIds !== undefined && fields.promptTokenIds !== null) m["promptTokenIds"] = fields.promptTokenIds as Json
  if (fields.tokenIds !== undefined && fields.tokenIds !== null) m["tokenIds"] = fields.tokenIds as Json
  return Object.keys(m).length === 0 ? {} : { openaiCompat: m }
}

/**
 * The effect/ai response parts of a non-streaming chat-completions body (already parsed JSON).
 *
 * @category decoding
 * @since 0.1.0
 */
export const decodeCompletion = (json: unknown, raw = ""): Effect.Effect<Array<Response.PartEncoded>, AiError.AiError> =>
  Effect.gen(function*() {
    const method = "generateText"
    if (!isObj(json) || !Array.isArray(json["choices"])) return yield* invalidResponse(method, "no choices array in the response", raw)
    const choice = json["choices"][0]
    if (!isObj(choice) || !isObj(choice["message"])) return yield* invalidResponse(method, "no choices[0].message in the response", raw)
    const message = choice["message"]
    const parts: Array<Response.PartEncoded> = []
    parts.push({
      type: "response-metadata",
      ...(typeof json["id"] === "string" ? { id: json["id"] } : {}),
      ...(typeof json["model"] === "string" ? { modelId: json["model"] } : {}),
      ...(typeof json["created"] === "number" ? { timestamp: new Date(json["created"] * 1000).toISOString() } : {})
    })
    const reasoning = message["reasoning_content"] ?? message["reasoning"]
    if (typeof reasoning === "string" && reasoning !== "") parts.push({ type: "reasoning", text: reasoning })
    const content = message["content"]
    if (typeof content === "string" && content !== "") parts.push({ type: "text", text: content })
    else if (content !== null && content !== undefined && typeof content !== "string") {
      return yield* invalidResponse(method, "choices[0].message.content is neither a string nor null", raw)
    }
    const calls = message["tool_calls"]
    if (calls !== undefined && calls !== null) {
      if (!Array.isArray(calls)) return yield* invalidResponse(method, "choices[0].message.tool_calls is not an array", raw)
      for (const [i, c] of calls.entries()) {
        const fn = isObj(c) ? c["function"] : undefined
        if (!isObj(c) || !isObj(fn) || typeof fn["name"] !== "string") return yield* invalidResponse(method, `tool_calls[${i}] has no function name`, raw)
        const args = typeof fn["arguments"] === "string" ? fn["arguments"] : JSON.stringify(fn["arguments"] ?? {})
        const params = yield* parseToolArguments(method, fn["name"], args)
        parts.push({ type: "tool-call", id: typeof c["id"] === "string" ? c["id"] : `call_${i}`, name: fn["name"], params })
      }
    }
    parts.push({
      type: "finish",
      reason: finishReason(choice["finish_reason"]),
      usage: usageOf(json["usage"]),
      metadata: compatMetadata({ logprobs: choice["logprobs"], promptTokenIds: json["prompt_token_ids"] ?? choice["prompt_token_ids"], tokenIds: choice["token_ids"] })
    })
    return parts
  })

/**
 * A decoder of streamed chat-completions chunks into effect/ai stream parts. Feed it each chunk (parsed JSON) with
 * {@link StreamDecoder.chunk}, then {@link StreamDecoder.end} when `[DONE]` (or the end of the body) arrives.
 *
 * @category decoding
 * @since 0.1.0
 */
export class StreamDecoder {
  private started = false
  private textOpen = false
  private reasoningOpen = false
  private readonly tools = new Map<number, { id: string; name: string; args: string }>()
  private finish: unknown = undefined
  private usage: unknown = undefined
  private readonly logprobs: Array<unknown> = []
  private readonly tokenIds: Array<unknown> = []
  private promptTokenIds: unknown = undefined
  private ended = false

  chunk(json: unknown): Effect.Effect<Array<Response.StreamPartEncoded>, AiError.AiError> {
    const out: Array<Response.StreamPartEncoded> = []
    if (!isObj(json)) return Effect.fail(invalidResponse("streamText", "a stream chunk is not a JSON object", JSON.stringify(json)))
    if (isObj(json["error"])) {
      const e = json["error"]
      return Effect.fail(AiError.make({
        module: "OpenAiCompat",
        method: "streamText",
        reason: new AiError.InternalProviderError({ description: `the server reported an error mid-stream: ${typeof e["message"] === "string" ? e["message"] : JSON.stringify(e)}` })
      }))
    }
    if (!this.started) {
      this.started = true
      out.push({
        type: "response-metadata",
        ...(typeof json["id"] === "string" ? { id: json["id"] } : {}),
        ...(typeof json["model"] === "string" ? { modelId: json["model"] } : {}),
        ...(typeof json["created"] === "number" ? { timestamp: new Date(json["created"] * 1000).toISOString() } : {})
      })
    }
    if (json["usage"] !== undefined && json["usage"] !== null) this.usage = json["usage"]
    if (json["prompt_token_ids"] !== undefined) this.promptTokenIds = json["prompt_token_ids"]
    const choices = json["choices"]
    if (!Array.isArray(choices)) return Effect.succeed(out)
    const choice = choices[0]
    if (!isObj(choice)) return Effect.succeed(out)
    const delta = isObj(choice["delta"]) ? choice["delta"] : {}
    const reasoning = delta["reasoning_content"] ?? delta["reasoning"]
    if (typeof reasoning === "string" && reasoning !== "") {
      if (!this.reasoningOpen) out.push({ type: "reasoning-start", id: "reasoning-0" })
      this.reasoningOpen = true
      out.push({ type: "reasoning-delta", id: "reasoning-0", delta: reasoning })
    }
    const content = delta["content"]
    if (typeof content === "string" && content !== "") {
      if (this.reasoningOpen) {
        out.push({ type: "reasoning-end", id: "reasoning-0" })
        this.reasoningOpen = false
      }
      if (!this.textOpen) out.push({ type: "text-start", id: "text-0" })
      this.textOpen = true
      out.push({ type: "text-delta", id: "text-0", delta: content })
    }
    if (Array.isArray(delta["tool_calls"])) {
      for (const [k, c] of delta["tool_calls"].entries()) {
        if (!isObj(c)) continue
        const index = int(c["index"]) ?? k
        const fn = isObj(c["function"]) ? c["function"] : {}
        let t = this.tools.get(index)
        if (t === undefined) {
          t = { id: typeof c["id"] === "string" ? c["id"] : `call_${index}`, name: typeof fn["name"] === "string" ? fn["name"] : "", args: "" }
          this.tools.set(index, t)
          out.push({ type: "tool-params-start", id: t.id, name: t.name })
        } else if (typeof fn["name"] === "string" && t.name === "") t.name = fn["name"]
        if (typeof fn["arguments"] === "string" && fn["arguments"] !== "") {
          t.args += fn["arguments"]
          out.push({ type: "tool-params-delta", id: t.id, delta: fn["arguments"] })
        }
      }
    }
    const lp = choice["logprobs"]
    if (isObj(lp) && Array.isArray(lp["content"])) this.logprobs.push(...lp["content"])
    if (Array.isArray(choice["token_ids"])) this.tokenIds.push(...choice["token_ids"])
    if (choice["finish_reason"] !== undefined && choice["finish_reason"] !== null) this.finish = choice["finish_reason"]
    return Effect.succeed(out)
  }

  end(): Effect.Effect<Array<Response.StreamPartEncoded>, AiError.AiError> {
    if (this.ended) return Effect.succeed([])
    this.ended = true
    return Effect.gen({ self: this }, function*() {
      const out: Array<Response.StreamPartEncoded> = []
      if (this.reasoningOpen) out.push({ type: "reasoning-end", id: "reasoning-0" })
      if (this.textOpen) out.push({ type: "text-end", id: "text-0" })
      for (const t of this.tools.values()) {
        out.push({ type: "tool-params-end", id: t.id })
        const params = yield* parseToolArguments("streamText", t.name, t.args)
        out.push({ type: "tool-call", id: t.id, name: t.name, params })
      }
      out.push({
        type: "finish",
        reason: finishReason(this.finish),
        usage: usageOf(this.usage),
        metadata: compatMetadata({
          logprobs: this.logprobs.length > 0 ? { content: this.logprobs } : undefined,
          promptTokenIds: this.promptTokenIds,
          tokenIds: this.tokenIds.length > 0 ? this.tokenIds : undefined
        })
      })
      return out
    })
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The model
// ---------------------------------------------------------------------------------------------------------------

const httpError = (method: string, status: number, body: string): AiError.AiError =>
  AiError.make({
    module: "OpenAiCompat",
    method,
    reason: AiError.reasonFromHttpStatus({
      status,
      http: { response: { status, headers: {} }, body: body.slice(0, 1000) },
      description: `upstream answered HTTP ${status}: ${body.slice(0, 300)}`
    })
  })

const transportError = (method: string, url: string, description: string): AiError.AiError =>
  AiError.make({ module: "OpenAiCompat", method, reason: new AiError.NetworkError({ reason: "TransportError", method: "POST", url, description }) })

/**
 * The `LanguageModel` service for a resolved configuration, over the `HttpClient` in the context.
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeWith = (config: Config): Effect.Effect<LanguageModel.LanguageModel, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const url = `${config.baseUrl}/chat/completions`
    const schedule = Schedule.exponential(config.retryBase)
    const timeoutText = Duration.format(config.timeout)

    const open = (method: string, body: unknown) => {
      let request = HttpClientRequest.post(url).pipe(
        HttpClientRequest.setHeaders(config.headers),
        HttpClientRequest.bodyJsonUnsafe(body)
      )
      if (config.apiKey !== undefined) request = HttpClientRequest.bearerToken(request, config.apiKey)
      return client.execute(request).pipe(
        Effect.timeoutOrElse({ duration: config.timeout, orElse: () => Effect.fail(transportError(method, url, `no response within ${timeoutText}`)) }),
        Effect.catchTag("HttpClientError", (e) => Effect.fail(transportError(method, url, e.message))),
        Effect.flatMap((res) =>
          res.status >= 200 && res.status < 300
            ? Effect.succeed(res)
            : res.text.pipe(
              Effect.orElseSucceed(() => ""),
              Effect.flatMap((text) => Effect.fail(httpError(method, res.status, text)))
            )
        )
      )
    }

    // Precedence: the layer's config < the temperature an `LlmPolicy` or optimizer sets for the call
    // (`LlmPolicy.Temperature`) < `withSampling`.
    const sampling = Effect.gen(function*() {
      const s = yield* CurrentSampling
      const temperature = yield* LlmPolicy.Temperature
      return { ...config.sampling, ...(temperature === undefined ? {} : { temperature }), ...s } as Sampling
    })

    const generateText = (options: LanguageModel.ProviderOptions) =>
      Effect.gen(function*() {
        const body = requestBody(config.model, options, yield* sampling, false)
        const text = yield* open("generateText", body).pipe(
          Effect.flatMap((res) =>
            res.text.pipe(
              Effect.timeoutOrElse({ duration: config.timeout, orElse: () => Effect.fail(transportError("generateText", url, `body not received within ${timeoutText}`)) }),
              Effect.catchTag("HttpClientError", (e) => Effect.fail(transportError("generateText", url, e.message)))
            )
          ),
          Effect.retry({ schedule, times: config.retries, while: (e) => e.isRetryable })
        )
        let json: unknown
        try {
          json = JSON.parse(text)
        } catch {
          return yield* invalidResponse("generateText", `the response body is not JSON: ${text.slice(0, 200)}`, text)
        }
        return yield* decodeCompletion(json, text)
      })

    const streamText = (options: LanguageModel.ProviderOptions) =>
      Stream.unwrap(Effect.gen(function*() {
        const body = requestBody(config.model, options, yield* sampling, true)
        const res = yield* open("streamText", body).pipe(Effect.retry({ schedule, times: config.retries, while: (e) => e.isRetryable }))
        const parser = new Sse.Parser()
        const decoder = new StreamDecoder()
        const events = res.stream.pipe(
          Stream.mapError((e) => transportError("streamText", url, `the stream broke: ${e.message}`)),
          Stream.decodeText,
          Stream.map((text) => parser.push(text)),
          Stream.concat(Stream.sync(() => parser.end())),
          Stream.flattenIterable
        )
        let done = false
        return events.pipe(
          Stream.mapEffect((e): Effect.Effect<Array<Response.StreamPartEncoded>, AiError.AiError> => {
            if (done) return Effect.succeed([])
            if (Sse.isDone(e)) {
              done = true
              return decoder.end()
            }
            let json: unknown
            try {
              json = JSON.parse(e.data)
            } catch {
              return Effect.fail(invalidResponse("streamText", `a stream event is not JSON: ${e.data.slice(0, 200)}`))
            }
            return decoder.chunk(json)
          }),
          Stream.concat(Stream.fromEffect(Effect.suspend(() => decoder.end()))),
          Stream.flattenIterable
        )
      }))

    return yield* LanguageModel.make({ generateText, streamText })
  })

/**
 * The `LanguageModel` service from options and environment, over the `HttpClient` in the context.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (options: Options = {}): Effect.Effect<LanguageModel.LanguageModel, LlmConfigError, HttpClient.HttpClient> =>
  Effect.flatMap(resolveConfig(options), makeWith)

/**
 * The model as the `LanguageModel` service, over the `HttpClient` in the context.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options: Options = {}): Layer.Layer<LanguageModel.LanguageModel, LlmConfigError, HttpClient.HttpClient> =>
  Layer.effect(LanguageModel.LanguageModel, make(options))

/**
 * The model over `FetchHttpClient` (safe on Node 20).
 *
 * @category layers
 * @since 0.1.0
 */
export const layerFetch = (options: Options = {}): Layer.Layer<LanguageModel.LanguageModel, LlmConfigError> =>
  Layer.provide(layer(options), FetchHttpClient.layer)

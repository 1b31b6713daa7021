/**
 * `@autodidact/llm/testing`: a scripted OpenAI-compatible server for tests, on plain `node:http` (independent of the
 * model layer, the gateway and every other client under test), listening on `127.0.0.1` at a free port.
 *
 * What it serves under `<baseUrl>` = `http://127.0.0.1:<port>/v1`:
 * - `POST /v1/chat/completions`: the reply of `respond(request)` as an OpenAI chat completion, or, when the request
 *   asks `stream: true`, as server-sent `chat.completion.chunk` events (a role chunk, one chunk per content piece,
 *   tool calls as deltas with their arguments split in two, a finish chunk, a usage chunk when asked, `[DONE]`);
 * - `POST /v1/embeddings`: the reply's `embeddings` as an OpenAI embeddings list;
 * - `GET /v1/models`: the `models` list; anything else: 404.
 * Every chat and embeddings request is recorded (in arrival order) in `requests`, with its parsed body, headers and
 * arrival time, before `respond` sees it.
 *
 * A reply ({@link Reply}) is a string (the assistant's content), a {@link Completion} (content, tool calls, usage,
 * logprobs, token ids, stream faults), an {@link Embeddings} list, or an {@link HttpReply} (any status, headers and
 * JSON or raw body: 429 with `retry-after`, 500, a body that is not JSON); any of them may carry `delayMs` before the
 * answer starts, and `{ hang: true }` never answers (until `close`). A `respond` that throws or rejects answers 500
 * with the error's message, so a broken script shows in the test's failure. The default `respond` echoes:
 * `echo: <last user text>`.
 *
 * Two faces: {@link startScriptedServer} (a Promise; call `close()` at the end) and {@link scriptedServer} (an Effect
 * scoped resource, closed with its scope).
 *
 * @example
 * ```ts
 * import { startScriptedServer } from "@autodidact/llm/testing"
 * const server = await startScriptedServer({ respond: (r) => (r.lastUser === "boom" ? { status: 503, headers: { "retry-after": "1" } } : `Action: look`) })
 * // ... point the client at server.baseUrl; inspect server.requests[0].body.messages ...
 * await server.close()
 * ```
 * @since 0.1.0
 */
import { Effect, type Scope } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"

/** A chat message as a request carries it (`content` may be a string, parts, or null). @category models @since 0.1.0 */
export interface RequestMessage {
  readonly role: string
  readonly content?: unknown
  readonly [key: string]: unknown
}

/** One recorded request, as `respond` sees it. @category models @since 0.1.0 */
export interface ScriptedRequest {
  /** 0-based arrival order among the recorded (chat and embeddings) requests. */
  readonly index: number
  readonly kind: "chat" | "embeddings"
  /** `/v1/chat/completions` or `/v1/embeddings`. */
  readonly path: string
  readonly headers: http.IncomingHttpHeaders
  /** The parsed JSON body. */
  readonly body: any
  /** `Date.now()` at arrival. */
  readonly time: number
  /** The chat messages (empty for embeddings). */
  readonly messages: ReadonlyArray<RequestMessage>
  /** The text of the last user message ("" when none); text parts of array content are joined. */
  readonly lastUser: string
  /** Every message's text joined by newlines. */
  readonly transcript: string
  /** Whether the request asked for a stream. */
  readonly stream: boolean
  /** How many recorded requests so far (this one included, so ≥ 1) had the same `lastUser` and kind. */
  readonly occurrence: number
}

/** Token usage; omitted fields default as documented on {@link Completion}. @category models @since 0.1.0 */
export interface Usage {
  readonly prompt_tokens: number
  readonly completion_tokens: number
}

/** A tool call the assistant makes. `arguments` is sent as given (it need not be valid JSON). @category models @since 0.1.0 */
export interface ToolCallReply {
  readonly id?: string | undefined
  readonly name: string
  readonly arguments: string
}

/** Extras every reply may carry. @category models @since 0.1.0 */
export interface Timing {
  /** Milliseconds to wait before answering (≥ 0). */
  readonly delayMs?: number | undefined
}

/**
 * A successful chat completion. Defaults: `content` "" (null when there are tool calls), `finishReason` `"stop"`
 * (`"tool_calls"` with tool calls), `usage` `{ prompt_tokens: 10 × messages, completion_tokens: pieces }`, `pieces`
 * the content split before each space (`"a b"` → `["a", " b"]`), one stream chunk each.
 * @category models @since 0.1.0
 */
export interface Completion extends Timing {
  readonly content?: string | null | undefined
  readonly toolCalls?: ReadonlyArray<ToolCallReply> | undefined
  readonly finishReason?: string | undefined
  /** `null`: no usage field (and no usage chunk). */
  readonly usage?: Usage | null | undefined
  /** How the content is streamed (joined, they must equal `content`). */
  readonly pieces?: ReadonlyArray<string> | undefined
  /** Per-piece logprobs (OpenAI's `choices[0].logprobs.content`); streamed one per chunk. */
  readonly logprobs?: ReadonlyArray<{ readonly token: string; readonly logprob: number }> | undefined
  /** vLLM-style `token_ids` of the choice; streamed one per chunk. */
  readonly tokenIds?: ReadonlyArray<number> | undefined
  /** Response `id` and `model` (default `chatcmpl-<index>` and the request's model). */
  readonly id?: string | undefined
  readonly model?: string | undefined
  /** Streaming faults: after `destroyAfter` content pieces the socket is destroyed (no finish, no `[DONE]`). */
  readonly destroyAfter?: number | undefined
  /** Streaming faults: after `pauseAfter.pieces` content pieces, wait `pauseAfter.ms` before the rest. */
  readonly pauseAfter?: { readonly pieces: number; readonly ms: number } | undefined
}

/** An embeddings answer: one vector per input. @category models @since 0.1.0 */
export interface Embeddings extends Timing {
  readonly embeddings: ReadonlyArray<ReadonlyArray<number>>
}

/**
 * Any HTTP answer: `status` with `body` as JSON (default for a status ≥ 400: an OpenAI-style
 * `{ error: { message, type } }`), or `raw` sent as is. `headers` are added to `content-type: application/json`.
 * @category models @since 0.1.0
 */
export interface HttpReply extends Timing {
  readonly status: number
  readonly headers?: Readonly<Record<string, string>> | undefined
  readonly body?: unknown
  readonly raw?: string | undefined
}

/** What `respond` answers. @category models @since 0.1.0 */
export type Reply = string | Completion | Embeddings | HttpReply | { readonly hang: true }

/** Options of {@link startScriptedServer}. @category models @since 0.1.0 */
export interface ScriptedOptions {
  /** The script: a reply per request (default: `echo: <last user text>`). */
  readonly respond?: ((request: ScriptedRequest) => Reply | Promise<Reply>) | undefined
  /** Model ids listed by `GET /v1/models` (default `["scripted"]`). */
  readonly models?: ReadonlyArray<string> | undefined
  /**
   * When a stream ends with a usage chunk: `"asked"` (default, as OpenAI: only with `stream_options.include_usage`)
   * or `"always"`.
   */
  readonly streamUsage?: "asked" | "always" | undefined
}

/** A running scripted server. @category models @since 0.1.0 */
export interface ScriptedServer {
  /** `http://127.0.0.1:<port>/v1` */
  readonly baseUrl: string
  /** The recorded requests, in arrival order (live). */
  readonly requests: ReadonlyArray<ScriptedRequest>
  /** Stop listening and destroy the open connections (hanging requests included). */
  close(): Promise<void>
}

const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
    ? content.map((p) => (typeof p === "object" && p !== null && typeof (p as { text?: unknown }).text === "string" ? (p as { text: string }).text : "")).join("")
    : ""

/** The content split before each space: `"a b  c"` → `["a", " b", " ", " c"]` (joined, the content again). */
const piecesOf = (content: string): Array<string> => (content === "" ? [] : content.split(/(?= )/))

const isHttp = (r: Reply): r is HttpReply => typeof r === "object" && "status" in r
const isEmbeddings = (r: Reply): r is Embeddings => typeof r === "object" && "embeddings" in r
const isHang = (r: Reply): r is { readonly hang: true } => typeof r === "object" && "hang" in r && r.hang === true

/**
 * Listen on a free port of 127.0.0.1 and resolve with `http://127.0.0.1:<port>/v1` and a `close` that destroys the
 * open (keep-alive and hanging) sockets first, so the server closes at once. For tests' own `node:http` servers.
 * @category servers @since 0.1.0
 */
export const listenLoopback = (server: http.Server): Promise<{ readonly url: string; close(): Promise<void> }> =>
  new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as AddressInfo).port
      resolve({
        url: `http://127.0.0.1:${port}/v1`,
        close: () =>
          new Promise<void>((r) => {
            server.close(() => r())
            server.closeAllConnections()
          })
      })
    })
  })

const json = (res: http.ServerResponse, status: number, body: unknown, headers: Readonly<Record<string, string>> = {}) => {
  res.writeHead(status, { "content-type": "application/json", ...headers })
  res.end(JSON.stringify(body))
}

const answerHttp = (res: http.ServerResponse, r: HttpReply) => {
  res.writeHead(r.status, { "content-type": "application/json", ...r.headers })
  res.end(r.raw ?? JSON.stringify(r.body ?? (r.status >= 400 ? { error: { message: `scripted status ${r.status}`, type: r.status === 429 ? "rate_limit_exceeded" : "server_error" } } : {})))
}

const answerCompletion = (res: http.ServerResponse, request: ScriptedRequest, c: Completion, streamUsage: "asked" | "always") => {
  const toolCalls = (c.toolCalls ?? []).map((t, i) => ({ id: t.id ?? `call_${request.index}_${i}`, type: "function", function: { name: t.name, arguments: t.arguments } }))
  const content = c.content ?? (toolCalls.length > 0 ? null : "")
  const pieces = c.pieces ?? piecesOf(content ?? "")
  const finish = c.finishReason ?? (toolCalls.length > 0 ? "tool_calls" : "stop")
  const usage = c.usage === null
    ? undefined
    : (() => {
      const u = c.usage ?? { prompt_tokens: request.messages.length * 10, completion_tokens: pieces.length }
      return { prompt_tokens: u.prompt_tokens, completion_tokens: u.completion_tokens, total_tokens: u.prompt_tokens + u.completion_tokens }
    })()
  const logprobs = c.logprobs?.map((l) => ({ token: l.token, logprob: l.logprob, bytes: null, top_logprobs: [] }))
  const base = { id: c.id ?? `chatcmpl-${request.index}`, created: 1700000000, model: c.model ?? (request.body.model as string | undefined) ?? "scripted" }
  if (!request.stream) {
    json(res, 200, {
      ...base,
      object: "chat.completion",
      choices: [{
        index: 0,
        message: { role: "assistant", content, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) },
        finish_reason: finish,
        logprobs: logprobs === undefined ? null : { content: logprobs },
        ...(c.tokenIds === undefined ? {} : { token_ids: c.tokenIds })
      }],
      ...(usage === undefined ? {} : { usage })
    })
    return
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
  const chunk = { ...base, object: "chat.completion.chunk" }
  const send = (o: unknown) => res.write(`data: ${JSON.stringify(o)}\n\n`)
  const delta = (d: unknown, extra: object = {}) => send({ ...chunk, choices: [{ index: 0, delta: d, finish_reason: null, ...extra }] })
  delta({ role: "assistant", content: "" })
  toolCalls.forEach((t, i) => {
    const cut = Math.min(5, t.function.arguments.length)
    delta({ tool_calls: [{ index: i, id: t.id, type: "function", function: { name: t.function.name, arguments: "" } }] })
    delta({ tool_calls: [{ index: i, function: { arguments: t.function.arguments.slice(0, cut) } }] })
    delta({ tool_calls: [{ index: i, function: { arguments: t.function.arguments.slice(cut) } }] })
  })
  const piece = (i: number) =>
    delta({ content: pieces[i] }, {
      logprobs: logprobs?.[i] === undefined ? null : { content: [logprobs[i]] },
      ...(c.tokenIds?.[i] === undefined ? {} : { token_ids: [c.tokenIds[i]] })
    })
  const finishStream = (from: number) => {
    for (let i = from; i < pieces.length; i++) piece(i)
    send({ ...chunk, choices: [{ index: 0, delta: {}, finish_reason: finish }] })
    if (usage !== undefined && (streamUsage === "always" || request.body.stream_options?.include_usage === true)) send({ ...chunk, choices: [], usage })
    res.end("data: [DONE]\n\n")
  }
  if (c.destroyAfter !== undefined) {
    for (let i = 0; i < Math.min(c.destroyAfter, pieces.length); i++) piece(i)
    const timer = setTimeout(() => res.socket?.destroy(), 20)
    res.on("close", () => clearTimeout(timer))
    return
  }
  if (c.pauseAfter !== undefined) {
    const n = Math.min(c.pauseAfter.pieces, pieces.length)
    for (let i = 0; i < n; i++) piece(i)
    const timer = setTimeout(() => finishStream(n), c.pauseAfter.ms)
    res.on("close", () => clearTimeout(timer))
    return
  }
  finishStream(0)
}

/**
 * Start a scripted OpenAI-compatible server (see the module docs). Resolves once it listens; rejects when it cannot
 * bind. Call `close()` when done.
 * @category servers @since 0.1.0
 */
export const startScriptedServer = (options: ScriptedOptions = {}): Promise<ScriptedServer> => {
  const respond = options.respond ?? ((r: ScriptedRequest) => `echo: ${r.lastUser}`)
  const models = options.models ?? ["scripted"]
  const streamUsage = options.streamUsage ?? "asked"
  const requests: Array<ScriptedRequest> = []
  const seen = new Map<string, number>()
  const server = http.createServer((req, res) => {
    let raw = ""
    req.on("data", (c: Buffer) => (raw += c.toString("utf8")))
    req.on("end", () => {
      const url = (req.url ?? "").split("?")[0]!
      if (req.method === "GET" && url === "/v1/models") {
        json(res, 200, { object: "list", data: models.map((id) => ({ id, object: "model", created: 0, owned_by: "scripted" })) })
        return
      }
      const kind = req.method !== "POST" ? undefined : url === "/v1/chat/completions" ? "chat" as const : url === "/v1/embeddings" ? "embeddings" as const : undefined
      if (kind === undefined) {
        json(res, 404, { error: { message: `no route ${req.method} ${url}`, type: "invalid_request_error" } })
        return
      }
      let body: any
      try {
        body = JSON.parse(raw)
      } catch {
        json(res, 400, { error: { message: "the request body is not JSON", type: "invalid_request_error" } })
        return
      }
      const messages: ReadonlyArray<RequestMessage> = kind === "chat" && Array.isArray(body?.messages) ? body.messages : []
      const lastUser = textOf([...messages].reverse().find((m) => m.role === "user")?.content)
      const key = `${kind}\u0000${lastUser}`
      const occurrence = (seen.get(key) ?? 0) + 1
      seen.set(key, occurrence)
      const request: ScriptedRequest = {
        index: requests.length,
        kind,
        path: url,
        headers: req.headers,
        body,
        time: Date.now(),
        messages,
        lastUser,
        transcript: messages.map((m) => textOf(m.content)).join("\n"),
        stream: body?.stream === true,
        occurrence
      }
      requests.push(request)
      const answer = (reply: Reply) => {
        if (isHang(reply)) return
        if (isHttp(reply)) return answerHttp(res, reply)
        if (isEmbeddings(reply)) {
          return json(res, 200, {
            object: "list",
            data: reply.embeddings.map((embedding, index) => ({ object: "embedding", index, embedding })),
            model: body?.model ?? "scripted",
            usage: { prompt_tokens: 0, total_tokens: 0 }
          })
        }
        return answerCompletion(res, request, typeof reply === "string" ? { content: reply } : reply, streamUsage)
      }
      Promise.resolve()
        .then(() => respond(request))
        .then(
          (reply) => {
            const delay = typeof reply === "object" && "delayMs" in reply ? reply.delayMs ?? 0 : 0
            if (delay <= 0) return answer(reply)
            const timer = setTimeout(() => answer(reply), delay)
            res.on("close", () => clearTimeout(timer))
          },
          (e: unknown) => json(res, 500, { error: { message: `scripted server: respond failed: ${e instanceof Error ? e.message : String(e)}`, type: "server_error" } })
        )
    })
  })
  return listenLoopback(server).then(({ close, url }) => ({ baseUrl: url, requests, close }))
}

/**
 * The Effect face of {@link startScriptedServer}: a scoped resource, closed (connections destroyed) when the scope
 * closes. Dies when the server cannot bind (a test setup defect, not a typed error).
 * @category servers @since 0.1.0
 */
export const scriptedServer = (options: ScriptedOptions = {}): Effect.Effect<ScriptedServer, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(() => startScriptedServer(options)),
    (s) => Effect.promise(() => s.close())
  )

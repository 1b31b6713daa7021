/**
 * A scripted OpenAI-compatible streaming upstream for load tests of the gateway, on 127.0.0.1:0, written on plain
 * `node:http` (independent of the code under test), plus a client that drives it directly or through the gateway.
 *
 * Each request names its index in its last user message (`"load <i>"`); what the upstream does with it is a pure
 * function of `(seed, i)` ({@link outcomeOf}, drawn with `@autodidact/core`'s `Rng`), so a test knows every
 * request's fate whatever order the requests arrive in:
 * - `ok`: 200 and `chunks` SSE chunks (`w<i>_<k>` words), `chunkDelayMs` apart, then a usage chunk and `[DONE]`;
 * - `status`: 429 (with `Retry-After: 1`), 500 or 503 with an OpenAI-style error body;
 * - `reset`: 200, `after` chunks, then the TCP connection is reset (RST) mid-stream;
 * - `refuse`: the connection is reset before any response byte.
 * Used by `test/GatewayLoad.test.ts` and `bench/gateway-load.ts`.
 */
import { Rng, Statistics } from "@autodidact/core"
import * as http from "node:http"
import { listenLoopback } from "./ScriptedUpstream.js"

export type Outcome =
  | { readonly kind: "ok"; readonly chunks: number }
  | { readonly kind: "status"; readonly status: 429 | 500 | 503 }
  | { readonly kind: "reset"; readonly chunks: number; readonly after: number }
  | { readonly kind: "refuse" }

/** Probabilities of the faults (the rest is `ok`). */
export interface Faults {
  readonly status429: number
  readonly status500: number
  readonly status503: number
  readonly reset: number
  readonly refuse: number
}

export const defaultFaults: Faults = { status429: 0.08, status500: 0.04, status503: 0.04, reset: 0.1, refuse: 0.04 }
export const noFaults: Faults = { status429: 0, status500: 0, status503: 0, reset: 0, refuse: 0 }

/** The fate of request `index` under `seed`: the same for the same pair, whatever the arrival order. */
export const outcomeOf = (seed: number, index: number, faults: Faults = defaultFaults): Outcome => {
  const rng = Rng.make([seed, index])
  const u = rng.random()
  const chunks = rng.integers(3, 9)
  const after = rng.integers(1, chunks)
  const edges = [faults.status429, faults.status500, faults.status503, faults.reset, faults.refuse].map((_, i, ps) => ps.slice(0, i + 1).reduce((a, b) => a + b, 0))
  if (u < edges[0]!) return { kind: "status", status: 429 }
  if (u < edges[1]!) return { kind: "status", status: 500 }
  if (u < edges[2]!) return { kind: "status", status: 503 }
  if (u < edges[3]!) return { kind: "reset", chunks, after }
  if (u < edges[4]!) return { kind: "refuse" }
  return { kind: "ok", chunks }
}

/** The words request `index` streams, in order (the answer is them joined by spaces). */
export const wordsOf = (index: number, chunks: number): Array<string> => Array.from({ length: chunks }, (_, k) => `w${index}_${k}`)

export interface LoadUpstream {
  /** `http://127.0.0.1:<port>/v1` */
  readonly url: string
  /** Chat-completions requests received. */
  readonly received: () => number
  close(): Promise<void>
}

export const startLoadUpstream = (options: { readonly seed: number; readonly faults?: Faults; readonly chunkDelayMs?: number }): Promise<LoadUpstream> => {
  const faults = options.faults ?? defaultFaults
  const delay = options.chunkDelayMs ?? 1
  let received = 0
  const server = http.createServer((req, res) => {
    let raw = ""
    req.on("data", (c) => (raw += c))
    req.on("end", () => {
      received++
      let index = -1
      try {
        const body = JSON.parse(raw) as { messages?: Array<{ role: string; content: string }> }
        const m = /^load (\d+)$/.exec(body.messages?.at(-1)?.content ?? "")
        if (m !== null) index = Number(m[1])
      } catch {
        // answered 400 below
      }
      if (index < 0) {
        res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "say load <i>", type: "invalid_request_error" } }))
        return
      }
      const o = outcomeOf(options.seed, index, faults)
      if (o.kind === "refuse") {
        req.socket.resetAndDestroy()
        return
      }
      if (o.kind === "status") {
        res.writeHead(o.status, { "content-type": "application/json", ...(o.status === 429 ? { "retry-after": "1", "x-ratelimit-remaining-requests": "0" } : {}) })
        res.end(JSON.stringify({ error: { message: `scripted ${o.status} for ${index}`, type: o.status === 429 ? "rate_limit_exceeded" : "server_error" } }))
        return
      }
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
      const words = wordsOf(index, o.chunks)
      const base = { id: `chatcmpl-${index}`, object: "chat.completion.chunk", created: 1700000000, model: "load-1" }
      const send = (obj: unknown) => res.write(`data: ${JSON.stringify(obj)}\n\n`)
      const stop = o.kind === "reset" ? o.after : words.length
      let k = 0
      let timer: NodeJS.Timeout | undefined
      const next = () => {
        if (res.destroyed) return
        if (k < stop) {
          send({ ...base, choices: [{ index: 0, delta: { content: k === 0 ? words[k] : ` ${words[k]}` }, finish_reason: null }] })
          k++
          timer = setTimeout(next, delay)
          return
        }
        if (o.kind === "reset") {
          // let what was written reach the peer, then reset the connection
          timer = setTimeout(() => req.socket.resetAndDestroy(), 5)
          return
        }
        send({ ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })
        send({ ...base, choices: [], usage: { prompt_tokens: 1, completion_tokens: words.length, total_tokens: 1 + words.length } })
        res.end("data: [DONE]\n\n")
      }
      res.on("close", () => clearTimeout(timer))
      send({ ...base, choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] })
      next()
    })
  })
  server.keepAliveTimeout = 60_000
  return listenLoopback(server).then(({ url, close }) => ({ url, received: () => received, close }))
}

/** What one streaming client saw. */
export interface ClientResult {
  readonly index: number
  readonly status: number
  /** `x-autodidact-exchange-id` (through the gateway). */
  readonly exchangeId: string | null
  /** The streamed content, concatenated. */
  readonly content: string
  /** `error.code` of an SSE error event, or the transport error's message. */
  readonly error: string | undefined
  /** Milliseconds to the response headers. */
  readonly headersMs: number
  /** Milliseconds to the end of the body. */
  readonly totalMs: number
}

/** One streaming chat-completions call of request `index` against `baseUrl` (`.../v1`), read to the end. */
export const streamOnce = async (baseUrl: string, index: number): Promise<ClientResult> => {
  const t0 = performance.now()
  let status = 0
  let exchangeId: string | null = null
  let headersMs = 0
  let content = ""
  let error: string | undefined
  try {
    const res = await fetch(`${baseUrl}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer sk-load", "x-autodidact-session": `load-${index % 20}` },
      body: JSON.stringify({ model: "load-1", stream: true, messages: [{ role: "user", content: `load ${index}` }] })
    })
    status = res.status
    exchangeId = res.headers.get("x-autodidact-exchange-id")
    headersMs = performance.now() - t0
    const text = await res.text()
    if (status === 200) {
      for (const line of text.split("\n")) {
        if (!line.startsWith("data: ") || line === "data: [DONE]") continue
        const j = JSON.parse(line.slice(6)) as { choices?: Array<{ delta?: { content?: string } }>; error?: { code?: string } }
        if (j.error !== undefined) error = j.error.code ?? "error"
        content += j.choices?.[0]?.delta?.content ?? ""
      }
    }
  } catch (e) {
    error = String((e as { cause?: { code?: string } }).cause?.code ?? (e as Error).message)
  }
  return { index, status, exchangeId, content, error, headersMs, totalMs: performance.now() - t0 }
}

/** The q-quantile (0..1) of numbers (core's `Statistics.quantile`); NaN for none (a run where every request failed). */
export const quantile = (xs: ReadonlyArray<number>, q: number): number => (xs.length === 0 ? Number.NaN : Statistics.quantile(xs, q))

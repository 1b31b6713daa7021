/**
 * A small OpenAI-compatible chat-completions server for the tests, on 127.0.0.1:0, written on plain `node:http`
 * (independent of the code under test). Its policy is scripted by the last user message:
 * - `"429 once: ..."`: the first request with this text answers 429, the next ones succeed;
 * - `"hang"`: never answers;
 * - `"malformed"`: answers 200 with a body that is not JSON;
 * - `"bad tool json"`: a tool call whose arguments are not JSON;
 * - `"call tool"`: a tool call `lookup({"query":"fridge"})` (when tools were sent);
 * - `"fail midstream"`: (streaming) the content chunks, then the socket is destroyed;
 * - `"slow stream"`: (streaming) the first chunk, then nothing for 3 s, then the rest;
 * - `"boom"`: 500 with an OpenAI-style error body;
 * - `"<429|503> once, retry-after <value>"`: the first request with this text answers that status with
 *   `retry-after: <value>`, OpenAI's `x-ratelimit-*` headers (`x-ratelimit-remaining-requests: 0`, ...) and, when the
 *   value is whole seconds, `retry-after-ms`; the next ones succeed (`"... retry-after none"`: no retry headers);
 * - `"echo my key"`: 401 whose error message quotes the request's `authorization` and `api-key` headers (as a
 *   careless upstream would);
 * - anything else: the answer `echo: <text>`.
 * Usage: prompt_tokens = number of messages * 10, completion_tokens = number of words of the answer. With
 * `logprobs: true` each word gets logprob -0.5 * (index + 1) and vLLM-style `token_ids` (100 + index).
 */
import * as http from "node:http"
import type { AddressInfo, Socket } from "node:net"

export interface Upstream {
  readonly url: string
  readonly requests: Array<any>
  readonly headers: Array<http.IncomingHttpHeaders>
  /** `Date.now()` at the arrival of each chat-completions request (same order as `requests`). */
  readonly times: Array<number>
  close(): Promise<void>
}

const words = (s: string) => s.split(/\s+/).filter((w) => w !== "")

export const startUpstream = (): Promise<Upstream> => {
  const requests: Array<any> = []
  const headers: Array<http.IncomingHttpHeaders> = []
  const times: Array<number> = []
  const seen = new Map<string, number>()
  const server = http.createServer((req, res) => {
    let raw = ""
    req.on("data", (c) => (raw += c))
    req.on("end", () => {
      if (req.method === "GET" && req.url === "/v1/models") {
        res.writeHead(200, { "content-type": "application/json" })
        res.end(JSON.stringify({ object: "list", data: [{ id: "scripted-1", object: "model", created: 0, owned_by: "test" }] }))
        return
      }
      if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
        res.writeHead(404).end()
        return
      }
      const body = JSON.parse(raw)
      requests.push(body)
      headers.push(req.headers)
      times.push(Date.now())
      const messages: Array<any> = body.messages
      const lastUser = [...messages].reverse().find((m) => m.role === "user")
      const text: string = typeof lastUser?.content === "string" ? lastUser.content : ""
      const n = (seen.get(text) ?? 0) + 1
      seen.set(text, n)
      if (text.startsWith("429 once") && !text.startsWith("429 once, retry-after") && n === 1) {
        res.writeHead(429, { "content-type": "application/json" })
        res.end(JSON.stringify({ error: { message: "slow down", type: "rate_limit" } }))
        return
      }
      const limited = /^(429|503) once, retry-after (.+)$/.exec(text)
      if (limited !== null && n === 1) {
        const value = limited[2]!
        const retry: Record<string, string> = value === "none" ? {} : { "retry-after": value, ...(/^\d+$/.test(value) ? { "retry-after-ms": String(Number(value) * 1000) } : {}) }
        res.writeHead(Number(limited[1]), {
          "content-type": "application/json",
          ...retry,
          "x-ratelimit-limit-requests": "60",
          "x-ratelimit-remaining-requests": "0",
          "x-ratelimit-reset-requests": "1s",
          "x-ratelimit-remaining-tokens": "1000"
        })
        res.end(JSON.stringify({ error: { message: "rate limited", type: "rate_limit_exceeded" } }))
        return
      }
      if (text === "echo my key") {
        res.writeHead(401, { "content-type": "application/json" })
        res.end(JSON.stringify({ error: { message: `Incorrect API key provided: ${req.headers.authorization ?? ""} ${req.headers["api-key"] ?? ""}`, type: "invalid_request_error" } }))
        return
      }
      if (text === "hang") return
      if (text === "malformed") {
        res.writeHead(200, { "content-type": "application/json" })
        res.end("{not json")
        return
      }
      if (text === "boom") {
        res.writeHead(500, { "content-type": "application/json" })
        res.end(JSON.stringify({ error: { message: "upstream exploded", type: "server_error" } }))
        return
      }
      const toolCall = text === "call tool" && Array.isArray(body.tools)
        ? { id: "call_1", type: "function", function: { name: body.tools[0].function.name, arguments: JSON.stringify({ query: "fridge" }) } }
        : text === "bad tool json"
        ? { id: "call_2", type: "function", function: { name: "lookup", arguments: "{query: fridge" } }
        : undefined
      const answer = toolCall === undefined ? `echo: ${text}` : ""
      const ws = words(answer)
      const usage = { prompt_tokens: messages.length * 10, completion_tokens: ws.length, total_tokens: messages.length * 10 + ws.length }
      const logprobs = body.logprobs === true ? { content: ws.map((w, i) => ({ token: w, logprob: -0.5 * (i + 1), bytes: null, top_logprobs: [] })) } : null
      const tokenIds = body.logprobs === true ? ws.map((_, i) => 100 + i) : undefined
      const finish = toolCall === undefined ? "stop" : "tool_calls"
      if (body.stream !== true) {
        res.writeHead(200, { "content-type": "application/json" })
        res.end(JSON.stringify({
          id: "chatcmpl-1",
          object: "chat.completion",
          created: 1700000000,
          model: body.model,
          choices: [{
            index: 0,
            message: { role: "assistant", content: toolCall === undefined ? answer : null, ...(toolCall === undefined ? {} : { tool_calls: [toolCall] }) },
            finish_reason: finish,
            logprobs,
            ...(tokenIds === undefined ? {} : { token_ids: tokenIds })
          }],
          usage
        }))
        return
      }
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
      const send = (o: unknown) => res.write(`data: ${JSON.stringify(o)}\n\n`)
      const base = { id: "chatcmpl-2", object: "chat.completion.chunk", created: 1700000000, model: body.model }
      send({ ...base, choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] })
      if (toolCall !== undefined) {
        const args = toolCall.function.arguments
        send({ ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: toolCall.id, type: "function", function: { name: toolCall.function.name, arguments: "" } }] }, finish_reason: null }] })
        send({ ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: args.slice(0, 5) } }] }, finish_reason: null }] })
        send({ ...base, choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: args.slice(5) } }] }, finish_reason: null }] })
      } else {
        const chunkOf = (w: string, i: number) => ({
          ...base,
          choices: [{ index: 0, delta: { content: i === 0 ? w : ` ${w}` }, finish_reason: null }]
        })
        if (text === "slow stream") {
          send(chunkOf(ws[0]!, 0))
          const timer = setTimeout(() => {
            ws.slice(1).forEach((w, i) => send(chunkOf(w, i + 1)))
            send({ ...base, choices: [{ index: 0, delta: {}, finish_reason: finish }] })
            res.write("data: [DONE]\n\n")
            res.end()
          }, 3000)
          res.on("close", () => clearTimeout(timer))
          return
        }
        ws.forEach((w, i) => {
          send({
            ...base,
            choices: [{
              index: 0,
              delta: { content: i === 0 ? w : ` ${w}` },
              finish_reason: null,
              logprobs: logprobs === null ? null : { content: [logprobs.content[i]] },
              ...(tokenIds === undefined ? {} : { token_ids: [tokenIds[i]] })
            }]
          })
          if (text === "fail midstream" && i === 1) {
            setTimeout(() => res.socket?.destroy(), 20)
          }
        })
        if (text === "fail midstream") return
      }
      send({ ...base, choices: [{ index: 0, delta: {}, finish_reason: finish }] })
      send({ ...base, choices: [], usage })
      res.write("data: [DONE]\n\n")
      res.end()
    })
  })
  return listenLoopback(server).then(({ url, close }) => ({ url, requests, headers, times, close }))
}

/**
 * Listen on a free port of 127.0.0.1 and resolve with `http://127.0.0.1:<port>/v1` and a `close` that destroys the
 * open (keep-alive) sockets first, so the server closes at once. Shared by the test upstreams.
 */
export const listenLoopback = (server: http.Server): Promise<{ readonly url: string; close(): Promise<void> }> => {
  const sockets = new Set<Socket>()
  server.on("connection", (s) => {
    sockets.add(s)
    s.on("close", () => sockets.delete(s))
  })
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as AddressInfo).port
      resolve({
        url: `http://127.0.0.1:${port}/v1`,
        close: () =>
          new Promise<void>((r) => {
            for (const s of sockets) s.destroy()
            server.close(() => r())
          })
      })
    })
  })
}

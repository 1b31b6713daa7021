/**
 * The llm tests' OpenAI-compatible upstream: `@autodidact/llm/testing`'s scripted server (plain `node:http`,
 * independent of the code under test) with this script, keyed by the last user message:
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
import type * as http from "node:http"
import { listenLoopback, type Reply, type ScriptedRequest, startScriptedServer } from "../src/testing.js"

export { listenLoopback }

export interface Upstream {
  readonly url: string
  readonly requests: Array<any>
  readonly headers: Array<http.IncomingHttpHeaders>
  /** `Date.now()` at the arrival of each chat-completions request (same order as `requests`). */
  readonly times: Array<number>
  close(): Promise<void>
}

const words = (s: string) => s.split(/\s+/).filter((w) => w !== "")

/** The script above, as a `respond` of the scripted server. */
export const script = (r: ScriptedRequest): Reply => {
  const text = r.lastUser
  const n = r.occurrence
  if (text.startsWith("429 once") && !text.startsWith("429 once, retry-after") && n === 1) {
    return { status: 429, body: { error: { message: "slow down", type: "rate_limit" } } }
  }
  const limited = /^(429|503) once, retry-after (.+)$/.exec(text)
  if (limited !== null && n === 1) {
    const value = limited[2]!
    const retry: Record<string, string> = value === "none" ? {} : { "retry-after": value, ...(/^\d+$/.test(value) ? { "retry-after-ms": String(Number(value) * 1000) } : {}) }
    return {
      status: Number(limited[1]),
      headers: {
        ...retry,
        "x-ratelimit-limit-requests": "60",
        "x-ratelimit-remaining-requests": "0",
        "x-ratelimit-reset-requests": "1s",
        "x-ratelimit-remaining-tokens": "1000"
      },
      body: { error: { message: "rate limited", type: "rate_limit_exceeded" } }
    }
  }
  if (text === "echo my key") {
    return { status: 401, body: { error: { message: `Incorrect API key provided: ${r.headers.authorization ?? ""} ${r.headers["api-key"] ?? ""}`, type: "invalid_request_error" } } }
  }
  if (text === "hang") return { hang: true }
  if (text === "malformed") return { status: 200, raw: "{not json" }
  if (text === "boom") return { status: 500, body: { error: { message: "upstream exploded", type: "server_error" } } }
  const tools = r.body.tools
  const toolCall = text === "call tool" && Array.isArray(tools)
    ? { id: "call_1", name: tools[0].function.name as string, arguments: JSON.stringify({ query: "fridge" }) }
    : text === "bad tool json"
    ? { id: "call_2", name: "lookup", arguments: "{query: fridge" }
    : undefined
  const answer = toolCall === undefined ? `echo: ${text}` : ""
  const ws = words(answer)
  const logprobs = r.body.logprobs === true
  return {
    content: toolCall === undefined ? answer : null,
    ...(toolCall === undefined ? {} : { toolCalls: [toolCall] }),
    pieces: ws.map((w, i) => (i === 0 ? w : ` ${w}`)),
    usage: { prompt_tokens: r.messages.length * 10, completion_tokens: ws.length },
    ...(logprobs ? { logprobs: ws.map((w, i) => ({ token: w, logprob: -0.5 * (i + 1) })), tokenIds: ws.map((_, i) => 100 + i) } : {}),
    ...(text === "fail midstream" ? { destroyAfter: ws.length } : {}),
    ...(text === "slow stream" ? { pauseAfter: { pieces: 1, ms: 3000 } } : {})
  }
}

export const startUpstream = (): Promise<Upstream> =>
  startScriptedServer({ respond: script, models: ["scripted-1"], streamUsage: "always" }).then((s) => ({
    url: s.baseUrl,
    get requests() {
      return s.requests.map((q) => q.body)
    },
    get headers() {
      return s.requests.map((q) => q.headers)
    },
    get times() {
      return s.requests.map((q) => q.time)
    },
    close: () => s.close()
  }))

/**
 * Response decoding for OpenAI-compatible `/v1/chat/completions`: a completion JSON and a server-sent-event stream
 * ({@link StreamDecoder}) as `effect/ai` response parts (metadata, reasoning, text, tool calls with JSON arguments,
 * finish with usage, log-probabilities and token ids); malformed bodies are `AiError`s. Re-exported by the public
 * {@link OpenAiCompat} namespace.
 * @internal
 * @since 0.2.0
 */
import { Effect } from "effect"
import { AiError, Response } from "effect/ai"

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

/** An `InvalidResponseError` `AiError` of this module (`method`, what was wrong, the body when there is one). */
export const invalidResponse = (method: string, description: string, body?: string) =>
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

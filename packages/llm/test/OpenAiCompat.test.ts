import { OpenAiCompat } from "@autodidact/llm"
import * as Sse from "../src/internal/Sse.js"
import * as LlmPolicy from "../src/LlmPolicy.js"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Schema, Stream } from "effect"
import { LanguageModel, Prompt, Tool, Toolkit } from "effect/ai"
import { startUpstream, type Upstream } from "./ScriptedUpstream.js"

let up: Upstream
beforeAll(async () => {
  up = await startUpstream()
})
afterAll(() => up.close())

const model = (extra: OpenAiCompat.Options = {}) =>
  OpenAiCompat.layerFetch({ baseUrl: up.url, model: "scripted-1", env: {}, retryBase: "5 millis", ...extra })

const Lookup = Tool.make("lookup", {
  description: "Look something up",
  parameters: Schema.Struct({ query: Schema.String }),
  success: Schema.String
})
const kit = Toolkit.make(Lookup)

describe("Sse.Parser", () => {
  it("splits events across arbitrary chunk boundaries, joins multi-line data, skips comments", () => {
    const text = ": keep-alive\r\ndata: {\"a\":1}\r\n\r\nevent: x\ndata: line1\ndata: line2\n\ndata: [DONE]\n\n"
    for (const cut of [1, 2, 3, 7, 13, text.length]) {
      const p = new Sse.Parser()
      const out: Array<Sse.Event> = []
      for (let i = 0; i < text.length; i += cut) out.push(...p.push(text.slice(i, i + cut)))
      out.push(...p.end())
      expect(out).toEqual([{ data: "{\"a\":1}" }, { event: "x", data: "line1\nline2" }, { data: "[DONE]" }])
    }
    const p = new Sse.Parser()
    expect(p.push("data: tail-without-blank-line")).toEqual([])
    expect(p.end()).toEqual([{ data: "tail-without-blank-line" }])
  })
})

describe("OpenAiCompat config", () => {
  it.live("reads base URL, model and key from the environment; requires a key off loopback", () =>
    Effect.gen(function*() {
      const c = yield* OpenAiCompat.resolveConfig({ env: { AUTODIDACT_LLM_BASE_URL: "http://127.0.0.1:9/v1/", AUTODIDACT_LLM_MODEL: "m" } })
      expect(c.baseUrl).toBe("http://127.0.0.1:9/v1")
      expect(c.model).toBe("m")
      expect(c.apiKey).toBeUndefined()
      const k = yield* OpenAiCompat.resolveConfig({ env: { AUTODIDACT_LLM_BASE_URL: "https://api.example.com/v1", AUTODIDACT_LLM_MODEL: "m", OPENAI_API_KEY: "sk-x" } })
      expect(k.apiKey).toBe("sk-x")
      const missing = yield* Effect.flip(OpenAiCompat.resolveConfig({ baseUrl: "https://api.example.com/v1", model: "m", env: {} }))
      expect(missing._tag).toBe("LlmConfigError")
      expect(missing.option).toBe("apiKey")
      const badUrl = yield* Effect.flip(OpenAiCompat.resolveConfig({ baseUrl: "not a url", model: "m", env: {} }))
      expect(badUrl.option).toBe("baseUrl")
      const badT = yield* Effect.flip(OpenAiCompat.resolveConfig({ baseUrl: "http://localhost:1/v1", model: "m", env: {}, temperature: -1 }))
      expect(badT.option).toBe("temperature")
      expect(OpenAiCompat.isLoopbackUrl("http://[::1]:8080/v1")).toBe(true)
      expect(OpenAiCompat.isLoopbackUrl("http://10.0.0.1/v1")).toBe(false)
    }))
})

describe("OpenAiCompat against a scripted server", () => {
  it.live("generateText: text, usage, sampling parameters and the bearer key on the wire", () =>
    Effect.gen(function*() {
      const before = up.requests.length
      const r = yield* LanguageModel.generateText({
        prompt: Prompt.make([{ role: "system", content: "be brief" }, { role: "user", content: "hello world" }])
      }).pipe(OpenAiCompat.withSampling({ temperature: 0.3, maxTokens: 12, seed: 7 }))
      expect(r.text).toBe("echo: hello world")
      expect(r.finishReason).toBe("stop")
      expect(r.usage.inputTokens.total).toBe(20)
      expect(r.usage.outputTokens.total).toBe(3)
      const sent = up.requests[before]
      expect(sent.model).toBe("scripted-1")
      expect(sent.messages).toEqual([{ role: "system", content: "be brief" }, { role: "user", content: "hello world" }])
      expect([sent.temperature, sent.max_tokens, sent.seed, sent.top_p]).toEqual([0.3, 12, 7, undefined])
      expect(up.headers[before]!.authorization).toBe("Bearer k-1")
    }).pipe(Effect.provide(model({ apiKey: "k-1" }))))

  it.live("the temperature an optim policy sets (LlmPolicy.Temperature) reaches the request; withSampling overrides it", () =>
    Effect.gen(function*() {
      const before = up.requests.length
      yield* LanguageModel.generateText({ prompt: "one" }).pipe(Effect.provideService(LlmPolicy.Temperature, 0.7))
      yield* LanguageModel.generateText({ prompt: "two" }).pipe(
        OpenAiCompat.withSampling({ temperature: 0.1 }),
        Effect.provideService(LlmPolicy.Temperature, 0.7)
      )
      yield* LanguageModel.generateText({ prompt: "three" })
      expect(up.requests.slice(before).map((r) => r.temperature)).toEqual([0.7, 0.1, 0.25])
    }).pipe(Effect.provide(model({ temperature: 0.25 }))))

  it.live("generateText returns log-probabilities and token ids in the finish metadata", () =>
    Effect.gen(function*() {
      const r = yield* LanguageModel.generateText({ prompt: "a b" }).pipe(OpenAiCompat.withSampling({ logprobs: true }))
      const finish = r.content.find((p) => p.type === "finish")!
      expect(finish.metadata["openaiCompat"]).toEqual({
        logprobs: { content: [{ token: "echo:", logprob: -0.5, bytes: null, top_logprobs: [] }, { token: "a", logprob: -1, bytes: null, top_logprobs: [] }, { token: "b", logprob: -1.5, bytes: null, top_logprobs: [] }] },
        tokenIds: [100, 101, 102]
      })
    }).pipe(Effect.provide(model())))

  it.live("streamText: deltas concatenate to the answer; finish carries usage and logprobs", () =>
    Effect.gen(function*() {
      const parts = yield* Stream.runCollect(LanguageModel.streamText({ prompt: "one two three" }).pipe(OpenAiCompat.withSamplingStream({ logprobs: true })))
      const text = parts.filter((p) => p.type === "text-delta").map((p) => (p as { delta: string }).delta).join("")
      expect(text).toBe("echo: one two three")
      expect(parts.filter((p) => p.type === "text-delta").length).toBe(4)
      const finish = parts.find((p) => p.type === "finish")!
      expect(finish.type === "finish" && finish.reason).toBe("stop")
      expect(finish.type === "finish" && finish.usage.outputTokens.total).toBe(4)
      expect((finish.metadata["openaiCompat"] as any).tokenIds).toEqual([100, 101, 102, 103])
      expect(parts[0]!.type).toBe("response-metadata")
      expect(up.requests.at(-1).stream).toBe(true)
      expect(up.requests.at(-1).stream_options).toEqual({ include_usage: true })
    }).pipe(Effect.provide(model())))

  it.live("tool calls: the toolkit is sent as functions, the call is parsed and resolved, streaming too", () =>
    Effect.gen(function*() {
      const r = yield* LanguageModel.generateText({ prompt: "call tool", toolkit: kit })
      expect(r.toolCalls.map((c) => [c.name, c.params])).toEqual([["lookup", { query: "fridge" }]])
      expect(r.toolResults.map((t) => t.result)).toEqual(["found fridge"])
      expect(r.finishReason).toBe("tool-calls")
      const sent = up.requests.at(-1)
      expect(sent.tools).toEqual([{
        type: "function",
        function: { name: "lookup", description: "Look something up", parameters: expect.objectContaining({ type: "object", required: ["query"] }) }
      }])
      expect(sent.tool_choice).toBe("auto")
      const parts = yield* Stream.runCollect(LanguageModel.streamText({ prompt: "call tool", toolkit: kit }))
      const call = parts.find((p) => p.type === "tool-call")
      expect(call !== undefined && call.type === "tool-call" && call.params).toEqual({ query: "fridge" })
      expect(parts.filter((p) => p.type === "tool-params-delta").map((p) => (p as { delta: string }).delta).join("")).toBe("{\"query\":\"fridge\"}")
      // the tool result goes back as a role: "tool" message
      const history = Prompt.make([
        { role: "user", content: "call tool" },
        { role: "assistant", content: [Prompt.makePart("tool-call", { id: "call_1", name: "lookup", params: { query: "fridge" }, providerExecuted: false })] },
        { role: "tool", content: [Prompt.makePart("tool-result", { id: "call_1", name: "lookup", isFailure: false, result: "found fridge", providerExecuted: false })] }
      ])
      expect(OpenAiCompat.toChatMessages(history)).toEqual([
        { role: "user", content: "call tool" },
        { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "lookup", arguments: "{\"query\":\"fridge\"}" } }] },
        { role: "tool", tool_call_id: "call_1", content: "found fridge" }
      ])
    }).pipe(Effect.provide(kit.toLayer({ lookup: ({ query }) => Effect.succeed(`found ${query}`) })), Effect.provide(model())))

  it.live("invalid JSON in tool-call arguments is an InvalidOutputError", () =>
    Effect.gen(function*() {
      const e = yield* Effect.flip(LanguageModel.generateText({ prompt: "bad tool json" }))
      expect(e._tag).toBe("AiError")
      expect(e.reason._tag).toBe("InvalidOutputError")
      expect(e.message).toContain("{query: fridge")
    }).pipe(Effect.provide(model())))

  it.live("429 is retried with backoff and then succeeds", () =>
    Effect.gen(function*() {
      const before = up.requests.length
      const r = yield* LanguageModel.generateText({ prompt: "429 once: a" })
      expect(r.text).toBe("echo: 429 once: a")
      expect(up.requests.length - before).toBe(2)
      const s = yield* Stream.runCollect(LanguageModel.streamText({ prompt: "429 once: b" }))
      expect(s.filter((p) => p.type === "text-delta").map((p) => (p as { delta: string }).delta).join("")).toBe("echo: 429 once: b")
    }).pipe(Effect.provide(model())))

  it.live("429 with no retries left is a RateLimitError; 500 an InternalProviderError with the body", () =>
    Effect.gen(function*() {
      const e = yield* Effect.flip(LanguageModel.generateText({ prompt: "429 once: c" }))
      expect(e.reason._tag).toBe("RateLimitError")
      const b = yield* Effect.flip(LanguageModel.generateText({ prompt: "boom" }))
      expect(b.reason._tag).toBe("InternalProviderError")
      expect(b.message).toContain("upstream exploded")
      expect(b.message).toContain("500")
    }).pipe(Effect.provide(model({ retries: 0 }))))

  it.live("a hanging server times out as a NetworkError after the retries", () =>
    Effect.gen(function*() {
      const before = up.requests.length
      const t0 = Date.now()
      const e = yield* Effect.flip(LanguageModel.generateText({ prompt: "hang" }))
      expect(e.reason._tag).toBe("NetworkError")
      expect(e.message).toMatch(/no response within/)
      expect(up.requests.length - before).toBe(2)
      expect(Date.now() - t0).toBeGreaterThanOrEqual(200)
    }).pipe(Effect.provide(model({ timeout: "100 millis", retries: 1 }))))

  it.live("a malformed body is an InvalidResponseError", () =>
    Effect.gen(function*() {
      const e = yield* Effect.flip(LanguageModel.generateText({ prompt: "malformed" }))
      expect(e.reason._tag).toBe("InvalidResponseError")
      expect(e.message).toContain("not JSON")
    }).pipe(Effect.provide(model())))

  it.live("a stream cut mid-way fails after the deltas already received", () =>
    Effect.gen(function*() {
      const seen: Array<string> = []
      const exit = yield* Stream.runForEach(LanguageModel.streamText({ prompt: "fail midstream" }), (p) =>
        Effect.sync(() => {
          if (p.type === "text-delta") seen.push(p.delta)
        })).pipe(Effect.exit)
      expect(Exit.isFailure(exit)).toBe(true)
      expect(seen.join("")).toBe("echo: fail midstream")
    }).pipe(Effect.provide(model({ retries: 0 }))))

  it.live("a missing key for a non-loopback URL fails the layer", () =>
    Effect.gen(function*() {
      const e = yield* Effect.flip(Effect.provide(LanguageModel.generateText({ prompt: "x" }), OpenAiCompat.layerFetch({ baseUrl: "https://api.example.com/v1", model: "m", env: {} })))
      expect(e._tag).toBe("LlmConfigError")
    }))
})

/**
 * `@autodidact/llm/testing`'s scripted server, driven by plain `fetch` (OpenAI's wire format, written out by hand
 * here) and by the official `openai` client (which parses what a real endpoint sends).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import OpenAI from "openai"
import { scriptedServer, type ScriptedServer, startScriptedServer } from "../src/testing.js"

const post = (s: ScriptedServer, route: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${s.baseUrl}${route}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) })

const jsonOf = (res: Response): Promise<any> => res.json()

/** The `data:` payloads of an SSE body, `[DONE]` included as a string. */
const events = async (res: Response): Promise<Array<any>> =>
  (await res.text()).split("\n\n").filter((e) => e.startsWith("data: ")).map((e) => e.slice(6)).map((d) => (d === "[DONE]" ? d : JSON.parse(d)))

const withServer = async (options: Parameters<typeof startScriptedServer>[0], f: (s: ScriptedServer) => Promise<void>) => {
  const s = await startScriptedServer(options)
  try {
    await f(s)
  } finally {
    await s.close()
  }
}

describe("startScriptedServer", () => {
  it("echoes by default, records the request, and counts repeats of the same last user text", async () => {
    await withServer({}, async (s) => {
      const messages = [{ role: "system", content: "be terse" }, { role: "user", content: "hello world" }]
      const a = await jsonOf(await post(s, "/chat/completions", { model: "m-1", messages }, { authorization: "Bearer k" }))
      expect(a.choices[0].message).toEqual({ role: "assistant", content: "echo: hello world" })
      expect(a.choices[0].finish_reason).toBe("stop")
      expect(a.model).toBe("m-1")
      // usage: 10 per message, one completion token per piece ("echo:", " hello", " world")
      expect(a.usage).toEqual({ prompt_tokens: 20, completion_tokens: 3, total_tokens: 23 })
      await post(s, "/chat/completions", { model: "m-1", messages: [{ role: "user", content: [{ type: "text", text: "hello world" }] }] })
      expect(s.requests.map((r) => [r.index, r.kind, r.path, r.lastUser, r.occurrence, r.stream])).toEqual([
        [0, "chat", "/v1/chat/completions", "hello world", 1, false],
        [1, "chat", "/v1/chat/completions", "hello world", 2, false]
      ])
      expect(s.requests[0]!.headers.authorization).toBe("Bearer k")
      expect(s.requests[0]!.transcript).toBe("be terse\nhello world")
      expect(s.requests[0]!.body.model).toBe("m-1")
      const models = await jsonOf(await fetch(`${s.baseUrl}/models`))
      expect(models.data.map((m: { id: string }) => m.id)).toEqual(["scripted"])
      expect((await post(s, "/completions", {})).status).toBe(404)
      expect((await fetch(`${s.baseUrl}/chat/completions`, { method: "POST", body: "{oops" })).status).toBe(400)
      expect(s.requests).toHaveLength(2) // neither the 404 nor the 400 is recorded
    })
  })

  it("streams content pieces with logprobs and token ids, then finish, usage (when asked) and [DONE]", async () => {
    await withServer({
      respond: () => ({ content: "go to fridge", logprobs: [{ token: "go", logprob: -1 }, { token: " to", logprob: -2 }, { token: " fridge", logprob: -3 }], tokenIds: [7, 8, 9] })
    }, async (s) => {
      const body = { model: "m", messages: [{ role: "user", content: "x" }], stream: true }
      const asked = await events(await post(s, "/chat/completions", { ...body, stream_options: { include_usage: true } }))
      expect(asked.at(-1)).toBe("[DONE]")
      expect(asked[0].choices[0].delta).toEqual({ role: "assistant", content: "" })
      const content = asked.slice(1, 4)
      expect(content.map((e) => e.choices[0].delta.content)).toEqual(["go", " to", " fridge"])
      expect(content.map((e) => e.choices[0].logprobs.content[0].logprob)).toEqual([-1, -2, -3])
      expect(content.map((e) => e.choices[0].token_ids)).toEqual([[7], [8], [9]])
      expect(asked[4].choices[0].finish_reason).toBe("stop")
      expect(asked[5]).toMatchObject({ choices: [], usage: { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 } })
      const unasked = await events(await post(s, "/chat/completions", body))
      expect(unasked).toHaveLength(6) // role, 3 pieces, finish, [DONE]: no usage chunk
      expect(unasked.some((e) => e !== "[DONE]" && e.usage !== undefined)).toBe(false)
    })
  })

  it("answers tool calls the openai client parses, streamed and not", async () => {
    await withServer({ respond: () => ({ toolCalls: [{ id: "c1", name: "lookup", arguments: "{\"query\":\"fridge\"}" }] }) }, async (s) => {
      const client = new OpenAI({ baseURL: s.baseUrl, apiKey: "k", maxRetries: 0 })
      const plain = await client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "find it" }] })
      expect(plain.choices[0]!.finish_reason).toBe("tool_calls")
      expect(plain.choices[0]!.message.content).toBeNull()
      expect(plain.choices[0]!.message.tool_calls).toEqual([{ id: "c1", type: "function", function: { name: "lookup", arguments: "{\"query\":\"fridge\"}" } }])
      const stream = await client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "find it" }], stream: true })
      let args = ""
      let name = ""
      for await (const chunk of stream) {
        const call = chunk.choices[0]?.delta.tool_calls?.[0]
        name += call?.function?.name ?? ""
        args += call?.function?.arguments ?? ""
      }
      expect(name).toBe("lookup")
      expect(JSON.parse(args)).toEqual({ query: "fridge" })
    })
  })

  it("answers embeddings, any status with headers, raw bodies, and 500 naming a script that throws", async () => {
    await withServer({
      respond: (r) => {
        if (r.kind === "embeddings") return { embeddings: (r.body.input as Array<string>).map((t) => [t.length, 1]) }
        if (r.lastUser === "busy") return { status: 429, headers: { "retry-after": "2" } }
        if (r.lastUser === "raw") return { status: 200, raw: "{not json" }
        throw new Error("no script for " + r.lastUser)
      }
    }, async (s) => {
      const e = await jsonOf(await post(s, "/embeddings", { model: "e", input: ["ab", "abcd"] }))
      expect(e.data).toEqual([{ object: "embedding", index: 0, embedding: [2, 1] }, { object: "embedding", index: 1, embedding: [4, 1] }])
      const busy = await post(s, "/chat/completions", { model: "m", messages: [{ role: "user", content: "busy" }] })
      expect(busy.status).toBe(429)
      expect(busy.headers.get("retry-after")).toBe("2")
      expect((await jsonOf(busy)).error.type).toBe("rate_limit_exceeded")
      expect(await (await post(s, "/chat/completions", { model: "m", messages: [{ role: "user", content: "raw" }] })).text()).toBe("{not json")
      const broken = await post(s, "/chat/completions", { model: "m", messages: [{ role: "user", content: "other" }] })
      expect(broken.status).toBe(500)
      expect((await jsonOf(broken)).error.message).toContain("no script for other")
    })
  })

  it("a stream destroyed after a piece ends the body with an error; a hanging request is cut by close()", async () => {
    const s = await startScriptedServer({ respond: (r) => (r.lastUser === "hang" ? { hang: true } : { content: "a b c", destroyAfter: 1 }) })
    const res = await post(s, "/chat/completions", { model: "m", messages: [{ role: "user", content: "x" }], stream: true })
    await expect(res.text()).rejects.toThrow()
    const hanging = post(s, "/chat/completions", { model: "m", messages: [{ role: "user", content: "hang" }] })
    // wait until the server has recorded it, then close: the client sees the connection go
    while (s.requests.length < 2) await new Promise((r) => setTimeout(r, 5))
    await s.close()
    await expect(hanging).rejects.toThrow()
  })

  it.effect("scriptedServer: the Effect face closes the server with its scope", () =>
    Effect.gen(function*() {
      const url = yield* Effect.scoped(Effect.gen(function*() {
        const s = yield* scriptedServer({ respond: () => "Action: look" })
        const a = yield* Effect.promise(() => post(s, "/chat/completions", { model: "m", messages: [{ role: "user", content: "x" }] }).then(jsonOf))
        expect(a.choices[0].message.content).toBe("Action: look")
        return s.baseUrl
      }))
      const after = yield* Effect.exit(Effect.tryPromise(() => fetch(`${url}/models`)))
      expect(Exit.isFailure(after)).toBe(true)
    }))
})

import { Gateway, Recorder, RecordError } from "@autodidact/llm"
import { Embedder, Store } from "@autodidact/memory/store"
import { afterAll, beforeAll, describe, expect, it, layer, vi } from "@effect/vitest"
import { Context, Effect, Exit, Layer, Logger, Scope } from "effect"
import { FetchHttpClient } from "effect/http"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import OpenAI from "openai"
import { startUpstream, type Upstream } from "./ScriptedUpstream.js"

let up: Upstream
let scope: Scope.Closeable
let gw: { url: string; host: string; port: number }
let dir: string

const filesUnder = (d: string): Array<string> =>
  fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(path.join(d, e.name)) : [path.join(d, e.name)]))
const rows = () => Effect.runPromise(Recorder.readJsonlDir(dir))
const exchanges = async () => (await rows()).filter((r): r is Recorder.Exchange => r.type === "exchange")
const client = (apiKey = "sk-test", headers: Record<string, string> = {}) =>
  new OpenAI({ baseURL: `${gw.url}/v1`, apiKey, maxRetries: 0, defaultHeaders: headers })

beforeAll(async () => {
  up = await startUpstream()
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "gateway-"))
  scope = await Effect.runPromise(Scope.make())
  gw = await Effect.runPromise(
    Gateway.start({ upstream: up.url, maxBodyBytes: 64 * 1024 }).pipe(
      Effect.provideService(Scope.Scope, scope),
      Effect.provide(Layer.mergeAll(Recorder.layerJsonl(dir), FetchHttpClient.layer))
    )
  )
})
afterAll(async () => {
  await Effect.runPromise(Scope.close(scope, Exit.void))
  await up.close()
  fs.rmSync(dir, { recursive: true, force: true })
})

describe("Gateway with the official openai client", () => {
  it("non-streaming: answer relayed, exchange recorded with messages, sampling, usage, latency and grouping", async () => {
    const c = client("sk-test", { "x-autodidact-session": "s1", "x-autodidact-episode": "e1" })
    const { data, response } = await c.chat.completions
      .create({ model: "scripted-1", messages: [{ role: "system", content: "sys" }, { role: "user", content: "hi there" }], temperature: 0.2, seed: 3 })
      .withResponse()
    expect(data.choices[0]!.message.content).toBe("echo: hi there")
    expect(data.usage).toEqual({ prompt_tokens: 20, completion_tokens: 3, total_tokens: 23 })
    const id = response.headers.get("x-autodidact-exchange-id")!
    expect(id).toMatch(/^xch_/)
    expect(response.headers.get("x-autodidact-session")).toBe("s1")
    const x = (await exchanges()).find((r) => r.id === id)!
    expect(x.session).toBe("s1")
    expect(x.episode).toBe("e1")
    expect(x.stream).toBe(false)
    expect(x.status).toBe(200)
    expect(x.request.model).toBe("scripted-1")
    expect(x.request.messages).toEqual([{ role: "system", content: "sys" }, { role: "user", content: "hi there" }])
    expect(x.request.sampling).toEqual({ temperature: 0.2, seed: 3 })
    expect(x.response!.content).toBe("echo: hi there")
    expect(x.response!.finishReason).toBe("stop")
    expect(x.usage).toEqual({ prompt_tokens: 20, completion_tokens: 3, total_tokens: 23 })
    expect(x.latencyMs).toBeGreaterThan(0)
    expect(x.firstByteMs!).toBeLessThanOrEqual(x.latencyMs)
    expect(x.error).toBeUndefined()
    // the client's key went upstream unchanged
    expect(up.headers.at(-1)!.authorization).toBe("Bearer sk-test")
  })

  it("streaming: chunks relayed in order; content, usage, logprobs and token ids recorded", async () => {
    const c = client("sk-test", { "x-autodidact-session": "s1", "x-autodidact-episode": "e1" })
    const stream = await c.chat.completions.create({
      model: "scripted-1",
      messages: [{ role: "user", content: "stream me please" }],
      stream: true,
      stream_options: { include_usage: true },
      logprobs: true
    })
    const deltas: Array<string> = []
    let usage: unknown
    for await (const chunk of stream) {
      const d = chunk.choices[0]?.delta?.content
      if (d) deltas.push(d)
      if (chunk.usage) usage = chunk.usage
    }
    expect(deltas).toEqual(["echo:", " stream", " me", " please"])
    expect(usage).toEqual({ prompt_tokens: 10, completion_tokens: 4, total_tokens: 14 })
    const x = (await exchanges()).at(-1)!
    expect(x.stream).toBe(true)
    expect(x.response!.content).toBe("echo: stream me please")
    expect(x.response!.tokenIds).toEqual([100, 101, 102, 103])
    expect((x.response!.logprobs as Array<{ logprob: number }>).map((l) => l.logprob)).toEqual([-0.5, -1, -1.5, -2])
    expect(x.usage).toEqual({ prompt_tokens: 10, completion_tokens: 4, total_tokens: 14 })
    expect(x.request.sampling).toEqual({ stream_options: { include_usage: true }, logprobs: true })
    expect(x.error).toBeUndefined()
    expect(x.latencyMs).toBeGreaterThan(0)
  })

  it("streamed tool calls are reassembled in the record", async () => {
    const c = client("sk-test", { "x-autodidact-session": "tools" })
    const tools = [{ type: "function" as const, function: { name: "lookup", parameters: { type: "object", properties: { query: { type: "string" } } } } }]
    const stream = await c.chat.completions.create({ model: "scripted-1", messages: [{ role: "user", content: "call tool" }], tools, stream: true })
    for await (const _ of stream) {
      // drain
    }
    const x = (await exchanges()).at(-1)!
    expect(x.session).toBe("tools")
    expect(x.request.tools).toEqual(tools)
    expect(x.response!.toolCalls).toEqual([{ id: "call_1", type: "function", function: { name: "lookup", arguments: "{\"query\":\"fridge\"}" } }])
    expect(x.response!.finishReason).toBe("tool_calls")
    expect(x.response!.content).toBe("") // the scripted upstream's first chunk carries content: ""
  })

  it("rewards attach to an exchange (session/episode resolved) and to an episode; bad rewards are 400", async () => {
    const c = client("sk-test", { "x-autodidact-session": "s2", "x-autodidact-episode": "ep-9" })
    const { response } = await c.chat.completions.create({ model: "scripted-1", messages: [{ role: "user", content: "reward me" }] }).withResponse()
    const exchangeId = response.headers.get("x-autodidact-exchange-id")!
    const post = (body: unknown) => fetch(`${gw.url}/v1/rewards`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
    const r1 = await post({ exchange_id: exchangeId, reward: 0.25 })
    expect(r1.status).toBe(200)
    expect(await r1.json()).toMatchObject({ session: "s2", episode: "ep-9" })
    const r2 = await post({ session: "s2", episode: "ep-9", reward: 1, terminated: true, success: true })
    expect(r2.status).toBe(200)
    const bad = await post({ session: "s2", reward: "lots" })
    expect(bad.status).toBe(400)
    expect(((await bad.json()) as any).error.message).toContain("reward must be a finite number")
    const unknown = await post({ exchange_id: "xch_nope", reward: 1 })
    expect(unknown.status).toBe(404)
    const rewards = (await rows()).filter((r): r is Recorder.Reward => r.type === "reward" && r.session === "s2")
    expect(rewards.map((r) => [r.exchangeId, r.episode, r.reward, r.terminated, r.success])).toEqual([
      [exchangeId, "ep-9", 0.25, undefined, undefined],
      [undefined, "ep-9", 1, true, true]
    ])
  })

  it("an upstream failing mid-stream: the client gets an error, the exchange is recorded with what arrived", async () => {
    const c = client("sk-test", { "x-autodidact-session": "broken" })
    const stream = await c.chat.completions.create({ model: "scripted-1", messages: [{ role: "user", content: "fail midstream" }], stream: true })
    const got: Array<string> = []
    await expect((async () => {
      for await (const chunk of stream) {
        const d = chunk.choices[0]?.delta?.content
        if (d) got.push(d)
      }
    })()).rejects.toThrow(/upstream stream broke/)
    expect(got.join("")).toBe("echo: fail midstream")
    // the JSONL recorder commits in groups (async I/O): wait for the row rather than a fixed time
    const x = await vi.waitFor(async () => {
      const found = (await exchanges()).filter((e) => e.session === "broken").at(-1)
      if (found === undefined) throw new Error("the broken exchange is not recorded yet")
      return found
    }, { timeout: 10_000, interval: 25 })
    expect(x.error!.kind).toBe("stream-broken")
    expect(x.response!.content).toBe("echo: fail midstream")
    expect(x.status).toBe(200)
  })

  it("upstream errors are relayed with their status and OpenAI error body, and recorded", async () => {
    const c = client("sk-test", { "x-autodidact-session": "errs" })
    const e = await c.chat.completions.create({ model: "scripted-1", messages: [{ role: "user", content: "boom" }] }).catch((err: any) => err)
    expect(e).toBeInstanceOf(OpenAI.InternalServerError)
    expect(e.status).toBe(500)
    expect(e.message).toContain("upstream exploded")
    const x = (await exchanges()).filter((r) => r.session === "errs").at(-1)!
    expect(x.status).toBe(500)
    expect(x.error).toMatchObject({ kind: "upstream-status", status: 500 })
    expect(x.error!.message).toContain("upstream exploded")
  })

  it("an oversized request is 413 with a JSON error, recorded; invalid JSON is 400", async () => {
    const c = client("sk-test", { "x-autodidact-session": "big" })
    const e = await c.chat.completions.create({ model: "scripted-1", messages: [{ role: "user", content: "x".repeat(100 * 1024) }] }).catch((err: any) => err)
    expect(e).toBeInstanceOf(OpenAI.APIError)
    expect(e.status).toBe(413)
    expect(e.code).toBe("request_too_large")
    const before = up.requests.length
    const raw = await fetch(`${gw.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: "{nope" })
    expect(raw.status).toBe(400)
    expect(((await raw.json()) as any).error.type).toBe("invalid_request_error")
    expect(up.requests.length).toBe(before) // never forwarded
    const x = (await exchanges()).filter((r) => r.session === "big").at(-1)!
    expect(x.status).toBe(413)
  })

  it("without a session header, one session per API key", async () => {
    await client("key-A").chat.completions.create({ model: "scripted-1", messages: [{ role: "user", content: "a1" }] })
    await client("key-A").chat.completions.create({ model: "scripted-1", messages: [{ role: "user", content: "a2" }] })
    await client("key-B").chat.completions.create({ model: "scripted-1", messages: [{ role: "user", content: "b1" }] })
    const text = (x: Recorder.Exchange) => (x.request.messages[0] as { content?: string } | undefined)?.content
    const xs = (await exchanges()).filter((x) => ["a1", "a2", "b1"].includes(text(x) ?? ""))
    const sessionOf = (t: string) => xs.find((x) => text(x) === t)!.session
    expect(sessionOf("a1")).toBe(sessionOf("a2"))
    expect(sessionOf("a1")).not.toBe(sessionOf("b1"))
    expect(sessionOf("a1")).toBe(Gateway.sessionOf({ authorization: "Bearer key-A" }))
    expect(sessionOf("a1")).toMatch(/^key-[0-9a-f]{12}$/)
  })

  it("models are proxied; unknown routes are 404", async () => {
    const list = await client().models.list()
    expect(list.data.map((m) => m.id)).toEqual(["scripted-1"])
    expect((await fetch(`${gw.url}/v1/embeddings`, { method: "POST" })).status).toBe(404)
  })

  it("listens on loopback only by default", async () => {
    expect(gw.host).toBe("127.0.0.1")
    const external = Object.values(os.networkInterfaces()).flat().find((i) => i !== undefined && i.family === "IPv4" && !i.internal)
    if (external === undefined) return // no non-loopback interface on this machine: nothing else to reach it by
    const refused = await new Promise<boolean>((resolve) => {
      const s = net.connect({ host: external.address, port: gw.port })
      s.once("connect", () => {
        s.destroy()
        resolve(false)
      })
      s.once("error", () => resolve(true))
    })
    expect(refused).toBe(true)
  })
})

// one in-memory PGlite store shared by the tests that record into it (slow to create)
const StoreLive = Store.layerMemory({ vectorIndex: "exact" }).pipe(Layer.provide(Embedder.layerHashed({ dimension: 64 })))

layer(StoreLive, { timeout: 60_000, excludeTestServices: true })("Gateway recording into the experience store", (it) => {
  it.effect("an exchange and a reward land in the store and read back as rows", () =>
    Effect.gen(function*() {
      const up2 = yield* Effect.promise(() => startUpstream())
      yield* Effect.addFinalizer(() => Effect.promise(() => up2.close()))
      const g = yield* Gateway.start({ upstream: up2.url })
      const c = new OpenAI({ baseURL: `${g.url}/v1`, apiKey: "k", maxRetries: 0, defaultHeaders: { "x-autodidact-session": "stored" } })
      const { response } = yield* Effect.promise(() => c.chat.completions.create({ model: "scripted-1", messages: [{ role: "user", content: "remember me" }] }).withResponse())
      const id = response.headers.get("x-autodidact-exchange-id")!
      const r = yield* Effect.promise(() => fetch(`${g.url}/v1/rewards`, { method: "POST", body: JSON.stringify({ exchange_id: id, reward: 1, success: true }) }))
      expect(r.status).toBe(200)
      const recorder = yield* Recorder.Recorder
      const read = (yield* recorder.read()).filter((x) => x.session === "stored")
      expect(read.map((x) => x.type)).toEqual(["exchange", "reward"])
      const x = read[0] as Recorder.Exchange
      expect(x.id).toBe(id)
      expect(x.response!.content).toBe("echo: remember me")
      const store = yield* Store.ExperienceStore
      const hits = yield* store.query({ text: "remember me", filters: { tags: ["gateway:exchange", "session:stored"] }, k: 5 })
      expect(hits.map((h) => h.record.kind)).toEqual(["trajectory"])
      expect(yield* store.count({ tags: ["gateway:reward", "session:stored"] })).toBe(1)
    }).pipe(
      Effect.scoped,
      Effect.provide(Layer.mergeAll(Recorder.layerStore, FetchHttpClient.layer))
    ))

  it.effect("issue 21: a key sent as Authorization bearer and as api-key is in no JSONL row, store record, reward or log line", () =>
    Effect.gen(function*() {
      const up2 = yield* Effect.promise(() => startUpstream())
      yield* Effect.addFinalizer(() => Effect.promise(() => up2.close()))
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gateway-secrets-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })))
      const jsonl = Context.get(yield* Layer.build(Recorder.layerJsonl(dir)), Recorder.Recorder)
      const stored = Context.get(yield* Layer.build(Recorder.layerStore), Recorder.Recorder)
      const SECRET = "sk-test-SECRET-123"
      const GW_SECRET = "sk-gw-UPSTREAM-456789"
      const both = Recorder.both(jsonl, stored)
      // a recorder whose failures quote the whole row (as a careless backend would): the gateway logs them
      const quoting = Recorder.Recorder.of({
        ...both,
        exchange: (x) => Effect.andThen(both.exchange(x), Effect.fail(new RecordError({ location: "quoting", reason: JSON.stringify(x) })))
      })
      const logs: Array<string> = []
      const logger = Logger.make(({ message }) => logs.push(String(Array.isArray(message) ? message.join(" ") : message)))
      const consoleLines: Array<string> = []
      const spies = (["log", "info", "warn", "error", "debug"] as const).map((m) =>
        vi.spyOn(console, m).mockImplementation((...args: Array<unknown>) => void consoleLines.push(args.map(String).join(" ")))
      )
      yield* Effect.addFinalizer(() => Effect.sync(() => spies.forEach((s) => s.mockRestore())))

      const started = yield* Effect.all([
        Gateway.start({ upstream: up2.url }),
        Gateway.start({ upstream: up2.url, upstreamApiKey: GW_SECRET })
      ]).pipe(Effect.provideService(Recorder.Recorder, quoting), Effect.provide(Logger.layer([logger])))
      const [g, gKeyed] = started
      const oa = new OpenAI({ baseURL: `${g.url}/v1`, apiKey: SECRET, maxRetries: 0, defaultHeaders: { "x-autodidact-session": "leaky" } })
      yield* Effect.promise(async () => {
        // 1. an upstream that quotes the bearer key in its error
        const e = await oa.chat.completions.create({ model: "m", messages: [{ role: "user", content: "echo my key" }] }).catch((err: unknown) => err)
        expect(e).toBeInstanceOf(OpenAI.AuthenticationError)
        // 2. the same with an Azure-style api-key header (forwarded upstream)
        const viaApiKey = await fetch(`${g.url}/v1/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json", "api-key": SECRET, "x-autodidact-session": "leaky" },
          body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "echo my key" }] })
        })
        expect(viaApiKey.status).toBe(401)
        // 3. a key pasted into a prompt, streamed back by the model
        const stream = await oa.chat.completions.create({ model: "m", stream: true, messages: [{ role: "user", content: `my key is ${SECRET} ok` }] })
        let answer = ""
        for await (const c of stream) answer += c.choices[0]?.delta?.content ?? ""
        expect(answer).toBe(`echo: my key is ${SECRET} ok`) // the client's own key, relayed to the client
        // 4. a reward whose free-form info quotes the key
        const r = await fetch(`${g.url}/v1/rewards`, { method: "POST", headers: { authorization: `Bearer ${SECRET}` }, body: JSON.stringify({ session: "leaky", reward: 1, info: { note: `used ${SECRET}` } }) })
        expect(r.status).toBe(200)
        // 5. the gateway's own upstream key, quoted by the upstream, reaches neither the client nor the records
        const keyed = await fetch(`${gKeyed.url}/v1/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${SECRET}`, "x-autodidact-session": "leaky" },
          body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "echo my key" }] })
        })
        expect(keyed.status).toBe(401)
        expect(await keyed.text()).not.toContain(GW_SECRET)
      })
      yield* Effect.sleep("50 millis") // the stream's row is written as the stream ends
      // the keys did travel upstream
      expect(up2.headers.map((h) => h.authorization)).toContain(`Bearer ${SECRET}`)
      expect(up2.headers.map((h) => h["api-key"])).toContain(SECRET)
      expect(up2.headers.map((h) => h.authorization)).toContain(`Bearer ${GW_SECRET}`)

      const files = filesUnder(dir)
      const store = yield* Store.ExperienceStore
      const records = yield* store.query({ filters: { tags: ["gateway", "session:leaky"] }, k: 1000, touch: false })
      const rows = (yield* jsonl.read()).filter((x) => x.session === "leaky")
      // what was scanned: 4 exchanges and 1 reward, in both places; one logged failure per exchange
      expect(rows.map((x) => x.type).sort()).toEqual(["exchange", "exchange", "exchange", "exchange", "reward"])
      expect(records.length).toBe(5)
      expect(logs.filter((l) => l.includes("could not record")).length).toBe(4)
      const texts = [
        ...files.map((f) => fs.readFileSync(f, "utf8")),
        ...records.map((h) => JSON.stringify(h.record)),
        ...logs,
        ...consoleLines
      ]
      for (const secret of [SECRET, GW_SECRET]) expect(texts.filter((t) => t.includes(secret))).toEqual([])
      // the rows keep everything else
      const echoed = rows.filter((x): x is Recorder.Exchange => x.type === "exchange" && x.status === 401)
      expect(echoed.map((x) => x.error!.message).every((m) => m.includes("Incorrect API key provided") && m.includes(Gateway.REDACTED))).toBe(true)
      const pasted = rows.find((x): x is Recorder.Exchange => x.type === "exchange" && x.stream)!
      expect(pasted.response!.content).toBe(`echo: my key is ${Gateway.REDACTED} ok`)
      expect(pasted.request.messages).toEqual([{ role: "user", content: `my key is ${Gateway.REDACTED} ok` }])
    }).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer)))
})

describe("Gateway failure paths", () => {
  it.live("client disconnect mid-stream, unreachable upstream (502), upstream timeout (504), port in use", () =>
    Effect.gen(function*() {
      const up2 = yield* Effect.promise(() => startUpstream())
      yield* Effect.addFinalizer(() => Effect.promise(() => up2.close()))
      const g = yield* Gateway.start({ upstream: up2.url, timeout: "300 millis" })
      const recorder = yield* Recorder.Recorder
      // the client reads the first chunk and goes away
      yield* Effect.promise(async () => {
        const ac = new AbortController()
        const res = await fetch(`${g.url}/v1/chat/completions`, {
          method: "POST",
          headers: { "x-autodidact-session": "gone" },
          body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "slow stream" }] }),
          signal: ac.signal
        })
        const reader = res.body!.getReader()
        await reader.read()
        ac.abort()
      })
      yield* Effect.sleep("300 millis")
      const gone = (yield* recorder.read()).filter((r): r is Recorder.Exchange => r.type === "exchange" && r.session === "gone")
      expect(gone.length).toBe(1)
      expect(gone[0]!.error!.kind).toBe("client-closed")
      expect(gone[0]!.response!.content).toBe("echo:")
      // a client that gives up on a non-streaming request before the (hanging) upstream answers
      yield* Effect.promise(async () => {
        const ac = new AbortController()
        const pending = fetch(`${g.url}/v1/chat/completions`, { method: "POST", headers: { "x-autodidact-session": "impatient" }, body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hang" }] }), signal: ac.signal }).catch(() => undefined)
        await new Promise((r) => setTimeout(r, 100))
        ac.abort()
        await pending
      })
      yield* Effect.sleep("150 millis") // well before the 300 ms upstream timeout
      const impatient = (yield* recorder.read()).filter((r): r is Recorder.Exchange => r.type === "exchange" && r.session === "impatient")
      expect(impatient.map((x) => [x.status, x.error?.kind])).toEqual([[499, "client-closed"]])
      // an upstream that never answers: 504 after the timeout
      const hang = yield* Effect.promise(() => fetch(`${g.url}/v1/chat/completions`, { method: "POST", headers: { "x-autodidact-session": "slow" }, body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hang" }] }) }))
      expect(hang.status).toBe(504)
      expect(((yield* Effect.promise(() => hang.json())) as any).error.type).toBe("upstream_error")
      // an upstream that is not there: 502
      const dead = yield* Gateway.start({ upstream: "http://127.0.0.1:1/v1" })
      const r502 = yield* Effect.promise(() => fetch(`${dead.url}/v1/chat/completions`, { method: "POST", headers: { "x-autodidact-session": "dead" }, body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "x" }] }) }))
      expect(r502.status).toBe(502)
      const kinds = (yield* recorder.read()).flatMap((r) => (r.type === "exchange" && (r.session === "slow" || r.session === "dead") ? [[r.session, r.error?.kind, r.status]] : []))
      expect(kinds).toEqual([["slow", "upstream-timeout", 504], ["dead", "upstream-unreachable", 502]])
      // the port is taken
      const clash = yield* Effect.flip(Gateway.start({ upstream: up2.url, port: g.port }))
      expect([clash._tag, clash._tag === "ServerStartError" && clash.port]).toEqual(["ServerStartError", g.port])
    }).pipe(Effect.scoped, Effect.provide(Layer.mergeAll(Recorder.layerMemory, FetchHttpClient.layer))), 30_000)
})

describe("Gateway rate limits: relayed headers and its own retry (issue 21)", () => {
  const post = (url: string, text: string, extra: Record<string, unknown> = {}) =>
    fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-autodidact-session": "limits" },
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: text }], ...extra })
    })

  it("relayed 429 and 503 answers keep Retry-After, retry-after-ms and x-ratelimit-* (streaming requests too)", async () => {
    for (const [text, stream] of [["429 once, retry-after 7", false], ["503 once, retry-after 9", false], ["429 once, retry-after 11", true]] as const) {
      const res = await post(gw.url, text, { stream })
      const status = Number(text.slice(0, 3))
      const seconds = text.split(" ").at(-1)!
      expect(res.status).toBe(status)
      expect(res.headers.get("retry-after")).toBe(seconds)
      expect(res.headers.get("retry-after-ms")).toBe(String(Number(seconds) * 1000))
      expect(res.headers.get("x-ratelimit-remaining-requests")).toBe("0")
      expect(res.headers.get("x-ratelimit-reset-requests")).toBe("1s")
      expect(res.headers.get("x-ratelimit-remaining-tokens")).toBe("1000")
      expect(((await res.json()) as any).error.type).toBe("rate_limit_exceeded")
    }
    // the official client sees them too (its own retry policy reads them)
    const e = await client().chat.completions.create({ model: "m", messages: [{ role: "user", content: "429 once, retry-after 13" }] }).catch((err: any) => err)
    expect(e).toBeInstanceOf(OpenAI.RateLimitError)
    expect(e.headers.get("retry-after")).toBe("13")
  })

  it("retryAfterMillis / retryDelay: seconds, HTTP dates, retry-after-ms, the cap", () => {
    const now = Date.parse("2026-11-26T12:00:00Z")
    expect(Gateway.retryAfterMillis({ "retry-after": "3" }, now)).toBe(3000)
    expect(Gateway.retryAfterMillis({ "retry-after": "Thu, 26 Nov 2026 12:00:05 GMT" }, now)).toBe(5000)
    expect(Gateway.retryAfterMillis({ "retry-after": "Thu, 26 Nov 2026 11:00:00 GMT" }, now)).toBe(0) // in the past
    expect(Gateway.retryAfterMillis({ "retry-after-ms": "1500.5" }, now)).toBe(1500.5)
    expect(Gateway.retryAfterMillis({ "retry-after": "1", "retry-after-ms": "2500" }, now)).toBe(2500) // the larger
    expect(Gateway.retryAfterMillis({ "retry-after": "soon", "retry-after-ms": "-4" }, now)).toBeUndefined()
    expect(Gateway.retryAfterMillis({}, now)).toBeUndefined()
    const policy = { maxWaitMs: 10_000, baseMs: 500 }
    expect(Gateway.retryDelay({ "retry-after": "4" }, 0, policy, now)).toBe(4000)
    expect(Gateway.retryDelay({ "retry-after": "11" }, 0, policy, now)).toBeUndefined() // longer than the cap: not retried
    expect([0, 1, 2, 5].map((n) => Gateway.retryDelay({}, n, policy, now))).toEqual([500, 1000, 2000, 10_000])
  })

  it.live("with retry on, the gateway waits at least Retry-After (seconds and HTTP date) before retrying, and records one exchange", () =>
    Effect.gen(function*() {
      const up2 = yield* Effect.promise(() => startUpstream())
      yield* Effect.addFinalizer(() => Effect.promise(() => up2.close()))
      const g = yield* Gateway.start({ upstream: up2.url, retry: { maxRetries: 2, maxWait: "5 seconds", base: "20 millis" } })
      const recorder = yield* Recorder.Recorder
      const arrivals = (text: string) => up2.requests.flatMap((r, i) => (r.messages.at(-1).content === text ? [up2.times[i]!] : []))

      const seconds = "429 once, retry-after 1"
      const r1 = yield* Effect.promise(() => post(g.url, seconds))
      expect(r1.status).toBe(200)
      const [a0, a1] = arrivals(seconds)
      expect(a1! - a0!).toBeGreaterThanOrEqual(995) // at least the second asked for (5 ms of clock slack)

      const dateMs = Math.ceil((Date.now() + 1500) / 1000) * 1000
      const dated = `503 once, retry-after ${new Date(dateMs).toUTCString()}`
      const r2 = yield* Effect.promise(() => post(g.url, dated, { stream: true }))
      expect(r2.status).toBe(200)
      expect(yield* Effect.promise(() => r2.text())).toContain("[DONE]")
      expect(arrivals(dated)[1]!).toBeGreaterThanOrEqual(dateMs - 5) // not before the date asked for

      const silent = "429 once, retry-after none" // no header: exponential back-off from `base`
      expect((yield* Effect.promise(() => post(g.url, silent))).status).toBe(200)
      expect(arrivals(silent).length).toBe(2)

      const tooLong = "429 once, retry-after 120" // over maxWait: relayed at once for the client to wait
      const r3 = yield* Effect.promise(() => post(g.url, tooLong))
      expect([r3.status, r3.headers.get("retry-after")]).toEqual([429, "120"])
      expect(arrivals(tooLong).length).toBe(1)

      const xs = (yield* recorder.read()).filter((r): r is Recorder.Exchange => r.type === "exchange")
      const byText = (t: string) => xs.filter((x) => (x.request.messages[0] as { content: string }).content === t).map((x) => [x.status, x.upstreamAttempts])
      expect(byText(seconds)).toEqual([[200, 2]])
      expect(byText(dated)).toEqual([[200, 2]])
      expect(byText(silent)).toEqual([[200, 2]])
      expect(byText(tooLong)).toEqual([[429, undefined]])

      const bad = yield* Effect.flip(Gateway.start({ upstream: up2.url, retry: { maxRetries: -1 } }))
      expect([bad._tag, bad._tag === "LlmConfigError" && bad.option]).toEqual(["LlmConfigError", "retry.maxRetries"])
    }).pipe(Effect.scoped, Effect.provide(Layer.mergeAll(Recorder.layerMemory, FetchHttpClient.layer))), 30_000)
})

describe("Gateway never records or logs API keys (issue 21)", () => {
  it("redact / secretsOf: every occurrence, keys included; short values are not secrets", () => {
    expect(Gateway.secretsOf({ authorization: "Bearer sk-abcdefgh", "api-key": "azure-key-1", "x-api-key": "short" })).toEqual([
      "Bearer sk-abcdefgh",
      "sk-abcdefgh",
      "azure-key-1"
    ])
    const v = { a: "x sk-abcdefgh y sk-abcdefgh", list: [1, "sk-abcdefgh"], ["k sk-abcdefgh"]: null, same: "nothing" }
    expect(Gateway.redact(v, ["sk-abcdefgh"])).toEqual({ a: "x [redacted] y [redacted]", list: [1, "[redacted]"], ["k [redacted]"]: null, same: "nothing" })
    const clean = { a: "nothing here" }
    expect(Gateway.redact(clean, ["sk-abcdefgh"])).toBe(clean)
  })
})

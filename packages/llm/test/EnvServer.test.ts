import { Registry, TextEnv } from "@autodidact/envs"
import { EnvServer, LlmConfigError } from "@autodidact/llm"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"

const call = (base: string, method: "GET" | "POST", route: string, body?: unknown) =>
  Effect.promise(async () => {
    const res = await fetch(`${base}${route}`, method === "POST" ? { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body ?? {}) } : {})
    return { status: res.status, body: await res.json() as any }
  })

/** Play one episode over HTTP and in-process with the same seed and the same (deterministic) action choices. */
const compareEpisode = (envId: string, dataIdx: number) =>
  Effect.gen(function*() {
    const s = yield* EnvServer.start({ envId })
    const { body: created } = yield* call(s.url, "POST", "/create")
    const id = created.id
    const reset = yield* call(s.url, "POST", "/reset", { id, data_idx: dataIdx })
    const local = Registry.make<string, string>(envId)
    const text = local.unwrapped
    if (!TextEnv.isTextEnv(text)) throw new Error(`${envId} is not a text environment`)
    const r0 = local.reset({ seed: dataIdx })
    expect(reset.body.observation).toBe(r0.observation)
    expect(reset.body.task).toBe(text.task)
    expect(reset.body.available_actions).toEqual([...text.admissibleActions()])
    let actions = reset.body.available_actions as Array<string>
    let steps = 0
    let total = 0
    for (let t = 0; t < 200; t++) {
      const action = actions[(t * 7 + 3) % actions.length]!
      const remote = yield* call(s.url, "POST", "/step", { env_idx: id, action })
      const mine = local.step(action)
      expect(remote.status).toBe(200)
      expect(remote.body.observation).toBe(mine.observation)
      expect(remote.body.reward).toBe(mine.reward)
      expect(remote.body.terminated).toBe(mine.terminated)
      expect(remote.body.truncated).toBe(mine.truncated)
      steps++
      total += mine.reward
      if (mine.terminated || mine.truncated) {
        expect(remote.body.done).toBe(true)
        break
      }
      expect(remote.body.available_actions).toEqual([...text.admissibleActions()])
      actions = remote.body.available_actions
    }
    const detail = yield* call(s.url, "GET", `/detail?id=${id}`)
    expect(detail.body).toMatchObject({ id, env: envId, seed: dataIdx, steps, done: true })
    expect(detail.body.reward).toBeCloseTo(total, 12)
    const again = yield* call(s.url, "POST", "/step", { id, action: actions[0] })
    expect(again.status).toBe(409)
    return steps
  }).pipe(Effect.scoped)

describe("EnvServer (AgentGym protocol)", () => {
  it.live("a full TextFrozenLake episode over HTTP matches the same seed played in-process", () =>
    Effect.gen(function*() {
      const steps = yield* compareEpisode("TextFrozenLake-v1", 4)
      expect(steps).toBeGreaterThan(0)
    }))

  it.live("a full TextHousehold episode over HTTP matches the same seed played in-process", () =>
    Effect.gen(function*() {
      const steps = yield* compareEpisode("TextHousehold-v0", 11)
      expect(steps).toBeGreaterThan(0)
    }))

  it.live("two concurrent sessions stay isolated", () =>
    Effect.gen(function*() {
      const s = yield* EnvServer.start({ envId: "TextFrozenLake-v1", listSessions: true })
      const [a, b] = yield* Effect.all([call(s.url, "POST", "/create"), call(s.url, "POST", "/create")], { concurrency: 2 })
      expect(a.body.id).not.toBe(b.body.id)
      const ra = yield* call(s.url, "POST", "/reset", { id: a.body.id, seed: 1 })
      const rb = yield* call(s.url, "POST", "/reset", { id: b.body.id, seed: 1 })
      expect(ra.body.observation).toBe(rb.body.observation)
      // step only a, concurrently with reads of b
      const [stepA, obsB] = yield* Effect.all([
        call(s.url, "POST", "/step", { id: a.body.id, action: ra.body.available_actions[1] }),
        call(s.url, "GET", `/observation?id=${b.body.id}`)
      ], { concurrency: 2 })
      expect(obsB.body).toBe(rb.body.observation)
      const obsA = yield* call(s.url, "GET", `/observation?id=${a.body.id}`)
      expect(obsA.body).toBe(stepA.body.observation)
      const detailB = yield* call(s.url, "GET", `/detail?id=${b.body.id}`)
      expect(detailB.body.steps).toBe(0)
      expect((yield* call(s.url, "GET", "/list_envs")).body).toEqual([a.body.id, b.body.id])
      expect((yield* call(s.url, "POST", "/close", { id: a.body.id })).body).toEqual({ closed: true })
      expect((yield* call(s.url, "GET", "/list_envs")).body).toEqual([b.body.id])
      expect((yield* call(s.url, "GET", "/")).body).toBe("This is environment TextFrozenLake-v1.")
    }).pipe(Effect.scoped))

  it.live("bad requests get an error body with the right status", () =>
    Effect.gen(function*() {
      const s = yield* EnvServer.start({ envId: "TextFrozenLake-v1" })
      const { body } = yield* call(s.url, "POST", "/create")
      const early = yield* call(s.url, "POST", "/step", { id: body.id, action: "Up" })
      expect([early.status, early.body.error]).toEqual([409, "reset the environment before stepping it"])
      const unknownId = "0b5ad7c4-3f1e-4c2a-9d8e-1a2b3c4d5e6f"
      const unknown = yield* call(s.url, "POST", "/reset", { id: unknownId })
      expect(unknown.status).toBe(404)
      expect(unknown.body.error).toContain(unknownId)
      const notAnId = yield* call(s.url, "POST", "/reset", { id: 99 })
      expect(notAnId.status).toBe(400)
      expect(notAnId.body.error).toContain("99")
      const badSeed = yield* call(s.url, "POST", "/reset", { id: body.id, data_idx: -1 })
      expect(badSeed.status).toBe(400)
      yield* call(s.url, "POST", "/reset", { id: body.id })
      const badAction = yield* call(s.url, "POST", "/step", { id: body.id, action: 3 })
      expect(badAction.status).toBe(400)
      const inadmissible = yield* call(s.url, "POST", "/step", { id: body.id, action: "fly away" })
      expect(inadmissible.status).toBe(200)
      expect(inadmissible.body.info.invalidAction).toBe(true)
      const notJson = yield* Effect.promise(() => fetch(`${s.url}/step`, { method: "POST", body: "{" }).then((r) => r.status))
      expect(notJson).toBe(400)
      expect((yield* call(s.url, "GET", "/nope")).status).toBe(404)
    }).pipe(Effect.scoped))

  it.live("idle sessions are reaped after the TTL", () =>
    Effect.gen(function*() {
      // TTL 1 s, the kept session used every 100 ms: a margin of 10x against a loaded machine's pauses; the idle one
      // goes within TTL + one reaper period (0.5 s), waited for up to 10 s
      const s = yield* EnvServer.start({ envId: "TextFrozenLake-v1", idleTtl: "1 second" })
      const { body } = yield* call(s.url, "POST", "/create")
      const kept = yield* call(s.url, "POST", "/create")
      expect(s.sessions()).toEqual([body.id, kept.body.id])
      for (let i = 0; i < 100 && s.sessions().includes(body.id); i++) {
        yield* Effect.sleep("100 millis")
        yield* call(s.url, "GET", `/detail?id=${kept.body.id}`) // keeps this one alive
      }
      expect(s.sessions()).toEqual([kept.body.id])
      const gone = yield* call(s.url, "POST", "/reset", { id: body.id })
      expect(gone.status).toBe(404)
      expect(gone.body.error).toContain("reaped")
    }).pipe(Effect.scoped))

  it.live("unknown and non-text environments are refused at start", () =>
    Effect.gen(function*() {
      const a = yield* Effect.flip(EnvServer.start({ envId: "NoSuchEnv-v9" }))
      expect([a._tag, a._tag === "LlmConfigError" && a.option]).toEqual(["LlmConfigError", "env"])
      const b = yield* Effect.flip(EnvServer.start({ envId: "CartPole-v1" }))
      expect(b.message).toContain("not a text environment")
    }).pipe(Effect.scoped))
})

describe("EnvServer.serve (plain face)", () => {
  it("serves over HTTP until close(), and refuses an unknown env with the same LlmConfigError as start", async () => {
    const server = await EnvServer.serve({ envId: "TextHousehold-v0" })
    const health = await fetch(`${server.url}/`).then((r) => r.status)
    expect(health).toBeLessThan(500)
    await server.close()
    await server.close()
    expect(await fetch(`${server.url}/`).then(() => "open", () => "closed")).toBe("closed")

    const plain = await EnvServer.serve({ envId: "NoSuchEnv-v9" }).then(() => undefined, (e: unknown) => e)
    const viaEffect = await Effect.runPromise(Effect.flip(Effect.scoped(EnvServer.start({ envId: "NoSuchEnv-v9" }))))
    expect(plain).toBeInstanceOf(LlmConfigError)
    expect((plain as LlmConfigError)._tag).toBe(viaEffect._tag)
    expect((plain as LlmConfigError).message).toBe(viaEffect.message)
  })
})

describe("EnvServer isolation and robustness (issue 21)", () => {
  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
  const req = async (base: string, method: "GET" | "POST", route: string, body?: string | Uint8Array, headers: Record<string, string> = {}) => {
    const res = await fetch(`${base}${route}`, method === "POST" ? { method, headers: { "content-type": "application/json", ...headers }, body: body ?? "{}" } : { headers })
    const text = await res.text()
    return { status: res.status, type: res.headers.get("content-type"), body: JSON.parse(text) as any, headers: res.headers }
  }
  const post = (base: string, route: string, body: unknown, headers: Record<string, string> = {}) => req(base, "POST", route, JSON.stringify(body), headers)

  it("session ids are unguessable: a second client cannot reset, step, read or close the first's session", async () => {
    const server = await EnvServer.serve({ envId: "TextFrozenLake-v1" })
    try {
      const ids = await Promise.all(Array.from({ length: 20 }, () => post(server.url, "/create", {}).then((r) => r.body.id as string)))
      expect(ids.every((id) => UUID.test(id))).toBe(true) // version-4 UUIDs: 122 random bits each
      expect(new Set(ids).size).toBe(ids.length)
      const a = ids[0]!
      const reset = await post(server.url, "/reset", { id: a, seed: 2 })
      const step = await post(server.url, "/step", { id: a, action: reset.body.available_actions[0] })
      expect(step.status).toBe(200)
      const before = await req(server.url, "GET", `/detail?id=${a}`)
      // client B guesses: counters, numeric strings, a fresh UUID, and the list of sessions
      const guesses: Array<unknown> = [0, 1, 2, 19, 20, "0", "1", "20", null, globalThis.crypto.randomUUID()]
      for (const id of guesses) {
        for (const [route, body] of [["/reset", { id, seed: 5 }], ["/step", { id, action: "Up" }], ["/close", { id }], ["/step", { env_idx: id, action: "Up" }]] as const) {
          const r = await post(server.url, route, body)
          expect([route, r.status]).toEqual([route, typeof id === "string" && UUID.test(id) ? 404 : 400])
          expect(typeof r.body.error).toBe("string")
        }
        for (const route of ["/observation", "/available_actions", "/detail"]) {
          expect((await req(server.url, "GET", `${route}?id=${String(id)}`)).status).toBeGreaterThanOrEqual(400)
        }
      }
      const list = await req(server.url, "GET", "/list_envs")
      expect(list.status).toBe(403)
      expect(JSON.stringify(list.body)).not.toContain(a)
      // A's session is exactly as A left it
      expect((await req(server.url, "GET", `/detail?id=${a}`)).body).toEqual(before.body)
      expect(before.body).toMatchObject({ id: a, seed: 2, steps: 1 })
      expect(server.sessions()).toHaveLength(20)
    } finally {
      await server.close()
    }
  })

  it("with a token, requests without it or with a wrong one get 401 and do nothing", async () => {
    const server = await EnvServer.serve({ envId: "TextFrozenLake-v1", token: "env-token-7f3a9c" })
    try {
      const good = { authorization: "Bearer env-token-7f3a9c" }
      const created = await post(server.url, "/create", {}, good)
      expect(created.status).toBe(200)
      const id = created.body.id as string
      await post(server.url, "/reset", { id, seed: 1 }, good)
      for (const headers of [{}, { authorization: "Bearer env-token-7f3a9d" }, { authorization: "env-token-7f3a9c" }, { authorization: "Bearer env-token-7f3a9c0" }, { authorization: "Basic abc" }]) {
        const c = await post(server.url, "/create", {}, headers)
        expect([c.status, c.headers.get("www-authenticate"), typeof c.body.error]).toEqual([401, "Bearer", "string"])
        expect((await post(server.url, "/step", { id, action: "Down" }, headers)).status).toBe(401)
        expect((await post(server.url, "/close", { id }, headers)).status).toBe(401)
        expect((await req(server.url, "GET", `/observation?id=${id}`, undefined, headers)).status).toBe(401)
        expect((await req(server.url, "GET", "/", undefined, headers)).status).toBe(401)
      }
      // nothing was created, stepped or closed
      expect(server.sessions()).toEqual([id])
      expect((await req(server.url, "GET", `/detail?id=${id}`, undefined, good)).body).toMatchObject({ steps: 0, done: false })
      const empty = await EnvServer.serve({ envId: "TextFrozenLake-v1", token: "" }).then(() => undefined, (e: unknown) => e)
      expect(empty).toBeInstanceOf(LlmConfigError)
      expect((empty as LlmConfigError).option).toBe("token")
    } finally {
      await server.close()
    }
  })

  it("malformed and oversized requests get a 4xx JSON error; a valid client's session works before and after", async () => {
    const server = await EnvServer.serve({ envId: "TextFrozenLake-v1" })
    try {
      const id = (await post(server.url, "/create", {})).body.id as string
      const reset = await post(server.url, "/reset", { id, seed: 3 })
      expect(reset.status).toBe(200)
      const actions = reset.body.available_actions as Array<string>
      expect((await post(server.url, "/step", { id, action: actions[0] })).status).toBe(200)

      const bad: Array<[string, string | Uint8Array, number]> = [
        ["/step", "{", 400], // not JSON
        ["/step", "[1,2,3]", 400], // not an object
        ["/step", "\"just a string\"", 400],
        ["/step", "42", 400],
        ["/step", JSON.stringify({ id: { $ne: null }, action: "Up" }), 400], // wrong schema: id
        ["/step", JSON.stringify({ id, action: 7 }), 400], // wrong schema: action
        ["/reset", JSON.stringify({ id, seed: -1 }), 400],
        ["/reset", JSON.stringify({ id, seed: "x" }), 400],
        ["/create", new Uint8Array([0xff, 0xfe, 0x00, 0x7b]), 400], // not UTF-8 JSON
        ["/step", JSON.stringify({ id, action: "x".repeat(2 * 1024 * 1024) }), 413], // over the 1 MiB limit
        ["/create", "x".repeat(1024 * 1024 + 1), 413]
      ]
      for (const [route, body, status] of bad) {
        const r = await req(server.url, "POST", route, body)
        expect([route, r.status]).toEqual([route, status])
        expect(r.type).toContain("application/json")
        expect(typeof r.body.error).toBe("string")
      }
      // a client that sends a chunked body over the limit (no content-length) is cut off at the limit
      const chunked = new ReadableStream<Uint8Array>({
        start(c) {
          for (let i = 0; i < 24; i++) c.enqueue(new Uint8Array(64 * 1024).fill(0x20))
          c.close()
        }
      })
      const big = await fetch(`${server.url}/step`, { method: "POST", body: chunked, duplex: "half" } as RequestInit)
      expect(big.status).toBe(413)
      // nothing above created, stepped or reset anything, and the valid client goes on
      expect(server.sessions()).toEqual([id])
      expect((await req(server.url, "GET", `/detail?id=${id}`)).body).toMatchObject({ id, seed: 3, steps: 1 })
      const next = await post(server.url, "/step", { id, action: actions[1] })
      expect(next.status).toBe(200)
      expect((await req(server.url, "GET", `/detail?id=${id}`)).body.steps).toBe(2)
      // a second client starts fine too
      expect(UUID.test((await post(server.url, "/create", {})).body.id)).toBe(true)
      const small = await EnvServer.serve({ envId: "TextFrozenLake-v1", maxBodyBytes: 64 })
      try {
        expect((await post(small.url, "/create", { pad: "x".repeat(100) })).status).toBe(413)
        expect((await post(small.url, "/create", {})).status).toBe(200)
      } finally {
        await small.close()
      }
    } finally {
      await server.close()
    }
  })
})

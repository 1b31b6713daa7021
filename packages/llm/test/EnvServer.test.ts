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
      const s = yield* EnvServer.start({ envId: "TextFrozenLake-v1" })
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
      const unknown = yield* call(s.url, "POST", "/reset", { id: 99 })
      expect(unknown.status).toBe(404)
      expect(unknown.body.error).toContain("99")
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
      const s = yield* EnvServer.start({ envId: "TextFrozenLake-v1", idleTtl: "150 millis" })
      const { body } = yield* call(s.url, "POST", "/create")
      const kept = yield* call(s.url, "POST", "/create")
      expect(s.sessions()).toEqual([body.id, kept.body.id])
      for (let i = 0; i < 4; i++) {
        yield* Effect.sleep("60 millis")
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

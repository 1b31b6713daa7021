import { describe, expect, it } from "@effect/vitest"
import { Collect, Errors, Policy, RolloutService, Trainer } from "@autodidact/cluster"
import { Rng } from "@autodidact/core"
import { ActorCritic, DrrnPolicy } from "@autodidact/optim"
import { Effect, Exit, Layer, Scope, Stream } from "effect"
import { spawnTs } from "./support.js"

const net = ActorCritic.make({ obsDim: 4, numActions: 2, rng: Rng.make(5) })
const drrn = DrrnPolicy.make({ buckets: 128, hidden: 8, embed: 8, rng: Rng.make(1) })

/** Everything but where and how long (runner name, collect time). */
const content = ({ runner: _r, collectSeconds: _c, ...rest }: Collect.Episode | Collect.Group) => rest

/** The reference: the sequential in-process layer, by id. */
const sequential = <A, E>(f: (svc: RolloutService.RolloutService["Service"]) => Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    return yield* f(yield* RolloutService.RolloutService)
  }).pipe(Effect.provide(RolloutService.layerInProcess))

describe("RolloutService.layerThreads", () => {
  it.effect("2 workers: every id exactly once, same episodes and groups as the sequential layer, workers gone at scope close", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const svc = yield* RolloutService.makeThreads({ workers: 2, depth: 2 }).pipe(Scope.provide(scope))
      expect(svc.workers).toBe(2)
      expect(svc.liveWorkers()).toBe(0) // lazily started
      const ids = [7, 0, 3, 12, 5, 1, 9, 4, 2, 30, 11, 6]
      const ac = yield* svc.publish("run", 2, Policy.ofActorCritic(net))
      const threaded = yield* Stream.runCollect(svc.episodes({ runId: "run", runSeed: 11, envId: "CartPole-v1", policy: ac, episodeIds: ids }))
      expect(threaded.map((e) => e.episodeId).sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b))
      expect(new Set(threaded.map((e) => e.runner))).toEqual(new Set(["local/thread-0", "local/thread-1"])) // both worked
      expect(svc.liveWorkers()).toBe(2)
      const g = yield* svc.publish("run", 0, Policy.ofDrrn(drrn))
      const groupIds = [3, 0, 2]
      const threadedGroups = yield* Stream.runCollect(svc.groups({ runId: "run", runSeed: 4, envId: "TextHousehold-v0", policy: g, groupIds, groupSize: 2, difficulty: "easy", maxSteps: 5 }))
      expect(threadedGroups.map((x) => x.groupId).sort()).toEqual([0, 2, 3])

      const [refEpisodes, refGroups] = yield* sequential((local) =>
        Effect.gen(function*() {
          const p = yield* local.publish("run", 2, Policy.ofActorCritic(net))
          expect(p).toEqual(ac) // same hash: the workers act with the same bytes
          const e = yield* Stream.runCollect(local.episodes({ runId: "run", runSeed: 11, envId: "CartPole-v1", policy: p, episodeIds: ids }))
          const q = yield* local.publish("run", 0, Policy.ofDrrn(drrn))
          const gs = yield* Stream.runCollect(local.groups({ runId: "run", runSeed: 4, envId: "TextHousehold-v0", policy: q, groupIds, groupSize: 2, difficulty: "easy", maxSteps: 5 }))
          return [e, gs] as const
        })
      )
      const byId = new Map(threaded.map((e) => [e.episodeId, e]))
      for (const e of refEpisodes) {
        expect(e.length).toBeGreaterThan(0)
        expect(content(byId.get(e.episodeId)!)).toEqual(content(e))
      }
      const groupById = new Map(threadedGroups.map((x) => [x.groupId, x]))
      for (const x of refGroups) expect(content(groupById.get(x.groupId)!)).toEqual(content(x))
      // a different run seed gives different episodes (the equality above is not vacuous)
      const other = yield* Stream.runCollect(svc.episodes({ runId: "run", runSeed: 12, envId: "CartPole-v1", policy: ac, episodeIds: [7] }))
      expect(other[0]!.resetSeed).not.toBe(byId.get(7)!.resetSeed)

      yield* Scope.close(scope, Exit.void)
      expect(svc.liveWorkers()).toBe(0)
      const after = yield* Effect.flip(Stream.runCollect(svc.episodes({ runId: "run", runSeed: 1, envId: "CartPole-v1", policy: ac, episodeIds: [0] })))
      expect(after.reason).toContain("closed")
    }), 60_000)

  it.effect("a throwing env, a wrong-kind or unpublished policy fail with RolloutError for the id; the pool keeps serving", () =>
    Effect.scoped(Effect.gen(function*() {
      const svc = yield* RolloutService.makeThreads({ workers: 1 })
      const ac = yield* svc.publish("run", 0, Policy.ofActorCritic(net))
      const badEnv = yield* Effect.flip(Stream.runCollect(svc.episodes({ runId: "run", runSeed: 1, envId: "NoSuchEnv-v0", policy: ac, episodeIds: [4] })))
      expect(badEnv).toBeInstanceOf(Errors.RolloutError)
      expect(badEnv.id).toBe(4)
      expect(badEnv.where).toBe("local/thread-0")
      // the env throws on a policy of the wrong sizes: same reason as the sequential layer
      const wide = yield* svc.publish("run", 1, Policy.ofActorCritic(ActorCritic.make({ obsDim: 3, numActions: 2, rng: Rng.make(1) })))
      const mismatch = yield* Effect.flip(Stream.runCollect(svc.episodes({ runId: "run", runSeed: 1, envId: "CartPole-v1", policy: wide, episodeIds: [8] })))
      const refMismatch = yield* Effect.flip(sequential((local) =>
        Effect.flatMap(local.publish("run", 1, Policy.ofActorCritic(ActorCritic.make({ obsDim: 3, numActions: 2, rng: Rng.make(1) }))), (p) =>
          Stream.runCollect(local.episodes({ runId: "run", runSeed: 1, envId: "CartPole-v1", policy: p, episodeIds: [8] })))
      ))
      expect(mismatch.id).toBe(8)
      expect(mismatch.reason).toBe(refMismatch.reason)
      const wrongKind = yield* Effect.flip(Stream.runCollect(svc.groups({ runId: "run", runSeed: 1, envId: "TextHousehold-v0", policy: ac, groupIds: [0], groupSize: 2 })))
      expect(wrongKind.reason).toContain("DRRN")
      const unknown = yield* Effect.flip(Stream.runCollect(svc.episodes({ runId: "run", runSeed: 1, envId: "CartPole-v1", policy: { version: 0, hash: "nope" }, episodeIds: [0] })))
      expect(unknown.reason).toContain("never published")
      const twice = yield* Effect.flip(Stream.runCollect(svc.episodes({ runId: "run", runSeed: 1, envId: "CartPole-v1", policy: ac, episodeIds: [2, 2] })))
      expect(twice.reason).toContain("requested twice")
      const ok = yield* Stream.runCollect(svc.episodes({ runId: "run", runSeed: 1, envId: "CartPole-v1", policy: ac, episodeIds: [0, 1] }))
      expect(ok.map((e) => e.episodeId).sort()).toEqual([0, 1])
      expect(svc.startedWorkers()).toBe(1) // errors thrown while collecting do not kill the worker
    })), 60_000)

  it.effect("a crashing worker fails the request with RolloutError for the id (no hang) and is replaced", () =>
    Effect.scoped(Effect.gen(function*() {
      const svc = yield* RolloutService.makeThreads({ workers: 2, crashOn: 5 })
      const ac = yield* svc.publish("run", 0, Policy.ofActorCritic(net))
      const crashed = yield* Effect.flip(Stream.runCollect(svc.episodes({ runId: "run", runSeed: 1, envId: "CartPole-v1", policy: ac, episodeIds: [0, 1, 2, 3, 4, 5, 6, 7] })))
      expect(crashed).toBeInstanceOf(Errors.RolloutError)
      expect(crashed.reason).toMatch(/crash|exited/)
      expect(crashed.where).toMatch(/^local\/thread-[01]$/)
      // the replacement serves the next request, with the weights sent again to it
      const ok = yield* Stream.runCollect(svc.episodes({ runId: "run", runSeed: 1, envId: "CartPole-v1", policy: ac, episodeIds: [0, 1, 2, 3, 4, 6, 7, 8] }))
      expect(ok.map((e) => e.episodeId).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 6, 7, 8])
      expect(svc.startedWorkers()).toBeGreaterThanOrEqual(3)
      expect(svc.liveWorkers()).toBe(2)
    })), 60_000)

  it.effect("a worker stuck in a loop is terminated by the watchdog: its tasks fail with RolloutError naming the limit, then it is replaced", () =>
    Effect.scoped(Effect.gen(function*() {
      const svc = yield* RolloutService.makeThreads({ workers: 1, depth: 2, hangOn: 3, taskTimeoutMs: 3000 })
      const ac = yield* svc.publish("run", 0, Policy.ofActorCritic(net))
      const started = Date.now()
      const stuck = yield* Effect.flip(Stream.runCollect(svc.episodes({ runId: "run", runSeed: 1, envId: "CartPole-v1", policy: ac, episodeIds: [0, 1, 2, 3, 4] })))
      const waited = Date.now() - started
      expect(stuck).toBeInstanceOf(Errors.RolloutError)
      expect(stuck.reason).toContain("no reply in 3000 ms")
      expect(stuck.where).toBe("local/thread-0")
      // the stuck episode (3) or the one queued behind it on that worker (4): start-up time does not count
      expect([3, 4]).toContain(stuck.id)
      // failed at the deadline, not at once and not never (episodes 0-2 take milliseconds)
      expect(waited).toBeGreaterThanOrEqual(2900)
      expect(waited).toBeLessThan(20_000)
      // a fresh worker serves the next request
      const ok = yield* Stream.runCollect(svc.episodes({ runId: "run", runSeed: 1, envId: "CartPole-v1", policy: ac, episodeIds: [0, 1, 2, 4] }))
      expect(ok.map((e) => e.episodeId).sort((a, b) => a - b)).toEqual([0, 1, 2, 4])
      expect(svc.startedWorkers()).toBe(2)
      expect(svc.liveWorkers()).toBe(1)
      const bad = yield* Effect.flip(RolloutService.makeThreads({ taskTimeoutMs: 0 }))
      expect(bad.reason).toContain("taskTimeoutMs")
    })), 60_000)

  it.effect("layerLocal (the default) collects on worker threads; bad options are typed errors", () =>
    Effect.gen(function*() {
      const runners = yield* Effect.gen(function*() {
        const svc = yield* RolloutService.RolloutService
        const p = yield* svc.publish("run", 0, Policy.ofActorCritic(net))
        return (yield* Stream.runCollect(svc.episodes({ runId: "run", runSeed: 1, envId: "CartPole-v1", policy: p, episodeIds: [0] }))).map((e) => e.runner)
      }).pipe(Effect.provide(RolloutService.layerLocal))
      expect(runners).toEqual(["local/thread-0"])
      const bad = yield* Effect.flip(Layer.build(RolloutService.layerThreads({ workers: 0 })).pipe(Effect.scoped))
      expect(bad).toBeInstanceOf(Errors.RolloutError)
      expect(bad.reason).toContain("workers")
    }), 60_000)
})

describe("idle workers", () => {
  it("do not keep the process alive: a process with an open pool exits by itself", async () => {
    const p = spawnTs("idle", [])
    const timer = setTimeout(() => p.kill("SIGKILL"), 45_000)
    const code = await p.exited
    clearTimeout(timer)
    expect(p.lines).toContain("collected 2 live=2")
    expect(code).toBe(0)
  }, 60_000)
})

describe("Trainer.train on the thread pool", () => {
  it.effect("learns exactly what the sequential layer learns (same final weights hash and returns)", () =>
    Effect.gen(function*() {
      const options = { envId: "CartPole-v1", runId: "t", seed: 3, episodesPerUpdate: 4, updates: 3 } as const
      const threaded = yield* Trainer.train(options).pipe(Effect.provide(RolloutService.layerThreads({ workers: 2 })))
      const sequentialRun = yield* Trainer.train(options).pipe(Effect.provide(RolloutService.layerInProcess))
      expect(threaded.weightsHash).toBe(sequentialRun.weightsHash)
      expect(threaded.meanRecentReturn).toBe(sequentialRun.meanRecentReturn)
    }), 60_000)
})

import { describe, expect, it } from "@effect/vitest"
import { Errors, Policy, RolloutService } from "@autodidact/cluster"
import { Rng } from "@autodidact/core"
import { ActorCritic, DrrnPolicy } from "@autodidact/optim"
import { Effect, Exit, Stream } from "effect"

const net = ActorCritic.make({ obsDim: 4, numActions: 2, rng: Rng.make(5) })

describe("RolloutService.layerInProcess", () => {
  it.effect("delivers every requested episode once, with the published version", () =>
    Effect.gen(function*() {
      const svc = yield* RolloutService.RolloutService
      expect(svc.mode).toBe("local")
      const policy = yield* svc.publish("run", 4, Policy.ofActorCritic(net))
      expect(policy.hash).toBe(Policy.hashOf(Policy.encode(Policy.ofActorCritic(net))))
      const episodes = yield* Stream.runCollect(svc.episodes({ runId: "run", runSeed: 1, envId: "CartPole-v1", policy, episodeIds: [5, 1, 9] }))
      expect(episodes.map((e) => e.episodeId)).toEqual([5, 1, 9])
      expect(episodes.every((e) => e.policyVersion === 4 && e.policyHash === policy.hash && e.runner === "local")).toBe(true)
    }).pipe(Effect.provide(RolloutService.layerInProcess)))

  it.effect("fails with RolloutError for an unpublished policy, repeated ids and a policy of the wrong kind", () =>
    Effect.gen(function*() {
      const svc = yield* RolloutService.RolloutService
      const unknown = yield* Effect.exit(Stream.runCollect(svc.episodes({ runId: "run", runSeed: 1, envId: "CartPole-v1", policy: { version: 0, hash: "nope" }, episodeIds: [0] })))
      expect(Exit.isFailure(unknown) && JSON.stringify(unknown.cause)).toContain("never published")
      const policy = yield* svc.publish("run", 0, Policy.ofActorCritic(net))
      const twice = yield* Effect.flip(Stream.runCollect(svc.episodes({ runId: "run", runSeed: 1, envId: "CartPole-v1", policy, episodeIds: [2, 2] })))
      expect(twice).toBeInstanceOf(Errors.RolloutError)
      expect(twice.reason).toContain("requested twice")
      const drrn = yield* svc.publish("run", 1, Policy.ofDrrn(DrrnPolicy.make({ buckets: 32, hidden: 4, embed: 4, rng: Rng.make(1) })))
      const wrongKind = yield* Effect.flip(Stream.runCollect(svc.episodes({ runId: "run", runSeed: 1, envId: "CartPole-v1", policy: drrn, episodeIds: [0] })))
      expect(wrongKind.reason).toContain("actor-critic")
      const badEnv = yield* Effect.flip(Stream.runCollect(svc.episodes({ runId: "run", runSeed: 1, envId: "NoSuchEnv-v0", policy, episodeIds: [0] })))
      expect(badEnv.id).toBe(0)
    }).pipe(Effect.provide(RolloutService.layerInProcess)))

  it.effect("serves text groups with a DRRN policy", () =>
    Effect.gen(function*() {
      const svc = yield* RolloutService.RolloutService
      const policy = yield* svc.publish("run", 0, Policy.ofDrrn(DrrnPolicy.make({ buckets: 128, hidden: 8, embed: 8, rng: Rng.make(1) })))
      const groups = yield* Stream.runCollect(svc.groups({ runId: "run", runSeed: 1, envId: "TextHousehold-v0", policy, groupIds: [0, 1], groupSize: 2, difficulty: "easy", maxSteps: 5 }))
      expect(groups.map((g) => g.groupId)).toEqual([0, 1])
      expect(groups.every((g) => g.trajectories.length + g.failures.length === 2)).toBe(true)
    }).pipe(Effect.provide(RolloutService.layerInProcess)))
})

describe("policy lag", () => {
  it("requestVersion keeps every batch within the bound, and is synchronous at 0", () => {
    expect([0, 1, 2, 3].map((k) => RolloutService.requestVersion(k, 0))).toEqual([0, 1, 2, 3])
    expect([0, 1, 2, 3].map((k) => RolloutService.requestVersion(k, 2))).toEqual([0, 0, 0, 1])
    for (let L = 0; L < 4; L++) for (let k = 0; k < 10; k++) expect(k - RolloutService.requestVersion(k, L)).toBeLessThanOrEqual(L)
  })

  it.effect("checkLag accepts lag ≤ bound and fails with PolicyLagError beyond it", () =>
    Effect.gen(function*() {
      expect(yield* RolloutService.checkLag(1, 3, 5, 2)).toBe(2)
      const e = yield* Effect.flip(RolloutService.checkLag(1, 2, 5, 2))
      expect(e).toBeInstanceOf(Errors.PolicyLagError)
      expect(e.message).toContain("at most 2")
      // An episode from a future version is a scheduling bug, not staleness: also rejected.
      expect(yield* Effect.flip(RolloutService.checkLag(1, 6, 5, 2))).toBeInstanceOf(Errors.PolicyLagError)
    }))
})

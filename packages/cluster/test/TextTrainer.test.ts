import { describe, expect, it } from "@effect/vitest"
import { Policy, RolloutService, TextTrainer } from "@autodidact/cluster"
import { InvalidOptionError, Rng } from "@autodidact/core"
import { Advantages, DrrnPolicy } from "@autodidact/optim"
import { Effect, Schema, Stream } from "effect"

const small = { envId: "TextHousehold-v0", runId: "tt", seed: 2, groupSize: 3, tasksPerBatch: 2, difficulty: "easy" } as const

describe("TextTrainer", () => {
  it.effect("re-featurized samples reproduce the log-probabilities recorded at rollout time", () =>
    Effect.gen(function*() {
      const svc = yield* RolloutService.RolloutService
      const policy = DrrnPolicy.make({ rng: Rng.make(4) })
      const ref = yield* svc.publish("tt", 0, Policy.ofDrrn(policy))
      const groups = yield* Stream.runCollect(svc.groups({ runId: "tt", runSeed: 1, envId: "TextHousehold-v0", policy: ref, groupIds: [1, 0], groupSize: 3, difficulty: "easy" }))
      const samples = TextTrainer.samplesOf(groups, policy, "grpo", Advantages.defaults)
      const admissibleSteps = groups.reduce((a, g) => a + g.trajectories.reduce((b, t) => b + t.actionIndices.filter((i) => i >= 0).length, 0), 0)
      expect(samples.length).toBe(admissibleSteps)
      expect(samples.length).toBeGreaterThan(0)
      for (const s of samples) {
        DrrnPolicy.forward(policy, s.encoded)
        expect(DrrnPolicy.logProbAt(policy, s.encoded.actions.length, s.action)).toBeCloseTo(s.oldLogProb, 9)
      }
    }).pipe(Effect.provide(RolloutService.layerInProcess)))

  it.effect("trains reproducibly to the step budget and reports each update", () =>
    Effect.gen(function*() {
      const updates: Array<TextTrainer.UpdateRow> = []
      const a = yield* TextTrainer.train({ ...small, totalSteps: 60 }, { onUpdate: (u) => updates.push(u) }).pipe(Effect.provide(RolloutService.layerInProcess))
      const b = yield* TextTrainer.train({ ...small, totalSteps: 60 }).pipe(Effect.provide(RolloutService.layerInProcess))
      expect(a.weightsHash).toBe(b.weightsHash)
      expect(a.globalStep).toBeGreaterThanOrEqual(60)
      expect(updates.length).toBe(a.updates)
      expect(updates.at(-2) === undefined || updates.at(-2)!.globalStep < 60).toBe(true)
      expect(updates.map((u) => u.policyVersion)).toEqual(updates.map((_, i) => i + 1))
      // every update row decodes with its schema, with no critic field
      for (const u of updates) expect(Schema.decodeUnknownSync(TextTrainer.UpdateRow)(u)).toEqual(u)
      for (const u of updates) expect("valueLoss" in u || "explainedVariance" in u).toBe(false)
      const bad = yield* Effect.flip(TextTrainer.train({ ...small, algo: "gae" }).pipe(Effect.provide(RolloutService.layerInProcess)))
      expect((bad as InvalidOptionError).option).toBe("algo")
    }))
})

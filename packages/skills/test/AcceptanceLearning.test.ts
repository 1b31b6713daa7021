/**
 * Smoke run of issue 6's learning acceptance (`bench/acceptance-learning.ts`, the protocol of `bench/experiment.ts`
 * with the bench's settings) at a tiny budget: one seed, one training batch of 16 episodes per arm, 10 evaluation tasks. It checks
 * that the protocol runs end to end with the published configuration and keeps its invariants (the 4 discovered
 * options; equal primitive-step budgets for both arms; one decision per primitive step without skills, fewer with
 * them; skills used in evaluation); it does not assert that skills help, which needs the full budget.
 *
 * The published figure (30k primitive steps, seeds 1–4: 65 vs 33 wins of 400, more wins with skills in every seed)
 * is reproduced by `cd packages/skills && node --import tsx --conditions=@autodidact/source bench/acceptance-learning.ts`,
 * which prints the per-seed table and exits 1 if the acceptance claim no longer holds.
 */
import { describe, expect, it } from "@effect/vitest"
import { Embedder } from "@autodidact/memory"
import { Effect, Layer } from "effect"
import { Sandbox } from "../src/index.js"
import * as Experiment from "../bench/experiment.js"

const layer = Layer.mergeAll(Sandbox.layer({ timeoutMs: 10_000, poolSize: 2 }), Embedder.layerHashed())

describe("acceptance (smoke): a learner with discovered skills at an equal primitive-step budget (easy TextHousehold-v0)", () => {
  it.effect("one batch per arm, seed 1: the bench's protocol runs and keeps its invariants", () =>
    Effect.gen(function*() {
      // the bench's settings with a smaller training batch (4 tasks × 4 rollouts instead of the trainer's default)
      const settings: Experiment.Settings = { ...Experiment.learningSettings(1, 10), trainer: { groupSize: 4, tasksPerBatch: 4 } }
      const r = yield* Experiment.learningAcceptance(settings, [1])
      expect(r.options.length).toBe(4)
      expect(r.seeds).toHaveLength(1)
      const { primitives: p, skills: s } = r.seeds[0]!
      // equal budgets: both stop at the first batch boundary past the budget (a batch is 16 episodes of ≤ 50 steps)
      for (const arm of [p, s]) {
        expect(arm.trainPrimitiveSteps).toBeGreaterThanOrEqual(settings.budget)
        expect(arm.trainPrimitiveSteps).toBeLessThanOrEqual(16 * 50)
        expect(arm.successRate).toBeGreaterThanOrEqual(0)
        expect(arm.successRate).toBeLessThanOrEqual(1)
      }
      expect(p.trainDecisions).toBe(p.trainPrimitiveSteps)
      expect(s.trainDecisions).toBeLessThan(s.trainPrimitiveSteps)
      expect(s.skillShare).toBeGreaterThan(0)
      expect(r.winsPrimitives).toBe(Math.round(p.successRate * settings.evalEpisodes))
      expect(r.winsSkills).toBe(Math.round(s.successRate * settings.evalEpisodes))
    }).pipe(Effect.provide(layer)), 120_000)
})

/**
 * The acceptance experiment of issue 6 at test size (protocol: `bench/experiment.ts`; full-budget numbers:
 * `bench/acceptance.ts` and the README). What it asserts is what held in every seed we ran, not the hoped-for result:
 *
 * - Non-learning agents at the same primitive-step limit (50): a uniform random agent offered the discovered skills
 *   (applicable grounding, `Discovery.macroOption`) succeeds more often on unseen easy tasks than one over primitives
 *   only, in fewer decisions. Seeds 1–3 × 60 tasks: skills 2%, 12%, 15% vs primitives 0%, 3%, 3% (17 vs 4 wins);
 *   per seed the gap can be one episode, so the test asserts the sum over the three seeds (more wins with skills)
 *   and, per seed, fewer decisions per episode.
 * - Learning agents (GiGPO + DRRN) at a tiny, equal primitive-step budget: the protocol's invariants (equal budgets
 *   within one batch; one decision per primitive step without skills; fewer decisions than primitive steps with
 *   them). Whether skills help the learner is checked by `bench/acceptance-learning.ts` (30k primitive steps, seeds
 *   1–4, the bench's settings; smoke-run by `AcceptanceLearning.test.ts`); the full learning curves are in the README.
 */
import { describe, expect, it } from "@effect/vitest"
import { Embedder } from "@autodidact/memory"
import { GroupRollout } from "@autodidact/optim"
import { Effect, Layer } from "effect"
import { Sandbox, SkillLibrary, SyncSandbox } from "../src/index.js"
import * as Experiment from "../bench/experiment.js"

const layer = Layer.mergeAll(Sandbox.layer({ timeoutMs: 10_000, poolSize: 2 }), Embedder.layerHashed())
const settings: Experiment.Settings = {
  difficulty: "easy",
  budget: 1500,
  evalEpisodes: 60,
  trainEpisodes: 60,
  heldOutEpisodes: 20,
  trainer: { groupSize: 4, tasksPerBatch: 4 }
}

describe("acceptance: discovered skills on TextHousehold-v0 (easy)", () => {
  it.effect("random agents: more successes with discovered skills at the same primitive-step limit; learners: equal budgets", () =>
    Effect.gen(function*() {
      const library = yield* SkillLibrary.SkillLibrary.make()
      const d = yield* Experiment.discoverOptions(library, settings)
      expect(d.options.length).toBeGreaterThan(0)
      expect(d.found.filter((f) => f.admitted).every((f) => f.successRate >= 0.8)).toBe(true)
      const runner = yield* SyncSandbox.make({ timeoutMs: 60_000 }) // far above a skill call's run time: results must not depend on machine load
      const prim = Experiment.makeEnv(settings, library, [], runner)
      const skills = Experiment.makeEnv(settings, library, d.options, runner)
      let winsPrim = 0
      let winsSkills = 0
      for (const seed of [1, 2, 3]) {
        const rp = Experiment.baseline("random, primitives", settings, prim, GroupRollout.randomPolicy, seed)
        const rs = Experiment.baseline("random, + skills", settings, skills, GroupRollout.randomPolicy, seed)
        winsPrim += Math.round(rp.successRate * settings.evalEpisodes)
        winsSkills += Math.round(rs.successRate * settings.evalEpisodes)
        expect(rs.decisions).toBeLessThan(rp.decisions)
        expect(rs.primitiveSteps).toBeLessThanOrEqual(50)
        expect(rs.skillShare).toBeGreaterThan(0)
      }
      // observed 17 vs 4 of 180 episodes; per seed the gap is as small as 1 vs 0, so only the sum is asserted
      expect(winsSkills).toBeGreaterThan(winsPrim)

      const small = { ...settings, evalEpisodes: 10 }
      const lp = yield* Experiment.trainArm("gigpo, primitives", small, library, [], runner, 1)
      const ls = yield* Experiment.trainArm("gigpo, + skills", small, library, d.options, runner, 1)
      for (const r of [lp, ls]) {
        expect(r.trainPrimitiveSteps).toBeGreaterThanOrEqual(small.budget)
        expect(r.trainPrimitiveSteps).toBeLessThan(small.budget + 4 * 4 * 50)
      }
      expect(lp.trainDecisions).toBe(lp.trainPrimitiveSteps)
      expect(ls.trainDecisions).toBeLessThan(ls.trainPrimitiveSteps)
      expect(ls.skillShare).toBeGreaterThan(0)
    }).pipe(Effect.provide(layer)), 300_000)
})

import { Rng } from "@autodidact/core"
import { make, makeVec } from "@autodidact/envs"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { ActorCritic, Evaluate, Ppo } from "../src/index.js"

describe("Evaluate.run", () => {
  it.effect("reports per-episode returns and lengths with mean and population std, reproducibly", () =>
    Effect.gen(function* () {
      const agent = ActorCritic.make({ obsDim: 4, numActions: 2, rng: Rng.make(0) })
      const report = yield* Evaluate.run(agent, make("CartPole-v1"), { episodes: 5, seed: 10 })
      expect(report.returns.length).toBe(5)
      // CartPole pays 1 per step: return = length
      expect(report.returns).toEqual(report.lengths)
      const mean = report.returns.reduce((a, b) => a + b, 0) / 5
      expect(report.mean).toBeCloseTo(mean, 12)
      expect(report.std).toBeCloseTo(Math.sqrt(report.returns.reduce((a, b) => a + (b - mean) ** 2, 0) / 5), 12)
      const again = yield* Evaluate.run(agent, make("CartPole-v1"), { episodes: 5, seed: 10 })
      expect(again.returns).toEqual(report.returns)
      const sampled = yield* Evaluate.run(agent, make("CartPole-v1"), { episodes: 5, seed: 10, greedy: false })
      expect(sampled.returns.length).toBe(5)
      expect(sampled.returns).toEqual(sampled.lengths)
      expect(sampled.meanLength).toBeCloseTo(sampled.lengths.reduce((x, y) => x + y, 0) / 5, 12)
      // sampling is seeded too: the same seed replays the same episodes, another seed gives other ones
      expect((yield* Evaluate.run(agent, make("CartPole-v1"), { episodes: 5, seed: 10, greedy: false })).returns).toEqual(sampled.returns)
      const other = yield* Evaluate.run(agent, make("CartPole-v1"), { episodes: 5, seed: 11, greedy: false })
      expect(other.returns).not.toEqual(sampled.returns)
    }))

  it.effect("a trained policy scores higher than an untrained one", () =>
    Effect.gen(function* () {
      const trained = yield* Ppo.train(makeVec("CartPole-v1", 4, { autoresetMode: "SameStep" }), { seed: 1, totalTimesteps: 30_720 })
      const fresh = ActorCritic.make({ obsDim: 4, numActions: 2, rng: Rng.make(1) })
      const a = yield* Evaluate.run(trained.agent, make("CartPole-v1"), { episodes: 10 })
      const b = yield* Evaluate.run(fresh, make("CartPole-v1"), { episodes: 10 })
      expect(a.mean).toBeGreaterThan(b.mean + 50)
    }))

  it.effect("fails with InvalidOptionError on a bad episode count or a mismatched env", () =>
    Effect.gen(function* () {
      const agent = ActorCritic.make({ obsDim: 3, numActions: 2, rng: Rng.make(0) })
      const e1 = yield* Effect.flip(Evaluate.run(agent, make("CartPole-v1"), { episodes: 0 }))
      expect(e1.message).toMatch(/episodes = 0/)
      const e2 = yield* Effect.flip(Evaluate.run(agent, make("CartPole-v1")))
      expect(e2.message).toMatch(/the policy expects 3 observation dims/)
    }))
})

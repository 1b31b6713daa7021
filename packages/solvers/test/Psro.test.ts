import { Rng } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Equilibrium from "../src/normalform/Equilibrium.js"
import * as Highs from "../src/normalform/HighsRuntime.js"
import * as MetaSolvers from "../src/normalform/MetaSolvers.js"
import * as PayoffTensor from "../src/normalform/PayoffTensor.js"
import * as Psro from "../src/psro/Psro.js"

const rps = PayoffTensor.zeroSum([[0, -1, 1], [1, 0, -1], [-1, 1, 0]])

/** A random zero-sum game with integer payoffs in [-5, 5]. */
const randomZeroSum = (m: number, n: number, seed: number) => {
  const rng = Rng.make(seed)
  return PayoffTensor.zeroSum(Array.from({ length: m }, () => Array.from({ length: n }, () => rng.integers(11) - 5)))
}

describe("Psro (normal form)", () => {
  it.effect("Nash meta-solver on rock-paper-scissors: R -> P -> S, converges to uniform with NashConv 0", () =>
    Effect.gen(function* () {
      const r = yield* Psro.run(rps, { metaSolver: "nash" })
      expect(r.stopReason).toBe("converged")
      expect(r.history.map((h) => h.populationSizes)).toEqual([[1, 1], [2, 2], [3, 3]])
      // Best response to Rock is Paper (action 1); the populations grow in that order.
      expect(r.final.populations).toEqual([[0, 1, 2], [0, 1, 2]])
      for (const x of r.final.strategies) for (const v of x) expect(Math.abs(v - 1 / 3)).toBeLessThan(1e-9)
      expect(r.final.nashConv).toBeLessThan(1e-9)
      expect(r.history[0]!.nashConv).toBeCloseTo(2, 12) // (R, R): each player gains 1 by playing Paper
    }).pipe(Effect.provide(Highs.layer)))

  it.effect("Nash meta-solver (double oracle) on random 40x30 zero-sum games reaches the full game's LP value", () =>
    Effect.gen(function* () {
      for (const seed of [1, 2, 3]) {
        const g = randomZeroSum(40, 30, seed)
        const full = yield* MetaSolvers.zeroSumNash(g)
        const r = yield* Psro.run(g, { metaSolver: "nash" })
        expect(r.stopReason).toBe("converged")
        expect(r.final.nashConv).toBeLessThan(1e-7)
        const value = Equilibrium.expectedPayoffs(g, Equilibrium.productDistribution(g.shape, r.final.strategies))[0]!
        expect(value).toBeCloseTo(full.value, 7)
        // Each iteration reports a population no smaller than the last and a meta-game of that shape.
        r.history.forEach((h, i) => {
          expect(h.iteration).toBe(i)
          expect(h.metaGame.shape).toEqual(h.populationSizes)
          if (i > 0) h.populationSizes.forEach((k, p) => expect(k).toBeGreaterThanOrEqual(r.history[i - 1]!.populationSizes[p]!))
        })
      }
    }).pipe(Effect.provide(Highs.layer)))

  it.effect("uniform and PRD meta-solvers: NashConv reported per iteration; PRD gets close on matching pennies", () =>
    Effect.gen(function* () {
      // Uniform over {R, P}: Paper is already the best response (value 1/2), so PSRO stops at two strategies with
      // NashConv 1/2 + 1/2 = 1 (uniform is not an equilibrium meta-solver).
      const u = yield* Psro.run(rps, { metaSolver: "uniform" })
      expect(u.stopReason).toBe("converged")
      expect(u.final.populations).toEqual([[0, 1], [0, 1]])
      expect(u.final.nashConv).toBeCloseTo(1, 12)
      const pennies = PayoffTensor.zeroSum([[1, -1], [-1, 1]])
      const p = yield* Psro.run(pennies, { metaSolver: "prd", prd: { iterations: 20_000, dt: 0.01 }, iterations: 5 })
      expect(p.final.populationSizes).toEqual([2, 2])
      expect(p.final.nashConv).toBeLessThan(0.05)
      expect(p.history[0]!.nashConv).toBeCloseTo(2, 12)
    }).pipe(Effect.provide(Highs.layer)))

  it.effect("bad input: empty or out-of-range population, zero iterations, Nash on three players -> typed errors", () =>
    Effect.gen(function* () {
      const e1 = yield* Effect.flip(Psro.run(rps, { metaSolver: "nash", initialPopulations: [[0], []] }))
      expect(e1._tag).toBe("InvalidPayoffTensorError")
      expect(e1.message).toContain("player 1")
      const e2 = yield* Effect.flip(Psro.run(rps, { metaSolver: "nash", initialPopulations: [[0], [3]] }))
      expect(e2.message).toContain("value 3")
      const e3 = yield* Effect.flip(Psro.run(rps, { metaSolver: "nash", iterations: 0 }))
      expect(e3._tag).toBe("InvalidOptionError")
      const e4 = yield* Effect.flip(Psro.run(PayoffTensor.random([2, 2, 2], Rng.make(3)), { metaSolver: "nash" }))
      expect(e4.message).toContain("two-player")
    }).pipe(Effect.provide(Highs.layer)))
})

import { Rng } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Highs from "../src/normalform/HighsRuntime.js"
import * as Jpsro from "../src/psro/Jpsro.js"
import * as PayoffTensor from "../src/normalform/PayoffTensor.js"
import { worstViolation } from "./EquilibriumTestkit.js"

/** Jordan's three-player matching pennies: 0 wants to match 1, 1 wants to match 2, 2 wants to mismatch 0. */
const jordan = PayoffTensor.fromFunction([2, 2, 2], ([a, b, c]) => [a === b ? 1 : -1, b === c ? 1 : -1, c !== a ? 1 : -1])

describe("Jpsro", () => {
  for (const kind of ["cce", "ce"] as const) {
    it.effect(`JPSRO(${kind.toUpperCase()}) with MG${kind.toUpperCase()} on random 3x3x3 and 5x5x5 games reaches a gap below 1e-3`, () =>
      Effect.gen(function* () {
        for (const [shape, seed] of [[[3, 3, 3], 0], [[3, 3, 3], 1], [[5, 5, 5], 2]] as const) {
          const g = PayoffTensor.random(shape, Rng.make(seed), -1, 1)
          const r = yield* Jpsro.run(g, { kind })
          expect(r.final.gap).toBeLessThan(1e-3)
          // Independent check of the final joint distribution in the full game.
          expect(worstViolation(g, r.final.distribution, kind)).toBeLessThan(1e-3)
          let s = 0
          for (const x of r.final.distribution) {
            expect(x).toBeGreaterThanOrEqual(0)
            s += x
          }
          expect(s).toBeCloseTo(1, 12)
          r.history.forEach((h, i) => {
            expect(h.iteration).toBe(i)
            expect(Math.abs(h.gap - Math.max(0, worstViolation(g, h.distribution, kind)))).toBeLessThan(1e-12)
          })
        }
      }).pipe(Effect.provide(Highs.layer)))
  }

  it.effect("Jordan's three-player matching pennies: JPSRO(CE) and JPSRO(CCE) converge from a single profile", () =>
    Effect.gen(function* () {
      for (const kind of ["ce", "cce"] as const) {
        const r = yield* Jpsro.run(jordan, { kind })
        expect(r.stopReason).toBe("converged")
        expect(r.final.populationSizes).toEqual([2, 2, 2])
        expect(worstViolation(jordan, r.final.distribution, kind)).toBeLessThan(1e-9)
        expect(r.history[0]!.gap).toBeCloseTo(2, 12) // pure (H, H, H): player 2 gains 2 by mismatching
      }
    }).pipe(Effect.provide(Highs.layer)))

  it.effect("max-welfare meta-solver also converges; the uniform joint meta-solver stops at a non-equilibrium (CCE gap 1 on Jordan's game)", () =>
    Effect.gen(function* () {
      const g = PayoffTensor.random([4, 4, 4], Rng.make(5))
      const w = yield* Jpsro.run(g, { kind: "cce", metaSolver: "maxWelfareCce" })
      expect(w.final.gap).toBeLessThan(1e-7)
      // Hand-derived. Iteration 0: σ = δ(H, H, H), payoffs (1, 1, -1); only player 2 gains (2, by playing T): gap 2,
      // and T joins player 2's population. Iteration 1: σ uniform on {(H,H,H), (H,H,T)}: player 2 gets 0 and would
      // get 1 by always playing T (gain 1); player 1 gets 0 either way; player 0 loses by switching. Every best
      // response is already in its population (ties go to the population), so JPSRO "converges" with gap 1:
      // uniform is not a (C)CE meta-solver, and its fixed point is not an equilibrium.
      for (const kind of ["cce", "ce"] as const) {
        const u = yield* Jpsro.run(jordan, { kind, metaSolver: "uniform", iterations: 5 })
        expect(u.stopReason).toBe("converged")
        expect(u.history.map((h) => h.populationSizes)).toEqual([[1, 1, 1], [1, 1, 2]])
        expect(u.history.map((h) => h.gap)).toEqual([expect.closeTo(2, 12), expect.closeTo(1, 12)])
        expect(Array.from(u.final.distribution)).toEqual([0.5, 0.5, 0, 0, 0, 0, 0, 0])
        expect(worstViolation(jordan, u.final.distribution, kind)).toBeCloseTo(1, 12)
      }
    }).pipe(Effect.provide(Highs.layer)))

  it.effect("known answers: Chicken -> its MGCE (5/34, 5/17, 5/17, 9/34); Shapley's game -> the uniform CE; gaps >= 0 and falling to 0", () =>
    Effect.gen(function* () {
      // Chicken (actions Dare, Chicken): u_row = [[0, 7], [2, 6]], u_col its transpose. With two actions CE = CCE.
      // The MGCE by hand (KKT): minimise Σσ² over CEs. By symmetry σ = (a, b, b, c); the uniform point violates
      // "recommended Dare, deviate to Chicken" (2a − b ≤ 0), so it binds: b = 2a; minimising 9a² + c² with
      // 5a + c = 1 gives a = 5/34, b = 10/34, c = 9/34 (and "recommended Chicken" −2b + c < 0 holds).
      // From (Dare, Dare) (gap 2: either player gains 2 by swerving) JPSRO adds Chicken for both players, and then
      // solves the full game.
      const chicken = PayoffTensor.fromMatrices([[0, 7], [2, 6]], [[0, 2], [7, 6]])
      // Shapley's game: row wins (1) on (0,1), (1,2), (2,0); column on (0,2), (1,0), (2,1). The uniform joint
      // distribution makes every CE constraint hold with equality (each row and column has exactly one win), and it
      // is the maximum-Gini point of the whole simplex, so it is the MGCE and the MGCCE. From (0, 0) each player
      // gains 1 by deviating (gap 1).
      const shapley = PayoffTensor.fromMatrices([[0, 1, 0], [0, 0, 1], [1, 0, 0]], [[0, 0, 1], [1, 0, 0], [0, 1, 0]])
      const cases = [
        { game: chicken, first: 2, final: [5 / 34, 5 / 17, 5 / 17, 9 / 34] },
        { game: shapley, first: 1, final: new Array(9).fill(1 / 9) }
      ]
      for (const { final, first, game } of cases) {
        for (const kind of ["ce", "cce"] as const) {
          const r = yield* Jpsro.run(game, { kind, tolerance: 1e-9 })
          expect(r.stopReason).not.toBe("iterations")
          const gaps = r.history.map((h) => h.gap)
          expect(gaps[0]).toBeCloseTo(first, 12)
          expect(gaps.at(-1)!).toBeLessThanOrEqual(1e-9)
          gaps.forEach((gap, i) => {
            expect(gap).toBeGreaterThanOrEqual(-1e-9)
            if (i > 0) expect(gap).toBeLessThan(gaps[i - 1]!)
            // The reported gap is the independent recomputation of every deviation's gain (clipped at 0).
            expect(Math.abs(gap - Math.max(0, worstViolation(game, r.history[i]!.distribution, kind)))).toBeLessThan(1e-12)
          })
          // The final joint distribution is a (C)CE of the full game (every deviation recomputed independently)
          // and the known one.
          expect(worstViolation(game, r.final.distribution, kind)).toBeLessThanOrEqual(1e-9)
          Array.from(r.final.distribution).forEach((x, j) => expect(Math.abs(x - final[j]!)).toBeLessThan(1e-6))
        }
      }
    }).pipe(Effect.provide(Highs.layer)))

  it.effect("bad input: NaN payoff and empty population -> InvalidPayoffTensorError naming the problem", () =>
    Effect.gen(function* () {
      const bad = { shape: [2, 2, 2], payoffs: [new Float64Array(8), new Float64Array(8).fill(Number.NaN), new Float64Array(8)] }
      const e = yield* Effect.flip(Jpsro.run(bad, { kind: "ce" }))
      expect(e.message).toContain("player 1, index 0, value NaN")
      const e2 = yield* Effect.flip(Jpsro.run(jordan, { kind: "ce", initialPopulations: [[0], [0], []] }))
      expect(e2.message).toContain("empty")
    }).pipe(Effect.provide(Highs.layer)))
})

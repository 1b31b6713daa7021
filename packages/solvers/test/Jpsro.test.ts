import { Rng } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Highs from "../src/Highs.js"
import * as Jpsro from "../src/Jpsro.js"
import * as PayoffTensor from "../src/PayoffTensor.js"
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

  it.effect("max-welfare meta-solver also converges; uniform joint meta-solver is not an equilibrium (positive gap)", () =>
    Effect.gen(function* () {
      const g = PayoffTensor.random([4, 4, 4], Rng.make(5))
      const w = yield* Jpsro.run(g, { kind: "cce", metaSolver: "maxWelfareCce" })
      expect(w.final.gap).toBeLessThan(1e-7)
      const u = yield* Jpsro.run(jordan, { kind: "cce", metaSolver: "uniform", iterations: 3 })
      expect(u.history.length).toBeGreaterThan(0)
      expect(u.final.gap).toBeGreaterThanOrEqual(0)
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

import { Rng } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Highs from "../src/normalform/HighsRuntime.js"
import * as MetaSolvers from "../src/normalform/MetaSolvers.js"
import * as PayoffTensor from "../src/normalform/PayoffTensor.js"
import { worstViolation } from "./EquilibriumTestkit.js"

const rps = PayoffTensor.zeroSum([[0, -1, 1], [1, 0, -1], [-1, 1, 0]])
const pennies = PayoffTensor.zeroSum([[1, -1], [-1, 1]])
// Chicken (Aumann's example): actions (Dare, Chicken); pure NE (D,C) and (C,D).
const chicken = PayoffTensor.fromMatrices([[0, 7], [2, 6]], [[0, 2], [7, 6]])
// Prisoner's dilemma: actions (Cooperate, Defect); Defect strictly dominates.
const pd = PayoffTensor.fromMatrices([[3, 0], [5, 1]], [[3, 5], [0, 1]])

const expectDistribution = (d: ArrayLike<number>) => {
  let s = 0
  for (let i = 0; i < d.length; i++) {
    expect(d[i]).toBeGreaterThanOrEqual(0)
    s += d[i]!
  }
  expect(Math.abs(s - 1)).toBeLessThan(1e-12)
}

describe("zeroSumNash", () => {
  it.effect("rock-paper-scissors: uniform for both players, value 0", () =>
    Effect.gen(function* () {
      const s = yield* MetaSolvers.zeroSumNash(rps)
      for (const x of s.strategies) for (const v of x) expect(Math.abs(v - 1 / 3)).toBeLessThan(1e-9)
      expect(Math.abs(s.value)).toBeLessThan(1e-9)
    }).pipe(Effect.provide(Highs.layer)))

  it.effect("matching pennies: uniform, value 0; [[2,-1],[-1,1]]: x = y = (2/5, 3/5), value 1/5", () =>
    Effect.gen(function* () {
      const s = yield* MetaSolvers.zeroSumNash(pennies)
      for (const x of s.strategies) for (const v of x) expect(Math.abs(v - 1 / 2)).toBeLessThan(1e-9)
      expect(Math.abs(s.value)).toBeLessThan(1e-9)
      const t = yield* MetaSolvers.zeroSumNash(PayoffTensor.zeroSum([[2, -1], [-1, 1]]))
      for (const x of t.strategies) {
        expect(x[0]).toBeCloseTo(2 / 5, 9)
        expect(x[1]).toBeCloseTo(3 / 5, 9)
      }
      expect(t.value).toBeCloseTo(1 / 5, 9)
    }).pipe(Effect.provide(Highs.layer)))

  it.effect("rejects a general-sum or three-player game with InvalidPayoffTensorError", () =>
    Effect.gen(function* () {
      const e = yield* Effect.flip(MetaSolvers.zeroSumNash(chicken))
      expect(e._tag).toBe("InvalidPayoffTensorError")
      expect(e.message).toContain("constant-sum")
      const e3 = yield* Effect.flip(MetaSolvers.zeroSumNash(PayoffTensor.random([2, 2, 2], Rng.make(0))))
      expect(e3.message).toContain("two-player")
    }).pipe(Effect.provide(Highs.layer)))
})

describe("replicatorDynamics", () => {
  it.effect("one step matches the hand-computed OpenSpiel update", () =>
    Effect.gen(function* () {
      // Matching pennies from x = (0.6, 0.4), y = (0.3, 0.7), dt = 0.1, gamma = 0.
      // Row values: v = (0.3 - 0.7, -0.3 + 0.7) = (-0.4, 0.4); mean = -0.24 + 0.16 = -0.08.
      // x' = x + dt x (v - mean) = (0.6 + 0.1*0.6*(-0.32), 0.4 + 0.1*0.4*0.48) = (0.5808, 0.4192).
      // Column values (payoff -A): w = (-(0.6 - 0.4), -(-0.6 + 0.4)) = (-0.2, 0.2); mean = -0.06 + 0.14 = 0.08.
      // y' = (0.3 + 0.1*0.3*(-0.28), 0.7 + 0.1*0.7*0.12) = (0.2916, 0.7084).
      const [x, y] = yield* MetaSolvers.replicatorDynamics(pennies, { iterations: 1, dt: 0.1, gamma: 0, initial: [[0.6, 0.4], [0.3, 0.7]] })
      expect(x![0]).toBeCloseTo(0.5808, 14)
      expect(x![1]).toBeCloseTo(0.4192, 14)
      expect(y![0]).toBeCloseTo(0.2916, 14)
      expect(y![1]).toBeCloseTo(0.7084, 14)
    }))

  it.effect("the gamma floor keeps every action alive; a dominated action decays to the floor", () =>
    Effect.gen(function* () {
      const [x, y] = yield* MetaSolvers.replicatorDynamics(pd, { iterations: 20_000, dt: 0.01, gamma: 1e-4, averageOverLast: 1 })
      expect(x![0]).toBeCloseTo(1e-4, 6)
      expect(y![1]).toBeCloseTo(1 - 1e-4, 6)
    }))

  it.effect("the time average on rock-paper-scissors approaches the uniform Nash equilibrium", () =>
    Effect.gen(function* () {
      const s = yield* MetaSolvers.replicatorDynamics(rps, { initial: [[0.5, 0.3, 0.2], [0.2, 0.3, 0.5]] })
      for (const x of s) for (const v of x) expect(Math.abs(v - 1 / 3)).toBeLessThan(0.03)
    }))
})

describe("correlated equilibria", () => {
  it.effect("chicken: the CE set has several points (two LP vertices differ) but MGCE is unique = (5/34, 5/17, 5/17, 9/34)", () =>
    Effect.gen(function* () {
      const v1 = yield* MetaSolvers.correlatedEquilibrium(chicken, { kind: "ce", objective: { linear: [0, 1, 0, 0] } })
      const v2 = yield* MetaSolvers.correlatedEquilibrium(chicken, { kind: "ce", objective: { linear: [0, 0, 1, 0] } })
      expect(Array.from(v1.distribution)).toEqual([0, 1, 0, 0])
      expect(Array.from(v2.distribution)).toEqual([0, 0, 1, 0])
      for (const v of [v1, v2]) expect(worstViolation(chicken, v.distribution, "ce")).toBeLessThanOrEqual(1e-9)
      // Hand derivation: by symmetry σ = (a, b, b, c); the Gini optimum violates b >= 2a unless it binds, so
      // b = 2a, c = 1 - 5a, minimize a² + 8a² + (1 - 5a)² -> a = 5/34 (and c <= 2b holds).
      const expected = [5 / 34, 5 / 17, 5 / 17, 9 / 34]
      const m = yield* MetaSolvers.mgce(chicken)
      m.distribution.forEach((x, i) => expect(Math.abs(x - expected[i]!)).toBeLessThan(1e-9))
      expect(worstViolation(chicken, m.distribution, "ce")).toBeLessThanOrEqual(1e-9)
      // Another formulation: relabel the actions (0 = Chicken), so the variables come in reverse order; map back.
      const relabeled = PayoffTensor.fromMatrices([[6, 2], [7, 0]], [[6, 7], [2, 0]])
      const r = yield* MetaSolvers.mgce(relabeled)
      const back = [r.distribution[3]!, r.distribution[2]!, r.distribution[1]!, r.distribution[0]!]
      back.forEach((x, i) => expect(Math.abs(x - expected[i]!)).toBeLessThan(1e-9))
      // And the interior-point QP solver agrees (to its looser tolerance).
      const ipm = yield* MetaSolvers.mgce(chicken, { highs: { solver: "ipm" }, tolerance: 1e-6 })
      ipm.distribution.forEach((x, i) => expect(Math.abs(x - expected[i]!)).toBeLessThan(1e-6))
    }).pipe(Effect.provide(Highs.layer)))

  it.effect("prisoner's dilemma: the only CE (max welfare and MGCE alike) is (defect, defect)", () =>
    Effect.gen(function* () {
      for (const s of [yield* MetaSolvers.maxWelfareCe(pd), yield* MetaSolvers.mgce(pd), yield* MetaSolvers.mgcce(pd)]) {
        expect(Math.abs(s.distribution[3]! - 1)).toBeLessThan(1e-9)
        expect(s.expectedPayoffs[0]).toBeCloseTo(1, 9)
      }
    }).pipe(Effect.provide(Highs.layer)))

  it.effect("n-player CE and CCE (max welfare, MG, ε-relaxed) satisfy every incentive constraint within 1e-9", () =>
    Effect.gen(function* () {
      const rng = Rng.make(7)
      const games = [PayoffTensor.random([3, 3, 3], rng, -1, 1), PayoffTensor.random([2, 3, 4], rng, 0, 10), chicken, rps]
      for (const g of games) {
        for (const kind of ["ce", "cce"] as const) {
          for (const objective of ["maxGini", "maxWelfare"] as const) {
            const s = yield* MetaSolvers.correlatedEquilibrium(g, { kind, objective })
            expectDistribution(s.distribution)
            expect(worstViolation(g, s.distribution, kind)).toBeLessThanOrEqual(1e-9)
            expect(Math.abs(s.gap - Math.max(0, worstViolation(g, s.distribution, kind)))).toBeLessThan(1e-12)
          }
          const eps = yield* MetaSolvers.correlatedEquilibrium(g, { kind, epsilon: 0.05 })
          expectDistribution(eps.distribution)
          expect(worstViolation(g, eps.distribution, kind)).toBeLessThanOrEqual(0.05 + 1e-9)
        }
      }
    }).pipe(Effect.provide(Highs.layer)))

  it.effect("relaxing ε raises the MGCE's Gini impurity toward uniform (ε large: exactly uniform)", () =>
    Effect.gen(function* () {
      const tight = yield* MetaSolvers.mgce(chicken)
      const loose = yield* MetaSolvers.mgce(chicken, { epsilon: 100 })
      expect(loose.gini).toBeCloseTo(0.75, 12)
      expect(tight.gini).toBeLessThan(0.75)
    }).pipe(Effect.provide(Highs.layer)))

  it.effect("bad input: NaN payoff, wrong objective length, negative ε, time limit -> typed errors", () =>
    Effect.gen(function* () {
      const bad = { shape: [2, 2], payoffs: [new Float64Array([0, 1, Number.NaN, 0]), new Float64Array(4)] }
      const e1 = yield* Effect.flip(MetaSolvers.mgce(bad))
      expect(e1._tag).toBe("InvalidPayoffTensorError")
      expect(e1.message).toContain("player 0, index 2, value NaN")
      const e2 = yield* Effect.flip(MetaSolvers.correlatedEquilibrium(chicken, { kind: "ce", objective: { linear: [1] } }))
      expect(e2._tag).toBe("InvalidPayoffTensorError")
      const e3 = yield* Effect.flip(MetaSolvers.mgce(chicken, { epsilon: -1 }))
      expect(e3._tag).toBe("InvalidOptionError")
      const e4 = yield* Effect.flip(MetaSolvers.mgce(PayoffTensor.random([4, 4, 4], Rng.make(1)), { highs: { time_limit: 0 } }))
      expect(e4._tag).toBe("LpSolveError")
      expect(e4._tag === "LpSolveError" && e4.status).toBe("Time limit reached")
    }).pipe(Effect.provide(Highs.layer)))
})

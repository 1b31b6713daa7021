import { describe, expect, it } from "vitest"
import * as Advantages from "../src/Advantages.js"
import * as CheckEstimator from "../src/CheckEstimator.js"

const arr = (a: Float64Array) => Array.from(a)
const close = (actual: ReadonlyArray<number>, expected: ReadonlyArray<number>, digits = 4) => {
  expect(actual.length).toBe(expected.length)
  actual.forEach((x, k) => expect(x).toBeCloseTo(expected[k]!, digits))
}
const o = (extra: Partial<Advantages.Options> = {}): Advantages.Options => ({ ...Advantages.defaults, eps: 0, ...extra })

describe("rae (SPIRAL role-conditioned EMA baseline)", () => {
  const batch = [[{ rewards: [0, 1], role: "a" }, { rewards: [-1], role: "b" }, { rewards: [2], role: "a" }]]
  it("A = R − b_role with the baseline before the update; b ← d·b + (1 − d)·R (d = 0.5, baselines from 0)", () => {
    // traj0: R 1, b_a 0 → A 1, b_a 0.5; traj1: R −1, b_b 0 → A −1, b_b −0.5; traj2: R 2, b_a 0.5 → A 1.5, b_a 1.25
    const { advantages, baselines } = Advantages.raeWithBaselines(batch, o({ emaDecay: 0.5 }))
    close(arr(advantages[0]![0]!), [1, 1])
    close(arr(advantages[0]![1]!), [-1])
    close(arr(advantages[0]![2]!), [1.5])
    expect(baselines.get("a")).toBeCloseTo(1.25, 12)
    expect(baselines.get("b")).toBeCloseTo(-0.5, 12)
  })
  it("continues from the given baselines without modifying them (default decay 0.95)", () => {
    const before = new Map([["a", 1]])
    const { advantages, baselines } = Advantages.raeWithBaselines(batch, o({ roleBaselines: before }))
    // traj0: A = 1 − 1 = 0, b_a = 1; traj2: A = 2 − 1 = 1, b_a = 0.95 + 0.1 = 1.05
    close(arr(advantages[0]![0]!), [0, 0])
    close(arr(advantages[0]![2]!), [1])
    expect(baselines.get("a")).toBeCloseTo(1.05, 12)
    expect(before.get("a")).toBe(1)
  })
  it("rejects an emaDecay outside [0, 1] naming the value", () => {
    expect(() => Advantages.rae(batch, o({ emaDecay: 1.5 }))).toThrow(/emaDecay.*|1\.5/)
  })
})

describe("mars (turn-level return-to-go, per-agent normalization)", () => {
  it("γ = 0.5: role a's turns G = [0.5, 1, −0.5, −1] → mean 0, std √(2.5/3) → ±0.5477, ±1.0954; role b alone → 0", () => {
    const batch = [[{ rewards: [0, 1], role: "a" }, { rewards: [0, -1], role: "a" }, { rewards: [7], role: "b" }]]
    const [g] = Advantages.mars(batch, o({ gamma: 0.5 }))
    const s = Math.sqrt(2.5 / 3)
    close(arr(g![0]!), [0.5 / s, 1 / s])
    close(arr(g![1]!), [-0.5 / s, -1 / s])
    close(arr(g![2]!), [0])
  })
})

describe("at-grpo (agent- and turn-wise groups)", () => {
  it("γ = 1: (a, turn 0) G = [1, −1, 3] → [0, −1, 1]; (a, turn 1) G = [1, −1] → ±0.7071; a singleton (b, 0) → 0", () => {
    const batch = [[{ rewards: [0, 1], role: "a" }, { rewards: [0, -1], role: "a" }, { rewards: [3], role: "a" }, { rewards: [5], role: "b" }]]
    const [g] = Advantages.atGrpo(batch, o({ gamma: 1 }))
    close(arr(g![0]!), [0, Math.SQRT1_2])
    close(arr(g![1]!), [-1, -Math.SQRT1_2])
    close(arr(g![2]!), [1])
    close(arr(g![3]!), [0])
  })
})

describe("registry and conformance", () => {
  it("rae, mars, at-grpo are registered built-ins and pass the estimator check (mars, at-grpo also batch independence)", () => {
    for (const name of ["rae", "mars", "at-grpo"]) expect(Advantages.builtinNames).toContain(name)
    expect(CheckEstimator.checkRegistered("rae").estimator).toBe("rae")
    expect(CheckEstimator.checkRegistered("mars", { properties: ["batchIndependence"] }).properties).toContain("batchIndependence")
    expect(CheckEstimator.checkRegistered("at-grpo", { properties: ["batchIndependence"] }).properties).toContain("batchIndependence")
  })
})

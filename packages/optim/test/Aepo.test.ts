import { describe, expect, it } from "@effect/vitest"
import * as Advantages from "../src/Advantages.js"
import * as CheckEstimator from "../src/CheckEstimator.js"
import * as Aepo from "../src/estimators/Aepo.js"

describe("Aepo", () => {
  it("passes the conformance check with its declared entropies signal", () => {
    expect(Advantages.get("aepo")).toBe(Aepo.estimator)
    CheckEstimator.checkRegistered("aepo", { properties: ["batchIndependence"] })
  })

  it("entropy-aware advantage A^acc · (1 + α Â^ΔH) (hand-computed)", () => {
    // A^acc = ±0.5/(√0.5 + ε); ΔH = [0, 1] and [0, −0.5], normalized over the four steps (mean 0.125, std 0.629153)
    const adv = Aepo.estimator([[{ rewards: [0, 1], entropies: [1, 2] }, { rewards: [0, 0], entropies: [1, 0.5] }]], Advantages.defaults)[0]!
    const expected = [[0.66496, 1.002129], [-0.66496, -0.496375]]
    adv.forEach((a, i) => a.forEach((x, t) => expect(x).toBeCloseTo(expected[i]![t]!, 5)))
  })

  it("entropy-balanced clipping keeps a rescaled gradient on high-entropy clipped steps only", () => {
    expect(Aepo.balancedClipSlope(1, 1.1, 0.2, true)).toBeCloseTo(-1.1, 12) // inside: −A·r
    expect(Aepo.balancedClipSlope(1, 1.5, 0.2, false)).toBe(0) // PPO: clipped, no gradient
    expect(Aepo.balancedClipSlope(1, 1.3, 0.2, true)).toBeCloseTo(-1.2, 12) // −A(1+ε)
    expect(Aepo.balancedClipSlope(-1, 0.7, 0.2, true)).toBeCloseTo(0.8, 12) // −A(1−ε)
    expect(Aepo.balancedClipSlope(-1, 1.5, 0.2, true)).toBeCloseTo(1.5, 12) // A < 0, r > 1: unclipped term is larger
  })

  it("the preserved gradient stops beyond the outer bound (default 2ε), as PPO's clip", () => {
    expect(Aepo.defaultOuterBound).toBe(2)
    expect(Aepo.balancedClipSlope(1, 1.39, 0.2, true)).toBeCloseTo(-1.2, 12) // |r − 1| = 0.39 ≤ 0.4
    expect(Aepo.balancedClipSlope(1, 1.5, 0.2, true)).toBe(0) // 0.5 > 0.4
    expect(Aepo.balancedClipSlope(-1, 0.5, 0.2, true)).toBe(0)
    expect(Aepo.balancedClipSlope(1, 1.5, 0.2, true, Infinity)).toBeCloseTo(-1.2, 12) // unbounded: the paper's form
    expect(Aepo.balancedClipSlope(1, 1.5, 0.2, true, 0.6)).toBeCloseTo(-1.2, 12)
  })

  it("entropy pre-monitoring splits the rollout budget by the entropy gap", () => {
    expect(Aepo.globalSamples(8, 2, [1, 1])).toBe(6) // 8σ(1) = 5.85
    expect(Aepo.globalSamples(8, 0, [2])).toBe(1) // 8σ(−2) = 0.95
    expect(Aepo.globalSamples(8, 0, [])).toBe(8)
    expect(() => Aepo.globalSamples(0, 0, [])).toThrow(RangeError)
  })
})

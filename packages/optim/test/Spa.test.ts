import { describe, expect, it } from "@effect/vitest"
import * as Advantages from "../src/Advantages.js"
import * as CheckEstimator from "../src/CheckEstimator.js"
import * as Spa from "../src/estimators/Spa.js"

describe("Spa", () => {
  it("passes the conformance check (Monte-Carlo progress from state keys, and with progress estimates)", () => {
    expect(Advantages.get("spa")).toBe(Spa.estimator)
    CheckEstimator.checkRegistered("spa", { properties: ["batchIndependence"] })
    // with progress on every trajectory; a trajectory without it falls back on its state keys, so the missing-signal
    // case is not an error here (the fallback's own input errors are checked above)
    CheckEstimator.checkEstimator(Spa.estimator, { name: "spa", signals: ["progress"], skip: ["invalidInput"], properties: ["batchIndependence"] })
  })

  it("projects progress estimates onto contributions that sum to the outcome", () => {
    expect(Array.from(Spa.contributions({ rewards: [0, 1], progress: [0.2, 0.2] }))).toEqual([0.5, 0.5])
    const c = Spa.contributions({ rewards: [0, 0, 2], progress: [1, -1, 0.5] })
    expect(c[0]! + c[1]! + c[2]!).toBeCloseTo(2, 12)
    expect(c[0]! - c[1]!).toBeCloseTo(2, 12) // differences between steps are kept
  })

  it("Monte-Carlo contributions telescope to each outcome and give hand-computed advantages", () => {
    // V(a) = mean(1, 0) = 0.5, V(b) = 1, V(c) = 0, V(d) = 1; V_0 = 0, V_T = R
    const group = [
      { rewards: [0, 0, 1], stateKeys: ["s0", "a", "b"] },
      { rewards: [0, 0, 0], stateKeys: ["s0", "a", "c"] },
      { rewards: [0, 1], stateKeys: ["s0", "d"] }
    ]
    expect(Spa.groupContributions(group).map((c) => Array.from(c))).toEqual([[0.5, 0.5, 0], [0.5, -0.5, 0], [1, 0]])
    // γ = 1: contribution-to-go [1, .5, 0], [0, −.5, 0], [1, 0]; mean over the 8 steps 0.25, centred (normalize none)
    const adv = Spa.estimator([group], { ...Advantages.defaults, gamma: 1, normalize: "none" })[0]!.map((a) => Array.from(a))
    expect(adv).toEqual([[0.75, 0.25, -0.25], [-0.25, -0.75, -0.25], [0.75, -0.25]])
  })

  it("rejects a group without progress and without state keys", () => {
    expect(() => Spa.estimator([[{ rewards: [1] }, { rewards: [0] }]], Advantages.defaults)).toThrow(Advantages.AdvantageInputError)
  })
})

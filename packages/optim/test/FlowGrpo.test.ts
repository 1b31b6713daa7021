import { describe, expect, it } from "@effect/vitest"
import * as Advantages from "../src/Advantages.js"
import * as CheckEstimator from "../src/CheckEstimator.js"
import * as FlowGrpo from "../src/estimators/FlowGrpo.js"

describe("FlowGrpo", () => {
  it("passes the conformance check for its registered family (group-normalized)", () => {
    expect(Advantages.get("flow-grpo")).toBe(FlowGrpo.estimator)
    expect(CheckEstimator.checkRegistered("flow-grpo").properties).toContain("groupScaleInvariance")
  })

  it("broadcasts the group-normalized last-step outcome to every turn (hand-computed)", () => {
    // outcomes 1, 0, 0 (the −0.1 and 0.5 of earlier steps are not the outcome): mean 1/3, sample std √(1/3)
    const batch = [[{ rewards: [-0.1, 1] }, { rewards: [0, 0] }, { rewards: [0.5, 0] }]]
    const [[a, b, c]] = FlowGrpo.estimator(batch, Advantages.defaults) as [[Float64Array, Float64Array, Float64Array]]
    expect(Array.from(a)).toEqual([a[0], a[0]])
    expect(a[0]).toBeCloseTo(1.1547, 4) // (2/3) / √(1/3)
    expect(b[0]).toBeCloseTo(-0.57735, 4)
    expect(c[1]).toBeCloseTo(-0.57735, 4)
    // GRPO on the returns 0.9, 0, 0.5 differs: 0.961, −1.035, 0.074
    expect(Advantages.get("grpo")(batch, Advantages.defaults)[0]![0]![0]).toBeCloseTo(0.961, 3)
  })
})

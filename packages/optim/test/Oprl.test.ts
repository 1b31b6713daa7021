import { describe, expect, it } from "@effect/vitest"
import * as Advantages from "../src/Advantages.js"
import * as CheckEstimator from "../src/CheckEstimator.js"
import * as Oprl from "../src/estimators/Oprl.js"
import * as StepSignals from "../src/estimators/StepSignals.js"

describe("Oprl", () => {
  it("passes the conformance check with its declared logRatios signal", () => {
    expect(Advantages.get("oprl")).toBe(Oprl.estimator)
    expect(StepSignals.needsOf("oprl")).toEqual(["logRatios"])
    CheckEstimator.checkRegistered("oprl", { properties: ["batchIndependence"] })
  })

  it("implicit step rewards β·log(π/π_ref) plus the episode level (hand-computed)", () => {
    const group = [{ rewards: [0, 1], logRatios: [2, -1] }, { rewards: [0, 0], logRatios: [0, 1] }]
    expect(Array.from(Oprl.stepRewards(group[0]!))).toEqual([0.1, -0.05])
    // normalize none: A^E = ±0.5; step rewards [.1, −.05, 0, .05] centred on 0.025
    const none = Oprl.estimator([group], { ...Advantages.defaults, normalize: "none" })[0]!
    expect(Array.from(none[0]!)[0]).toBeCloseTo(0.575, 12)
    expect(Array.from(none[0]!)[1]).toBeCloseTo(0.425, 12)
    expect(Array.from(none[1]!)[0]).toBeCloseTo(-0.525, 12)
    expect(Array.from(none[1]!)[1]).toBeCloseTo(-0.475, 12)
    // normalize std: A^E = ±0.5/(√0.5 + ε); A^S = deviation / (sample std 0.0645497 + ε)
    const std = Oprl.estimator([group], Advantages.defaults)[0]!
    expect(std[0]![0]).toBeCloseTo(1.868983, 5)
    expect(std[0]![1]).toBeCloseTo(-0.454771, 5)
    expect(std[1]![0]).toBeCloseTo(-1.094398, 5)
    expect(std[1]![1]).toBeCloseTo(-0.319813, 5)
  })

  it("rejects missing or non-finite log-ratios and a bad β with AdvantageInputError", () => {
    expect(() => Oprl.estimator([[{ rewards: [1] }, { rewards: [0], logRatios: [0] }]], Advantages.defaults)).toThrow(/missing logRatios/)
    expect(() => Oprl.estimator([[{ rewards: [1], logRatios: [NaN] }]], Advantages.defaults)).toThrow(Advantages.AdvantageInputError)
    expect(() => Oprl.make(0)).toThrow(/beta/)
  })
})

import { describe, expect, it } from "@effect/vitest"
import * as Advantages from "../src/Advantages.js"
import * as CheckEstimator from "../src/CheckEstimator.js"
import * as Igpo from "../src/estimators/Igpo.js"

describe("Igpo", () => {
  it("passes the conformance check with its declared goalLogProbs signal", () => {
    expect(Advantages.get("igpo")).toBe(Igpo.estimator)
    CheckEstimator.checkRegistered("igpo", { properties: ["batchIndependence"] })
  })

  it("turn rewards are the increase in the goal's probability, the outcome last (hand-set sequence)", () => {
    const tr = { rewards: [0, 0, 1], goalLogProbs: [Math.log(0.1), Math.log(0.4), Math.log(0.5)] }
    const r = Array.from(Igpo.turnRewards(tr))
    expect(r[0]).toBeCloseTo(0.3, 12)
    expect(r[1]).toBeCloseTo(0.1, 12)
    expect(r[2]).toBe(1)
    // second trajectory: P 0.5 → 0.25, outcome 0: turn rewards [−0.25, 0]; all five centred on 0.23 (normalize none),
    // then summed to go with γ = 1
    const adv = Igpo.estimator([[tr, { rewards: [0, 0], goalLogProbs: [Math.log(0.5), Math.log(0.25)] }]], { ...Advantages.defaults, gamma: 1, normalize: "none" })[0]!
    const expected = [[0.71, 0.64, 0.77], [-0.71, -0.23]]
    adv.forEach((a, i) => a.forEach((x, t) => expect(x).toBeCloseTo(expected[i]![t]!, 12)))
  })

  it("rejects a positive log-probability or a missing sequence", () => {
    expect(() => Igpo.estimator([[{ rewards: [1], goalLogProbs: [0.1] }]], Advantages.defaults)).toThrow(/goalLogProbs/)
    expect(() => Igpo.estimator([[{ rewards: [1] }]], Advantages.defaults)).toThrow(/missing goalLogProbs/)
  })

  it("recognizes a policy that scores the goal", () => {
    expect(Igpo.hasGoalLogProb({ goalLogProb: () => -1 })).toBe(true)
    expect(Igpo.hasGoalLogProb({ encode: () => 0 })).toBe(false)
    expect(new Igpo.GoalLogProbUnavailableError({ estimator: "igpo", policy: "DRRN" }).message).toMatch(/DRRN policy does not expose/)
  })
})

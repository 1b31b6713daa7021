import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import * as Advantages from "../src/Advantages.js"

const o = Advantages.defaults
const arr = (a: Float64Array) => Array.from(a)
const close = (actual: ReadonlyArray<number>, expected: ReadonlyArray<number>, digits = 4) => {
  expect(actual.length).toBe(expected.length)
  actual.forEach((x, k) => expect(x).toBeCloseTo(expected[k]!, digits))
}
const outcome = (...rs: Array<number>) => rs.map((r) => ({ rewards: [0, r] }))

describe("discounted returns and moments", () => {
  it("R_t = r_t + γ R_{t+1}: [1, 0, 2] with γ = 0.5 → [1 + 0 + 0.5·0.5·2, 0 + 0.5·2, 2] = [1.5, 1, 2]", () => {
    close(arr(Advantages.discountedReturns([1, 0, 2], 0.5)), [1.5, 1, 2])
  })
  it("meanStd uses the sample std (n − 1): [1, 0, 0, 1] → mean 0.5, std √(1/3)", () => {
    const { mean, std } = Advantages.meanStd([1, 0, 0, 1])
    expect(mean).toBe(0.5)
    expect(std).toBeCloseTo(Math.sqrt(1 / 3), 12)
  })
})

describe("GRPO", () => {
  it("returns [1, 0, 0, 1]: mean 0.5, std √(1/3) = 0.57735 → ±0.5/0.57735 = ±0.86603, broadcast to every step", () => {
    const [g] = Advantages.grpo([outcome(1, 0, 0, 1)], o)
    close(arr(g![0]!), [0.86603, 0.86603])
    close(arr(g![1]!), [-0.86603, -0.86603])
    close(arr(g![3]!), [0.86603, 0.86603])
  })
  it("all-equal returns give exactly 0 (no NaN)", () => {
    const [g] = Advantages.grpo([outcome(1, 1, 1)], o)
    for (const a of g!) expect(arr(a)).toEqual([0, 0])
  })
  it("a singleton group gives 0", () => {
    expect(arr(Advantages.grpo([[{ rewards: [5] }]], o)[0]![0]!)).toEqual([0])
  })
  it("groups are normalized independently", () => {
    const r = Advantages.grpo([outcome(1, 0), outcome(10, 0)], o)
    // each group: mean ½R, std R/√2 → ±(R/2)/(R/√2) = ±0.70711
    close(arr(r[0]![0]!), [0.70711, 0.70711])
    close(arr(r[1]![0]!), [0.70711, 0.70711])
  })
})

describe("Dr. GRPO", () => {
  it("no std division: returns [3, 1] → [3 − 2, 1 − 2] = [1, −1]", () => {
    const [g] = Advantages.drGrpo([outcome(3, 1)], o)
    expect(arr(g![0]!)).toEqual([1, 1])
    expect(arr(g![1]!)).toEqual([-1, -1])
  })
})

describe("RLOO", () => {
  it("returns [1, 2, 6]: 1 − (2+6)/2 = −3, 2 − (1+6)/2 = −1.5, 6 − (1+2)/2 = 4.5", () => {
    const [g] = Advantages.rloo([outcome(1, 2, 6)], o)
    close(arr(g![0]!), [-3, -3], 12)
    close(arr(g![1]!), [-1.5, -1.5], 12)
    close(arr(g![2]!), [4.5, 4.5], 12)
  })
  it("all-equal returns and singletons give 0", () => {
    expect(arr(Advantages.rloo([outcome(2, 2)], o)[0]![1]!)).toEqual([0, 0])
    expect(arr(Advantages.rloo([outcome(2)], o)[0]![0]!)).toEqual([0, 0])
  })
})

describe("REINFORCE++", () => {
  it("discounted returns normalized over the whole batch", () => {
    // γ = 0.5: [0, 1] → G = [0.5, 1]; [1] → G = [1]. All G: [0.5, 1, 1], mean 0.83333,
    // sample var ((−1/3)² + 2·(1/6)²)/2 = 1/12, std 0.288675 → [−1.1547, 0.57735, 0.57735]
    const r = Advantages.reinforcePlusPlus([[{ rewards: [0, 1] }], [{ rewards: [1] }]], { ...o, gamma: 0.5 })
    close(arr(r[0]![0]!), [-1.1547, 0.57735], 4)
    close(arr(r[1]![0]!), [0.57735], 4)
  })
  it("an all-zero batch gives zeros, not NaN", () => {
    expect(arr(Advantages.reinforcePlusPlus([[{ rewards: [0, 0] }]], o)[0]![0]!)).toEqual([0, 0])
  })
})

describe("GiGPO", () => {
  // γ = 0.5. τ1: s0 → s1, rewards [0, 1] (R = 1; G = [0.5, 1])
  //          τ2: s0 → s2 → s1, rewards [0, 0, 1] (R = 1; G = [0.25, 0.5, 1])
  //          τ3: s0 → s2, rewards [0, 0] (R = 0; G = [0, 0])
  const group = [
    { rewards: [0, 1], stateKeys: ["s0", "s1"] },
    { rewards: [0, 0, 1], stateKeys: ["s0", "s2", "s1"] },
    { rewards: [0, 0], stateKeys: ["s0", "s2"] }
  ]
  const opts = { ...o, gamma: 0.5 }

  it("step level: anchor groups s0 {0.5, 0.25, 0} → [1, 0, −1]; s1 {1, 1} → 0; s2 {0.5, 0} → ±0.70711", () => {
    // s0: mean 0.25, sample std √(0.125/2) = 0.25; s2: mean 0.25, std √(0.125/1) = 0.35355
    const [g] = Advantages.gigpoStep([group], opts)
    close(arr(g![0]!), [1, 0])
    close(arr(g![1]!), [0, 0.70711, 0])
    close(arr(g![2]!), [-1, -0.70711])
  })

  it("A = A^E + ω·A^S: A^E = (R − 2/3)/0.57735 = [0.57735, 0.57735, −1.1547]", () => {
    const [g] = Advantages.gigpo([group], opts)
    close(arr(g![0]!), [1.57735, 0.57735])
    close(arr(g![1]!), [0.57735, 1.28446, 0.57735])
    close(arr(g![2]!), [-2.1547, -1.86181], 4)
  })

  it("ω scales the step level; normalize 'none' centres without dividing (F_norm = 1)", () => {
    const [g] = Advantages.gigpo([group], { ...opts, omega: 0.5, normalize: "none" })
    // A^E = R − 2/3 = [1/3, 1/3, −2/3]; A^S: s0 [0.25, 0, −0.25], s2 [0.25, −0.25]
    close(arr(g![0]!), [1 / 3 + 0.125, 1 / 3])
    close(arr(g![1]!), [1 / 3, 1 / 3 + 0.125, 1 / 3])
    close(arr(g![2]!), [-2 / 3 - 0.125, -2 / 3 - 0.125])
  })

  it("singleton anchor groups give A^S = 0, so A = A^E", () => {
    const [g] = Advantages.gigpo([[{ rewards: [0, 1], stateKeys: ["a", "b"] }, { rewards: [0, 0], stateKeys: ["c", "d"] }]], opts)
    close(arr(g![0]!), [0.70711, 0.70711])
    close(arr(g![1]!), [-0.70711, -0.70711])
  })

  it("anchor groups never span two task groups", () => {
    const r = Advantages.gigpoStep([[{ rewards: [1], stateKeys: ["s"] }], [{ rewards: [0], stateKeys: ["s"] }]], opts)
    expect(arr(r[0]![0]!)).toEqual([0])
    expect(arr(r[1]![0]!)).toEqual([0])
  })

  it("all-equal returns everywhere give exactly 0", () => {
    const [g] = Advantages.gigpo([[{ rewards: [0, 1], stateKeys: ["a", "b"] }, { rewards: [0, 1], stateKeys: ["a", "b"] }]], opts)
    expect(arr(g![0]!)).toEqual([0, 0])
    expect(arr(g![1]!)).toEqual([0, 0])
  })

  it("a repeated state within one trajectory forms an anchor group with itself", () => {
    // loop: s0 → s0 → end, rewards [0, 1], γ = 0.5: G = [0.5, 1] → both in anchor group s0: [−0.70711, 0.70711]
    const [g] = Advantages.gigpoStep([[{ rewards: [0, 1], stateKeys: ["s0", "s0"] }]], opts)
    close(arr(g![0]!), [-0.70711, 0.70711])
  })
})

describe("GAE through the registry", () => {
  it("rewards [1, 1], values [0.5, 0.5], γ = λ = 1, terminal: δ = [1, 0.5], A = [1.5, 0.5]", () => {
    const [g] = Advantages.get("gae")([[{ rewards: [1, 1], values: [0.5, 0.5] }]], { ...o, gamma: 1, lambda: 1 })
    close(arr(g![0]!), [1.5, 0.5])
  })
})

describe("errors", () => {
  const fails = (f: () => unknown) => {
    try {
      f()
    } catch (e) {
      return e as Advantages.AdvantageInputError
    }
    throw new Error("did not throw")
  }
  it("empty batch, empty group, empty trajectory", () => {
    expect(fails(() => Advantages.grpo([], o)).reason).toBe("emptyBatch")
    expect(fails(() => Advantages.grpo([[]], o)).reason).toBe("emptyGroup")
    expect(fails(() => Advantages.rloo([[{ rewards: [] }]], o)).reason).toBe("emptyTrajectory")
  })
  it("NaN reward names group, trajectory, step and value", () => {
    const e = fails(() => Advantages.grpo([outcome(1), [{ rewards: [0, 0] }, { rewards: [0, 1, Number.NaN] }]], o))
    expect(e._tag).toBe("AdvantageInputError")
    expect(e.reason).toBe("nonFinite")
    expect([e.group, e.trajectory, e.step]).toEqual([1, 1, 2])
    expect(Number.isNaN(e.value)).toBe(true)
    expect(e.message).toContain("group 1, trajectory 1, step 2")
  })
  it("mismatched state keys, missing state keys (gigpo), missing values (gae)", () => {
    expect(fails(() => Advantages.grpo([[{ rewards: [0, 1], stateKeys: ["a"] }]], o)).reason).toBe("lengthMismatch")
    expect(fails(() => Advantages.gigpo([[{ rewards: [0, 1] }]], o)).reason).toBe("missingStateKeys")
    expect(fails(() => Advantages.gae([[{ rewards: [0, 1] }]], o)).reason).toBe("missingValues")
  })
  it("get: unknown name → UnknownEstimatorError listing the known ones", () => {
    // every registered name, sorted (the built-ins and any estimator module loaded in this worker, e.g. flow-grpo)
    expect(Advantages.builtinNames).toEqual(["at-grpo", "dr-grpo", "gae", "gigpo", "grpo", "mars", "rae", "reinforce++", "rloo"])
    for (const n of Advantages.builtinNames) expect(Advantages.names()).toContain(n)
    expect(() => Advantages.get("ppo2")).toThrow(`known: ${Advantages.names().join(", ")}`)
  })
  it.effect("compute fails in the error channel", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(Advantages.compute("grpo", []))
      expect(Exit.isFailure(exit)).toBe(true)
      const ok = yield* Advantages.compute("dr-grpo", [outcome(3, 1)])
      expect(arr(ok[0]![0]!)).toEqual([1, 1])
    }))
})

describe("registry", () => {
  it("has the built-ins and takes user estimators", () => {
    expect(Advantages.names()).toEqual(expect.arrayContaining(["gae", "grpo", "dr-grpo", "rloo", "reinforce++", "gigpo"]))
    const constant: Advantages.Estimator = (batch) => batch.map((g) => g.map((t) => new Float64Array(t.rewards.length).fill(7)))
    const unregister = Advantages.register("constant-test", constant)
    expect(arr(Advantages.get("constant-test")([outcome(1)], o)[0]![0]!)).toEqual([7, 7])
    unregister()
    expect(() => Advantages.get("constant-test")).toThrow(Advantages.UnknownEstimatorError)
  })
})

describe("the one rule of group-relative advantages (kernels' GroupNorm: sample std, one-member group → 0)", () => {
  // a batch of three groups: {5} (one member), {1, 3} (n = 2), {1, 2, 6} (n = 3); one step each, so R_i = r_i
  const one = (...rs: Array<number>) => rs.map((r) => ({ rewards: [r] }))
  const batch = [one(5), one(1, 3), one(1, 2, 6)]
  const first = (r: Advantages.Result) => r.map((g) => g.map((a) => a[0]!))

  it("n = 1 gives 0 in GRPO, Dr. GRPO, RLOO and GiGPO (episode and step level)", () => {
    for (const estimator of [Advantages.grpo, Advantages.drGrpo, Advantages.rloo]) expect(first(estimator([one(5)], o))).toEqual([[0]])
    // GiGPO: one trajectory, two steps in distinct states: both levels are one-member groups
    const g = Advantages.gigpo([[{ rewards: [2, 3], stateKeys: ["a", "b"] }]], o)
    expect(arr(g[0]![0]!)).toEqual([0, 0])
    // n = 1 inside a batch with other groups changes nothing for the others
    expect(first(Advantages.grpo(batch, o))[0]).toEqual([0])
    expect(first(Advantages.rloo(batch, o))[0]).toEqual([0])
  })

  it("GRPO, n = 2 and n = 3, by hand: {1, 3}: mean 2, std √2 → ∓1/(√2 + ε); {1, 2, 6}: mean 3, std √7 → (−2, −1, 3)/(√7 + ε)", () => {
    const e = o.eps
    const s2 = Math.SQRT2 + e
    const s7 = Math.sqrt(7) + e
    const r = first(Advantages.grpo(batch, o))
    close(r[1]!, [-1 / s2, 1 / s2], 12)
    close(r[2]!, [-2 / s7, -1 / s7, 3 / s7], 12)
  })

  it("Dr. GRPO, n = 2 and n = 3, by hand: R − mean → (−1, 1) and (−2, −1, 3)", () => {
    expect(first(Advantages.drGrpo(batch, o))).toEqual([[0], [-1, 1], [-2, -1, 3]])
  })

  it("RLOO, n = 2 and n = 3, by hand: 1 − 3 = −2, 3 − 1 = 2; 1 − 4 = −3, 2 − 3.5 = −1.5, 6 − 1.5 = 4.5", () => {
    expect(first(Advantages.rloo(batch, o))).toEqual([[0], [-2, 2], [-3, -1.5, 4.5]])
  })

  it("GiGPO step groups, n = 2 and n = 3, by hand (γ = 1, ω = 1, normalize none)", () => {
    // three trajectories of one step each, all from state s: the step group is {1, 2, 6} as the episode group, so
    // A = A^E + A^S = 2 (R − mean) = (−4, −2, 6); a second state t visited by one trajectory only adds 0
    const group = [
      { rewards: [1], stateKeys: ["s"] },
      { rewards: [2], stateKeys: ["s"] },
      { rewards: [0, 6], stateKeys: ["t", "s"] }
    ]
    const r = Advantages.gigpo([group], { ...o, gamma: 1, normalize: "none" })
    // returns 1, 2, 6 (mean 3): A^E = −2, −1, 3; step values: s {1, 2, 6} (mean 3) → −2, −1, 3; t {6} → 0
    expect(arr(r[0]![0]!)).toEqual([-4])
    expect(arr(r[0]![1]!)).toEqual([-2])
    expect(arr(r[0]![2]!)).toEqual([3, 6])
  })

  it("REINFORCE++ normalizes the whole batch with the sample std: steps {5, 1, 3} → mean 3, std 2 → (2, −2, 0)/(2 + ε)", () => {
    const r = Advantages.reinforcePlusPlus([one(5), one(1, 3)], o)
    close(first(r).flat(), [2 / (2 + o.eps), -2 / (2 + o.eps), 0], 12)
  })
})

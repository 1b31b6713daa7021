import { InvalidOptionError, Rng } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import * as DrrnPolicy from "../src/text/DrrnPolicy.js"
import * as DrrnValue from "../src/text/DrrnValue.js"

const small = () => DrrnPolicy.make({ buckets: 128, hidden: 8, embed: 4, grid: true, rng: Rng.make(3) })
const at = (observation: string): DrrnPolicy.Input => ({ task: "push the box onto the target.", observation, admissible: ["Up", "Down", "Left", "Right"] })
const states: ReadonlyArray<readonly [string, number]> = [["#__\n_PX\n_O#", 10.7], ["#__\n__P\nXO#", -2], ["#P_\n_X_\nO_#", 4.5]]

describe("DrrnValue", () => {
  it("fits Monte Carlo targets of distinct states (held-out R² near 1) and leaves the policy untouched", () => {
    const policy = small()
    const before = Float32Array.from(policy.params)
    const samples = Array.from({ length: 60 }, (_, i) => ({ input: at(states[i % 3]![0]), target: states[i % 3]![1] }))
    const fit = DrrnValue.fit(policy, samples, { epochs: 60, learningRate: 0.05, l2: 0, rng: Rng.make(1) })
    expect(fit.trainSamples + fit.validSamples).toBe(60)
    expect(fit.validSamples).toBe(6)
    for (const [obs, target] of states) expect(DrrnValue.predict(fit.head, at(obs))).toBeCloseTo(target, 1)
    expect(fit.validR2).toBeGreaterThan(0.99)
    expect(fit.trainMse).toBeLessThan(0.01)
    expect(Array.from(policy.params)).toEqual(Array.from(before))
    // a zero head predicts 0 everywhere
    expect(DrrnValue.predict(DrrnValue.make(policy), at(states[0]![0]))).toBe(0)
  })

  it("bad input is a typed error naming it", () => {
    const policy = small()
    const ok = { input: at(states[0]![0]), target: 1 }
    const option = (f: () => unknown): unknown => {
      try {
        f()
      } catch (e) {
        return e instanceof InvalidOptionError ? e.option : e
      }
      return undefined
    }
    expect(option(() => DrrnValue.fit(policy, []))).toBe("samples")
    expect(option(() => DrrnValue.fit(policy, [ok, { input: ok.input, target: Number.NaN }]))).toBe("samples[1].target")
    expect(option(() => DrrnValue.fit(policy, [ok], { epochs: 0 }))).toBe("epochs")
    expect(option(() => DrrnValue.fit(policy, [ok], { validFraction: 1 }))).toBe("validFraction")
    expect(option(() => DrrnValue.fit(policy, [ok], { learningRate: Number.NaN }))).toBe("learningRate")
  })
})

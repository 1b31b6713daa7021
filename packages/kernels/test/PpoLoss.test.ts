import { Rng } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { PpoLoss, Softmax } from "../src/index.js"
import { Backend } from "../src/tfjs.js"
import { close, thrown } from "./helpers.js"

const one = {
  batch: 1,
  numActions: 2,
  logits: [0, 0],
  actions: [0],
  oldLogProbs: [Math.log(0.5)],
  advantages: [2],
  values: [1],
  oldValues: [0],
  returns: [0]
}

describe("PpoLoss (hand-computed)", () => {
  it("ratio 1: pg = −A, value loss clipped branch loses, gradients −1, +1 and 0.5", () => {
    const r = PpoLoss.lossAndGradientSync(one)
    expect(r.policyLoss).toBeCloseTo(-2, 12)
    // un = (1 − 0)² = 1, clipped = (0 + 0.2 − 0)² = 0.04: max = 1, v_loss = 0.5
    expect(r.valueLoss).toBeCloseTo(0.5, 12)
    expect(r.entropy).toBeCloseTo(Math.LN2, 12)
    expect(r.loss).toBeCloseTo(-2 - 0.01 * Math.LN2 + 0.5 * 0.5, 12)
    expect([r.approxKl, r.clipFraction]).toEqual([0, 0])
    // g = −A·r = −2; ∂/∂z0 = g(1 − ½) = −1, ∂/∂z1 = g(0 − ½) = 1 (the entropy term is 0 at the uniform policy)
    close(r.dLogits, [-1, 1], 0, 1e-12)
    close(r.dValues, [0.5], 0, 1e-12)
  })

  it("ratio e^0.5 > 1 + ε with A > 0: the clipped branch wins and the policy gradient is 0", () => {
    const r = PpoLoss.lossAndGradientSync({ ...one, oldLogProbs: [Math.log(0.5) - 0.5] })
    expect(r.policyLoss).toBeCloseTo(-2 * 1.2, 12)
    expect(r.clipFraction).toBe(1)
    expect(r.approxKl).toBeCloseTo(Math.exp(0.5) - 1 - 0.5, 12)
    close(r.dLogits, [0, 0], 0, 1e-12)
  })

  it("value clipping: V moved past the clip range toward the target is not rewarded", () => {
    // old 0, V = 1, R = 2: un = 1, clipped = (0.2 − 2)² = 3.24 wins and is flat in V (|V − old| > ε): ∂/∂V = 0
    const r = PpoLoss.lossAndGradientSync({ ...one, returns: [2] })
    expect(r.valueLoss).toBeCloseTo(0.5 * 3.24, 12)
    close(r.dValues, [0], 0, 1e-12)
    // without clipping: ½(V − R)², ∂/∂V = vfCoef · (V − R) = −0.5
    close(PpoLoss.lossAndGradientSync({ ...one, returns: [2], clipVloss: false }).dValues, [-0.5], 0, 1e-12)
  })
})

const randomInput = (seed: number, B: number, A: number): PpoLoss.PpoLossInput => {
  const rng = Rng.make(seed)
  const logits = Float64Array.from({ length: B * A }, () => rng.normal(0, 1.5))
  const mask = Float64Array.from({ length: B * A }, () => (rng.random() < 0.7 ? 1 : 0))
  const actions = new Float64Array(B)
  for (let b = 0; b < B; b++) {
    const a = rng.integers(A)
    mask[b * A + a] = 1
    actions[b] = a
  }
  const lp = new Float64Array(B * A)
  for (let b = 0; b < B; b++) Softmax.rowInto(logits, mask, A, b, lp)
  return {
    batch: B,
    numActions: A,
    logits,
    mask,
    actions,
    oldLogProbs: Float64Array.from(actions, (a, b) => lp[b * A + a]! + rng.normal(0, 0.3)),
    advantages: Float64Array.from({ length: B }, () => rng.normal()),
    values: Float64Array.from({ length: B }, () => rng.normal()),
    oldValues: Float64Array.from({ length: B }, () => rng.normal()),
    returns: Float64Array.from({ length: B }, () => rng.normal()),
    entCoef: 0.05
  }
}

describe("PpoLoss gradients", () => {
  it("closed form = central finite differences (doubles, away from kinks)", () => {
    const input = randomInput(1, 12, 5)
    const r = PpoLoss.lossAndGradientSync(input)
    const h = 1e-6
    const logits = Float64Array.from(input.logits as Float64Array)
    for (let j = 0; j < logits.length; j++) {
      const x = logits[j]!
      logits[j] = x + h
      const up = PpoLoss.lossAndGradientSync({ ...input, logits }).loss
      logits[j] = x - h
      const down = PpoLoss.lossAndGradientSync({ ...input, logits }).loss
      logits[j] = x
      expect(Math.abs((up - down) / (2 * h) - r.dLogits[j]!)).toBeLessThan(1e-7)
    }
    const values = Float64Array.from(input.values as Float64Array)
    for (let b = 0; b < values.length; b++) {
      const x = values[b]!
      values[b] = x + h
      const up = PpoLoss.lossAndGradientSync({ ...input, values }).loss
      values[b] = x - h
      const down = PpoLoss.lossAndGradientSync({ ...input, values }).loss
      values[b] = x
      expect(Math.abs((up - down) / (2 * h) - r.dValues[b]!)).toBeLessThan(1e-7)
    }
  })

  it.effect("tfjs autodiff (tf.valueAndGrads on wasm) = closed form; masked logits get 0", () =>
    Effect.gen(function* () {
      const input = randomInput(2, 40, 6)
      const ref = PpoLoss.lossAndGradientSync(input)
      const got = yield* PpoLoss.lossAndGradient(input, { engine: "tfjs" })
      expect([got.implementation, got.backendName]).toEqual(["tfjs", "wasm"])
      expect(got.output.loss).toBeCloseTo(ref.loss, 5)
      close(got.output.dLogits, ref.dLogits, 1e-3, 2e-6)
      close(got.output.dValues, ref.dValues, 1e-4, 1e-6)
      for (let k = 0; k < ref.dLogits.length; k++) if (input.mask![k] === 0) expect(got.output.dLogits[k]).toBe(0)
    }).pipe(Effect.provide(Backend.layerWith({ force: "wasm" }))))

  it("lossAndGradientInto = lossAndGradientSync bit for bit, into reused, longer buffers (masked entries reset to 0)", () => {
    const n = 40 * 6
    const buffers = { logProbs: new Float64Array(n + 5), dLogits: new Float64Array(n + 5).fill(7), dValues: new Float64Array(45).fill(7) }
    for (const seed of [3, 4]) {
      const input = randomInput(seed, 40, 6)
      const ref = PpoLoss.lossAndGradientSync(input)
      const parts = PpoLoss.lossAndGradientInto(input, buffers)
      const { dLogits, dValues, ...scalars } = ref
      expect(parts).toEqual(scalars)
      expect(Array.from(buffers.dLogits.subarray(0, n))).toEqual(Array.from(dLogits))
      expect(Array.from(buffers.dValues.subarray(0, 40))).toEqual(Array.from(dValues))
      expect(buffers.dLogits[n]).toBe(7)
    }
    // untrusted arrays are not checked: a NaN advantage gives a NaN loss instead of an error; short buffers throw
    expect(PpoLoss.lossAndGradientInto({ ...one, advantages: [Number.NaN] }, buffers).loss).toBeNaN()
    const short = thrown(() => PpoLoss.lossAndGradientInto(one, { ...buffers, dLogits: new Float64Array(1) }))
    expect([short.input, short.reason]).toEqual(["dLogits", "shape"])
  })

  it("bad input: masked action, action out of range, NaN advantage", () => {
    expect(thrown(() => PpoLoss.lossAndGradientSync({ ...one, mask: [0, 1] })).detail).toBe("action 0 at index 0 is masked (invalid)")
    expect(thrown(() => PpoLoss.lossAndGradientSync({ ...one, actions: [2] })).detail).toBe("expected an integer in [0, 2), got 2 at index 0")
    const logit = thrown(() => PpoLoss.lossAndGradientSync({ ...one, logits: [0, Infinity] }))
    expect([logit.input, logit.reason, logit.detail]).toEqual(["logits", "non-finite", "Infinity at [0, 1] (a valid action)"])
    const nan = thrown(() => PpoLoss.lossAndGradientSync({ ...one, advantages: [Number.NaN] }))
    expect([nan.kernel, nan.input, nan.reason]).toEqual(["PpoLoss", "advantages", "non-finite"])
  })
})

import { Rng } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import { Softmax } from "../src/index.js"
import { close, thrown } from "./helpers.js"

describe("Softmax (hand-computed)", () => {
  it("uniform row, masked row, one valid action", () => {
    const { logProbs, entropy } = Softmax.logSoftmaxSync({
      batch: 3,
      numActions: 3,
      logits: [0, 0, 0, 0, 0, 5, 7, -1e30, Number.NaN],
      mask: [1, 1, 1, 1, 1, 0, 1, 0, 0]
    })
    const l3 = -Math.log(3)
    const l2 = -Math.log(2)
    close(logProbs, [l3, l3, l3, l2, l2, -Infinity, 0, -Infinity, -Infinity])
    close(entropy, [Math.log(3), Math.log(2), 0])
  })

  it("logits [0, ln 3] give probabilities [1/4, 3/4]", () => {
    const { logProbs, entropy } = Softmax.logSoftmaxSync({ batch: 1, numActions: 2, logits: [0, Math.log(3)] })
    close(logProbs, [Math.log(0.25), Math.log(0.75)])
    close(entropy, [-(0.25 * Math.log(0.25) + 0.75 * Math.log(0.75))])
  })

  it("is shift-invariant and stable for huge logits", () => {
    const { logProbs } = Softmax.logSoftmaxSync({ batch: 1, numActions: 2, logits: [1000, 1000 + Math.log(3)] })
    close(logProbs, [Math.log(0.25), Math.log(0.75)])
  })
})

describe("Softmax (properties, 200 random rows)", () => {
  it("probabilities of valid actions sum to 1, masked ones are −∞, 0 ≤ H ≤ log #valid", () => {
    const rng = Rng.make(11)
    const B = 200
    const A = 9
    const logits = Float32Array.from({ length: B * A }, () => rng.normal(0, 4))
    const mask = Float32Array.from({ length: B * A }, () => (rng.random() < 0.6 ? 1 : 0))
    for (let b = 0; b < B; b++) mask[b * A + rng.integers(A)] = 1
    const { logProbs, entropy } = Softmax.logSoftmaxSync({ batch: B, numActions: A, logits, mask })
    for (let b = 0; b < B; b++) {
      let sum = 0
      let valid = 0
      for (let a = 0; a < A; a++) {
        if (mask[b * A + a] === 0) expect(logProbs[b * A + a]).toBe(-Infinity)
        else {
          valid++
          sum += Math.exp(logProbs[b * A + a]!)
        }
      }
      expect(Math.abs(sum - 1)).toBeLessThan(1e-5)
      expect(entropy[b]).toBeGreaterThanOrEqual(-1e-6)
      expect(entropy[b]).toBeLessThanOrEqual(Math.log(valid) + 1e-5)
    }
  })
})

describe("Softmax (bad input)", () => {
  it("a row with no valid action is an empty segment; NaN in a valid logit; mask shape", () => {
    const empty = thrown(() => Softmax.logSoftmaxSync({ batch: 2, numActions: 2, logits: [0, 0, 0, 0], mask: [1, 0, 0, 0] }))
    expect(empty.message).toBe("LogSoftmax on typed-array: input mask [2, 2]: empty-segment: row 1 has no valid action")
    const nan = thrown(() => Softmax.logSoftmaxSync({ batch: 1, numActions: 2, logits: [0, Number.NaN] }))
    expect([nan.reason, nan.detail]).toEqual(["non-finite", "NaN at [0, 1] (a valid action)"])
    const shape = thrown(() => Softmax.logSoftmaxSync({ batch: 2, numActions: 3, logits: [0, 0, 0, 0, 0, 0], mask: [1, 1, 1] }))
    expect([shape.input, shape.reason, shape.shape]).toEqual(["mask", "shape", "[3]"])
  })
})

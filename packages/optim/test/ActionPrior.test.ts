/**
 * The per-action prior (logit bias) of the DRRN text policy: `π(a|s) ∝ exp(x_a + b_a)` when acting and in the
 * trainer's recomputed log-probabilities (checked against a softmax computed by hand from the unbiased scores), a
 * ratio of exactly 1 at the first minibatch with a bias present, the loss gradient still matching finite differences
 * (the bias is a constant), an all-zero prior reproducing the run without one bit for bit, and bad biases refused
 * with an `InvalidOptionError` naming them.
 */
import { InvalidOptionError, Rng } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import * as DrrnPolicy from "../src/text/DrrnPolicy.js"
import * as GroupRollout from "../src/text/GroupRollout.js"
import * as MultiTurnTrainer from "../src/text/MultiTurnTrainer.js"
import { DoorsEnv } from "./fixtures/DoorsEnv.js"
import { sharpDrrn } from "./fixtures/sharpDrrn.js"
import { maxRelativeError, nonZeroIndices } from "./gradientCheck.js"

const input = { task: "open the red doors", observation: "You are at junction 0.", admissible: ["open red door", "open blue door", "open green door", "wait"] }
const bias = [1.5, 0, -2, 0.25]
/** Larger action scores, so the unbiased policy is far from uniform. */
const small = sharpDrrn

describe("DrrnPolicy action prior", () => {
  it("acts with softmax(score + bias): probabilities, entropy, log-probabilities and greedy choice by hand", () => {
    const p = small()
    const plain = DrrnPolicy.encode(p, input)
    expect(plain.bias).toBeUndefined()
    DrrnPolicy.forward(p, plain)
    const x = Array.from(DrrnPolicy.logitsOf(p).subarray(0, 4))
    expect(Math.max(...x) - Math.min(...x)).toBeGreaterThan(0.1) // not uniform: the bias has something to shift
    const biased = DrrnPolicy.encode(p, { ...input, actionBias: bias })
    expect(Array.from(biased.bias!)).toEqual(bias)
    const h = DrrnPolicy.forward(p, biased)
    // by hand from the unbiased scores
    const z = x.map((v, a) => Math.exp(v + bias[a]!))
    const total = z[0]! + z[1]! + z[2]! + z[3]!
    const want = z.map((v) => v / total)
    const probs = DrrnPolicy.probsOf(p)
    for (let a = 0; a < 4; a++) {
      expect(probs[a]).toBeCloseTo(want[a]!, 12)
      expect(DrrnPolicy.logProbAt(p, 4, a)).toBeCloseTo(Math.log(want[a]!), 12)
    }
    expect(h).toBeCloseTo(-want.reduce((s, q) => s + q * Math.log(q), 0), 12)
    const argmax = want.indexOf(Math.max(...want))
    expect(DrrnPolicy.sample(p, biased, Rng.make(0), true).index).toBe(argmax)
    // a bias large enough takes the greedy choice over
    const last = DrrnPolicy.encode(p, { ...input, actionBias: [0, 0, 0, 50] })
    expect(DrrnPolicy.sample(p, last, Rng.make(0), true).index).toBe(3)
  })

  it("the loss gradient with biased samples matches central finite differences (the bias is a constant)", () => {
    const p = small()
    const specs: Array<[number, number, number]> = [[0, 1.3, 0], [2, -0.7, 0.5], [3, 0.9, -0.6]]
    const samples: Array<MultiTurnTrainer.Sample> = specs.map(([action, advantage, shift]) => {
      const encoded = DrrnPolicy.encode(p, { ...input, actionBias: bias })
      DrrnPolicy.forward(p, encoded)
      return { encoded, action, advantage, oldLogProb: DrrnPolicy.logProbAt(p, 4, action) + shift, refLogProb: 0 }
    })
    const o = { clip: 0.2, klCoef: 0, klEstimator: "k3" as const, entCoef: 0.05 }
    const inds = [0, 1, 2]
    const grad = new Float64Array(p.params.length)
    const scratch = new Float64Array(8)
    MultiTurnTrainer.lossAndGradient(p, o, samples, inds, 0, 3, grad, scratch)
    const lossAt = () => MultiTurnTrainer.lossAndGradient(p, o, samples, inds, 0, 3, new Float64Array(p.params.length), scratch).loss
    const check = nonZeroIndices(grad, 7)
    expect(check.length).toBeGreaterThan(20)
    expect(maxRelativeError(p.params, grad, lossAt, check, 1e-2)).toBeLessThan(2e-2)
  })

  it("old and new log-probabilities agree with a bias present (ratio 1) and not when the update drops it", () => {
    const p = small()
    const encoded = DrrnPolicy.encode(p, { ...input, actionBias: bias })
    const d = DrrnPolicy.sample(p, encoded, Rng.make(1))
    const smp: MultiTurnTrainer.Sample = { encoded, action: d.index, advantage: 1, oldLogProb: d.logProb, refLogProb: 0 }
    const o = { clip: 0.2, klCoef: 0, klEstimator: "k3" as const, entCoef: 0 }
    const g = new Float64Array(p.params.length)
    const same = MultiTurnTrainer.lossAndGradient(p, o, [smp], [0], 0, 1, g, new Float64Array(8))
    expect(same.approxKl).toBe(0)
    expect(same.policyLoss).toBe(-1) // −A · ratio with ratio exactly 1
    const dropped = { ...smp, encoded: { state: encoded.state, actions: encoded.actions } }
    const wrong = MultiTurnTrainer.lossAndGradient(p, o, [dropped], [0], 0, 1, g, new Float64Array(8))
    expect(wrong.approxKl).toBeGreaterThan(1e-3)
  })

  it("a bad bias is refused with InvalidOptionError naming it", () => {
    const p = small()
    for (const [b, value] of [[[1, 2], 2], [[0, Number.NaN, 0, 0], Number.NaN], [[0, 0, Number.POSITIVE_INFINITY, 0], Number.POSITIVE_INFINITY]] as const) {
      let caught: unknown
      try {
        DrrnPolicy.encode(p, { ...input, actionBias: b })
      } catch (e) {
        caught = e
      }
      expect(caught).toBeInstanceOf(InvalidOptionError)
      expect(caught).toMatchObject({ option: "actionBias", value })
    }
    expect(() => GroupRollout.checkActionBias(["a"], [1, 2])).toThrow(/2 entries for 1 admissible/)
    expect(() => GroupRollout.checkActionBias(["a", "b"], [0, Number.NaN])).toThrow(/entry 1 \(for "b"\)/)
  })
})

describe("MultiTurnTrainer actionPrior", () => {
  const smoke = { totalEnvSteps: 600, maxSteps: 8, evalEvery: 0, evalEpisodes: 10, seed: 3, policy: { buckets: 1024, hidden: 16, embed: 8, history: 0 } }

  it.effect("an all-zero prior reproduces the run without one bit for bit (training and evaluation)", () =>
    Effect.gen(function* () {
      const plain = yield* MultiTurnTrainer.train([new DoorsEnv()], { ...smoke, algo: "gigpo", klCoef: 0.1 })
      let calls = 0
      const zero = yield* MultiTurnTrainer.train([new DoorsEnv()], { ...smoke, algo: "gigpo", klCoef: 0.1 }, {
        actionPrior: (i) => {
          calls++
          return i.admissible.map(() => 0)
        }
      })
      expect(calls).toBeGreaterThan(600)
      expect(Array.from(zero.policy.params)).toEqual(Array.from(plain.policy.params))
      expect(zero.final).toEqual({ ...plain.final, wallSeconds: zero.final.wallSeconds })
    }), 30_000)

  it.effect("the prior travels with the stored step: the first minibatch's ratio is exactly 1 (approxKl 0)", () =>
    Effect.gen(function* () {
      const ctl = new AbortController()
      const rows: Array<MultiTurnTrainer.UpdateRow> = []
      const stored: Array<ReadonlyArray<number> | undefined> = []
      const prior: GroupRollout.ActionPrior = (i) => i.admissible.map((a) => (a === "wait" ? -1 : a.startsWith("open red") ? 2 : 0.5))
      yield* MultiTurnTrainer.train([new DoorsEnv()], { ...smoke, algo: "grpo", epochs: 1, minibatches: 1, entCoef: 0.05 }, {
        signal: ctl.signal,
        actionPrior: prior,
        stepRewards: (g) => {
          for (const tr of g.trajectories) for (const s of tr.steps) stored.push((s.encoded as DrrnPolicy.Encoded).bias && Array.from((s.encoded as DrrnPolicy.Encoded).bias!))
          return undefined
        },
        onUpdate: (row) => {
          rows.push(row)
          ctl.abort()
        }
      })
      expect(stored.length).toBeGreaterThan(0)
      for (const b of stored) expect(b).toEqual([2, 0.5, 0.5, -1]) // Doors: red, blue, green, wait
      expect(rows[0]!.approxKl).toBe(0)
      expect(rows[0]!.clipFraction).toBe(0)
    }), 30_000)

  it.effect("a bad prior fails the run with InvalidOptionError (not as an env failure)", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(MultiTurnTrainer.train([new DoorsEnv()], smoke, { actionPrior: () => [0, 1] }))
      expect(Exit.isFailure(exit)).toBe(true)
      const err = yield* Effect.flip(MultiTurnTrainer.train([new DoorsEnv()], smoke, { actionPrior: (i) => i.admissible.map(() => Number.NaN) }))
      expect(err).toBeInstanceOf(InvalidOptionError)
      expect(err).toMatchObject({ option: "actionBias" })
      const short = yield* Effect.flip(MultiTurnTrainer.train([new DoorsEnv()], smoke, { actionPrior: () => [0, 1] }))
      expect(short).toMatchObject({ option: "actionBias", value: 2 })
    }), 30_000)
})

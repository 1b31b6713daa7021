import { Rng } from "@autodidact/core"
import { Backend } from "@autodidact/kernels/tfjs"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Calibration, RewardModel } from "../src/index.js"
import { OnnxRewardModel } from "../src/onnx.js"
import { Mlp, OnnxExport, Training } from "../src/train.js"

const DIM = 8
const TRUE_W = [1.0, -0.8, 0.6, 0.4, -0.3, 0.2, 0.0, 0.0]
/** A known ground-truth utility: linear plus an interaction term. */
const utility = (x: Float32Array, o: number): number => {
  let u = 0
  for (let j = 0; j < DIM; j++) u += TRUE_W[j]! * x[o + j]!
  return u + 0.5 * x[o]! * x[o + 1]!
}

const items = (rng: Rng, n: number): Float32Array => Float32Array.from({ length: n * DIM }, () => rng.normal())

/** Bradley-Terry preferences: P(a ≻ b) = σ(β (u(a) − u(b))). */
const preferences = (rng: Rng, n: number, beta: number): Training.Pairs => {
  const a = items(rng, n), b = items(rng, n)
  const chosen = new Float32Array(n * DIM), rejected = new Float32Array(n * DIM)
  for (let i = 0; i < n; i++) {
    const pa = 1 / (1 + Math.exp(-beta * (utility(a, i * DIM) - utility(b, i * DIM))))
    const aWins = rng.random() < pa
    chosen.set((aWins ? a : b).subarray(i * DIM, i * DIM + DIM), i * DIM)
    rejected.set((aWins ? b : a).subarray(i * DIM, i * DIM + DIM), i * DIM)
  }
  return { n, dim: DIM, chosen, rejected }
}

const wasm = Backend.layerWith({ force: "wasm" })

describe("Bradley-Terry reward model", () => {
  it.effect("recovers a known utility's ranking on held-out items (Kendall tau > 0.9) and is calibrated", () =>
    Effect.gen(function* () {
      const { tf } = yield* Backend.Backend
      const rng = Rng.make(7)
      const train = preferences(rng, 3000, 4)
      const valid = preferences(rng, 500, 4)
      const m = Mlp.make(tf, { inputSize: DIM, hidden: [32], activation: "tanh" }, rng)
      const res = Training.trainPairwise(m, train, { epochs: 15, batchSize: 64, learningRate: 3e-3, rng })
      expect(res.losses.at(-1)!).toBeLessThan(res.losses[0]!)
      // ranking of held-out items against the ground-truth utility
      const held = items(rng, 200)
      const scores = Mlp.predict(m, held, 200)
      const truth = Array.from({ length: 200 }, (_, i) => utility(held, i * DIM))
      expect(Calibration.kendallTau(scores, truth)).toBeGreaterThan(0.9)
      // validation accuracy against noisy labels is bounded by the label noise; calibration is good
      const rc = Mlp.predict(m, valid.chosen, valid.n), rr = Mlp.predict(m, valid.rejected, valid.n)
      expect(Calibration.pairwiseAccuracy(rc, rr)).toBeGreaterThan(0.75)
      const p = Calibration.pairProbabilities(rc, rr)
      // ECE over the pair orientation: each pair once as (chosen, rejected) with label 1, once reversed with label 0
      const both = Float64Array.from([...p, ...p.map((q) => 1 - q)])
      const labels = Float64Array.from([...p.map(() => 1), ...p.map(() => 0)])
      expect(Calibration.ece(both, labels)).toBeLessThan(0.08)
      Mlp.dispose(m)
    }).pipe(Effect.provide(wasm)))

  it.effect("a pointwise classifier learns a threshold of the utility (BCE), with Brier below the base rate's", () =>
    Effect.gen(function* () {
      const { tf } = yield* Backend.Backend
      const rng = Rng.make(3)
      const x = items(rng, 2000)
      const y = Float32Array.from({ length: 2000 }, (_, i) => (utility(x, i * DIM) > 0.5 ? 1 : 0))
      const m = Mlp.make(tf, { inputSize: DIM, hidden: [16], activation: "relu" }, rng)
      Training.trainPointwise(m, { n: 1600, dim: DIM, x: x.subarray(0, 1600 * DIM), y: y.subarray(0, 1600) }, { epochs: 20, learningRate: 3e-3, rng })
      const logits = Mlp.predict(m, x.subarray(1600 * DIM), 400)
      const p = logits.map((s) => 1 / (1 + Math.exp(-s)))
      const yv = y.subarray(1600)
      const rate = yv.reduce((a, b) => a + b, 0) / 400
      const acc = p.reduce((a, q, i) => a + ((q > 0.5 ? 1 : 0) === yv[i] ? 1 : 0), 0) / 400
      expect(acc).toBeGreaterThan(0.9)
      expect(Calibration.brier(p, yv)).toBeLessThan(rate * (1 - rate) / 2)
      Mlp.dispose(m)
    }).pipe(Effect.provide(wasm)))
})

describe("ONNX export", () => {
  for (const [activation, dense] of [["relu", "gemm"], ["tanh", "matmul"]] as const) {
    it.effect(`TF.js and onnxruntime agree within 1e-5 (${activation}, ${dense})`, () =>
      Effect.gen(function* () {
        const { tf } = yield* Backend.Backend
        const rng = Rng.make(11)
        const m = Mlp.make(tf, { inputSize: DIM, hidden: [24, 12], activation }, rng)
        const bytes = OnnxExport.exportMlp(Mlp.weights(m), { activation, dense })
        const onnxModel = yield* OnnxRewardModel.openFeature(bytes, { name: "exported" })
        expect(onnxModel.session.inputs[0]).toEqual({ name: "features", type: "float32", shape: ["batch", DIM] })
        for (const n of [1, 7, 300]) {
          const x = Float32Array.from({ length: n * DIM }, () => rng.normal() * 2)
          const a = Mlp.predict(m, x, n)
          const b = yield* onnxModel.scoreRows(x, n)
          expect(b).toHaveLength(n)
          let worst = 0
          for (let i = 0; i < n; i++) worst = Math.max(worst, Math.abs(a[i]! - b[i]!))
          expect(worst).toBeLessThan(1e-5)
        }
        // and through the service
        const rm = RewardModel.fromFeatures("exported", DIM, onnxModel.scoreRows)
        const one = Float32Array.from({ length: DIM }, (_, j) => j / DIM)
        const [s] = yield* rm.scoreOutcome([{ features: one }])
        expect(Math.abs(s! - Mlp.predict(m, one, 1)[0]!)).toBeLessThan(1e-5)
        Mlp.dispose(m)
      }).pipe(Effect.scoped, Effect.provide(wasm)))
  }
})

describe("Calibration metrics", () => {
  it("hand-computed cases", () => {
    expect(Calibration.kendallTau([1, 2, 3, 4], [10, 20, 30, 40])).toBe(1)
    expect(Calibration.kendallTau([1, 2, 3, 4], [4, 3, 2, 1])).toBe(-1)
    // one discordant pair of six: (5 - 1) / 6
    expect(Calibration.kendallTau([1, 2, 3, 4], [1, 3, 2, 4])).toBeCloseTo(4 / 6, 12)
    expect(Calibration.brier([0.9, 0.2], [1, 0])).toBeCloseTo((0.01 + 0.04) / 2, 12)
    // bin [0.8,0.9): conf 0.8, acc 1 (weight 1/2); bin [0.2,0.3): conf 0.2, acc 0 (weight 1/2)
    expect(Calibration.ece([0.8, 0.2], [1, 0])).toBeCloseTo(0.2, 12)
    expect(Calibration.pairwiseAccuracy([1, 0, 3], [0, 1, 2])).toBeCloseTo(2 / 3, 12)
  })
})

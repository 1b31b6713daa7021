/**
 * The parity suite: every kernel's TensorFlow.js implementation against its typed-array reference, on whichever
 * backend is active. Run on wasm and cpu by Parity.test.ts and on the GPU (`tensorflow` via tfjs-node-gpu) by
 * Gpu.test.ts when AUTODIDACT_GPU_TESTS=1.
 *
 * The `wasm-simd` kernels are checked against this backend's TensorFlow.js kernels too (a third implementation on
 * the same inputs), and dispatch is checked: with `WasmSimd.register()` they answer on wasm/cpu, while the native
 * `tensorflow` backend (the GPU path) keeps its TensorFlow.js kernels.
 *
 * Tolerances (float32 TensorFlow.js vs the double-accumulating references): returns/GAE rtol 1e-4 (a log-depth scan
 * in float32), log-softmax/entropy/KL/group statistics rtol 1e-5…1e-4, PPO loss rtol 1e-5 and gradients atol 1e-6,
 * top-k indices exact (no ties in the random data) and scores rtol 1e-4, sampling and sum-tree indices exact.
 */
import { Rng } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Categorical, Gae, GroupNorm, Kl, PpoLoss, Returns, Softmax, SumTree, TopK, WasmSimd } from "../src/index.js"
import { Backend, CategoricalTf, GaeTf, GroupNormTf, KlTf, PpoLossTf, ReturnsTf, SoftmaxTf, SumTreeTf, TopKTf } from "../src/tfjs.js"
import type { Tf } from "../src/engines/Backend.js"
import { close } from "./helpers.js"

const normal = (rng: Rng, n: number, scale = 1) => Float32Array.from({ length: n }, () => rng.normal(0, scale))
const flags = (rng: Rng, n: number, p: number) => Float32Array.from({ length: n }, () => (rng.random() < p ? 1 : 0))
const mask = (rng: Rng, B: number, A: number) => {
  const m = flags(rng, B * A, 0.7)
  for (let b = 0; b < B; b++) m[b * A + rng.integers(A)] = 1
  return m
}

export const paritySuite = (backend: "wasm" | "cpu" | "tensorflow"): void => {
  let tf: Tf
  describe(`parity on ${backend}`, () => {
    it.effect(`selects ${backend}`, () =>
      Effect.gen(function* () {
        const b = yield* Backend.select({ force: backend })
        tf = b.tf
        expect(tf.getBackend()).toBe(backend)
      }))

    it("discounted returns [64, 8] and [300, 3]", () => {
      const rng = Rng.make(1)
      for (const [T, N] of [[64, 8], [300, 3]] as const) {
        const input: Returns.ReturnsInput = { numSteps: T, numEnvs: N, gamma: 0.97, rewards: normal(rng, T * N), dones: flags(rng, T * N, 0.05), nextValue: normal(rng, N), nextDone: flags(rng, N, 0.3) }
        close(ReturnsTf.discountedReturnsTf(tf, input), Returns.discountedReturnsSync(input), 1e-4, 1e-4)
      }
    })

    it("GAE [64, 8] with truncations", () => {
      const rng = Rng.make(2)
      const T = 64
      const N = 8
      const input: Gae.GaeInput = {
        numSteps: T, numEnvs: N, gamma: 0.99, lambda: 0.95,
        rewards: normal(rng, T * N), values: normal(rng, T * N), dones: flags(rng, T * N, 0.05),
        nextValue: normal(rng, N), nextDone: flags(rng, N, 0.2),
        truncations: new Float32Array(T * N), finalValues: normal(rng, T * N)
      }
      const ref = Gae.computeSync(input)
      const got = GaeTf.computeTf(tf, input)
      close(got.advantages, ref.advantages, 1e-4, 1e-4)
      close(got.returns, ref.returns, 1e-4, 1e-4)
    })

    it("masked log-softmax and entropy [257, 7]", () => {
      const rng = Rng.make(3)
      const input = { batch: 257, numActions: 7, logits: normal(rng, 257 * 7, 3), mask: mask(rng, 257, 7) }
      const ref = Softmax.logSoftmaxSync(input)
      const got = SoftmaxTf.logSoftmaxTf(tf, input)
      close(got.logProbs, ref.logProbs, 1e-5, 1e-5)
      close(got.entropy, ref.entropy, 1e-5, 1e-5)
    })

    it("categorical sampling with the same uniforms gives the same actions", () => {
      const rng = Rng.make(4)
      const B = 500
      const input = { batch: B, numActions: 6, logits: normal(rng, B * 6, 2), mask: mask(rng, B, 6), uniforms: Categorical.uniforms(Rng.make(5), B) }
      const ref = Categorical.fromUniformsSync(input)
      const got = CategoricalTf.fromUniformsTf(tf, input)
      expect(Array.from(got.actions)).toEqual(Array.from(ref.actions))
      close(got.logProbs, ref.logProbs, 1e-5, 1e-5)
    })

    it("KL estimators k1, k2, k3", () => {
      const rng = Rng.make(6)
      const logProbs = normal(rng, 1000, 0.5)
      const otherLogProbs = Float32Array.from(logProbs, (x) => x + rng.normal(0, 0.3))
      for (const estimator of ["k1", "k2", "k3"] as const) {
        const ref = Kl.estimateSync({ logProbs, otherLogProbs, estimator })
        const got = KlTf.estimateTf(tf, { logProbs, otherLogProbs, estimator })
        close(got.values, ref.values, 1e-4, 1e-6)
        expect(got.mean).toBeCloseTo(ref.mean, 5)
      }
    })

    it("group normalization, RLOO and GiGPO anchor statistics", () => {
      const rng = Rng.make(7)
      const n = 600
      const G = 50
      const segmentIds = Int32Array.from({ length: n }, (_, i) => (i < 2 * G ? i % G : rng.integers(G)))
      const values = normal(rng, n, 2)
      close(GroupNormTf.groupNormalizeTf(tf, { values, segmentIds, numSegments: G }), GroupNorm.groupNormalizeSync({ values, segmentIds, numSegments: G }), 1e-4, 1e-4)
      close(GroupNormTf.groupNormalizeTf(tf, { values, segmentIds, numSegments: G, scale: false }), GroupNorm.groupNormalizeSync({ values, segmentIds, numSegments: G, scale: false }), 1e-4, 1e-5)
      const r = GroupNormTf.rlooTf(tf, { values, segmentIds, numSegments: G })
      const e = GroupNorm.rlooSync({ values, segmentIds, numSegments: G })
      close(r.baselines, e.baselines, 1e-4, 1e-5)
      close(r.advantages, e.advantages, 1e-4, 1e-5)
      const anchor = { values, groupIds: Int32Array.from({ length: n }, (_, i) => i % 5), anchorKeys: Int32Array.from({ length: n }, () => rng.integers(7)) }
      close(GroupNormTf.anchorStatsTf(tf, anchor).advantages, GroupNorm.anchorStatsSync(anchor).advantages, 1e-4, 1e-4)
    })

    it("PPO loss and gradients: autodiff vs closed form", () => {
      const rng = Rng.make(8)
      const B = 64
      const A = 5
      const logits = normal(rng, B * A)
      const m = mask(rng, B, A)
      const actions = Int32Array.from({ length: B }, (_, b) => {
        for (;;) {
          const a = rng.integers(A)
          if (m[b * A + a] === 1) return a
        }
      })
      const lp = Softmax.logSoftmaxSync({ batch: B, numActions: A, logits, mask: m }).logProbs
      const input: PpoLoss.PpoLossInput = {
        batch: B, numActions: A, logits, mask: m, actions,
        oldLogProbs: Float32Array.from(actions, (a, b) => lp[b * A + a]! + rng.normal(0, 0.3)),
        advantages: normal(rng, B), values: normal(rng, B), oldValues: normal(rng, B), returns: normal(rng, B)
      }
      const ref = PpoLoss.lossAndGradientSync(input)
      const got = PpoLossTf.lossAndGradientTf(tf, input)
      expect(got.loss).toBeCloseTo(ref.loss, 5)
      expect(got.policyLoss).toBeCloseTo(ref.policyLoss, 5)
      expect(got.valueLoss).toBeCloseTo(ref.valueLoss, 5)
      expect(got.entropy).toBeCloseTo(ref.entropy, 5)
      expect(got.approxKl).toBeCloseTo(ref.approxKl, 5)
      expect(got.clipFraction).toBeCloseTo(ref.clipFraction, 6)
      close(got.dLogits, ref.dLogits, 1e-3, 2e-6)
      close(got.dValues, ref.dValues, 1e-4, 1e-6)
    })

    it("top-k dot and cosine", () => {
      const rng = Rng.make(9)
      const [Q, M, D] = [5, 3000, 33]
      const queries = normal(rng, Q * D)
      const matrix = normal(rng, M * D)
      for (const metric of ["dot", "cosine"] as const) {
        const input = { queries, matrix, numQueries: Q, numRows: M, dim: D, k: 10, metric }
        const ref = TopK.topKSync(input)
        const got = TopKTf.topKTf(tf, input)
        expect(Array.from(got.indices)).toEqual(Array.from(ref.indices))
        close(got.scores, ref.scores, 1e-4, 1e-5)
      }
    })

    it("wasm-simd kernels agree with this backend's TensorFlow.js kernels", () => {
      const rng = Rng.make(10)
      const [B, A] = [129, 7]
      const sm = { batch: B, numActions: A, logits: normal(rng, B * A, 3), mask: mask(rng, B, A) }
      const s1 = SoftmaxTf.logSoftmaxTf(tf, sm)
      const s2 = WasmSimd.logSoftmax(sm)
      close(s2.logProbs, s1.logProbs, 1e-5, 1e-5)
      close(s2.entropy, s1.entropy, 1e-5, 1e-5)
      const cat = { ...sm, uniforms: Categorical.uniforms(Rng.make(11), B) }
      const c1 = CategoricalTf.fromUniformsTf(tf, cat)
      const c2 = WasmSimd.categoricalFromUniforms(cat)
      expect(Array.from(c2.actions)).toEqual(Array.from(c1.actions))
      close(c2.logProbs, c1.logProbs, 1e-5, 1e-5)
      const logProbs = normal(rng, 1001, 0.5)
      const otherLogProbs = Float32Array.from(logProbs, (x) => x + rng.normal(0, 0.3))
      for (const estimator of ["k1", "k2", "k3"] as const) close(WasmSimd.klEstimate({ logProbs, otherLogProbs, estimator }).values, KlTf.estimateTf(tf, { logProbs, otherLogProbs, estimator }).values, 1e-4, 1e-6)
      const actions = Int32Array.from({ length: B }, (_, b) => {
        for (;;) {
          const a = rng.integers(A)
          if (sm.mask[b * A + a] === 1) return a
        }
      })
      const lp = Softmax.logSoftmaxSync(sm).logProbs
      const ppo: PpoLoss.PpoLossInput = {
        ...sm, actions, oldLogProbs: Float32Array.from(actions, (a, b) => lp[b * A + a]! + rng.normal(0, 0.3)),
        advantages: normal(rng, B), values: normal(rng, B), oldValues: normal(rng, B), returns: normal(rng, B)
      }
      const p1 = PpoLossTf.lossAndGradientTf(tf, ppo)
      const p2 = WasmSimd.ppoLoss(ppo)
      expect(p2.loss).toBeCloseTo(p1.loss, 5)
      close(p2.dLogits, p1.dLogits, 1e-3, 2e-6)
      close(p2.dValues, p1.dValues, 1e-4, 1e-6)
      const [Q, M, D] = [5, 2001, 40]
      const queries = normal(rng, Q * D)
      const matrix = normal(rng, M * D)
      for (const metric of ["dot", "cosine"] as const) {
        const input = { queries, matrix, numQueries: Q, numRows: M, dim: D, k: 10, metric }
        const t1 = TopKTf.topKTf(tf, input)
        const t2 = WasmSimd.topK(input)
        expect(Array.from(t2.indices)).toEqual(Array.from(t1.indices))
        close(t2.scores, t1.scores, 1e-4, 1e-5)
      }
      const [T, N] = [64, 8]
      const gae: Gae.GaeInput = {
        numSteps: T, numEnvs: N, gamma: 0.99, lambda: 0.95, rewards: normal(rng, T * N), values: normal(rng, T * N),
        dones: flags(rng, T * N, 0.05), nextValue: normal(rng, N), nextDone: flags(rng, N, 0.2)
      }
      close(WasmSimd.gae(gae).advantages, GaeTf.computeTf(tf, gae).advantages, 1e-4, 1e-4)
      const segmentIds = Int32Array.from({ length: 500 }, (_, i) => (i < 40 ? i : rng.integers(40)))
      const values = normal(rng, 500, 2)
      close(WasmSimd.groupNormalize({ values, segmentIds, numSegments: 40 }), GroupNormTf.groupNormalizeTf(tf, { values, segmentIds, numSegments: 40 }), 1e-4, 1e-4)
    })

    it.effect("dispatch with the wasm-simd kernels registered: wasm-simd on wasm/cpu, TensorFlow.js on tensorflow", () =>
      Effect.gen(function* () {
        const registration = WasmSimd.register()
        try {
          const r = yield* Softmax.logSoftmax({ batch: 1, numActions: 2, logits: [0, 0] }).pipe(Effect.provide(Backend.layerWith({ force: backend })))
          expect(r.backendName).toBe(backend === "tensorflow" ? "tensorflow" : "wasm-simd")
          expect(r.output.entropy[0]).toBeCloseTo(Math.LN2, 5)
        } finally {
          registration.restore()
        }
      }))

    it("sum-tree prefix sampling: upperBound(cumsum) = tree descent", () => {
      const tree = SumTree.make(100)
      const priorities = Float64Array.from({ length: 100 }, (_, j) => (j % 7 === 0 ? 0 : 1 + (j % 5)))
      SumTree.updateBatch(tree, Int32Array.from({ length: 100 }, (_, j) => j), priorities)
      // prefixes on half-integers: integer priorities make every boundary exact in float32
      const prefixes = Float64Array.from({ length: 64 }, (_, b) => Math.floor((b / 64) * SumTree.total(tree)) + 0.5)
      expect(Array.from(SumTreeTf.sampleTf(tf, priorities, prefixes))).toEqual(Array.from(SumTree.sampleBatch(tree, prefixes).indices))
    })
  })
}

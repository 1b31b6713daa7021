/**
 * The `wasm-simd` kernels against the typed-array references (random inputs with masks and ragged sizes that
 * exercise the SIMD bodies and the scalar tails), hand-computed cases, bad input (typed errors naming the kernel,
 * backend `wasm-simd` and the shape), steady-state memory, the resident top-k index, registry dispatch and the
 * fallback when SIMD is unavailable.
 */
import { NonFiniteValueError, Rng } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Logger } from "effect"
import { Gae, GroupNorm, KernelRegistry, Kl, PpoLoss, Softmax, TopK, WasmSimd } from "../src/index.js"
import { Backend } from "../src/tfjs.js"
import { close, thrown } from "./helpers.js"

const normal = (rng: Rng, n: number, scale = 1) => Float32Array.from({ length: n }, () => rng.normal(0, scale))
const randomMask = (rng: Rng, B: number, A: number) => {
  const m = Float32Array.from({ length: B * A }, () => (rng.random() < 0.7 ? 1 : 0))
  for (let b = 0; b < B; b++) m[b * A + rng.integers(A)] = 1
  return m
}

const ppoInput = (rng: Rng, B: number, A: number, masked = true): PpoLoss.PpoLossInput => {
  const logits = normal(rng, B * A, 2)
  const mask = masked ? randomMask(rng, B, A) : undefined
  const actions = Int32Array.from({ length: B }, (_, b) => {
    for (;;) {
      const a = rng.integers(A)
      if (mask === undefined || mask[b * A + a] === 1) return a
    }
  })
  const lp = Softmax.logSoftmaxSync({ batch: B, numActions: A, logits, mask }).logProbs
  return {
    batch: B, numActions: A, logits, mask, actions,
    oldLogProbs: Float32Array.from(actions, (a, b) => lp[b * A + a]! + rng.normal(0, 0.3)),
    advantages: normal(rng, B), values: normal(rng, B), oldValues: normal(rng, B), returns: normal(rng, B)
  }
}

describe("WasmSimd (availability)", () => {
  it("instantiates here (Node's V8 has WebAssembly SIMD)", () => {
    expect(WasmSimd.load()).toEqual({ ok: true })
  })

  it("AUTODIDACT_WASM_SIMD=0 reports it unavailable with the reason", () => {
    expect(WasmSimd.load({ AUTODIDACT_WASM_SIMD: "0" })).toEqual({ ok: false, reason: "disabled by AUTODIDACT_WASM_SIMD=0" })
  })
})

describe("WasmSimd (hand-computed)", () => {
  it("masked log-softmax: [0, 0, 5] with the 5 masked; [0, ln 3]; huge shifted logits", () => {
    const r = WasmSimd.logSoftmax({ batch: 3, numActions: 3, logits: [0, 0, 5, 0, Math.log(3), -7, 1000, 1000 + Math.log(3), 0], mask: [1, 1, 0, 1, 1, 0, 1, 1, 0] })
    close(r.logProbs.subarray(0, 6), [-Math.LN2, -Math.LN2, -Infinity, Math.log(0.25), Math.log(0.75), -Infinity], 1e-6, 1e-6)
    // 1000 + ln 3 rounded to float32 is off by up to 3e-5 (half an ulp at 1000): the float32 input's own error
    close(r.logProbs.subarray(6), [Math.log(0.25), Math.log(0.75), -Infinity], 0, 5e-5)
    const h = -(0.25 * Math.log(0.25) + 0.75 * Math.log(0.75))
    close(r.entropy, [Math.LN2, h, h], 1e-6, 5e-5)
  })

  it("KL k1, k2, k3 of log-ratios 0.1 and −0.7 (series and exp branches of k3)", () => {
    const input = { logProbs: [-1, -1], otherLogProbs: [-0.9, -1.7] }
    const k3 = [Math.expm1(0.1) - 0.1, Math.expm1(-0.7) + 0.7]
    close(WasmSimd.klEstimate({ ...input, estimator: "k1" }).values, [-0.1, 0.7], 1e-6, 1e-7)
    close(WasmSimd.klEstimate({ ...input, estimator: "k2" }).values, [0.005, 0.245], 1e-6, 1e-7)
    const r = WasmSimd.klEstimate({ ...input, estimator: "k3" })
    close(r.values, k3, 1e-6, 1e-9)
    expect(r.mean).toBeCloseTo((k3[0]! + k3[1]!) / 2, 7)
  })

  it("top-k: the k best rows, best first, equal scores by lower row index", () => {
    const r = WasmSimd.topK({ queries: [1, 0], matrix: [0, 1, 1, 0, 0.5, 0.5, 1, 0, 2, 0], numQueries: 1, numRows: 5, dim: 2, k: 3, metric: "cosine" })
    expect(Array.from(r.indices)).toEqual([1, 3, 4])
    close(r.scores, [1, 1, 1], 1e-6, 1e-6)
    const d = WasmSimd.topK({ queries: [1, 0], matrix: [0, 1, 1, 0, 0.5, 0.5, 1, 0, 2, 0], numQueries: 1, numRows: 5, dim: 2, k: 2, metric: "dot" })
    expect(Array.from(d.indices)).toEqual([4, 1])
  })

  it("GAE on one env, three steps (δ and the λ recursion by hand)", () => {
    const r = WasmSimd.gae({
      numSteps: 3, numEnvs: 1, gamma: 0.5, lambda: 0.5,
      rewards: [1, 1, 1], values: [0, 0, 0], dones: [0, 0, 0], nextValue: [2], nextDone: [0]
    })
    // δ = [1, 1, 2]; Â_2 = 2, Â_1 = 1 + 0.25·2 = 1.5, Â_0 = 1 + 0.25·1.5 = 1.375
    close(r.advantages, [1.375, 1.5, 2], 0, 0)
    close(r.returns, [1.375, 1.5, 2], 0, 0)
  })

  it("group normalization: segments {1, 3} and {10, 20, 30}", () => {
    const out = WasmSimd.groupNormalize({ values: [1, 10, 3, 20, 30], segmentIds: Int32Array.of(0, 1, 0, 1, 1), numSegments: 2, eps: 0 })
    close(out, [-1 / Math.SQRT2, -1, 1 / Math.SQRT2, 0, 1], 1e-6, 1e-7)
  })
})

describe("WasmSimd (parity with the typed-array references, random inputs)", () => {
  it("masked and unmasked log-softmax / entropy, numActions 1, 4, 7, 32, 33", () => {
    const rng = Rng.make(21)
    for (const A of [1, 4, 7, 32, 33]) {
      for (const masked of [true, false]) {
        const B = 67
        const input = { batch: B, numActions: A, logits: normal(rng, B * A, 3), mask: masked ? randomMask(rng, B, A) : undefined }
        const ref = Softmax.logSoftmaxSync(input)
        const got = WasmSimd.logSoftmax(input)
        close(got.logProbs, ref.logProbs, 1e-5, 1e-5)
        close(got.entropy, ref.entropy, 1e-5, 1e-5)
      }
    }
  })

  it("KL k1, k2, k3 over 1003 samples (SIMD body and tail; some log-ratios beyond ±0.5)", () => {
    const rng = Rng.make(22)
    const logProbs = normal(rng, 1003, 0.5)
    const otherLogProbs = Float32Array.from(logProbs, (x) => x + rng.normal(0, 0.4))
    for (const estimator of ["k1", "k2", "k3"] as const) {
      const ref = Kl.estimateSync({ logProbs, otherLogProbs, estimator })
      const got = WasmSimd.klEstimate({ logProbs, otherLogProbs, estimator })
      close(got.values, ref.values, 1e-5, 1e-8)
      expect(got.mean).toBeCloseTo(ref.mean, 7)
    }
  })

  it("PPO loss and gradients (masked [67, 7] and unmasked [40, 32]; clipped and unclipped value loss)", () => {
    const rng = Rng.make(23)
    for (const [B, A, masked, clipVloss] of [[67, 7, true, true], [40, 32, false, false], [5, 1, false, true]] as const) {
      const input = { ...ppoInput(rng, B, A, masked), clipVloss }
      const ref = PpoLoss.lossAndGradientSync(input)
      const got = WasmSimd.ppoLoss(input)
      for (const key of ["loss", "policyLoss", "valueLoss", "entropy", "approxKl", "clipFraction"] as const) expect(got[key]).toBeCloseTo(ref[key], 5)
      close(got.dLogits, ref.dLogits, 1e-4, 1e-7)
      close(got.dValues, ref.dValues, 1e-6, 1e-9)
      if (input.mask !== undefined) for (let k = 0; k < B * A; k++) if (input.mask[k] === 0) expect(got.dLogits[k]).toBe(0)
    }
  })

  it("ppoLossInto writes the same gradients into caller buffers as ppoLoss", () => {
    const input = ppoInput(Rng.make(24), 33, 5)
    const whole = WasmSimd.ppoLoss(input)
    const out = { logProbs: new Float64Array(200), dLogits: new Float64Array(200).fill(9), dValues: new Float64Array(40).fill(9) }
    const parts = WasmSimd.ppoLossInto(input, out)
    expect(parts.loss).toBe(whole.loss)
    expect(Array.from(out.dLogits.subarray(0, 165))).toEqual(Array.from(whole.dLogits))
    expect(Array.from(out.dValues.subarray(0, 33))).toEqual(Array.from(whole.dValues))
    expect(out.dLogits[165]).toBe(9) // only the prefix is written
    // longer input buffers (a training loop's scratch): only the prefix is read, as PpoLoss.lossAndGradientInto
    const padded = new Float32Array(200).fill(Number.NaN)
    padded.set(input.logits)
    const longer = WasmSimd.ppoLossInto({ ...input, logits: padded, values: Float32Array.of(...Array.from(input.values), Number.NaN) }, out)
    expect(longer.loss).toBe(whole.loss)
    expect(PpoLoss.lossAndGradientInto({ ...input, logits: padded }, out).loss).toBeCloseTo(whole.loss, 5)
    const bad = WasmSimd.ppoLossInto({ ...input, actions: Int32Array.from(input.actions, (a, b) => (b === 3 ? 99 : a)) }, out)
    expect(Number.isNaN(bad.loss)).toBe(true)
  })

  it("top-k dot and cosine: Q = 5 (4-query kernel + 1), D = 33 and 64, odd row counts, k = 1, 10 and numRows", () => {
    const rng = Rng.make(25)
    for (const [Q, M, D, k] of [[5, 3001, 33, 10], [6, 257, 64, 1], [1, 9, 3, 9]] as const) {
      const queries = normal(rng, Q * D)
      const matrix = normal(rng, M * D)
      for (const metric of ["dot", "cosine"] as const) {
        const input = { queries, matrix, numQueries: Q, numRows: M, dim: D, k, metric }
        const ref = TopK.topKSync(input)
        const got = WasmSimd.topK(input)
        expect(Array.from(got.indices)).toEqual(Array.from(ref.indices))
        close(got.scores, ref.scores, 1e-5, 1e-5)
        if (metric === "cosine") {
          const withNorms = WasmSimd.topK({ ...input, rowNorms: TopK.rowNorms(matrix, M, D) })
          expect(Array.from(withNorms.indices)).toEqual(Array.from(ref.indices))
        }
      }
    }
  })

  it("GAE with truncations over an odd number of envs equals the reference bit for bit", () => {
    const rng = Rng.make(26)
    const [T, N] = [50, 9]
    const flags = (n: number, p: number) => Float32Array.from({ length: n }, () => (rng.random() < p ? 1 : 0))
    const input: Gae.GaeInput = {
      numSteps: T, numEnvs: N, gamma: 0.99, lambda: 0.95, rewards: normal(rng, T * N), values: normal(rng, T * N),
      dones: flags(T * N, 0.05), nextValue: normal(rng, N), nextDone: flags(N, 0.3), truncations: flags(T * N, 0.05), finalValues: normal(rng, T * N)
    }
    for (const i of [input, { ...input, truncations: undefined, finalValues: undefined }]) {
      const ref = Gae.computeSync(i)
      const got = WasmSimd.gae(i)
      expect(Array.from(got.advantages)).toEqual(Array.from(ref.advantages))
      expect(Array.from(got.returns)).toEqual(Array.from(ref.returns))
    }
  })

  it("group normalization (scaled, unscaled, ddof 0, float ids) equals the reference bit for bit", () => {
    const rng = Rng.make(27)
    const [n, G] = [600, 50]
    const segmentIds = Int32Array.from({ length: n }, (_, i) => (i < G ? i : rng.integers(G)))
    const values = normal(rng, n, 2)
    for (const extra of [{}, { scale: false }, { ddof: 0, eps: 1e-8 }]) {
      const input = { values, segmentIds, numSegments: G, ...extra }
      expect(Array.from(WasmSimd.groupNormalize(input))).toEqual(Array.from(GroupNorm.groupNormalizeSync(input)))
    }
    const floatIds = { values, segmentIds: Float64Array.from(segmentIds), numSegments: G }
    expect(Array.from(WasmSimd.groupNormalize(floatIds))).toEqual(Array.from(GroupNorm.groupNormalizeSync(floatIds)))
  })
})

describe("WasmSimd (bad input: typed errors naming kernel, backend and shape)", () => {
  it("log-softmax: NaN in a valid logit, a row without a valid action, a mask value 0.5, a shape mismatch", () => {
    const nan = thrown(() => WasmSimd.logSoftmax({ batch: 2, numActions: 5, logits: [0, 0, 0, 0, 0, 0, 0, Number.NaN, 0, 0] }))
    expect([nan._tag, nan.kernel, nan.backend, nan.reason, nan.shape, nan.detail]).toEqual(["KernelInputError", "LogSoftmax", "wasm-simd", "non-finite", "[2, 5]", "NaN at [1, 2] (a valid action)"])
    const empty = thrown(() => WasmSimd.logSoftmax({ batch: 2, numActions: 2, logits: [0, 0, 0, 0], mask: [1, 0, 0, 0] }))
    expect([empty.reason, empty.detail]).toEqual(["empty-segment", "row 1 has no valid action"])
    const half = thrown(() => WasmSimd.logSoftmax({ batch: 1, numActions: 2, logits: [0, 0], mask: [1, 0.5] }))
    expect([half.input, half.reason]).toEqual(["mask", "range"])
    const shape = thrown(() => WasmSimd.logSoftmax({ batch: 2, numActions: 3, logits: [0, 0, 0] }))
    expect([shape.backend, shape.input, shape.shape]).toEqual(["wasm-simd", "logits", "[3]"])
  })

  it("masked NaN logits are ignored; finite doubles beyond float32 get the reference's answer", () => {
    const r = WasmSimd.logSoftmax({ batch: 1, numActions: 3, logits: [0, Number.NaN, 0], mask: [1, 0, 1] })
    close(r.logProbs, [-Math.LN2, -Infinity, -Math.LN2], 1e-6, 1e-6)
    const big = Float64Array.of(1e39, 1e39 + 1e24)
    expect(Array.from(WasmSimd.logSoftmax({ batch: 1, numActions: 2, logits: big }).logProbs)).toEqual(Array.from(Softmax.logSoftmaxSync({ batch: 1, numActions: 2, logits: big }).logProbs))
  })

  it("KL: ±Infinity in the other log-probs; length mismatch", () => {
    const inf = thrown(() => WasmSimd.klEstimate({ logProbs: [0, 0, 0, 0, 0], otherLogProbs: [0, 0, 0, 0, -Infinity], estimator: "k3" }))
    expect([inf.kernel, inf.backend, inf.input, inf.reason, inf.detail]).toEqual(["Kl.k3", "wasm-simd", "otherLogProbs", "non-finite", "-Infinity at flat index 4"])
    const len = thrown(() => WasmSimd.klEstimate({ logProbs: [0, 0], otherLogProbs: [0], estimator: "k1" }))
    expect([len.input, len.reason, len.shape]).toEqual(["otherLogProbs", "shape", "[1]"])
  })

  it("PPO: an action out of range, a masked action, NaN advantages, NaN logits", () => {
    const input = ppoInput(Rng.make(28), 6, 4)
    const range = thrown(() => WasmSimd.ppoLoss({ ...input, actions: Int32Array.of(0, 1, 2, 3, 4, 0) }))
    expect([range.kernel, range.backend, range.input, range.reason]).toEqual(["PpoLoss", "wasm-simd", "actions", "range"])
    const adv = thrown(() => WasmSimd.ppoLoss({ ...input, advantages: Float32Array.of(0, 0, Number.NaN, 0, 0, 0) }))
    expect([adv.input, adv.reason, adv.detail]).toEqual(["advantages", "non-finite", "NaN at flat index 2"])
    const logits = Float32Array.from(input.logits)
    logits[5 * 4 + input.actions[5]!] = Number.POSITIVE_INFINITY
    const z = thrown(() => WasmSimd.ppoLoss({ ...input, logits }))
    expect([z.kernel, z.backend, z.input, z.reason]).toEqual(["PpoLoss", "wasm-simd", "logits", "non-finite"])
  })

  it("top-k: NaN in a matrix row names the row and element; k out of range", () => {
    const matrix = new Float32Array(40 * 8)
    matrix[13 * 8 + 5] = Number.NaN
    const e = thrown(() => WasmSimd.topK({ queries: new Float32Array(8).fill(1), matrix, numQueries: 1, numRows: 40, dim: 8, k: 3, metric: "dot" }))
    expect([e.kernel, e.backend, e.input, e.reason, e.shape, e.detail]).toEqual(["TopK.dot", "wasm-simd", "matrix", "non-finite", "[40, 8]", "NaN at [13, 5]"])
    const k = thrown(() => WasmSimd.topK({ queries: [1], matrix: [1, 2], numQueries: 1, numRows: 2, dim: 1, k: 3, metric: "dot" }))
    expect([k.input, k.reason]).toEqual(["k", "range"])
  })

  it("GAE: NaN rewards (NonFiniteValueError), a done flag of 2, a length mismatch (GaeShapeError)", () => {
    const base = { numSteps: 2, numEnvs: 2, gamma: 0.9, lambda: 0.9, rewards: [0, 0, 0, 0], values: [0, 0, 0, 0], dones: [0, 0, 0, 0], nextValue: [0, 0], nextDone: [0, 0] }
    const nan = thrown(() => WasmSimd.gae({ ...base, rewards: [0, 0, Number.NaN, 0] }))
    expect(nan).toBeInstanceOf(NonFiniteValueError)
    expect([nan.where, nan.index]).toEqual(["Gae.rewards", 2])
    expect(thrown(() => WasmSimd.gae({ ...base, dones: [2, 0, 0, 0] }))._tag).toBe("GaeShapeError")
    expect(thrown(() => WasmSimd.gae({ ...base, values: [0, 0, 0] })).input).toBe("values")
  })

  it("group norm: an empty segment, an id out of range, a NaN value", () => {
    const empty = thrown(() => WasmSimd.groupNormalize({ values: [1, 2, 3], segmentIds: Int32Array.of(0, 0, 2), numSegments: 3 }))
    expect([empty.kernel, empty.backend, empty.reason, empty.detail]).toEqual(["GroupNorm", "wasm-simd", "empty-segment", "segment 1 of 3 has 0 members (needs ≥ 1)"])
    expect(thrown(() => WasmSimd.groupNormalize({ values: [1, 2], segmentIds: Int32Array.of(0, 5), numSegments: 1 })).reason).toBe("range")
    expect(thrown(() => WasmSimd.groupNormalize({ values: [1, Number.NaN], segmentIds: Int32Array.of(0, 0), numSegments: 1 })).reason).toBe("non-finite")
  })
})

describe("WasmSimd (memory)", () => {
  it("no memory growth per call in steady state", () => {
    const input = ppoInput(Rng.make(29), 256, 16)
    WasmSimd.ppoLoss(input)
    WasmSimd.logSoftmax(input)
    const bytes = WasmSimd.memoryBytes()
    for (let i = 0; i < 20; i++) {
      WasmSimd.ppoLoss(input)
      WasmSimd.logSoftmax(input)
    }
    expect(WasmSimd.memoryBytes()).toBe(bytes)
  })

  it("a resident top-k index: same answers as the reference, edits through index.matrix + refresh(), dispose", () => {
    const rng = Rng.make(30)
    const [Q, M, D] = [3, 500, 16]
    const matrix = normal(rng, M * D)
    const queries = normal(rng, Q * D)
    const index = WasmSimd.makeTopKIndex(matrix, M, D)
    expect(index.prefiltered).toBe(true)
    for (const metric of ["dot", "cosine"] as const) {
      const ref = TopK.topKSync({ queries, matrix, numQueries: Q, numRows: M, dim: D, k: 5, metric })
      expect(Array.from(index.search(queries, Q, 5, metric).indices)).toEqual(Array.from(ref.indices))
    }
    const e0 = Float32Array.from({ length: D }, (_, d) => (d === 0 ? 1 : 0))
    index.matrix.fill(0, 7 * D, 8 * D)
    index.matrix[7 * D] = 100
    // WasmSimd.topK recognizes the resident view (no copy) and reads the float32 rows directly: the edit is seen
    expect(WasmSimd.topK({ queries: e0, matrix: index.matrix, numQueries: 1, numRows: M, dim: D, k: 1, metric: "dot" }).indices[0]).toBe(7)
    index.refresh() // re-derives the int16 copy used by search()
    expect(index.search(e0, 1, 1, "dot").indices[0]).toBe(7)
    index.dispose()
    expect(() => index.matrix).toThrow("after dispose")
  })
})

describe.each(["int16", "int8"] as const)("WasmSimd (top-k %s pre-filter of a resident index: exact)", (prefilter) => {
  it("same indices and scores as the float32 kernel and the reference on random shapes (dim 7, 33, 384; k up to numRows)", () => {
    const rng = Rng.make(31)
    for (const [Q, M, D, k] of [[9, 4000, 384, 10], [5, 3001, 33, 10], [1, 5000, 7, 3], [3, 100, 16, 100]] as const) {
      const matrix = normal(rng, M * D)
      const queries = normal(rng, Q * D)
      const index = WasmSimd.makeTopKIndex(matrix, M, D, { prefilter })
      expect(index.prefiltered).toBe(true)
      for (const metric of ["dot", "cosine"] as const) {
        const input = { queries, matrix, numQueries: Q, numRows: M, dim: D, k, metric }
        const got = index.search(queries, Q, k, metric)
        const f32 = WasmSimd.topK(input)
        expect(Array.from(got.indices)).toEqual(Array.from(TopK.topKSync(input).indices))
        expect(Array.from(got.scores)).toEqual(Array.from(f32.scores))
      }
      index.dispose()
    }
  })

  it("near-equal scores: rows differing below the int16 resolution are still ranked exactly", () => {
    const rng = Rng.make(32)
    const [M, D] = [300, 64]
    const base = normal(rng, D)
    // every row is base + a perturbation of ~1e-5 (far below max|m| / 2047): pass 1 cannot tell them apart
    const matrix = Float32Array.from({ length: M * D }, (_, i) => base[i % D]! + rng.normal(0, 1e-5))
    const index = WasmSimd.makeTopKIndex(matrix, M, D, { prefilter })
    const input = { queries: base, matrix, numQueries: 1, numRows: M, dim: D, k: 5, metric: "dot" as const }
    expect(Array.from(index.search(base, 1, 5, "dot").indices)).toEqual(Array.from(WasmSimd.topK(input).indices))
    index.dispose()
  })

  it("more candidates than the buffer (5000 identical rows) falls back to the float32 kernel: lowest indices win ties", () => {
    const M = 5000
    const D = 8
    const index = WasmSimd.makeTopKIndex(new Float32Array(M * D).fill(0.5), M, D, { prefilter })
    const r = index.search(new Float32Array(D).fill(1), 1, 3, "dot")
    expect(Array.from(r.indices)).toEqual([0, 1, 2])
    close(r.scores, [4, 4, 4], 0, 0)
    index.dispose()
  })

  it("dim > 2048 and a non-finite matrix use the float32 kernel (which names the bad element)", () => {
    const wide = WasmSimd.makeTopKIndex(new Float32Array(3 * 2056).fill(1), 3, 2056, { prefilter })
    expect(wide.prefiltered).toBe(false)
    expect(wide.search(new Float32Array(2056).fill(1), 1, 2, "dot").indices.length).toBe(2)
    wide.dispose()
    const m = new Float32Array(10 * 4)
    m[6 * 4 + 1] = Number.POSITIVE_INFINITY
    const bad = WasmSimd.makeTopKIndex(m, 10, 4, { prefilter })
    expect(bad.prefiltered).toBe(false)
    const e = thrown(() => bad.search([1, 1, 1, 1], 1, 2, "dot"))
    expect([e.kernel, e.backend, e.input, e.detail]).toEqual(["TopK.dot", "wasm-simd", "matrix", "Infinity at [6, 1]"])
    const small = WasmSimd.makeTopKIndex([1, 2, 3, 4], 1, 4, { prefilter })
    const q = thrown(() => small.search([1, Number.NaN, 0, 0], 1, 1, "dot"))
    expect([q.input, q.detail]).toEqual(["queries", "NaN at [0, 1]"])
    small.dispose()
    bad.dispose()
  })
})

describe.each(["int16", "int8"] as const)("WasmSimd (a growing resident top-k index, %s: append and removeRow)", (prefilter) => {
  const reference = (rows: Array<Float32Array>, queries: Float32Array, Q: number, D: number, k: number, metric: "dot" | "cosine") => {
    const matrix = new Float32Array(rows.length * D)
    rows.forEach((r, i) => matrix.set(r, i * D))
    return TopK.topKSync({ queries, matrix, numQueries: Q, numRows: rows.length, dim: D, k, metric })
  }

  it("appends in uneven batches from empty, growing past its capacity (in place and, with a region above, by copy)", () => {
    const rng = Rng.make(40)
    const [Q, D] = [4, 33]
    const queries = normal(rng, Q * D)
    const index = WasmSimd.makeTopKIndex([], 0, D, { capacity: 3, prefilter })
    expect([index.numRows, index.capacity, index.prefiltered]).toEqual([0, 3, true])
    const rows: Array<Float32Array> = []
    let above: WasmSimd.TopKIndex | undefined
    for (const count of [1, 2, 5, 0, 17, 64, 300]) {
      const batch = normal(rng, count * D)
      for (let i = 0; i < count; i++) rows.push(batch.subarray(i * D, (i + 1) * D))
      index.append(batch, count)
      // after the third batch another index sits above this one: the next growth must copy, not resize in place
      if (rows.length === 8) above = WasmSimd.makeTopKIndex(normal(rng, 2 * D), 2, D, { prefilter })
      expect(index.numRows).toBe(rows.length)
      expect(index.capacity).toBeGreaterThanOrEqual(rows.length)
      for (const metric of ["dot", "cosine"] as const) {
        const k = Math.min(5, rows.length)
        const ref = reference(rows, queries, Q, D, k, metric)
        const got = index.search(queries, Q, k, metric)
        expect(Array.from(got.indices)).toEqual(Array.from(ref.indices))
        close(got.scores, ref.scores, 1e-5, 1e-5)
      }
    }
    expect(index.prefiltered).toBe(true)
    expect(Array.from(index.matrix.subarray(0, D))).toEqual(Array.from(rows[0]!))
    above!.dispose()
    index.dispose()
  })

  it("removeRow moves the last row into the hole; searches match the reference on the remaining rows", () => {
    const rng = Rng.make(41)
    const [M, D] = [200, 16]
    const rows = Array.from({ length: M }, () => normal(rng, D))
    const matrix = new Float32Array(M * D)
    rows.forEach((r, i) => matrix.set(r, i * D))
    const index = WasmSimd.makeTopKIndex(matrix, M, D, { prefilter })
    const queries = normal(rng, 2 * D)
    index.search(queries, 2, 3, "cosine") // norms derived before the removals: they must move with the rows
    for (const row of [5, 199 - 1, 0, 120, 17]) {
      const moved = index.removeRow(row)
      const last = rows.length - 1
      expect(moved).toBe(row === last ? -1 : last)
      if (row !== last) rows[row] = rows[last]!
      rows.pop()
      for (const metric of ["dot", "cosine"] as const) {
        const ref = reference(rows, queries, 2, D, 7, metric)
        expect(Array.from(index.search(queries, 2, 7, metric).indices)).toEqual(Array.from(ref.indices))
      }
    }
    expect(index.removeRow(index.numRows - 1)).toBe(-1)
    expect(index.numRows).toBe(M - 6)
    const e = thrown(() => index.removeRow(index.numRows))
    expect([e.input, e.reason]).toEqual(["row", "range"])
    const s = thrown(() => index.append(new Float32Array(D + 1), 1))
    expect([s.input, s.reason]).toEqual(["rows", "shape"])
    index.dispose()
  })

  it("a non-finite appended row turns the pre-filter off and is named by the next search; refresh() after removing it restores it", () => {
    const D = 4
    const index = WasmSimd.makeTopKIndex([1, 0, 0, 0, 0, 1, 0, 0], 2, D, { prefilter })
    index.append([0, 0, Number.NaN, 1], 1)
    expect(index.prefiltered).toBe(false)
    const e = thrown(() => index.search([1, 1, 1, 1], 1, 1, "dot"))
    expect([e.input, e.detail]).toEqual(["matrix", "NaN at [2, 2]"])
    index.removeRow(2)
    index.refresh()
    expect(index.prefiltered).toBe(true)
    expect(Array.from(index.search([0, 1, 0, 0], 1, 1, "dot").indices)).toEqual([1])
    index.dispose()
  })
})

describe("WasmSimd (registry dispatch and fallback)", () => {
  const input = { batch: 1, numActions: 2, logits: [0, 0] }

  it.effect("registered kernels answer on wasm; GAE stays on the typed-array scan; restore unregisters", () =>
    Effect.gen(function* () {
      const registration = WasmSimd.register()
      expect(registration.registered).toEqual(WasmSimd.defaultKernels)
      const r = yield* Softmax.logSoftmax(input)
      expect([r.implementation, r.backendName]).toEqual(["registered", "wasm-simd"])
      expect(r.output.entropy[0]).toBeCloseTo(Math.LN2, 6)
      // the typed-array GAE scan measured faster than wasm-simd at [2048, 256]: the default dispatch runs it
      const g = yield* Gae.run({ numSteps: 1, numEnvs: 1, gamma: 0.9, lambda: 0.9, rewards: [1], values: [0], dones: [0], nextValue: [0], nextDone: [1] })
      expect([g.backendName, g.output.advantages[0]]).toEqual(["typed-array", 1])
      const bad = yield* Effect.flip(Softmax.logSoftmax({ batch: 1, numActions: 2, logits: [0, Number.NaN] }))
      expect([bad._tag, bad.backend]).toEqual(["KernelInputError", "wasm-simd"])
      registration.restore()
      expect(KernelRegistry.getKernelsForBackend("wasm-simd")).toEqual([])
      // still the default without a registration (offered to the default dispatch on import); engine tfjs runs TensorFlow.js
      expect((yield* Softmax.logSoftmax(input)).backendName).toBe("wasm-simd")
      expect((yield* Softmax.logSoftmax(input, { engine: "tfjs" })).implementation).toBe("tfjs")
    }).pipe(Effect.provide(Backend.layerWith({ force: "wasm" }))))

  it.effect("WasmSimd.layer registers while alive; engine wasm-simd without it logs and runs on the backend", () =>
    Effect.gen(function* () {
      const inside = yield* Effect.provide(Softmax.logSoftmax(input, { engine: "wasm-simd" }), WasmSimd.layer)
      expect(inside.backendName).toBe("wasm-simd")
      const logs: Array<string> = []
      const logger = Logger.make(({ message }) => logs.push(String(Array.isArray(message) ? message.join(" ") : message)))
      const outside = yield* Softmax.logSoftmax(input, { engine: "wasm-simd" }).pipe(Effect.provide(Logger.layer([logger])))
      expect([outside.implementation, outside.backendName]).toEqual(["tfjs", "cpu"])
      expect(logs).toEqual(["LogSoftmax: no kernel registered for engine wasm-simd (provide WasmSimd.layer); running on backend cpu"])
    }).pipe(Effect.provide(Backend.layerWith({ force: "cpu" }))))

  it.effect("without SIMD (AUTODIDACT_WASM_SIMD=0) the layer logs why and dispatch uses the next backend", () =>
    Effect.gen(function* () {
      const logs: Array<string> = []
      const logger = Logger.make(({ message }) => logs.push(String(Array.isArray(message) ? message.join(" ") : message)))
      process.env.AUTODIDACT_WASM_SIMD = "0"
      try {
        const r = yield* Softmax.logSoftmax(input).pipe(Effect.provide(WasmSimd.layer), Effect.provide(Logger.layer([logger])))
        expect([r.implementation, r.backendName]).toEqual(["typed-array", "typed-array"]) // the next default engine
      } finally {
        delete process.env.AUTODIDACT_WASM_SIMD
      }
      expect(logs).toEqual(["wasm-simd kernels unavailable (disabled by AUTODIDACT_WASM_SIMD=0); using the next backend"])
    }).pipe(Effect.provide(Backend.layerWith({ force: "cpu" }))))
})

describe("WasmSimd.topK (a non-resident matrix streamed through cache-sized chunks)", () => {
  it("many chunks: the same indices as the reference and the resident index, ties across chunk boundaries by lower row", () => {
    const rng = Rng.make(31)
    const D = 256 // 1024 rows per chunk
    const M = 3500
    const matrix = Float32Array.from({ length: M * D }, () => Math.round(rng.normal() * 4) / 4)
    // exact duplicates straddling chunk boundaries (rows 1023/1024, 2047/2048 and 3071/3072 copy row 5): equal scores
    for (const j of [1023, 1024, 2047, 2048, 3071, 3072]) matrix.copyWithin(j * D, 5 * D, 6 * D)
    const Q = 5
    const queries = Float32Array.from({ length: Q * D }, () => rng.normal())
    queries.set(matrix.subarray(5 * D, 6 * D), 0) // query 0 is row 5: its duplicates tie at the top
    const index = WasmSimd.makeTopKIndex(matrix, M, D)
    try {
      for (const metric of ["dot", "cosine"] as const) {
        for (const k of [1, 7, 10, 40]) {
          const input: TopK.TopKInput = { queries, matrix, numQueries: Q, numRows: M, dim: D, k, metric }
          const got = WasmSimd.topK(input)
          const ref = TopK.topKSync(input)
          expect(Array.from(got.indices)).toEqual(Array.from(ref.indices))
          close(got.scores, ref.scores, 1e-4, 1e-4)
          const resident = index.search(queries, Q, k, metric)
          expect(Array.from(got.indices)).toEqual(Array.from(resident.indices))
          expect(Array.from(got.scores)).toEqual(Array.from(resident.scores))
          if (k >= 7) expect(Array.from(got.indices.subarray(0, 7))).toEqual([5, 1023, 1024, 2047, 2048, 3071, 3072])
        }
      }
      // a plain-array matrix and given row norms take the same path
      const norms = TopK.rowNorms(matrix, M, D)
      const viaNorms = WasmSimd.topK({ queries, matrix, numQueries: Q, numRows: M, dim: D, k: 10, metric: "cosine", rowNorms: norms })
      expect(Array.from(viaNorms.indices)).toEqual(Array.from(index.search(queries, Q, 10, "cosine").indices))
      // a NaN in a late chunk names its global row
      const bad = matrix.slice()
      bad[3333 * D + 7] = Number.NaN
      const e = thrown(() => WasmSimd.topK({ queries, matrix: bad, numQueries: Q, numRows: M, dim: D, k: 3, metric: "dot" }))
      expect([e.input, e.detail]).toEqual(["matrix", "NaN at [3333, 7]"])
    } finally {
      index.dispose()
    }
  })
})

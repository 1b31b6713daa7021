/**
 * Round 2 of the `wasm-simd` kernels: categorical sampling (actions identical to the typed-array reference for the
 * same uniforms, including uniforms placed on and around CDF boundaries, which the kernel hands back to the
 * reference), the same `Rng` draws as `Categorical.sampleSync`, the fused KL means, the degree-5 k3 polynomial's
 * accuracy against `Math.expm1`, and the resident KL workspace (`makeKlBuffers`), with bad input as typed errors.
 */
import { Rng } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Categorical, KernelInputError, Kl, WasmSimd } from "../src/index.js"
import { Backend } from "../src/tfjs.js"
import { close, thrown } from "./helpers.js"

const normal = (rng: Rng, n: number, scale = 1) => Float32Array.from({ length: n }, () => rng.normal(0, scale))
const randomMask = (rng: Rng, B: number, A: number) => {
  const m = Float32Array.from({ length: B * A }, () => (rng.random() < 0.7 ? 1 : 0))
  for (let b = 0; b < B; b++) m[b * A + rng.integers(A)] = 1
  return m
}

describe("WasmSimd.categoricalFromUniforms", () => {
  it("hand-computed: probabilities [1/4, 3/4] (logits [0, ln 3]) and a masked third action", () => {
    const logits = [0, Math.log(3), 10]
    const mask = [1, 1, 0]
    const r = WasmSimd.categoricalFromUniforms({ batch: 4, numActions: 3, logits: [...logits, ...logits, ...logits, ...logits], mask: [...mask, ...mask, ...mask, ...mask], uniforms: [0.1, 0.24, 0.26, 0.999] })
    expect(Array.from(r.actions)).toEqual([0, 0, 1, 1])
    close(r.logProbs, [Math.log(0.25), Math.log(0.25), Math.log(0.75), Math.log(0.75)], 1e-6, 1e-6)
  })

  it("random masked inputs with ragged widths: the reference's actions, log-probs within 1e-5", () => {
    const rng = Rng.make(21)
    for (const [B, A] of [[257, 1], [300, 3], [129, 7], [64, 32], [33, 101]] as const) {
      const input = { batch: B, numActions: A, logits: normal(rng, B * A, 3), mask: randomMask(rng, B, A), uniforms: Categorical.uniforms(rng, B) }
      const ref = Categorical.fromUniformsSync(input)
      const got = WasmSimd.categoricalFromUniforms(input)
      expect(Array.from(got.actions)).toEqual(Array.from(ref.actions))
      close(got.logProbs, ref.logProbs, 1e-5, 1e-5)
      const dense = { batch: B, numActions: A, logits: input.logits, uniforms: input.uniforms }
      expect(Array.from(WasmSimd.categoricalFromUniforms(dense).actions)).toEqual(Array.from(Categorical.fromUniformsSync(dense).actions))
    }
  })

  it("uniforms on and within 1e-9 of every CDF boundary: still the reference's actions (ambiguous rows recomputed)", () => {
    // 4 equal logits: boundaries at exactly 1/4, 1/2, 3/4; also a skewed row with 40 actions (SIMD block skipping)
    const A = 40
    const row = Float32Array.from({ length: A }, (_, a) => (a % 5) * 0.3)
    const p = row.map((z) => Math.exp(z))
    const total = p.reduce((x, y) => x + y, 0)
    const boundaries: Array<number> = []
    let acc = 0
    for (let a = 0; a < A - 1; a++) boundaries.push((acc += p[a]!) / total)
    const cases: Array<[ArrayLike<number>, number, Array<number>]> = [
      [[0, 0, 0, 0], 4, [0.25, 0.5, 0.75]],
      [row, A, boundaries]
    ]
    for (const [logits, n, bs] of cases) {
      const uniforms = bs.flatMap((b) => [b - 1e-9, b, b + 1e-9]).filter((u) => u >= 0 && u < 1)
      const B = uniforms.length
      const input = { batch: B, numActions: n, logits: Float32Array.from({ length: B * n }, (_, i) => logits[i % n]!), uniforms }
      const ref = Categorical.fromUniformsSync(input)
      const got = WasmSimd.categoricalFromUniforms(input)
      expect(Array.from(got.actions)).toEqual(Array.from(ref.actions))
      close(got.logProbs, ref.logProbs, 1e-5, 1e-5)
    }
    // exactly 1/4 with 4 equal actions: the first index whose running sum exceeds u · Σ is 1
    expect(WasmSimd.categoricalFromUniforms({ batch: 1, numActions: 4, logits: [0, 0, 0, 0], uniforms: [0.25] }).actions[0]).toBe(1)
  })

  it("categoricalSample draws the same uniforms as Categorical.sampleSync (same actions, generator advanced by batch draws)", () => {
    const rng = Rng.make(4)
    const [B, A] = [513, 6]
    const input = { batch: B, numActions: A, logits: normal(rng, B * A, 2), mask: randomMask(rng, B, A) }
    const r1 = Rng.make(99)
    const r2 = Rng.make(99)
    const ref = Categorical.sampleSync(r1, input)
    const got = WasmSimd.categoricalSample(r2, input)
    expect(Array.from(got.actions)).toEqual(Array.from(ref.actions))
    expect(r2.random()).toBe(r1.random())
  })

  it("uniformStream: exactly Rng.random()'s stream in bulk (several seeds, spawned children), toRng continues it", () => {
    for (const rng of [Rng.make(0), Rng.make(42), Rng.make(2 ** 40 + 7), ...Rng.make(5).spawn(2)]) {
      const twin = Rng.fromState(rng.getState())
      const stream = WasmSimd.uniformStream(rng)
      const a = stream.draw(1000)
      const b = stream.draw(3)
      const expected = Array.from({ length: 1003 }, () => twin.random())
      expect([...Array.from(a), ...Array.from(b)]).toEqual(expected)
      expect(stream.toRng().random()).toBe(twin.random())
      expect(stream.draw(0).length).toBe(0)
    }
    // NumPy: numpy.random.default_rng(42).random() (core's documented value)
    expect(WasmSimd.uniformStream(Rng.make(42)).draw(1)[0]).toBe(0.7739560485559633)
    expect(thrown(() => WasmSimd.uniformStream(Rng.make(1)).draw(-1))).toBeInstanceOf(KernelInputError)
  })

  it("categoricalSample with a uniformStream: the same actions as Categorical.sampleSync with the same seed", () => {
    const rng = Rng.make(6)
    const [B, A] = [1000, 9]
    const input = { batch: B, numActions: A, logits: normal(rng, B * A, 2), mask: randomMask(rng, B, A) }
    const stream = WasmSimd.uniformStream(Rng.make(12))
    const ref = Rng.make(12)
    for (let round = 0; round < 3; round++) {
      const want = Categorical.sampleSync(ref, input)
      const got = WasmSimd.categoricalSample(stream, input)
      expect(Array.from(got.actions)).toEqual(Array.from(want.actions))
      close(got.logProbs, want.logProbs, 1e-5, 1e-5)
    }
    expect(stream.toRng().random()).toBe(ref.random())
  })

  it("bad input: typed errors naming the kernel, backend wasm-simd and the offending element", () => {
    const nan = thrown(() => WasmSimd.categoricalFromUniforms({ batch: 2, numActions: 2, logits: [0, 1, Number.NaN, 0], uniforms: [0.5, 0.5] }))
    expect(nan).toBeInstanceOf(KernelInputError)
    expect(nan.backend).toBe("wasm-simd")
    expect(nan.kernel).toBe("Categorical")
    expect(nan.reason).toBe("non-finite")
    const u = thrown(() => WasmSimd.categoricalFromUniforms({ batch: 2, numActions: 2, logits: [0, 1, 0, 0], uniforms: [0.5, 1] }))
    expect(u.reason).toBe("range")
    expect(u.message).toMatch(/got 1 at index 1/)
    const empty = thrown(() => WasmSimd.categoricalFromUniforms({ batch: 2, numActions: 2, logits: [0, 1, 0, 0], mask: [1, 1, 0, 0], uniforms: [0.5, 0.5] }))
    expect(empty.reason).toBe("empty-segment")
    const shape = thrown(() => WasmSimd.categoricalFromUniforms({ batch: 2, numActions: 2, logits: [0, 1, 0], uniforms: [0.5, 0.5] }))
    expect(shape.reason).toBe("shape")
    // finite doubles beyond float32 (the kernel sees ±Infinity): the reference's answer, not an error
    const big = { batch: 1, numActions: 2, logits: [1e39, 0], uniforms: [0.5] }
    expect(Array.from(WasmSimd.categoricalFromUniforms(big).actions)).toEqual(Array.from(Categorical.fromUniformsSync(big).actions))
  })

  it.effect("registered by default: Categorical.sample dispatches to wasm-simd on the wasm backend, same actions", () =>
    Effect.gen(function* () {
      expect(WasmSimd.defaultKernels).toContain(Categorical.kernelName)
      const registration = WasmSimd.register()
      try {
        const input = { batch: 3, numActions: 3, logits: [0, 1, 2, 2, 1, 0, 0, 0, 0] }
        const r = yield* Categorical.sample(Rng.make(7), input).pipe(Effect.provide(Backend.layerWith({ force: "wasm" })))
        expect(r.backendName).toBe("wasm-simd")
        expect(Array.from(r.output.actions)).toEqual(Array.from(Categorical.sampleSync(Rng.make(7), input).actions))
      } finally {
        registration.restore()
      }
    }))
})

describe("WasmSimd KL: degree-5 k3, fused means, resident workspace", () => {
  it("k3 matches expm1(x) − x to 2e-6 relative over |x| ≤ 3 (polynomial branch |x| < ½, exp branch beyond)", () => {
    const n = 6001
    const x = Float32Array.from({ length: n }, (_, i) => -3 + (6 * i) / (n - 1))
    const q = new Float32Array(n)
    const r = WasmSimd.klEstimate({ logProbs: q, otherLogProbs: x, estimator: "k3" })
    for (let i = 0; i < n; i++) {
      const xi = x[i]!
      const e = Math.expm1(xi) - xi
      // the exp branch loses ~3e-7 absolute to cancellation near |x| = ½ (e^x − 1 − x ≈ 0.13 there)
      if (!(Math.abs(r.values[i]! - e) <= 2e-6 * e + 1e-12 + (Math.abs(xi) >= 0.5 ? 4e-7 * Math.exp(xi) : 0))) {
        throw new Error(`x = ${xi}: ${r.values[i]} vs ${e}`)
      }
    }
  })

  it("log-ratios beyond float32's exp range (x = 95): the reference's finite double mean, not a saturated value", () => {
    const input = { logProbs: [-100, -1, -2], otherLogProbs: [-5, -1.1, -2], estimator: "k3" as const }
    const ref = Kl.estimateSync(input)
    expect(Number.isFinite(ref.mean)).toBe(true)
    expect(WasmSimd.klEstimate(input).mean).toBe(ref.mean)
    expect(WasmSimd.klMeans(input).k3).toBe(ref.mean)
    const buffers = WasmSimd.makeKlBuffers(3)
    try {
      buffers.logProbs.set(input.logProbs)
      buffers.otherLogProbs.set(input.otherLogProbs)
      expect(buffers.estimate(3, "k3").mean / ref.mean).toBeCloseTo(1, 6)
    } finally {
      buffers.dispose()
    }
  })

  it("klMeans: the three reference means from one pass (7 significant digits), ragged length", () => {
    const rng = Rng.make(8)
    for (const n of [1, 7, 1001, 40_003]) {
      const logProbs = normal(rng, n, 0.5)
      const otherLogProbs = Float32Array.from(logProbs, (v) => v + rng.normal(0, 0.4))
      const m = WasmSimd.klMeans({ logProbs, otherLogProbs })
      for (const k of ["k1", "k2", "k3"] as const) {
        const ref = Kl.estimateSync({ logProbs, otherLogProbs, estimator: k }).mean
        expect(Math.abs(m[k] - ref)).toBeLessThanOrEqual(1e-6 * Math.abs(ref) + 1e-9)
      }
    }
    const bad = thrown(() => WasmSimd.klMeans({ logProbs: [0, 0, 0], otherLogProbs: [0, Number.POSITIVE_INFINITY, 0] }))
    expect(bad).toBeInstanceOf(KernelInputError)
    expect(bad.backend).toBe("wasm-simd")
    expect(bad.message).toMatch(/Infinity/)
  })

  it("makeKlBuffers: results equal klEstimate's, read in place (memory steady), bounds and dispose checked", () => {
    const rng = Rng.make(9)
    const n = 10_000
    const logProbs = normal(rng, n, 0.5)
    const otherLogProbs = Float32Array.from(logProbs, (v) => v + rng.normal(0, 0.3))
    const buffers = WasmSimd.makeKlBuffers(n)
    try {
      buffers.logProbs.set(logProbs)
      buffers.otherLogProbs.set(otherLogProbs)
      for (const estimator of ["k1", "k2", "k3"] as const) {
        const copied = WasmSimd.klEstimate({ logProbs, otherLogProbs, estimator })
        const resident = buffers.estimate(n, estimator)
        expect(Array.from(resident.values)).toEqual(Array.from(copied.values))
        expect(resident.mean).toBe(copied.mean)
        // the views themselves are recognized as resident by klEstimate
        expect(WasmSimd.klEstimate({ logProbs: buffers.logProbs, otherLogProbs: buffers.otherLogProbs, estimator }).mean).toBe(copied.mean)
      }
      const prefix = buffers.estimate(100, "k3")
      expect(prefix.values.length).toBe(100)
      close([prefix.mean], [Kl.estimateSync({ logProbs: logProbs.subarray(0, 100), otherLogProbs: otherLogProbs.subarray(0, 100), estimator: "k3" }).mean], 1e-6, 1e-9)
      expect(buffers.means(n).k3).toBeCloseTo(WasmSimd.klMeans({ logProbs, otherLogProbs }).k3, 12)
      const before = WasmSimd.memoryBytes()
      for (let i = 0; i < 20; i++) buffers.estimate(n, "k3")
      expect(WasmSimd.memoryBytes()).toBe(before)
      expect(thrown(() => buffers.estimate(n + 1, "k3")).reason).toBe("range")
      buffers.otherLogProbs[3] = Number.NaN
      const nan = thrown(() => buffers.estimate(n, "k2"))
      expect(nan.reason).toBe("non-finite")
      expect(nan.message).toMatch(/index 3|\[3\]/)
    } finally {
      buffers.dispose()
    }
    expect(() => buffers.logProbs).toThrow(/after dispose/)
    expect(thrown(() => WasmSimd.makeKlBuffers(0))).toBeInstanceOf(KernelInputError)
  })
})

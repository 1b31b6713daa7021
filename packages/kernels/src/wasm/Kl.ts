/**
 * The `wasm-simd` KL estimators k1/k2/k3 (Schulman, "Approximating KL Divergence", http://joschu.net/blog/kl-approx.html): per-sample values, fused means, and a resident input workspace.
 * @since 0.1.0
 */
import type { Site } from "../KernelError.js"
import { checkShape, checkSize, fail } from "../KernelError.js"
import * as Kl from "../policy/Kl.js"
import { align, alloc, BACKEND_NAME, BASE, commit, prefix, put, reserve, reset, residentEnd, wasm } from "./Module.js"
import type { Exports, Views } from "./Module.js"

const estimatorCode = { k1: 1, k2: 2, k3: 3 } as const

/** The byte offset of `x` when it is a float32 view onto a resident region of this module's memory (no copy). */
const residentF32 = (w: Exports, x: unknown, n: number): number | undefined =>
  x instanceof Float32Array && x.buffer === w.memory.buffer && x.length >= n && x.byteOffset >= BASE && x.byteOffset + 4 * n <= residentEnd()
    ? x.byteOffset
    : undefined

/** Copy `x` (first `n`) into scratch unless it is already resident; its offset. Call between `reset` and `commit`. */
const klInputs = (w: Exports, input: { readonly logProbs: ArrayLike<number>; readonly otherLogProbs: ArrayLike<number> }, n: number) => {
  const rq = residentF32(w, input.logProbs, n)
  const rp = residentF32(w, input.otherLogProbs, n)
  const pq = rq ?? alloc(4 * n)
  const pp = rp ?? alloc(4 * n)
  return {
    pq,
    pp,
    fill: (v: Views) => {
      if (rq === undefined) put(v, pq, prefix(input.logProbs, n))
      if (rp === undefined) put(v, pp, prefix(input.otherLogProbs, n))
    }
  }
}

const klSite = (estimator: string): Site => ({ kernel: `${Kl.kernelName}.${estimator}`, backend: BACKEND_NAME })

/**
 * KL estimates (same contract as `Kl.estimateSync`; float32 values, mean accumulated in doubles). Inputs that are
 * views of a {@link makeKlBuffers} workspace are read in place (no copy).
 */
export const klEstimate = (input: Kl.KlInput): Kl.KlResult => {
  const w = wasm()
  const site = klSite(input.estimator)
  const n = input.logProbs.length
  checkSize(site, "logProbs.length", n)
  checkShape(site, "otherLogProbs", input.otherLogProbs, [n])
  const code = estimatorCode[input.estimator]
  if (code === undefined) fail(site, "estimator", "range", String(input.estimator), "expected k1, k2 or k3")
  reset()
  const inputs = klInputs(w, input, n)
  const pv = alloc(4 * n)
  const v = commit(w)
  inputs.fill(v)
  const sum = w.kl(inputs.pq, inputs.pp, n, code, pv)
  if (sum - sum !== 0) {
    Kl.validate(input, BACKEND_NAME) // names the NaN/±Infinity
    return Kl.estimateSync(input) // finite doubles that overflow float32: the reference's answer
  }
  return { values: v.f32.slice(pv >> 2, (pv >> 2) + n), mean: sum / n }
}

/** The means of the three KL estimators (what PPO's `approx_kl` and GRPO's KL penalty log). */
export interface KlMeans {
  readonly k1: number
  readonly k2: number
  readonly k3: number
}

/**
 * The means of k1, k2 and k3 in one fused pass, without writing per-sample values (float32 per sample, sums in
 * doubles; each mean agrees with `Kl.estimateSync`'s to ~1e-7 relative). Validates like `Kl.estimateSync` (typed
 * errors naming a NaN/±Infinity). Inputs that are views of a {@link makeKlBuffers} workspace are not copied.
 */
export const klMeans = (input: { readonly logProbs: ArrayLike<number>; readonly otherLogProbs: ArrayLike<number> }): KlMeans => {
  const w = wasm()
  const site = klSite("all")
  const n = input.logProbs.length
  checkSize(site, "logProbs.length", n)
  checkShape(site, "otherLogProbs", input.otherLogProbs, [n])
  reset()
  const inputs = klInputs(w, input, n)
  const po = alloc(24)
  const v = commit(w)
  inputs.fill(v)
  w.klSums(inputs.pq, inputs.pp, n, po)
  const o = po >> 3
  const k1 = v.f64[o]!
  const k2 = v.f64[o + 1]!
  const k3 = v.f64[o + 2]!
  if (k1 - k1 !== 0 || k2 - k2 !== 0 || k3 - k3 !== 0) {
    const all = { logProbs: input.logProbs, otherLogProbs: input.otherLogProbs }
    Kl.validate({ ...all, estimator: "k3" }, BACKEND_NAME) // names the NaN/±Infinity
    // finite doubles that overflow float32: the reference's answers
    return { k1: Kl.estimateSync({ ...all, estimator: "k1" }).mean, k2: Kl.estimateSync({ ...all, estimator: "k2" }).mean, k3: Kl.estimateSync({ ...all, estimator: "k3" }).mean }
  }
  return { k1: k1 / n, k2: k2 / n, k3: k3 / n }
}

/** KL inputs (and per-sample outputs) kept in WebAssembly memory: write the log-probabilities once, no copies. */
export interface KlBuffers {
  readonly capacity: number
  /** `log q(x)` `[capacity]`: a fresh float32 view on each access (views detach when the memory grows). */
  readonly logProbs: Float32Array
  /** `log p(x)` `[capacity]`, likewise. */
  readonly otherLogProbs: Float32Array
  /**
   * Estimates of the first `n` samples: `values` is a view onto resident float32 memory (valid until the next call
   * on this workspace; copy it to keep it), `mean` in doubles. Validates like `Kl.estimateSync`.
   */
  readonly estimate: (n: number, estimator: Kl.Estimator) => { readonly values: Float32Array; readonly mean: number }
  /** {@link klMeans} of the first `n` samples, read in place. */
  readonly means: (n: number) => KlMeans
  /** Release the region (reused once every resident region above it is released too). */
  readonly dispose: () => void
}

/**
 * A resident KL workspace of `capacity` samples: fill `buffers.logProbs` / `buffers.otherLogProbs` (e.g. the policy
 * writes its log-probabilities there directly), then `estimate(n, "k3")` or `means(n)` run without copying 2 × 4n
 * bytes in and 4n out. Passing these views to {@link klEstimate} / {@link klMeans} also skips the copy.
 */
export const makeKlBuffers = (capacity: number): KlBuffers => {
  const w = wasm()
  checkSize(klSite("buffers"), "capacity", capacity)
  const stride = align(4 * capacity)
  const region = reserve(w, 3 * stride)
  const at = region.offset
  const view = (k: number): Float32Array => {
    if (!region.live()) throw new Error("KlBuffers used after dispose()")
    return new Float32Array(w.memory.buffer, at + k * stride, capacity)
  }
  const sizeOk = (site: Site, n: number) => {
    checkSize(site, "n", n)
    if (n > capacity) fail(site, "n", "range", `[${n}]`, `at most the capacity ${capacity}`)
  }
  return {
    capacity,
    get logProbs() {
      return view(0)
    },
    get otherLogProbs() {
      return view(1)
    },
    estimate: (n, estimator) => {
      const site = klSite(estimator)
      sizeOk(site, n)
      const code = estimatorCode[estimator]
      if (code === undefined) fail(site, "estimator", "range", String(estimator), "expected k1, k2 or k3")
      const sum = w.kl(at, at + stride, n, code, at + 2 * stride)
      if (sum - sum !== 0) {
        const input = { logProbs: view(0).subarray(0, n), otherLogProbs: view(1).subarray(0, n), estimator }
        Kl.validate(input, BACKEND_NAME) // names the NaN/±Infinity
        const ref = Kl.estimateSync(input) // log-ratios beyond 88 (e^x overflows float32): the reference's answer
        view(2).set(ref.values)
        return { values: view(2).subarray(0, n), mean: ref.mean }
      }
      return { values: view(2).subarray(0, n), mean: sum / n }
    },
    means: (n) => {
      sizeOk(klSite("all"), n)
      return klMeans({ logProbs: view(0).subarray(0, n), otherLogProbs: view(1).subarray(0, n) })
    },
    dispose: region.release
  }
}

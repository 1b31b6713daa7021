/**
 * The `wasm-simd` kernels: WebAssembly SIMD (128-bit `v128`, `f32x4` / `f64x2`) implementations of top-k, masked
 * log-softmax + entropy, categorical sampling (with bulk PCG64 draws continuing a core `Rng`'s stream), KL k1/k2/k3
 * (plus fused means and a resident input workspace), the PPO loss with its gradients, GAE and group normalization, written in
 * AssemblyScript (`wasm/kernels.ts`) and embedded as bytes (`src/generated/wasmSimdBinary.ts`, rebuilt by
 * `npm run build:wasm -w @autodidact/kernels`), so nothing is compiled at install or test time.
 *
 * **When to use**
 *
 * Provide {@link layer} (or call {@link register}) once: the kernels listed in {@link defaultKernels} are registered
 * in the {@link KernelRegistry} under backend {@link BACKEND_NAME}, and `KernelRegistry.run` then prefers them over
 * TensorFlow.js on the `wasm` and `cpu` backends (native `tensorflow` keeps its own kernels), or use
 * `{ engine: "wasm-simd" }` per call. The functions here can also be called directly (`WasmSimd.logSoftmax(input)`),
 * with the same inputs, outputs and typed errors as the typed-array references (`Softmax.logSoftmaxSync`, ...), which
 * stay the ground truth of the parity tests.
 *
 * **Details**
 * - One `WebAssembly.Memory` (the module's), grown as needed and never shrunk. Each call copies its inputs into a
 *   scratch region (a `memcpy` for `Float32Array` inputs), runs, and copies its outputs into freshly allocated result
 *   arrays (as the references do); nothing else is allocated per call in steady state.
 * - Float32 arithmetic inside (`f32x4`), as NumPy's float32 kernels, except GAE and group normalization (doubles, the
 *   same operations in the same order as the references, so the same float32 results) and the PPO loss scalars and
 *   KL mean (accumulated in doubles). `exp` is a float32x4 polynomial after ln 2 range reduction (see `wasm/kernels.ts`).
 * - Top-k: 4 queries × 2 rows per micro-kernel step (8 `f32x4` accumulators) over cache-sized row blocks, a per-query
 *   size-k min-heap whose root is the admission threshold. The matrix is copied in on every call unless it already
 *   lives in this module's memory: {@link makeTopKIndex} copies it once (a resident index, as ONNX Runtime's baked
 *   mode) and adds an exact int16 pre-filter (`i32x4.dot_i16x8_s` with a rigorous error bound, then float32
 *   rescoring of the few candidates); `index.matrix` is a view onto the float32 rows (call `index.refresh()` after
 *   editing it). Views onto the module's memory detach when it grows: re-read `index.matrix` after other calls.
 * - KL: {@link makeKlBuffers} keeps the inputs resident (no copies in or out), {@link klMeans} computes the three
 *   means in one pass. Categorical: the same actions as the reference for the same uniforms (rows whose uniform lies
 *   within the float32 error bound of a CDF boundary are recomputed by the reference); {@link uniformStream} makes the
 *   draws ~60× cheaper than `Rng.random()` while returning exactly the same values.
 * - Bad input is detected inside the kernels without an extra pass (a flag), then the typed-array validator names the
 *   offending element: the same {@link KernelInputError}s as the references, with `backend: "wasm-simd"`.
 * - If WebAssembly SIMD is unavailable (an engine without it, or `AUTODIDACT_WASM_SIMD=0`), {@link load} says why,
 *   {@link register} registers nothing and {@link layer} logs the reason: dispatch goes on to the next backend.
 *
 * @example
 * ```ts
 * import { Backend, Softmax, WasmSimd } from "@autodidact/kernels"
 * import { Effect, Layer } from "effect"
 * const program = Effect.gen(function* () {
 *   const r = yield* Softmax.logSoftmax({ batch: 1, numActions: 3, logits: [0, 0, 5], mask: [1, 1, 0] })
 *   console.log(r.backendName) // "wasm-simd"
 * })
 * Effect.runPromise(Effect.provide(program, Layer.mergeAll(WasmSimd.layer, Backend.layer)))
 * ```
 * @see https://github.com/WebAssembly/simd/blob/main/proposals/simd/SIMD.md
 * @since 0.1.0
 */
import { Effect, Layer } from "effect"
import { Rng } from "@autodidact/core"
import * as Categorical from "./Categorical.js"
import * as Gae from "./Gae.js"
import * as binary from "./generated/wasmSimdBinary.js"
import * as GroupNorm from "./GroupNorm.js"
import type { Site } from "./KernelError.js"
import { checkRange, checkShape, checkSize, fail } from "./KernelError.js"
import * as KernelRegistry from "./KernelRegistry.js"
import * as Kl from "./Kl.js"
import * as PpoLoss from "./PpoLoss.js"
import * as Softmax from "./Softmax.js"
import * as TopK from "./TopK.js"

/** Registry backend name of these kernels. */
export const BACKEND_NAME = "wasm-simd"

/** Set to `0` to disable the module (then {@link load} reports it unavailable). */
export const ENV_VAR = "AUTODIDACT_WASM_SIMD"

/** The part of the `WebAssembly` global used here (not in this project's TypeScript `lib`). */
interface WasmMemory {
  readonly buffer: ArrayBuffer
  grow(pages: number): number
}
interface WasmApi {
  validate(bytes: Uint8Array): boolean
  readonly Module: new (bytes: Uint8Array) => object
  readonly Instance: new (module: object, imports: object) => { readonly exports: unknown }
}

interface Exports {
  readonly memory: WasmMemory
  logSoftmax(z: number, m: number, B: number, A: number, logProbs: number, entropy: number, scratch: number): number
  kl(q: number, p: number, n: number, estimator: number, values: number): number
  klSums(q: number, p: number, n: number, out: number): void
  pcg64Uniforms(st: number, n: number, out: number): void
  categorical(z: number, m: number, B: number, A: number, u: number, actions: number, logProbs: number, scratch: number): number
  ppoLoss(
    z: number, m: number, B: number, A: number, actions: number, oldLogProbs: number, adv: number, values: number, oldValues: number,
    returns: number, c: number, cv: number, clipVloss: number, ent: number, vf: number, dLogits: number, dValues: number, parts: number, scratch: number
  ): number
  topK(qs: number, ms: number, Q: number, M: number, D: number, k: number, invQ: number, invRow: number, heapS: number, heapI: number, blockRows: number): number
  topKBadQuery(): number
  topKBadRow(): number
  inverseNorms(x: number, n: number, D: number, out: number): void
  quantizeRows(x: number, n: number, D: number, Dp: number, out: number, scale: number, l1: number): number
  topKCandidates(
    qq: number, qs: number, ql1: number, mq: number, ms: number, ml1: number, Q: number, M: number, D: number, Dp: number, k: number,
    invQ: number, invRow: number, heapS: number, heapI: number, roots: number, cand: number, candU: number, counts: number, C: number,
    blockRows: number
  ): number
  topKRescore(
    qs: number, ms: number, Q: number, D: number, k: number, invQ: number, invRow: number, lowerHeap: number, cand: number, candU: number,
    counts: number, C: number, heapS: number, heapI: number
  ): number
  gae(
    T: number, N: number, gamma: number, lambda: number, rewards: number, values: number, dones: number, nextValue: number, nextDone: number,
    trunc: number, finalV: number, adv: number, ret: number
  ): number
  groupNorm(x: number, ids: number, n: number, G: number, count: number, ddof: number, eps: number, scale: number, mean: number, std: number, out: number): number
}

/** Whether the module could be instantiated, and why not. */
export type Availability = { readonly ok: true } | { readonly ok: false; readonly reason: string }

let instance: Exports | undefined
let availability: Availability | undefined

/**
 * Instantiate the embedded module (once; synchronous, ~12 KB). Unavailable when `AUTODIDACT_WASM_SIMD=0`, when
 * there is no `WebAssembly`, or when the engine rejects the module (no SIMD support).
 */
export const load = (env: { readonly [key: string]: string | undefined } = process.env): Availability => {
  if (env[ENV_VAR] === "0") return { ok: false, reason: `disabled by ${ENV_VAR}=0` }
  if (availability !== undefined) return availability
  try {
    const wa = (globalThis as { WebAssembly?: WasmApi }).WebAssembly
    if (typeof wa !== "object") throw new Error("this JavaScript engine has no WebAssembly")
    const bytes = Buffer.from(binary.base64, "base64")
    if (bytes.length !== binary.byteLength) throw new Error(`embedded module is ${bytes.length} bytes, expected ${binary.byteLength}`)
    if (!wa.validate(bytes)) throw new Error("the WebAssembly engine rejects the module (no SIMD support?)")
    instance = new wa.Instance(new wa.Module(bytes), {}).exports as Exports
    availability = { ok: true }
  } catch (e) {
    availability = { ok: false, reason: (e instanceof Error ? e.message : String(e)).split("\n")[0]!.slice(0, 300) }
  }
  return availability
}

const wasm = (): Exports => {
  if (instance !== undefined) return instance
  const a = load()
  if (!a.ok) throw new Error(`WebAssembly SIMD kernels unavailable: ${a.reason}`)
  return instance!
}

// ---------------------------------------------------------------------------------------------- memory

/** Start of the arena (the module's static data ends below 4 KiB). */
const BASE = 65536
/** Resident regions (top-k indexes) are stacked from BASE; scratch starts at `residentTop`. */
let residentTop = BASE
const residents: Array<{ readonly offset: number; readonly bytes: number; live: boolean }> = []
let cursor = BASE

const align = (n: number): number => (n + 15) & ~15

/** Start a call's scratch allocations. */
const reset = (): void => {
  cursor = residentTop
}

/** A 16-byte aligned scratch region of `bytes` bytes. */
const alloc = (bytes: number): number => {
  const p = cursor
  cursor += align(Math.max(bytes, 0))
  return p
}

interface Views {
  readonly f32: Float32Array
  readonly f64: Float64Array
  readonly i32: Int32Array
}

let views: Views | undefined

/** Grow the memory to hold everything allocated so far; the (cached) views onto the current buffer. */
const commit = (w: Exports): Views => {
  const need = cursor
  const have = w.memory.buffer.byteLength
  if (need > have) w.memory.grow(Math.ceil((need - have) / 65536))
  const buffer = w.memory.buffer
  if (views === undefined || views.f32.buffer !== buffer) views = { f32: new Float32Array(buffer), f64: new Float64Array(buffer), i32: new Int32Array(buffer) }
  return views
}

/** Bytes currently held by the module's memory (diagnostics, and the steady-state test). */
export const memoryBytes = (): number => (load().ok ? instance!.memory.buffer.byteLength : 0)

const put = (v: Views, p: number, x: ArrayLike<number>): void => {
  v.f32.set(x, p >> 2)
}

// ---------------------------------------------------------------------------------------------- log-softmax

/** Masked log-softmax and entropy (same contract as `Softmax.logSoftmaxSync`; float32 inside). */
export const logSoftmax = (input: Softmax.SoftmaxInput): Softmax.SoftmaxResult => {
  const w = wasm()
  const { batch: B, numActions: A, logits, mask } = input
  const site: Site = { kernel: Softmax.kernelName, backend: BACKEND_NAME }
  checkSize(site, "batch", B)
  checkSize(site, "numActions", A)
  checkShape(site, "logits", logits, [B, A])
  if (mask !== undefined) checkShape(site, "mask", mask, [B, A])
  const n = B * A
  reset()
  const pz = alloc(4 * n)
  const pm = mask === undefined ? 0 : alloc(4 * n)
  const plp = alloc(4 * n)
  const ph = alloc(4 * B)
  const ps = alloc(4 * A)
  const v = commit(w)
  put(v, pz, logits)
  if (mask !== undefined) put(v, pm, mask)
  const bad = w.logSoftmax(pz, pm, B, A, plp, ph, ps)
  if (bad > 0) {
    Softmax.validate(input, Softmax.kernelName, BACKEND_NAME) // throws the precise error
    return Softmax.logSoftmaxSync(input) // finite doubles that overflow float32: the reference's answer
  }
  return { logProbs: v.f32.slice(plp >> 2, (plp >> 2) + n), entropy: v.f32.slice(ph >> 2, (ph >> 2) + B) }
}

// ---------------------------------------------------------------------------------------------- KL

const estimatorCode = { k1: 1, k2: 2, k3: 3 } as const

/** The byte offset of `x` when it is a float32 view onto a resident region of this module's memory (no copy). */
const residentF32 = (w: Exports, x: unknown, n: number): number | undefined =>
  x instanceof Float32Array && x.buffer === w.memory.buffer && x.length >= n && x.byteOffset >= BASE && x.byteOffset + 4 * n <= residentTop
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

/**
 * Reserve a resident region of `bytes` bytes (stacked like the top-k indexes): its offset and a release function.
 * The memory grows at once to cover it.
 */
const reserve = (w: Exports, bytes: number): { readonly offset: number; readonly release: () => void; readonly live: () => boolean } => {
  const offset = residentTop
  const size = align(bytes)
  residentTop += size
  const entry = { offset, bytes: size, live: true }
  residents.push(entry)
  reset()
  commit(w)
  return {
    offset,
    live: () => entry.live,
    release: () => {
      entry.live = false
      while (residents.length > 0 && !residents[residents.length - 1]!.live) residentTop = residents.pop()!.offset
    }
  }
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

// ---------------------------------------------------------------------------------------------- uniforms

/**
 * The stream of a core `Rng`'s `random()` draws, generated in bulk by WebAssembly (PCG64 with 64-bit integer
 * arithmetic, ~100× faster per draw than `Rng.random()`'s 16-bit-limb arithmetic here). Created from an `Rng`'s
 * state ({@link uniformStream}); the `Rng` itself is not advanced, so continue with the stream and hand its state
 * back with {@link UniformStream.toRng} (e.g. for a checkpoint).
 */
export interface UniformStream {
  /** The next `n` draws: exactly the values `n` calls of `rng.random()` would have returned. */
  readonly draw: (n: number) => Float64Array
  /** A core `Rng` continuing this stream (its `random()` returns the draw after the last one taken here). */
  readonly toRng: () => Rng
}

/** The PCG64 state words `[stateLo, stateHi, incLo, incHi]` (u64 as 8 u32 words) from 16-bit limbs. */
const wordsOf = (state: ReadonlyArray<number>, inc: ReadonlyArray<number>): Uint32Array => {
  const w = new Uint32Array(8)
  for (let k = 0; k < 4; k++) {
    w[k] = (state[2 * k]! | (state[2 * k + 1]! << 16)) >>> 0
    w[4 + k] = (inc[2 * k]! | (inc[2 * k + 1]! << 16)) >>> 0
  }
  return w
}

/** The live PCG64 words of each stream (the categorical kernel draws straight into the module's memory with them). */
const streamWords = new WeakMap<UniformStream, Uint32Array>()

/** Run the PCG64 kernel for `n` draws into `out` (a byte offset) with the state `words` (updated in place). */
const pcgRun = (w: Exports, v: Views, words: Uint32Array, pst: number, n: number, out: number): void => {
  v.i32.set(words, pst >> 2)
  w.pcg64Uniforms(pst, n, out)
  for (let k = 0; k < 4; k++) words[k] = v.i32[(pst >> 2) + k]! >>> 0
}

/** Bulk draws continuing `rng`'s `random()` stream (see {@link UniformStream}). */
export const uniformStream = (rng: Rng): UniformStream => {
  const saved = rng.getState()
  const words = wordsOf(saved.state, saved.inc)
  const site: Site = { kernel: "Uniforms", backend: BACKEND_NAME }
  const run = (n: number, into: (v: Views, at: number) => void) => {
    const w = wasm()
    reset()
    const pst = alloc(32)
    const pout = alloc(8 * n)
    const v = commit(w)
    pcgRun(w, v, words, pst, n, pout)
    into(v, pout >> 3)
  }
  const stream: UniformStream = {
    draw: (n) => {
      checkSize(site, "n", n, true)
      const out = new Float64Array(n)
      if (n > 0) run(n, (v, at) => out.set(v.f64.subarray(at, at + n)))
      return out
    },
    toRng: () => {
      const state: Array<number> = []
      for (let k = 0; k < 4; k++) state.push(words[k]! & 0xffff, words[k]! >>> 16)
      return Rng.fromState({ ...saved, state })
    },
  }
  streamWords.set(stream, words)
  return stream
}

// ---------------------------------------------------------------------------------------------- categorical

/** Rows the kernel could not decide in float32 (a uniform within rounding of a CDF boundary): the reference's answer. */
const categoricalRow = (input: Categorical.CategoricalInput, b: number, u: number): { action: number; logProb: number } => {
  const A = input.numActions
  const row = (x: ArrayLike<number>) => (ArrayBuffer.isView(x) ? (x as Float32Array).subarray(b * A, b * A + A) : Array.from({ length: A }, (_, a) => x[b * A + a]!))
  const r = Categorical.fromUniformsSync({
    batch: 1,
    numActions: A,
    logits: row(input.logits),
    ...(input.mask === undefined ? {} : { mask: row(input.mask) }),
    uniforms: [u]
  })
  return { action: r.actions[0]!, logProb: r.logProbs[0]! }
}

const categoricalRun = (input: Softmax.SoftmaxInput, uniforms: ArrayLike<number> | Rng | UniformStream): Categorical.CategoricalResult => {
  const w = wasm()
  const { batch: B, numActions: A, logits, mask } = input
  const site: Site = { kernel: Categorical.kernelName, backend: BACKEND_NAME }
  checkSize(site, "batch", B)
  checkSize(site, "numActions", A)
  checkShape(site, "logits", logits, [B, A])
  if (mask !== undefined) checkShape(site, "mask", mask, [B, A])
  const words = streamWords.get(uniforms as UniformStream)
  const fromRng = uniforms instanceof Rng
  const given = !fromRng && words === undefined
  if (given) checkShape(site, "uniforms", uniforms as ArrayLike<number>, [B])
  const n = B * A
  reset()
  const pz = alloc(4 * n)
  const pm = mask === undefined ? 0 : alloc(4 * n)
  const pu = alloc(8 * B)
  const pa = alloc(4 * B)
  const plp = alloc(4 * B)
  const ps = alloc(4 * A)
  const pst = alloc(32)
  const v = commit(w)
  put(v, pz, logits)
  if (mask !== undefined) put(v, pm, mask)
  const uo = pu >> 3
  if (words !== undefined) pcgRun(w, v, words, pst, B, pu) // in bulk, straight into the module's memory
  else if (fromRng) {
    const rng = uniforms as Rng
    for (let b = 0; b < B; b++) v.f64[uo + b] = rng.random()
  } else v.f64.set(uniforms as ArrayLike<number>, uo)
  const bad = w.categorical(pz, pm, B, A, pu, pa, plp, ps)
  const full: Categorical.CategoricalInput = { ...input, uniforms: given ? (uniforms as ArrayLike<number>) : v.f64.slice(uo, uo + B) }
  if (bad > 0) {
    Categorical.validate(full, BACKEND_NAME) // throws the precise error
    return Categorical.fromUniformsSync(full) // finite doubles that overflow float32: the reference's answer
  }
  const actions = v.i32.slice(pa >> 2, (pa >> 2) + B)
  const logProbs = v.f32.slice(plp >> 2, (plp >> 2) + B)
  for (let b = 0; b < B; b++) {
    if (actions[b]! >= 0) continue
    const r = categoricalRow(full, b, full.uniforms[b]!)
    actions[b] = r.action
    logProbs[b] = r.logProb
  }
  return { actions, logProbs }
}

/**
 * Inverse-CDF sampling with given uniforms (same contract and errors as `Categorical.fromUniformsSync`): per row a
 * masked max / `exp` (float32x4) / running sum in WebAssembly. The actions are the reference's for the same uniforms:
 * a row whose uniform lies within the float32 rounding bound of a CDF boundary (about 1e-5 of the row's mass) is
 * recomputed by the reference. `logProbs` are float32 (within 1e-5 of the reference's).
 */
export const categoricalFromUniforms = (input: Categorical.CategoricalInput): Categorical.CategoricalResult => categoricalRun(input, input.uniforms)

/**
 * Sample one action per row (same draws, in row order, as `Categorical.sampleSync`, so the same actions), then as
 * {@link categoricalFromUniforms}. With a core `Rng` the draws are `rng.random()` calls (advancing `rng`); with a
 * {@link UniformStream} (from {@link uniformStream}) they are generated in bulk by WebAssembly straight into the
 * module's memory, the fast path (the same values).
 */
export const categoricalSample = (source: Rng | UniformStream, input: Softmax.SoftmaxInput): Categorical.CategoricalResult =>
  categoricalRun(input, source)

// ---------------------------------------------------------------------------------------------- PPO loss

interface PpoPointers {
  readonly bad: number
  readonly pd: number
  readonly pdv: number
  readonly pparts: number
  readonly v: Views
}

/** The first `n` elements (a view for typed arrays). */
const prefix = (x: ArrayLike<number>, n: number): ArrayLike<number> =>
  x.length === n ? x : ArrayBuffer.isView(x) ? (x as Float32Array).subarray(0, n) : Array.from({ length: n }, (_, i) => x[i]!)

/** `exact`: every array has exactly its shape's length; else at least (only the prefix is read, as `lossAndGradientInto`). */
const ppoRun = (input: PpoLoss.PpoLossInput, site: Site, exact: boolean): PpoPointers => {
  const w = wasm()
  const B = input.batch
  const A = input.numActions
  checkSize(site, "batch", B)
  checkSize(site, "numActions", A)
  const check = (name: string, x: ArrayLike<number> | undefined, shape: ReadonlyArray<number>) => {
    if (exact || x === undefined || x.length < shape.reduce((a, b) => a * b, 1)) checkShape(site, name, x, shape)
  }
  check("logits", input.logits, [B, A])
  if (input.mask !== undefined) check("mask", input.mask, [B, A])
  for (const name of ["actions", "oldLogProbs", "advantages", "values", "oldValues", "returns"] as const) check(name, input[name], [B])
  const c = input.clipCoef ?? 0.2
  const cv = input.vfClipCoef ?? c
  const ent = input.entCoef ?? 0.01
  const vf = input.vfCoef ?? 0.5
  checkRange(site, "clipCoef", c, 0, 1e9)
  checkRange(site, "vfClipCoef", cv, 0, Number.MAX_VALUE)
  checkRange(site, "entCoef", ent, -Number.MAX_VALUE, Number.MAX_VALUE)
  checkRange(site, "vfCoef", vf, -Number.MAX_VALUE, Number.MAX_VALUE)
  const n = B * A
  reset()
  const pz = alloc(4 * n)
  const pm = input.mask === undefined ? 0 : alloc(4 * n)
  const pa = alloc(4 * B)
  const pold = alloc(4 * B)
  const padv = alloc(4 * B)
  const pval = alloc(4 * B)
  const poldv = alloc(4 * B)
  const pret = alloc(4 * B)
  const pd = alloc(8 * n)
  const pdv = alloc(8 * B)
  const pparts = alloc(8 * 6)
  const ps = alloc(4 * A)
  const v = commit(w)
  put(v, pz, prefix(input.logits, n))
  if (input.mask !== undefined) put(v, pm, prefix(input.mask, n))
  v.i32.set(prefix(input.actions, B), pa >> 2)
  put(v, pold, prefix(input.oldLogProbs, B))
  put(v, padv, prefix(input.advantages, B))
  put(v, pval, prefix(input.values, B))
  put(v, poldv, prefix(input.oldValues, B))
  put(v, pret, prefix(input.returns, B))
  const bad = w.ppoLoss(pz, pm, B, A, pa, pold, padv, pval, poldv, pret, c, cv, (input.clipVloss ?? true) ? 1 : 0, ent, vf, pd, pdv, pparts, ps)
  return { bad, pd, pdv, pparts, v }
}

const partsOf = (r: PpoPointers): PpoLoss.PpoLossParts => {
  const o = r.pparts >> 3
  const f = r.v.f64
  if (r.bad > 0) {
    const nan = Number.NaN
    return { loss: nan, policyLoss: nan, valueLoss: nan, entropy: nan, approxKl: nan, clipFraction: nan }
  }
  return { loss: f[o]!, policyLoss: f[o + 1]!, valueLoss: f[o + 2]!, entropy: f[o + 3]!, approxKl: f[o + 4]!, clipFraction: f[o + 5]! }
}

/**
 * PPO loss and gradients (same contract as `PpoLoss.lossAndGradientSync`: validates, typed errors). Float32 inside
 * per element; the loss parts are accumulated in doubles.
 */
export const ppoLoss = (input: PpoLoss.PpoLossInput): PpoLoss.PpoLossResult => {
  PpoLoss.validate(input, BACKEND_NAME, false) // the [batch] arrays and actions (O(batch)); logits are checked in the kernel
  const r = ppoRun(input, { kernel: PpoLoss.kernelName, backend: BACKEND_NAME }, true)
  if (r.bad > 0) {
    Softmax.validate(input, PpoLoss.kernelName, BACKEND_NAME) // throws the precise error for bad logits/mask
    return PpoLoss.lossAndGradientSync(input) // finite inputs whose loss overflows float32: the reference's doubles
  }
  const n = input.batch * input.numActions
  return { ...partsOf(r), dLogits: r.v.f64.slice(r.pd >> 3, (r.pd >> 3) + n), dValues: r.v.f64.slice(r.pdv >> 3, (r.pdv >> 3) + input.batch) }
}

/**
 * The allocation-free form for training loops (same contract as `PpoLoss.lossAndGradientInto`, a drop-in
 * replacement): checks sizes (arrays may be longer; only the prefix is read) and coefficients, trusts the values;
 * bad values (NaN, an invalid action, a row without a valid action) give NaN parts. `out.logProbs` is not used.
 */
export const ppoLossInto = (input: PpoLoss.PpoLossInput, out: PpoLoss.PpoLossBuffers): PpoLoss.PpoLossParts => {
  const site: Site = { kernel: PpoLoss.kernelName, backend: BACKEND_NAME }
  const n = input.batch * input.numActions
  if (out.dLogits.length < n) fail(site, "dLogits", "shape", `[${out.dLogits.length}]`, `buffer needs at least ${n} elements`)
  if (out.dValues.length < input.batch) fail(site, "dValues", "shape", `[${out.dValues.length}]`, `buffer needs at least ${input.batch} elements`)
  const r = ppoRun(input, site, false)
  out.dLogits.set(r.v.f64.subarray(r.pd >> 3, (r.pd >> 3) + n))
  out.dValues.set(r.v.f64.subarray(r.pdv >> 3, (r.pdv >> 3) + input.batch))
  return partsOf(r)
}

// ---------------------------------------------------------------------------------------------- top-k

const sortHeaps = (hs: Float32Array, hsOff: number, hi: Int32Array, hiOff: number, Q: number, k: number): TopK.TopKResult => {
  const indices = new Int32Array(Q * k)
  const scores = new Float32Array(Q * k)
  const order = Array.from({ length: k }, (_, i) => i)
  for (let q = 0; q < Q; q++) {
    const s = hsOff + q * k
    const x = hiOff + q * k
    order.sort((a, b) => hs[s + b]! - hs[s + a]! || hi[x + a]! - hi[x + b]!)
    for (let i = 0; i < k; i++) {
      indices[q * k + i] = hi[x + order[i]!]!
      scores[q * k + i] = hs[s + order[i]!]!
    }
    for (let i = 0; i < k; i++) order[i] = i
  }
  return { indices, scores }
}

/** The matrix's byte offset when it is a view onto this module's memory (no copy needed). */
const residentOffset = (w: Exports, m: unknown): number | undefined =>
  m instanceof Float32Array && m.buffer === w.memory.buffer && m.byteOffset >= BASE && m.byteOffset + m.byteLength <= residentTop ? m.byteOffset : undefined

const topKCore = (w: Exports, input: TopK.TopKInput, site: Site, matrixAt: number | undefined, invRowAt: number | undefined): TopK.TopKResult => {
  const { numQueries: Q, numRows: M, dim: D, k } = input
  const cosine = input.metric === "cosine"
  reset()
  const pq = alloc(4 * Q * D)
  const pm = matrixAt ?? alloc(4 * M * D)
  const pinvQ = alloc(4 * Q)
  const pinvRow = cosine ? invRowAt ?? alloc(4 * M) : 0
  const phs = alloc(4 * Q * k)
  const phi = alloc(4 * Q * k)
  const v = commit(w)
  put(v, pq, input.queries)
  if (matrixAt === undefined) put(v, pm, input.matrix)
  if (cosine) {
    w.inverseNorms(pq, Q, D, pinvQ)
    if (invRowAt === undefined) {
      if (input.rowNorms !== undefined) {
        const o = pinvRow >> 2
        const rn = input.rowNorms
        for (let j = 0; j < M; j++) v.f32[o + j] = rn[j]! > 0 ? 1 / rn[j]! : 0
      } else w.inverseNorms(pm, M, D, pinvRow)
    }
  }
  v.f32.fill(-Infinity, phs >> 2, (phs >> 2) + Q * k)
  v.i32.fill(-1, phi >> 2, (phi >> 2) + Q * k)
  const blockRows = Math.max(2, Math.floor(TopK.BLOCK_BYTES / (4 * D)))
  const ok = w.topK(pq, pm, Q, M, D, k, pinvQ, pinvRow, phs, phi, blockRows)
  if (ok === 0) TopK.reportNonFinite(site, input, w.topKBadQuery(), w.topKBadRow())
  return sortHeaps(v.f32, phs >> 2, v.i32, phi >> 2, Q, k)
}

/**
 * Exact top-k (same contract as `TopK.topKSync`; float32 dot products). The matrix is copied into the module's
 * memory on each call, unless it is the `matrix` view of a {@link makeTopKIndex} index.
 */
export const topK = (input: TopK.TopKInput): TopK.TopKResult => {
  const w = wasm()
  const site = TopK.validate(input, BACKEND_NAME)
  return topKCore(w, input, site, residentOffset(w, input.matrix), undefined)
}

/** An embedding matrix kept in the module's memory (copied once), searched without copying it again. */
export interface TopKIndex {
  readonly numRows: number
  readonly dim: number
  /**
   * A view onto the resident float32 matrix (a fresh view on each access: the memory may have grown). Read it freely;
   * after writing through it call {@link TopKIndex.refresh} (the int16 copy and the cosine norms are derived from it).
   */
  readonly matrix: Float32Array
  /** Exact top-k of `[numQueries, dim]` queries against the resident matrix (same contract as `TopK.topKSync`). */
  readonly search: (queries: ArrayLike<number>, numQueries: number, k: number, metric: "dot" | "cosine") => TopK.TopKResult
  /** Re-derive the int16 copy and the cosine norms after editing `matrix`. */
  readonly refresh: () => void
  /** Release the memory (reused once every index above it is released too). */
  readonly dispose: () => void
  /** Whether searches use the int16 pre-filter (dim ≤ 2048 and a finite matrix), else the float32 kernel alone. */
  readonly prefiltered: boolean
}

/** Largest dimension of the int16 pre-filter (each int32 lane accumulates dim/4 products of ≤ 2047²). */
export const PREFILTER_MAX_DIM = 2048

/**
 * Copy `[numRows, dim]` rows into the module's memory once: a {@link TopKIndex}. Besides the float32 rows it keeps an
 * int16 copy (per-row scale `max|m_j| / 2047`) for a two-pass exact search: pass 1 scores every row with int16 dot
 * products (`i32x4.dot_i16x8_s`: 8 multiply-adds per instruction, half the memory traffic) and keeps, per query, the
 * rows whose rigorous upper bound (quantization error `(s_j/2)‖q‖₁ + (s_q/2)‖m_j‖₁ + dim·s_q·s_j/4` plus float32
 * rounding slack) reaches the k-th best lower bound; pass 2 rescores those candidates with the float32 kernel. The
 * result is the same as the float32 kernel's (the bound guarantees no true top-k row is dropped); a query with more
 * than `max(4096, 16k)` candidates (many near-equal scores) falls back to the float32 kernel.
 */
export const makeTopKIndex = (matrix: ArrayLike<number>, numRows: number, dim: number): TopKIndex => {
  const w = wasm()
  const site: Site = { kernel: TopK.kernelName, backend: BACKEND_NAME }
  checkSize(site, "numRows", numRows)
  checkSize(site, "dim", dim)
  checkShape(site, "matrix", matrix, [numRows, dim])
  const M = numRows
  const D = dim
  const Dp = (D + 7) & ~7
  const usePrefilter = D <= PREFILTER_MAX_DIM
  const offset = residentTop
  const invAt = offset + align(4 * M * D)
  const qAt = invAt + align(4 * M)
  const scaleAt = qAt + (usePrefilter ? align(2 * M * Dp) : 0)
  const l1At = scaleAt + (usePrefilter ? align(4 * M) : 0)
  const bytes = l1At + (usePrefilter ? align(4 * M) : 0) - offset
  residentTop += bytes
  const entry = { offset, bytes, live: true }
  residents.push(entry)
  reset()
  const v = commit(w)
  put(v, offset, matrix)
  let normsValid = false
  let quantized = false
  const derive = () => {
    normsValid = false
    quantized = usePrefilter && w.quantizeRows(offset, M, D, Dp, qAt, scaleAt, l1At) !== 0
  }
  derive()
  const view = (): Float32Array => new Float32Array(w.memory.buffer, offset, M * D)
  const live = () => {
    if (!entry.live) throw new Error("TopKIndex used after dispose()")
  }
  const search = (queries: ArrayLike<number>, Q: number, k: number, metric: "dot" | "cosine"): TopK.TopKResult => {
    live()
    const input: TopK.TopKInput = { queries, matrix: view(), numQueries: Q, numRows: M, dim: D, k, metric }
    const s = TopK.validate(input, BACKEND_NAME)
    const cosine = metric === "cosine"
    if (cosine && !normsValid) {
      w.inverseNorms(offset, M, D, invAt)
      normsValid = true
    }
    if (!quantized) return topKCore(w, input, s, offset, cosine ? invAt : undefined)
    const C = Math.min(M, Math.max(4096, 16 * k))
    reset()
    const pq = alloc(4 * Q * D)
    const pinvQ = alloc(4 * Q)
    const pqq = alloc(2 * Q * Dp)
    const pqs = alloc(4 * Q)
    const pql1 = alloc(4 * Q)
    const plowS = alloc(4 * Q * k)
    const plowI = alloc(4 * Q * k)
    const proots = alloc(4 * Q)
    const pcand = alloc(4 * Q * C)
    const pcandU = alloc(4 * Q * C)
    const pcount = alloc(4 * Q)
    const phs = alloc(4 * Q * k)
    const phi = alloc(4 * Q * k)
    const vv = commit(w)
    put(vv, pq, queries)
    // non-finite queries: the float32 kernel names the element
    if (w.quantizeRows(pq, Q, D, Dp, pqq, pqs, pql1) === 0) return topKCore(w, input, s, offset, cosine ? invAt : undefined)
    if (cosine) w.inverseNorms(pq, Q, D, pinvQ)
    vv.f32.fill(-Infinity, plowS >> 2, (plowS >> 2) + Q * k)
    vv.i32.fill(-1, plowI >> 2, (plowI >> 2) + Q * k)
    vv.f32.fill(-Infinity, proots >> 2, (proots >> 2) + Q)
    vv.i32.fill(0, pcount >> 2, (pcount >> 2) + Q)
    const blockRows = Math.max(2, Math.floor(TopK.BLOCK_BYTES / (2 * Dp)))
    const invRow = cosine ? invAt : 0
    if (w.topKCandidates(pqq, pqs, pql1, qAt, scaleAt, l1At, Q, M, D, Dp, k, pinvQ, invRow, plowS, plowI, proots, pcand, pcandU, pcount, C, blockRows) === 0) {
      return topKCore(w, input, s, offset, cosine ? invAt : undefined) // too many near-ties: the float32 kernel
    }
    vv.f32.fill(-Infinity, phs >> 2, (phs >> 2) + Q * k)
    vv.i32.fill(-1, phi >> 2, (phi >> 2) + Q * k)
    if (w.topKRescore(pq, offset, Q, D, k, pinvQ, invRow, plowS, pcand, pcandU, pcount, C, phs, phi) === 0) {
      TopK.reportNonFinite(s, input, w.topKBadQuery(), w.topKBadRow())
    }
    return sortHeaps(vv.f32, phs >> 2, vv.i32, phi >> 2, Q, k)
  }
  return {
    numRows,
    dim,
    get matrix() {
      live()
      return view()
    },
    get prefiltered() {
      return quantized
    },
    search,
    refresh: () => {
      live()
      derive()
    },
    dispose: () => {
      entry.live = false
      while (residents.length > 0 && !residents[residents.length - 1]!.live) {
        const r = residents.pop()!
        residentTop = r.offset
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------- GAE

/** GAE (same contract and errors as `Gae.computeSync`; doubles inside, the reference's float32 results). */
export const gae = (input: Gae.GaeInput): Gae.GaeResult => {
  const w = wasm()
  const { numSteps: T, numEnvs: N } = input
  const n = T * N
  const lengthsOk = Number.isInteger(T) && T >= 1 && Number.isInteger(N) && N >= 1 && input.gamma >= 0 && input.gamma <= 1 &&
    input.lambda >= 0 && input.lambda <= 1 && input.rewards?.length === n && input.values?.length === n && input.dones?.length === n &&
    input.nextValue?.length === N && input.nextDone?.length === N &&
    ((input.truncations === undefined && input.finalValues === undefined) || (input.truncations?.length === n && input.finalValues?.length === n))
  if (!lengthsOk) Gae.validate(input) // throws GaeShapeError
  const truncated = input.truncations !== undefined
  reset()
  const pr = alloc(4 * n)
  const pv = alloc(4 * n)
  const pd = alloc(4 * n)
  const pnv = alloc(4 * N)
  const pnd = alloc(4 * N)
  const pt = truncated ? alloc(4 * n) : 0
  const pf = truncated ? alloc(4 * n) : 0
  const pa = alloc(4 * n)
  const pret = alloc(4 * n)
  const v = commit(w)
  put(v, pr, input.rewards)
  put(v, pv, input.values)
  put(v, pd, input.dones)
  put(v, pnv, input.nextValue)
  put(v, pnd, input.nextDone)
  if (truncated) {
    put(v, pt, input.truncations!)
    put(v, pf, input.finalValues!)
  }
  const ok = w.gae(T, N, input.gamma, input.lambda, pr, pv, pd, pnv, pnd, pt, pf, pa, pret)
  if (ok === 0) {
    Gae.validate(input) // throws NonFiniteValueError / GaeShapeError naming the element
    return Gae.computeSync(input) // valid input whose results overflow float32: the reference's answer
  }
  return { advantages: v.f32.slice(pa >> 2, (pa >> 2) + n), returns: v.f32.slice(pret >> 2, (pret >> 2) + n) }
}

// ---------------------------------------------------------------------------------------------- group norm

/** Group-relative normalization (same contract as `GroupNorm.groupNormalizeSync`; doubles inside). */
export const groupNormalize = (input: GroupNorm.NormalizeInput): Float32Array => {
  const w = wasm()
  const site: Site = { kernel: GroupNorm.kernelName, backend: BACKEND_NAME }
  const n = input.values.length
  const G = input.numSegments
  checkSize(site, "numSegments", G)
  checkSize(site, "values.length", n)
  checkShape(site, "segmentIds", input.segmentIds, [n])
  if (input.ddof !== undefined) checkSize(site, "ddof", input.ddof, true)
  // ids must be exact integers: an Int32Array is by construction, anything else is checked by the reference validator
  if (!(input.segmentIds instanceof Int32Array)) GroupNorm.validate(input, GroupNorm.kernelName, BACKEND_NAME)
  reset()
  const px = alloc(4 * n)
  const pids = alloc(4 * n)
  const pc = alloc(4 * G)
  const pmean = alloc(8 * G)
  const pstd = alloc(8 * G)
  const pout = alloc(4 * n)
  const v = commit(w)
  put(v, px, input.values)
  v.i32.set(input.segmentIds, pids >> 2)
  const code = w.groupNorm(px, pids, n, G, pc, input.ddof ?? 1, input.eps ?? 1e-4, input.scale === false ? 0 : 1, pmean, pstd, pout)
  if (code !== 0) {
    GroupNorm.validate(input, GroupNorm.kernelName, BACKEND_NAME) // names the bad id, empty segment or value
    return GroupNorm.groupNormalizeSync(input) // valid input whose results overflow float32
  }
  return v.f32.slice(pout >> 2, (pout >> 2) + n)
}

// ---------------------------------------------------------------------------------------------- registration

/** Every kernel this module implements, by registry kernel name. */
export const kernels: { readonly [kernelName: string]: (input: any) => unknown } = {
  [TopK.kernelName]: topK,
  [Softmax.kernelName]: logSoftmax,
  [Kl.kernelName]: klEstimate,
  [Categorical.kernelName]: categoricalFromUniforms,
  [PpoLoss.kernelName]: ppoLoss,
  [Gae.kernelName]: gae,
  [GroupNorm.kernelName]: groupNormalize
}

/**
 * The kernels {@link register} registers by default: those that beat both the typed-array references and the
 * TensorFlow.js `wasm` backend in every run of the README's measurements (all seven; see the README for where NumPy
 * is still faster).
 */
export const defaultKernels: ReadonlyArray<string> = [
  TopK.kernelName,
  Softmax.kernelName,
  Categorical.kernelName,
  Kl.kernelName,
  PpoLoss.kernelName,
  Gae.kernelName,
  GroupNorm.kernelName
]

/** What {@link register} did. */
export interface Registration {
  readonly registered: ReadonlyArray<string>
  /** Set when nothing was registered because the module is unavailable. */
  readonly unavailable?: string | undefined
  /** Restore what was registered before. */
  readonly restore: () => void
}

/** Register `names` (default {@link defaultKernels}) for backend {@link BACKEND_NAME}; nothing when unavailable. */
export const register = (names: ReadonlyArray<string> = defaultKernels): Registration => {
  const a = load()
  if (!a.ok) return { registered: [], unavailable: a.reason, restore: () => {} }
  const restores = names.map((kernelName) => {
    const kernelFunc = kernels[kernelName]
    if (kernelFunc === undefined) throw new Error(`WasmSimd.register: no wasm-simd kernel named ${kernelName}`)
    return KernelRegistry.registerKernel({ kernelName, backendName: BACKEND_NAME, kernelFunc: (inputs: unknown) => kernelFunc(inputs) })
  })
  return {
    registered: names,
    restore: () => {
      for (const r of restores.reverse()) r()
    }
  }
}

/**
 * Registers {@link defaultKernels} while the layer is alive (restored when its scope closes); when WebAssembly SIMD
 * is unavailable it logs the reason (`Effect.logWarning`) and registers nothing, so dispatch uses the next backend.
 */
export const layer: Layer.Layer<never> = Layer.effectDiscard(
  Effect.acquireRelease(
    Effect.sync(() => register()).pipe(
      Effect.tap((r) =>
        r.unavailable === undefined ? Effect.void : Effect.logWarning(`${BACKEND_NAME} kernels unavailable (${r.unavailable}); using the next backend`)
      )
    ),
    (r) => Effect.sync(r.restore)
  )
)

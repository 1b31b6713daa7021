/**
 * The `wasm-simd` categorical sampling (inverse CDF over masked logits) and bulk PCG64 uniform draws continuing a core `Rng`'s stream.
 * @since 0.1.0
 */
import { Rng } from "@autodidact/core"
import * as Categorical from "../policy/Categorical.js"
import type { Site } from "../KernelError.js"
import { checkShape, checkSize } from "../KernelError.js"
import * as Softmax from "../policy/Softmax.js"
import { BACKEND_NAME, alloc, commit, put, reset, type Exports, type Views, wasm } from "./Module.js"

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

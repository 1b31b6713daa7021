/**
 * The forward and backward pass of an actor-critic pair of tanh MLPs (CleanRL `ppo.py`'s `Agent`: actor
 * `obsDim → hidden → hidden → numActions`, critic `obsDim → hidden → hidden → 1`) in WebAssembly SIMD (float32x4),
 * the `wasm-simd` engine of `@autodidact/optim`'s `ActorCritic` (whose `typed-array` engine is the float64 reference
 * these kernels are tested against).
 *
 * **Parameter layout** (one flat float32 vector, {@link numParams} long), tensor after tensor: actor `W1 [obsDim,
 * hidden]`, `b1 [hidden]`, `W2 [hidden, hidden]`, `b2 [hidden]`, `W3 [hidden, numActions]`, `b3 [numActions]`, then
 * critic `W1`, `b1`, `W2`, `b2`, `W3 [hidden, 1]`, `b3 [1]`; a weight `[in, out]` is row-major (`y = x · W + b`, the
 * transpose of PyTorch's `[out, in]`). Gradients use the same layout.
 *
 * **Details**
 * - Each {@link Workspace} owns a WebAssembly instance and its memory (parameters, gradients, the activations of the
 *   last forward pass for the backward pass), grown when a batch outgrows it, never shrunk; the compiled module is
 *   shared. A {@link forward} copies the parameters in (a `memcpy`), so the caller's `Float32Array` stays the one
 *   source of truth and may be changed freely between calls (an optimizer step).
 * - Float32 arithmetic (PyTorch's CPU default): products accumulated in float32, tanh by a rational approximation
 *   (Eigen's `generic_fast_tanh_float`, within 4e-7 of `Math.tanh`). Results agree with a float64 evaluation to about
 *   1e-6 relative; a fixed input gives bit-identical results on every run and machine (no threads, no FMA contraction).
 * - Matrix loops: blocks of 4 rows × 8 outputs (8 `f32x4` accumulators) for the forward pass and the weight gradient;
 *   the input gradient transposes the weight once per call and reuses the forward kernel.
 * - **One MLP alone** ({@link numParamsSingle}, {@link forwardSingle}, {@link backwardSingle}): the actor's half,
 *   `obsDim → hidden → hidden → numActions` with the actor's layout (`W1, b1, W2, b2, W3, b3`), for regression heads
 *   (the solvers' Deep CFR advantage networks); the same workspace and kernels, no critic work.
 *   {@link weightedMse} is the loss they train with (Keras' `MeanSquaredError` with `sample_weight`).
 * - Unavailable (see {@link load}) when WebAssembly SIMD is missing or `AUTODIDACT_WASM_SIMD=0`: callers fall back to
 *   their typed-array path.
 *
 * Sources: `wasm/mlp.ts` (AssemblyScript), embedded by `npm run build:wasm -w @autodidact/kernels`.
 * @see https://github.com/vwxyzjn/cleanrl/blob/master/cleanrl/ppo.py (`Agent`)
 * @since 0.2.0
 */
import { KernelInputError } from "../KernelError.js"
import * as binary from "../generated/wasmMlpBinary.js"
import { type Availability, compileEmbedded, ENV_VAR, processEnv, type WasmApi, type WasmMemory } from "../wasm/Module.js"

/** Network sizes (all positive integers). */
export interface Sizes {
  readonly obsDim: number
  readonly hidden: number
  readonly numActions: number
}

interface Exports {
  readonly memory: WasmMemory
  dense(w: number, bias: number, x: number, B: number, I: number, O: number, y: number, act: number): void
  denseGrad(x: number, dy: number, B: number, I: number, O: number, gw: number, gb: number): void
  denseInputGradTanh(w: number, a: number, dy: number, B: number, I: number, O: number, dx: number, wt: number): void
  tanhInPlace(y: number, n: number): void
}

/** Byte offsets of the twelve parameter tensors (W1, b1, W2, b2, W3, b3 of the actor, then of the critic). */
type Offsets = ReadonlyArray<number>

/** A network's memory in its own instance: regions (byte offsets) and views, re-taken after growth. */
export interface Workspace {
  readonly sizes: Sizes
  readonly numParams: number
  /** Rows the activation regions hold now. */
  capacity: number
  /** @internal */
  readonly exports: Exports
  /** @internal parameter tensor offsets (bytes, relative to the parameter or gradient region) */
  readonly tensors: Offsets
  /** @internal region offsets (bytes) */
  regions: Regions
  /** @internal */
  f32: Float32Array
}

interface Regions {
  readonly params: number
  readonly grad: number
  readonly wt: number
  readonly x: number
  readonly a1: number
  readonly a2: number
  readonly c1: number
  readonly c2: number
  readonly logits: number
  readonly values: number
  readonly dLogits: number
  readonly dValues: number
  readonly d1: number
  readonly d2: number
  readonly end: number
}

/** Number of parameters of the pair of MLPs. */
export const numParams = ({ obsDim: D, hidden: H, numActions: A }: Sizes): number => 2 * (D * H + H + H * H + H) + H * A + A + H + 1

const tensorOffsets = ({ obsDim: D, hidden: H, numActions: A }: Sizes): Offsets => {
  const sizes = [D * H, H, H * H, H, H * A, A, D * H, H, H * H, H, H, 1]
  const out: Array<number> = []
  let k = 0
  for (const n of sizes) {
    out.push(k * 4)
    k += n
  }
  return out
}

const align = (bytes: number): number => (bytes + 15) & ~15
/** The module's static data ends far below one page. */
const BASE = 65536

const layoutRegions = (s: Sizes, P: number, cap: number): Regions => {
  let at = BASE
  const take = (floats: number): number => {
    const p = at
    at += align(floats * 4)
    return p
  }
  const H = s.hidden
  return {
    params: take(P),
    grad: take(P),
    wt: take(Math.max(H * H, H * s.numActions, s.obsDim * H)),
    x: take(cap * s.obsDim),
    a1: take(cap * H),
    a2: take(cap * H),
    c1: take(cap * H),
    c2: take(cap * H),
    logits: take(cap * s.numActions),
    values: take(cap),
    dLogits: take(cap * s.numActions),
    dValues: take(cap),
    d1: take(cap * H),
    d2: take(cap * H),
    end: at // evaluated last, after every take
  }
}

let compiled: { readonly wa: WasmApi; readonly module: object } | undefined
let availability: Availability | undefined

/**
 * Compile the embedded module (once; synchronous, ~3 KB). Unavailable when `AUTODIDACT_WASM_SIMD=0`, when there is no
 * `WebAssembly`, or when the engine rejects the module (no SIMD support); the reason says which.
 */
export const load = (env: { readonly [key: string]: string | undefined } = processEnv()): Availability => {
  if (env[ENV_VAR] === "0") return { ok: false, reason: `disabled by ${ENV_VAR}=0` }
  if (availability === undefined) {
    const c = compileEmbedded(binary.base64, binary.byteLength)
    compiled = c.ok ? c : undefined
    availability = c.ok ? { ok: true } : { ok: false, reason: c.reason }
  }
  return availability
}

const grow = (ws: Workspace, cap: number): void => {
  const regions = layoutRegions(ws.sizes, ws.numParams, cap)
  const have = ws.exports.memory.buffer.byteLength
  if (regions.end > have) ws.exports.memory.grow(Math.ceil((regions.end - have) / 65536))
  ws.regions = regions
  ws.capacity = cap
  ws.f32 = new Float32Array(ws.exports.memory.buffer)
}

const checkSizes = (s: Sizes): void => {
  for (const key of ["obsDim", "hidden", "numActions"] as const) {
    const v = s[key]
    if (!Number.isInteger(v) || v < 1) {
      throw new KernelInputError({ kernel: "MlpSimd", backend: "wasm-simd", input: key, reason: "range", shape: "[]", detail: `must be a positive integer, got ${v}` })
    }
  }
}

/**
 * A workspace for networks of these sizes, with activation room for `capacity` rows (grown on demand). Throws
 * `KernelInputError` for sizes that are not positive integers and `Error` (with {@link load}'s reason) when the module
 * is unavailable.
 */
export const make = (sizes: Sizes, capacity = 16): Workspace => {
  checkSizes(sizes)
  const a = load()
  if (!a.ok) throw new Error(`MlpSimd unavailable: ${a.reason}`)
  const exports = new compiled!.wa.Instance(compiled!.module, {}).exports as Exports
  const s: Sizes = { obsDim: sizes.obsDim, hidden: sizes.hidden, numActions: sizes.numActions }
  const ws: Workspace = {
    sizes: s,
    numParams: numParams(s),
    capacity: 0,
    exports,
    tensors: tensorOffsets(s),
    regions: layoutRegions(s, numParams(s), 0),
    f32: new Float32Array(0)
  }
  grow(ws, Math.max(1, capacity))
  return ws
}

/** Copy `params` (unless null) and the batch's input rows into the workspace; grow it first if needed. */
const loadBatch = (ws: Workspace, params: Float32Array | null, obs: ArrayLike<number>, batch: number, rows: ArrayLike<number> | undefined, rowOffset: number): void => {
  if (batch > ws.capacity) grow(ws, Math.max(batch, 2 * ws.capacity))
  const D = ws.sizes.obsDim
  const f = ws.f32
  if (params !== null) f.set(params, ws.regions.params >> 2)
  const x = ws.regions.x >> 2
  for (let b = 0; b < batch; b++) {
    const src = (rows === undefined ? b : rows[rowOffset + b]!) * D
    for (let i = 0; i < D; i++) f[x + b * D + i] = obs[src + i]!
  }
}

/** The actor MLP's forward pass on the loaded batch, outputs in the `logits` region. */
const actorForward = (ws: Workspace, batch: number): void => {
  const { obsDim: D, hidden: H, numActions: A } = ws.sizes
  const r = ws.regions
  const t = ws.tensors
  const e = ws.exports
  const p = r.params
  e.dense(p + t[0]!, p + t[1]!, r.x, batch, D, H, r.a1, 1)
  e.dense(p + t[2]!, p + t[3]!, r.a1, batch, H, H, r.a2, 1)
  e.dense(p + t[4]!, p + t[5]!, r.a2, batch, H, A, r.logits, 0)
}

/** Copy dL/d(actor outputs) in and run the actor's backward pass into the gradient region (critic untouched). */
const actorBackward = (ws: Workspace, batch: number, dLogits: ArrayLike<number>): void => {
  if (batch > ws.capacity) {
    throw new KernelInputError({ kernel: "MlpSimd", backend: "wasm-simd", input: "batch", reason: "range", shape: "[]", detail: `${batch} exceeds the last forward's capacity ${ws.capacity}` })
  }
  const { obsDim: D, hidden: H, numActions: A } = ws.sizes
  const r = ws.regions
  const f = ws.f32
  const t = ws.tensors
  const e = ws.exports
  const dl = r.dLogits >> 2
  for (let k = 0; k < batch * A; k++) f[dl + k] = dLogits[k]!
  const p = r.params
  const g = r.grad
  // actor: logits = a2 W3 + b3; a2 = tanh(a1 W2 + b2); a1 = tanh(x W1 + b1)
  e.denseGrad(r.a2, r.dLogits, batch, H, A, g + t[4]!, g + t[5]!)
  e.denseInputGradTanh(p + t[4]!, r.a2, r.dLogits, batch, H, A, r.d2, r.wt)
  e.denseGrad(r.a1, r.d2, batch, H, H, g + t[2]!, g + t[3]!)
  e.denseInputGradTanh(p + t[2]!, r.a1, r.d2, batch, H, H, r.d1, r.wt)
  e.denseGrad(r.x, r.d1, batch, D, H, g + t[0]!, g + t[1]!)
}

/**
 * Forward pass of both MLPs on `batch` rows of `obs` (`[*, obsDim]`, any numeric array; row `rows[rowOffset + b]`
 * when `rows` is given, else row `b`), with parameters `params` (`numParams` floats, layout above): writes the actor's
 * logits (`[batch, numActions]`) into `logits` and the critic's values (`[batch]`) into `values`, and keeps the
 * activations for {@link backward}. Throws `KernelInputError` when `params` has the wrong length.
 */
export const forward = (
  ws: Workspace,
  params: Float32Array,
  obs: ArrayLike<number>,
  batch: number,
  rows: ArrayLike<number> | undefined,
  rowOffset: number,
  logits: Float64Array | Float32Array,
  values: Float64Array | Float32Array
): void => {
  if (params.length !== ws.numParams) {
    throw new KernelInputError({ kernel: "MlpSimd", backend: "wasm-simd", input: "params", reason: "shape", shape: `[${params.length}]`, detail: `expected ${ws.numParams} parameters` })
  }
  loadBatch(ws, params, obs, batch, rows, rowOffset)
  actorForward(ws, batch)
  const { obsDim: D, hidden: H, numActions: A } = ws.sizes
  const r = ws.regions
  const f = ws.f32
  const t = ws.tensors
  const e = ws.exports
  const p = r.params
  e.dense(p + t[6]!, p + t[7]!, r.x, batch, D, H, r.c1, 1)
  e.dense(p + t[8]!, p + t[9]!, r.c1, batch, H, H, r.c2, 1)
  e.dense(p + t[10]!, p + t[11]!, r.c2, batch, H, 1, r.values, 0)
  const lo = r.logits >> 2
  for (let k = 0; k < batch * A; k++) logits[k] = f[lo + k]!
  const vo = r.values >> 2
  for (let b = 0; b < batch; b++) values[b] = f[vo + b]!
}

/**
 * Backward pass for the `batch` rows of the last {@link forward}: given dL/dlogits (`[batch, numActions]`) and
 * dL/dvalues (`[batch]`), ADDS dL/dθ (layout above) into `grad` (the caller zeroes it first). `batch` must be the
 * last forward's batch.
 */
export const backward = (ws: Workspace, batch: number, dLogits: ArrayLike<number>, dValues: ArrayLike<number>, grad: Float64Array | Float32Array): void => {
  actorBackward(ws, batch, dLogits)
  const { obsDim: D, hidden: H } = ws.sizes
  const r = ws.regions
  const f = ws.f32
  const t = ws.tensors
  const e = ws.exports
  const dv = r.dValues >> 2
  for (let b = 0; b < batch; b++) f[dv + b] = dValues[b]!
  const p = r.params
  const g = r.grad
  // critic
  e.denseGrad(r.c2, r.dValues, batch, H, 1, g + t[10]!, g + t[11]!)
  e.denseInputGradTanh(p + t[10]!, r.c2, r.dValues, batch, H, 1, r.d2, r.wt)
  e.denseGrad(r.c1, r.d2, batch, H, H, g + t[8]!, g + t[9]!)
  e.denseInputGradTanh(p + t[8]!, r.c1, r.d2, batch, H, H, r.d1, r.wt)
  e.denseGrad(r.x, r.d1, batch, D, H, g + t[6]!, g + t[7]!)
  const go = g >> 2
  for (let k = 0; k < ws.numParams; k++) grad[k] = grad[k]! + f[go + k]!
}

/** tanh of each element of `x` by the kernels' float32 approximation (for tests of its accuracy). */
export const tanh = (ws: Workspace, x: ArrayLike<number>): Float32Array => {
  if (x.length > ws.capacity * ws.sizes.hidden) grow(ws, Math.ceil(x.length / ws.sizes.hidden))
  const at = ws.regions.a1
  ws.f32.set(x, at >> 2)
  ws.exports.tanhInPlace(at, x.length)
  return ws.f32.slice(at >> 2, (at >> 2) + x.length)
}

/** Number of parameters of one MLP `obsDim → hidden → hidden → numActions` (the actor's tensors alone). */
export const numParamsSingle = ({ obsDim: D, hidden: H, numActions: A }: Sizes): number => D * H + H + H * H + H + H * A + A

/**
 * Forward pass of ONE MLP (the actor's layout, {@link numParamsSingle} floats in `params`) on `batch` rows of `obs`
 * (`[*, obsDim]`; row `rows[rowOffset + b]` when `rows` is given): writes the outputs (`[batch, numActions]`) into
 * `out` and keeps the activations for {@link backwardSingle}. `params` `null` reuses the parameters of the previous
 * call on this workspace (no copy: cheap one-row inference with a fixed network). Throws `KernelInputError` when
 * `params` has the wrong length.
 */
export const forwardSingle = (
  ws: Workspace,
  params: Float32Array | null,
  obs: ArrayLike<number>,
  batch: number,
  rows: ArrayLike<number> | undefined,
  rowOffset: number,
  out: Float64Array | Float32Array
): void => {
  if (params !== null && params.length !== numParamsSingle(ws.sizes)) {
    throw new KernelInputError({ kernel: "MlpSimd", backend: "wasm-simd", input: "params", reason: "shape", shape: `[${params.length}]`, detail: `expected ${numParamsSingle(ws.sizes)} parameters (one MLP)` })
  }
  loadBatch(ws, params, obs, batch, rows, rowOffset)
  actorForward(ws, batch)
  const A = ws.sizes.numActions
  const r = ws.regions
  const f = ws.f32
  const lo = r.logits >> 2
  for (let k = 0; k < batch * A; k++) out[k] = f[lo + k]!
}

/**
 * Backward pass of ONE MLP for the `batch` rows of the last {@link forwardSingle}: given dL/dout (`[batch,
 * numActions]`), ADDS dL/dθ ({@link numParamsSingle} floats, actor layout) into `grad`.
 */
export const backwardSingle = (ws: Workspace, batch: number, dOut: ArrayLike<number>, grad: Float64Array | Float32Array): void => {
  actorBackward(ws, batch, dOut)
  const f = ws.f32
  const g = ws.regions.grad
  const go = g >> 2
  const n = numParamsSingle(ws.sizes)
  for (let k = 0; k < n; k++) grad[k] = grad[k]! + f[go + k]!
}

/**
 * Weighted mean squared error as Keras' `MeanSquaredError()(y, ŷ, sample_weight=w)` (the loss of OpenSpiel's
 * `deep_cfr_tf2.py`): `L = (1/B) Σ_b w_b · (1/K) Σ_k (ŷ_bk − y_bk)²` over `batch` rows of `width` outputs, with
 * `pred`, `target` `[batch, width]` and `weight` `[batch]`. Writes dL/dŷ into `dPred` (`[batch, width]`) and returns
 * `L`. Throws `KernelInputError` when an array is shorter than its shape or `batch`/`width` is not a positive integer.
 */
export const weightedMse = (
  pred: ArrayLike<number>,
  target: ArrayLike<number>,
  weight: ArrayLike<number>,
  batch: number,
  width: number,
  dPred: Float64Array | Float32Array
): number => {
  const bad = (input: string, detail: string) =>
    new KernelInputError({ kernel: "weightedMse", backend: "typed-array", input, reason: "shape", shape: `[${batch}, ${width}]`, detail })
  if (!Number.isInteger(batch) || batch < 1) throw bad("batch", `batch must be a positive integer, got ${batch}`)
  if (!Number.isInteger(width) || width < 1) throw bad("width", `width must be a positive integer, got ${width}`)
  const n = batch * width
  if (pred.length < n) throw bad("pred", `length ${pred.length} < ${n}`)
  if (target.length < n) throw bad("target", `length ${target.length} < ${n}`)
  if (dPred.length < n) throw bad("dPred", `length ${dPred.length} < ${n}`)
  if (weight.length < batch) throw bad("weight", `length ${weight.length} < ${batch}`)
  const scale = 1 / (batch * width)
  let loss = 0
  for (let b = 0; b < batch; b++) {
    const w = weight[b]!
    for (let k = 0; k < width; k++) {
      const i = b * width + k
      const d = pred[i]! - target[i]!
      loss += w * d * d
      dPred[i] = 2 * w * d * scale
    }
  }
  return loss * scale
}

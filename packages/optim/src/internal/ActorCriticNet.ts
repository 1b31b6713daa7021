/**
 * The actor-critic network's structure and initialization: sizes, the flat parameter layout (CleanRL's `Agent`
 * names, transposed weights), scratch buffers, orthogonal initialization (PyTorch's `nn.init.orthogonal_`) and
 * construction. Re-exported by the public {@link ActorCritic} namespace.
 * @see Saxe, McClelland, Ganguli, arXiv:1312.6120 (orthogonal initialization)
 * @internal
 * @since 0.2.0
 */
import type { Rng } from "@autodidact/core"
import { MlpSimd } from "@autodidact/kernels"

/** One parameter tensor in the flat vector. */
export interface LayerSpec {
  readonly name: string
  readonly shape: ReadonlyArray<number>
  readonly offset: number
  readonly size: number
}

/** Network sizes. */
export interface Sizes {
  /** Length of a flattened observation. */
  readonly obsDim: number
  /** Number of discrete actions. */
  readonly numActions: number
  /** Hidden width (CleanRL: 64). */
  readonly hidden: number
}

/** Per-batch activations kept by {@link forward} for {@link backward}. */
export interface Cache {
  capacity: number
  x: Float64Array
  a1: Float64Array
  a2: Float64Array
  c1: Float64Array
  c2: Float64Array
  logits: Float64Array
  values: Float64Array
  d2: Float64Array
  d1: Float64Array
  probs: Float64Array
}

/**
 * Which implementation runs the forward and backward passes (the parameters, their layout and every other function
 * are the same):
 * - `"typed-array"`: plain JavaScript loops in float64 (activations, gradients) over the float32 parameters: the
 *   reference, checked against finite differences;
 * - `"wasm-simd"`: the `MlpSimd` kernels of `@autodidact/kernels` (WebAssembly SIMD, float32 as PyTorch; ~10× faster
 *   on CartPole's 128-row minibatches; agrees with `"typed-array"` to ~1e-6 relative). Requested where WebAssembly SIMD
 *   is unavailable (or `AUTODIDACT_WASM_SIMD=0`), it falls back to `"typed-array"`: `net.engine` says which runs.
 */
export type Engine = "typed-array" | "wasm-simd"

/** The engines, fastest first. */
export const engines: ReadonlyArray<Engine> = ["wasm-simd", "typed-array"]

/**
 * The actor-critic: sizes, the flat parameter vector and scratch buffers.
 * @category models
 */
export interface ActorCritic extends Sizes {
  readonly params: Float32Array
  readonly layout: ReadonlyArray<LayerSpec>
  /** The engine that runs {@link forward}/{@link backward} (see {@link Engine}). */
  readonly engine: Engine
  /** @internal scratch buffers (grown on demand, never shrunk) */
  readonly cache: Cache
  /** @internal the `wasm-simd` engine's workspace (activations kept for the backward pass) */
  readonly simd: MlpSimd.Workspace | undefined
}

/** The engine that runs when `requested` is asked for: `"wasm-simd"` falls back to `"typed-array"` where unavailable. */
export const resolveEngine = (requested: Engine = "typed-array"): Engine =>
  requested === "wasm-simd" && !MlpSimd.load().ok ? "typed-array" : requested

const withEngine = (sizes: Sizes, params: Float32Array, specs: ReadonlyArray<LayerSpec>, requested: Engine | undefined): ActorCritic => {
  const engine = resolveEngine(requested)
  const simd = engine === "wasm-simd" ? MlpSimd.make(sizes) : undefined
  return { ...sizes, params, layout: specs, engine, cache: newCache(sizes, 16), simd }
}

/** The parameter layout of a network with these sizes (names as CleanRL's `Agent.state_dict()`, transposed weights). */
export const layout = ({ obsDim, numActions, hidden }: Sizes): Array<LayerSpec> => {
  const shapes: Array<[string, Array<number>]> = [
    ["actor.0.weight", [obsDim, hidden]],
    ["actor.0.bias", [hidden]],
    ["actor.2.weight", [hidden, hidden]],
    ["actor.2.bias", [hidden]],
    ["actor.4.weight", [hidden, numActions]],
    ["actor.4.bias", [numActions]],
    ["critic.0.weight", [obsDim, hidden]],
    ["critic.0.bias", [hidden]],
    ["critic.2.weight", [hidden, hidden]],
    ["critic.2.bias", [hidden]],
    ["critic.4.weight", [hidden, 1]],
    ["critic.4.bias", [1]]
  ]
  let offset = 0
  return shapes.map(([name, shape]) => {
    const size = shape.reduce((a, b) => a * b, 1)
    const spec = { name, shape, offset, size }
    offset += size
    return spec
  })
}

/** Scratch buffers for batches of up to `capacity` rows. */
export const newCache = (s: Sizes, capacity: number): Cache => ({
  capacity,
  x: new Float64Array(capacity * s.obsDim),
  a1: new Float64Array(capacity * s.hidden),
  a2: new Float64Array(capacity * s.hidden),
  c1: new Float64Array(capacity * s.hidden),
  c2: new Float64Array(capacity * s.hidden),
  logits: new Float64Array(capacity * s.numActions),
  values: new Float64Array(capacity),
  d2: new Float64Array(capacity * s.hidden),
  d1: new Float64Array(capacity * s.hidden),
  probs: new Float64Array(capacity * s.numActions)
})

/** The network's scratch, grown (never shrunk) to hold `batch` rows. */
export const ensure = (net: ActorCritic, batch: number): Cache => {
  if (net.cache.capacity < batch) Object.assign(net.cache, newCache(net, batch))
  return net.cache
}

/**
 * Orthogonal initialization as PyTorch's `nn.init.orthogonal_(w, gain)` for a weight of torch shape `[rows, cols]`
 * (`rows = out`, `cols = in`): QR of a standard normal matrix (Gram-Schmidt, signs fixed so R has a positive
 * diagonal), times `gain`. Writes the transpose (`[in, out]`) into `out` at `offset`.
 */
export const orthogonalInto = (out: Float32Array, offset: number, inDim: number, outDim: number, gain: number, rng: Rng): void => {
  const rows = outDim
  const cols = inDim
  const tall = rows >= cols
  const m = tall ? rows : cols
  const n = tall ? cols : rows
  // column-major m×n matrix q (columns are the vectors to orthonormalize)
  const q = new Float64Array(m * n)
  for (let k = 0; k < m * n; k++) q[k] = rng.normal()
  for (let j = 0; j < n; j++) {
    for (let p = 0; p < j; p++) {
      let dot = 0
      for (let i = 0; i < m; i++) dot += q[p * m + i]! * q[j * m + i]!
      for (let i = 0; i < m; i++) q[j * m + i] = q[j * m + i]! - dot * q[p * m + i]!
    }
    let norm = 0
    for (let i = 0; i < m; i++) norm += q[j * m + i]! * q[j * m + i]!
    norm = Math.sqrt(norm)
    for (let i = 0; i < m; i++) q[j * m + i] = q[j * m + i]! / norm
  }
  // torch weight W[r][c]: tall → W = Q (m = rows), else W = Qᵀ (m = cols); we store Wᵀ: out[c * rows + r]
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const w = tall ? q[c * m + r]! : q[r * m + c]!
      out[offset + c * rows + r] = gain * w
    }
  }
}

/** Options of {@link make}. */
export interface MakeOptions {
  readonly obsDim: number
  readonly numActions: number
  /** Hidden width, default 64. */
  readonly hidden?: number | undefined
  /** Generator for the orthogonal initialization. */
  readonly rng: Rng
  /** Forward/backward implementation, default `"typed-array"` (see {@link Engine}). */
  readonly engine?: Engine | undefined
}

/** A freshly initialized actor-critic (CleanRL's `Agent(envs)`). */
export const make = (options: MakeOptions): ActorCritic => {
  const sizes: Sizes = { obsDim: options.obsDim, numActions: options.numActions, hidden: options.hidden ?? 64 }
  const specs = layout(sizes)
  const last = specs[specs.length - 1]!
  const params = new Float32Array(last.offset + last.size)
  const gains = [Math.SQRT2, Math.SQRT2, 0.01, Math.SQRT2, Math.SQRT2, 1]
  for (let l = 0; l < 6; l++) {
    const w = specs[2 * l]!
    orthogonalInto(params, w.offset, w.shape[0]!, w.shape[1]!, gains[l]!, options.rng)
  }
  return withEngine(sizes, params, specs, options.engine)
}

/**
 * A network with the given sizes and parameters (e.g. from a checkpoint), run by `engine` (default `"typed-array"`).
 * Throws `RangeError` when `params` does not have the layout's length.
 */
export const fromParams = (sizes: Sizes, params: Float32Array, engine?: Engine): ActorCritic => {
  const specs = layout(sizes)
  const last = specs[specs.length - 1]!
  if (params.length !== last.offset + last.size) {
    throw new RangeError(`ActorCritic.fromParams: expected ${last.offset + last.size} parameters, got ${params.length}`)
  }
  return withEngine({ obsDim: sizes.obsDim, numActions: sizes.numActions, hidden: sizes.hidden }, params, specs, engine)
}

/** Number of parameters. */
export const numParams = (net: ActorCritic): number => net.params.length

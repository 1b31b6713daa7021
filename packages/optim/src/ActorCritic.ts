/**
 * An MLP actor-critic for discrete actions, as CleanRL `ppo.py`'s `Agent`: two separate MLPs
 * `obsDim → 64 → 64 → numActions` (actor, logits of a categorical policy) and `obsDim → 64 → 64 → 1` (critic),
 * tanh activations, orthogonal weights (gain √2 for hidden layers, 0.01 for the actor head, 1 for the critic head)
 * and zero biases.
 *
 * **Why plain typed arrays (measured, and the design choice)**
 * - Rollouts run the network on 4 observations per step. Through TensorFlow.js every op is a dispatch (and a
 *   `dataSync` to read the sampled action); on this 2-core machine that costs milliseconds per step on the wasm
 *   backend, while the whole 4-64-64-2 forward pass is ~10 µs in plain JavaScript.
 * - The update needs gradients, and `@tensorflow/tfjs-core` 4.22 loaded through Node's CommonJS entry registers no
 *   gradient functions (`register_all_gradients` ships only as extension-less ESM that Node cannot load), so
 *   `tf.variableGrads` fails with "gradient function not found for Add". The backward pass of this fixed network is
 *   short, so it is written out by hand ({@link backward}), checked against finite differences in the tests, and
 *   runs a 128-sample minibatch in about a millisecond.
 * - TensorFlow.js stays the interop path: {@link toVariables} exports the weights as `tf.Variable`s and
 *   {@link forwardTf} runs the same network with tf ops (tested equal to {@link forward}).
 *
 * **Layout**: all parameters live in one `Float32Array` (`net.params`), layer by layer as {@link layout} lists them;
 * a dense layer's weight is `[in, out]` row-major (`y = x · W + b`, the transpose of PyTorch's `[out, in]`).
 * Gradients and Adam moments use the same flat layout, so global-norm clipping and checkpoints are one loop/array.
 *
 * @see https://github.com/vwxyzjn/cleanrl/blob/master/cleanrl/ppo.py (`Agent`, `layer_init`)
 * @see Saxe, McClelland, Ganguli, "Exact solutions to the nonlinear dynamics of learning in deep linear neural
 *   networks", arXiv:1312.6120 (orthogonal initialization, PyTorch's `nn.init.orthogonal_`)
 * @since 0.1.0
 */
import type { Rng } from "@autodidact/core"
import type { Backend } from "@autodidact/kernels"

type Tf = Backend.Tf

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
interface Cache {
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
 * The actor-critic: sizes, the flat parameter vector and scratch buffers.
 * @category models
 */
export interface ActorCritic extends Sizes {
  readonly params: Float32Array
  readonly layout: ReadonlyArray<LayerSpec>
  /** @internal scratch buffers (grown on demand, never shrunk) */
  readonly cache: Cache
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

const newCache = (s: Sizes, capacity: number): Cache => ({
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

const ensure = (net: ActorCritic, batch: number): Cache => {
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
  return { ...sizes, params, layout: specs, cache: newCache(sizes, 16) }
}

/** A network with the given sizes and parameters (e.g. from a checkpoint). */
export const fromParams = (sizes: Sizes, params: Float32Array): ActorCritic => {
  const specs = layout(sizes)
  const last = specs[specs.length - 1]!
  if (params.length !== last.offset + last.size) {
    throw new RangeError(`ActorCritic.fromParams: expected ${last.offset + last.size} parameters, got ${params.length}`)
  }
  return { ...sizes, params, layout: specs, cache: newCache(sizes, 16) }
}

/** Number of parameters. */
export const numParams = (net: ActorCritic): number => net.params.length

/**
 * y[b, :] = act(x[b, :] · W + bias) for a batch; W (`[inDim, outDim]`) at `w`, bias at `w + inDim * outDim` in `p`.
 * Register-blocked 2 rows × 4 columns (6 loads per 8 multiply-adds, no stores in the inner loop).
 */
const dense = (p: Float32Array, w: number, x: Float64Array, batch: number, inDim: number, outDim: number, y: Float64Array, tanh: boolean): void => {
  const bias = w + inDim * outDim
  let b = 0
  for (; b + 2 <= batch; b += 2) {
    const x0 = b * inDim
    const x1 = x0 + inDim
    const y0 = b * outDim
    const y1 = y0 + outDim
    let j = 0
    for (; j + 4 <= outDim; j += 4) {
      let a0 = p[bias + j]!, a1 = p[bias + j + 1]!, a2 = p[bias + j + 2]!, a3 = p[bias + j + 3]!
      let c0 = a0, c1 = a1, c2 = a2, c3 = a3
      for (let i = 0; i < inDim; i++) {
        const u = x[x0 + i]!
        const v = x[x1 + i]!
        const r = w + i * outDim + j
        const w0 = p[r]!, w1 = p[r + 1]!, w2 = p[r + 2]!, w3 = p[r + 3]!
        a0 += u * w0
        a1 += u * w1
        a2 += u * w2
        a3 += u * w3
        c0 += v * w0
        c1 += v * w1
        c2 += v * w2
        c3 += v * w3
      }
      y[y0 + j] = a0
      y[y0 + j + 1] = a1
      y[y0 + j + 2] = a2
      y[y0 + j + 3] = a3
      y[y1 + j] = c0
      y[y1 + j + 1] = c1
      y[y1 + j + 2] = c2
      y[y1 + j + 3] = c3
    }
    for (; j < outDim; j++) {
      let a = p[bias + j]!
      let c = a
      for (let i = 0; i < inDim; i++) {
        const wij = p[w + i * outDim + j]!
        a += x[x0 + i]! * wij
        c += x[x1 + i]! * wij
      }
      y[y0 + j] = a
      y[y1 + j] = c
    }
  }
  for (; b < batch; b++) {
    const x0 = b * inDim
    const y0 = b * outDim
    for (let j = 0; j < outDim; j++) {
      let a = p[bias + j]!
      for (let i = 0; i < inDim; i++) a += x[x0 + i]! * p[w + i * outDim + j]!
      y[y0 + j] = a
    }
  }
  if (tanh) for (let k = 0; k < batch * outDim; k++) y[k] = Math.tanh(y[k]!)
}

/**
 * Forward pass of both networks on `batch` observations (`obs` is `[batch, obsDim]`, any numeric array; `rows`
 * optionally selects rows of `obs` by index, for minibatches). Results stay in the network's scratch buffers:
 * {@link logitsOf}/{@link valuesOf}. No allocation once the buffers have grown to `batch`.
 */
export const forward = (net: ActorCritic, obs: ArrayLike<number>, batch: number, rows?: ArrayLike<number>, rowOffset = 0): void => {
  const c = ensure(net, batch)
  const { obsDim: D, hidden: H, numActions: A, params: p } = net
  const L = net.layout
  for (let b = 0; b < batch; b++) {
    const src = (rows === undefined ? b : rows[rowOffset + b]!) * D
    for (let i = 0; i < D; i++) c.x[b * D + i] = obs[src + i]!
  }
  dense(p, L[0]!.offset, c.x, batch, D, H, c.a1, true)
  dense(p, L[2]!.offset, c.a1, batch, H, H, c.a2, true)
  dense(p, L[4]!.offset, c.a2, batch, H, A, c.logits, false)
  dense(p, L[6]!.offset, c.x, batch, D, H, c.c1, true)
  dense(p, L[8]!.offset, c.c1, batch, H, H, c.c2, true)
  dense(p, L[10]!.offset, c.c2, batch, H, 1, c.values, false)
  // softmax probabilities (stable)
  for (let b = 0; b < batch; b++) {
    let max = -Infinity
    for (let a = 0; a < A; a++) max = Math.max(max, c.logits[b * A + a]!)
    let sum = 0
    for (let a = 0; a < A; a++) {
      const e = Math.exp(c.logits[b * A + a]! - max)
      c.probs[b * A + a] = e
      sum += e
    }
    for (let a = 0; a < A; a++) c.probs[b * A + a] = c.probs[b * A + a]! / sum
  }
}

/** Logits `[batch, numActions]` of the last {@link forward} (a view into scratch; copy to keep). */
export const logitsOf = (net: ActorCritic): Float64Array => net.cache.logits
/** Action probabilities `[batch, numActions]` of the last {@link forward} (view into scratch). */
export const probsOf = (net: ActorCritic): Float64Array => net.cache.probs
/** Values `[batch]` of the last {@link forward} (view into scratch). */
export const valuesOf = (net: ActorCritic): Float64Array => net.cache.values

/** log π(a | s) of row b from the last forward: `logits[a] − logsumexp(logits)`. */
export const logProbAt = (net: ActorCritic, b: number, action: number): number => logProbStable(net, b, action)

const logProbStable = (net: ActorCritic, b: number, action: number): number => {
  const A = net.numActions
  const z = net.cache.logits
  let max = -Infinity
  for (let a = 0; a < A; a++) max = Math.max(max, z[b * A + a]!)
  let sum = 0
  for (let a = 0; a < A; a++) sum += Math.exp(z[b * A + a]! - max)
  return z[b * A + action]! - max - Math.log(sum)
}

/** Entropy −Σ p log p of row b from the last forward (nats). */
export const entropyAt = (net: ActorCritic, b: number): number => {
  const A = net.numActions
  let h = 0
  for (let a = 0; a < A; a++) {
    const pa = net.cache.probs[b * A + a]!
    if (pa > 0) h -= pa * logProbStable(net, b, a)
  }
  return h
}

/**
 * Sample actions for a batch of observations (CleanRL's `get_action_and_value` at rollout time): one uniform draw
 * per row from `rng`, inverse-CDF over the softmax probabilities. Writes actions, log-probs and values.
 * Allocation-free; reproducible for a fixed `rng` state.
 */
export const act = (
  net: ActorCritic,
  obs: ArrayLike<number>,
  batch: number,
  rng: Rng,
  outActions: Int32Array,
  outLogProbs: Float32Array | Float64Array,
  outValues: Float32Array | Float64Array,
  outOffset = 0
): void => {
  forward(net, obs, batch)
  const A = net.numActions
  const probs = net.cache.probs
  for (let b = 0; b < batch; b++) {
    const u = rng.random()
    let acc = 0
    let action = A - 1
    for (let a = 0; a < A; a++) {
      acc += probs[b * A + a]!
      if (u < acc) {
        action = a
        break
      }
    }
    outActions[outOffset + b] = action
    outLogProbs[outOffset + b] = logProbStable(net, b, action)
    outValues[outOffset + b] = net.cache.values[b]!
  }
}

/** Greedy actions (argmax of the logits, first on ties) for a batch of observations. */
export const actGreedy = (net: ActorCritic, obs: ArrayLike<number>, batch: number, outActions: Int32Array): void => {
  forward(net, obs, batch)
  const A = net.numActions
  const z = net.cache.logits
  for (let b = 0; b < batch; b++) {
    let best = 0
    for (let a = 1; a < A; a++) if (z[b * A + a]! > z[b * A + best]!) best = a
    outActions[b] = best
  }
}

/** Critic values of a batch of observations, written into `out` (CleanRL's `get_value`). */
export const values = (net: ActorCritic, obs: ArrayLike<number>, batch: number, out: Float32Array | Float64Array, outOffset = 0): void => {
  forward(net, obs, batch)
  for (let b = 0; b < batch; b++) out[outOffset + b] = net.cache.values[b]!
}

/**
 * Gradients of a dense layer given dL/dy (`dy`, `[batch, outDim]`): ADD dL/dW (`Σ_b x[b]ᵀ dy[b]`) and dL/dbias into
 * `g`, and write dL/dx (`dy · Wᵀ`, `[batch, inDim]`) into `dx` when given. Register-blocked like {@link dense}.
 */
const denseBackward = (
  p: Float32Array,
  g: Float64Array,
  w: number,
  x: Float64Array,
  dy: Float64Array,
  batch: number,
  inDim: number,
  outDim: number,
  dx: Float64Array | undefined
): void => {
  const bias = w + inDim * outDim
  for (let j = 0; j < outDim; j++) {
    let s = 0
    for (let b = 0; b < batch; b++) s += dy[b * outDim + j]!
    g[bias + j] += s
  }
  // dW[i, j] = Σ_b x[b, i] dy[b, j]: blocks of 2 inputs × 4 outputs
  let i = 0
  for (; i + 2 <= inDim; i += 2) {
    let j = 0
    for (; j + 4 <= outDim; j += 4) {
      let a0 = 0, a1 = 0, a2 = 0, a3 = 0, c0 = 0, c1 = 0, c2 = 0, c3 = 0
      for (let b = 0; b < batch; b++) {
        const u = x[b * inDim + i]!
        const v = x[b * inDim + i + 1]!
        const r = b * outDim + j
        const d0 = dy[r]!, d1 = dy[r + 1]!, d2 = dy[r + 2]!, d3 = dy[r + 3]!
        a0 += u * d0
        a1 += u * d1
        a2 += u * d2
        a3 += u * d3
        c0 += v * d0
        c1 += v * d1
        c2 += v * d2
        c3 += v * d3
      }
      const r0 = w + i * outDim + j
      const r1 = r0 + outDim
      g[r0] += a0
      g[r0 + 1] += a1
      g[r0 + 2] += a2
      g[r0 + 3] += a3
      g[r1] += c0
      g[r1 + 1] += c1
      g[r1 + 2] += c2
      g[r1 + 3] += c3
    }
    for (; j < outDim; j++) {
      let a = 0
      let c = 0
      for (let b = 0; b < batch; b++) {
        const d = dy[b * outDim + j]!
        a += x[b * inDim + i]! * d
        c += x[b * inDim + i + 1]! * d
      }
      g[w + i * outDim + j] += a
      g[w + (i + 1) * outDim + j] += c
    }
  }
  for (; i < inDim; i++) {
    for (let j = 0; j < outDim; j++) {
      let a = 0
      for (let b = 0; b < batch; b++) a += x[b * inDim + i]! * dy[b * outDim + j]!
      g[w + i * outDim + j] += a
    }
  }
  if (dx === undefined) return
  // dx[b, i] = Σ_j dy[b, j] W[i, j]: blocks of 2 rows × 4 inputs
  let b = 0
  for (; b + 2 <= batch; b += 2) {
    const d0r = b * outDim
    const d1r = d0r + outDim
    let k = 0
    for (; k + 4 <= inDim; k += 4) {
      let a0 = 0, a1 = 0, a2 = 0, a3 = 0, c0 = 0, c1 = 0, c2 = 0, c3 = 0
      const r0 = w + k * outDim
      const r1 = r0 + outDim
      const r2 = r1 + outDim
      const r3 = r2 + outDim
      for (let j = 0; j < outDim; j++) {
        const u = dy[d0r + j]!
        const v = dy[d1r + j]!
        const w0 = p[r0 + j]!, w1 = p[r1 + j]!, w2 = p[r2 + j]!, w3 = p[r3 + j]!
        a0 += u * w0
        a1 += u * w1
        a2 += u * w2
        a3 += u * w3
        c0 += v * w0
        c1 += v * w1
        c2 += v * w2
        c3 += v * w3
      }
      const x0 = b * inDim + k
      const x1 = x0 + inDim
      dx[x0] = a0
      dx[x0 + 1] = a1
      dx[x0 + 2] = a2
      dx[x0 + 3] = a3
      dx[x1] = c0
      dx[x1 + 1] = c1
      dx[x1 + 2] = c2
      dx[x1 + 3] = c3
    }
    for (; k < inDim; k++) {
      let a = 0
      let c = 0
      for (let j = 0; j < outDim; j++) {
        const wkj = p[w + k * outDim + j]!
        a += dy[d0r + j]! * wkj
        c += dy[d1r + j]! * wkj
      }
      dx[b * inDim + k] = a
      dx[(b + 1) * inDim + k] = c
    }
  }
  for (; b < batch; b++) {
    for (let k = 0; k < inDim; k++) {
      let a = 0
      for (let j = 0; j < outDim; j++) a += dy[b * outDim + j]! * p[w + k * outDim + j]!
      dx[b * inDim + k] = a
    }
  }
}

/**
 * Backward pass for the batch of the last {@link forward}: given dL/dlogits (`[batch, numActions]`) and dL/dvalue
 * (`[batch]`), ADD dL/dθ into `grad` (flat, same layout as `params`). The caller zeroes `grad` first.
 */
export const backward = (net: ActorCritic, batch: number, dLogits: Float64Array, dValues: Float64Array, grad: Float64Array): void => {
  const c = net.cache
  const { obsDim: D, hidden: H, numActions: A, params: p } = net
  const L = net.layout
  // actor: logits = a2 W3 + b3; a2 = tanh(a1 W2 + b2); a1 = tanh(x W1 + b1)
  denseBackward(p, grad, L[4]!.offset, c.a2, dLogits, batch, H, A, c.d2)
  for (let k = 0; k < batch * H; k++) c.d2[k] = c.d2[k]! * (1 - c.a2[k]! * c.a2[k]!)
  denseBackward(p, grad, L[2]!.offset, c.a1, c.d2, batch, H, H, c.d1)
  for (let k = 0; k < batch * H; k++) c.d1[k] = c.d1[k]! * (1 - c.a1[k]! * c.a1[k]!)
  denseBackward(p, grad, L[0]!.offset, c.x, c.d1, batch, D, H, undefined)
  // critic
  denseBackward(p, grad, L[10]!.offset, c.c2, dValues, batch, H, 1, c.d2)
  for (let k = 0; k < batch * H; k++) c.d2[k] = c.d2[k]! * (1 - c.c2[k]! * c.c2[k]!)
  denseBackward(p, grad, L[8]!.offset, c.c1, c.d2, batch, H, H, c.d1)
  for (let k = 0; k < batch * H; k++) c.d1[k] = c.d1[k]! * (1 - c.c1[k]! * c.c1[k]!)
  denseBackward(p, grad, L[6]!.offset, c.x, c.d1, batch, D, H, undefined)
}

/** The parameters as TensorFlow.js variables, one per layer (names as {@link layout}); the caller disposes them. */
export const toVariables = (net: ActorCritic, tf: Tf): Array<import("@tensorflow/tfjs-core").Variable> =>
  net.layout.map((l) => tf.variable(tf.tensor(net.params.subarray(l.offset, l.offset + l.size), [...l.shape]), true))

/** Copy TensorFlow.js variables (from {@link toVariables}) back into `net.params` (one `dataSync` per variable). */
export const fromVariables = (net: ActorCritic, variables: ReadonlyArray<import("@tensorflow/tfjs-core").Tensor>): void => {
  net.layout.forEach((l, k) => net.params.set(variables[k]!.dataSync() as Float32Array, l.offset))
}

/**
 * The same forward pass with TensorFlow.js ops (batched inference on the selected backend): logits
 * `[batch, numActions]` and values `[batch]` as `Float32Array`s.
 */
export const forwardTf = (net: ActorCritic, tf: Tf, obs: Float32Array, batch: number): { logits: Float32Array; values: Float32Array } => {
  const out = tf.tidy(() => {
    const w = net.layout.map((l) => tf.tensor(net.params.subarray(l.offset, l.offset + l.size), [...l.shape]))
    const x = tf.tensor2d(obs.subarray(0, batch * net.obsDim), [batch, net.obsDim])
    const mlp = (k: number) =>
      tf.add(tf.matMul(tf.tanh(tf.add(tf.matMul(tf.tanh(tf.add(tf.matMul(x, w[k]!), w[k + 1]!)), w[k + 2]!), w[k + 3]!)), w[k + 4]!), w[k + 5]!)
    return [mlp(0), tf.reshape(mlp(6), [batch])] as const
  })
  const logits = Float32Array.from(out[0].dataSync() as Float32Array)
  const values = Float32Array.from(out[1].dataSync() as Float32Array)
  tf.dispose([out[0], out[1]])
  return { logits, values }
}

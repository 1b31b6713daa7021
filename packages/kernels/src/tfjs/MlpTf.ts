/**
 * One tanh MLP `obsDim → hidden → hidden → numActions` trained by weighted mean squared error and Adam in
 * TensorFlow.js: the TF.js twin of `MlpSimd`'s single MLP (`forwardSingle`, `backwardSingle`, `weightedMse`) with
 * kernels' `Adam` (`step`, `clipGradNorm`), for training on whichever backend `Backend` selected (native TensorFlow
 * and its GPU with `@tensorflow/tfjs-node-gpu`, else WebAssembly or plain JavaScript).
 *
 * **Parameter layout**: one flat float32 vector of `MlpSimd.numParamsSingle(sizes)` floats, `W1 [obsDim, hidden]`,
 * `b1`, `W2 [hidden, hidden]`, `b2`, `W3 [hidden, numActions]`, `b3`, each weight row-major `[in, out]`
 * (`y = x · W + b`): `MlpSimd`'s single-MLP layout, so parameters move between the two engines as they are
 * ({@link setParams}, {@link getParams}) and a network trained here is evaluated by `MlpSimd.forwardSingle`.
 *
 * **Training step** ({@link trainStep}): outputs `y` on a batch of `B` rows, optionally masked (`ŷ = m ⊙ y`, as Deep
 * CFR masks illegal actions), loss `L = (1/B) Σ_b w_b · (1/K) Σ_k (ŷ_bk − t_bk)²` (Keras' `MeanSquaredError` with
 * `sample_weight`, `MlpSimd.weightedMse`), gradient by the hand-written backward pass of the tanh MLP (tf ops; no
 * TF.js autodiff, so no gradient registration is needed), global-norm clipping as `torch.nn.utils.clip_grad_norm_`,
 * then Adam as `torch.optim.Adam` (ε after the square root of the bias-corrected second moment; `Adam.step`). Everything
 * stays on the backend: a step reads nothing back ({@link lastLoss} does, on demand).
 *
 * **Details**
 * - Float32 throughout; agrees with `MlpSimd` + `Adam` to about 1e-6 relative (`MlpSimd`'s tanh is a rational
 *   approximation within 4e-7 of `tanh`; `Adam.step` takes float64 gradients).
 * - The network owns three variables of `numParams` floats (parameters, Adam's two moments): release them with
 *   {@link dispose}. Each call's temporaries are freed inside `tf.tidy`.
 * - Part of `@autodidact/kernels/tfjs`: the `tf` module is passed in (read it from the `Backend` service or
 *   `await Backend.load()`); this module itself loads no TensorFlow.js.
 *
 * @see Kingma, Ba, "Adam: A Method for Stochastic Optimization", arXiv:1412.6980
 * @since 0.3.0
 */
import type { Tensor, Tensor1D, Tensor2D, Variable } from "@tensorflow/tfjs-core"
import type { Tf } from "../engines/BackendTag.js"
import { KernelInputError } from "../KernelError.js"

/** Network sizes (positive integers), as `MlpSimd.Sizes`. */
export interface Sizes {
  readonly obsDim: number
  readonly hidden: number
  readonly numActions: number
}

/** Adam's constants (defaults: PyTorch's β = (0.9, 0.999), ε = 1e-8, as kernels' `Adam.make`). */
export interface AdamOptions {
  readonly beta1?: number | undefined
  readonly beta2?: number | undefined
  readonly eps?: number | undefined
}

/** A TF.js MLP with its Adam state. */
export interface MlpTf {
  readonly tf: Tf
  readonly sizes: Sizes
  readonly numParams: number
  /** Parameters, flat (layout in the module docs). */
  readonly params: Variable
  /** Adam's first and second moments (same layout). */
  readonly m: Variable
  readonly v: Variable
  /** Adam steps since the last {@link resetOptimizer}. */
  step: number
  readonly beta1: number
  readonly beta2: number
  readonly eps: number
  /** @internal the last training step's loss (a scalar tensor), read by {@link lastLoss}. */
  loss: Tensor | undefined
}

/** One training batch, row-major and contiguous. */
export interface Batch {
  /** Inputs `[batch, obsDim]`. */
  readonly x: Float32Array
  /** Targets `[batch, numActions]`. */
  readonly target: Float32Array
  /** Output mask `[batch, numActions]` (1 keeps an output, 0 drops it from the loss); none: all kept. */
  readonly mask?: Float32Array | undefined
  /** Row weights `[batch]`. */
  readonly weight: Float32Array
  /** Rows used (the arrays may be longer). */
  readonly batch: number
}

const bad = (input: string, shape: string, detail: string, reason: "shape" | "range" = "shape") =>
  new KernelInputError({ kernel: "MlpTf", backend: "tfjs", input, reason, shape, detail })

/** Number of parameters (`MlpSimd.numParamsSingle`). */
export const numParams = ({ obsDim: D, hidden: H, numActions: A }: Sizes): number => D * H + H + H * H + H + H * A + A

/**
 * A network of these sizes with zero parameters (set them with {@link setParams}) and fresh Adam moments.
 * @throws KernelInputError for sizes that are not positive integers
 */
export const make = (tf: Tf, sizes: Sizes, options: AdamOptions = {}): MlpTf => {
  for (const key of ["obsDim", "hidden", "numActions"] as const) {
    const v = sizes[key]
    if (!Number.isInteger(v) || v < 1) throw bad(key, "[]", `must be a positive integer, got ${v}`, "range")
  }
  const s: Sizes = { obsDim: sizes.obsDim, hidden: sizes.hidden, numActions: sizes.numActions }
  const P = numParams(s)
  const zeros = (): Variable => {
    const z = tf.zeros([P])
    const v = tf.variable(z, false)
    z.dispose() // the variable keeps its own reference to the data
    return v
  }
  return {
    tf,
    sizes: s,
    numParams: P,
    params: zeros(),
    m: zeros(),
    v: zeros(),
    step: 0,
    beta1: options.beta1 ?? 0.9,
    beta2: options.beta2 ?? 0.999,
    eps: options.eps ?? 1e-8,
    loss: undefined
  }
}

/** Copy `params` (`numParams` floats, layout above) into the network. @throws KernelInputError on a wrong length */
export const setParams = (net: MlpTf, params: Float32Array): void => {
  if (params.length !== net.numParams) throw bad("params", `[${params.length}]`, `expected ${net.numParams} parameters`)
  const t = net.tf.tensor1d(params, "float32")
  net.params.assign(t)
  t.dispose()
}

/** The network's parameters (one read back from the backend) into `out` (a new array by default). */
export const getParams = (net: MlpTf, out: Float32Array = new Float32Array(net.numParams)): Float32Array => {
  out.set(net.params.dataSync() as Float32Array)
  return out
}

/** Zero Adam's moments and its step count (a fresh optimizer, as `Adam.make`). */
export const resetOptimizer = (net: MlpTf): void => {
  net.tf.tidy(() => {
    net.m.assign(net.tf.zerosLike(net.m))
    net.v.assign(net.tf.zerosLike(net.v))
  })
  net.step = 0
}

/** {@link setParams} and {@link resetOptimizer}: start a training from `params`. */
export const reinit = (net: MlpTf, params: Float32Array): void => {
  setParams(net, params)
  resetOptimizer(net)
}

/** The six parameter tensors, views of the flat vector (inside a tidy). */
const unpack = (net: MlpTf, flat: Tensor1D): [Tensor2D, Tensor1D, Tensor2D, Tensor1D, Tensor2D, Tensor1D] => {
  const { tf } = net
  const { obsDim: D, hidden: H, numActions: A } = net.sizes
  const [w1, b1, w2, b2, w3, b3] = tf.split(flat, [D * H, H, H * H, H, H * A, A])
  return [tf.reshape(w1!, [D, H]), b1 as Tensor1D, tf.reshape(w2!, [H, H]), b2 as Tensor1D, tf.reshape(w3!, [H, A]), b3 as Tensor1D]
}

const checkRows = (net: MlpTf, x: Float32Array, batch: number): void => {
  if (!Number.isInteger(batch) || batch < 1) throw bad("batch", "[]", `must be a positive integer, got ${batch}`, "range")
  if (x.length < batch * net.sizes.obsDim) throw bad("x", `[${x.length}]`, `shorter than [${batch}, ${net.sizes.obsDim}]`)
}

/**
 * Outputs `[batch, numActions]` of rows `x` (`[batch, obsDim]`, row-major) into `out` (a new array by default):
 * one upload, one read back.
 * @throws KernelInputError when `x` or `out` is shorter than its shape or `batch` is not a positive integer
 */
export const forward = (net: MlpTf, x: Float32Array, batch: number, out: Float32Array = new Float32Array(batch * net.sizes.numActions)): Float32Array => {
  checkRows(net, x, batch)
  const { obsDim: D, numActions: A } = net.sizes
  if (out.length < batch * A) throw bad("out", `[${out.length}]`, `shorter than [${batch}, ${A}]`)
  const { tf } = net
  const y = tf.tidy(() => {
    const [w1, b1, w2, b2, w3, b3] = unpack(net, net.params as Tensor1D)
    const xt = tf.tensor2d(x.subarray(0, batch * D), [batch, D])
    const a1 = tf.tanh(tf.add(tf.matMul(xt, w1), b1))
    const a2 = tf.tanh(tf.add(tf.matMul(a1, w2), b2))
    return tf.add(tf.matMul(a2, w3), b3)
  })
  out.set(y.dataSync() as Float32Array)
  y.dispose()
  return out
}

const checkBatch = (net: MlpTf, b: Batch): void => {
  checkRows(net, b.x, b.batch)
  const n = b.batch * net.sizes.numActions
  if (b.target.length < n) throw bad("target", `[${b.target.length}]`, `shorter than [${b.batch}, ${net.sizes.numActions}]`)
  if (b.mask !== undefined && b.mask.length < n) throw bad("mask", `[${b.mask.length}]`, `shorter than [${b.batch}, ${net.sizes.numActions}]`)
  if (b.weight.length < b.batch) throw bad("weight", `[${b.weight.length}]`, `shorter than [${b.batch}]`)
}

/** Loss and flat gradient of the batch at the current parameters (inside a tidy). */
const lossAndGradient = (net: MlpTf, b: Batch): { loss: Tensor; grad: Tensor1D } => {
  const { tf } = net
  const { obsDim: D, numActions: A } = net.sizes
  const B = b.batch
  const [w1, b1, w2, b2, w3, b3] = unpack(net, net.params as Tensor1D)
  const x = tf.tensor2d(b.x.subarray(0, B * D), [B, D])
  const target = tf.tensor2d(b.target.subarray(0, B * A), [B, A])
  const weight = tf.tensor2d(b.weight.subarray(0, B), [B, 1])
  const mask = b.mask === undefined ? undefined : tf.tensor2d(b.mask.subarray(0, B * A), [B, A])
  const a1 = tf.tanh(tf.add(tf.matMul(x, w1), b1))
  const a2 = tf.tanh(tf.add(tf.matMul(a1, w2), b2))
  const y = tf.add(tf.matMul(a2, w3), b3)
  const diff = tf.sub(mask === undefined ? y : tf.mul(y, mask), target)
  const wDiff = tf.mul(diff, weight)
  const scale = 1 / (B * A)
  const loss = tf.mul(tf.sum(tf.mul(wDiff, diff)), scale)
  const dPred = tf.mul(wDiff, 2 * scale)
  const dy = (mask === undefined ? dPred : tf.mul(dPred, mask)) as Tensor2D
  // y = a2 W3 + b3; a2 = tanh(a1 W2 + b2); a1 = tanh(x W1 + b1); tanh' = 1 − tanh²
  const gW3 = tf.matMul(a2, dy, true, false)
  const gb3 = tf.sum(dy, 0)
  const dz2 = tf.mul(tf.matMul(dy, w3, false, true), tf.sub(1, tf.square(a2))) as Tensor2D
  const gW2 = tf.matMul(a1, dz2, true, false)
  const gb2 = tf.sum(dz2, 0)
  const dz1 = tf.mul(tf.matMul(dz2, w2, false, true), tf.sub(1, tf.square(a1))) as Tensor2D
  const gW1 = tf.matMul(x, dz1, true, false)
  const gb1 = tf.sum(dz1, 0)
  const grad = tf.concat([gW1, gb1, gW2, gb2, gW3, gb3].map((g) => tf.reshape(g, [-1]) as Tensor1D)) as Tensor1D
  return { loss, grad }
}

/**
 * Loss and gradient (flat, layout above) of a batch at the current parameters, read back (for tests and inspection;
 * {@link trainStep} keeps them on the backend).
 * @throws KernelInputError when an array is shorter than its shape
 */
export const gradient = (net: MlpTf, batch: Batch): { loss: number; grad: Float32Array } => {
  checkBatch(net, batch)
  const { loss, grad } = net.tf.tidy(() => {
    const r = lossAndGradient(net, batch)
    return { loss: r.loss, grad: r.grad }
  })
  const out = { loss: (loss.dataSync() as Float32Array)[0]!, grad: Float32Array.from(grad.dataSync() as Float32Array) }
  net.tf.dispose([loss, grad])
  return out
}

/**
 * One training step on `batch`: gradient of the weighted MSE (module docs), clipped to global norm `maxGradNorm`
 * (default `Infinity`: no clipping; `Adam.clipGradNorm`'s rule), then one Adam step with learning rate `lr` (PyTorch's
 * rule, `Adam.step`). Reads nothing back.
 * @throws KernelInputError when an array is shorter than its shape, `lr` is not positive or `maxGradNorm` not positive
 */
export const trainStep = (net: MlpTf, batch: Batch, lr: number, maxGradNorm = Infinity): void => {
  checkBatch(net, batch)
  if (!(Number.isFinite(lr) && lr > 0)) throw bad("lr", "[]", `must be a positive number, got ${lr}`, "range")
  if (!(maxGradNorm > 0)) throw bad("maxGradNorm", "[]", `must be positive, got ${maxGradNorm}`, "range")
  const { tf } = net
  net.step++
  const { beta1, beta2, eps } = net
  const stepSize = lr / (1 - Math.pow(beta1, net.step))
  const sqrtBc2 = Math.sqrt(1 - Math.pow(beta2, net.step))
  const loss = tf.tidy(() => {
    const r = lossAndGradient(net, batch)
    let g: Tensor = r.grad
    if (Number.isFinite(maxGradNorm)) {
      const norm = tf.sqrt(tf.sum(tf.square(g)))
      g = tf.mul(g, tf.minimum(tf.div(maxGradNorm, tf.add(norm, 1e-6)), 1))
    }
    const m = tf.add(tf.mul(net.m, beta1), tf.mul(g, 1 - beta1))
    const v = tf.add(tf.mul(net.v, beta2), tf.mul(tf.square(g), 1 - beta2))
    const update = tf.div(tf.mul(m, stepSize), tf.add(tf.div(tf.sqrt(v), sqrtBc2), eps))
    net.m.assign(m)
    net.v.assign(v)
    net.params.assign(tf.sub(net.params, update))
    return r.loss
  })
  net.loss?.dispose()
  net.loss = loss
}

/** The last {@link trainStep}'s loss (before its update; one read back), 0 before any step. */
export const lastLoss = (net: MlpTf): number => (net.loss === undefined ? 0 : (net.loss.dataSync() as Float32Array)[0]!)

/** Release the network's variables (it is unusable afterwards). */
export const dispose = (net: MlpTf): void => {
  net.loss?.dispose()
  net.loss = undefined
  net.tf.dispose([net.params, net.m, net.v])
}

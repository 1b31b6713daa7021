/**
 * Adam with PyTorch's update rule over a flat parameter vector, and global-norm gradient clipping as
 * `torch.nn.utils.clip_grad_norm_`.
 *
 * Kingma, Ba, "Adam: A Method for Stochastic Optimization", ICLR 2015 (arXiv:1412.6980), as `torch.optim.Adam`
 * computes it: `m ← β1·m + (1−β1)·g`, `v ← β2·v + (1−β2)·g²`,
 * `θ ← θ − lr/(1−β1^t) · m / (√v/√(1−β2^t) + ε)`. The learning rate is passed per step (so schedules such as
 * PPO's linear annealing need no optimizer surgery). Moments are `Float32Array`s (saved in checkpoints).
 * @since 0.1.0 (moved from optim, which re-exports it)
 */

/** Optimizer state: first and second moments (same layout as the parameters) and the step count. */
export interface AdamState {
  readonly m: Float32Array
  readonly v: Float32Array
  step: number
  readonly beta1: number
  readonly beta2: number
  readonly eps: number
}

/**
 * Fresh Adam state for `numParams` parameters: zero first and second moments (`Float32Array`s of that length), step
 * 0, β = (0.9, 0.999) and ε = 1e-8 (PyTorch's defaults; CleanRL's PPO uses ε = 1e-5).
 * @see Kingma, Ba, "Adam: A Method for Stochastic Optimization", arXiv:1412.6980
 */
export const make = (numParams: number, options: { beta1?: number; beta2?: number; eps?: number } = {}): AdamState => ({
  m: new Float32Array(numParams),
  v: new Float32Array(numParams),
  step: 0,
  beta1: options.beta1 ?? 0.9,
  beta2: options.beta2 ?? 0.999,
  eps: options.eps ?? 1e-8
})

/**
 * One Adam step in place on `params` (float32) with gradient `grad` (float64, same length) and learning rate `lr`:
 * the moments are updated and bias-corrected as PyTorch's `torch.optim.Adam` (ε added after the square root of the
 * corrected second moment), so the arithmetic matches CleanRL's optimizer step.
 * @see Kingma, Ba, "Adam: A Method for Stochastic Optimization", arXiv:1412.6980 (Algorithm 1)
 */
export const step = (state: AdamState, params: Float32Array, grad: Float64Array, lr: number): void => {
  state.step++
  const { m, v, beta1, beta2, eps } = state
  const bc1 = 1 - Math.pow(beta1, state.step)
  const sqrtBc2 = Math.sqrt(1 - Math.pow(beta2, state.step))
  const stepSize = lr / bc1
  for (let k = 0; k < params.length; k++) {
    const g = grad[k]!
    const mk = beta1 * m[k]! + (1 - beta1) * g
    const vk = beta2 * v[k]! + (1 - beta2) * g * g
    m[k] = mk
    v[k] = vk
    params[k] = params[k]! - (stepSize * mk) / (Math.sqrt(vk) / sqrtBc2 + eps)
  }
}

/**
 * Scale `grad` in place so its global L2 norm is at most `maxNorm` (`clip_grad_norm_`: coefficient
 * `maxNorm / (norm + 1e-6)`, applied only when below 1). Returns the norm before clipping.
 */
export const clipGradNorm = (grad: Float64Array, maxNorm: number): number => {
  let ss = 0
  for (let k = 0; k < grad.length; k++) ss += grad[k]! * grad[k]!
  const norm = Math.sqrt(ss)
  const coef = maxNorm / (norm + 1e-6)
  if (coef < 1) for (let k = 0; k < grad.length; k++) grad[k] = grad[k]! * coef
  return norm
}

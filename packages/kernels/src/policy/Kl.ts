/**
 * Monte-Carlo estimators of KL(q ‖ p) from samples x ~ q: John Schulman's k1, k2, k3.
 *
 * With the log-ratio `log r = log p(x) − log q(x)` (p the *other* distribution, q the one the samples came from):
 *
 * ```text
 * k1 = −log r                 unbiased, high variance, can be negative
 * k2 = ½ · (log r)²           biased (low bias when p ≈ q), low variance, ≥ 0
 * k3 = (r − 1) − log r        unbiased, low variance, ≥ 0 (log x ≤ x − 1)
 * ```
 *
 * **When to use**: PPO's `approx_kl` is the mean of k3 with samples from the old policy (q = π_old, p = π_new,
 * `log r = newLogProb − oldLogProb`); GRPO's KL penalty against a reference model is k3 with q = π_θ, p = π_ref.
 *
 * **Details**: inputs are flat arrays of log-probabilities of the sampled actions (any shape, same length); outputs
 * are the per-sample estimates (float32) and their mean (double accumulation). `estimator: "all"` returns the three.
 *
 * **Errors**: {@link KernelInputError} (`kernel: "Kl.k3"` etc.) for a length mismatch, an empty input, or a
 * NaN/±Infinity (named by flat index).
 *
 * @see http://joschu.net/blog/kl-approx.html (John Schulman, "Approximating KL Divergence", 2020)
 * @example
 * ```ts
 * import { Kl } from "@autodidact/kernels"
 * Kl.estimateSync({ logProbs: [-1, -2], otherLogProbs: [-1.1, -1.9], estimator: "k3" }).mean
 * ```
 * @since 0.1.0
 */
import type { Effect } from "effect"
import type { NumArray } from "../NumArray.js"
import type { KernelInputError, Site } from "../KernelError.js"
import { checkArray, checkShape, checkSize, REFERENCE } from "../KernelError.js"
import type { Builtin, Dispatched, RunOptions } from "../engines/KernelRegistry.js"
import * as KernelRegistry from "../engines/KernelRegistry.js"

export const kernelName = "Kl"

/** Which estimator. */
export type Estimator = "k1" | "k2" | "k3"

/** Log-probabilities of samples x ~ q under q and under p. */
export interface KlInput {
  /** `log q(x)`: the distribution the samples were drawn from (PPO: the old policy). */
  readonly logProbs: NumArray
  /** `log p(x)`: the other distribution (PPO: the new policy). */
  readonly otherLogProbs: NumArray
  readonly estimator: Estimator
}

/** Per-sample estimates and their mean. */
export interface KlResult {
  readonly values: Float32Array
  readonly mean: number
}

/** Validate lengths and finiteness (names the first NaN/±Infinity). */
export const validate = (input: KlInput, backend: string): void => {
  const site: Site = { kernel: `${kernelName}.${input.estimator}`, backend }
  const n = input.logProbs.length
  checkSize(site, "logProbs.length", n)
  checkArray(site, "logProbs", input.logProbs, [n])
  checkArray(site, "otherLogProbs", input.otherLogProbs, [n])
}

/** `e^x − 1 − x` via `Math.expm1` (no cancellation for small x; also the fastest exp-like builtin in V8 here). */
const k3Of = (x: number): number => Math.expm1(x) - x

/** The KL estimate of one sample from its log-ratio `log r = log p − log q`. */
export const estimateOne = (estimator: Estimator, logRatio: number): number =>
  estimator === "k1" ? -logRatio : estimator === "k2" ? 0.5 * logRatio * logRatio : k3Of(logRatio)

/** KL estimates, typed-array reference (validates). */
export const estimateSync = (input: KlInput): KlResult => {
  // shapes first; finiteness is checked only when the sum says something is off (no extra pass on valid input)
  const site: Site = { kernel: `${kernelName}.${input.estimator}`, backend: REFERENCE }
  const n = input.logProbs.length
  checkSize(site, "logProbs.length", n)
  checkShape(site, "otherLogProbs", input.otherLogProbs, [n])
  const values = new Float32Array(n)
  const q = input.logProbs
  const p = input.otherLogProbs
  let sum = 0
  switch (input.estimator) {
    case "k1":
      for (let k = 0; k < n; k++) {
        const v = q[k]! - p[k]!
        values[k] = v
        sum += v
      }
      break
    case "k2":
      for (let k = 0; k < n; k++) {
        const lr = p[k]! - q[k]!
        const v = 0.5 * lr * lr
        values[k] = v
        sum += v
      }
      break
    case "k3":
      for (let k = 0; k < n; k++) {
        const lr = p[k]! - q[k]!
        const v = k3Of(lr)
        values[k] = v
        sum += v
      }
      break
  }
  if (sum - sum !== 0) validate(input, REFERENCE) // names the NaN/±Infinity input element, if any
  return { values, mean: sum / n }
}

/** The built-in implementations (for {@link KernelRegistry}). */
export const builtin: Builtin<KlInput, KlResult> = { kernelName, reference: estimateSync }

/**
 * KL estimates k1/k2/k3 (Schulman, "Approximating KL Divergence"): `[n]` log-probabilities under q and p in, `[n]`
 * float32 estimates and their mean (nats) out.
 * Dispatch: `KernelRegistry.run` — by default the engine that measured fastest for this kernel
 * (`KernelRegistry.defaultEngines`: wasm-simd, else typed-array), TensorFlow.js on native `tensorflow`; `options.engine` overrides.
 * Fails with {@link KernelInputError} on bad input (never retried on another engine).
 */
export const estimate = (input: KlInput, options?: RunOptions): Effect.Effect<Dispatched<KlResult>, KernelInputError> =>
  KernelRegistry.run(builtin, input, options)

/**
 * Discounted returns over a rollout buffer `[numSteps, numEnvs]` with done masks, and the reverse linear scan that
 * GAE shares.
 *
 * ```text
 * R_{T−1} = r_{T−1} + γ · (1 − nextDone) · nextValue
 * R_t     = r_t + γ · (1 − dones[t+1]) · R_{t+1}            (t = T−2 … 0)
 * ```
 *
 * **Layout**: the conventions of {@link Gae} (CleanRL `ppo.py`): row-major `[numSteps, numEnvs]`; `dones[t] = 1`
 * means observation t *starts* an episode, so the return of step t stops accumulating there. `nextValue` /
 * `nextDone` (default 0) bootstrap the last step.
 *
 * **Implementations**
 * - {@link discountedReturnsSync}: typed arrays, one column-blocked backward pass (inner loop over the N contiguous envs
 *   of a row), doubles, validation fused into the scan, no allocation beyond the output.
 * - {@link discountedReturnsTf}: TensorFlow.js, a Hillis–Steele scan of the affine maps `y ↦ x_t + c_t · y`
 *   ({@link reverseScanTf}): ⌈log₂ T⌉ rounds of shift-multiply-add over `[T, N]`, O(T·N·log T) work, float32.
 *
 * **Implementations** (continued): the default dispatch runs {@link discountedReturnsSync} on every backend but
 * native `tensorflow` (it measured fastest: `KernelRegistry.defaultEngines`).
 *
 * **Errors**: {@link KernelInputError} (`kernel: "Returns"`) for lengths, γ out of [0, 1], non-0/1 dones, NaN/∞.
 *
 * **Source**: the discounted return G_t = Σ_k γ^k r_{t+k} (Sutton & Barto, "Reinforcement Learning: An
 * Introduction", 2nd ed., §3.3) with CleanRL `ppo.py`'s done convention; equals GAE (arXiv:1506.02438) with λ = 1
 * and V = 0.
 *
 * @example
 * ```ts
 * import { Returns } from "@autodidact/kernels"
 * Returns.discountedReturnsSync({ numSteps: 3, numEnvs: 1, gamma: 0.5, rewards: [1, 1, 1], dones: [0, 0, 0] })
 * // Float32Array [1.75, 1.5, 1]
 * ```
 * @since 0.1.0
 */
import type { Effect } from "effect"
import type { NumArray } from "../NumArray.js"
import type { Site } from "../KernelError.js"
import type { KernelInputError } from "../KernelError.js"
import { checkArray, checkBinary, checkRange, checkShape, checkSize, REFERENCE } from "../KernelError.js"
import type { Builtin, Dispatched, RunOptions } from "../engines/KernelRegistry.js"
import * as KernelRegistry from "../engines/KernelRegistry.js"

export const kernelName = "Returns"

/** Inputs of {@link discountedReturnsSync}. */
export interface ReturnsInput {
  readonly numSteps: number
  readonly numEnvs: number
  /** Discount γ in [0, 1]. */
  readonly gamma: number
  /** `[numSteps, numEnvs]` rewards. */
  readonly rewards: NumArray
  /** `[numSteps, numEnvs]` 0/1: observation t starts a new episode. */
  readonly dones: NumArray
  /** `[numEnvs]` value of the observation after the rollout (default 0: no bootstrap). */
  readonly nextValue?: NumArray | undefined
  /** `[numEnvs]` 0/1: that observation starts a new episode (default 0). */
  readonly nextDone?: NumArray | undefined
}

/** Validate a {@link ReturnsInput}; throws {@link KernelInputError}. */
export const validate = (input: ReturnsInput, backend: string = REFERENCE): void => {
  const site: Site = { kernel: kernelName, backend }
  checkSize(site, "numSteps", input.numSteps)
  checkSize(site, "numEnvs", input.numEnvs)
  checkRange(site, "gamma", input.gamma, 0, 1)
  const shape = [input.numSteps, input.numEnvs]
  checkArray(site, "rewards", input.rewards, shape)
  checkBinary(site, "dones", input.dones, shape)
  if (input.nextValue !== undefined) checkArray(site, "nextValue", input.nextValue, [input.numEnvs])
  if (input.nextDone !== undefined) checkBinary(site, "nextDone", input.nextDone, [input.numEnvs])
}

/** Per-env accumulator scratch of the column-blocked scans (grown, never shrunk; no allocation per call). */
let accScratch = new Float64Array(256)

/** A `Float64Array` of at least `n` elements, reused across calls (the contents are overwritten by the caller). */
export const scratch = (n: number): Float64Array => {
  if (accScratch.length < n) accScratch = new Float64Array(Math.max(n, 2 * accScratch.length))
  return accScratch
}

/**
 * Discounted returns into `out` (`[numSteps, numEnvs]`), without validation or allocation. Returns whether the input
 * looked bad (a non-finite accumulator or a done flag other than 0/1); the caller then runs {@link validate} to name
 * the offending element.
 *
 * **Details**: column-blocked — the backward scan runs over t with the inner loop over the N contiguous envs of a
 * row (one `Float64Array(N)` of accumulators), so memory is read and written sequentially. Each element is the same
 * double-precision expression as the per-env recurrence, so the result is bit-identical to it.
 */
export const discountedReturnsInto = (input: ReturnsInput, out: Float32Array | Float64Array): boolean => {
  const { numSteps: T, numEnvs: N, gamma, rewards, dones, nextValue, nextDone } = input
  const acc = scratch(N)
  let k = (T - 1) * N
  for (let i = 0; i < N; i++) {
    const boot = nextValue === undefined ? 0 : nextValue[i]! * (1 - (nextDone === undefined ? 0 : nextDone[i]!))
    const a = rewards[k + i]! + gamma * boot
    acc[i] = a
    out[k + i] = a
  }
  let badDone = false
  for (let t = T - 2; t >= 0; t--) {
    const kNext = k
    k -= N
    for (let i = 0; i < N; i++) {
      const d = dones[kNext + i]!
      if (d !== 0 && d !== 1) badDone = true
      const a = rewards[k + i]! + gamma * (1 - d) * acc[i]!
      acc[i] = a
      out[k + i] = a
    }
  }
  // a NaN/±Infinity reward reaches row 0 of its column (x + c·NaN is NaN, 0·±Infinity is NaN)
  let sum = 0
  for (let i = 0; i < N; i++) sum += acc[i]!
  if (T > 0) {
    for (let i = 0; i < N; i++) {
      const d = dones[i]!
      if (d !== 0 && d !== 1) badDone = true
    }
  }
  return badDone || sum - sum !== 0
}

/**
 * Discounted returns over `[numSteps, numEnvs]`, the typed-array kernel (also what the default dispatch runs on every
 * backend but native `tensorflow`).
 *
 * **Input**: {@link ReturnsInput} (row-major `[T, N]` rewards and 0/1 dones, optional `[N]` bootstrap). **Output**: a
 * new `Float32Array` `[T, N]` of returns R_t = r_t + γ (1 − dones[t+1]) R_{t+1} (accumulated in doubles).
 * Validation is fused into the scan: sizes and the `[N]` bootstrap arrays are checked first; a NaN/±Infinity reward
 * or a done flag other than 0/1 is detected in the scan and then named by {@link validate}.
 * @throws KernelInputError (`kernel: "Returns"`) for lengths, γ outside [0, 1], non-0/1 dones, NaN/±Infinity
 */
export const discountedReturnsSync = (input: ReturnsInput): Float32Array => {
  const site: Site = { kernel: kernelName, backend: REFERENCE }
  checkSize(site, "numSteps", input.numSteps)
  checkSize(site, "numEnvs", input.numEnvs)
  checkRange(site, "gamma", input.gamma, 0, 1)
  const shape = [input.numSteps, input.numEnvs]
  checkShape(site, "rewards", input.rewards, shape)
  checkShape(site, "dones", input.dones, shape)
  if (input.nextValue !== undefined) checkArray(site, "nextValue", input.nextValue, [input.numEnvs])
  if (input.nextDone !== undefined) checkBinary(site, "nextDone", input.nextDone, [input.numEnvs])
  const out = new Float32Array(input.numSteps * input.numEnvs)
  if (discountedReturnsInto(input, out)) validate(input)
  return out
}

/** The built-in implementations (for {@link KernelRegistry}). */
export const builtin: Builtin<ReturnsInput, Float32Array> = {
  kernelName,
  reference: discountedReturnsSync,
}

/**
 * Discounted returns over `[numSteps, numEnvs]` (float32 out).
 * Dispatch: `KernelRegistry.run` — by default the engine that measured fastest for this kernel
 * (`KernelRegistry.defaultEngines`: the typed-array scan), TensorFlow.js on native `tensorflow`; `options.engine` overrides.
 * Fails with {@link KernelInputError} on bad input (never retried on another engine).
 */
export const discountedReturns = (input: ReturnsInput, options?: RunOptions): Effect.Effect<Dispatched<Float32Array>, KernelInputError> =>
  KernelRegistry.run(builtin, input, options)

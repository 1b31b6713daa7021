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
 * - {@link discountedReturnsSync}: typed arrays, one backward pass, doubles, no allocation beyond the output.
 * - {@link discountedReturnsTf}: TensorFlow.js, a Hillis–Steele scan of the affine maps `y ↦ x_t + c_t · y`
 *   ({@link reverseScanTf}): ⌈log₂ T⌉ rounds of shift-multiply-add over `[T, N]`, O(T·N·log T) work, float32.
 *
 * **Errors**: {@link KernelInputError} (`kernel: "Returns"`) for lengths, γ out of [0, 1], non-0/1 dones, NaN/∞.
 *
 * @example
 * ```ts
 * import { Returns } from "@autodidact/kernels"
 * Returns.discountedReturnsSync({ numSteps: 3, numEnvs: 1, gamma: 0.5, rewards: [1, 1, 1], dones: [0, 0, 0] })
 * // Float32Array [1.75, 1.5, 1]
 * ```
 * @since 0.1.0
 */
import type * as tfc from "@tensorflow/tfjs-core"
import type { Effect } from "effect"
import type { Backend, Tf } from "./Backend.js"
import type { NumArray } from "./Gae.js"
import type { Site } from "./KernelError.js"
import type { KernelInputError } from "./KernelError.js"
import { checkArray, checkBinary, checkRange, checkSize, REFERENCE } from "./KernelError.js"
import type { Builtin, Dispatched, RunOptions } from "./KernelRegistry.js"
import * as KernelRegistry from "./KernelRegistry.js"

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

/** Discounted returns into `out` (`[numSteps, numEnvs]`), without validation or allocation. */
export const discountedReturnsInto = (input: ReturnsInput, out: Float32Array | Float64Array): void => {
  const { numSteps: T, numEnvs: N, gamma, rewards, dones, nextValue, nextDone } = input
  for (let i = 0; i < N; i++) {
    let acc = nextValue === undefined ? 0 : nextValue[i]! * (1 - (nextDone === undefined ? 0 : nextDone[i]!))
    let k = (T - 1) * N + i
    acc = rewards[k]! + gamma * acc
    out[k] = acc
    for (let t = T - 2; t >= 0; t--) {
      k -= N
      acc = rewards[k]! + gamma * (1 - dones[k + N]!) * acc
      out[k] = acc
    }
  }
}

/** Discounted returns, typed-array reference (validates, allocates the `Float32Array` output). */
export const discountedReturnsSync = (input: ReturnsInput): Float32Array => {
  validate(input)
  const out = new Float32Array(input.numSteps * input.numEnvs)
  discountedReturnsInto(input, out)
  return out
}

/**
 * The reverse linear recurrence `y_t = x_t + c_t · y_{t+1}` (`y_T = 0`) along axis 0 of `[T, N]` tensors, as a
 * Hillis–Steele scan: after the round with offset s, `(x_t, c_t)` is the composition of the maps t … t+2s−1.
 * Returns a new tensor; the caller owns (and disposes) it. Use inside `tf.tidy`.
 */
export const reverseScanTf = (tf: Tf, x: tfc.Tensor2D, c: tfc.Tensor2D): tfc.Tensor2D => {
  const [T, N] = x.shape
  let xs = x
  let cs = c
  for (let s = 1; s < T; s *= 2) {
    const pad = tf.zeros([s, N])
    const xShift = tf.concat([tf.slice(xs, [s, 0], [T - s, N]), pad], 0)
    const cShift = tf.concat([tf.slice(cs, [s, 0], [T - s, N]), pad], 0)
    xs = tf.add(xs, tf.mul(cs, xShift))
    if (2 * s < T) cs = tf.mul(cs, cShift)
  }
  return xs
}

const f32 = (x: NumArray): Float32Array => (x instanceof Float32Array ? x : Float32Array.from(x as ArrayLike<number>))

/** Discounted returns with TensorFlow.js ops ({@link reverseScanTf}); float32, agrees with the reference to ~1e-5. */
export const discountedReturnsTf = (tf: Tf, input: ReturnsInput): Float32Array => {
  validate(input, tf.getBackend())
  const { numSteps: T, numEnvs: N, gamma } = input
  const out = tf.tidy(() => {
    const r = tf.tensor2d(f32(input.rewards), [T, N])
    const d = tf.tensor2d(f32(input.dones), [T, N])
    const nv = input.nextValue === undefined ? tf.zeros([1, N]) : tf.tensor2d(f32(input.nextValue), [1, N])
    const nd = input.nextDone === undefined ? tf.zeros([1, N]) : tf.tensor2d(f32(input.nextDone), [1, N])
    const dNext = T > 1 ? tf.concat([tf.slice(d, [1, 0], [T - 1, N]), nd], 0) : nd
    const c = tf.mul(tf.sub(1, dNext), gamma) as tfc.Tensor2D
    // fold the bootstrap into the last reward: x_{T−1} = r_{T−1} + γ (1 − nextDone) nextValue
    const boot = tf.concat([tf.zeros([T - 1, N]), tf.mul(tf.mul(nv, tf.sub(1, nd)), gamma)], 0)
    return reverseScanTf(tf, tf.add(r, boot) as tfc.Tensor2D, c)
  })
  const data = out.dataSync() as Float32Array
  out.dispose()
  return data
}

/** The built-in implementations (for {@link KernelRegistry}). */
export const builtin: Builtin<ReturnsInput, Float32Array> = {
  kernelName,
  reference: discountedReturnsSync,
  tfjs: discountedReturnsTf
}

/** Discounted returns on the {@link Backend} service's backend (see {@link KernelRegistry.run}). */
export const discountedReturns = (input: ReturnsInput, options?: RunOptions): Effect.Effect<Dispatched<Float32Array>, KernelInputError, Backend> =>
  KernelRegistry.run(builtin, input, options)

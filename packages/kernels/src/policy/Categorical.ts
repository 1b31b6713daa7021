/**
 * Categorical sampling from masked logits `[batch, numActions]` with a seeded generator (`@autodidact/core`'s `Rng`).
 *
 * **Details**
 * - One uniform `u_b = rng.random()` per row, drawn in row order; the action is the first index whose cumulative
 *   probability (of the masked softmax, see {@link Softmax}) exceeds `u_b` (inverse CDF, as `Rng.categorical` and
 *   Gymnasium's `categorical_sample`). The same seed gives the same actions on every backend, because the uniforms
 *   are drawn in JavaScript and handed to the kernel ({@link CategoricalInput.uniforms}).
 * - Masked actions have probability 0 and are never drawn. Rounding that leaves `u_b` above the last cumulative sum
 *   picks the last valid action.
 * - Also returns `log π(action)`, what PPO stores at rollout time.
 * - Parity: the TensorFlow.js version accumulates the CDF in float32, the reference in doubles; they can disagree only
 *   when `u_b` lies within ~1e-6 of a CDF boundary.
 *
 * @example
 * ```ts
 * import { Rng } from "@autodidact/core"
 * import { Categorical } from "@autodidact/kernels"
 * const { actions } = Categorical.sampleSync(Rng.make(0), { batch: 2, numActions: 3, logits: [0, 0, 0, 1, 2, 3] })
 * ```
 * @since 0.1.0
 */
import type { Rng } from "@autodidact/core"
import { Effect } from "effect"
import type { NumArray } from "../NumArray.js"
import type { KernelInputError } from "../KernelError.js"
import { checkArray, checkShape, checkSize, fail, REFERENCE } from "../KernelError.js"
import type { Builtin, Dispatched, RunOptions } from "../engines/KernelRegistry.js"
import * as KernelRegistry from "../engines/KernelRegistry.js"
import type { SoftmaxInput } from "./Softmax.js"
import * as Softmax from "./Softmax.js"

export const kernelName = "Categorical"

/** Masked logits and one uniform in [0, 1) per row. */
export interface CategoricalInput extends SoftmaxInput {
  /** `[batch]` uniforms in [0, 1), normally `rng.random()` in row order (see {@link uniforms}). */
  readonly uniforms: NumArray
}

/** Sampled actions and their log-probabilities. */
export interface CategoricalResult {
  readonly actions: Int32Array
  readonly logProbs: Float32Array
}

/** Validate shapes, the logits/mask (as `Softmax.validate`) and the uniforms (each in [0, 1)); throws `KernelInputError`. */
export const validate = (input: CategoricalInput, backend: string): void => {
  Softmax.validate(input, kernelName, backend)
  const site = { kernel: kernelName, backend }
  checkArray(site, "uniforms", input.uniforms, [input.batch])
  for (let b = 0; b < input.batch; b++) {
    const u = input.uniforms[b]!
    if (!(u >= 0 && u < 1)) fail(site, "uniforms", "range", `[${input.batch}]`, `expected [0, 1), got ${u} at index ${b}`)
  }
}

/** `batch` uniforms from `rng`, in row order. */
export const uniforms = (rng: Rng, batch: number): Float64Array => {
  const u = new Float64Array(batch)
  for (let b = 0; b < batch; b++) u[b] = rng.random()
  return u
}

/**
 * Inverse-CDF sampling with given uniforms, typed-array reference. One `exp` per valid logit: the unnormalized
 * weights `e_a = exp(z_a − m)` are compared with `u · Σ e`. Bad input (a NaN in a valid logit, an empty row, a
 * non-0/1 mask) is detected on the way and then named by the full validation.
 */
export const fromUniformsSync = (input: CategoricalInput): CategoricalResult => {
  const { batch: B, numActions: A, mask, logits } = input
  const site = { kernel: kernelName, backend: REFERENCE }
  checkSize(site, "batch", B)
  checkSize(site, "numActions", A)
  checkShape(site, "logits", logits, [B, A])
  if (mask !== undefined) checkShape(site, "mask", mask, [B, A])
  checkArray(site, "uniforms", input.uniforms, [B])
  const e = new Float64Array(A)
  const actions = new Int32Array(B)
  const logProbs = new Float32Array(B)
  for (let b = 0; b < B; b++) {
    const off = b * A
    let max = -Infinity
    let ok = true
    for (let a = 0; a < A; a++) {
      const m = mask === undefined ? 1 : mask[off + a]
      if (m !== 1) {
        if (m !== 0) ok = false
        continue
      }
      const v = logits[off + a]!
      if (v > max) max = v
      else if (v !== v || v === -Infinity) ok = false
    }
    let sum = 0
    for (let a = 0; a < A; a++) {
      const w = mask !== undefined && mask[off + a] === 0 ? 0 : Math.exp(logits[off + a]! - max)
      e[a] = w
      sum += w
    }
    const u = input.uniforms[b]!
    if (!ok || !(sum >= 1 && sum < Infinity) || !(u >= 0 && u < 1)) validate(input, REFERENCE) // throws
    const target = u * sum
    let acc = 0
    let chosen = -1
    let lastValid = 0
    for (let a = 0; a < A; a++) {
      const w = e[a]!
      if (w === 0 && mask !== undefined && mask[off + a] === 0) continue
      lastValid = a
      acc += w
      if (acc > target) {
        chosen = a
        break
      }
    }
    if (chosen < 0) chosen = lastValid
    actions[b] = chosen
    logProbs[b] = logits[off + chosen]! - max - Math.log(sum)
  }
  return { actions, logProbs }
}

/** The built-in implementations (for {@link KernelRegistry}). */
export const builtin: Builtin<CategoricalInput, CategoricalResult> = { kernelName, reference: fromUniformsSync }

/** Sample one action per row with `rng` (typed-array reference). */
export const sampleSync = (rng: Rng, input: SoftmaxInput): CategoricalResult =>
  fromUniformsSync({ ...input, uniforms: uniforms(rng, input.batch) })

/**
 * Sample one action per row with `rng` (uniforms drawn in row order; the same actions as {@link sampleSync} for the
 * same seed). Input `[batch, numActions]` logits and optional 0/1 mask; output `[batch]` int32 actions and float32
 * log-probabilities.
 * Dispatch: `KernelRegistry.run` — by default the engine that measured fastest for this kernel
 * (`KernelRegistry.defaultEngines`: wasm-simd, else typed-array), TensorFlow.js on native `tensorflow`; `options.engine` overrides.
 * Fails with {@link KernelInputError} on bad input (never retried on another engine).
 */
export const sample = (rng: Rng, input: SoftmaxInput, options?: RunOptions): Effect.Effect<Dispatched<CategoricalResult>, KernelInputError> =>
  Effect.suspend(() => KernelRegistry.run(builtin, { ...input, uniforms: uniforms(rng, input.batch) }, options))

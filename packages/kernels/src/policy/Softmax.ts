/**
 * Log-softmax and entropy over masked logits `[batch, numActions]` (invalid actions excluded).
 *
 * ```text
 * m_b        = max_{a valid} z_{b,a}
 * log π(a|b) = z_{b,a} − m_b − log Σ_{a' valid} exp(z_{b,a'} − m_b)     (a valid; −∞ where masked)
 * H_b        = −Σ_{a valid} π(a|b) · log π(a|b)                           (0 ≤ H_b ≤ log #valid_b)
 * ```
 *
 * **Details**
 * - `mask` is `[batch, numActions]` with 1 = valid, 0 = invalid (omitted: all valid). Masked logits are ignored
 *   entirely (they may be anything, −∞ included); valid ones must be finite.
 * - A row with no valid action is an empty segment: {@link KernelInputError} (`reason: "empty-segment"`).
 * - {@link logSoftmaxSync}: typed arrays, max-shifted, doubles inside, float32 output.
 *   {@link logSoftmaxTf}: `tf.where` + `tf.logSoftmax`, float32.
 *
 * @example
 * ```ts
 * import { Softmax } from "@autodidact/kernels"
 * const { logProbs, entropy } = Softmax.logSoftmaxSync({ batch: 1, numActions: 3, logits: [0, 0, 5], mask: [1, 1, 0] })
 * // logProbs ≈ [−0.693, −0.693, −Infinity], entropy ≈ [0.693]
 * ```
 * @since 0.1.0
 */
import type { Effect } from "effect"
import type { NumArray } from "../NumArray.js"
import type { KernelInputError, Site } from "../KernelError.js"
import { checkBinary, checkShape, checkSize, fail, REFERENCE, shapeString } from "../KernelError.js"
import type { Builtin, Dispatched, RunOptions } from "../engines/KernelRegistry.js"
import * as KernelRegistry from "../engines/KernelRegistry.js"

export const kernelName = "LogSoftmax"

/** Masked logits. */
export interface SoftmaxInput {
  readonly batch: number
  readonly numActions: number
  /** `[batch, numActions]` logits, row-major. */
  readonly logits: NumArray
  /** Optional `[batch, numActions]` 0/1 validity mask (1 = valid). */
  readonly mask?: NumArray | undefined
}

/** Log-probabilities (−∞ where masked) and per-row entropies. */
export interface SoftmaxResult {
  /** `[batch, numActions]` */
  readonly logProbs: Float32Array
  /** `[batch]` */
  readonly entropy: Float32Array
}

/** Validate a {@link SoftmaxInput} (sizes, mask 0/1, finite valid logits, no empty row). */
export const validate = (input: SoftmaxInput, kernel: string = kernelName, backend: string = REFERENCE): void => {
  const site: Site = { kernel, backend }
  const { batch: B, numActions: A, logits, mask } = input
  checkSize(site, "batch", B)
  checkSize(site, "numActions", A)
  checkShape(site, "logits", logits, [B, A])
  if (mask !== undefined) checkBinary(site, "mask", mask, [B, A])
  for (let b = 0; b < B; b++) {
    let valid = 0
    for (let a = 0; a < A; a++) {
      const k = b * A + a
      if (mask !== undefined && mask[k] === 0) continue
      valid++
      const v = logits[k]!
      if (v - v !== 0) fail(site, "logits", "non-finite", shapeString([B, A]), `${v} at [${b}, ${a}] (a valid action)`)
    }
    if (valid === 0) fail(site, "mask", "empty-segment", shapeString([B, A]), `row ${b} has no valid action`)
  }
}

/**
 * Masked log-softmax and entropy of row `b` into `logProbs` (at `b * A`); returns the entropy. No validation,
 * no allocation; one `exp` per valid element, using
 * `H = log S − (1/S) · Σ e_a · (z_a − m)` with `e_a = exp(z_a − m)`, `S = Σ e_a`.
 * Returns NaN (the caller then validates for the precise error) for a row without a valid action, a non-finite
 * valid logit, or a mask value other than 0/1.
 */
export const rowInto = (logits: NumArray, mask: NumArray | undefined, A: number, b: number, logProbs: Float32Array | Float64Array): number => {
  const off = b * A
  let max = -Infinity
  if (mask === undefined) {
    for (let a = 0; a < A; a++) {
      const v = logits[off + a]!
      if (v > max) max = v
    }
  } else {
    for (let a = 0; a < A; a++) {
      const m = mask[off + a]
      if (m !== 1) {
        if (m === 0) continue
        return Number.NaN
      }
      const v = logits[off + a]!
      if (v > max) max = v
    }
  }
  let sum = 0
  let weighted = 0
  for (let a = 0; a < A; a++) {
    if (mask !== undefined && mask[off + a] === 0) continue
    const d = logits[off + a]! - max
    const e = Math.exp(d)
    sum += e
    weighted += e * d
  }
  const logSum = Math.log(sum)
  const lse = max + logSum
  for (let a = 0; a < A; a++) logProbs[off + a] = mask !== undefined && mask[off + a] === 0 ? -Infinity : logits[off + a]! - lse
  return logSum - weighted / sum
}

/**
 * Masked log-softmax and entropy, typed-array reference. Validation is fused into the computation (a NaN entropy
 * flags bad input, and only then the full {@link validate} runs to name it), so valid input costs no extra pass.
 */
export const logSoftmaxSync = (input: SoftmaxInput): SoftmaxResult => {
  const { batch: B, numActions: A, logits, mask } = input
  const site: Site = { kernel: kernelName, backend: REFERENCE }
  checkSize(site, "batch", B)
  checkSize(site, "numActions", A)
  checkShape(site, "logits", logits, [B, A])
  if (mask !== undefined) checkShape(site, "mask", mask, [B, A])
  const logProbs = new Float32Array(B * A)
  const entropy = new Float32Array(B)
  let bad = false
  for (let b = 0; b < B; b++) {
    const h = rowInto(logits, mask, A, b, logProbs)
    if (h !== h) bad = true
    entropy[b] = h
  }
  if (bad) validate(input)
  return { logProbs, entropy }
}

/** The built-in implementations (for {@link KernelRegistry}). */
export const builtin: Builtin<SoftmaxInput, SoftmaxResult> = { kernelName, reference: logSoftmaxSync }

/**
 * Masked log-softmax (`[batch, numActions]`, −∞ where masked) and entropy (`[batch]`, nats).
 * Dispatch: `KernelRegistry.run` — by default the engine that measured fastest for this kernel
 * (`KernelRegistry.defaultEngines`: onnxruntime while `OrtEngine.layer` is provided, else wasm-simd, else typed-array), TensorFlow.js on native `tensorflow`; `options.engine` overrides.
 * Fails with {@link KernelInputError} on bad input (never retried on another engine).
 */
export const logSoftmax = (input: SoftmaxInput, options?: RunOptions): Effect.Effect<Dispatched<SoftmaxResult>, KernelInputError> =>
  KernelRegistry.run(builtin, input, options)

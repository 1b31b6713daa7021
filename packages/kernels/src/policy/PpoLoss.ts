/**
 * The PPO loss for a categorical policy over masked logits: clipped surrogate, clipped value loss, entropy bonus,
 * with its value and its gradient with respect to the logits and the values.
 *
 * Schulman et al., "Proximal Policy Optimization Algorithms", 2017 (arXiv:1707.06347), eq. 7 and 9, with the value
 * clipping of the PPO2 code, exactly as CleanRL's `ppo.py`:
 *
 * ```text
 * log r_b   = log π(a_b | z_b) − log π_old(a_b)               r_b = exp(log r_b)
 * pg_loss   = mean_b max(−A_b · r_b, −A_b · clip(r_b, 1 − ε, 1 + ε))
 * v_loss    = ½ · mean_b max((V_b − R_b)², (V_old,b + clip(V_b − V_old,b, −ε_v, ε_v) − R_b)²)    (clipVloss)
 *           = ½ · mean_b (V_b − R_b)²                                                         (otherwise)
 * H         = mean_b entropy(π(· | z_b))                      (over valid actions, see Softmax)
 * loss      = pg_loss − entCoef · H + vfCoef · v_loss
 * approxKl  = mean_b (r_b − 1) − log r_b   (Kl k3),           clipFraction = mean_b [|r_b − 1| > ε]
 * ```
 *
 * **Gradients** (what `loss.backward()` gives; `max` ties go to the unclipped branch, `clip` passes the gradient on
 * its closed interval, as `tf.maximum` / `tf.clipByValue` and torch do):
 *
 * ```text
 * ∂loss/∂z_{b,a} = (1/B) · ( g_b · ([a = a_b] − π_{b,a}) + entCoef · π_{b,a} · (log π_{b,a} + H_b) )   (a valid; 0 if masked)
 *     g_b = −A_b · r_b if −A_b·r_b ≥ −A_b·clip(r_b) else 0
 * ∂loss/∂V_b     = (vfCoef / B) · { V_b − R_b                     if unclipped ≥ clipped (or !clipVloss)
 *                                  { V_clip,b − R_b                if |V_b − V_old,b| ≤ ε_v
 *                                  { 0                             otherwise
 * ```
 *
 * **Implementations**: {@link lossAndGradientSync} (typed arrays, doubles, closed form above; its allocation-free
 * twin {@link lossAndGradientInto} writes into caller-owned buffers, for training loops) and
 * {@link lossAndGradientTf} (TensorFlow.js forward pass differentiated by `tf.valueAndGrads`: autodiff, no
 * hand-written gradient). Tests check both against each other and against central finite differences.
 * Advantages are used as given (normalize them first with `Gae.normalizeInPlace` for CleanRL's `norm_adv`).
 *
 * @see https://github.com/vwxyzjn/cleanrl/blob/master/cleanrl/ppo.py
 * @since 0.1.0
 */
import type { Effect } from "effect"
import type { NumArray } from "../NumArray.js"
import type { KernelInputError, Site } from "../KernelError.js"
import { checkArray, checkRange, checkShape, checkSize, fail, REFERENCE } from "../KernelError.js"
import type { Builtin, Dispatched, RunOptions } from "../engines/KernelRegistry.js"
import * as KernelRegistry from "../engines/KernelRegistry.js"
import * as Softmax from "./Softmax.js"

export const kernelName = "PpoLoss"

/** One minibatch. */
export interface PpoLossInput {
  readonly batch: number
  readonly numActions: number
  /** `[batch, numActions]` logits of the current policy. */
  readonly logits: NumArray
  /** Optional `[batch, numActions]` 0/1 validity mask. */
  readonly mask?: NumArray | undefined
  /** `[batch]` actions taken (valid indices). */
  readonly actions: NumArray
  /** `[batch]` log π_old(a) at rollout time. */
  readonly oldLogProbs: NumArray
  /** `[batch]` advantages (normalized by the caller if wanted). */
  readonly advantages: NumArray
  /** `[batch]` current value predictions V. */
  readonly values: NumArray
  /** `[batch]` value predictions at rollout time (centre of the value clipping). */
  readonly oldValues: NumArray
  /** `[batch]` value targets (λ-returns). */
  readonly returns: NumArray
  /** Surrogate clipping ε (default 0.2). */
  readonly clipCoef?: number | undefined
  /** Value clipping ε_v (default: `clipCoef`, as CleanRL). */
  readonly vfClipCoef?: number | undefined
  /** Clip the value loss (default true). */
  readonly clipVloss?: boolean | undefined
  /** Entropy coefficient (default 0.01). */
  readonly entCoef?: number | undefined
  /** Value loss coefficient (default 0.5). */
  readonly vfCoef?: number | undefined
}

/** Loss parts and gradients. */
export interface PpoLossResult {
  readonly loss: number
  readonly policyLoss: number
  readonly valueLoss: number
  readonly entropy: number
  readonly approxKl: number
  readonly clipFraction: number
  /** `[batch, numActions]` ∂loss/∂logits (0 at masked actions). */
  readonly dLogits: Float64Array
  /** `[batch]` ∂loss/∂values. */
  readonly dValues: Float64Array
}

interface Coefs {
  readonly c: number
  readonly cv: number
  readonly clipVloss: boolean
  readonly ent: number
  readonly vf: number
}

const coefsOf = (input: PpoLossInput, site: Site): Coefs => {
  const c = input.clipCoef ?? 0.2
  const cv = input.vfClipCoef ?? c
  const ent = input.entCoef ?? 0.01
  const vf = input.vfCoef ?? 0.5
  checkRange(site, "clipCoef", c, 0, 1e9)
  checkRange(site, "vfClipCoef", cv, 0, Number.MAX_VALUE)
  checkRange(site, "entCoef", ent, -Number.MAX_VALUE, Number.MAX_VALUE)
  checkRange(site, "vfCoef", vf, -Number.MAX_VALUE, Number.MAX_VALUE)
  return { c, cv, clipVloss: input.clipVloss ?? true, ent, vf }
}

/** Validate a {@link PpoLossInput}; returns the coefficients with their defaults. */
export const validate = (input: PpoLossInput, backend: string = REFERENCE, logits = true): Coefs => {
  const site: Site = { kernel: kernelName, backend }
  if (logits) Softmax.validate(input, kernelName, backend)
  else {
    checkSize(site, "batch", input.batch)
    checkSize(site, "numActions", input.numActions)
    checkShape(site, "logits", input.logits, [input.batch, input.numActions])
    if (input.mask !== undefined) checkShape(site, "mask", input.mask, [input.batch, input.numActions])
  }
  const B = input.batch
  const A = input.numActions
  for (const name of ["actions", "oldLogProbs", "advantages", "values", "oldValues", "returns"] as const) checkArray(site, name, input[name], [B])
  for (let b = 0; b < B; b++) {
    const a = input.actions[b]!
    if (!(Number.isInteger(a) && a >= 0 && a < A)) fail(site, "actions", "range", `[${B}]`, `expected an integer in [0, ${A}), got ${a} at index ${b}`)
    if (input.mask !== undefined && input.mask[b * A + a] !== 1) fail(site, "actions", "range", `[${B}]`, `action ${a} at index ${b} is masked (invalid)`)
  }
  return coefsOf(input, site)
}

/** The scalar parts of a {@link PpoLossResult} (what {@link lossAndGradientInto} returns). */
export type PpoLossParts = Omit<PpoLossResult, "dLogits" | "dValues">

/** Caller-owned buffers of {@link lossAndGradientInto}; each at least as long as stated (only the prefix is used). */
export interface PpoLossBuffers {
  /** ≥ `batch × numActions`: scratch for the log-probabilities. */
  readonly logProbs: Float64Array
  /** ≥ `batch × numActions`: receives ∂loss/∂logits (0 at masked actions). */
  readonly dLogits: Float64Array
  /** ≥ `batch`: receives ∂loss/∂values. */
  readonly dValues: Float64Array
}

const compute = (input: PpoLossInput, coefs: Coefs, out: PpoLossBuffers): PpoLossParts => {
  const { c, cv, clipVloss, ent, vf } = coefs
  const B = input.batch
  const A = input.numActions
  const { logProbs: logp, dLogits, dValues } = out
  let pgLoss = 0
  let vLoss = 0
  let entropy = 0
  let approxKl = 0
  let clipped = 0
  for (let b = 0; b < B; b++) {
    const h = Softmax.rowInto(input.logits, input.mask, A, b, logp)
    entropy += h
    const action = input.actions[b]!
    const logRatio = logp[b * A + action]! - input.oldLogProbs[b]!
    const ratio = Math.exp(logRatio)
    approxKl += ratio - 1 - logRatio
    if (Math.abs(ratio - 1) > c) clipped++
    const adv = input.advantages[b]!
    const pg1 = -adv * ratio
    const pg2 = -adv * Math.min(Math.max(ratio, 1 - c), 1 + c)
    pgLoss += pg1 >= pg2 ? pg1 : pg2
    const g = pg1 >= pg2 ? -adv * ratio : 0
    const off = b * A
    for (let a = 0; a < A; a++) {
      const lp = logp[off + a]!
      if (lp === -Infinity) {
        dLogits[off + a] = 0
        continue
      }
      const p = Math.exp(lp)
      dLogits[off + a] = (g * ((a === action ? 1 : 0) - p) + ent * p * (lp + h)) / B
    }
    const v = input.values[b]!
    const ret = input.returns[b]!
    const diff = v - ret
    let dV: number
    if (clipVloss) {
      const old = input.oldValues[b]!
      const vClipped = old + Math.min(Math.max(v - old, -cv), cv)
      const un = diff * diff
      const cl = (vClipped - ret) * (vClipped - ret)
      vLoss += un >= cl ? un : cl
      dV = un >= cl ? diff : Math.abs(v - old) <= cv ? vClipped - ret : 0
    } else {
      vLoss += diff * diff
      dV = diff
    }
    dValues[b] = (vf * dV) / B
  }
  pgLoss /= B
  vLoss = (0.5 * vLoss) / B
  entropy /= B
  return { loss: pgLoss - ent * entropy + vf * vLoss, policyLoss: pgLoss, valueLoss: vLoss, entropy, approxKl: approxKl / B, clipFraction: clipped / B }
}

/**
 * Loss and closed-form gradients into caller-owned buffers: the allocation-free form of {@link lossAndGradientSync}
 * for training loops (same arithmetic, same order, so the same bits). Checks only the coefficients and that the
 * buffers are long enough; the arrays are trusted (a NaN/±Infinity input, or a row without a valid action, gives a
 * non-finite `loss`, which the caller should check). Only the first `batch × numActions` (`batch`) entries of
 * `logits`/`mask` and the buffers (`[batch]` arrays) are read or written.
 */
export const lossAndGradientInto = (input: PpoLossInput, out: PpoLossBuffers): PpoLossParts => {
  const site: Site = { kernel: kernelName, backend: REFERENCE }
  const n = input.batch * input.numActions
  if (out.logProbs.length < n) fail(site, "logProbs", "shape", `[${out.logProbs.length}]`, `buffer needs at least ${n} elements`)
  if (out.dLogits.length < n) fail(site, "dLogits", "shape", `[${out.dLogits.length}]`, `buffer needs at least ${n} elements`)
  if (out.dValues.length < input.batch) fail(site, "dValues", "shape", `[${out.dValues.length}]`, `buffer needs at least ${input.batch} elements`)
  return compute(input, coefsOf(input, site), out)
}

/**
 * Loss and closed-form gradients, typed-array reference (doubles throughout). Validates the `[batch]` inputs up
 * front and the logits/mask through the fused check of `Softmax.rowInto` (a NaN entropy triggers the full check).
 */
export const lossAndGradientSync = (input: PpoLossInput): PpoLossResult => {
  const coefs = validate(input, REFERENCE, false)
  const n = input.batch * input.numActions
  const dLogits = new Float64Array(n)
  const dValues = new Float64Array(input.batch)
  const parts = compute(input, coefs, { logProbs: new Float64Array(n), dLogits, dValues })
  if (parts.entropy !== parts.entropy) Softmax.validate(input, kernelName, REFERENCE) // throws the precise error
  return { ...parts, dLogits, dValues }
}


/** The built-in implementations (for {@link KernelRegistry}). */
export const builtin: Builtin<PpoLossInput, PpoLossResult> = { kernelName, reference: lossAndGradientSync }

/**
 * PPO clipped-surrogate loss, clipped value loss and entropy bonus (arXiv:1707.06347) with the gradients with respect
 * to the `[batch, numActions]` logits and the `[batch]` values.
 * Dispatch: `KernelRegistry.run` — by default the engine that measured fastest for this kernel
 * (`KernelRegistry.defaultEngines`: wasm-simd, else typed-array), TensorFlow.js on native `tensorflow`; `options.engine` overrides.
 * Fails with {@link KernelInputError} on bad input (never retried on another engine).
 */
export const lossAndGradient = (input: PpoLossInput, options?: RunOptions): Effect.Effect<Dispatched<PpoLossResult>, KernelInputError> =>
  KernelRegistry.run(builtin, input, options)

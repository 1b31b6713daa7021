/**
 * Statistics over variable-size groups (segments) and the group-relative advantages built on them: GRPO's
 * group-normalized rewards, RLOO's leave-one-out baselines, and GiGPO's anchor-state step groups.
 *
 * ```text
 * n_g = #{i : seg_i = g},   μ_g = (1/n_g) Σ_{seg_i = g} x_i,   σ_g = sqrt(Σ (x_i − μ_g)² / (n_g − ddof))
 * GRPO    A_i = (x_i − μ_{seg_i}) / (σ_{seg_i} + ε)       (Shao et al. 2024, DeepSeekMath §4.1.2, arXiv:2402.03300;
 *                                                          `scale: false` gives Dr. GRPO's x_i − μ, Liu et al. 2025,
 *                                                          arXiv:2503.20783)
 * RLOO    b_i = (Σ_{seg_j = seg_i} x_j − x_i) / (n_{seg_i} − 1),  A_i = x_i − b_i   (Ahmadian et al. 2024,
 *                                                          "Back to Basics", arXiv:2402.14740)
 * GiGPO   step groups = (episode group, anchor state) pairs; A_i = (R_i − μ) / (σ + ε) within each step group
 *                                                          (Feng et al. 2025, "Group-in-Group Policy Optimization",
 *                                                          arXiv:2505.10978)
 * ```
 *
 * **The one rule for group-relative advantages** (every estimator of Autodidact goes through this module:
 * `@autodidact/optim`'s `Advantages` GRPO, Dr. GRPO, RLOO, REINFORCE++ and GiGPO, and `@autodidact/llm`'s verl export
 * through them):
 * - σ is the *sample* standard deviation, `ddof = 1` (n − 1 in the denominator), as `torch.std`, verl/verl-agent and
 *   TRL; ε is the caller's (optim passes 1e-6; this module's default is 1e-4, TRL's).
 * - A group with **one member carries no relative signal: its advantage is 0** in every estimator (GRPO, Dr. GRPO,
 *   RLOO, GiGPO episode and step groups). Its mean is the value itself, so x − μ = 0 exactly; RLOO has no
 *   leave-one-out baseline for it and uses b = x (advantage 0). (verl passes the raw score through instead; no
 *   update beats an unbaselined one.)
 * - A member exactly at its group's mean (all-equal values included) gets exactly 0, never NaN.
 *
 * **Details**
 * - Segments are given by `segmentIds` (integers in `[0, numSegments)`, any order: groups need not be contiguous).
 * - `ddof` defaults to 1; a segment with `n ≤ ddof` gets σ = 0 (torch would give NaN).
 * - An empty segment (some g < numSegments with no member) is a {@link KernelInputError} with
 *   `reason: "empty-segment"`.
 * - {@link normalizeInto} and {@link rlooInto} are the double-precision, allocation-free cores (no validation) that
 *   the typed-array kernels and `@autodidact/optim`'s estimators share; the `*Sync` kernels validate and return
 *   float32.
 * - TensorFlow.js versions use `tf.bincount` with weights (a segment sum that exists on wasm, cpu and tensorflow;
 *   `tf.unsortedSegmentSum` has no wasm kernel) and gather the means back.
 *
 * @example
 * ```ts
 * import { GroupNorm } from "@autodidact/kernels"
 * // two prompts, 3 and 2 completions
 * GroupNorm.groupNormalizeSync({ values: [1, 0, 0, 1, 1], segmentIds: [0, 0, 0, 1, 1], numSegments: 2 })
 * ```
 * @since 0.1.0
 */
import type { Effect } from "effect"
import type { NumArray } from "../NumArray.js"
import type { KernelInputError, Site } from "../KernelError.js"
import { checkArray, checkShape, checkSize, fail, REFERENCE } from "../KernelError.js"
import type { Builtin, Dispatched, RunOptions } from "../engines/KernelRegistry.js"
import * as KernelRegistry from "../engines/KernelRegistry.js"

export const kernelName = "GroupNorm"
export const rlooKernelName = "Rloo"

/** Values and their segment (group) ids. */
export interface SegmentInput {
  /** `[n]` values (rewards, returns). */
  readonly values: NumArray
  /** `[n]` integer segment ids in `[0, numSegments)`. */
  readonly segmentIds: NumArray
  readonly numSegments: number
  /** Degrees of freedom removed from the std's denominator (default 1: unbiased). */
  readonly ddof?: number | undefined
}

/** Options of group normalization. */
export interface NormalizeInput extends SegmentInput {
  /** Added to σ (default 1e-4 as TRL's GRPO; CleanRL's PPO uses 1e-8). */
  readonly eps?: number | undefined
  /** Divide by σ + ε (default true; false gives Dr. GRPO's mean-centred advantages). */
  readonly scale?: boolean | undefined
}

/** Per-segment count, mean and std. */
export interface SegmentStats {
  readonly count: Int32Array
  readonly mean: Float64Array
  readonly std: Float64Array
}

/** Validate a {@link SegmentInput}; with `minCount` every segment must have at least that many members. */
export const validate = (input: SegmentInput, kernel: string, backend: string, minCount = 1): Int32Array => {
  const site: Site = { kernel, backend }
  const n = input.values.length
  const G = input.numSegments
  checkSize(site, "numSegments", G)
  checkSize(site, "values.length", n)
  checkArray(site, "values", input.values, [n])
  checkShape(site, "segmentIds", input.segmentIds, [n])
  if (input.ddof !== undefined) checkSize(site, "ddof", input.ddof, true)
  const count = new Int32Array(G)
  for (let i = 0; i < n; i++) {
    const g = input.segmentIds[i]!
    if (!(Number.isInteger(g) && g >= 0 && g < G)) fail(site, "segmentIds", "range", `[${n}]`, `expected an integer in [0, ${G}), got ${g} at index ${i}`)
    count[g]++
  }
  for (let g = 0; g < G; g++) {
    if (count[g]! < minCount) {
      fail(site, "segmentIds", "empty-segment", `[${n}]`, `segment ${g} of ${G} has ${count[g]} member${count[g] === 1 ? "" : "s"} (needs ≥ ${minCount})`)
    }
  }
  return count
}

/** Two-pass segment mean and std into caller-owned arrays, given the counts. No validation. */
export const statsInto = (values: NumArray, ids: NumArray, count: Int32Array, ddof: number, mean: Float64Array, std: Float64Array): void => {
  const G = count.length
  const n = values.length
  mean.fill(0)
  std.fill(0)
  for (let i = 0; i < n; i++) mean[ids[i]!] += values[i]!
  for (let g = 0; g < G; g++) mean[g] /= count[g]!
  for (let i = 0; i < n; i++) {
    const g = ids[i]!
    const d = values[i]! - mean[g]!
    std[g] += d * d
  }
  for (let g = 0; g < G; g++) std[g] = count[g]! > ddof ? Math.sqrt(std[g]! / (count[g]! - ddof)) : 0
}

/** Per-segment count, mean, std, typed-array reference (validates; empty segments are errors). */
export const segmentStatsSync = (input: SegmentInput): SegmentStats => {
  const count = validate(input, "SegmentStats", REFERENCE)
  const mean = new Float64Array(input.numSegments)
  const std = new Float64Array(input.numSegments)
  statsInto(input.values, input.segmentIds, count, input.ddof ?? 1, mean, std)
  return { count, mean, std }
}

/**
 * Group-relative normalization into caller-owned arrays, given the counts (no validation): the segment statistics
 * ({@link statsInto}, written to `mean` and `std`, `[numSegments]`), then for every `i` with `d = x_i − μ_{seg_i}`:
 * `out[i] = d === 0 ? 0 : scale ? d / (σ_{seg_i} + eps) : d` (GRPO; `scale: false` is Dr. GRPO's `x − μ`).
 *
 * A one-member segment gets 0 (μ = x exactly); so does every member at its segment's mean. `out` may be a
 * `Float64Array` (the estimators of `@autodidact/optim`) or a `Float32Array` (the kernels' results).
 * @see Shao et al., "DeepSeekMath", arXiv:2402.03300, Sec. 4.1.2 (GRPO); Liu et al., "Understanding R1-Zero-Like
 *   Training" (Dr. GRPO), arXiv:2503.20783
 */
export const normalizeInto = (
  values: NumArray,
  ids: NumArray,
  count: Int32Array,
  ddof: number,
  eps: number,
  scale: boolean,
  mean: Float64Array,
  std: Float64Array,
  out: Float64Array | Float32Array
): void => {
  statsInto(values, ids, count, ddof, mean, std)
  const n = values.length
  for (let i = 0; i < n; i++) {
    const g = ids[i]!
    const d = values[i]! - mean[g]!
    out[i] = d === 0 ? 0 : scale ? d / (std[g]! + eps) : d
  }
}

/** Group-relative normalization, typed-array reference (validates; see {@link normalizeInto}). */
export const groupNormalizeSync = (input: NormalizeInput): Float32Array => {
  const count = validate(input, kernelName, REFERENCE)
  const G = input.numSegments
  const out = new Float32Array(input.values.length)
  normalizeInto(input.values, input.segmentIds, count, input.ddof ?? 1, input.eps ?? 1e-4, input.scale !== false, new Float64Array(G), new Float64Array(G), out)
  return out
}

/** RLOO baselines and advantages. */
export interface RlooResult {
  readonly baselines: Float32Array
  readonly advantages: Float32Array
}

/**
 * RLOO leave-one-out baselines and advantages into caller-owned arrays, given the counts (no validation):
 * `b_i = (Σ_{seg_j = seg_i} x_j − x_i) / (n_{seg_i} − 1)`, `A_i = x_i − b_i`. A one-member segment has no
 * leave-one-out baseline: `b_i = x_i`, `A_i = 0`. `sum` (`[numSegments]`) receives the segment sums.
 * @see Ahmadian et al., "Back to Basics: Revisiting REINFORCE Style Optimization for Learning from Human Feedback in
 *   LLMs", arXiv:2402.14740; Kool, van Hoof, Welling, "Buy 4 REINFORCE Samples, Get a Baseline for Free!" (2019)
 */
export const rlooInto = (
  values: NumArray,
  ids: NumArray,
  count: Int32Array,
  sum: Float64Array,
  baselines: Float64Array | Float32Array,
  advantages: Float64Array | Float32Array
): void => {
  const n = values.length
  sum.fill(0)
  for (let i = 0; i < n; i++) sum[ids[i]!] += values[i]!
  for (let i = 0; i < n; i++) {
    const g = ids[i]!
    const x = values[i]!
    const c = count[g]!
    const b = c > 1 ? (sum[g]! - x) / (c - 1) : x
    baselines[i] = b
    advantages[i] = c > 1 ? x - b : 0
  }
}

/** Segment count / sum scratch of {@link rlooSync} (grown, never shrunk: no allocation per call but the outputs). */
let scratchCount = new Int32Array(0)
let scratchSum = new Float64Array(0)

/**
 * RLOO leave-one-out baselines `b_i = (Σ_{seg_j = seg_i} x_j − x_i) / (n_g − 1)` and advantages `x_i − b_i`
 * (Ahmadian et al. 2024, arXiv:2402.14740), the typed-array kernel (the default dispatch's engine for RLOO).
 *
 * **Input**: `[n]` values and integer segment ids in `[0, numSegments)` (any order). **Output**: `[n]` float32
 * baselines and advantages (sums in doubles). One pass counts and sums the segments (checking ids and finiteness on
 * the way), a second writes the outputs; when that pass flags anything, {@link validate} names it.
 * A one-member group has no leave-one-out baseline: `b_i = x_i`, `A_i = 0` (the one rule, see the module docs and
 * {@link rlooInto}, the double-precision core `@autodidact/optim` uses).
 * @throws KernelInputError (`kernel: "Rloo"`): a size or id out of range, a NaN/±Infinity, an empty group
 *   (`empty-segment`)
 */
export const rlooSync = (input: SegmentInput): RlooResult => {
  const site: Site = { kernel: rlooKernelName, backend: REFERENCE }
  const n = input.values.length
  const G = input.numSegments
  checkSize(site, "numSegments", G)
  checkSize(site, "values.length", n)
  checkShape(site, "segmentIds", input.segmentIds, [n])
  if (input.ddof !== undefined) checkSize(site, "ddof", input.ddof, true)
  if (scratchCount.length < G) {
    scratchCount = new Int32Array(G)
    scratchSum = new Float64Array(G)
  }
  const count = scratchCount
  const sum = scratchSum
  count.fill(0, 0, G)
  sum.fill(0, 0, G)
  const x = input.values
  const ids = input.segmentIds
  let bad = false
  for (let i = 0; i < n; i++) {
    const g = ids[i]!
    if (!((g | 0) === g && g >= 0 && g < G)) {
      bad = true
      break
    }
    count[g]++
    sum[g] += x[i]!
  }
  let total = 0
  for (let g = 0; g < G && !bad; g++) {
    if (count[g]! < 1) bad = true
    total += sum[g]!
  }
  if (bad || total - total !== 0) validate(input, rlooKernelName, REFERENCE) // names the problem
  const baselines = new Float32Array(n)
  const advantages = new Float32Array(n)
  for (let i = 0; i < n; i++) {
    const g = ids[i]!
    const xi = x[i]!
    const c = count[g]!
    const b = c > 1 ? (sum[g]! - xi) / (c - 1) : xi
    baselines[i] = b
    advantages[i] = c > 1 ? xi - b : 0
  }
  return { baselines, advantages }
}

/** GiGPO step groups: episode group ids and anchor-state keys. */
export interface AnchorInput {
  /** `[n]` per-step discounted returns R_t. */
  readonly values: NumArray
  /** `[n]` episode-group id of each step (integers in [0, 2²¹)). */
  readonly groupIds: NumArray
  /** `[n]` anchor-state key of each step (integers in [0, 2³²), e.g. a 32-bit hash of the observation). */
  readonly anchorKeys: NumArray
  readonly ddof?: number | undefined
  readonly eps?: number | undefined
  readonly scale?: boolean | undefined
}

/** Dense step-group ids and their statistics and advantages. */
export interface AnchorResult extends SegmentStats {
  /** `[n]` dense id of each step's (group, anchor) pair, numbered in order of first appearance. */
  readonly anchorIds: Int32Array
  readonly numAnchors: number
  /** `[n]` step-relative advantages. */
  readonly advantages: Float32Array
}

/** Number the distinct (group, anchor) pairs in order of first appearance. */
export const anchorIdsOf = (input: AnchorInput, backend: string = REFERENCE): { readonly ids: Int32Array; readonly numAnchors: number } => {
  const site: Site = { kernel: "AnchorStats", backend }
  const n = input.values.length
  checkSize(site, "values.length", n)
  checkArray(site, "values", input.values, [n])
  checkShape(site, "groupIds", input.groupIds, [n])
  checkShape(site, "anchorKeys", input.anchorKeys, [n])
  const ids = new Int32Array(n)
  const seen = new Map<number, number>()
  for (let i = 0; i < n; i++) {
    const g = input.groupIds[i]!
    const a = input.anchorKeys[i]!
    if (!(Number.isInteger(g) && g >= 0 && g < 2 ** 21)) fail(site, "groupIds", "range", `[${n}]`, `expected an integer in [0, 2^21), got ${g} at index ${i}`)
    if (!(Number.isInteger(a) && a >= 0 && a < 2 ** 32)) fail(site, "anchorKeys", "range", `[${n}]`, `expected an integer in [0, 2^32), got ${a} at index ${i}`)
    const key = g * 2 ** 32 + a
    let id = seen.get(key)
    if (id === undefined) {
      id = seen.size
      seen.set(key, id)
    }
    ids[i] = id
  }
  return { ids, numAnchors: seen.size }
}

/** GiGPO anchor-state step groups: statistics and normalized step advantages, typed-array reference. */
export const anchorStatsSync = (input: AnchorInput): AnchorResult => {
  const { ids, numAnchors } = anchorIdsOf(input)
  const stats = segmentStatsSync({ values: input.values, segmentIds: ids, numSegments: numAnchors, ddof: input.ddof })
  const advantages = groupNormalizeSync({ values: input.values, segmentIds: ids, numSegments: numAnchors, ddof: input.ddof, eps: input.eps, scale: input.scale })
  return { ...stats, anchorIds: ids, numAnchors, advantages }
}

/** The built-in implementations (for {@link KernelRegistry}). */
export const builtin: Builtin<NormalizeInput, Float32Array> = { kernelName, reference: groupNormalizeSync }
export const rlooBuiltin: Builtin<SegmentInput, RlooResult> = { kernelName: rlooKernelName, reference: rlooSync }

/**
 * GRPO group-relative normalization (arXiv:2402.03300): `[n]` values and segment ids in, `[n]` float32 advantages
 * `(x − μ_g) / (σ_g + ε)` out (`scale: false`: `x − μ_g`, Dr. GRPO).
 * Dispatch: `KernelRegistry.run` — by default the engine that measured fastest for this kernel
 * (`KernelRegistry.defaultEngines`: wasm-simd, else typed-array), TensorFlow.js on native `tensorflow`; `options.engine` overrides.
 * Fails with {@link KernelInputError} on bad input (never retried on another engine).
 */
export const groupNormalize = (input: NormalizeInput, options?: RunOptions): Effect.Effect<Dispatched<Float32Array>, KernelInputError> =>
  KernelRegistry.run(builtin, input, options)

/**
 * RLOO leave-one-out baselines and advantages (arXiv:2402.14740): `[n]` values and segment ids in, `[n]` float32
 * baselines and advantages out.
 * Dispatch: `KernelRegistry.run` — by default the engine that measured fastest for this kernel
 * (`KernelRegistry.defaultEngines`: the typed-array one-pass segment sums), TensorFlow.js on native `tensorflow`; `options.engine` overrides.
 * Fails with {@link KernelInputError} on bad input (never retried on another engine).
 */
export const rloo = (input: SegmentInput, options?: RunOptions): Effect.Effect<Dispatched<RlooResult>, KernelInputError> =>
  KernelRegistry.run(rlooBuiltin, input, options)

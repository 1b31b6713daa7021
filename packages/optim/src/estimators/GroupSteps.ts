/**
 * Group-relative normalization helpers shared by the estimators of this folder, all through `GroupNorm.normalizeInto`
 * of `@autodidact/kernels` (the one rule of `Advantages`: sample std, ε added, a one-member segment and a value at its
 * segment's mean give exactly 0):
 * - {@link perTrajectory}: one value per trajectory (an outcome), normalized within its task group;
 * - {@link perStep}: per-step values, normalized over every step of every trajectory of the task group (one segment
 *   per group).
 *
 * @since 0.3.0
 */
import { GroupNorm } from "@autodidact/kernels"
import type * as Advantages from "../Advantages.js"

/**
 * `value(tr)` of every trajectory, normalized within its group: `(x − mean) / (std + ε)` (or `x − mean` without
 * `byStd`). Returns `out[g][i]`.
 */
export const perTrajectory = (
  batch: ReadonlyArray<Advantages.Group>,
  value: (tr: Advantages.TrajectoryInput) => number,
  eps: number,
  byStd: boolean
): Array<Float64Array> =>
  batch.map((group) => {
    const xs = Float64Array.from(group, value)
    const out = new Float64Array(xs.length)
    GroupNorm.normalizeInto(xs, new Int32Array(xs.length), Int32Array.of(xs.length), 1, eps, byStd, new Float64Array(1), new Float64Array(1), out)
    return out
  })

/**
 * Per-step values `values(tr, i)` (one per step) of every trajectory, normalized over all steps of its group:
 * `(x − mean) / (std + ε)` (or `x − mean` without `byStd`). Returns `out[g][i][t]`.
 */
export const perStep = (
  batch: ReadonlyArray<Advantages.Group>,
  values: (tr: Advantages.TrajectoryInput, i: number) => Float64Array,
  eps: number,
  byStd: boolean
): Advantages.Result =>
  batch.map((group) => {
    const rows = group.map(values)
    let n = 0
    for (const r of rows) n += r.length
    const all = new Float64Array(n)
    let offset = 0
    for (const r of rows) {
      all.set(r, offset)
      offset += r.length
    }
    GroupNorm.normalizeInto(all, new Int32Array(n), Int32Array.of(n), 1, eps, byStd, new Float64Array(1), new Float64Array(1), all)
    offset = 0
    return rows.map((r) => {
      const out = all.slice(offset, offset + r.length)
      offset += r.length
      return out
    })
  })

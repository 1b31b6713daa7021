/**
 * A reservoir-sampled memory of fixed-width rows (Vitter's Algorithm R), the advantage memory of Deep CFR: after `n`
 * additions it holds a uniform sample of `min(n, capacity)` of them, whatever their order.
 *
 * **Details**
 * - A row is a feature vector (`featureDim` floats), a target (`width` floats), a legal-action mask (`width` bytes,
 *   1 = legal) and a weight (the CFR iteration that produced it, Deep CFR's linear weighting).
 * - {@link add}: while not full the row is appended; afterwards the `n`-th addition (0-based) draws
 *   `j = rng.integers(0, n + 1)` and replaces row `j` when `j < capacity`, else is dropped (OpenSpiel's
 *   `ReservoirBuffer.add`). Storage is preallocated typed arrays (`capacity` rows), no allocation per row.
 *
 * @see Vitter, "Random sampling with a reservoir", ACM TOMS 11(1), 1985 (Algorithm R)
 * @see https://github.com/google-deepmind/open_spiel/blob/master/open_spiel/python/algorithms/deep_cfr_tf2.py
 *   (`ReservoirBuffer`)
 * @category deep
 * @since 0.2.0
 */
import { InvalidOptionError, type Rng } from "@autodidact/core"

/** A reservoir memory (mutable; create with {@link make}). */
export interface Reservoir {
  readonly capacity: number
  readonly featureDim: number
  readonly width: number
  /** `[capacity, featureDim]` */
  readonly features: Float32Array
  /** `[capacity, width]` */
  readonly targets: Float32Array
  /** `[capacity, width]`, 1 = legal */
  readonly masks: Uint8Array
  /** `[capacity]` */
  readonly weights: Float32Array
  /** Rows held now (`min(added, capacity)`). */
  size: number
  /** Rows offered so far. */
  added: number
}

/**
 * An empty memory of `capacity` rows of `featureDim` features and `width` targets.
 * @throws InvalidOptionError when a size is not a positive integer (naming it).
 */
export const make = (capacity: number, featureDim: number, width: number): Reservoir => {
  for (const [name, v] of [["memoryCapacity", capacity], ["featureDim", featureDim], ["width", width]] as const) {
    if (!Number.isInteger(v) || v < 1) throw new InvalidOptionError({ option: name, value: v, reason: "must be a positive integer" })
  }
  return {
    capacity,
    featureDim,
    width,
    features: new Float32Array(capacity * featureDim),
    targets: new Float32Array(capacity * width),
    masks: new Uint8Array(capacity * width),
    weights: new Float32Array(capacity),
    size: 0,
    added: 0
  }
}

/**
 * Offer one row (Algorithm R): `features` (`featureDim`), `target` and `mask` (`width`) and `weight`. Returns the row
 * index written, or -1 when the row was dropped.
 */
export const add = (
  r: Reservoir,
  rng: Rng,
  features: ArrayLike<number>,
  target: ArrayLike<number>,
  mask: ArrayLike<number>,
  weight: number
): number => {
  let j: number
  if (r.size < r.capacity) j = r.size++
  else {
    j = rng.integers(0, r.added + 1)
    if (j >= r.capacity) j = -1
  }
  r.added++
  if (j < 0) return -1
  const D = r.featureDim
  const W = r.width
  for (let i = 0; i < D; i++) r.features[j * D + i] = features[i]!
  for (let k = 0; k < W; k++) {
    r.targets[j * W + k] = target[k]!
    r.masks[j * W + k] = mask[k]! !== 0 ? 1 : 0
  }
  r.weights[j] = weight
  return j
}

/** Forget every row (OpenSpiel's `clear`). */
export const clear = (r: Reservoir): void => {
  r.size = 0
  r.added = 0
}

/**
 * A memory's rows grouped by identical (features, mask) — the per-information-state view of Deep CFR's advantage
 * memory: group `g` stands for every row whose feature vector and legal mask are bit-identical to row `rows[g]`,
 * with `weights[g]` the sum of their weights and `targets[g]` (`[size, width]`) their weight-weighted mean target.
 *
 * Why: the weighted MSE over the rows, `Σ_b w_b Σ_k (m_bk f(x_b)_k − r_bk)²`, equals
 * `Σ_g W_g Σ_k (m_gk f(x_g)_k − r̄_gk)²` plus a constant independent of `f` (the within-group variance), so training on
 * the groups has the same minimizer and the same expected gradient, without the mini-batches' resampling of the same
 * state's noisy targets. Buffers grow on demand and are reused across calls (no allocation once grown).
 */
export interface Aggregate {
  /** Groups found by the last {@link aggregate}. */
  size: number
  /** `[size]`: a row of the memory holding the group's features (and mask). */
  rows: Int32Array
  /** `[size]`: summed weight of the group's rows. */
  weights: Float64Array
  /** `[size, width]`: weighted-mean target of the group's rows. */
  targets: Float64Array
  /** Open-addressing table (group index + 1, 0 = empty), power-of-two length. */
  table: Int32Array
}

/** An empty {@link Aggregate} (buffers allocated by the first {@link aggregate}). */
export const makeAggregate = (): Aggregate => ({
  size: 0,
  rows: new Int32Array(0),
  weights: new Float64Array(0),
  targets: new Float64Array(0),
  table: new Int32Array(0)
})

/**
 * Group the rows of `r` (see {@link Aggregate}) into `agg`, in order of first occurrence; a group whose weights sum to 0
 * gets target 0 (it adds nothing to the weighted loss). O(size · (featureDim + width)) with a linear-probing hash table.
 */
export const aggregate = (r: Reservoir, agg: Aggregate): Aggregate => {
  const n = r.size
  const D = r.featureDim
  const W = r.width
  if (agg.rows.length < n) {
    agg.rows = new Int32Array(n)
    agg.weights = new Float64Array(n)
    agg.targets = new Float64Array(n * W)
  }
  let cap = 1
  while (cap < 2 * n) cap <<= 1
  if (agg.table.length < cap) agg.table = new Int32Array(cap)
  else cap = agg.table.length
  const table = agg.table
  table.fill(0)
  const bits = new Uint32Array(r.features.buffer, r.features.byteOffset, r.features.length)
  const masks = r.masks
  let groups = 0
  for (let i = 0; i < n; i++) {
    // FNV-1a over the feature bits and the mask bytes
    let h = 0x811c9dc5
    for (let k = 0; k < D; k++) h = Math.imul(h ^ bits[i * D + k]!, 0x01000193)
    for (let k = 0; k < W; k++) h = Math.imul(h ^ masks[i * W + k]!, 0x01000193)
    let slot = (h ^ (h >>> 15)) & (cap - 1)
    let g = -1
    for (;;) {
      const e = table[slot]!
      if (e === 0) break
      const j = agg.rows[e - 1]!
      let same = true
      for (let k = 0; k < D && same; k++) same = bits[i * D + k] === bits[j * D + k]
      for (let k = 0; k < W && same; k++) same = masks[i * W + k] === masks[j * W + k]
      if (same) {
        g = e - 1
        break
      }
      slot = (slot + 1) & (cap - 1)
    }
    if (g < 0) {
      g = groups++
      table[slot] = g + 1
      agg.rows[g] = i
      agg.weights[g] = 0
      for (let k = 0; k < W; k++) agg.targets[g * W + k] = 0
    }
    const w = r.weights[i]!
    agg.weights[g] += w
    for (let k = 0; k < W; k++) agg.targets[g * W + k] += w * r.targets[i * W + k]!
  }
  for (let g = 0; g < groups; g++) {
    const w = agg.weights[g]!
    for (let k = 0; k < W; k++) agg.targets[g * W + k] = w > 0 ? agg.targets[g * W + k]! / w : 0
  }
  agg.size = groups
  return agg
}

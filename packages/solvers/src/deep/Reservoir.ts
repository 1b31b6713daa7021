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

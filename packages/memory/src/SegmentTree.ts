/**
 * Shared sizing and checks of the array-backed segment trees {@link SumTree} and {@link MinTree}.
 *
 * **Details**: a tree over `capacity` leaves is stored in a `Float64Array` of `2 * P` nodes, `P` the smallest
 * power of two >= capacity; node 1 is the root, node `k` has children `2k` and `2k + 1`, leaf `i` is node `P + i`
 * (the layout of OpenAI baselines' `segment_tree.py`). Updates walk the leaf-to-root path iteratively and
 * recompute each parent from its two children (never by adding a delta), so sums stay exact re-associations of
 * the leaves and do not drift after millions of updates.
 *
 * @see https://github.com/openai/baselines/blob/master/baselines/common/segment_tree.py
 * @since 0.1.0
 */
import { InvalidOptionError } from "@autodidact/core"
import { InvalidPriorityError } from "./ReplayErrors.js"

/** The smallest power of two >= `capacity`. @throws InvalidOptionError when capacity is not in [1, 2^30]. */
export const leafCount = (capacity: number): number => {
  if (!Number.isInteger(capacity) || capacity < 1 || capacity > 2 ** 30) {
    throw new InvalidOptionError({ option: "capacity", value: capacity, reason: "expected an integer in [1, 2^30]" })
  }
  let p = 1
  while (p < capacity) p *= 2
  return p
}

/** @throws InvalidPriorityError naming the index and value when the index is outside `[0, capacity)`. */
export const checkIndex = (where: string, index: number, value: number, capacity: number): void => {
  if (!(index >= 0 && index < capacity) || !Number.isInteger(index)) {
    throw new InvalidPriorityError({ index, value, reason: `${where}: index outside [0, ${capacity})` })
  }
}

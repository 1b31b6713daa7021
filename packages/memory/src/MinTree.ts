/**
 * A min segment tree over `capacity` values: O(log n) point updates and O(1) minimum, used by prioritized replay
 * for the largest importance weight `max_i w_i = (N * min_i P(i))^-beta` (Schaul et al., "Prioritized Experience
 * Replay", arXiv:1511.05952, section 3.4; OpenAI baselines' `MinSegmentTree`).
 *
 * **Details**: layout as {@link SumTree} (see `SegmentTree`); unused leaves are `+Infinity`, so the minimum is
 * taken over the values set. No allocation and no `Effect`.
 *
 * @example
 * ```ts
 * const t = new MinTree(3)
 * t.update(0, 2); t.update(2, 0.5)
 * t.min() // 0.5
 * ```
 * @see https://github.com/openai/baselines/blob/master/baselines/common/segment_tree.py
 * @category models
 * @since 0.1.0
 */
import { InvalidPriorityError } from "./ReplayErrors.js"
import { checkIndex, leafCount } from "./SegmentTree.js"

/**
 * A min tree (see the module docs).
 * @category models
 */
export class MinTree {
  readonly capacity: number
  readonly leaves: number
  /** `2 * leaves` nodes; node 1 is the root. */
  readonly nodes: Float64Array

  /** @throws InvalidOptionError when capacity is not an integer in [1, 2^30]. */
  constructor(capacity: number) {
    this.leaves = leafCount(capacity)
    this.capacity = capacity
    this.nodes = new Float64Array(2 * this.leaves).fill(Infinity)
  }

  /** Set `values[index] = value` (index in `[0, capacity)`, not checked) and fix the minima above it. */
  update(index: number, value: number): void {
    const t = this.nodes
    let k = index + this.leaves
    t[k] = value
    k >>= 1
    while (k >= 1) {
      const a = t[2 * k]!
      const b = t[2 * k + 1]!
      t[k] = a < b ? a : b
      k >>= 1
    }
  }

  /** `update(indices[j], values[j])` for every `j`. */
  updateBatch(indices: ArrayLike<number>, values: ArrayLike<number>): void {
    for (let j = 0; j < indices.length; j++) this.update(indices[j]!, values[j]!)
  }

  /** Checked {@link update}: @throws InvalidPriorityError for an index outside `[0, capacity)` or a NaN value. */
  set(index: number, value: number): void {
    checkIndex("MinTree.set", index, value, this.capacity)
    if (Number.isNaN(value)) throw new InvalidPriorityError({ index, value, reason: "MinTree.set: NaN" })
    this.update(index, value)
  }

  /** `values[index]` (`+Infinity` when unset). */
  get(index: number): number {
    return this.nodes[index + this.leaves]!
  }

  /** The minimum over all values (`+Infinity` when none is set). */
  min(): number {
    return this.nodes[1]!
  }

  /** Reset every value to `+Infinity`. */
  clear(): void {
    this.nodes.fill(Infinity)
  }
}

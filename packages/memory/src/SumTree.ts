/**
 * A sum segment tree over `capacity` non-negative values: O(log n) point updates, O(1) total and O(log n)
 * inverse-CDF lookup (`findPrefixSum`), the data structure behind proportional prioritized replay.
 *
 * **When to use**: sampling index `i` with probability `p_i / sum_j p_j` while the `p_i` change
 * (Schaul et al., "Prioritized Experience Replay", ICLR 2016, arXiv:1511.05952, Appendix B.2.1).
 *
 * **Details**
 * - Layout: see {@link SegmentTree}; values in a `Float64Array`, padding leaves are 0.
 * - `findPrefixSum(u)` returns the smallest index `i` with `sum(values[0..i]) > u` for `u` in `[0, total)`;
 *   it never returns a zero-valued leaf while the total is positive (a rounding-proof descent: it goes right only
 *   if the right subtree has mass), so `u` at or past the total maps to the last positive leaf.
 * - No allocation and no `Effect`: plain loops over the node array.
 *
 * @example
 * ```ts
 * const t = new SumTree(4)
 * t.update(0, 1); t.update(1, 2); t.update(3, 1)
 * t.total()            // 4
 * t.findPrefixSum(2.5) // 1 (cumulative sums 1, 3, 3, 4)
 * ```
 * @see https://github.com/openai/baselines/blob/master/baselines/common/segment_tree.py
 * @category models
 * @since 0.1.0
 */
import { InvalidPriorityError } from "./ReplayErrors.js"
import { checkIndex, leafCount } from "./SegmentTree.js"

/**
 * A sum tree (see the module docs).
 * @category models
 */
export class SumTree {
  /** Number of leaves used (indices `0..capacity-1`). */
  readonly capacity: number
  /** Leaves in the array (power of two >= capacity); leaf `i` is node `leaves + i`. */
  readonly leaves: number
  /** `2 * leaves` nodes; node 1 is the root. */
  readonly nodes: Float64Array
  private scratchNode = new Int32Array(0)
  private scratchRest = new Float64Array(0)

  /** @throws InvalidOptionError when capacity is not an integer in [1, 2^30]. */
  constructor(capacity: number) {
    this.leaves = leafCount(capacity)
    this.capacity = capacity
    this.nodes = new Float64Array(2 * this.leaves)
  }

  /**
   * Set `values[index] = value` and fix the sums above it. `index` in `[0, capacity)`, `value` finite >= 0
   * (not checked here: the caller validates; see `PrioritizedReplay.updatePriorities`).
   */
  update(index: number, value: number): void {
    const t = this.nodes
    let k = index + this.leaves
    t[k] = value
    k >>= 1
    while (k >= 1) {
      t[k] = t[2 * k]! + t[2 * k + 1]!
      k >>= 1
    }
  }

  /** `update(indices[j], values[j])` for every `j` (lengths must match; later duplicates win). */
  updateBatch(indices: ArrayLike<number>, values: ArrayLike<number>): void {
    for (let j = 0; j < indices.length; j++) this.update(indices[j]!, values[j]!)
  }

  /** Checked {@link update}: @throws InvalidPriorityError for an index outside `[0, capacity)` or a negative/NaN/infinite value. */
  set(index: number, value: number): void {
    checkIndex("SumTree.set", index, value, this.capacity)
    if (!(value >= 0) || value === Infinity) throw new InvalidPriorityError({ index, value, reason: "SumTree.set: expected a finite value >= 0" })
    this.update(index, value)
  }

  /** `values[index]`. */
  get(index: number): number {
    return this.nodes[index + this.leaves]!
  }

  /** Sum of all values (the root). */
  total(): number {
    return this.nodes[1]!
  }

  /**
   * The smallest index `i` with `values[0] + ... + values[i] > u`, for `u` in `[0, total())` (values of `u` at or
   * past the total give the last positive leaf). Returns -1 when the total is 0.
   */
  findPrefixSum(u: number): number {
    const t = this.nodes
    if (!(t[1]! > 0)) return -1
    const leaves = this.leaves
    let k = 1
    while (k < leaves) {
      // branch-free: the direction is unpredictable, and a mispredicted branch per level costs more than the
      // arithmetic (about 20% of a batch at 64k leaves)
      const c = 2 * k
      const left = t[c]!
      const right = +(u >= left) & +(t[c + 1]! > 0)
      u -= right * left
      k = c + right
    }
    return k - leaves
  }

  /**
   * `out[j] = findPrefixSum(us[j])` for each `j < n` (`n` defaults to `us.length`; `out` at least `n` long), walking all the
   * targets down the tree together, one level at a time.
   *
   * **Why**: one descent is a chain of dependent loads (the next node depends on the last comparison), so at 1M
   * leaves (a 16 MB tree) each of its bottom levels is a cache miss the CPU cannot overlap: about 1 µs a sample.
   * Level by level, the loads of the different targets are independent and the CPU keeps many misses in flight:
   * about 5x faster for 256 targets at 1M leaves (`bench/replay.ts`). The arithmetic is that of
   * {@link findPrefixSum}, so the results are identical. Reuses two scratch arrays (grown, never shrunk).
   */
  findPrefixSumBatch(us: ArrayLike<number>, out: Int32Array, n: number = us.length): void {
    const t = this.nodes
    const leaves = this.leaves
    if (!(t[1]! > 0)) {
      out.fill(-1, 0, n)
      return
    }
    if (this.scratchNode.length < n) {
      this.scratchNode = new Int32Array(n)
      this.scratchRest = new Float64Array(n)
    }
    const k = this.scratchNode
    const rest = this.scratchRest
    for (let j = 0; j < n; j++) {
      k[j] = 1
      rest[j] = us[j]!
    }
    for (let width = 1; width < leaves; width *= 2) {
      for (let j = 0; j < n; j++) {
        const c = 2 * k[j]!
        const left = t[c]!
        const u = rest[j]!
        const right = +(u >= left) & +(t[c + 1]! > 0)
        rest[j] = u - right * left
        k[j] = c + right
      }
    }
    for (let j = 0; j < n; j++) out[j] = k[j]! - leaves
  }

  /** Reset every value to 0. */
  clear(): void {
    this.nodes.fill(0)
  }
}

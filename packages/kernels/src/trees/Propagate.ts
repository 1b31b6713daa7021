/**
 * The shared upward pass of {@link SumTree} and {@link MinTree} batch updates (internal; not exported from the package).
 * @since 0.2.0
 */

/**
 * The number of top nodes {@link propagateBoth} recomputes densely for a batch of `len` leaves in a tree of `C` slots:
 * the largest power of two `T ≤ min(len, C)` (at least 1); nodes `[1, T)` are then recomputed in one sequential loop.
 */
const denseTop = (C: number, len: number): number => {
  let top = 1
  while (top * 2 <= len && top * 2 <= C) top *= 2
  return top
}

/** The upward pass (see {@link propagateBoth}) of a sum tree alone. */
export const propagateSum = (C: number, leaves: Int32Array, len: number, s: Float64Array): void => {
  const top = denseTop(C, len)
  for (let k = 1; C >> k >= top; k++) {
    for (let b = 0; b < len; b++) {
      const p = leaves[b]! >> k
      s[p] = s[2 * p]! + s[2 * p + 1]!
    }
  }
  // the nodes [1, top): every child is either below `top` (done by the walk above) or a higher index (done first here)
  for (let p = top - 1; p >= 1; p--) s[p] = s[2 * p]! + s[2 * p + 1]!
}

/** The upward pass (see {@link propagateBoth}) of a min tree alone. */
export const propagateMin = (C: number, leaves: Int32Array, len: number, m: Float64Array): void => {
  const top = denseTop(C, len)
  for (let k = 1; C >> k >= top; k++) {
    for (let b = 0; b < len; b++) {
      const p = leaves[b]! >> k
      const c = 2 * p
      m[p] = m[c + +(m[c + 1]! < m[c]!)]! // branch-free: the index of the smaller child
    }
  }
  for (let p = top - 1; p >= 1; p--) {
    const c = 2 * p
    m[p] = m[c + +(m[c + 1]! < m[c]!)]!
  }
}

/**
 * The upward pass of a batch update of a sum tree and a min tree of the same capacity (one walk for both): recompute
 * the ancestors of the written leaves. `leaves[0..len)` hold the leaf node indices written (`C + slot` in a tree with
 * `C` slots, root at 1, children of `i` at `2i`, `2i + 1`), in any order, duplicates allowed. Every recomputed node
 * gets `sums[p] = sums[2p] + sums[2p + 1]` and `mins[p] = min(mins[2p], mins[2p + 1])`. The result is the tree a full bottom-up rebuild gives
 * (every internal node is the exact float64 sum / the minimum of its two children), so it is bit-identical to
 * updating the leaves one at a time, in any order of the ancestors.
 * - Lower part, level by level: on level `k` above the leaves the ancestor `leaves[b] >> k` of every leaf is
 *   recomputed from its children, for the levels that hold at least `T` nodes ({@link denseTop}, `T ≈ len`). A level
 *   is complete before the next, so a node recomputed twice (a duplicate ancestor) gets the same value twice.
 *   Duplicates are not skipped: on the levels where leaves start to share ancestors the duplicate test is a coin flip
 *   for the branch predictor, and its mispredictions cost more than the repeated sums, which hit the cache.
 * - Upper part, dense: the `T - 1` nodes above (`[1, T)`, where nearly every node is an ancestor of some leaf anyway)
 *   are recomputed in one sequential, branch-free loop from the highest index down, instead of `len` lookups per level
 *   that mostly find a node already done. Together: ~0.75× the time of the earlier pass, which walked all levels and
 *   recomputed each shared ancestor once behind the duplicate test (1M-slot prioritized replay, 256 sampled slots,
 *   both trees, measured side by side in one process on a loaded 2-core AMD EPYC VM).
 * - One function per case ({@link propagateSum}, {@link propagateMin}, {@link propagateBoth}) rather than one taking
 *   optional trees, so that each caller's call site stays monomorphic and the loops carry no per-level case test.
 * - The minimum is selected by index (`mins[2p + (right < left)]`), not by a branch: which child is smaller is random,
 *   and a mispredicted branch per node cost about as much as the cache misses (measured: a min-tree update of 256 random
 *   slots at 2^20 went from ~41 to ~23 µs). Ties keep the left child, as `MinTree.set` does.
 * - The ancestors are computed from `leaves` on every level rather than kept in a compacted array: the only stores of
 *   the lower part are the tree nodes themselves. At 2^20 slots most of those stores miss the cache, and stores leave
 *   the store buffer in order, so one more store per node (the compacted index) held back the misses behind it.
 * - Tried and not kept (same A/B): a min tree that follows only the paths whose minimum changed (the misses of the
 *   bottom levels, which every path still walks, are the cost: ~0.9× against ~0.75× for the shared walk); a min tree
 *   keeping every third level (a node the minimum of 8 grandchildren: ~1.5×); the two trees interleaved in one array
 *   (one line per node pair: 0.7× to 1.7× depending on the harness, and the sum tree's descent took ~1.4× as long).
 * - Independent loads and stores of one level overlap their cache misses. No allocation.
 */
export const propagateBoth = (C: number, leaves: Int32Array, len: number, sums: Float64Array, mins: Float64Array): void => {
  const top = denseTop(C, len)
  for (let k = 1; C >> k >= top; k++) {
    for (let b = 0; b < len; b++) {
      const p = leaves[b]! >> k
      const c = 2 * p
      sums[p] = sums[c]! + sums[c + 1]!
      mins[p] = mins[c + +(mins[c + 1]! < mins[c]!)]! // branch-free: the index of the smaller child
    }
  }
  for (let p = top - 1; p >= 1; p--) {
    const c = 2 * p
    sums[p] = sums[c]! + sums[c + 1]!
    mins[p] = mins[c + +(mins[c + 1]! < mins[c]!)]!
  }
}

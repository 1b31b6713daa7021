/**
 * The shared upward pass of {@link SumTree} and {@link MinTree} batch updates (internal; not exported from the package).
 * @since 0.2.0
 */

/**
 * Recompute the ancestors of the touched nodes, level by level: `parents[0..len)` hold the parents of the written leaves
 * (all on the same level of a tree with `C` slots, root at 1, children of `i` at `2i`, `2i + 1`). On each level every
 * parent is recomputed from its two children: `sums[p] = sums[2p] + sums[2p + 1]` and/or `mins[p] = min(mins[2p],
 * mins[2p + 1])` (both in one pass when both trees are given, so the index arithmetic and the walk are shared).
 * The minimum is selected by index (`mins[2p + (right < left)]`), not by a branch: which child is smaller is random,
 * and a mispredicted branch per node cost about as much as the cache misses (measured: a min-tree update of 256 random
 * slots at 2^20 went from ~41 to ~23 µs). Adjacent equal parents are recomputed once (`parents` is compacted in place), so a sorted batch (a stratified sample
 * is sorted) touches each shared ancestor once; unsorted duplicates are recomputed again, which is harmless. Independent
 * loads of one level overlap their cache misses. No allocation.
 */
export const propagate = (C: number, parents: Int32Array, len: number, sums: Float64Array | undefined, mins: Float64Array | undefined): void => {
  for (let level = C >> 1; level >= 1; level >>= 1) {
    let w = 0
    let prev = -1
    if (mins === undefined) {
      const s = sums!
      for (let b = 0; b < len; b++) {
        const p = parents[b]!
        if (p === prev) continue
        prev = p
        s[p] = s[2 * p]! + s[2 * p + 1]!
        parents[w++] = p >> 1
      }
    } else if (sums === undefined) {
      for (let b = 0; b < len; b++) {
        const p = parents[b]!
        if (p === prev) continue
        prev = p
        const c = 2 * p
        mins[p] = mins[c + +(mins[c + 1]! < mins[c]!)]! // branch-free: the index of the smaller child
        parents[w++] = p >> 1
      }
    } else {
      for (let b = 0; b < len; b++) {
        const p = parents[b]!
        if (p === prev) continue
        prev = p
        sums[p] = sums[2 * p]! + sums[2 * p + 1]!
        const c = 2 * p
        mins[p] = mins[c + +(mins[c + 1]! < mins[c]!)]! // branch-free: the index of the smaller child
        parents[w++] = p >> 1
      }
    }
    len = w
  }
}

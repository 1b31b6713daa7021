/**
 * A min segment tree: O(log n) point updates and O(1) minimum over a flat `Float64Array`, used by prioritized replay
 * for the largest importance weight `max_i w_i = (N · min_i P(i))^-β` (Schaul et al., "Prioritized Experience
 * Replay", ICLR 2016, arXiv:1511.05952, section 3.4; OpenAI baselines' `MinSegmentTree`).
 *
 * **When to use**: beside a {@link SumTree} when the smallest stored priority is needed at every sample. Import it
 * through the light entry point `@autodidact/kernels/trees`.
 *
 * **Details**: the layout of {@link SumTree} (`capacity` rounded up to a power of two `C`, root at 1, leaf `j` at
 * `C + j`); unset leaves are `+Infinity`, so the minimum is taken over the values set. Each update recomputes the
 * ancestors from their children. No allocation and no `Effect`.
 *
 * **Gotchas**: values may be any number but NaN (a NaN would poison every minimum above it); `+Infinity` unsets a slot.
 *
 * @example
 * ```ts
 * import { MinTree } from "@autodidact/kernels/trees"
 * const t = MinTree.make(3)
 * MinTree.set(t, 0, 2); MinTree.set(t, 2, 0.5)
 * MinTree.min(t) // 0.5
 * ```
 * @see https://github.com/openai/baselines/blob/master/baselines/common/segment_tree.py
 * @since 0.1.0
 */
import type { NumArray } from "../advantages/Gae.js"
import type { Site } from "../KernelError.js"
import { fail, REFERENCE } from "../KernelError.js"
import { propagateMin } from "./Propagate.js"
import { slotsFor } from "./SumTree.js"

export const kernelName = "MinTree"

/** A min tree: `capacity` slots (a power of two), `nodes` of length `2 · capacity`. */
export interface MinTree {
  readonly capacity: number
  readonly nodes: Float64Array
}

/**
 * An empty tree (every slot `+Infinity`) with at least `capacity` slots (rounded up to a power of two).
 * @throws KernelInputError when `capacity` is not an integer in `[1, 2^30]`.
 */
export const make = (capacity: number): MinTree => {
  const c = slotsFor(capacity, `${kernelName}.make`)
  return { capacity: c, nodes: new Float64Array(2 * c).fill(Infinity) }
}

/** The minimum over all slots (`+Infinity` when none is set). */
export const min = (tree: MinTree): number => tree.nodes[1]!

/** The value of slot `j` (`+Infinity` when unset; `j` is not checked). */
export const get = (tree: MinTree, j: number): number => tree.nodes[tree.capacity + j]!

const check = (site: Site, C: number, j: number, v: number, n: number, b: number): void => {
  if (!(Number.isInteger(j) && j >= 0 && j < C)) fail(site, "indices", "range", `[${n}]`, `slot ${j} at index ${b} is outside [0, ${C})`)
  if (v !== v) fail(site, "values", "non-finite", `[${n}]`, `value NaN at index ${b}`)
}

/**
 * Set slot `j` to `value` and recompute the minima above it (O(log C)).
 * @throws KernelInputError for a slot outside `[0, capacity)` or a NaN value (nothing changes).
 */
export const set = (tree: MinTree, j: number, value: number): void => {
  const C = tree.capacity
  check({ kernel: `${kernelName}.set`, backend: REFERENCE }, C, j, value, 1, 0)
  const t = tree.nodes
  let k = C + j
  t[k] = value
  k >>= 1
  while (k >= 1) {
    const c = 2 * k
    t[k] = t[c + +(t[c + 1]! < t[c]!)]! // branch-free: the index of the smaller child
    k >>= 1
  }
}

/**
 * `set(indices[b], values[b])` for every b (later duplicates win), the ancestors recomputed as in
 * `SumTree.updateBatch` (level by level below, the top nodes densely; the tree equals that of sequential sets).
 * `scratch` (optional, `Int32Array` of length ≥ `indices.length`) avoids an allocation.
 * @throws KernelInputError for unequal lengths, a slot out of range or a NaN; the batch is checked first, so nothing
 *   changes then.
 */
export const updateBatch = (tree: MinTree, indices: NumArray, values: NumArray, scratch?: Int32Array): void => {
  const site: Site = { kernel: `${kernelName}.updateBatch`, backend: REFERENCE }
  const n = indices.length
  const C = tree.capacity
  if (values.length !== n) fail(site, "values", "shape", `[${values.length}]`, `expected [${n}] like indices`)
  for (let b = 0; b < n; b++) check(site, C, indices[b]!, values[b]!, n, b)
  const t = tree.nodes
  const leaves = scratch !== undefined && scratch.length >= n ? scratch : new Int32Array(n)
  for (let b = 0; b < n; b++) {
    const leaf = C + indices[b]!
    t[leaf] = values[b]!
    leaves[b] = leaf
  }
  propagateMin(C, leaves, n, t)
}

/** Reset every slot to `+Infinity`. */
export const clear = (tree: MinTree): void => {
  tree.nodes.fill(Infinity)
}

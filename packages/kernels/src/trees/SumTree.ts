/**
 * The sum tree of proportional prioritized experience replay (Schaul et al., "Prioritized Experience Replay",
 * ICLR 2016, arXiv:1511.05952, Appendix B.2.1): O(log n) priority updates, O(1) total, and batched inverse-CDF
 * sampling over a flat `Float64Array`. This is the one sum tree of Autodidact; `@autodidact/memory`'s
 * `PrioritizedReplay` owns one (with a {@link MinTree} beside it).
 *
 * **When to use**: sampling slot `j` with probability `p_j / Σ_k p_k` while the `p_j` change. Import it through the
 * light entry point `@autodidact/kernels/trees` (no TensorFlow.js or ONNX Runtime is loaded); the main entry
 * re-exports it too.
 *
 * **Layout**: `capacity` is rounded up to a power of two `C`; the tree is a `Float64Array(2C)` with the root at
 * index 1, node `i`'s children at `2i` and `2i + 1`, and leaf `j` (priority of slot j) at `C + j`. Index 0 is unused
 * (OpenAI baselines' `segment_tree.py` layout).
 *
 * **Details**
 * - {@link set} and {@link updateBatch} write leaves, then recompute every touched ancestor as the sum of its two
 *   children (recomputing, not adding deltas, so rounding never drifts over millions of updates). Duplicate slots in
 *   one batch: the last write wins. `updateBatch` walks all touched paths level by level for the levels holding at
 *   least about `n` nodes (`n` the batch size), then recomputes the `< n` nodes above them in one dense sequential
 *   loop; the tree is bit for bit the one of `n` calls to {@link set} (every internal node is the exact sum of its two
 *   children either way). {@link updateBatchWithMin} updates a {@link MinTree} of the same capacity on the same walk.
 * - {@link sampleBatch} finds, for each prefix value `u ∈ [0, total)`, the first slot whose cumulative priority
 *   exceeds `u`, returning the slots and their priorities. One descent is a chain of dependent loads (the next node
 *   depends on the last comparison), so at 1M slots (a 16 MB tree) each bottom level is a cache miss the CPU cannot
 *   overlap. The prefixes therefore descend 16 at a time (the last partial group padded), as 16 independent
 *   chains held in local variables, so 16 misses stay in flight and no state goes through memory between levels
 *   (256 stratified prefixes at 2^20 slots on a 2-core AMD EPYC VM: about 20 µs, against about 33 µs for all 256
 *   walking level by level through index arrays, an earlier version, and about 41 µs for one descent after another).
 *   The result is that of a descent going right only when `u ≥ left sum` **and** the right subtree has mass, so a
 *   zero-priority slot is never returned, even when rounding pushes `u` past the mass of a subtree. The 16 chains
 *   compare only `u ≥ left sum` (one load and comparison per level less: 25 → 19 µs in the case above) and the rare
 *   prefix that so ends on a zero slot is descended again with the mass check, which gives the checked result bit for
 *   bit (see `descend16`).
 * - Layouts measured and not kept (same machine, 256 stratified prefixes at 2^20 slots): 4-ary, 8-ary and 16-ary
 *   trees (children's sums contiguous, so a level touches one or two cache lines) were no faster than the binary heap
 *   (the extra in-node comparisons cost what the saved misses gain: 4-ary ≈ binary, 8-ary and 16-ary 5-40% slower).
 * - Precision: sums are float64 and every internal node is recomputed as the exact float64 sum of its two children
 *   (never updated by deltas), so the root differs from the exact sum of the leaves by at most about
 *   `log2(C) · 2^-53 · total` (≈ 2e-15 relative at 2^20 slots) and never drifts; a prefix within that rounding of a
 *   boundary may land on either neighbour, and never on a zero-priority slot.
 * - {@link stratifiedPrefixes} draws one `u` per equal stratum of `[0, total)` with a seeded `Rng`, as in the paper.
 * - {@link sampleTf} is the TensorFlow.js equivalent on a flat priority vector: `tf.upperBound(tf.cumsum(p), u)`
 *   (float32 cumulative sums: it can disagree with the tree within float32 rounding of a boundary). The `tf` module is
 *   passed in; this module never loads TensorFlow.js.
 * - Priorities must be finite and ≥ 0; slots out of range, prefixes outside `[0, total)`, NaN and ±Infinity are
 *   {@link KernelInputError}s. No allocation and no `Effect` on the hot paths when `out`/`scratch` are given.
 *
 * @example
 * ```ts
 * import { SumTree } from "@autodidact/kernels/trees"
 * const tree = SumTree.make(4)
 * SumTree.updateBatch(tree, [0, 1, 2, 3], [1, 2, 3, 4])
 * SumTree.sampleBatch(tree, [0.5, 2.5, 9.9]).indices // Int32Array [0, 1, 3]
 * ```
 * @see https://arxiv.org/abs/1511.05952
 * @see https://github.com/openai/baselines/blob/master/baselines/common/segment_tree.py
 * @since 0.1.0
 */
import type { Rng } from "@autodidact/core"
import type { NumArray } from "../advantages/Gae.js"
import type { Site } from "../KernelError.js"
import { checkSize, fail, REFERENCE } from "../KernelError.js"
import { propagateBoth, propagateSum } from "./Propagate.js"

export const kernelName = "SumTree"

/** Largest capacity (slots): node indices must fit an `Int32Array` during the batched descent. */
export const MAX_CAPACITY = 2 ** 30

/** A sum tree: `capacity` slots (a power of two), `nodes` of length `2 · capacity`. */
export interface SumTree {
  readonly capacity: number
  readonly nodes: Float64Array
}

/**
 * The slot count of a tree (sum or min) with at least `capacity` slots: the smallest power of two ≥ `capacity`.
 * @throws KernelInputError naming `kernel` when `capacity` is not an integer in `[1, 2^30]`.
 */
export const slotsFor = (capacity: number, kernel = `${kernelName}.make`): number => {
  const site: Site = { kernel, backend: REFERENCE }
  checkSize(site, "capacity", capacity)
  if (capacity > MAX_CAPACITY) fail(site, "capacity", "range", String(capacity), `expected at most 2^30`)
  let c = 1
  while (c < capacity) c *= 2
  return c
}

/**
 * An empty tree (all priorities 0) with at least `capacity` slots (rounded up to a power of two).
 * @throws KernelInputError when `capacity` is not an integer in `[1, 2^30]`.
 */
export const make = (capacity: number): SumTree => {
  const c = slotsFor(capacity)
  return { capacity: c, nodes: new Float64Array(2 * c) }
}

/** Sum of all priorities (the root). */
export const total = (tree: SumTree): number => tree.nodes[1]!

/** The priority of slot `j` (0 when never set; `j` is not checked). */
export const get = (tree: SumTree, j: number): number => tree.nodes[tree.capacity + j]!

const checkPriority = (site: Site, C: number, j: number, p: number, n: number, b: number): void => {
  if (!(Number.isInteger(j) && j >= 0 && j < C)) fail(site, "indices", "range", `[${n}]`, `slot ${j} at index ${b} is outside [0, ${C})`)
  if (!(p >= 0 && p < Infinity)) fail(site, "priorities", p !== p || p === Infinity ? "non-finite" : "range", `[${n}]`, `priority ${p} at index ${b} (must be finite and ≥ 0)`)
}

/** {@link checkPriority} of the first `n` entries; the plain comparisons first (the error path only on a failure). */
const checkBatch = (site: Site, C: number, indices: NumArray, priorities: NumArray, n: number): void => {
  for (let b = 0; b < n; b++) {
    const j = indices[b]!
    const p = priorities[b]!
    if (!((j | 0) === j && j >= 0 && j < C && p >= 0 && p < Infinity)) checkPriority(site, C, j, p, n, b)
  }
}

/**
 * Set the priority of one slot and recompute its ancestors (O(log C), no allocation).
 * @throws KernelInputError for a slot outside `[0, capacity)` or a negative, NaN or infinite priority (nothing changes).
 */
export const set = (tree: SumTree, j: number, priority: number): void => {
  const C = tree.capacity
  checkPriority({ kernel: `${kernelName}.set`, backend: REFERENCE }, C, j, priority, 1, 0)
  const t = tree.nodes
  let k = C + j
  t[k] = priority
  k >>= 1
  while (k >= 1) {
    t[k] = t[2 * k]! + t[2 * k + 1]!
    k >>= 1
  }
}

/**
 * Set `priorities[b]` at slot `indices[b]` for every b, then recompute the ancestors. `scratch` (optional, length ≥
 * `indices.length`) avoids an allocation.
 * @throws KernelInputError for unequal lengths, a slot outside `[0, capacity)` or a negative, NaN or infinite
 *   priority; the whole batch is checked first, so nothing changes then.
 */
export const updateBatch = (tree: SumTree, indices: NumArray, priorities: NumArray, scratch?: Int32Array): void => {
  const site: Site = { kernel: `${kernelName}.updateBatch`, backend: REFERENCE }
  const C = tree.capacity
  const n = indices.length
  const nodes = tree.nodes
  if (priorities.length !== n) fail(site, "priorities", "shape", `[${priorities.length}]`, `expected [${n}] like indices`)
  checkBatch(site, C, indices, priorities, n)
  const leaves = scratch !== undefined && scratch.length >= n ? scratch : new Int32Array(n)
  for (let b = 0; b < n; b++) {
    const leaf = C + indices[b]!
    nodes[leaf] = priorities[b]!
    leaves[b] = leaf
  }
  propagateSum(C, leaves, n, nodes)
}

/**
 * {@link updateBatch} of a sum tree and a min tree of the same capacity in one pass (the two trees of prioritized
 * replay): slot `indices[b]` gets `priorities[b]` in both, then every touched ancestor is recomputed in both trees on
 * the same walk (level by level below, dense above; see {@link updateBatch}). `scratch` (optional, `Int32Array` of length ≥ the count) avoids an allocation;
 * `count` (optional) updates only the first `count` entries of `indices` and `priorities` (both at least that long;
 * without it the two lengths must be equal). The result is identical to `updateBatch(tree, …)` plus `MinTree.updateBatch(mins, …)`.
 * @throws KernelInputError as {@link updateBatch}, or when the trees' capacities differ; nothing changes then.
 */
export const updateBatchWithMin = (
  tree: SumTree,
  mins: { readonly capacity: number; readonly nodes: Float64Array },
  indices: NumArray,
  priorities: NumArray,
  scratch?: Int32Array,
  count?: number
): void => {
  const site: Site = { kernel: `${kernelName}.updateBatchWithMin`, backend: REFERENCE }
  const C = tree.capacity
  const n = count ?? indices.length
  if (mins.capacity !== C) fail(site, "mins", "shape", `[${mins.capacity}]`, `expected a min tree of capacity ${C} like the sum tree`)
  if (count === undefined ? priorities.length !== n : !(Number.isInteger(n) && n >= 0 && n <= indices.length && n <= priorities.length)) {
    fail(site, "priorities", "shape", `[${priorities.length}]`, count === undefined ? `expected [${n}] like indices` : `expected count ${n} within both arrays (indices [${indices.length}])`)
  }
  checkBatch(site, C, indices, priorities, n)
  const sums = tree.nodes
  const m = mins.nodes
  const leaves = scratch !== undefined && scratch.length >= n ? scratch : new Int32Array(n)
  for (let b = 0; b < n; b++) {
    const leaf = C + indices[b]!
    const p = priorities[b]!
    sums[leaf] = p
    m[leaf] = p
    leaves[b] = leaf
  }
  propagateBoth(C, leaves, n, sums, m)
}

/** Reset every priority to 0. */
export const clear = (tree: SumTree): void => {
  tree.nodes.fill(0)
}


/** Prefixes that descend together in {@link sampleBatch}; scratch for the last, partial group. */
const GROUP = 16
const tailPrefixes = new Float64Array(GROUP)
const tailSlots = new Int32Array(GROUP)
const tailPriorities = new Float64Array(GROUP)

/**
 * One prefix's descent with the zero-mass rule (right only if `u ≥ left sum` **and** the right subtree has mass); the
 * leaf node. The rare fallback of {@link descend16}.
 */
const descendChecked = (nodes: Float64Array, C: number, u: number): number => {
  let n = 1
  while (n < C) {
    const c = 2 * n
    const l = nodes[c]!
    const r = +(u >= l) & +(nodes[c + 1]! > 0)
    u -= r * l
    n = c + r
  }
  return n
}

/** The 16 prefixes of a group whose descent ended on a zero-priority slot are redone from here (module scratch). */
const redo = new Float64Array(GROUP)

/**
 * The whole descent of 16 prefixes at once, `prefixes[b..b+16)` → slots in `k`, priorities in `rest` (which may alias
 * `prefixes`: every prefix is read before anything is written). Sixteen independent chains keep sixteen cache misses
 * in flight without storing the state in arrays between levels (written out by hand so that they stay in registers;
 * 16 measured ~10% faster than 8).
 *
 * Each step is branch-free and only compares `u ≥ left sum` (go right): the zero-mass check of
 * {@link descendChecked} (one more load and comparison per level) costs ~30% of the descent and matters only when
 * rounding has put `u` at or past a subtree's mass. Without it, such a descent enters a right subtree of mass 0 and
 * ends on a zero-priority slot; every other descent takes the checked path exactly (a left subtree of mass 0 is never
 * entered, as `u ≥ 0`). So a group whose slots all have mass is the checked result, bit for bit, and the prefixes
 * that ended on a zero slot are descended again with the check (saved in `redo` before `rest` overwrites them).
 */
const descend16 = (nodes: Float64Array, C: number, prefixes: NumArray, b: number, k: Int32Array, rest: Float64Array): void => {
  let u0 = prefixes[b]!, u1 = prefixes[b + 1]!, u2 = prefixes[b + 2]!, u3 = prefixes[b + 3]!
  let u4 = prefixes[b + 4]!, u5 = prefixes[b + 5]!, u6 = prefixes[b + 6]!, u7 = prefixes[b + 7]!
  let u8 = prefixes[b + 8]!, u9 = prefixes[b + 9]!, u10 = prefixes[b + 10]!, u11 = prefixes[b + 11]!
  let u12 = prefixes[b + 12]!, u13 = prefixes[b + 13]!, u14 = prefixes[b + 14]!, u15 = prefixes[b + 15]!
  let n0 = 1, n1 = 1, n2 = 1, n3 = 1, n4 = 1, n5 = 1, n6 = 1, n7 = 1, n8 = 1, n9 = 1, n10 = 1, n11 = 1, n12 = 1, n13 = 1, n14 = 1, n15 = 1
  while (n0 < C) {
    let c = 2 * n0, l = nodes[c]!, r = +(u0 >= l)
    u0 -= r * l
    n0 = c + r
    c = 2 * n1; l = nodes[c]!; r = +(u1 >= l)
    u1 -= r * l
    n1 = c + r
    c = 2 * n2; l = nodes[c]!; r = +(u2 >= l)
    u2 -= r * l
    n2 = c + r
    c = 2 * n3; l = nodes[c]!; r = +(u3 >= l)
    u3 -= r * l
    n3 = c + r
    c = 2 * n4; l = nodes[c]!; r = +(u4 >= l)
    u4 -= r * l
    n4 = c + r
    c = 2 * n5; l = nodes[c]!; r = +(u5 >= l)
    u5 -= r * l
    n5 = c + r
    c = 2 * n6; l = nodes[c]!; r = +(u6 >= l)
    u6 -= r * l
    n6 = c + r
    c = 2 * n7; l = nodes[c]!; r = +(u7 >= l)
    u7 -= r * l
    n7 = c + r
    c = 2 * n8; l = nodes[c]!; r = +(u8 >= l)
    u8 -= r * l
    n8 = c + r
    c = 2 * n9; l = nodes[c]!; r = +(u9 >= l)
    u9 -= r * l
    n9 = c + r
    c = 2 * n10; l = nodes[c]!; r = +(u10 >= l)
    u10 -= r * l
    n10 = c + r
    c = 2 * n11; l = nodes[c]!; r = +(u11 >= l)
    u11 -= r * l
    n11 = c + r
    c = 2 * n12; l = nodes[c]!; r = +(u12 >= l)
    u12 -= r * l
    n12 = c + r
    c = 2 * n13; l = nodes[c]!; r = +(u13 >= l)
    u13 -= r * l
    n13 = c + r
    c = 2 * n14; l = nodes[c]!; r = +(u14 >= l)
    u14 -= r * l
    n14 = c + r
    c = 2 * n15; l = nodes[c]!; r = +(u15 >= l)
    u15 -= r * l
    n15 = c + r
  }
  const p0 = nodes[n0]!
  const p1 = nodes[n1]!
  const p2 = nodes[n2]!
  const p3 = nodes[n3]!
  const p4 = nodes[n4]!
  const p5 = nodes[n5]!
  const p6 = nodes[n6]!
  const p7 = nodes[n7]!
  const p8 = nodes[n8]!
  const p9 = nodes[n9]!
  const p10 = nodes[n10]!
  const p11 = nodes[n11]!
  const p12 = nodes[n12]!
  const p13 = nodes[n13]!
  const p14 = nodes[n14]!
  const p15 = nodes[n15]!
  const zero = !(p0 > 0 && p1 > 0 && p2 > 0 && p3 > 0 && p4 > 0 && p5 > 0 && p6 > 0 && p7 > 0 && p8 > 0 && p9 > 0 && p10 > 0 && p11 > 0 && p12 > 0 && p13 > 0 && p14 > 0 && p15 > 0)
  if (zero) for (let j = 0; j < GROUP; j++) redo[j] = prefixes[b + j]!
  k[b] = n0 - C
  k[b + 1] = n1 - C
  k[b + 2] = n2 - C
  k[b + 3] = n3 - C
  k[b + 4] = n4 - C
  k[b + 5] = n5 - C
  k[b + 6] = n6 - C
  k[b + 7] = n7 - C
  k[b + 8] = n8 - C
  k[b + 9] = n9 - C
  k[b + 10] = n10 - C
  k[b + 11] = n11 - C
  k[b + 12] = n12 - C
  k[b + 13] = n13 - C
  k[b + 14] = n14 - C
  k[b + 15] = n15 - C
  rest[b] = p0
  rest[b + 1] = p1
  rest[b + 2] = p2
  rest[b + 3] = p3
  rest[b + 4] = p4
  rest[b + 5] = p5
  rest[b + 6] = p6
  rest[b + 7] = p7
  rest[b + 8] = p8
  rest[b + 9] = p9
  rest[b + 10] = p10
  rest[b + 11] = p11
  rest[b + 12] = p12
  rest[b + 13] = p13
  rest[b + 14] = p14
  rest[b + 15] = p15
  if (zero) {
    for (let j = 0; j < GROUP; j++) {
      if (rest[b + j]! > 0) continue
      const n = descendChecked(nodes, C, redo[j]!)
      k[b + j] = n - C
      rest[b + j] = nodes[n]!
    }
  }
}

/** Slots and priorities of a sampled batch. */
export interface SampleResult {
  readonly indices: Int32Array
  readonly priorities: Float64Array
}

/**
 * For each `u` in `prefixes[0..n)` (each in `[0, total)`), the first slot whose cumulative priority exceeds u, and its
 * priority (see the module docs for the level-by-level descent).
 *
 * Shapes: `prefixes` `[≥ n]`; `out.indices` `Int32Array[≥ n]` and `out.priorities` `Float64Array[≥ n]` (allocated
 * when `out` is absent; `out` is returned as is when given, so a sample allocates nothing). `out.priorities` may be
 * the `prefixes` array itself (it is used as scratch for the remaining prefix mass during the descent).
 * @throws KernelInputError when the total is 0 (`empty-segment`), a prefix is NaN/±Infinity or outside
 *   `[0, total)` (`range`), or `out` is too short.
 */
export const sampleBatch = (tree: SumTree, prefixes: NumArray, out?: SampleResult, n: number = prefixes.length): SampleResult => {
  const site: Site = { kernel: `${kernelName}.sampleBatch`, backend: REFERENCE }
  const nodes = tree.nodes
  const C = tree.capacity
  const tot = nodes[1]!
  if (!(tot > 0)) fail(site, "tree", "empty-segment", `[${C}]`, `total priority is ${tot}; nothing can be sampled`)
  if (n > prefixes.length) fail(site, "prefixes", "shape", `[${prefixes.length}]`, `expected at least [${n}]`)
  const res = out ?? { indices: new Int32Array(n), priorities: new Float64Array(n) }
  const k = res.indices
  const rest = res.priorities
  if (k.length < n || rest.length < n) fail(site, "out", "shape", `[${Math.min(k.length, rest.length)}]`, `expected at least [${n}]`)
  for (let b = 0; b < n; b++) {
    const u = prefixes[b]!
    if (!(u >= 0 && u < tot)) fail(site, "prefixes", u - u !== 0 ? "non-finite" : "range", `[${n}]`, `prefix ${u} at index ${b} is outside [0, total = ${tot})`)
  }
  let b = 0
  for (; b + GROUP <= n; b += GROUP) descend16(nodes, C, prefixes, b, k, rest)
  if (b < n) {
    // the last n mod 16 prefixes: padded with 0 (a valid prefix) to a full group in module scratch
    for (let j = 0; j < GROUP; j++) tailPrefixes[j] = b + j < n ? prefixes[b + j]! : 0
    descend16(nodes, C, tailPrefixes, 0, tailSlots, tailPriorities)
    for (let j = 0; b + j < n; j++) {
      k[b + j] = tailSlots[j]!
      rest[b + j] = tailPriorities[j]!
    }
  }
  return res
}

/** One prefix per stratum: `u_b = (b + rng.random()) · total / batch` (Schaul et al.'s proportional sampling). */
export const stratifiedPrefixes = (tree: SumTree, rng: Rng, batch: number): Float64Array => {
  const tot = total(tree)
  const out = new Float64Array(batch)
  for (let b = 0; b < batch; b++) out[b] = Math.min(((b + rng.random()) * tot) / batch, tot * (1 - Number.EPSILON))
  return out
}

/**
 * Batched sum-tree kernels for prioritized experience replay (Schaul et al. 2016, arXiv:1511.05952): batch priority
 * update and batch prefix-sum sampling over a flat `Float64Array` tree.
 *
 * **Layout**: `capacity` is rounded up to a power of two `C`; the tree is a `Float64Array(2C)` with the root at
 * index 1, node `i`'s children at `2i` and `2i + 1`, and leaf `j` (priority of slot j) at `C + j`. Index 0 is unused.
 *
 * **Details**
 * - {@link updateBatch} writes the leaves, then recomputes every touched ancestor as the sum of its two children
 *   (recomputing, not adding deltas, so rounding never drifts). Duplicate slots in one batch: the last write wins.
 * - {@link sampleBatch} finds, for each prefix value `u ∈ [0, total)`, the first slot whose cumulative priority
 *   exceeds `u` (descend: go left if `u < left sum`, else subtract it and go right), returning the slots and their
 *   priorities. {@link stratifiedPrefixes} draws one `u` per equal stratum of `[0, total)` with a seeded `Rng`, as
 *   in the paper.
 * - {@link sampleTf} is the TensorFlow.js equivalent on a flat priority vector: `tf.upperBound(tf.cumsum(p), u)`
 *   (float32 cumulative sums: it can disagree with the tree within float32 rounding of a boundary).
 * - Priorities must be finite and ≥ 0; slots out of range and non-finite prefixes are {@link KernelInputError}s.
 *   Zero-priority slots are never sampled.
 *
 * This module is the batched kernel; `@autodidact/memory` has the replay buffer that owns a tree.
 *
 * @example
 * ```ts
 * import { SumTree } from "@autodidact/kernels"
 * const tree = SumTree.make(4)
 * SumTree.updateBatch(tree, [0, 1, 2, 3], [1, 2, 3, 4])
 * SumTree.sampleBatch(tree, [0.5, 2.5, 9.9]).indices // Int32Array [0, 1, 3]
 * ```
 * @since 0.1.0
 */
import type { Rng } from "@autodidact/core"
import type { Tf } from "./Backend.js"
import type { NumArray } from "./Gae.js"
import type { Site } from "./KernelError.js"
import { checkSize, fail, REFERENCE } from "./KernelError.js"

export const kernelName = "SumTree"

/** A sum tree: `capacity` slots (a power of two), `nodes` of length `2 · capacity`. */
export interface SumTree {
  readonly capacity: number
  readonly nodes: Float64Array
}

/** An empty tree with at least `capacity` slots (rounded up to a power of two). */
export const make = (capacity: number): SumTree => {
  checkSize({ kernel: `${kernelName}.make`, backend: REFERENCE }, "capacity", capacity)
  let c = 1
  while (c < capacity) c *= 2
  return { capacity: c, nodes: new Float64Array(2 * c) }
}

/** Sum of all priorities. */
export const total = (tree: SumTree): number => tree.nodes[1]!

/** The priority of slot `j`. */
export const get = (tree: SumTree, j: number): number => tree.nodes[tree.capacity + j]!

/**
 * Set `priorities[b]` at slot `indices[b]` for every b, then recompute the ancestors. `scratch` (optional, length ≥
 * `indices.length`) avoids an allocation.
 */
export const updateBatch = (tree: SumTree, indices: NumArray, priorities: NumArray, scratch?: Int32Array): void => {
  const site: Site = { kernel: `${kernelName}.updateBatch`, backend: REFERENCE }
  const C = tree.capacity
  const n = indices.length
  const nodes = tree.nodes
  if (priorities.length !== n) fail(site, "priorities", "shape", `[${priorities.length}]`, `expected [${n}] like indices`)
  for (let b = 0; b < n; b++) {
    const j = indices[b]!
    if (!(Number.isInteger(j) && j >= 0 && j < C)) fail(site, "indices", "range", `[${n}]`, `slot ${j} at index ${b} is outside [0, ${C})`)
    const p = priorities[b]!
    if (!(p >= 0 && p < Infinity)) fail(site, "priorities", p !== p || p === Infinity ? "non-finite" : "range", `[${n}]`, `priority ${p} at index ${b} (must be finite and ≥ 0)`)
  }
  const nodesOf = scratch !== undefined && scratch.length >= n ? scratch : new Int32Array(n)
  for (let b = 0; b < n; b++) {
    const leaf = C + indices[b]!
    nodes[leaf] = priorities[b]!
    nodesOf[b] = leaf >> 1
  }
  // level by level: parents of the touched nodes, each recomputed from its children (duplicates are harmless)
  for (let level = C >> 1; level >= 1; level >>= 1) {
    for (let b = 0; b < n; b++) {
      const p = nodesOf[b]!
      nodes[p] = nodes[2 * p]! + nodes[2 * p + 1]!
      nodesOf[b] = p >> 1
    }
  }
}

/** Slots and priorities of a sampled batch. */
export interface SampleResult {
  readonly indices: Int32Array
  readonly priorities: Float64Array
}

/** For each `u` in `prefixes` (each in `[0, total)`), the first slot whose cumulative priority exceeds u. */
export const sampleBatch = (tree: SumTree, prefixes: NumArray, out?: SampleResult): SampleResult => {
  const site: Site = { kernel: `${kernelName}.sampleBatch`, backend: REFERENCE }
  const nodes = tree.nodes
  const C = tree.capacity
  const n = prefixes.length
  const tot = nodes[1]!
  if (!(tot > 0)) fail(site, "tree", "empty-segment", `[${C}]`, `total priority is ${tot}; nothing can be sampled`)
  const indices = out?.indices ?? new Int32Array(n)
  const priorities = out?.priorities ?? new Float64Array(n)
  if (indices.length < n || priorities.length < n) fail(site, "out", "shape", `[${indices.length}]`, `expected at least [${n}]`)
  for (let b = 0; b < n; b++) {
    let u = prefixes[b]!
    if (!(u >= 0 && u < tot)) fail(site, "prefixes", u - u !== 0 ? "non-finite" : "range", `[${n}]`, `prefix ${u} at index ${b} is outside [0, total = ${tot})`)
    let i = 1
    while (i < C) {
      const left = nodes[2 * i]!
      if (u < left) i = 2 * i
      else {
        u -= left
        i = 2 * i + 1
      }
    }
    // rounding can land on a zero-priority leaf at the right edge: step back to the last positive one
    let leaf = i - C
    while (nodes[C + leaf] === 0 && leaf > 0) leaf--
    indices[b] = leaf
    priorities[b] = nodes[C + leaf]!
  }
  return { indices, priorities }
}

/** One prefix per stratum: `u_b = (b + rng.random()) · total / batch` (Schaul et al.'s proportional sampling). */
export const stratifiedPrefixes = (tree: SumTree, rng: Rng, batch: number): Float64Array => {
  const tot = total(tree)
  const out = new Float64Array(batch)
  for (let b = 0; b < batch; b++) out[b] = Math.min(((b + rng.random()) * tot) / batch, tot * (1 - Number.EPSILON))
  return out
}

/** Prefix-sum sampling with TensorFlow.js on a flat priority vector `[n]`: `upperBound(cumsum(p), u)`. */
export const sampleTf = (tf: Tf, priorities: NumArray, prefixes: NumArray): Int32Array => {
  const site: Site = { kernel: `${kernelName}.sample`, backend: tf.getBackend() }
  for (let j = 0; j < priorities.length; j++) {
    const p = priorities[j]!
    if (!(p >= 0 && p < Infinity)) fail(site, "priorities", p !== p || p === Infinity ? "non-finite" : "range", `[${priorities.length}]`, `priority ${p} at index ${j}`)
  }
  const out = tf.tidy(() => {
    const cdf = tf.cumsum(tf.tensor1d(Float32Array.from(priorities as ArrayLike<number>)))
    const u = tf.tensor1d(Float32Array.from(prefixes as ArrayLike<number>))
    return tf.minimum(tf.upperBound(cdf, u), priorities.length - 1)
  })
  const indices = Int32Array.from(out.dataSync())
  out.dispose()
  return indices
}

/**
 * Consolidation of the experience store, as pure planning functions: which near-duplicate insights merge into
 * which, and which records a capacity policy forgets. `ExperienceStore.consolidate` applies the plan in one
 * transaction.
 *
 * **Details**
 *
 * - *Merging* (ExpeL-style insight upkeep, Zhao et al. 2024, arXiv:2308.10144): records are visited by strength
 *   (`support + upvotes - downvotes`) descending, then age (older first), then id; each unvisited record absorbs every
 *   later unvisited record whose cosine similarity to it exceeds `threshold` (default 0.9). The survivor keeps its
 *   text and embedding and gets the sums of support, upvotes and downvotes, the union of tags, the larger
 *   importance, the earlier `createdAt` and the later `lastAccessedAt`.
 * - *Forgetting weak insights*: an insight whose strength is `<= 0` after merging is deleted (ExpeL removes a rule
 *   whose count reaches 0).
 * - *Capacity*: when more than `capacity` records remain (per kind when `capacity` is a record of kinds), the ones
 *   with the lowest retention score are deleted first: `w_rec * rec~ + w_imp * imp~` (the retrieval score without
 *   relevance, min-max normalized over the records of that pool), ties broken by older `lastAccessedAt`, then id.
 *
 * @since 0.1.0
 */
import { cosine, minMaxNormalize, recency } from "./Retrieval.js"

/**
 * What merging needs to know of a record.
 *
 * @category models
 * @since 0.1.0
 */
export interface MergeCandidate {
  readonly id: string
  readonly embedding: Float32Array
  readonly support: number
  readonly upvotes: number
  readonly downvotes: number
  readonly createdAt: number
}

/**
 * A merge: `into` absorbs `absorbed` (in visiting order).
 *
 * @category models
 * @since 0.1.0
 */
export interface Merge {
  readonly into: string
  readonly absorbed: ReadonlyArray<string>
}

/**
 * Plan the merges of near-duplicates (see the module docs). O(n^2) in the number of candidates.
 *
 * @category planning
 * @since 0.1.0
 */
export const planMerges = (records: ReadonlyArray<MergeCandidate>, threshold: number): Array<Merge> => {
  const order = [...records].sort((a, b) =>
    (b.support + b.upvotes - b.downvotes) - (a.support + a.upvotes - a.downvotes) ||
    a.createdAt - b.createdAt ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  )
  const taken = new Uint8Array(order.length)
  const out: Array<Merge> = []
  for (let i = 0; i < order.length; i++) {
    if (taken[i]) continue
    const absorbed: Array<string> = []
    for (let j = i + 1; j < order.length; j++) {
      if (taken[j]) continue
      if (cosine(order[i].embedding, order[j].embedding) > threshold) {
        taken[j] = 1
        absorbed.push(order[j].id)
      }
    }
    if (absorbed.length > 0) out.push({ into: order[i].id, absorbed })
  }
  return out
}

/**
 * What eviction needs to know of a record.
 *
 * @category models
 * @since 0.1.0
 */
export interface EvictionCandidate {
  readonly id: string
  readonly lastAccessedAt: number
  readonly importance: number
}

/**
 * Ids to delete so that at most `capacity` of `records` remain, lowest retention score first.
 *
 * @category planning
 * @since 0.1.0
 */
export const planEviction = (
  records: ReadonlyArray<EvictionCandidate>,
  capacity: number,
  options: { readonly now: number; readonly decay: number; readonly recencyWeight: number; readonly importanceWeight: number }
): Array<string> => {
  const excess = records.length - capacity
  if (excess <= 0) return []
  const rec = minMaxNormalize(Float64Array.from(records, (r) => recency(r.lastAccessedAt, options.now, options.decay)))
  const imp = minMaxNormalize(Float64Array.from(records, (r) => r.importance))
  const idx = records.map((_, i) => i)
  const score = (i: number) => options.recencyWeight * rec[i] + options.importanceWeight * imp[i]
  idx.sort((a, b) =>
    score(a) - score(b) ||
    records[a].lastAccessedAt - records[b].lastAccessedAt ||
    (records[a].id < records[b].id ? -1 : records[a].id > records[b].id ? 1 : 0)
  )
  return idx.slice(0, excess).map((i) => records[i].id)
}

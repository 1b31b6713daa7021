/**
 * Retrieval scoring of the experience store: the weighted score of Generative Agents (Park et al. 2023,
 * arXiv:2304.03442, §4.1), query filters and their validation.
 *
 * **Details**
 *
 * For each candidate record `r` and a query `q` at time `now`:
 * - relevance `rel(r) = cos(e_q, e_r)` (0 when either vector is zero, or when the query has no text/embedding);
 * - recency `rec(r) = decay ^ hours(now - r.lastAccessedAt)`, `decay` 0.995 per hour by default (the paper's factor
 *   per game hour), hours clamped at 0;
 * - importance `imp(r) = r.importance` in `[0, 1]`.
 *
 * Each component is min-max normalized to `[0, 1]` over the candidate set (as in the paper; a component that is
 * constant over the candidates contributes 0), and
 * `score = w_rel * rel~ + w_rec * rec~ + w_imp * imp~` with weights 1, 1, 1 by default (the paper's `alpha`s).
 * The top `k` by score are returned, ties broken by higher raw relevance, then by id.
 *
 * Candidates are the records that pass the filters; with pgvector the store first keeps the `candidates` nearest
 * by cosine (default `max(10 k, 100)`), so a record that is old-and-irrelevant but very important can be missed
 * there; the exact backend scores every filtered record.
 *
 * @since 0.1.0
 */
import type { Kind, Outcome } from "./Records.js"
import { kinds, outcomes } from "./Records.js"
import { InvalidQueryError } from "./StoreErrors.js"

/**
 * Which records a query, count or consolidation looks at. Every given field must match (AND); a list means any of
 * its values (OR); `tags` requires all the listed tags, `anyTags` at least one.
 *
 * @category models
 * @since 0.1.0
 */
export interface Filters {
  readonly kind?: Kind | ReadonlyArray<Kind> | undefined
  readonly task?: string | ReadonlyArray<string> | undefined
  readonly env?: string | ReadonlyArray<string> | undefined
  readonly outcome?: Outcome | ReadonlyArray<Outcome> | undefined
  readonly tags?: ReadonlyArray<string> | undefined
  readonly anyTags?: ReadonlyArray<string> | undefined
  readonly minImportance?: number | undefined
  /** Only records created at or after this epoch-ms time. */
  readonly since?: number | undefined
}

/**
 * Weights of the three score components (each default 1).
 *
 * @category models
 * @since 0.1.0
 */
export interface Weights {
  readonly relevance: number
  readonly recency: number
  readonly importance: number
}

/** @category constants @since 0.1.0 */
export const defaultWeights: Weights = { relevance: 1, recency: 1, importance: 1 }

/** Recency decay per hour (Generative Agents). @category constants @since 0.1.0 */
export const defaultDecay = 0.995

/** Largest `k` a query accepts. @category constants @since 0.1.0 */
export const maxK = 1000

/**
 * A query. Give `text` (embedded by the store's embedder) or `embedding`, or neither (then relevance is 0 and the
 * order is by recency and importance).
 *
 * @category models
 * @since 0.1.0
 */
export interface Query {
  readonly text?: string | undefined
  readonly embedding?: Float32Array | undefined
  readonly filters?: Filters | undefined
  /** How many to return (default 10, at most {@link maxK}). */
  readonly k?: number | undefined
  readonly weights?: Partial<Weights> | undefined
  /** Recency decay per hour, in (0, 1]. */
  readonly decay?: number | undefined
  /** The time to score at (epoch ms); default the effect `Clock`. */
  readonly now?: number | undefined
  /** Set `lastAccessedAt = now` on the returned records (the paper's "last retrieved"); default true. */
  readonly touch?: boolean | undefined
  /** Size of the nearest-neighbour candidate pool on the pgvector path (default `max(10 k, 100)`). */
  readonly candidates?: number | undefined
}

/**
 * Cosine similarity `a·b / (‖a‖ ‖b‖)` of two vectors of equal length, in `[−1, 1]`; 0 when either has zero norm.
 *
 * @category scoring
 * @since 0.1.0
 */
export const cosine = (a: Float32Array, b: Float32Array): number => {
  let dot = 0
  let na = 0
  let nb = 0
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i]
    na += a[i] * a[i]
    nb += b[i] * b[i]
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb)
}

/**
 * Recency of Generative Agents (arXiv:2304.03442, §4.1): `decay ^ hours(now − lastAccessedAt)` with times in epoch
 * ms and hours clamped at 0, in `(0, 1]` (`decay` per hour, default 0.995).
 *
 * @category scoring
 * @since 0.1.0
 */
export const recency = (lastAccessedAt: number, now: number, decay: number = defaultDecay): number =>
  Math.pow(decay, Math.max(0, now - lastAccessedAt) / 3_600_000)

/**
 * Min-max normalize in place to `[0, 1]`; a constant array becomes all zeros.
 *
 * @category scoring
 * @since 0.1.0
 */
export const minMaxNormalize = (xs: Float64Array): Float64Array => {
  let lo = Infinity
  let hi = -Infinity
  for (const x of xs) {
    if (x < lo) lo = x
    if (x > hi) hi = x
  }
  const range = hi - lo
  for (let i = 0; i < xs.length; i++) xs[i] = range > 0 ? (xs[i] - lo) / range : 0
  return xs
}

/**
 * A candidate's raw components.
 *
 * @category models
 * @since 0.1.0
 */
export interface Components {
  readonly id: string
  readonly relevance: number
  readonly recency: number
  readonly importance: number
}

/**
 * A ranked candidate: raw components and the weighted normalized score.
 *
 * @category models
 * @since 0.1.0
 */
export interface Ranked extends Components {
  readonly score: number
}

/**
 * Rank candidates by the weighted normalized score (see the module docs): each component min-max normalized over
 * `candidates`, `score = w_rel · rel~ + w_rec · rec~ + w_imp · imp~` in `[0, w_rel + w_rec + w_imp]`; the top `k`,
 * best first, ties by higher raw relevance, then id.
 *
 * @category scoring
 * @since 0.1.0
 */
export const rank = (candidates: ReadonlyArray<Components>, weights: Weights, k: number): Array<Ranked> => {
  const n = candidates.length
  const rel = minMaxNormalize(Float64Array.from(candidates, (c) => c.relevance))
  const rec = minMaxNormalize(Float64Array.from(candidates, (c) => c.recency))
  const imp = minMaxNormalize(Float64Array.from(candidates, (c) => c.importance))
  const out: Array<Ranked> = new Array(n)
  for (let i = 0; i < n; i++) {
    out[i] = {
      ...candidates[i],
      score: weights.relevance * rel[i] + weights.recency * rec[i] + weights.importance * imp[i]
    }
  }
  out.sort((a, b) =>
    b.score - a.score || b.relevance - a.relevance || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  )
  return out.slice(0, k)
}

const asList = <A>(x: A | ReadonlyArray<A> | undefined): ReadonlyArray<A> | undefined =>
  x === undefined ? undefined : Array.isArray(x) ? (x as ReadonlyArray<A>) : [x as A]

/**
 * Filters with every list normalized; fails with `InvalidQueryError` naming the first bad value.
 *
 * @category models
 * @since 0.1.0
 */
export interface NormalizedFilters {
  readonly kind?: ReadonlyArray<Kind>
  readonly task?: ReadonlyArray<string>
  readonly env?: ReadonlyArray<string>
  readonly outcome?: ReadonlyArray<Outcome>
  readonly tags?: ReadonlyArray<string>
  readonly anyTags?: ReadonlyArray<string>
  readonly minImportance?: number
  readonly since?: number
}

const known = new Set(["kind", "task", "env", "outcome", "tags", "anyTags", "minImportance", "since"])

/**
 * Validate and normalize filters (see {@link NormalizedFilters}): returns them with every single value as a list,
 * or the InvalidQueryError naming the first bad one (unknown key, unknown kind or outcome, a non-string task/env/tag,
 * `minImportance` outside `[0, 1]`, a non-finite `since`).
 *
 * @category validation
 * @since 0.1.0
 */
export const normalizeFilters = (filters: Filters | undefined): NormalizedFilters | InvalidQueryError => {
  if (filters === undefined) return {}
  if (filters === null || typeof filters !== "object") {
    return new InvalidQueryError({ option: "filters", value: filters, reason: "must be an object" })
  }
  for (const key of Object.keys(filters)) {
    if (!known.has(key)) {
      return new InvalidQueryError({
        option: `filters.${key}`,
        value: (filters as Record<string, unknown>)[key],
        reason: `unknown filter; known: ${[...known].join(", ")}`
      })
    }
  }
  const out: { -readonly [K in keyof NormalizedFilters]: NormalizedFilters[K] } = {}
  const strings = (name: "task" | "env" | "tags" | "anyTags", value: unknown) => {
    const list = asList(value as string | ReadonlyArray<string> | undefined)
    if (list === undefined) return undefined
    for (const s of list) {
      if (typeof s !== "string") {
        return new InvalidQueryError({ option: `filters.${name}`, value: s, reason: "must be a string" })
      }
    }
    return list
  }
  const kindList = asList(filters.kind)
  if (kindList !== undefined) {
    for (const k of kindList) {
      if (!kinds.includes(k)) {
        return new InvalidQueryError({ option: "filters.kind", value: k, reason: `must be one of ${kinds.join(", ")}` })
      }
    }
    out.kind = kindList
  }
  const outcomeList = asList(filters.outcome)
  if (outcomeList !== undefined) {
    for (const o of outcomeList) {
      if (!outcomes.includes(o)) {
        return new InvalidQueryError({
          option: "filters.outcome",
          value: o,
          reason: `must be one of ${outcomes.join(", ")}`
        })
      }
    }
    out.outcome = outcomeList
  }
  for (const name of ["task", "env", "tags", "anyTags"] as const) {
    const r = strings(name, filters[name])
    if (r instanceof InvalidQueryError) return r
    if (r !== undefined) out[name] = r
  }
  if (filters.minImportance !== undefined) {
    const v = filters.minImportance
    if (typeof v !== "number" || !(v >= 0 && v <= 1)) {
      return new InvalidQueryError({ option: "filters.minImportance", value: v, reason: "must be a number in [0, 1]" })
    }
    out.minImportance = v
  }
  if (filters.since !== undefined) {
    const v = filters.since
    if (typeof v !== "number" || !Number.isFinite(v)) {
      return new InvalidQueryError({ option: "filters.since", value: v, reason: "must be a finite epoch-ms time" })
    }
    out.since = v
  }
  return out
}

/**
 * Validate weights, `k`, decay, candidates and `now` of a query and fill the defaults (weights 1, `k` 10, decay
 * 0.995); returns the InvalidQueryError naming the option otherwise (`k` outside `[1, maxK]`, a negative or
 * non-finite weight, `decay` outside `(0, 1]`, `candidates` < 1, a non-finite `now`).
 *
 * @category validation
 * @since 0.1.0
 */
export const normalizeOptions = (
  q: Query
): { weights: Weights; k: number; decay: number; candidates: number | undefined } | InvalidQueryError => {
  const k = q.k ?? 10
  if (!Number.isInteger(k) || k < 1 || k > maxK) {
    return new InvalidQueryError({ option: "k", value: k, reason: `must be an integer in [1, ${maxK}]` })
  }
  const weights = { ...defaultWeights, ...q.weights }
  for (const name of ["relevance", "recency", "importance"] as const) {
    const w = weights[name]
    if (typeof w !== "number" || !Number.isFinite(w) || w < 0) {
      return new InvalidQueryError({ option: `weights.${name}`, value: w, reason: "must be a finite number >= 0" })
    }
  }
  const decay = q.decay ?? defaultDecay
  if (typeof decay !== "number" || !(decay > 0 && decay <= 1)) {
    return new InvalidQueryError({ option: "decay", value: decay, reason: "must be in (0, 1]" })
  }
  if (q.candidates !== undefined && (!Number.isInteger(q.candidates) || q.candidates < 1)) {
    return new InvalidQueryError({ option: "candidates", value: q.candidates, reason: "must be a positive integer" })
  }
  if (q.now !== undefined && (typeof q.now !== "number" || !Number.isFinite(q.now))) {
    return new InvalidQueryError({ option: "now", value: q.now, reason: "must be a finite epoch-ms time" })
  }
  return { weights, k, decay, candidates: q.candidates }
}

/**
 * Retrieval scoring of the experience store: hybrid lexical + vector relevance fused by reciprocal rank, plus
 * bounded recency and importance terms with small weights; query filters and their validation.
 *
 * **Details**
 *
 * For a query `q` at time `now`, each candidate record `r` gets (all raw, none normalized over the candidates):
 * - `similarity(r) = cos(e_q, e_r)` in `[−1, 1]` (vector ranker; absent without a query embedding);
 * - `lexical(r)` ≥ 0: PostgreSQL full-text rank `ts_rank(to_tsvector('english', text), q)` of the query's words
 *   OR-ed (`to_tsquery('english', 'w1 | w2 | ...')`: English stemming, stop words dropped), 0 when no word matches;
 * - `relevance(r)` in `[0, 1]`: reciprocal-rank fusion (Cormack, Clarke & Büttcher 2009, "Reciprocal rank fusion
 *   outperforms Condorcet and individual rank learning methods", SIGIR) of the rankers the query's `mode` uses,
 *   `Σ_i 1 / (rrfK + rank_i(r))` over the rankers that rank `r` within their first `candidates` (1-based ranks; a
 *   record not matched by the lexical ranker gets no lexical term), divided by its maximum `n_rankers / (rrfK + 1)`;
 *   `rrfK` 60 (the paper's constant). `"hybrid"` (default) fuses lexical and vector, `"vector"` and `"lexical"` use
 *   one ranker;
 * - `recency(r) = decay ^ hours(now − t_r)` in `(0, 1]` with `t_r` the record's `createdAt` (default,
 *   `recencyFrom: "created"`) or its `lastAccessedAt` (`"accessed"`, Generative Agents' "last retrieved"),
 *   `decay` 0.995 per hour (Park et al. 2023, arXiv:2304.03442, §4.1; a half-life of about 138 hours), hours
 *   clamped at 0;
 * - `importance(r)` in `[0, 1]` as stored.
 *
 * `score = w_rel · relevance + w_rec · recency + w_imp · importance` with defaults `w_rel = 1`, `w_rec = 0.05`,
 * `w_imp = 0.05`: the weighted sum of Generative Agents, but with each term bounded in `[0, 1]` on its own scale
 * instead of min-max normalized over the candidates, and recency and importance as small tie-breakers by default.
 * The top `k` by score are returned, ties broken by higher relevance, then higher similarity, then id.
 *
 * Why not the paper's min-max normalized recency of last access: a store that refreshes `lastAccessedAt` on every
 * read (`touch`) then ranks whatever it returned before above everything else, and normalizing stretches even a
 * minute's difference to the full `[0, 1]` range; on a long-conversation QA set recall@10 fell from 0.32 to 0.08
 * with use. Here recency is an absolute decay of the creation time, so reading never changes the ranking (the
 * access time still drives consolidation's eviction); `recencyFrom: "accessed"` restores the paper's choice, bounded.
 *
 * Candidates are the records that pass the filters; on the pgvector path each ranker contributes its `candidates`
 * best (default `max(10 k, 100)`: the HNSW nearest by cosine, the GIN-indexed text matches by `ts_rank`), so a
 * record that is old-and-irrelevant but very important can be missed there; the exact backend scores every
 * filtered record. A query with neither text nor embedding ranks every filtered record by recency and importance.
 *
 * @since 0.1.0
 */
import { wordsOf } from "../embedders/Embedder.js"
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
 * Weights of the three score terms, each finite and ≥ 0 (defaults {@link defaultWeights}).
 *
 * @category models
 * @since 0.1.0
 */
export interface Weights {
  readonly relevance: number
  readonly recency: number
  readonly importance: number
}

/**
 * Default weights: relevance 1, recency 0.05, importance 0.05 (see the module docs: recency and importance break
 * ties between records of about equal relevance, they do not override it).
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultWeights: Weights = { relevance: 1, recency: 0.05, importance: 0.05 }

/** Recency decay per hour (Generative Agents; half-life `ln 0.5 / ln 0.995` ≈ 138.3 hours). @category constants @since 0.1.0 */
export const defaultDecay = 0.995

/** Reciprocal-rank-fusion constant `k` of Cormack et al. (2009). @category constants @since 0.1.0 */
export const defaultRrfK = 60

/**
 * Which rankers give a query's relevance: lexical full-text search and vector similarity fused (default), or one.
 *
 * @category models
 * @since 0.1.0
 */
export type Mode = "hybrid" | "vector" | "lexical"

/** @category constants @since 0.1.0 */
export const modes: ReadonlyArray<Mode> = ["hybrid", "vector", "lexical"]

/** Largest `k` a query accepts. @category constants @since 0.1.0 */
export const maxK = 1000

/**
 * A query. Give `text` (searched as words and embedded by the store's embedder), `embedding` (vector ranker only,
 * unless `text` is given too), or neither (then relevance is 0 and the order is by recency and importance).
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
  /** Weights of relevance, recency and importance, each ≥ 0 (default 1, 0.05, 0.05). */
  readonly weights?: Partial<Weights> | undefined
  /** Rankers fused into relevance (default `"hybrid"`: full-text search and vector similarity). */
  readonly mode?: Mode | undefined
  /** Reciprocal-rank-fusion constant, > 0 (default 60). */
  readonly rrfK?: number | undefined
  /** Recency decay per hour, in (0, 1] (default 0.995). */
  readonly decay?: number | undefined
  /** Recency from the record's creation (default) or its last access (which `touch` refreshes). */
  readonly recencyFrom?: "created" | "accessed" | undefined
  /** The time to score at (epoch ms); default the effect `Clock`. */
  readonly now?: number | undefined
  /**
   * Set `lastAccessedAt = now` on the returned records (default true). It feeds consolidation's eviction and
   * `recencyFrom: "accessed"`; with the default `recencyFrom: "created"` it never changes a later ranking.
   */
  readonly touch?: boolean | undefined
  /** Candidates per ranker on the indexed path (default `max(10 k, 100)`). */
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
 * A candidate's raw components: `similarity` (cosine, `undefined` when the vector ranker does not rank it),
 * `lexical` (full-text rank ≥ 0, 0 or `undefined` when unmatched), `recency` in `(0, 1]`, `importance` in `[0, 1]`.
 *
 * @category models
 * @since 0.1.0
 */
export interface Components {
  readonly id: string
  readonly similarity: number | undefined
  readonly lexical: number | undefined
  readonly recency: number
  readonly importance: number
}

/**
 * A ranked candidate: raw components, the fused `relevance` in `[0, 1]` and the `score`.
 *
 * @category models
 * @since 0.1.0
 */
export interface Ranked extends Components {
  readonly relevance: number
  readonly score: number
}

const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

/**
 * Rank candidates (see the module docs): relevance by reciprocal-rank fusion of the vector ranker (candidates
 * with a `similarity`, by it descending) and the lexical one (candidates with `lexical > 0`, by it descending;
 * ties in either by id), each rank 1-based and counted only within the first `depth` of its list (default all:
 * RRF over each ranker's top `depth`, so that the indexed path, which only sees each ranker's top `depth`, and the
 * exact path agree), `Σ 1 / (rrfK + rank)` divided by `rankers / (rrfK + 1)` so that it lies in `[0, 1]`
 * (`rankers` the number of rankers in use, 0 gives relevance 0);
 * `score = w_rel · relevance + w_rec · recency + w_imp · importance`. Returns the top `k`, best first, ties by higher
 * relevance, higher similarity, then id.
 *
 * @category scoring
 * @since 0.1.0
 */
export const rank = (
  candidates: ReadonlyArray<Components>,
  weights: Weights,
  k: number,
  options: { readonly rankers: number; readonly rrfK?: number | undefined; readonly depth?: number | undefined }
): Array<Ranked> => {
  const n = candidates.length
  const rrfK = options.rrfK ?? defaultRrfK
  const depth = options.depth ?? Infinity
  const fused = new Float64Array(n)
  const index = new Map<string, number>()
  candidates.forEach((c, i) => index.set(c.id, i))
  const vec = candidates.filter((c) => c.similarity !== undefined)
    .sort((a, b) => b.similarity! - a.similarity! || byId(a, b))
  vec.slice(0, depth).forEach((c, r) => (fused[index.get(c.id)!] += 1 / (rrfK + r + 1)))
  const lex = candidates.filter((c) => c.lexical !== undefined && c.lexical > 0)
    .sort((a, b) => b.lexical! - a.lexical! || byId(a, b))
  lex.slice(0, depth).forEach((c, r) => (fused[index.get(c.id)!] += 1 / (rrfK + r + 1)))
  const scale = options.rankers > 0 ? (rrfK + 1) / options.rankers : 0
  const out: Array<Ranked> = new Array(n)
  for (let i = 0; i < n; i++) {
    const c = candidates[i]
    const relevance = Math.min(1, fused[i] * scale)
    out[i] = {
      ...c,
      relevance,
      score: weights.relevance * relevance + weights.recency * c.recency + weights.importance * c.importance
    }
  }
  out.sort((a, b) =>
    b.score - a.score || b.relevance - a.relevance || (b.similarity ?? -2) - (a.similarity ?? -2) || byId(a, b)
  )
  return out.slice(0, k)
}

/**
 * The OR-query of a text's words for `to_tsquery`: lower-cased letter/digit runs, first occurrence order, at most
 * 64, joined by `" | "` (safe: no tsquery operator survives); `undefined` when the text has no word.
 *
 * @category scoring
 * @since 0.1.0
 */
export const tsQueryOf = (text: string): string | undefined => {
  const words = [...new Set(wordsOf(text))]
  return words.length === 0 ? undefined : words.slice(0, 64).join(" | ")
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
 * Validate weights, `k`, mode, `rrfK`, decay, `recencyFrom`, candidates and `now` of a query and fill the defaults
 * (weights 1 / 0.05 / 0.05, `k` 10, mode `"hybrid"`, `rrfK` 60, decay 0.995, recency from creation); returns the
 * InvalidQueryError naming the option otherwise (`k` outside `[1, maxK]`, a negative or non-finite weight, an
 * unknown mode or `recencyFrom`, `rrfK` not finite and > 0, `decay` outside `(0, 1]`, `candidates` < 1, a
 * non-finite `now`).
 *
 * @category validation
 * @since 0.1.0
 */
export const normalizeOptions = (
  q: Query
):
  | {
    weights: Weights
    k: number
    mode: Mode
    rrfK: number
    decay: number
    recencyFrom: "created" | "accessed"
    candidates: number | undefined
  }
  | InvalidQueryError =>
{
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
  const mode = q.mode ?? "hybrid"
  if (!modes.includes(mode)) {
    return new InvalidQueryError({ option: "mode", value: mode, reason: `must be one of ${modes.join(", ")}` })
  }
  const rrfK = q.rrfK ?? defaultRrfK
  if (typeof rrfK !== "number" || !Number.isFinite(rrfK) || !(rrfK > 0)) {
    return new InvalidQueryError({ option: "rrfK", value: rrfK, reason: "must be a finite number > 0" })
  }
  const recencyFrom = q.recencyFrom ?? "created"
  if (recencyFrom !== "created" && recencyFrom !== "accessed") {
    return new InvalidQueryError({ option: "recencyFrom", value: recencyFrom, reason: "must be created or accessed" })
  }
  if (q.candidates !== undefined && (!Number.isInteger(q.candidates) || q.candidates < 1)) {
    return new InvalidQueryError({ option: "candidates", value: q.candidates, reason: "must be a positive integer" })
  }
  if (q.now !== undefined && (typeof q.now !== "number" || !Number.isFinite(q.now))) {
    return new InvalidQueryError({ option: "now", value: q.now, reason: "must be a finite epoch-ms time" })
  }
  return { weights, k, mode, rrfK, decay, recencyFrom, candidates: q.candidates }
}

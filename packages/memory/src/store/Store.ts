/**
 * The experience store: trajectories, insights, reflections and tips with embeddings, kept in PostgreSQL (PGlite on
 * a directory by default, a server at scale) through `effect/sql`, retrieved by hybrid full-text + vector search
 * (reciprocal-rank fusion) with small recency and importance terms, and consolidated (near-duplicate insights merged, capacity enforced).
 *
 * **When to use**: an agent that learns across episodes without gradient updates (ExpeL insights, Reflexion
 * reflections, Synapse exemplars) or a trainer that wants to keep and search past trajectories.
 *
 * **Details**
 *
 * - One schema on both backends (`Migrations`), versioned; a store written by a newer version fails to open with
 *   `SchemaVersionError`. The embedding dimension is fixed when the store is created (taken from the `Embedder`)
 *   and checked on every open.
 * - Every write (`put`, `putMany`, `vote`, `remove`, `consolidate`, the access-time update of `query`) is one
 *   transaction: a batch given to `putMany` is all-or-nothing, also when the process is killed mid-way.
 * - Dedup on put (one rule for `put`, `putMany` and equal records within one `putMany` batch, one implementation:
 *   the upsert): a record whose `(kind, task, env, text)` (and, for trajectories and reflections, payload) equals a
 *   stored one is not inserted again; the stored one keeps its id, text, payload, embedding, outcome, return and
 *   `createdAt`, gets the new support, upvotes and downvotes added, the higher importance, the later
 *   `lastAccessedAt` and the union of the tags (`status: "merged"`). A batch is applied in input order:
 *   `putMany([a, b])` leaves the store as `put(a)` then `put(b)`. A record that carries an explicit `id` equal to the
 *   id of the stored equal record is the same write repeated (a retry after a lost commit acknowledgement): nothing
 *   changes (`status: "merged"`), so retried writes with fixed ids are idempotent.
 * - Vector search (`vectorIndex`): on PGlite, by default, a resident index (`ResidentIndex`: every embedding held in
 *   memory by this process, which owns the directory; exact cosine top-n with the kernels' WebAssembly SIMD scan);
 *   on a server with pgvector, an HNSW cosine index in the database (`"hnsw"`, also available on PGlite); without
 *   either (or with `vectorIndex: "exact"`) every filtered record is scored in JS from the exact float32 `bytea`
 *   copy. Full-text search uses the generated `tsv` column and its GIN index (same SQL on both backends). Scores are
 *   computed in JS (`Retrieval.rank`).
 * - Bad input fails with `InvalidRecordError` / `InvalidQueryError` naming the value: an embedding of the wrong
 *   dimension or with NaN, an importance outside `[0, 1]`, a payload over `Records.MaxPayloadBytes`, an unknown
 *   filter or kind.
 *
 * **Gotchas**: one process per PGlite directory (a lock file `<dir>.lock` enforces it); use the server backend for
 * several processes. Times default to the effect `Clock`, so under `TestClock` they start at 0.
 *
 * @example
 * ```ts
 * import { Effect, Layer } from "effect"
 * import { Embedder, Records, Store } from "@autodidact/memory"
 *
 * const program = Effect.gen(function*() {
 *   const store = yield* Store.ExperienceStore
 *   yield* store.put(Records.insight("Open the fridge before looking for food", { task: "find food" }))
 *   const hits = yield* store.query({ text: "where is the food?", k: 3 })
 *   return hits.map((h) => h.record.text)
 * })
 * Effect.runPromise(program.pipe(
 *   Effect.provide(Store.layerPglite({ dir: "./memory-db" }).pipe(Layer.provide(Embedder.layerHashed())))
 * ))
 * ```
 * @see Retrieval for the score, Consolidation for merging and forgetting, SqlBackend for the backends.
 * @since 0.1.0
 */
import { createHash, randomUUID } from "node:crypto"
import { InvalidOptionError, type MissingPeerError, Trajectory } from "@autodidact/core"
import { Cause, Clock, Context, Effect, Exit, Layer, Option, Scope } from "effect"
import { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql"
import { planEviction, planMerges } from "./Consolidation.js"
import { Embedder } from "../embedders/EmbedderService.js"
import { layerFrom, layerHashed, type PlainEmbedder } from "../embedders/Embedder.js"
import {
  bytesToEmbedding,
  embeddingToBytes,
  ensureVectorIndex,
  latestVersion,
  migrate,
  vectorAvailable,
  vectorLiteral
} from "./Migrations.js"
import type { ExperienceRecord, Kind, NewRecord, Outcome } from "./Records.js"
import { decodeTrajectory, kinds, MaxPayloadBytes, MaxTextLength, outcomes } from "./Records.js"
import type { Components, Filters, NormalizedFilters, Query, Weights } from "./Retrieval.js"
import { cosine, defaultDecay, normalizeFilters, normalizeOptions, rank, recency, tsQueryOf } from "./Retrieval.js"
import * as ResidentIndex from "./ResidentIndex.js"
import type { Backend } from "./SqlBackend.js"
import * as SqlBackend from "./SqlBackend.js"
import * as Summary from "./Summary.js"
import type { SchemaVersionError, StoreError } from "./StoreErrors.js"
import { InvalidQueryError, InvalidRecordError, StoreOpenError, StoreSqlError } from "./StoreErrors.js"

/**
 * Result of one `put`: the id of the stored record and whether it was new or merged into an equal one.
 *
 * @category models
 * @since 0.1.0
 */
export interface PutResult {
  readonly id: string
  readonly status: "inserted" | "merged"
}

/**
 * One query hit: the record (as it was before this query touched it), its score and its components (see
 * `Retrieval`).
 *
 * @category models
 * @since 0.1.0
 */
export interface ScoredRecord {
  readonly record: ExperienceRecord
  /** `w_rel · relevance + w_rec · recency + w_imp · importance`. */
  readonly score: number
  /** Reciprocal-rank fusion of the query's rankers, in `[0, 1]` (0 when the query has no text and no embedding). */
  readonly relevance: number
  /** Cosine similarity of the query embedding and the record's, in `[−1, 1]`; 0 without a vector ranker. */
  readonly similarity: number
  /**
   * Lexical score of the query's words in the record's text, ≥ 0; 0 when none matches: BM25 on the `"resident"`
   * path, the full-text rank `ts_rank` otherwise.
   */
  readonly lexical: number
  /** `decay ^ hours` since creation (or last access, `recencyFrom: "accessed"`), in `(0, 1]`. */
  readonly recency: number
  /** The record's importance, in `[0, 1]`. */
  readonly importance: number
}

/**
 * A Synapse-style exemplar query: the most similar successful trajectories.
 *
 * @category models
 * @since 0.1.0
 */
export interface ExemplarQuery {
  readonly text?: string | undefined
  readonly embedding?: Float32Array | undefined
  readonly task?: string | undefined
  readonly env?: string | undefined
  /** Default 3. */
  readonly k?: number | undefined
}

/** @category models @since 0.1.0 */
export interface Exemplar {
  readonly record: ExperienceRecord
  readonly trajectory: Trajectory.Trajectory
  readonly similarity: number
}

/**
 * Options of `consolidate` (see `Consolidation` for the policy).
 *
 * @category models
 * @since 0.1.0
 */
export interface ConsolidateOptions {
  /** Cosine similarity above which two records merge (default 0.9). */
  readonly threshold?: number | undefined
  /** Kinds whose near-duplicates merge (default `["insight"]`). */
  readonly mergeKinds?: ReadonlyArray<Kind> | undefined
  /** Keep at most this many records in all, or per kind. Default: no limit. */
  readonly capacity?: number | Partial<Record<Kind, number>> | undefined
  readonly now?: number | undefined
  readonly decay?: number | undefined
  readonly weights?: Partial<Pick<Weights, "recency" | "importance">> | undefined
}

/** @category models @since 0.1.0 */
export interface ConsolidationReport {
  /** Records absorbed into a near-duplicate. */
  readonly merged: number
  /** Insights deleted because their strength fell to 0 or below. */
  readonly weak: number
  /** Records deleted by the capacity policy. */
  readonly evicted: number
  /** Records left. */
  readonly remaining: number
}

/**
 * The experience store service.
 *
 * @category services
 * @since 0.1.0
 */
export class ExperienceStore extends Context.Service<
  ExperienceStore,
  {
    /** Which backend holds the records: embedded PGlite or a PostgreSQL server. */
    readonly backend: "pglite" | "pg"
    /** The PGlite directory (`memory://` for an in-memory store), or the server URL with its password redacted. */
    readonly location: string
    /** Length of every stored embedding (the `Embedder`'s dimension when the store was created). */
    readonly dimension: number
    /**
     * How `query` finds vector candidates: the resident in-memory index (PGlite), a pgvector HNSW cosine index, or
     * an exact scan of every filtered record.
     */
    readonly vectorIndex: VectorIndex
    /** The schema version of the open store (`Migrations`). */
    readonly schemaVersion: number
    /**
     * Store one record (embedding its text with the `Embedder` unless `record.embedding` is given), or merge it
     * into an equal stored one (same kind, task, env, text and, for trajectories and reflections, payload; `status:
     * "merged"`, the stored id returned). Merging keeps the stored record's id, text, payload, embedding, outcome,
     * return and `createdAt`; adds support, upvotes and downvotes; takes the higher importance and the later
     * `lastAccessedAt`; unions the tags (sorted). A record whose explicit `id` is the stored equal record's id is a
     * repeat of the same write (a retry): it changes nothing. One transaction.
     * @returns fails with InvalidRecordError (naming the field: wrong-dimension or NaN embedding, importance outside
     *   `[0, 1]`, text over `Records.MaxTextLength`, payload over `Records.MaxPayloadBytes`, unknown kind or outcome),
     *   EmbedderError, or StoreSqlError.
     */
    readonly put: (record: NewRecord) => Effect.Effect<PutResult, StoreError>
    /**
     * {@link put} for many records in one transaction: all are stored (or merged) or none; results in input order.
     * The same merge rule as `put`, applied in input order, also between equal records of the batch:
     * `putMany([a, b])` leaves the store exactly as `put(a)` then `put(b)` (the later one gets `status: "merged"`
     * and the earlier one's id).
     * @returns fails as {@link put}; InvalidRecordError also for two records of the batch with the same explicit
     *   `id` and different contents (naming the later one).
     */
    readonly putMany: (records: ReadonlyArray<NewRecord>) => Effect.Effect<ReadonlyArray<PutResult>, StoreError>
    /** The record with this id, or `Option.none()`; does not touch its access time. Fails with StoreSqlError. */
    readonly get: (id: string) => Effect.Effect<Option.Option<ExperienceRecord>, StoreError>
    /**
     * Retrieve the `k` records with the highest score `w_rel · relevance + w_rec · recency + w_imp · importance`
     * (see `Retrieval`): relevance is the reciprocal-rank fusion (Cormack et al. 2009) of full-text search on the
     * query's words and cosine similarity of the query's embedding (`mode: "hybrid"`, the default; `"vector"` or
     * `"lexical"` for one ranker), recency and importance are bounded terms with small weights (Generative Agents,
     * Park et al. 2023, arXiv:2304.03442, §4.1, without its min-max normalization).
     *
     * **When to use**: an agent's context at decision time (ExpeL insights for a task, Reflexion reflections, tips,
     * past conversation turns); for the nearest successful trajectories alone use {@link exemplars}.
     *
     * **Details**
     * - Candidates: the records that pass `query.filters` (all given fields must match; a list matches any of its
     *   values; `tags` needs all listed tags, `anyTags` one; `minImportance`, `since` in epoch ms). On the
     *   `"resident"` and `"hnsw"` paths each ranker contributes its best `candidates` (default `max(10 k, 100)`):
     *   resident, the exact cosine nearest and the BM25 best from memory; hnsw, the HNSW nearest by cosine and the
     *   GIN-indexed text matches by `ts_rank`; `"exact"` scores every filtered record.
     * - Rankers: lexical, when `query.text` is given and the mode is not `"vector"`: on the resident path Okapi BM25
     *   over the records' words (`LexicalIndex`: lower-cased, stop words dropped, unstemmed); otherwise
     *   `to_tsquery('english', <the text's words OR-ed>)` against `to_tsvector('english', text)` (stemmed, stop
     *   words dropped), ranked by `ts_rank`; vector, cosine with the embedding of `query.text` (by the store's `Embedder`) or
     *   `query.embedding` (`[dimension]`, finite), when the mode is not `"lexical"`. Neither runs when
     *   `weights.relevance` is 0.
     * - Relevance `Σ 1 / (rrfK + rank)` over the rankers that rank the record, divided by its maximum, in `[0, 1]`
     *   (`rrfK` default 60). Recency `decay ^ hours(now − r.createdAt)` (or `r.lastAccessedAt` with
     *   `recencyFrom: "accessed"`; `decay` per hour in `(0, 1]`, default 0.995, a half-life of about 138 h; `now`
     *   epoch ms, default the effect `Clock`). Importance `r.importance` in `[0, 1]`. Weights ≥ 0, default
     *   relevance 1, recency 0.05, importance 0.05.
     * - Order: score descending, then relevance, then similarity descending, then id; at most `k` hits (default 10,
     *   at most `Retrieval.maxK` = 1000). Each hit carries the record as it was before this query, its score and
     *   its components.
     * - `touch` (default true) then sets `lastAccessedAt = max(lastAccessedAt, now)` on the hits: in the same
     *   statement as their read on the server and `"hnsw"`/`"exact"` stores; on a resident store at once in memory
     *   (later queries, `get` and hits see it) and in the database in batches — when 1,000 ids are queued or the
     *   oldest is 1 s old (checked at each query), before a write or consolidation, and when the store closes (a
     *   killed process loses at most those queued access times, never a record). With the default
     *   `recencyFrom: "created"` this never changes later rankings (reading does not degrade retrieval); it feeds
     *   consolidation's eviction.
     *
     * **Gotchas**: relevance depends on ranks among the candidates, so scores are comparable within one query only.
     * @returns the hits, best first (an empty array when nothing passes the filters); fails with InvalidQueryError
     *   naming the option (unknown or malformed filter, `k` outside `[1, 1000]`, a negative or non-finite weight,
     *   an unknown `mode` or `recencyFrom`, `rrfK` ≤ 0, `decay` outside `(0, 1]`, `candidates` < 1, a non-finite
     *   `now`, an embedding of the wrong dimension or with NaN, a non-string text), EmbedderError when the text
     *   cannot be embedded, or StoreSqlError.
     * @example
     * ```ts
     * const hits = yield* store.query({ text: "the fridge is closed", k: 3, filters: { kind: "insight", task: "find food" } })
     * hits.map((h) => [h.record.text, h.score, h.similarity, h.lexical])
     * ```
     * @see https://arxiv.org/abs/2304.03442
     */
    readonly query: (query: Query) => Effect.Effect<ReadonlyArray<ScoredRecord>, StoreError>
    /**
     * The `k` (default 3) successful trajectories most similar to `text` or `embedding` (optionally of one task or
     * env), decoded, with their cosine similarity: Synapse's exemplar retrieval (Zheng et al., arXiv:2306.07863).
     * A `query` with `mode: "vector"`, relevance weight 1 and the others 0 over `kind: "trajectory", outcome:
     * "success"`; `similarity` is the hit's cosine; it touches the hits' access time.
     * @returns fails with InvalidQueryError (neither text nor embedding, or a bad one), InvalidRecordError when a
     *   hit's payload is not a `Trajectory`, EmbedderError, or StoreSqlError.
     */
    readonly exemplars: (query: ExemplarQuery) => Effect.Effect<ReadonlyArray<Exemplar>, StoreError>
    /** ExpeL AGREE (`"up"`) or REMOVE (`"down"`) on a record, `n` times (default 1). */
    readonly vote: (id: string, direction: "up" | "down", n?: number) => Effect.Effect<void, StoreError>
    /** Delete records; returns how many existed. */
    readonly remove: (ids: ReadonlyArray<string>) => Effect.Effect<number, StoreError>
    /** Delete every record matching the filters (all records with `{}`); returns how many. */
    readonly removeWhere: (filters: Filters) => Effect.Effect<number, StoreError>
    /** How many records pass the filters (all with none). Fails with InvalidQueryError for a bad filter, StoreSqlError. */
    readonly count: (filters?: Filters) => Effect.Effect<number, StoreError>
    /**
     * Merge near-duplicate records and enforce capacity in one transaction (see `Consolidation` for the policy:
     * ExpeL-style merging above a cosine `threshold`, removal of insights voted down to strength ≤ 0, eviction of
     * the lowest recency + importance score beyond `capacity`). Returns what it did.
     * @returns fails with InvalidQueryError for a bad option, StoreSqlError.
     */
    readonly consolidate: (options?: ConsolidateOptions) => Effect.Effect<ConsolidationReport, StoreError>
  }
>()("@autodidact/memory/ExperienceStore") {
  /**
   * Open a store for plain (non-Effect) code: every method returns a Promise and rejects with the same tagged
   * errors as the Effect service (see {@link OpenStore}); call `close()` when done. See {@link openStore}.
   */
  static open(options: OpenOptions): Promise<OpenStore> {
    return openStore(options)
  }
}

/**
 * Options common to every layer.
 *
 * @category models
 * @since 0.1.0
 */
export interface StoreOptions {
  /**
   * How `query` finds vector candidates:
   * - `"auto"` (default): `"resident"` on PGlite; `"hnsw"` on a server where pgvector is installable, else `"exact"`.
   * - `"resident"` (PGlite only: the store's process owns the directory): every embedding held in memory
   *   (`records × (6 × dimension + 12)` bytes), loaded when the store opens; exact cosine top-n by the kernels'
   *   SIMD scan. The fastest inserts and queries on the embedded store.
   * - `"hnsw"`: a pgvector HNSW cosine index in the database (approximate; maintained on every insert; built once,
   *   over all rows, when a store written without it is reopened with it).
   * - `"exact"`: no index; every filtered record is scored in JS from its float32 copy (small stores, tests).
   * An unknown value, `"resident"` on a server or `"hnsw"` without pgvector fails the open with StoreOpenError.
   */
  readonly vectorIndex?: "auto" | VectorIndex | undefined
}

/**
 * How a store finds vector candidates (see {@link StoreOptions.vectorIndex}).
 *
 * @category models
 * @since 0.2.0
 */
export type VectorIndex = "resident" | "hnsw" | "exact"

/** A resident store writes its queued access-time updates once this many ids are queued… */
const TOUCH_FLUSH_IDS = 1000
/** …or once the oldest is this old (ms, checked at each query), before a write, consolidation and close. */
const TOUCH_FLUSH_MS = 1000

const COLUMNS =
  "id, kind, text, task, env, outcome, ret, created_at, last_accessed_at, importance, tags, support, upvotes, " +
  "downvotes, embedding, payload"
/** {@link COLUMNS} without the embedding (the resident index holds an exact copy: no bytes to read and decode). */
const COLUMNS_NO_EMBEDDING = COLUMNS.replace(" embedding,", "")

interface Row {
  readonly id: string
  readonly kind: Kind
  readonly text: string
  readonly task: string | null
  readonly env: string | null
  readonly outcome: Outcome
  readonly ret: number | null
  readonly created_at: number
  readonly last_accessed_at: number
  readonly importance: number
  readonly tags: ReadonlyArray<string>
  readonly support: number
  readonly upvotes: number
  readonly downvotes: number
  readonly embedding?: Uint8Array
  readonly payload: unknown
}

const fromRow = (r: Row, embedding?: Float32Array): ExperienceRecord => ({
  id: r.id,
  kind: r.kind,
  text: r.text,
  ...(r.task === null ? {} : { task: r.task }),
  ...(r.env === null ? {} : { env: r.env }),
  outcome: r.outcome,
  ...(r.ret === null ? {} : { return: r.ret }),
  createdAt: r.created_at,
  lastAccessedAt: r.last_accessed_at,
  importance: r.importance,
  tags: r.tags,
  support: r.support,
  upvotes: r.upvotes,
  downvotes: r.downvotes,
  embedding: embedding ?? bytesToEmbedding(r.embedding!),
  payload: r.payload
})

interface Prepared {
  readonly id: string
  readonly kind: Kind
  readonly text: string
  readonly task: string | null
  readonly env: string | null
  readonly outcome: Outcome
  readonly ret: number | null
  readonly createdAt: number
  readonly lastAccessedAt: number
  readonly importance: number
  readonly tags: ReadonlyArray<string>
  readonly support: number
  readonly upvotes: number
  readonly downvotes: number
  readonly embedding: Float32Array
  readonly payloadJson: string
  readonly dedupKey: string
}

const bad = (field: string, value: unknown, reason: string) => new InvalidRecordError({ field, value, reason })

const checkString = (field: string, value: unknown, max: number): InvalidRecordError | undefined => {
  if (typeof value !== "string") return bad(field, value, "must be a string")
  if (value.length > max) return bad(field, `${value.slice(0, 40)}... (${value.length} chars)`, `longer than ${max}`)
  if (value.includes("\u0000")) return bad(field, value, "contains a NUL character")
  return undefined
}

const checkCount = (field: string, value: unknown): InvalidRecordError | undefined =>
  typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= 2 ** 31 - 1
    ? undefined
    : bad(field, value, "must be an integer in [0, 2^31)")

/**
 * Validate an embedding against a store dimension: a `Float32Array` of exactly `dimension` finite values. Returns
 * the InvalidRecordError naming `field` (and the index of a non-finite value), or undefined when it is valid.
 *
 * @category validation
 * @since 0.1.0
 */
export const checkEmbedding = (
  field: string,
  value: unknown,
  dimension: number
): InvalidRecordError | undefined => {
  if (!(value instanceof Float32Array)) return bad(field, value, "must be a Float32Array")
  if (value.length !== dimension) {
    return bad(field, `Float32Array(${value.length})`, `dimension ${value.length}, the store's is ${dimension}`)
  }
  for (let i = 0; i < value.length; i++) {
    if (!Number.isFinite(value[i])) return bad(`${field}[${i}]`, value[i], "must be finite")
  }
  return undefined
}

const prepare = (
  r: NewRecord,
  index: number,
  dimension: number,
  now: number,
  embedding: Float32Array
): Prepared | InvalidRecordError => {
  const at = (f: string) => `records[${index}].${f}`
  if (r === null || typeof r !== "object") return bad(`records[${index}]`, r, "must be an object")
  if (!kinds.includes(r.kind)) return bad(at("kind"), r.kind, `must be one of ${kinds.join(", ")}`)
  const e1 = checkString(at("text"), r.text, MaxTextLength)
  if (e1) return e1
  if (r.id !== undefined) {
    const e = checkString(at("id"), r.id, 200)
    if (e) return e
    if (r.id.length === 0) return bad(at("id"), r.id, "must not be empty")
  }
  for (const f of ["task", "env"] as const) {
    if (r[f] !== undefined) {
      const e = checkString(at(f), r[f], 1000)
      if (e) return e
    }
  }
  const outcome = r.outcome ?? "unknown"
  if (!outcomes.includes(outcome)) return bad(at("outcome"), outcome, `must be one of ${outcomes.join(", ")}`)
  if (r.return !== undefined && (typeof r.return !== "number" || !Number.isFinite(r.return))) {
    return bad(at("return"), r.return, "must be a finite number")
  }
  for (const f of ["createdAt", "lastAccessedAt"] as const) {
    const v = r[f]
    if (v !== undefined && (typeof v !== "number" || !Number.isFinite(v))) {
      return bad(at(f), v, "must be a finite epoch-ms time")
    }
  }
  const importance = r.importance ?? 0.5
  if (typeof importance !== "number" || !(importance >= 0 && importance <= 1)) {
    return bad(at("importance"), importance, "must be a number in [0, 1] (Generative Agents' 1..10 divided by 10)")
  }
  const tags = r.tags ?? []
  if (!Array.isArray(tags)) return bad(at("tags"), tags, "must be an array of strings")
  for (const t of tags) {
    const e = checkString(at("tags[]"), t, 200)
    if (e) return e
  }
  const support = r.support ?? 1
  const upvotes = r.upvotes ?? 0
  const downvotes = r.downvotes ?? 0
  for (const [f, v] of [["support", support], ["upvotes", upvotes], ["downvotes", downvotes]] as const) {
    const e = checkCount(at(f), v)
    if (e) return e
  }
  const eErr = checkEmbedding(at("embedding"), embedding, dimension)
  if (eErr) return eErr
  let payloadJson: string
  try {
    payloadJson = JSON.stringify(Trajectory.toJsonValue(r.payload ?? null)) ?? "null"
  } catch (e) {
    return bad(at("payload"), r.payload, `not JSON-serializable: ${(e as Error).message}`)
  }
  const bytes = Buffer.byteLength(payloadJson, "utf8")
  if (bytes > MaxPayloadBytes) {
    return bad(at("payload"), `${payloadJson.slice(0, 60)}... (${bytes} bytes)`, `larger than ${MaxPayloadBytes} bytes`)
  }
  if (payloadJson.includes("\\u0000")) return bad(at("payload"), r.payload, "contains a NUL character")
  const withPayload = r.kind === "trajectory" || r.kind === "reflection"
  const dedupKey = createHash("sha256")
    .update(JSON.stringify([r.kind, r.task ?? null, r.env ?? null, r.text, withPayload ? payloadJson : null]))
    .digest("hex")
  return {
    id: r.id ?? randomUUID(),
    kind: r.kind,
    text: r.text,
    task: r.task ?? null,
    env: r.env ?? null,
    outcome,
    ret: r.return ?? null,
    createdAt: r.createdAt ?? now,
    lastAccessedAt: r.lastAccessedAt ?? r.createdAt ?? now,
    importance,
    tags: [...new Set(tags)],
    support,
    upvotes,
    downvotes,
    embedding,
    payloadJson,
    dedupKey
  }
}

const whereClause = (sql: SqlClient.SqlClient, f: NormalizedFilters) => {
  const c = []
  if (f.kind) c.push(sql`kind = ANY(${f.kind}::text[])`)
  if (f.task) c.push(sql`task = ANY(${f.task}::text[])`)
  if (f.env) c.push(sql`env = ANY(${f.env}::text[])`)
  if (f.outcome) c.push(sql`outcome = ANY(${f.outcome}::text[])`)
  if (f.tags) c.push(sql`tags @> ${f.tags}::text[]`)
  if (f.anyTags) c.push(sql`tags && ${f.anyTags}::text[]`)
  if (f.minImportance !== undefined) c.push(sql`importance >= ${f.minImportance}`)
  if (f.since !== undefined) c.push(sql`created_at >= ${f.since}`)
  return sql.and(c)
}

const BATCH_ROWS = 500

/** Whether normalized filters restrict anything. */
const filtered = (f: NormalizedFilters): boolean => Object.values(f).some((v) => v !== undefined)

/**
 * Build the resident index from the stored embeddings (pages of `ResidentIndex.LOAD_PAGE` rows in id order); it is
 * freed when the scope closes. A stored embedding of the wrong length fails with StoreOpenError naming the record.
 */
const loadResident = (sql: SqlClient.SqlClient, location: string, dimension: number) =>
  Effect.gen(function*() {
    const total = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM experience`
    const index = yield* Effect.acquireRelease(
      Effect.sync(() => ResidentIndex.make(dimension, Math.max(1024, Math.ceil(total[0].n * 1.25)))),
      (i) => Effect.sync(() => i.dispose())
    )
    let after: string | undefined
    for (;;) {
      const rows = yield* sql<
        { id: string; embedding: Uint8Array; text: string; created_at: number; last_accessed_at: number; importance: number }
      >`SELECT id, embedding, text, created_at, last_accessed_at, importance FROM experience
        ${after === undefined ? sql`` : sql`WHERE id > ${after}`} ORDER BY id LIMIT ${ResidentIndex.LOAD_PAGE}`
      for (const r of rows) {
        if (r.embedding.byteLength !== 4 * dimension) {
          return yield* new StoreOpenError({
            location,
            reason: `record ${r.id} has an embedding of ${r.embedding.byteLength} bytes; expected ${4 * dimension}`
          })
        }
      }
      index.add(rows.map((r) => ({
        id: r.id,
        text: r.text,
        embedding: bytesToEmbedding(r.embedding),
        createdAt: Number(r.created_at),
        lastAccessedAt: Number(r.last_accessed_at),
        importance: Number(r.importance)
      })))
      if (rows.length < ResidentIndex.LOAD_PAGE) return index
      after = rows[rows.length - 1].id
    }
  }).pipe(
    Effect.catchTag("SqlError", (cause) =>
      Effect.fail(
        new StoreOpenError({ location, reason: `loading the resident index: ${cause.message}`, cause })
      ))
  )

/**
 * Build the store on a connected backend (`SqlBackend.pglite` / `SqlBackend.pg`): apply the missing migrations, fix
 * the embedding dimension from the `Embedder` on first open (and check it on every later one), and set up the vector
 * index `options.vectorIndex` asks for (the resident index is loaded from the stored embeddings and freed with the
 * scope; the pgvector HNSW index is created when absent).
 * @returns fails with StoreOpenError (naming the location: a migration or the dimension check failed, e.g. a store
 *   created with another embedder's dimension) or SchemaVersionError (the store was written by a newer version).
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (
  backend: Backend,
  options: StoreOptions = {}
): Effect.Effect<ExperienceStore["Service"], StoreOpenError | SchemaVersionError, Embedder | Scope.Scope> =>
  Effect.gen(function*() {
    const { sql, location } = backend
    const embedder = yield* Embedder
    const dimension = embedder.dimension
    const withSql = <A, E>(e: Effect.Effect<A, E, SqlClient.SqlClient>) =>
      Effect.provideService(e, SqlClient.SqlClient, sql)
    yield* withSql(migrate(location))
    const openFail = (reason: string) => (cause: SqlError.SqlError) =>
      new StoreOpenError({ location, reason: `${reason}: ${cause.message}`, cause })
    const meta = yield* sql.withTransaction(
      Effect.gen(function*() {
        yield* sql`INSERT INTO autodidact_store_meta (key, value) VALUES ('dimension', ${String(dimension)})
          ON CONFLICT (key) DO NOTHING`
        yield* sql`INSERT INTO autodidact_store_meta (key, value) VALUES ('embedder', ${embedder.model})
          ON CONFLICT (key) DO NOTHING`
        return yield* sql<{ key: string; value: string }>`SELECT key, value FROM autodidact_store_meta`
      })
    ).pipe(Effect.mapError(openFail("reading store metadata")))
    const stored = Number(meta.find((m) => m.key === "dimension")?.value)
    if (stored !== dimension) {
      return yield* new StoreOpenError({
        location,
        reason: `the store holds embeddings of dimension ${stored}; the embedder gives ${dimension}` +
          ` (store created with ${meta.find((m) => m.key === "embedder")?.value ?? "?"}, now ${embedder.model})`
      })
    }
    const asked = options.vectorIndex ?? "auto"
    if (!["auto", "resident", "hnsw", "exact"].includes(asked)) {
      return yield* new StoreOpenError({
        location,
        reason: `unknown vectorIndex ${JSON.stringify(asked)}: expected "auto", "resident", "hnsw" or "exact"`
      })
    }
    if (asked === "resident" && backend.kind !== "pglite") {
      return yield* new StoreOpenError({
        location,
        reason: `vectorIndex "resident" needs the embedded PGlite store (one owning process); ` +
          `on a server use "hnsw" or "exact"`
      })
    }
    const hasVector = asked === "hnsw" || (asked === "auto" && backend.kind === "pg")
      ? yield* withSql(vectorAvailable)
      : false
    if (asked === "hnsw" && !hasVector) {
      return yield* new StoreOpenError({ location, reason: `vectorIndex "hnsw" needs the pgvector extension` })
    }
    const vectorIndex: VectorIndex = asked === "exact"
      ? "exact"
      : asked === "resident" || (asked === "auto" && backend.kind === "pglite")
      ? "resident"
      : hasVector
      ? "hnsw"
      : "exact"
    const useVector = vectorIndex === "hnsw"
    if (useVector) yield* withSql(ensureVectorIndex(location, dimension))
    const resident = vectorIndex === "resident" ? yield* loadResident(sql, location, dimension) : undefined
    let iterativeScan = false
    if (useVector) {
      iterativeScan = yield* sql.withTransaction(sql`SET LOCAL hnsw.iterative_scan = relaxed_order`).pipe(
        Effect.as(true),
        Effect.orElseSucceed(() => false)
      )
    }

    const sqlFail = (operation: string) => (cause: SqlError.SqlError) =>
      new StoreSqlError({ operation, reason: cause.message, cause })

    // Deferred touches (resident stores only): a query updates the access times in the resident index at once and
    // queues the SQL update; the queue is written as one statement when it holds TOUCH_FLUSH_IDS ids or its oldest
    // entry is TOUCH_FLUSH_MS old (checked at each query), before any write or consolidation, and when the store
    // closes. Reads of the record (`get`, query hits) overlay the queued time, so no caller sees the lag.
    const pendingTouches = new Map<string, number>()
    let pendingSince = 0
    const touchedAt = (id: string, stored: number) => {
      const t = pendingTouches.get(id)
      return t !== undefined && t > stored ? t : stored
    }
    const flushTouches = (operation: string): Effect.Effect<void, StoreSqlError> => Effect.suspend(() => {
      if (pendingTouches.size === 0) return Effect.void
      const batch = [...pendingTouches]
      pendingTouches.clear()
      return sql`UPDATE experience AS e SET last_accessed_at = GREATEST(e.last_accessed_at, t.at)
        FROM unnest(${batch.map(([id]) => id)}::text[], ${batch.map(([, at]) => at)}::float8[]) AS t(id, at)
        WHERE e.id = t.id`.pipe(
        Effect.asVoid,
        Effect.mapError(sqlFail(operation)),
        // not written: queue them again (a later flush or the close retries)
        Effect.tapError(() =>
          Effect.sync(() => {
            for (const [id, at] of batch) pendingTouches.set(id, Math.max(at, pendingTouches.get(id) ?? at))
          })
        )
      )
    })
    if (resident !== undefined) {
      yield* Effect.addFinalizer(() =>
        flushTouches("close").pipe(
          Effect.catch((e) => Effect.logWarning(`memory store: access times not written: ${e.message}`))
        )
      )
    }

    const embedMissing = (records: ReadonlyArray<NewRecord>) =>
      Effect.gen(function*() {
        const missing: Array<number> = []
        records.forEach((r, i) => {
          if (r?.embedding === undefined) missing.push(i)
        })
        for (const i of missing) {
          const e = checkString(`records[${i}].text`, records[i]?.text, MaxTextLength)
          if (e) return yield* e
        }
        const vectors = missing.length === 0 ? [] : yield* embedder.embed(missing.map((i) => records[i].text))
        const out: Array<Float32Array> = records.map((r) => r?.embedding as Float32Array)
        missing.forEach((i, j) => {
          out[i] = vectors[j]
        })
        return out
      })

    const insertChunk = (chunk: ReadonlyArray<Prepared>) => {
      const rows = chunk.map((p) =>
        useVector
          ? sql`(${p.id}, ${p.kind}, ${p.text}, ${p.task}, ${p.env}, ${p.outcome}, ${p.ret}, ${p.createdAt},
              ${p.lastAccessedAt}, ${p.importance}, ${p.tags}::text[], ${p.support}, ${p.upvotes}, ${p.downvotes},
              ${embeddingToBytes(p.embedding)}, ${p.payloadJson}::jsonb, ${p.dedupKey},
              ${vectorLiteral(p.embedding)}::vector)`
          : sql`(${p.id}, ${p.kind}, ${p.text}, ${p.task}, ${p.env}, ${p.outcome}, ${p.ret}, ${p.createdAt},
              ${p.lastAccessedAt}, ${p.importance}, ${p.tags}::text[], ${p.support}, ${p.upvotes}, ${p.downvotes},
              ${embeddingToBytes(p.embedding)}, ${p.payloadJson}::jsonb, ${p.dedupKey})`
      )
      const columns = sql.literal(useVector ? `${COLUMNS}, dedup_key, vec` : `${COLUMNS}, dedup_key`)
      return sql<{ id: string; dedup_key: string; inserted: boolean; importance: number; last_accessed_at: number }>`
        INSERT INTO experience (${columns}) VALUES ${sql.csv(rows)}
        ON CONFLICT (dedup_key) DO UPDATE SET
          support = experience.support + EXCLUDED.support,
          upvotes = experience.upvotes + EXCLUDED.upvotes,
          downvotes = experience.downvotes + EXCLUDED.downvotes,
          importance = GREATEST(experience.importance, EXCLUDED.importance),
          last_accessed_at = GREATEST(experience.last_accessed_at, EXCLUDED.last_accessed_at),
          tags = ARRAY(SELECT DISTINCT t FROM unnest(experience.tags || EXCLUDED.tags) AS t ORDER BY t)
        WHERE experience.id <> EXCLUDED.id
        RETURNING id, dedup_key, (xmax = 0) AS inserted, importance, last_accessed_at`
    }

    const putMany = (records: ReadonlyArray<NewRecord>): Effect.Effect<ReadonlyArray<PutResult>, StoreError> =>
      Effect.gen(function*() {
        if (!Array.isArray(records)) return yield* bad("records", records, "must be an array")
        if (records.length === 0) return []
        const now = yield* Clock.currentTimeMillis
        const embeddings = yield* embedMissing(records)
        const prepared: Array<Prepared> = []
        for (let i = 0; i < records.length; i++) {
          const p = prepare(records[i], i, dimension, now, embeddings[i])
          if (p instanceof InvalidRecordError) return yield* p
          prepared.push(p)
        }
        // One merge rule, one implementation (the upsert of `insertChunk`): the k-th record of each dedup key goes in
        // round k, rounds run in order, so equal records of the batch merge exactly as successive puts (one INSERT
        // cannot update a row twice, hence the rounds).
        const rounds: Array<Array<number>> = []
        const occurrences = new Map<string, number>()
        const explicitIds = new Map<string, number>()
        for (let i = 0; i < prepared.length; i++) {
          const p = prepared[i]
          const given = records[i].id
          if (given !== undefined) {
            const j = explicitIds.get(given)
            if (j !== undefined && prepared[j].dedupKey !== p.dedupKey) {
              return yield* bad(`records[${i}].id`, given, `already used by records[${j}] with other contents`)
            }
            explicitIds.set(given, i)
          }
          const k = occurrences.get(p.dedupKey) ?? 0
          occurrences.set(p.dedupKey, k + 1)
          ;(rounds[k] ??= []).push(i)
        }
        // a merge keeps the later access time: the stored one must be current
        yield* flushTouches("put")
        const results: Array<PutResult> = new Array(prepared.length)
        // the ranking fields of merged rows as they are after the transaction (for the resident index)
        const mergedMeta = new Map<string, { importance: number; lastAccessedAt: number }>()
        yield* sql.withTransaction(
          Effect.gen(function*() {
            mergedMeta.clear()
            for (const round of rounds) {
              for (let i = 0; i < round.length; i += BATCH_ROWS) {
                const chunk = round.slice(i, i + BATCH_ROWS)
                const rows = yield* insertChunk(chunk.map((j) => prepared[j]))
                const byKey = new Map(rows.map((r) => [r.dedup_key, r]))
                for (const j of chunk) {
                  const r = byKey.get(prepared[j].dedupKey)
                  // no row back: the stored equal record has this very id (a repeated write), left unchanged
                  results[j] = r === undefined
                    ? { id: prepared[j].id, status: "merged" }
                    : { id: r.id, status: r.inserted ? "inserted" : "merged" }
                  if (r !== undefined && !r.inserted) {
                    mergedMeta.set(r.id, { importance: Number(r.importance), lastAccessedAt: Number(r.last_accessed_at) })
                  }
                }
              }
            }
          })
        ).pipe(Effect.mapError(sqlFail("put")))
        if (resident !== undefined) {
          // committed: mirror the inserted rows (in input order) and the merged rows' new ranking fields (a merge
          // keeps the stored text and embedding); a row inserted and merged into within the batch gets both
          const entries: Array<ResidentIndex.Entry> = []
          results.forEach((r, j) => {
            const p = prepared[j]
            if (r.status === "inserted") {
              entries.push({
                id: r.id,
                text: p.text,
                embedding: p.embedding,
                createdAt: p.createdAt,
                lastAccessedAt: p.lastAccessedAt,
                importance: p.importance
              })
            }
          })
          resident.add(entries)
          for (const [id, meta] of mergedMeta) resident.update(id, meta)
        }
        return results
      })

    const get = (id: string) =>
      sql<Row>`SELECT ${sql.literal(COLUMNS)} FROM experience WHERE id = ${id}`.pipe(
        Effect.map((rows) =>
          rows.length === 0
            ? Option.none()
            : Option.some(fromRow({ ...rows[0], last_accessed_at: touchedAt(rows[0].id, rows[0].last_accessed_at) }))
        ),
        Effect.mapError(sqlFail("get"))
      )

    const queryEmbedding = (q: { text?: string | undefined; embedding?: Float32Array | undefined }) =>
      Effect.gen(function*() {
        if (q.embedding !== undefined) {
          const e = checkEmbedding("query.embedding", q.embedding, dimension)
          if (e) return yield* new InvalidQueryError({ option: e.field, value: e.value, reason: e.reason })
          return q.embedding
        }
        if (q.text !== undefined) {
          if (typeof q.text !== "string") {
            return yield* new InvalidQueryError({ option: "query.text", value: q.text, reason: "must be a string" })
          }
          return (yield* embedder.embed([q.text]))[0]
        }
        return undefined
      })

    const query = (q: Query): Effect.Effect<ReadonlyArray<ScoredRecord>, StoreError> =>
      Effect.gen(function*() {
        if (q === null || typeof q !== "object") {
          return yield* new InvalidQueryError({ option: "query", value: q, reason: "must be an object" })
        }
        const filters = normalizeFilters(q.filters)
        if (filters instanceof InvalidQueryError) return yield* filters
        const opts = normalizeOptions(q)
        if (opts instanceof InvalidQueryError) return yield* opts
        if (q.text !== undefined && typeof q.text !== "string") {
          return yield* new InvalidQueryError({ option: "query.text", value: q.text, reason: "must be a string" })
        }
        const weighted = opts.weights.relevance > 0
        // the rankers this query uses: vector (an embedding, given or of the text) and lexical (the text's words)
        const qe = weighted && opts.mode !== "lexical" ? yield* queryEmbedding(q) : undefined
        const tsq = weighted && opts.mode !== "vector" && q.text !== undefined ? tsQueryOf(q.text) : undefined
        const rankers = (qe === undefined ? 0 : 1) + (tsq === undefined ? 0 : 1)
        const now = q.now ?? (yield* Clock.currentTimeMillis)
        const where = whereClause(sql, filters)
        const pool = opts.candidates ?? Math.max(10 * opts.k, 100)
        type Cand = {
          id: string
          embedding?: Uint8Array
          lex?: number | null
          created_at: number
          last_accessed_at: number
          importance: number
        }
        // a scalar subquery: one InitPlan, evaluated once per statement (to_tsquery is only STABLE, so written
        // inline it would be parsed again for every row)
        const tsqSql = sql`(SELECT to_tsquery('english'::regconfig, ${tsq ?? ""}))`
        const lexCol = tsq === undefined
          ? sql``
          : sql`, CASE WHEN tsv @@ ${tsqSql} THEN ts_rank(tsv, ${tsqSql}) ELSE 0 END AS lex`
        const base = sql.literal("id, created_at, last_accessed_at, importance")
        const recencyOf = (createdAt: number, lastAccessedAt: number) =>
          recency(opts.recencyFrom === "created" ? createdAt : lastAccessedAt, now, opts.decay)
        const components: ReadonlyArray<Components> = resident !== undefined && rankers > 0
          ? yield* Effect.gen(function*() {
            // resident path: both rankers' best `pool` from memory (restricted to the filtered ids when the query is
            // filtered: one statement reads them), the ranking fields from memory; no other statement
            const allowed = filtered(filters)
              ? new Set(
                (yield* sql<{ id: string }>`SELECT id FROM experience WHERE ${where}`.pipe(
                  Effect.mapError(sqlFail("query"))
                )).map((r) => r.id)
              )
              : undefined
            const vector = qe === undefined ? [] : resident.search(qe, pool, allowed)
            const lexical = tsq === undefined ? undefined : resident.lexical(q.text!, pool, allowed)
            const ids = [...new Set([...vector.map((h) => h.id), ...(lexical?.hits ?? []).map((h) => h.id)])]
            const sims = qe === undefined ? undefined : resident.similarities(qe, ids)
            const out: Array<Components> = []
            ids.forEach((id, i) => {
              const m = resident.meta(id)
              if (m === undefined) return
              out.push({
                id,
                similarity: sims?.[i],
                lexical: lexical?.scoreOf(id),
                recency: recencyOf(m.createdAt, m.lastAccessedAt),
                importance: m.importance
              })
            })
            return out
          })
          : (yield* (rankers === 0
            ? sql<Cand>`SELECT ${base} FROM experience WHERE ${where}`
            : useVector || qe === undefined
            ? sql.withTransaction(
              Effect.gen(function*() {
                // indexed path: the best `pool` of each ranker (HNSW by cosine, GIN by ts_rank), then their union
                const vecLit = qe === undefined ? "" : vectorLiteral(qe)
                if (qe !== undefined) {
                  // both settings in one round trip, local to this transaction
                  const ef = String(Math.min(1000, Math.max(40, pool)))
                  yield* sql`SELECT set_config('hnsw.ef_search', ${ef}, true)${
                    iterativeScan ? sql`, set_config('hnsw.iterative_scan', 'relaxed_order', true)` : sql``
                  }`
                }
                const lexIds = tsq === undefined
                  ? sql``
                  : sql`(SELECT id FROM experience WHERE tsv @@ ${tsqSql} AND ${where}
                      ORDER BY ts_rank(tsv, ${tsqSql}) DESC, id LIMIT ${pool})`
                const vecIds = qe === undefined
                  ? sql``
                  : sql`(SELECT id FROM experience WHERE ${where} ORDER BY vec <=> ${vecLit}::vector LIMIT ${pool})`
                const ids = tsq !== undefined && qe !== undefined
                  ? sql`${lexIds} UNION ${vecIds}`
                  : tsq !== undefined
                  ? lexIds
                  : vecIds
                // the embedding, not pgvector's float32 distance: cosine in JS, exactly as on the exact path
                const simCol = qe === undefined ? sql`` : sql`, embedding`
                return yield* sql<Cand>`SELECT ${base}${simCol}${lexCol} FROM experience WHERE id IN (${ids})`
              })
            )
            // exact path: every filtered record, cosine in JS from the float32 copy
            : sql<Cand>`SELECT ${base}, embedding${lexCol} FROM experience WHERE ${where}`).pipe(
              Effect.mapError(sqlFail("query"))
            )).map((c) => ({
              id: c.id,
              similarity: qe === undefined || c.embedding === undefined
                ? undefined
                : cosine(qe, bytesToEmbedding(c.embedding)),
              lexical: c.lex === null || c.lex === undefined ? undefined : Number(c.lex),
              recency: recencyOf(c.created_at, c.last_accessed_at),
              importance: c.importance
            }))
        if (components.length === 0) return []
        const ranked = rank(components, opts.weights, opts.k, { rankers, rrfK: opts.rrfK, depth: pool })
        const ids = ranked.map((r) => r.id)
        const columns = sql.literal(resident === undefined ? COLUMNS : COLUMNS_NO_EMBEDDING)
        // resident: read the hits, queue their touches (see flushTouches); else one statement: the CTE reads the rows
        // as they were (its snapshot precedes the update), the update touches
        const rows = yield* (q.touch === false || resident !== undefined
          ? sql<Row>`SELECT ${columns} FROM experience WHERE id = ANY(${ids}::text[])`
          : sql<Row>`WITH hit AS (SELECT ${columns} FROM experience WHERE id = ANY(${ids}::text[])),
              touched AS (UPDATE experience SET last_accessed_at = GREATEST(last_accessed_at, ${now})
                WHERE id = ANY(${ids}::text[]) RETURNING 1)
              SELECT * FROM hit`).pipe(Effect.mapError(sqlFail("query")))
        // the hits as they were before this query: with the access times still queued by earlier queries
        const before = resident === undefined
          ? rows
          : rows.map((r) => ({ ...r, last_accessed_at: touchedAt(r.id, r.last_accessed_at) }))
        if (resident !== undefined && q.touch !== false) {
          const clock = performance.now()
          if (pendingTouches.size === 0) pendingSince = clock
          for (const id of ids) {
            const m = resident.meta(id)
            if (m !== undefined && m.lastAccessedAt < now) resident.update(id, { lastAccessedAt: now })
            if (m !== undefined) pendingTouches.set(id, Math.max(now, pendingTouches.get(id) ?? now))
          }
          if (pendingTouches.size >= TOUCH_FLUSH_IDS || clock - pendingSince >= TOUCH_FLUSH_MS) {
            yield* flushTouches("query")
          }
        }
        const byId = new Map(before.map((r) => [r.id, r]))
        const out: Array<ScoredRecord> = []
        for (const r of ranked) {
          const row = byId.get(r.id)
          if (row === undefined) continue // deleted concurrently
          out.push({
            record: fromRow(row, resident?.embedding(row.id)),
            score: r.score,
            relevance: r.relevance,
            similarity: r.similarity ?? 0,
            lexical: r.lexical ?? 0,
            recency: r.recency,
            importance: r.importance
          })
        }
        return out
      })

    const exemplars = (q: ExemplarQuery) =>
      Effect.gen(function*() {
        if (q.text === undefined && q.embedding === undefined) {
          return yield* new InvalidQueryError({
            option: "exemplars",
            value: q,
            reason: "give text or embedding to compare with"
          })
        }
        const hits = yield* query({
          text: q.text,
          embedding: q.embedding,
          k: q.k ?? 3,
          weights: { relevance: 1, recency: 0, importance: 0 },
          mode: "vector",
          filters: {
            kind: "trajectory",
            outcome: "success",
            ...(q.task === undefined ? {} : { task: q.task }),
            ...(q.env === undefined ? {} : { env: q.env })
          }
        })
        const out: Array<Exemplar> = []
        for (const h of hits) {
          const trajectory = yield* Effect.try({
            try: () => decodeTrajectory(h.record),
            catch: (e) => bad(`record ${h.record.id}.payload`, h.record.payload, `not a Trajectory: ${String(e)}`)
          })
          out.push({ record: h.record, trajectory, similarity: h.similarity })
        }
        return out
      })

    const vote = (id: string, direction: "up" | "down", n = 1) =>
      Effect.gen(function*() {
        if (direction !== "up" && direction !== "down") {
          return yield* new InvalidQueryError({ option: "direction", value: direction, reason: "must be up or down" })
        }
        if (!Number.isInteger(n) || n < 1) {
          return yield* new InvalidQueryError({ option: "n", value: n, reason: "must be a positive integer" })
        }
        const rows = yield* (direction === "up"
          ? sql`UPDATE experience SET upvotes = upvotes + ${n} WHERE id = ${id} RETURNING id`
          : sql`UPDATE experience SET downvotes = downvotes + ${n} WHERE id = ${id} RETURNING id`).pipe(
            Effect.mapError(sqlFail("vote"))
          )
        if (rows.length === 0) {
          return yield* new InvalidQueryError({ option: "id", value: id, reason: "no record with this id" })
        }
      })

    /** After a delete committed: drop the rows from the resident index; the number deleted. */
    const removed = (rows: ReadonlyArray<{ id: string }>) => {
      resident?.remove(rows.map((r) => r.id))
      return rows.length
    }

    const remove = (ids: ReadonlyArray<string>) =>
      sql<{ id: string }>`DELETE FROM experience WHERE id = ANY(${ids}::text[]) RETURNING id`.pipe(
        Effect.map(removed),
        Effect.mapError(sqlFail("remove"))
      )

    const removeWhere = (filters: Filters) =>
      Effect.gen(function*() {
        const f = normalizeFilters(filters)
        if (f instanceof InvalidQueryError) return yield* f
        const rows = yield* sql<{ id: string }>`DELETE FROM experience WHERE ${whereClause(sql, f)} RETURNING id`.pipe(
          Effect.mapError(sqlFail("remove"))
        )
        return removed(rows)
      })

    const count = (filters?: Filters) =>
      Effect.gen(function*() {
        const f = normalizeFilters(filters)
        if (f instanceof InvalidQueryError) return yield* f
        const rows = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM experience WHERE ${
          whereClause(sql, f)
        }`.pipe(Effect.mapError(sqlFail("count")))
        return rows[0].n
      })

    const consolidate = (options: ConsolidateOptions = {}) =>
      Effect.gen(function*() {
        const threshold = options.threshold ?? 0.9
        if (typeof threshold !== "number" || !(threshold >= -1 && threshold <= 1)) {
          return yield* new InvalidQueryError({ option: "threshold", value: threshold, reason: "must be in [-1, 1]" })
        }
        const mergeKinds = options.mergeKinds ?? ["insight"]
        for (const k of mergeKinds) {
          if (!kinds.includes(k)) {
            return yield* new InvalidQueryError({ option: "mergeKinds", value: k, reason: `must be one of ${kinds}` })
          }
        }
        const capacity = options.capacity
        const pools: Array<[ReadonlyArray<Kind> | undefined, number]> = []
        if (typeof capacity === "number") pools.push([undefined, capacity])
        else if (capacity !== undefined) {
          for (const [k, c] of Object.entries(capacity)) {
            if (!kinds.includes(k as Kind)) {
              return yield* new InvalidQueryError({ option: "capacity", value: k, reason: `unknown kind` })
            }
            if (c !== undefined) pools.push([[k as Kind], c])
          }
        }
        for (const [, c] of pools) {
          if (!Number.isInteger(c) || c < 0) {
            return yield* new InvalidQueryError({ option: "capacity", value: c, reason: "must be an integer >= 0" })
          }
        }
        const now = options.now ?? (yield* Clock.currentTimeMillis)
        const decay = options.decay ?? defaultDecay
        const recencyWeight = options.weights?.recency ?? 1
        const importanceWeight = options.weights?.importance ?? 1
        const deleted: Array<{ id: string }> = []
        const updated = new Map<string, ResidentIndex.Meta>()
        yield* flushTouches("consolidate") // merges and eviction read the access times
        const report = yield* sql.withTransaction(
          Effect.gen(function*() {
            deleted.length = 0 // (a retried transaction starts over)
            updated.clear()
            yield* sql`SELECT pg_advisory_xact_lock(${0x636f6e73})`
            let merged = 0
            for (const kind of mergeKinds) {
              const rows = yield* sql<Row>`SELECT ${sql.literal(COLUMNS)} FROM experience WHERE kind = ${kind}`
              const records = rows.map((r) => fromRow(r))
              const byId = new Map(records.map((r) => [r.id, r]))
              for (const m of planMerges(records, threshold)) {
                const group = [byId.get(m.into)!, ...m.absorbed.map((id) => byId.get(id)!)]
                const tags = [...new Set(group.flatMap((r) => r.tags))].sort()
                const meta = {
                  importance: Math.max(...group.map((r) => r.importance)),
                  createdAt: Math.min(...group.map((r) => r.createdAt)),
                  lastAccessedAt: Math.max(...group.map((r) => r.lastAccessedAt))
                }
                yield* sql`UPDATE experience SET
                  support = ${group.reduce((a, r) => a + r.support, 0)},
                  upvotes = ${group.reduce((a, r) => a + r.upvotes, 0)},
                  downvotes = ${group.reduce((a, r) => a + r.downvotes, 0)},
                  importance = ${meta.importance},
                  created_at = ${meta.createdAt},
                  last_accessed_at = ${meta.lastAccessedAt},
                  tags = ${tags}::text[]
                  WHERE id = ${m.into}`
                updated.set(m.into, meta)
                yield* sql`DELETE FROM experience WHERE id = ANY(${m.absorbed}::text[])`
                for (const id of m.absorbed) deleted.push({ id })
                merged += m.absorbed.length
              }
            }
            const weakRows = yield* sql<{ id: string }>`DELETE FROM experience
              WHERE kind = 'insight' AND support + upvotes - downvotes <= 0 RETURNING id`
            deleted.push(...weakRows)
            let evicted = 0
            for (const [poolKinds, cap] of pools) {
              const rows = yield* sql<{ id: string; last_accessed_at: number; importance: number }>`
                SELECT id, last_accessed_at, importance FROM experience
                WHERE ${poolKinds === undefined ? sql`TRUE` : sql`kind = ANY(${poolKinds}::text[])`}`
              const ids = planEviction(
                rows.map((r) => ({ id: r.id, lastAccessedAt: r.last_accessed_at, importance: r.importance })),
                cap,
                { now, decay, recencyWeight, importanceWeight }
              )
              if (ids.length > 0) yield* sql`DELETE FROM experience WHERE id = ANY(${ids}::text[])`
              for (const id of ids) deleted.push({ id })
              evicted += ids.length
            }
            const left = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM experience`
            return { merged, weak: weakRows.length, evicted, remaining: left[0].n }
          })
        ).pipe(Effect.mapError(sqlFail("consolidate")))
        for (const [id, meta] of updated) resident?.update(id, meta)
        removed(deleted)
        return report
      })

    return ExperienceStore.of({
      backend: backend.kind,
      location,
      dimension,
      vectorIndex,
      schemaVersion: latestVersion,
      put: (r) => Effect.map(putMany([r]), (rs) => rs[0]),
      putMany,
      get,
      query,
      exemplars,
      vote,
      remove,
      removeWhere,
      count,
      consolidate
    })
  })

/**
 * A store on a directory writes `memory-summary.json` there when its scope closes (before the database closes), so
 * that the dashboard can show its counts without opening it; a failure to write is logged, never raised.
 */
const withSummaryOnClose = (dir: string) => <E, R>(store: Effect.Effect<ExperienceStore["Service"], E, R>) =>
  Effect.tap(store, (s) =>
    Effect.addFinalizer(() =>
      Summary.write(s, dir).pipe(
        Effect.catch((e) => Effect.logWarning(`memory summary not written: ${e.message}`))
      )
    ))

/**
 * The store on PGlite in a directory (created when absent). Closing the layer's scope writes `memory-summary.json`
 * into the directory ({@link Summary}), stops the loopback listener, closes PGlite and releases the directory lock.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerPglite = (
  options: StoreOptions & { readonly dir: string }
): Layer.Layer<ExperienceStore, StoreOpenError | SchemaVersionError | MissingPeerError, Embedder> =>
  Layer.effect(
    ExperienceStore,
    Effect.flatMap(SqlBackend.pglite({ dir: options.dir }), (b) => make(b, options)).pipe(withSummaryOnClose(options.dir))
  )

/**
 * The store on an in-memory PGlite (tests, scratch work), with pgvector: gone when the scope closes. Needs an
 * `Embedder`; fails to build with StoreOpenError or SchemaVersionError (see {@link make}).
 *
 * @category layers
 * @since 0.1.0
 */
export const layerMemory = (
  options: StoreOptions = {}
): Layer.Layer<ExperienceStore, StoreOpenError | SchemaVersionError | MissingPeerError, Embedder> =>
  Layer.effect(ExperienceStore, Effect.flatMap(SqlBackend.pglite({}), (b) => make(b, options)))

/**
 * The store on a PostgreSQL server (`postgres://user:password@host:port/database`). Uses pgvector when the server
 * has the extension, the exact JS scorer otherwise.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerPg = (
  options: StoreOptions & { readonly url: string; readonly maxConnections?: number | undefined }
): Layer.Layer<ExperienceStore, StoreOpenError | SchemaVersionError | MissingPeerError, Embedder> =>
  Layer.effect(ExperienceStore, Effect.flatMap(SqlBackend.pg(options), (b) => make(b, options)))

/**
 * Open a store as a scoped effect instead of a layer (on a directory, it writes `memory-summary.json` there when the
 * scope closes, as {@link layerPglite}).
 *
 * @category constructors
 * @since 0.1.0
 */
export const open = (
  target: { readonly dir: string } | { readonly url: string } | { readonly memory: true },
  options: StoreOptions = {}
): Effect.Effect<ExperienceStore["Service"], StoreOpenError | SchemaVersionError | MissingPeerError, Embedder | Scope.Scope> =>
  "dir" in target
    ? Effect.flatMap(SqlBackend.pglite({ dir: target.dir }), (b) => make(b, options)).pipe(withSummaryOnClose(target.dir))
    : Effect.flatMap("url" in target ? SqlBackend.pg({ url: target.url }) : SqlBackend.pglite({}), (b) => make(b, options))

/**
 * Options of {@link openStore} (`ExperienceStore.open`): exactly one of `path` (a PGlite directory, created when
 * absent), `url` (a PostgreSQL server) or `memory: true` (an in-memory PGlite, gone on `close`).
 *
 * @category models
 * @since 0.1.0
 */
export interface OpenOptions extends StoreOptions {
  readonly path?: string | undefined
  readonly url?: string | undefined
  readonly memory?: boolean | undefined
  /** Pool size against a server (default 4). */
  readonly maxConnections?: number | undefined
  /**
   * The embedder: a {@link PlainEmbedder}, or an `Embedder` layer (`Embedder.layerHashed`, `Embedder.layerOpenAi`
   * with its HTTP client provided, `OnnxEmbedder.layerOnnx` from `@autodidact/memory/onnx`; built in the store's
   * scope and released by `close`). Default: the hashed embedder of dimension `dimension`.
   */
  readonly embedder?: PlainEmbedder | Layer.Layer<Embedder, unknown> | undefined
  /** Dimension of the default hashed embedder (default 256); ignored when `embedder` is given. */
  readonly dimension?: number | undefined
}

/**
 * The experience store for plain (non-Effect) code: the methods of the {@link ExperienceStore} service, each returning
 * a Promise that rejects with the same tagged error the Effect method fails with (`InvalidRecordError`,
 * `InvalidQueryError`, `EmbedderError`, `StoreSqlError`; `instanceof` and `_tag` work). `get` resolves to
 * `undefined` for an unknown id. `close()` releases the store (PGlite, the loopback listener, the directory lock, a
 * server pool) and writes `memory-summary.json` for a directory store; calls after it reject with StoreOpenError.
 *
 * @category models
 * @since 0.1.0
 */
export interface OpenStore {
  readonly backend: "pglite" | "pg"
  readonly location: string
  readonly dimension: number
  readonly vectorIndex: VectorIndex
  readonly schemaVersion: number
  /** The Effect service behind it (to hand to Effect code: `Effect.provideService(ExperienceStore, store.service)`). */
  readonly service: ExperienceStore["Service"]
  put(record: NewRecord): Promise<PutResult>
  putMany(records: ReadonlyArray<NewRecord>): Promise<ReadonlyArray<PutResult>>
  get(id: string): Promise<ExperienceRecord | undefined>
  query(query: Query): Promise<ReadonlyArray<ScoredRecord>>
  exemplars(query: ExemplarQuery): Promise<ReadonlyArray<Exemplar>>
  vote(id: string, direction: "up" | "down", n?: number): Promise<void>
  remove(ids: ReadonlyArray<string>): Promise<number>
  removeWhere(filters: Filters): Promise<number>
  count(filters?: Filters): Promise<number>
  consolidate(options?: ConsolidateOptions): Promise<ConsolidationReport>
  /** Release the store; idempotent. */
  close(): Promise<void>
}

/**
 * Open an experience store for plain code (also `ExperienceStore.open`). The same store as {@link open} /
 * {@link layerPglite} / {@link layerPg} / {@link layerMemory}, one implementation.
 *
 * @example
 * ```ts
 * import { ExperienceStore, Records } from "@autodidact/memory/store"
 *
 * const store = await ExperienceStore.open({ path: "./memory-db" })
 * await store.put(Records.insight("Open the fridge before looking for food", { task: "find food" }))
 * const hits = await store.query({ text: "where is the food?", k: 3 })
 * await store.close()
 * ```
 * @returns rejects with InvalidOptionError (not exactly one of `path`, `url`, `memory`), MissingPeerError (a backend
 *   package is not installed: `@effect/sql-pg`, `@electric-sql/pglite`, ...), StoreOpenError, SchemaVersionError,
 *   or the embedder layer's error.
 * @category constructors
 * @since 0.1.0
 */
export const openStore = async (options: OpenOptions): Promise<OpenStore> => {
  const given = [options?.path !== undefined, options?.url !== undefined, options?.memory === true]
  if (given.filter(Boolean).length !== 1) {
    throw new InvalidOptionError({
      option: "ExperienceStore.open",
      value: options,
      reason: "give exactly one of path (a PGlite directory), url (a PostgreSQL server) or memory: true"
    })
  }
  const target = options.path !== undefined
    ? { dir: options.path }
    : options.url !== undefined
    ? { url: options.url }
    : { memory: true as const }
  const embedder: Layer.Layer<Embedder, unknown> = options.embedder === undefined
    ? layerHashed({ dimension: options.dimension ?? 256 })
    : layerFrom(options.embedder)
  const scope = Scope.makeUnsafe()
  const opened = "url" in target && options.maxConnections !== undefined
    ? Effect.flatMap(SqlBackend.pg({ url: target.url, maxConnections: options.maxConnections }), (b) => make(b, options))
    : open(target, options)
  // the embedder is built in the store's own scope (not the call's): an ONNX session lives until `close()`
  const exit = await Effect.runPromiseExit(
    Layer.buildWithScope(embedder, scope).pipe(
      Effect.flatMap((context) => Effect.provideContext(opened, context)),
      Scope.provide(scope)
    )
  )
  if (Exit.isFailure(exit)) {
    await Effect.runPromise(Scope.close(scope, exit))
    throw Cause.squash(exit.cause)
  }
  const service = exit.value
  let closed = false
  const run = <A>(e: Effect.Effect<A, StoreError>): Promise<A> =>
    closed
      ? Promise.reject(new StoreOpenError({ location: service.location, reason: "the store is closed" }))
      : Effect.runPromise(e)
  return {
    backend: service.backend,
    location: service.location,
    dimension: service.dimension,
    vectorIndex: service.vectorIndex,
    schemaVersion: service.schemaVersion,
    service,
    put: (record) => run(service.put(record)),
    putMany: (records) => run(service.putMany(records)),
    get: (id) => run(Effect.map(service.get(id), Option.getOrUndefined)),
    query: (query) => run(service.query(query)),
    exemplars: (query) => run(service.exemplars(query)),
    vote: (id, direction, n) => run(service.vote(id, direction, n)),
    remove: (ids) => run(service.remove(ids)),
    removeWhere: (filters) => run(service.removeWhere(filters)),
    count: (filters) => run(service.count(filters)),
    consolidate: (o) => run(service.consolidate(o)),
    close: async () => {
      if (closed) return
      closed = true
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  }
}

/**
 * Versioned schema of the experience store, the same for PGlite and PostgreSQL, and the runner that applies it.
 *
 * **Details**
 *
 * `autodidact_schema_version` holds one row per applied migration. {@link migrate} runs in one transaction under a
 * transaction-level advisory lock (two processes opening the same server database at once apply each migration
 * once), applies the missing migrations in order, and fails with `SchemaVersionError` when the database already has
 * a version newer than {@link latestVersion} (written by a newer build: refusing is safer than guessing). Running it
 * again is a no-op. This small runner is used instead of `effect/sql`'s `Migrator` because the latter neither detects
 * a newer version nor takes a lock.
 *
 * Version 2 adds the generated column `tsv = to_tsvector('english', text)` and its GIN index (full-text search);
 * version 3 sets the table's fillfactor to 90 (heap-only access-time updates).
 *
 * Times are `double precision` epoch milliseconds (exact in a float64, and decoded as plain numbers by every driver);
 * embeddings are float32 little-endian `bytea` (the exact, canonical copy); the optional pgvector column `vec` and its
 * HNSW index are added outside the versioned schema by {@link ensureVectorIndex} when the extension exists.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { SchemaVersionError, StoreOpenError } from "./StoreErrors.js"

/**
 * One migration: a version number, a name, and its statements (run in order in the migration's transaction).
 *
 * @category models
 * @since 0.1.0
 */
export interface Migration {
  readonly version: number
  readonly name: string
  readonly statements: ReadonlyArray<string>
}

/**
 * Every migration, oldest first. Append only: never edit a released one.
 *
 * @category constants
 * @since 0.1.0
 */
export const migrations: ReadonlyArray<Migration> = [
  {
    version: 1,
    name: "experience",
    statements: [
      `CREATE TABLE autodidact_store_meta (key text PRIMARY KEY, value text NOT NULL)`,
      `CREATE TABLE experience (
        id text PRIMARY KEY,
        kind text NOT NULL CHECK (kind IN ('trajectory', 'insight', 'reflection', 'tip')),
        text text NOT NULL,
        task text,
        env text,
        outcome text NOT NULL CHECK (outcome IN ('success', 'failure', 'unknown')),
        ret double precision,
        created_at double precision NOT NULL,
        last_accessed_at double precision NOT NULL,
        importance double precision NOT NULL CHECK (importance >= 0 AND importance <= 1),
        tags text[] NOT NULL DEFAULT '{}',
        support integer NOT NULL DEFAULT 1,
        upvotes integer NOT NULL DEFAULT 0,
        downvotes integer NOT NULL DEFAULT 0,
        embedding bytea NOT NULL,
        payload jsonb,
        dedup_key text NOT NULL UNIQUE
      )`,
      `CREATE INDEX experience_kind_task ON experience (kind, task)`,
      `CREATE INDEX experience_env ON experience (env)`,
      `CREATE INDEX experience_tags ON experience USING gin (tags)`
    ]
  },
  {
    // Full-text search for the lexical ranker of hybrid retrieval (`Retrieval`): a stored generated tsvector (kept
    // in step with `text` by PostgreSQL itself, so no write path changes) and its GIN index.
    version: 2,
    name: "full-text search",
    statements: [
      `ALTER TABLE experience ADD COLUMN tsv tsvector
        GENERATED ALWAYS AS (to_tsvector('english'::regconfig, text)) STORED`,
      `CREATE INDEX experience_tsv ON experience USING gin (tsv)`
    ]
  },
  {
    // Room on each heap page for the access-time updates of `query` (`touch`): with 10% of a page free, updating
    // `last_accessed_at` (no indexed column) is a heap-only tuple update that touches no index — about half the cost
    // of a touch of 10 rows on PGlite (0.55 vs 1.18 ms p50 at 20k rows). Applies to pages written from now on.
    version: 3,
    name: "heap fillfactor for access-time updates",
    statements: [`ALTER TABLE experience SET (fillfactor = 90)`]
  }
]

/**
 * The schema version this build writes.
 *
 * @category constants
 * @since 0.1.0
 */
export const latestVersion: number = migrations[migrations.length - 1].version

/** Advisory-lock key of the migration runner ("autodida" in ASCII, truncated to an int4-safe value). */
const MIGRATION_LOCK = 0x6175746f

const sqlFail = (location: string, reason: string) => (cause: unknown) =>
  new StoreOpenError({ location, reason: `${reason}: ${String((cause as Error)?.message ?? cause)}`, cause })

/**
 * Current schema version of the connected database (0 when it has none).
 *
 * @category migrations
 * @since 0.1.0
 */
export const currentVersion = (location: string): Effect.Effect<number, StoreOpenError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const exists = yield* sql<{ present: boolean }>`
      SELECT to_regclass('autodidact_schema_version') IS NOT NULL AS present`
    if (!exists[0].present) return 0
    const rows = yield* sql<{ version: number | null }>`SELECT max(version) AS version FROM autodidact_schema_version`
    return rows[0].version ?? 0
  }).pipe(Effect.catchTag("SqlError", (e) => Effect.fail(sqlFail(location, "reading the schema version")(e))))

/**
 * Apply the missing migrations (see the module docs). Returns the versions applied now (empty when up to date).
 *
 * @category migrations
 * @since 0.1.0
 */
export const migrate = (
  location: string,
  list: ReadonlyArray<Migration> = migrations
): Effect.Effect<ReadonlyArray<number>, StoreOpenError | SchemaVersionError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const supported = list.length === 0 ? 0 : list[list.length - 1].version
    return yield* sql.withTransaction(
      Effect.gen(function*() {
        yield* sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`
        yield* sql`CREATE TABLE IF NOT EXISTS autodidact_schema_version (
          version integer PRIMARY KEY,
          name text NOT NULL,
          applied_at double precision NOT NULL
        )`
        const rows = yield* sql<{ version: number | null }>`
          SELECT max(version) AS version FROM autodidact_schema_version`
        const found = rows[0].version ?? 0
        if (found > supported) return yield* new SchemaVersionError({ location, found, supported })
        const applied: Array<number> = []
        for (const m of list) {
          if (m.version <= found) continue
          for (const statement of m.statements) yield* sql.unsafe(statement)
          yield* sql`INSERT INTO autodidact_schema_version (version, name, applied_at)
            VALUES (${m.version}, ${m.name}, ${Date.now()})`
          applied.push(m.version)
        }
        return applied
      })
    ).pipe(Effect.catchTag("SqlError", (e) => Effect.fail(sqlFail(location, "migrating")(e))))
  })

/**
 * Whether the `vector` extension is installed or installable in the connected database.
 *
 * @category migrations
 * @since 0.1.0
 */
export const vectorAvailable: Effect.Effect<boolean, never, SqlClient.SqlClient> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_available_extensions WHERE name = 'vector'`
  return rows[0].n > 0
}).pipe(Effect.orElseSucceed(() => false))

/**
 * Create the extension, the `vec vector(dimension)` column and its HNSW cosine index when absent, and fill `vec` for
 * rows written while the index was off. Idempotent.
 *
 * **Bulk load**: when the index does not exist yet, `vec` is back-filled first (batched `UPDATE ... FROM (VALUES
 * ...)`) and the HNSW index is built once afterwards, over all rows (with `maintenance_work_mem` raised for the build):
 * far faster than maintaining the graph per insert. So the fast way to load many records is to open the store with
 * `vectorIndex: "exact"`, insert, close, and reopen with `"hnsw"`. When the index already exists, the few rows
 * written by a backend without pgvector are back-filled through it.
 *
 * @category migrations
 * @since 0.1.0
 */
export const ensureVectorIndex = (
  location: string,
  dimension: number
): Effect.Effect<void, StoreOpenError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const indexed = yield* sql.withTransaction(
      Effect.gen(function*() {
        yield* sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`
        yield* sql`CREATE EXTENSION IF NOT EXISTS vector`
        yield* sql.unsafe(`ALTER TABLE experience ADD COLUMN IF NOT EXISTS vec vector(${dimension | 0})`)
        const rows = yield* sql<{ n: number }>`
          SELECT count(*)::int AS n FROM pg_indexes WHERE indexname = 'experience_vec_hnsw'`
        return rows[0].n > 0
      })
    )
    // Backfill in batches (rows written by a backend without pgvector, or by a bulk load into an exact store).
    for (;;) {
      const rows = yield* sql<{ id: string; embedding: Uint8Array }>`
        SELECT id, embedding FROM experience WHERE vec IS NULL LIMIT 500`
      if (rows.length === 0) break
      const values = rows.map((r) => sql`(${r.id}, ${vectorLiteral(bytesToEmbedding(r.embedding))})`)
      yield* sql`UPDATE experience AS e SET vec = v.vec::vector
        FROM (VALUES ${sql.csv(values)}) AS v(id, vec) WHERE e.id = v.id`
    }
    if (!indexed) {
      // one bulk HNSW build over every row (pgvector builds in memory up to maintenance_work_mem)
      yield* sql.withTransaction(
        Effect.gen(function*() {
          yield* sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`
          yield* sql.unsafe(`SET LOCAL maintenance_work_mem = '512MB'`)
          yield* sql.unsafe(
            `CREATE INDEX IF NOT EXISTS experience_vec_hnsw ON experience USING hnsw (vec vector_cosine_ops)`
          )
        })
      )
    }
  }).pipe(Effect.catchTag("SqlError", (e) => Effect.fail(sqlFail(location, "creating the vector index")(e))))

/**
 * Float32 little-endian bytes of an embedding (a copy).
 *
 * @category encoding
 * @since 0.1.0
 */
export const embeddingToBytes = (v: Float32Array): Uint8Array => {
  const out = new Uint8Array(v.length * 4)
  const view = new DataView(out.buffer)
  for (let i = 0; i < v.length; i++) view.setFloat32(i * 4, v[i], true)
  return out
}

/**
 * Inverse of {@link embeddingToBytes}.
 *
 * @category encoding
 * @since 0.1.0
 */
export const bytesToEmbedding = (b: Uint8Array): Float32Array => {
  const n = b.byteLength >>> 2
  const out = new Float32Array(n)
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength)
  for (let i = 0; i < n; i++) out[i] = view.getFloat32(i * 4, true)
  return out
}

/**
 * pgvector text literal `[x,y,...]` of an embedding (exact: each float32 printed in its shortest round-trip form).
 *
 * @category encoding
 * @since 0.1.0
 */
export const vectorLiteral = (v: Float32Array): string => {
  let s = "["
  for (let i = 0; i < v.length; i++) s += (i === 0 ? "" : ",") + v[i]
  return s + "]"
}

/**
 * The rollout tables in PostgreSQL: content-addressed policy weights and the trajectories workers write.
 *
 * **Tables** (created on first use, under a transaction-scoped advisory lock so concurrent processes do not race):
 * - `autodidact_rollout_policies (hash PRIMARY KEY, run_id, version, bytes)`: the bytes of `Policy.encode`, keyed
 *   by their SHA-256; publishing the same weights twice is a no-op.
 * - `autodidact_rollout_trajectories (run_id, kind, id, PRIMARY KEY (run_id, kind, id), policy_version, runner,
 *   steps, episode_return, data jsonb)`: one row per episode (`kind = 'episode'`) or text group (`'group'`). The
 *   episode id is the idempotency key: `INSERT ... ON CONFLICT DO NOTHING`, so a request redelivered after its runner
 *   died (and replayed by another runner) never produces a second row.
 *
 * Policies and trajectories live next to `effect/cluster`'s own message and runner tables in the same database.
 * This is a dedicated table rather than `@autodidact/memory`'s `ExperienceStore`: that store holds embedded,
 * retrievable text records (ExpeL insights, exemplars), not raw per-step training arrays.
 *
 * @since 0.1.0
 */
import { type Duration, Effect, Option, type Scope } from "effect"
import type { SqlClient, SqlError } from "effect/sql"
import type * as Collect from "./Collect.js"
import { reasonOf } from "./Errors.js"
import * as Policy from "./Policy.js"

const LOCK_KEY = 0x0ad1_c1a5

/** Create the tables when absent (idempotent; safe from several processes at once). */
export const migrate = (sql: SqlClient.SqlClient): Effect.Effect<void, SqlError.SqlError> =>
  sql.withTransaction(Effect.gen(function*() {
    yield* sql`SELECT pg_advisory_xact_lock(${LOCK_KEY})`
    yield* sql`CREATE TABLE IF NOT EXISTS autodidact_rollout_policies (
      hash text PRIMARY KEY,
      run_id text NOT NULL,
      version integer NOT NULL,
      bytes bytea NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
    yield* sql`CREATE TABLE IF NOT EXISTS autodidact_rollout_trajectories (
      run_id text NOT NULL,
      kind text NOT NULL,
      id bigint NOT NULL,
      policy_version integer NOT NULL,
      runner text NOT NULL,
      steps integer NOT NULL,
      episode_return double precision NOT NULL,
      data jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (run_id, kind, id)
    )`
  }))

/** Store policy bytes under their hash (no-op when present); returns the hash. */
export const putPolicy = (sql: SqlClient.SqlClient, runId: string, version: number, bytes: Uint8Array): Effect.Effect<string, SqlError.SqlError> => {
  const hash = Policy.hashOf(bytes)
  return sql`INSERT INTO autodidact_rollout_policies (hash, run_id, version, bytes) VALUES (${hash}, ${runId}, ${version}, ${bytes})
    ON CONFLICT (hash) DO NOTHING`.pipe(Effect.as(hash))
}

/** The bytes stored under `hash`, if any. */
export const getPolicy = (sql: SqlClient.SqlClient, hash: string): Effect.Effect<Option.Option<Uint8Array>, SqlError.SqlError> =>
  sql<{ bytes: Uint8Array }>`SELECT bytes FROM autodidact_rollout_policies WHERE hash = ${hash}`.pipe(
    Effect.map((rows) => rows.length === 0 ? Option.none() : Option.some(rows[0]!.bytes))
  )

/** Write episodes; an episode id already stored for the run is skipped. Returns how many rows were new. */
export const putEpisodes = (sql: SqlClient.SqlClient, episodes: ReadonlyArray<Collect.Episode>): Effect.Effect<number, SqlError.SqlError> =>
  episodes.length === 0 ? Effect.succeed(0) : sql<{ id: string }>`INSERT INTO autodidact_rollout_trajectories
      (run_id, kind, id, policy_version, runner, steps, episode_return, data)
    VALUES ${sql.csv(episodes.map((e) =>
      sql`(${e.runId}, 'episode', ${e.episodeId}, ${e.policyVersion}, ${e.runner}, ${e.length}, ${e.episodeReturn}, ${JSON.stringify(e)}::jsonb)`
    ))}
    ON CONFLICT (run_id, kind, id) DO NOTHING
    RETURNING id`.pipe(Effect.map((rows) => rows.length))

/** Write text groups (idempotent by group id, like {@link putEpisodes}). */
export const putGroups = (sql: SqlClient.SqlClient, groups: ReadonlyArray<Collect.Group>): Effect.Effect<number, SqlError.SqlError> =>
  groups.length === 0 ? Effect.succeed(0) : sql<{ id: string }>`INSERT INTO autodidact_rollout_trajectories
      (run_id, kind, id, policy_version, runner, steps, episode_return, data)
    VALUES ${sql.csv(groups.map((g) =>
      sql`(${g.runId}, 'group', ${g.groupId}, ${g.policyVersion}, ${g.runner}, ${g.steps},
        ${g.trajectories.reduce((a, t) => a + t.episodeReturn, 0) / Math.max(1, g.trajectories.length)}, ${JSON.stringify(g)}::jsonb)`
    ))}
    ON CONFLICT (run_id, kind, id) DO NOTHING
    RETURNING id`.pipe(Effect.map((rows) => rows.length))

/** Per-id row counts of a run's stored trajectories (for checks: every id should appear exactly once). */
export const countsOf = (sql: SqlClient.SqlClient, runId: string, kind: "episode" | "group" = "episode"): Effect.Effect<ReadonlyArray<{ readonly id: number; readonly runner: string }>, SqlError.SqlError> =>
  sql<{ id: string | number; runner: string }>`SELECT id, runner FROM autodidact_rollout_trajectories WHERE run_id = ${runId} AND kind = ${kind} ORDER BY id`.pipe(
    Effect.map((rows) => rows.map((r) => ({ id: Number(r.id), runner: r.runner })))
  )

/** A change of the store's reachability, as {@link watch} reports it. */
export type Availability =
  | { readonly _tag: "Down"; readonly reason: string }
  | { readonly _tag: "Up"; readonly downSeconds: number }

/**
 * Probe the database every `interval` (`SELECT 1`, 1 s timeout) for the life of the scope and report each change:
 * `Down` at the first failed probe, `Up` (with the outage's length) at the first good one after it.
 */
export const watch = (
  sql: SqlClient.SqlClient,
  report: (a: Availability) => void,
  interval: Duration.Input = "500 millis"
): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function*() {
    let downSince: number | undefined
    const probe = Effect.gen(function*() {
      const r = yield* Effect.result(sql`SELECT 1`.pipe(Effect.timeout("1 second")))
      if (r._tag === "Failure" && downSince === undefined) {
        downSince = performance.now()
        report({ _tag: "Down", reason: reasonOf(r.failure) })
      } else if (r._tag === "Success" && downSince !== undefined) {
        report({ _tag: "Up", downSeconds: (performance.now() - downSince) / 1000 })
        downSince = undefined
      }
      yield* Effect.sleep(interval)
    })
    yield* Effect.forkScoped(Effect.forever(probe))
  })

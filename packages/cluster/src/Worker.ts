/**
 * The rollout worker as an `effect/cluster` entity: two persisted RPCs, `CollectEpisodes` and `CollectGroups`,
 * handled by whichever runner owns the entity's shard.
 *
 * **Durability**: both RPCs are annotated `ClusterSchema.Persisted`, so a request is written to the cluster's
 * message table (`SqlMessageStorage`) before it is delivered, and its reply is written there too. If the runner
 * handling it dies, its shards move to the surviving runners (`SqlRunnerStorage` + shard locks), which read the
 * unprocessed request from storage and run it again. The request's primary key is (run, first id, count), so a
 * trainer that re-sends after a storage outage gets the stored reply instead of a second execution.
 *
 * **Idempotent results**: a replayed request produces the same episodes (seeds depend only on run seed and episode
 * id, weights only on the policy hash) and `RolloutStore.putEpisodes` skips ids already stored, so no episode is
 * ever stored or delivered twice.
 *
 * **Storage outages** inside a handler (fetching weights, writing trajectories) are retried every 300 ms for up to
 * two minutes and reported through the worker's `onEvent` hook.
 *
 * @see https://effect.website/docs (effect/cluster: Entity, Sharding, SqlMessageStorage)
 * @since 0.1.0
 */
import { ActorCritic, DrrnPolicy } from "@autodidact/optim"
import { Effect, Option, Schedule, Schema } from "effect"
import { ClusterSchema, Entity } from "effect/cluster"
import { Rpc } from "effect/rpc"
import { SqlClient } from "effect/sql"
import * as Collect from "./Collect.js"
import { reasonOf, RolloutError } from "./Errors.js"
import * as Policy from "./Policy.js"
import * as RolloutStore from "./RolloutStore.js"

/** The payload fields both RPCs share: which run (and its seed), which env, which policy version (and its weights' hash). */
const requestFields = {
  runId: Schema.String,
  runSeed: Schema.Number,
  envId: Schema.String,
  policyVersion: Schema.Number,
  policyHash: Schema.String
}

/** Collect the episodes `episodeIds` of a run with policy version `policyVersion` (weights `policyHash`). */
export const CollectEpisodes = Rpc.make("CollectEpisodes", {
  payload: {
    ...requestFields,
    episodeIds: Schema.Array(Schema.Number),
    maxSteps: Schema.optional(Schema.Number)
  },
  success: Schema.Array(Collect.Episode),
  error: RolloutError,
  primaryKey: (p) => `${p.runId}/episodes/${p.episodeIds[0] ?? -1}+${p.episodeIds.length}`
}).annotate(ClusterSchema.Persisted, true)

/** Collect the text groups `groupIds` (G trajectories each) of a run with policy version `policyVersion`. */
export const CollectGroups = Rpc.make("CollectGroups", {
  payload: {
    ...requestFields,
    groupIds: Schema.Array(Schema.Number),
    groupSize: Schema.Number,
    difficulty: Schema.optional(Schema.String),
    maxSteps: Schema.optional(Schema.Number)
  },
  success: Schema.Array(Collect.Group),
  error: RolloutError,
  primaryKey: (p) => `${p.runId}/groups/${p.groupIds[0] ?? -1}+${p.groupIds.length}`
}).annotate(ClusterSchema.Persisted, true)

/** The rollout worker entity. Entity ids are `<runId>/<kind>/<first id>`: one entity per request. */
export const RolloutWorker = Entity.make("RolloutWorker", [CollectEpisodes, CollectGroups])

/** Something a worker reports (a runner prints these; tests read them). */
export type WorkerEvent =
  | { readonly _tag: "Collected"; readonly kind: "episodes" | "groups"; readonly runId: string; readonly ids: ReadonlyArray<number>; readonly steps: number; readonly seconds: number; readonly stored: number }
  | { readonly _tag: "StorageRetry"; readonly what: string; readonly reason: string }
  | { readonly _tag: "Failed"; readonly runId: string; readonly id: number; readonly reason: string }

/** Retry policy for storage calls inside a handler: every 300 ms, for about two minutes. */
export const storageRetry = { schedule: Schedule.spaced("300 millis"), times: 400 } as const

/** A per-process cache of decoded policies by hash (they are immutable: the hash is of the bytes). */
export const makePolicyCache = (capacity = 4) => {
  const entries = new Map<string, Policy.Weights>()
  return {
    get: (hash: string) => entries.get(hash),
    set: (hash: string, w: Policy.Weights) => {
      entries.set(hash, w)
      while (entries.size > capacity) entries.delete(entries.keys().next().value!)
    }
  }
}

/**
 * The entity's handlers for a runner named `runner`: fetch (and cache) the weights by hash from PostgreSQL, collect,
 * store the trajectories idempotently, reply with them.
 */
export const layer = (runner: string, onEvent: (event: WorkerEvent) => void = () => {}) =>
  RolloutWorker.toLayer(
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const cache = makePolicyCache()
      const counters = { failures: 0, storageRetries: 0 }
      const stamp = <A extends { runnerFailures: number; runnerStorageRetries: number }>(a: A): A => ({ ...a, runnerFailures: counters.failures, runnerStorageRetries: counters.storageRetries })
      const withStorageRetry = <A, E>(what: string, effect: Effect.Effect<A, E>) =>
        effect.pipe(
          Effect.tapError((e) => Effect.sync(() => {
            counters.storageRetries++
            onEvent({ _tag: "StorageRetry", what, reason: reasonOf(e) })
          })),
          Effect.retry(storageRetry)
        )
      const weightsOf = (runId: string, id: number, hash: string) =>
        Effect.gen(function*() {
          const hit = cache.get(hash)
          if (hit !== undefined) return hit
          const bytes = yield* withStorageRetry(`policy ${hash.slice(0, 12)}`, RolloutStore.getPolicy(sql, hash)).pipe(
            Effect.mapError((e) => new RolloutError({ runId, id, reason: `fetching policy ${hash}: ${reasonOf(e)}`, where: runner }))
          )
          if (Option.isNone(bytes)) return yield* new RolloutError({ runId, id, reason: `policy ${hash} was never published`, where: runner })
          if (Policy.hashOf(bytes.value) !== hash) return yield* new RolloutError({ runId, id, reason: `the bytes stored under ${hash} have another SHA-256`, where: runner })
          const w = yield* Effect.try({
            try: () => Policy.decode(bytes.value),
            catch: (e) => new RolloutError({ runId, id, reason: reasonOf(e), where: runner })
          })
          cache.set(hash, w)
          return w
        })
      const fail = (runId: string, id: number) => (e: unknown) => {
        const error = e instanceof RolloutError ? e : new RolloutError({ runId, id, reason: reasonOf(e), where: runner })
        counters.failures++
        onEvent({ _tag: "Failed", runId, id, reason: error.reason })
        return error
      }
      /**
       * One request: fetch the weights (they must be of `kind`), collect each id in order (yielding between ids),
       * store the batch idempotently, report it, reply with the stamped items.
       */
      const collectBatch = <K extends Policy.Weights["kind"], N, T extends { runnerFailures: number; runnerStorageRetries: number }>(
        p: { readonly runId: string; readonly policyHash: string; readonly ids: ReadonlyArray<number> },
        what: { readonly kind: "episodes" | "groups"; readonly policy: K; readonly needs: string },
        netOf: (w: Extract<Policy.Weights, { readonly kind: K }>) => N,
        collect: (id: number, net: N) => T,
        put: (items: ReadonlyArray<T>) => Effect.Effect<number, unknown>,
        stepsOf: (item: T) => number
      ) =>
        Effect.gen(function*() {
          const first = p.ids[0] ?? -1
          const started = performance.now()
          const w = yield* weightsOf(p.runId, first, p.policyHash)
          if (w.kind !== what.policy) return yield* new RolloutError({ runId: p.runId, id: first, reason: `policy ${p.policyHash} is a ${w.kind} policy; ${what.needs}`, where: runner })
          const net = netOf(w as Extract<Policy.Weights, { readonly kind: K }>)
          const out: Array<T> = []
          for (const id of p.ids) {
            out.push(yield* Effect.try({ try: () => collect(id, net), catch: (e) => new RolloutError({ runId: p.runId, id, reason: reasonOf(e), where: runner }) }))
            yield* Effect.yieldNow
          }
          const stored = yield* withStorageRetry(what.kind, put(out)).pipe(
            Effect.mapError((e) => new RolloutError({ runId: p.runId, id: first, reason: `storing ${what.kind}: ${reasonOf(e)}`, where: runner }))
          )
          onEvent({ _tag: "Collected", kind: what.kind, runId: p.runId, ids: p.ids, steps: out.reduce((a, x) => a + stepsOf(x), 0), seconds: (performance.now() - started) / 1000, stored })
          return out.map(stamp)
        }).pipe(Effect.mapError(fail(p.runId, p.ids[0] ?? -1)))
      return RolloutWorker.of({
        CollectEpisodes: ({ payload: p }) =>
          collectBatch(
            { runId: p.runId, policyHash: p.policyHash, ids: p.episodeIds },
            { kind: "episodes", policy: "actor-critic", needs: "episodes need an actor-critic" },
            (w) => ActorCritic.fromParams(w.sizes, w.params),
            (episodeId, net) => Collect.collectEpisode({ runId: p.runId, runSeed: p.runSeed, envId: p.envId, episodeId, policy: { version: p.policyVersion, hash: p.policyHash }, maxSteps: p.maxSteps }, net, runner),
            (out) => RolloutStore.putEpisodes(sql, out),
            (e) => e.length
          ),
        CollectGroups: ({ payload: p }) =>
          collectBatch(
            { runId: p.runId, policyHash: p.policyHash, ids: p.groupIds },
            { kind: "groups", policy: "drrn", needs: "text groups need a DRRN policy" },
            (w) => DrrnPolicy.fromParams(w.config, w.params),
            (groupId, policy) => Collect.collectGroup({ runId: p.runId, runSeed: p.runSeed, envId: p.envId, groupId, groupSize: p.groupSize, policy: { version: p.policyVersion, hash: p.policyHash }, difficulty: p.difficulty, maxSteps: p.maxSteps }, policy, runner),
            (out) => RolloutStore.putGroups(sql, out),
            (g) => g.steps
          )
      })
    }),
    { maxIdleTime: "5 seconds" }
  )

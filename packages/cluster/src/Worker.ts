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

/** Collect the episodes `episodeIds` of a run with policy version `policyVersion` (weights `policyHash`). */
export const CollectEpisodes = Rpc.make("CollectEpisodes", {
  payload: {
    runId: Schema.String,
    runSeed: Schema.Number,
    envId: Schema.String,
    policyVersion: Schema.Number,
    policyHash: Schema.String,
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
    runId: Schema.String,
    runSeed: Schema.Number,
    envId: Schema.String,
    policyVersion: Schema.Number,
    policyHash: Schema.String,
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
      return RolloutWorker.of({
        CollectEpisodes: ({ payload: p }) =>
          Effect.gen(function*() {
            const first = p.episodeIds[0] ?? -1
            const started = performance.now()
            const w = yield* weightsOf(p.runId, first, p.policyHash)
            if (w.kind !== "actor-critic") return yield* new RolloutError({ runId: p.runId, id: first, reason: `policy ${p.policyHash} is a ${w.kind} policy; episodes need an actor-critic`, where: runner })
            const net = ActorCritic.fromParams(w.sizes, w.params)
            const out: Array<Collect.Episode> = []
            for (const episodeId of p.episodeIds) {
              out.push(yield* Effect.try({
                try: () => Collect.collectEpisode({ runId: p.runId, runSeed: p.runSeed, envId: p.envId, episodeId, policy: { version: p.policyVersion, hash: p.policyHash }, maxSteps: p.maxSteps }, net, runner),
                catch: (e) => new RolloutError({ runId: p.runId, id: episodeId, reason: reasonOf(e), where: runner })
              }))
              yield* Effect.yieldNow
            }
            const stored = yield* withStorageRetry("episodes", RolloutStore.putEpisodes(sql, out)).pipe(
              Effect.mapError((e) => new RolloutError({ runId: p.runId, id: first, reason: `storing episodes: ${reasonOf(e)}`, where: runner }))
            )
            onEvent({ _tag: "Collected", kind: "episodes", runId: p.runId, ids: p.episodeIds, steps: out.reduce((a, e) => a + e.length, 0), seconds: (performance.now() - started) / 1000, stored })
            return out.map(stamp)
          }).pipe(Effect.mapError(fail(p.runId, p.episodeIds[0] ?? -1))),
        CollectGroups: ({ payload: p }) =>
          Effect.gen(function*() {
            const first = p.groupIds[0] ?? -1
            const started = performance.now()
            const w = yield* weightsOf(p.runId, first, p.policyHash)
            if (w.kind !== "drrn") return yield* new RolloutError({ runId: p.runId, id: first, reason: `policy ${p.policyHash} is a ${w.kind} policy; text groups need a DRRN policy`, where: runner })
            const policy = DrrnPolicy.fromParams(w.config, w.params)
            const out: Array<Collect.Group> = []
            for (const groupId of p.groupIds) {
              out.push(yield* Effect.try({
                try: () => Collect.collectGroup({ runId: p.runId, runSeed: p.runSeed, envId: p.envId, groupId, groupSize: p.groupSize, policy: { version: p.policyVersion, hash: p.policyHash }, difficulty: p.difficulty, maxSteps: p.maxSteps }, policy, runner),
                catch: (e) => new RolloutError({ runId: p.runId, id: groupId, reason: reasonOf(e), where: runner })
              }))
              yield* Effect.yieldNow
            }
            const stored = yield* withStorageRetry("groups", RolloutStore.putGroups(sql, out)).pipe(
              Effect.mapError((e) => new RolloutError({ runId: p.runId, id: first, reason: `storing groups: ${reasonOf(e)}`, where: runner }))
            )
            onEvent({ _tag: "Collected", kind: "groups", runId: p.runId, ids: p.groupIds, steps: out.reduce((a, g) => a + g.steps, 0), seconds: (performance.now() - started) / 1000, stored })
            return out.map(stamp)
          }).pipe(Effect.mapError(fail(p.runId, p.groupIds[0] ?? -1)))
      })
    }),
    { maxIdleTime: "5 seconds" }
  )

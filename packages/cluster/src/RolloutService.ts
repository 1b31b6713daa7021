/**
 * The rollout service: "give me these episodes (or groups of G) of environment E with policy version V", answered
 * as a stream in order of arrival. One interface, two layers:
 *
 * - {@link layerLocal} = {@link layerThreads}: on this machine, a pool of `worker_threads` workers (default
 *   `os.availableParallelism()`), each holding the decoded policy of every hash it was sent (the default; no
 *   configuration). {@link layerInProcess} ({@link makeLocal}) collects in the calling thread, one episode after
 *   another (tests, single-thread use). Both produce the same episodes: content depends only on (run seed, id,
 *   weights); the thread layer emits them in order of completion.
 * - {@link layerCluster}: rollout workers are `effect/cluster` entities ({@link Worker.RolloutWorker}) hosted by
 *   runner processes (`autodidact runner --cluster postgres://...`); requests and replies go through PostgreSQL
 *   (`SqlMessageStorage`, `SqlRunnerStorage`), so a request survives the runner handling it.
 *
 * **Policies** are published once per version ({@link RolloutService.publish}): the weights' bytes are stored under
 * their SHA-256 and requests carry (version, hash); a worker acts with exactly those bytes.
 *
 * **Off-policy bound**: the service delivers what was asked; the learner states how stale a policy it accepts with
 * `maxPolicyLag` and checks every episode with {@link checkLag} (`learnerVersion − policyVersion ≤ maxPolicyLag`).
 * {@link requestVersion} is the schedule that keeps a pipelined learner within that bound (IMPALA/AReaL-style
 * asynchronous RL with a staleness limit; 0 = synchronous on-policy PPO).
 *
 * **Exactly once**: each id is emitted at most once per request (a duplicate reply, e.g. after a redelivery, is
 * dropped and counted in {@link Stats}); a request fails rather than completes if an id is missing.
 *
 * @example
 * ```ts
 * const program = Effect.gen(function*() {
 *   const rollouts = yield* RolloutService
 *   const policy = yield* rollouts.publish("run-1", 0, Policy.ofActorCritic(net))
 *   yield* rollouts.episodes({ runId: "run-1", runSeed: 1, envId: "CartPole-v1", policy, episodeIds: [0, 1, 2, 3] }).pipe(
 *     Stream.runForEach((e) => Effect.log(e.episodeId, e.episodeReturn))
 *   )
 * })
 * Effect.runPromise(program.pipe(Effect.provide(RolloutService.layerLocal)))
 * ```
 * @see Espeholt et al., "IMPALA", 2018 (arXiv:1802.01561); Fu et al., "AReaL", 2025 (arXiv:2505.24298)
 * @since 0.1.0
 */
import { PgClient } from "@effect/sql-pg"
import { ActorCritic, DrrnPolicy } from "@autodidact/optim"
import { Context, Duration, Effect, Fiber, Layer, Redacted, Schedule, type Scope, Stream } from "effect"
import type { ShardingConfig } from "effect/cluster"
import { SqlClient } from "effect/sql"
import * as Collect from "./Collect.js"
import * as ClusterSocket from "./internal/ClusterSocket.js"
import { ClusterStoreError, PolicyLagError, reasonOf, RolloutError } from "./Errors.js"
import * as Policy from "./Policy.js"
import * as RolloutStore from "./RolloutStore.js"
import * as ThreadPool from "./ThreadPool.js"
import * as Worker from "./Worker.js"

/** A request for episodes of a Box/Discrete environment. */
export interface EpisodesRequest {
  readonly runId: string
  readonly runSeed: number
  readonly envId: string
  readonly policy: Policy.PolicyRef
  readonly episodeIds: ReadonlyArray<number>
  /** Step cap on top of the environment's time limit. */
  readonly maxSteps?: number | undefined
  /** Cluster: episodes per message (default 1: finest load balancing). */
  readonly perMessage?: number | undefined
}

/** A request for text groups (G trajectories of one task each). */
export interface GroupsRequest {
  readonly runId: string
  readonly runSeed: number
  readonly envId: string
  readonly policy: Policy.PolicyRef
  readonly groupIds: ReadonlyArray<number>
  readonly groupSize: number
  readonly difficulty?: string | undefined
  readonly maxSteps?: number | undefined
  /** Cluster: groups per message (default 1). */
  readonly perMessage?: number | undefined
}

/** Counters of a service instance. */
export interface Stats {
  /** Messages sent (cluster) or requests run (local). */
  messages: number
  /** Sends retried because cluster storage or routing was unavailable. */
  retries: number
  /** Replies for ids already delivered, dropped. */
  duplicatesDropped: number
}

/**
 * The rollout service (see the module docs): `publish` stores a policy version's weights (content-addressed by
 * SHA-256) and returns its reference; `episodes` and `groups` stream the requested trajectories, each id exactly
 * once, in order of arrival, failing with `RolloutError` when one cannot be collected; `stats` counts cluster sends
 * retried and duplicate replies dropped. Provide {@link layerLocal} (worker threads), {@link layerInProcess} or
 * {@link layerCluster} (runners over PostgreSQL).
 * @see effect/cluster (Entity, Sharding): https://effect.website/docs
 * @category services
 * @since 0.1.0
 */
export class RolloutService extends Context.Service<RolloutService, {
  readonly mode: "local" | "cluster"
  /** Store `weights` as version `version` of run `runId`; returns its reference (version, SHA-256). */
  readonly publish: (runId: string, version: number, weights: Policy.Weights) => Effect.Effect<Policy.PolicyRef, RolloutError>
  /** The requested episodes, each exactly once, in order of arrival. */
  readonly episodes: (request: EpisodesRequest) => Stream.Stream<Collect.Episode, RolloutError>
  /** The requested groups, each exactly once, in order of arrival. */
  readonly groups: (request: GroupsRequest) => Stream.Stream<Collect.Group, RolloutError>
  readonly stats: Stats
}>()("@autodidact/cluster/RolloutService") {}

/**
 * Check an item's policy lag: succeed with `learnerVersion − policyVersion` (in versions) when it is in
 * [0, `maxPolicyLag`]; fail with {@link PolicyLagError} when the episode's (or group's) policy is older than the
 * learner accepts, or newer than the learner (a bug upstream).
 * @since 0.1.0
 */
export const checkLag = (episodeId: number, policyVersion: number, learnerVersion: number, maxPolicyLag: number): Effect.Effect<number, PolicyLagError> => {
  const lag = learnerVersion - policyVersion
  return lag > maxPolicyLag || lag < 0
    ? Effect.fail(new PolicyLagError({ episodeId, policyVersion, learnerVersion, maxPolicyLag }))
    : Effect.succeed(lag)
}

/**
 * The policy version to collect batch `k` with when the learner consumes batch k at version k and may lag by
 * `maxPolicyLag`: `max(0, k − maxPolicyLag)`. Batches 0..L are requested at once; batch k + L + 1 as soon as version
 * k + 1 is published, so L + 1 batches are in flight while the learner trains.
 */
export const requestVersion = (k: number, maxPolicyLag: number): number => Math.max(0, k - maxPolicyLag)

/**
 * The learner's side of bounded-staleness collection, shared by `Trainer` (episodes) and `TextTrainer` (groups).
 *
 * *Details*: batch k is collected with policy version {@link requestVersion}`(k, L)`; batches 0..min(L, maxBatches − 1)
 * are requested when the pipeline is made, and batch k + L + 1 when version k + 1 is {@link Pipeline.published}, so
 * L + 1 batches are in flight while the learner trains. {@link Pipeline.take}`(k)` joins batch k (the learner is at
 * version k) and fails with {@link PolicyLagError} when an item's version lags by more than L (or is ahead).
 *
 * *Gotchas*: the requests are forked as children of the fiber that makes the pipeline: make it, take, publish and
 * close it in one fiber (the trainer's); {@link Pipeline.close} interrupts what is still in flight.
 * @see Espeholt et al., "IMPALA", arXiv:1802.01561 (learning from a policy that lags the learner's)
 * @since 0.1.0
 */
export interface Pipeline<A> {
  /** Join batch `k` and check each item's policy lag at learner version `k`; the items in order of arrival. */
  readonly take: (k: number) => Effect.Effect<Array<A>, RolloutError | PolicyLagError>
  /** Record `ref` as version `k + 1` (published after the update on batch `k`) and, when `more`, request batch k + L + 1. */
  readonly published: (k: number, ref: Policy.PolicyRef, more?: boolean) => Effect.Effect<void>
  /** Interrupt the requests still in flight. */
  readonly close: Effect.Effect<void>
}

/** Make a {@link Pipeline}: `request(k, policy)` streams batch k collected with `policy`; `initial` is version 0. */
export const pipeline = <A>(options: {
  readonly maxPolicyLag: number
  /** Batches that may ever be requested (ids must stay below 2^32). */
  readonly maxBatches: number
  readonly initial: Policy.PolicyRef
  readonly request: (k: number, policy: Policy.PolicyRef) => Stream.Stream<A, RolloutError>
  /** The item's id (episode or group id) and the policy version that collected it, for the lag check. */
  readonly idOf: (item: A) => number
  readonly versionOf: (item: A) => number
}): Effect.Effect<Pipeline<A>> =>
  Effect.gen(function*() {
    const L = options.maxPolicyLag
    const refs: Array<Policy.PolicyRef> = [options.initial]
    const inFlight = new Map<number, Fiber.Fiber<Array<A>, RolloutError>>()
    const request = (k: number) =>
      options.request(k, refs[requestVersion(k, L)]!).pipe(
        Stream.runCollect,
        Effect.forkChild,
        Effect.map((fiber) => void inFlight.set(k, fiber))
      )
    for (let k = 0; k <= Math.min(L, options.maxBatches - 1); k++) yield* request(k)
    return {
      take: (k) =>
        Effect.gen(function*() {
          const items = yield* Fiber.join(inFlight.get(k)!)
          inFlight.delete(k)
          for (const item of items) yield* checkLag(options.idOf(item), options.versionOf(item), k, L)
          return items
        }),
      published: (k, ref, more = true) =>
        Effect.suspend(() => {
          refs[k + 1] = ref
          return more && k + 1 + L < options.maxBatches ? request(k + 1 + L) : Effect.void
        }),
      close: Effect.suspend(() => Effect.forEach([...inFlight.values()], Fiber.interrupt, { discard: true }))
    }
  })

const chunks = <A>(xs: ReadonlyArray<A>, size: number): Array<ReadonlyArray<A>> => {
  const out: Array<ReadonlyArray<A>> = []
  const n = Math.max(1, Math.floor(size))
  for (let i = 0; i < xs.length; i += n) out.push(xs.slice(i, i + n))
  return out
}

const checkIds = (runId: string, ids: ReadonlyArray<number>, what: string): Effect.Effect<void, RolloutError> => {
  const seen = new Set<number>()
  for (const id of ids) {
    if (!Number.isInteger(id) || id < 0 || id >= 2 ** 32) return Effect.fail(new RolloutError({ runId, id, reason: `${what} ids must be integers in [0, 2^32)`, where: "trainer" }))
    if (seen.has(id)) return Effect.fail(new RolloutError({ runId, id, reason: `${what} id ${id} requested twice`, where: "trainer" }))
    seen.add(id)
  }
  return Effect.void
}

/** Drop a second delivery of an id; fail at the end if an id never arrived. */
const exactlyOnce = <A>(runId: string, ids: ReadonlyArray<number>, idOf: (a: A) => number, stats: Stats) =>
  (stream: Stream.Stream<A, RolloutError>): Stream.Stream<A, RolloutError> =>
    Stream.suspend(() => {
      const pending = new Set(ids)
      return stream.pipe(
        Stream.filter((a) => {
          if (pending.delete(idOf(a))) return true
          stats.duplicatesDropped++
          return false
        }),
        Stream.concat(Stream.suspend(() =>
          pending.size === 0 ? Stream.empty : Stream.fail(new RolloutError({ runId, id: [...pending][0]!, reason: `${pending.size} requested ids never arrived`, where: "trainer" }))
        ))
      )
    })

// ---------------------------------------------------------------------------------------------------------------
// In-process layer
// ---------------------------------------------------------------------------------------------------------------

/** The in-process service: policies in a map, episodes collected here one after another. */
export const makeLocal = (runner = "local"): Effect.Effect<RolloutService["Service"]> =>
  Effect.sync(() => {
    const policies = new Map<string, Policy.Weights>()
    const stats: Stats = { messages: 0, retries: 0, duplicatesDropped: 0 }
    const weights = (runId: string, id: number, ref: Policy.PolicyRef) => {
      const w = policies.get(ref.hash)
      return w === undefined ? Effect.fail(new RolloutError({ runId, id, reason: `policy ${ref.hash} was never published`, where: runner })) : Effect.succeed(w)
    }
    return RolloutService.of({
      mode: "local",
      stats,
      publish: (runId, version, w) =>
        Effect.try({
          try: () => {
            const bytes = Policy.encode(w)
            const hash = Policy.hashOf(bytes)
            // Store the decoded bytes, so local workers act with exactly what a remote worker would.
            if (!policies.has(hash)) policies.set(hash, Policy.decode(bytes))
            return { version, hash }
          },
          catch: (e) => new RolloutError({ runId, id: version, reason: reasonOf(e), where: runner })
        }),
      episodes: (r) =>
        Stream.unwrap(Effect.gen(function*() {
          yield* checkIds(r.runId, r.episodeIds, "episode")
          const w = yield* weights(r.runId, r.episodeIds[0] ?? -1, r.policy)
          if (w.kind !== "actor-critic") return yield* new RolloutError({ runId: r.runId, id: r.episodeIds[0] ?? -1, reason: `policy ${r.policy.hash} is a ${w.kind} policy; episodes need an actor-critic`, where: runner })
          const net = ActorCritic.fromParams(w.sizes, w.params)
          stats.messages++
          return Stream.fromIterable(r.episodeIds).pipe(
            Stream.mapEffect((episodeId) =>
              Effect.try({
                try: () => Collect.collectEpisode({ runId: r.runId, runSeed: r.runSeed, envId: r.envId, episodeId, policy: r.policy, maxSteps: r.maxSteps }, net, runner),
                catch: (e) => new RolloutError({ runId: r.runId, id: episodeId, reason: reasonOf(e), where: runner })
              }).pipe(Effect.tap(() => Effect.yieldNow))
            )
          )
        })),
      groups: (r) =>
        Stream.unwrap(Effect.gen(function*() {
          yield* checkIds(r.runId, r.groupIds, "group")
          const w = yield* weights(r.runId, r.groupIds[0] ?? -1, r.policy)
          if (w.kind !== "drrn") return yield* new RolloutError({ runId: r.runId, id: r.groupIds[0] ?? -1, reason: `policy ${r.policy.hash} is a ${w.kind} policy; text groups need a DRRN policy`, where: runner })
          const p = DrrnPolicy.fromParams(w.config, w.params)
          stats.messages++
          return Stream.fromIterable(r.groupIds).pipe(
            Stream.mapEffect((groupId) =>
              Effect.try({
                try: () => Collect.collectGroup({ runId: r.runId, runSeed: r.runSeed, envId: r.envId, groupId, groupSize: r.groupSize, policy: r.policy, difficulty: r.difficulty, maxSteps: r.maxSteps }, p, runner),
                catch: (e) => new RolloutError({ runId: r.runId, id: groupId, reason: reasonOf(e), where: runner })
              }).pipe(Effect.tap(() => Effect.yieldNow))
            )
          )
        }))
    })
  })

/**
 * The sequential in-process layer: episodes collected in the calling thread, one after another, in request order.
 * @category layers
 */
export const layerInProcess: Layer.Layer<RolloutService> = Layer.effect(RolloutService, makeLocal())

// ---------------------------------------------------------------------------------------------------------------
// Thread-pool layer
// ---------------------------------------------------------------------------------------------------------------

/** Options of {@link layerThreads}. */
export interface ThreadsOptions {
  /** Worker threads (default `os.availableParallelism()`). */
  readonly workers?: number | undefined
  /** Episodes (or groups) in flight per worker (default 4). */
  readonly depth?: number | undefined
  /**
   * A worker with tasks in flight that sends no reply for this long (ms) is terminated and its tasks fail with
   * `RolloutError` (default 600 000, `Infinity` disables): an env stuck in a loop cannot hang a run.
   */
  readonly taskTimeoutMs?: number | undefined
  /** Test hook: every worker crashes (uncaught exception) when asked for this id. */
  readonly crashOn?: number | undefined
  /** Test hook: every worker loops forever when asked for this id. */
  readonly hangOn?: number | undefined
}

/** The thread-pool service plus its pool's counters (tests, benchmarks). */
export interface ThreadsService extends Readonly<RolloutService["Service"]> {
  /** Worker threads alive now (0 after the scope closed). */
  readonly liveWorkers: () => number
  /** Worker threads started so far (replacements of crashed ones included). */
  readonly startedWorkers: () => number
  readonly workers: number
}

/**
 * The thread-pool service, scoped: workers start on the first request and are terminated when the scope closes.
 * Published weights are kept encoded (what crosses to a worker, once per hash) and their kind is checked here, so
 * errors match {@link makeLocal}'s.
 */
export const makeThreads = (options: ThreadsOptions = {}): Effect.Effect<ThreadsService, RolloutError, Scope.Scope> =>
  Effect.gen(function*() {
    const pool = yield* ThreadPool.make(options)
    const policies = new Map<string, { readonly bytes: Uint8Array; readonly kind: Policy.Weights["kind"] }>()
    const stats: Stats = { messages: 0, retries: 0, duplicatesDropped: 0 }
    const where = "local"
    const held = (runId: string, id: number, ref: Policy.PolicyRef, kind: Policy.Weights["kind"], what: string) => {
      const p = policies.get(ref.hash)
      if (p === undefined) return Effect.fail(new RolloutError({ runId, id, reason: `policy ${ref.hash} was never published`, where }))
      if (p.kind !== kind) return Effect.fail(new RolloutError({ runId, id, reason: `policy ${ref.hash} is a ${p.kind} policy; ${what}`, where }))
      return Effect.succeed(p.bytes)
    }
    const concurrency = pool.workers * (options.depth ?? 4)
    const service: ThreadsService = {
      mode: "local",
      stats,
      workers: pool.workers,
      liveWorkers: pool.liveWorkers,
      startedWorkers: pool.started,
      publish: (runId, version, w) =>
        Effect.try({
          try: () => {
            const bytes = Policy.encode(w)
            const hash = Policy.hashOf(bytes)
            if (!policies.has(hash)) policies.set(hash, { bytes, kind: Policy.decode(bytes).kind })
            return { version, hash }
          },
          catch: (e) => new RolloutError({ runId, id: version, reason: reasonOf(e), where })
        }),
      episodes: (r) =>
        Stream.unwrap(Effect.gen(function*() {
          yield* checkIds(r.runId, r.episodeIds, "episode")
          const bytes = yield* held(r.runId, r.episodeIds[0] ?? -1, r.policy, "actor-critic", "episodes need an actor-critic")
          stats.messages++
          return Stream.fromIterable(r.episodeIds).pipe(
            Stream.mapEffect((episodeId) => pool.run("episode", { runId: r.runId, runSeed: r.runSeed, envId: r.envId, episodeId, policy: r.policy, maxSteps: r.maxSteps }, bytes), {
              concurrency,
              unordered: true
            }),
            exactlyOnce(r.runId, r.episodeIds, (e: Collect.Episode) => e.episodeId, stats)
          )
        })),
      groups: (r) =>
        Stream.unwrap(Effect.gen(function*() {
          yield* checkIds(r.runId, r.groupIds, "group")
          const bytes = yield* held(r.runId, r.groupIds[0] ?? -1, r.policy, "drrn", "text groups need a DRRN policy")
          stats.messages++
          return Stream.fromIterable(r.groupIds).pipe(
            Stream.mapEffect((groupId) =>
              pool.run("group", { runId: r.runId, runSeed: r.runSeed, envId: r.envId, groupId, groupSize: r.groupSize, policy: r.policy, difficulty: r.difficulty, maxSteps: r.maxSteps }, bytes), {
              concurrency,
              unordered: true
            }),
            exactlyOnce(r.runId, r.groupIds, (g: Collect.Group) => g.groupId, stats)
          )
        }))
    }
    return service
  })

/**
 * The thread-pool layer: rollouts on `workers` worker threads of this process (default `os.availableParallelism()`).
 * The layer's scope owns the pool (closing it terminates the workers); idle workers do not keep the process alive.
 * @category layers
 */
export const layerThreads = (options: ThreadsOptions = {}): Layer.Layer<RolloutService, RolloutError> =>
  Layer.effect(RolloutService, Effect.map(makeThreads(options), (svc) => RolloutService.of(svc)))

/**
 * The default layer, what users get without configuration: {@link layerThreads} with default options.
 * @category layers
 */
export const layerLocal: Layer.Layer<RolloutService, RolloutError> = layerThreads()

// ---------------------------------------------------------------------------------------------------------------
// Cluster layer
// ---------------------------------------------------------------------------------------------------------------

/**
 * Sharding settings shared by runners and trainers (they must agree on `shardsPerGroup`). Faster failure detection
 * than `effect/cluster`'s defaults (which suit long-lived services): assignments refresh every second, runner health
 * every 2 s, shard locks expire after 6 s.
 */
export const shardingDefaults: Partial<ShardingConfig.ShardingConfig["Service"]> = {
  shardsPerGroup: 64,
  refreshAssignmentsInterval: Duration.seconds(1),
  runnerHealthCheckInterval: Duration.seconds(2),
  entityMessagePollInterval: Duration.seconds(1),
  entityReplyPollInterval: Duration.millis(50),
  shardLockRefreshInterval: Duration.seconds(2),
  shardLockExpiration: Duration.seconds(6),
  sendRetryInterval: Duration.millis(100),
  entityRegistrationTimeout: Duration.seconds(60),
  entityTerminationTimeout: Duration.seconds(2)
}

/** The PostgreSQL client layer for a `postgres://` URL (a small pool: cluster polling plus rollout tables). */
export const layerSql = (url: string, maxConnections = 8) =>
  PgClient.layer({ url: Redacted.make(url), maxConnections, connectTimeout: Duration.seconds(5) })

/** Options of {@link layerCluster}. */
export interface ClusterOptions {
  readonly url: string
  readonly shardingConfig?: Partial<ShardingConfig.ShardingConfig["Service"]> | undefined
  /** Called with store availability changes (outages) while the layer is up. */
  readonly onAvailability?: ((a: RolloutStore.Availability) => void) | undefined
  /** Called when a send is retried (cluster storage or routing unavailable). */
  readonly onRetry?: ((reason: string) => void) | undefined
}

const isRetryable = (e: unknown): boolean =>
  typeof e === "object" && e !== null && "_tag" in e && ["PersistenceError", "MailboxFull", "EntityNotAssignedToRunner", "AlreadyProcessingMessage", "RpcClientError"].includes((e as { _tag: string })._tag)

/** The cluster service, given a `Sharding` (client-only or runner) and a `SqlClient`. */
export const makeCluster = (options: Pick<ClusterOptions, "onAvailability" | "onRetry"> = {}) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* RolloutStore.migrate(sql).pipe(Effect.mapError((e) => new ClusterStoreError({ location: "rollout tables", reason: reasonOf(e) })))
    if (options.onAvailability !== undefined) yield* RolloutStore.watch(sql, options.onAvailability)
    const clientFor = yield* Worker.RolloutWorker.client
    const stats: Stats = { messages: 0, retries: 0, duplicatesDropped: 0 }
    const send = <A, E>(runId: string, id: number, effect: Effect.Effect<A, E>): Effect.Effect<A, RolloutError> =>
      effect.pipe(
        Effect.tapError((e) =>
          Effect.sync(() => {
            if (!isRetryable(e)) return
            stats.retries++
            options.onRetry?.(reasonOf(e))
          })
        ),
        Effect.retry({ schedule: Schedule.spaced("250 millis"), times: 480, while: isRetryable }),
        Effect.mapError((e) => e instanceof RolloutError ? e : new RolloutError({ runId, id, reason: reasonOf(e), where: "trainer" }))
      )
    return RolloutService.of({
      mode: "cluster",
      stats,
      publish: (runId, version, w) =>
        Effect.gen(function*() {
          const bytes = yield* Effect.try({ try: () => Policy.encode(w), catch: (e) => new RolloutError({ runId, id: version, reason: reasonOf(e), where: "trainer" }) })
          const hash = yield* RolloutStore.putPolicy(sql, runId, version, bytes).pipe(
            Effect.retry(Worker.storageRetry),
            Effect.mapError((e) => new RolloutError({ runId, id: version, reason: `publishing policy: ${reasonOf(e)}`, where: "trainer" }))
          )
          return { version, hash }
        }),
      episodes: (r) =>
        Stream.unwrap(Effect.gen(function*() {
          yield* checkIds(r.runId, r.episodeIds, "episode")
          const messages = chunks(r.episodeIds, r.perMessage ?? 1)
          return Stream.fromIterable(messages).pipe(
            Stream.flatMap((ids) =>
              Stream.fromEffect(Effect.suspend(() => {
                stats.messages++
                return send(r.runId, ids[0]!, clientFor(`${r.runId}/episodes/${ids[0]}`).CollectEpisodes({
                  runId: r.runId,
                  runSeed: r.runSeed,
                  envId: r.envId,
                  policyVersion: r.policy.version,
                  policyHash: r.policy.hash,
                  episodeIds: ids,
                  ...(r.maxSteps === undefined ? {} : { maxSteps: r.maxSteps })
                }))
              })).pipe(Stream.flatMap((episodes) => Stream.fromIterable(episodes))), { concurrency: "unbounded" }),
            exactlyOnce(r.runId, r.episodeIds, (e: Collect.Episode) => e.episodeId, stats)
          )
        })),
      groups: (r) =>
        Stream.unwrap(Effect.gen(function*() {
          yield* checkIds(r.runId, r.groupIds, "group")
          const messages = chunks(r.groupIds, r.perMessage ?? 1)
          return Stream.fromIterable(messages).pipe(
            Stream.flatMap((ids) =>
              Stream.fromEffect(Effect.suspend(() => {
                stats.messages++
                return send(r.runId, ids[0]!, clientFor(`${r.runId}/groups/${ids[0]}`).CollectGroups({
                  runId: r.runId,
                  runSeed: r.runSeed,
                  envId: r.envId,
                  policyVersion: r.policy.version,
                  policyHash: r.policy.hash,
                  groupIds: ids,
                  groupSize: r.groupSize,
                  ...(r.difficulty === undefined ? {} : { difficulty: r.difficulty }),
                  ...(r.maxSteps === undefined ? {} : { maxSteps: r.maxSteps })
                }))
              })).pipe(Stream.flatMap((groups) => Stream.fromIterable(groups))), { concurrency: "unbounded" }),
            exactlyOnce(r.runId, r.groupIds, (g: Collect.Group) => g.groupId, stats)
          )
        }))
    })
  })

/**
 * The cluster layer for a trainer: a client-only member of the cluster stored in PostgreSQL at `url` (it hosts no
 * entities; runner processes do).
 * @category layers
 */
export const layerCluster = (options: ClusterOptions) =>
  Layer.effect(RolloutService, makeCluster(options)).pipe(
    Layer.provide(ClusterSocket.layer({ clientOnly: true, shardingConfig: { ...shardingDefaults, ...options.shardingConfig } })),
    Layer.provide(layerSql(options.url))
  )

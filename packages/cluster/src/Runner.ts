/**
 * A runner process: a member of the `effect/cluster` cluster stored in PostgreSQL that hosts rollout workers
 * ({@link Worker.RolloutWorker}) on the shards assigned to it, listening for other members on `host:port`.
 *
 * Start as many as you like, on as many machines as you like (`autodidact runner --cluster postgres://... --port P
 * --host H`, `H` being the address the other members reach it at); they share the shards between them and take
 * over the shards of a runner that disappears. A runner prints one line per event to stderr: `listening`,
 * collected batches, storage outages (`postgres: unavailable ...` / `postgres: available again after N s`) and
 * failures.
 *
 * @since 0.1.0
 */
import { Effect, Layer, Option } from "effect"
import { RunnerAddress, type ShardingConfig } from "effect/cluster"
import { SqlClient } from "effect/sql"
import { ClusterStoreError, reasonOf } from "./Errors.js"
import * as ClusterSocket from "./internal/ClusterSocket.js"
import * as RolloutService from "./RolloutService.js"
import * as RolloutStore from "./RolloutStore.js"
import * as Worker from "./Worker.js"

/** Options of a runner. */
export interface Options {
  /** `postgres://user:password@host:port/database` shared by every member. */
  readonly url: string
  /** Address the other members reach this runner at. Default `127.0.0.1`. */
  readonly host?: string | undefined
  /** Port to listen on. Default 34431 (`effect/cluster`'s default). */
  readonly port?: number | undefined
  readonly shardingConfig?: Partial<ShardingConfig.ShardingConfig["Service"]> | undefined
  /** Where event lines go. Default: stderr. */
  readonly log?: ((line: string) => void) | undefined
}

/** The line a runner prints for a worker event. */
export const formatEvent = (name: string, e: Worker.WorkerEvent): string => {
  switch (e._tag) {
    case "Collected":
      return `runner ${name}: collected ${e.kind} ${e.ids.length === 1 ? e.ids[0] : `${e.ids[0]}..${e.ids[e.ids.length - 1]}`} of ${e.runId} (${e.steps} steps, ${e.seconds.toFixed(3)} s, ${e.stored} new rows)`
    case "StorageRetry":
      return `runner ${name}: postgres: ${e.what} failed, retrying (${e.reason})`
    case "Failed":
      return `runner ${name}: FAILED ${e.runId} id ${e.id}: ${e.reason}`
  }
}

/**
 * The runner as a layer: PostgreSQL client, cluster membership (socket transport, SQL message and runner storage),
 * the rollout tables and the worker entity. Launch it with `Layer.launch`.
 */
export const layer = (options: Options) => {
  const host = options.host ?? "127.0.0.1"
  const port = options.port ?? 34431
  const name = `${host}:${port}`
  const log = options.log ?? ((line: string) => process.stderr.write(line + "\n"))
  const prepare = Layer.effectDiscard(Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* RolloutStore.migrate(sql).pipe(Effect.mapError((e) => new ClusterStoreError({ location: "rollout tables", reason: reasonOf(e) })))
    yield* RolloutStore.watch(sql, (a) =>
      log(a._tag === "Down"
        ? `runner ${name}: postgres: unavailable (${a.reason}); waiting`
        : `runner ${name}: postgres: available again after ${a.downSeconds.toFixed(1)} s; resuming`))
    log(`runner ${name}: listening (pid ${process.pid})`)
  }))
  const cluster = ClusterSocket.layer({
    shardingConfig: {
      ...RolloutService.shardingDefaults,
      runnerAddress: Option.some(RunnerAddress.make(host, port)),
      ...options.shardingConfig
    }
  })
  return Worker.layer(name, (e) => log(formatEvent(name, e))).pipe(
    Layer.provide(cluster),
    Layer.provideMerge(prepare),
    Layer.provide(RolloutService.layerSql(options.url))
  )
}

/**
 * Run a runner until interrupted (SIGINT/SIGTERM end it cleanly under `NodeRuntime.runMain`): migrate the rollout
 * tables, join the cluster stored at `options.url` listening on `host:port`, and host rollout workers on the shards
 * assigned to it. Fails with `ClusterStoreError` when PostgreSQL cannot be reached or prepared at start; later
 * outages are waited out and logged.
 * @see effect/cluster (NodeClusterSocket, SqlRunnerStorage): https://effect.website/docs
 * @since 0.1.0
 */
export const run = (options: Options) => Layer.launch(layer(options))

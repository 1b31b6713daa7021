/**
 * The socket transport of an `effect/cluster` member whose runners and messages are stored in SQL: the composition
 * that `@effect/platform-node`'s `NodeClusterSocket.layer({ storage: "sql" })` makes, built here from
 * `@effect/platform-node-shared` (socket client and server) and `effect`'s own cluster, RPC and crypto modules, so
 * that this package does not depend on `@effect/platform-node` (whose HTTP client brings `undici` 8, Node ≥ 22.19).
 *
 * - Server members (`clientOnly` false): `SocketRunner.layer` over the shared socket server and client protocol,
 *   with ping health checks (`RunnerHealth.layerPing`).
 * - Client-only members: `SocketRunner.layerClientOnly`, no health checks.
 * - Storage: `SqlMessageStorage` (its long primary keys hashed with SHA-256 through `Digest.layerWebCrypto`, i.e.
 *   `crypto.subtle`) and `SqlRunnerStorage`; both need an `SqlClient` in context.
 * - Serialization: `RpcSerialization.layerSchemaBinary`; sharding configuration from the environment over `shardingConfig`.
 * @internal
 */
import { layerClientProtocol, layerSocketServer } from "@effect/platform-node-shared/NodeClusterSocket"
import { Layer } from "effect"
import { RunnerHealth, Runners, ShardingConfig, SocketRunner, SqlMessageStorage, SqlRunnerStorage } from "effect/cluster"
import { Digest } from "effect/crypto"
import { RpcSerialization } from "effect/rpc"

/** Options: client-only membership and sharding configuration overrides. */
export interface Options {
  readonly clientOnly?: boolean | undefined
  readonly shardingConfig?: Partial<ShardingConfig.ShardingConfig["Service"]> | undefined
}

/** Storage, sharding configuration and serialization shared by both kinds of member (requires `SqlClient`). */
const common = <A, E, R>(options: Options, transport: Layer.Layer<A, E, R>) =>
  transport.pipe(
    Layer.provideMerge(SqlMessageStorage.layer.pipe(Layer.provide(Digest.layerWebCrypto))),
    Layer.provide(Layer.orDie(SqlRunnerStorage.layer)),
    Layer.provide(ShardingConfig.layerFromEnv(options.shardingConfig)),
    Layer.provide(RpcSerialization.layerSchemaBinary())
  )

/** The sharding layer of a socket cluster member stored in SQL (requires `SqlClient`). */
export const layer = (options: Options = {}) =>
  options.clientOnly === true
    ? common(options, Layer.provide(SocketRunner.layerClientOnly, layerClientProtocol))
    : common(
      options,
      Layer.provide(SocketRunner.layer, [layerSocketServer, layerClientProtocol]).pipe(
        Layer.provide(RunnerHealth.layerPing.pipe(Layer.provide(Runners.layerRpc), Layer.provide(layerClientProtocol)))
      )
    )

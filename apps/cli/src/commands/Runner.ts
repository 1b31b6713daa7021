/**
 * `autodidact runner --cluster postgres://... [--port P] [--host H]`: start a rollout runner, a member of the
 * `effect/cluster` cluster stored in that PostgreSQL database that hosts rollout workers for `train --cluster`.
 * Runs until interrupted (Ctrl-C, SIGTERM); prints one line per event to stderr (listening, collected batches,
 * storage outages, failures).
 * @since 0.1.0
 */
import { Runner } from "@autodidact/cluster"
import { Effect, Schema } from "effect"
import { Command, Flag } from "effect/cli"

/** A runner option that cannot be used as given. */
export class RunnerConfigError extends Schema.TaggedError<RunnerConfigError>()("RunnerConfigError", {
  option: Schema.String,
  value: Schema.Unknown,
  reason: Schema.String
}) {
  override get message() {
    return `--${this.option} ${JSON.stringify(this.value)}: ${this.reason}`
  }
}

/** Check a `postgres://` URL (the cluster's storage). */
export const checkClusterUrl = (option: string, url: string): Effect.Effect<string, RunnerConfigError> =>
  Effect.suspend(() => {
    let parsed: URL
    try {
      parsed = new URL(url)
    } catch {
      return Effect.fail(new RunnerConfigError({ option, value: url, reason: "is not a URL (expected postgres://user@host:port/database)" }))
    }
    if (parsed.protocol !== "postgres:" && parsed.protocol !== "postgresql:") {
      return Effect.fail(new RunnerConfigError({ option, value: url, reason: "must be a postgres:// URL" }))
    }
    return Effect.succeed(url)
  })

/** `autodidact runner` */
export const runnerCommand = Command.make(
  "runner",
  {
    cluster: Flag.String("cluster").pipe(Flag.withDescription("PostgreSQL URL of the cluster (postgres://user@host:port/database)")),
    port: Flag.Int("port").pipe(Flag.withDefault(34431), Flag.withDescription("Port to listen on for other cluster members")),
    host: Flag.String("host").pipe(Flag.withDefault("127.0.0.1"), Flag.withDescription("Address other members reach this runner at"))
  },
  (config) =>
    Effect.gen(function*() {
      const url = yield* checkClusterUrl("cluster", config.cluster)
      if (!Number.isInteger(config.port) || config.port < 1 || config.port > 65535) {
        return yield* new RunnerConfigError({ option: "port", value: config.port, reason: "must be an integer in [1, 65535]" })
      }
      return yield* Runner.run({ url, port: config.port, host: config.host })
    })
).pipe(Command.withDescription("Start a rollout runner for `train --cluster` (distributed rollouts on PostgreSQL)"))

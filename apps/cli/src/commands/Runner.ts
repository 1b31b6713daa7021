/**
 * `autodidact runner --cluster postgres://... [--port P] [--host H]`: start a rollout runner, a member of the
 * `effect/cluster` cluster stored in that PostgreSQL database that hosts rollout workers for `train --cluster`.
 * Runs until interrupted (Ctrl-C, SIGTERM); prints one line per event to stderr (listening, collected batches,
 * storage outages, failures).
 * @since 0.1.0
 */
import { Runner } from "@autodidact/cluster"
import { Effect, Schema } from "effect"
import type { Configs } from "../Commands.js"

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
/** `autodidact runner` */
export const handleRunner = (config: Configs["runner"]): Effect.Effect<void, unknown> =>
    Effect.gen(function*() {
      const url = yield* checkClusterUrl("cluster", config.cluster)
      if (!Number.isInteger(config.port) || config.port < 1 || config.port > 65535) {
        return yield* new RunnerConfigError({ option: "port", value: config.port, reason: "must be an integer in [1, 65535]" })
      }
      return yield* Runner.run({ url, port: config.port, host: config.host })
    })

/**
 * `autodidact serve-env --env TextHousehold-v0 [--port 36001] [--host 127.0.0.1] [--idle-ttl 600]`: serve a text
 * environment over HTTP with the AgentGym environment-server protocol (see `@autodidact/llm` `EnvServer`), until
 * Ctrl-C.
 * @since 0.1.0
 */
import { EnvServer } from "@autodidact/llm"
import { Duration, Effect } from "effect"
import type { Configs } from "../Commands.js"

/** `autodidact serve-env` */
/** `autodidact serve-env` */
export const handleServeEnv = (config: Configs["serve-env"]): Effect.Effect<void, unknown> =>
    Effect.gen(function* () {
      const s = yield* EnvServer.start({
        envId: config.env,
        port: config.port,
        host: config.host,
        idleTtl: Duration.millis(config.idleTtl * 1000),
        maxSessions: config.maxSessions
      })
      process.stdout.write(`${config.env} on ${s.url} (AgentGym protocol: /create /reset /step /observation /available_actions /close; Ctrl-C to stop)\n`)
      return yield* Effect.never
    }).pipe(Effect.scoped)

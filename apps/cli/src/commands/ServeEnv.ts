/**
 * `autodidact serve-env --env TextHousehold-v0 [--port 36001] [--host 127.0.0.1] [--idle-ttl 600]`: serve a text
 * environment over HTTP with the AgentGym environment-server protocol (see `@autodidact/llm` `EnvServer`), until
 * Ctrl-C.
 * @since 0.1.0
 */
import { EnvServer } from "@autodidact/llm"
import { Duration, Effect } from "effect"
import { Command, Flag } from "effect/cli"

/** `autodidact serve-env` */
export const serveEnvCommand = Command.make(
  "serve-env",
  {
    env: Flag.String("env").pipe(Flag.withDescription("Registered text environment id, e.g. TextHousehold-v0, TextFrozenLake-v1, Sokoban-6x6-1box-v0")),
    port: Flag.Int("port").pipe(Flag.withDefault(36001), Flag.withDescription("Port to listen on (0: any free port)")),
    host: Flag.String("host").pipe(Flag.withDefault("127.0.0.1"), Flag.withDescription("Address to bind (no authentication: keep it on loopback unless you mean it)")),
    idleTtl: Flag.Finite("idle-ttl").pipe(Flag.withDefault(600), Flag.withDescription("Seconds without a request after which a session is closed")),
    maxSessions: Flag.Int("max-sessions").pipe(Flag.withDefault(1024), Flag.withDescription("Most sessions alive at once"))
  },
  (config) =>
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
).pipe(Command.withDescription("Serve a text environment over HTTP with the AgentGym environment-server protocol"))

/**
 * `autodidact gateway --upstream URL [--port 4000] [--store DIR|pglite:DIR|postgres://...] [--host 127.0.0.1]`:
 * serve the OpenAI chat-completions API, forward to the upstream model server and record every exchange (see
 * `@autodidact/llm` `Gateway`), until Ctrl-C.
 * @since 0.1.0
 */
import { Gateway, Recorder } from "@autodidact/llm"
import { Effect, Layer } from "effect"
import { Command, Flag } from "effect/cli"
import { FetchHttpClient } from "effect/http"

/** `autodidact gateway` */
export const gatewayCommand = Command.make(
  "gateway",
  {
    upstream: Flag.String("upstream").pipe(Flag.withDescription("Upstream OpenAI-compatible API root, e.g. http://127.0.0.1:8080/v1")),
    port: Flag.Int("port").pipe(Flag.withDefault(4000), Flag.withDescription("Port to listen on (0: any free port)")),
    store: Flag.String("store").pipe(
      Flag.withDefault("gateway-data"),
      Flag.withDescription("Where to record: a directory (JSONL per session), pglite:DIR (experience store on PGlite) or postgres://... (experience store on PostgreSQL)")
    ),
    host: Flag.String("host").pipe(Flag.withDefault("127.0.0.1"), Flag.withDescription("Address to bind (no authentication: keep it on loopback unless you mean it)")),
    upstreamApiKey: Flag.String("upstream-api-key").pipe(Flag.optional, Flag.withDescription("Replace the client's API key toward the upstream")),
    maxBodyBytes: Flag.Int("max-body-bytes").pipe(Flag.withDefault(8 * 1024 * 1024), Flag.withDescription("Largest accepted request body (413 above)"))
  },
  (config) =>
    Effect.gen(function* () {
      const gw = yield* Gateway.start({
        upstream: config.upstream,
        port: config.port,
        host: config.host,
        maxBodyBytes: config.maxBodyBytes,
        ...(config.upstreamApiKey._tag === "Some" ? { upstreamApiKey: config.upstreamApiKey.value } : {})
      })
      const recorder = yield* Recorder.Recorder
      process.stdout.write(`Gateway on ${gw.url}/v1 -> ${config.upstream}, recording to ${recorder.location} (Ctrl-C to stop)\n`)
      return yield* Effect.never
    }).pipe(Effect.scoped, Effect.provide(Layer.mergeAll(Recorder.layerFromTarget(config.store), FetchHttpClient.layer)))
).pipe(Command.withDescription("Serve an OpenAI-compatible gateway that records every exchange as training data"))

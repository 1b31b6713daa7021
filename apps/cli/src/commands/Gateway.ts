/**
 * `autodidact gateway --upstream URL [--port 4000] [--store DIR|pglite:DIR|postgres://...] [--host 127.0.0.1]`:
 * serve the OpenAI chat-completions API, forward to the upstream model server and record every exchange (see
 * `@autodidact/llm` `Gateway`), until Ctrl-C.
 * @since 0.1.0
 */
import { Gateway, Recorder } from "@autodidact/llm"
import { Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import type { Configs } from "../Commands.js"

/** `autodidact gateway` */
/** `autodidact gateway` */
export const handleGateway = (config: Configs["gateway"]): Effect.Effect<void, unknown> =>
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

/**
 * An `effect/ai` `LanguageModel` for any OpenAI-compatible `/v1/chat/completions` endpoint: vLLM, llama.cpp's
 * `llama-server`, Ollama, LM Studio, SGLang and hosted APIs, over effect's `HttpClient` (no provider package).
 *
 * **When to use**
 * Whenever an Autodidact component (the LLM policy, the training-free optimizers, a judge) needs a model: provide
 * {@link layer} (or {@link layerFetch}) and use `LanguageModel.generateText` / `streamText` from `effect/ai`.
 *
 * **Details**
 * - Configuration ({@link Options}, resolved by {@link resolveConfig}): `baseUrl` (the API root, `.../v1`), `model`
 *   and `apiKey`, each from the options or else the environment: `AUTODIDACT_LLM_BASE_URL`, `AUTODIDACT_LLM_MODEL`,
 *   `AUTODIDACT_LLM_API_KEY`, then `OPENAI_API_KEY`. A key is required unless the base URL is on loopback
 *   (`localhost`, `127.0.0.0/8`, `::1`), where local servers need none; a missing one fails with `LlmConfigError`.
 * - Request: `POST {baseUrl}/chat/completions`, `Authorization: Bearer {apiKey}`. The prompt's messages map to chat
 *   messages (system; user text and image files; assistant text and `tool_calls`; tool results as `role: "tool"`
 *   messages, the result JSON-encoded unless it is a string). User-defined and dynamic `Tool`s of a `Toolkit` are
 *   sent as `{ type: "function", function: { name, description, parameters } }` with the tool choice (`auto`,
 *   `none`, `required`, one named tool; `oneOf` is sent as `auto`/`required` with the subset of tools). A JSON
 *   response format (`generateObject`) is sent as `response_format: { type: "json_schema", ... }`.
 * - Sampling ({@link Sampling}): `temperature`, `top_p`, `max_tokens`, `seed`, `stop`, `logprobs`/`top_logprobs`,
 *   `presence_penalty`, `frequency_penalty`, set per layer in the options and per call with {@link withSampling}.
 * - Response: `response-metadata` (id, model, time), `reasoning` (`reasoning_content` of vLLM/llama.cpp reasoning
 *   models), `text`, `tool-call` (arguments parsed as JSON; invalid JSON fails with `AiError` reason
 *   `InvalidOutputError` naming the text), and `finish` with the usage (`prompt_tokens`, `completion_tokens`,
 *   cached and reasoning tokens) and, when the server returned them, the log-probabilities and token ids in
 *   `metadata.openaiCompat` (`{ logprobs, promptTokenIds, tokenIds }`; vLLM returns token ids with
 *   `return_token_ids`, see {@link Sampling.extraBody}).
 * - Streaming: `stream: true` with `stream_options.include_usage`; the server-sent events are parsed incrementally
 *   (`Sse`) into `text-start/-delta/-end`, `reasoning-*`, `tool-params-start/-delta/-end` then `tool-call`, and a
 *   final `finish`.
 * - Errors (all `AiError`): HTTP 400/401/403/429/5xx map through `AiError.reasonFromHttpStatus` with the status and
 *   the first 1000 characters of the body; an unreachable server or a request past `timeout` (default 60 s, up to
 *   the response headers) is `NetworkError` (`TransportError`); a body that is not the chat-completions JSON is
 *   `InvalidResponseError`. Retryable ones (429, 5xx, transport and timeout) are retried `retries` times (default 3)
 *   with exponential backoff from `retryBase` (default 200 ms); a stream is retried only until its first byte.
 *
 * **Modules** (one concept each, all re-exported here): configuration and sampling
 * (`internal/OpenAiCompatConfig.ts`), request encoding (`internal/OpenAiCompatRequest.ts`), response and SSE decoding
 * (`internal/OpenAiCompatResponse.ts`), and the `LanguageModel` layer (this file).
 *
 * **Gotchas**
 * Use {@link layerFetch} or provide `NodeHttpClient.layerNodeHttp`; on Node 20 never `NodeHttpClient.layerUndici`.
 * `@effect/ai-openai-compat` targets an older effect and does not load on effect 4.1, hence this module.
 *
 * @example
 * ```ts
 * import { OpenAiCompat } from "@autodidact/llm"
 * import { Effect } from "effect"
 * import { LanguageModel } from "effect/ai"
 *
 * const program = LanguageModel.generateText({ prompt: "Say hi" }).pipe(
 *   OpenAiCompat.withSampling({ temperature: 0, maxTokens: 16 }),
 *   Effect.provide(OpenAiCompat.layerFetch({ baseUrl: "http://127.0.0.1:8080/v1", model: "qwen2.5-1.5b-instruct" }))
 * )
 * // Effect.runPromise(program).then((r) => console.log(r.text, r.usage))
 * ```
 * @see https://platform.openai.com/docs/api-reference/chat/create
 * @since 0.1.0
 */
import { Duration, Effect, Layer, Schedule, Stream } from "effect"
import { AiError, LanguageModel, Response } from "effect/ai"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import * as LlmPolicy from "./LlmPolicy.js"
import { LlmConfigError } from "./LlmErrors.js"
import * as Sse from "./internal/Sse.js"
import { type Config, CurrentSampling, type Options, resolveConfig, type Sampling } from "./internal/OpenAiCompatConfig.js"
import { requestBody } from "./internal/OpenAiCompatRequest.js"
import { decodeCompletion, invalidResponse, StreamDecoder } from "./internal/OpenAiCompatResponse.js"

export { type Config, CurrentSampling, isLoopbackHost, isLoopbackUrl, type Options, resolveConfig, type Sampling, withSampling, withSamplingStream } from "./internal/OpenAiCompatConfig.js"
export { type ChatMessage, requestBody, toChatMessages, type WireToolCall } from "./internal/OpenAiCompatRequest.js"
export { decodeCompletion, finishReason, StreamDecoder, usageOf } from "./internal/OpenAiCompatResponse.js"

// ---------------------------------------------------------------------------------------------------------------
// The model
// ---------------------------------------------------------------------------------------------------------------

const httpError = (method: string, status: number, body: string): AiError.AiError =>
  AiError.make({
    module: "OpenAiCompat",
    method,
    reason: AiError.reasonFromHttpStatus({
      status,
      http: { response: { status, headers: {} }, body: body.slice(0, 1000) },
      description: `upstream answered HTTP ${status}: ${body.slice(0, 300)}`
    })
  })

const transportError = (method: string, url: string, description: string): AiError.AiError =>
  AiError.make({ module: "OpenAiCompat", method, reason: new AiError.NetworkError({ reason: "TransportError", method: "POST", url, description }) })

/**
 * The `LanguageModel` service for a resolved configuration, over the `HttpClient` in the context.
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeWith = (config: Config): Effect.Effect<LanguageModel.LanguageModel, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const url = `${config.baseUrl}/chat/completions`
    const schedule = Schedule.exponential(config.retryBase)
    const timeoutText = Duration.format(config.timeout)

    const open = (method: string, body: unknown) => {
      let request = HttpClientRequest.post(url).pipe(
        HttpClientRequest.setHeaders(config.headers),
        HttpClientRequest.bodyJsonUnsafe(body)
      )
      if (config.apiKey !== undefined) request = HttpClientRequest.bearerToken(request, config.apiKey)
      return client.execute(request).pipe(
        Effect.timeoutOrElse({ duration: config.timeout, orElse: () => Effect.fail(transportError(method, url, `no response within ${timeoutText}`)) }),
        Effect.catchTag("HttpClientError", (e) => Effect.fail(transportError(method, url, e.message))),
        Effect.flatMap((res) =>
          res.status >= 200 && res.status < 300
            ? Effect.succeed(res)
            : res.text.pipe(
              Effect.orElseSucceed(() => ""),
              Effect.flatMap((text) => Effect.fail(httpError(method, res.status, text)))
            )
        )
      )
    }

    // Precedence: the layer's config < the temperature an `LlmPolicy` or optimizer sets for the call
    // (`LlmPolicy.Temperature`) < `withSampling`.
    const sampling = Effect.gen(function*() {
      const s = yield* CurrentSampling
      const temperature = yield* LlmPolicy.Temperature
      return { ...config.sampling, ...(temperature === undefined ? {} : { temperature }), ...s } as Sampling
    })

    const generateText = (options: LanguageModel.ProviderOptions) =>
      Effect.gen(function*() {
        const body = requestBody(config.model, options, yield* sampling, false)
        const text = yield* open("generateText", body).pipe(
          Effect.flatMap((res) =>
            res.text.pipe(
              Effect.timeoutOrElse({ duration: config.timeout, orElse: () => Effect.fail(transportError("generateText", url, `body not received within ${timeoutText}`)) }),
              Effect.catchTag("HttpClientError", (e) => Effect.fail(transportError("generateText", url, e.message)))
            )
          ),
          Effect.retry({ schedule, times: config.retries, while: (e) => e.isRetryable })
        )
        let json: unknown
        try {
          json = JSON.parse(text)
        } catch {
          return yield* invalidResponse("generateText", `the response body is not JSON: ${text.slice(0, 200)}`, text)
        }
        return yield* decodeCompletion(json, text)
      })

    const streamText = (options: LanguageModel.ProviderOptions) =>
      Stream.unwrap(Effect.gen(function*() {
        const body = requestBody(config.model, options, yield* sampling, true)
        const res = yield* open("streamText", body).pipe(Effect.retry({ schedule, times: config.retries, while: (e) => e.isRetryable }))
        const parser = new Sse.Parser()
        const decoder = new StreamDecoder()
        const events = res.stream.pipe(
          Stream.mapError((e) => transportError("streamText", url, `the stream broke: ${e.message}`)),
          Stream.decodeText,
          Stream.map((text) => parser.push(text)),
          Stream.concat(Stream.sync(() => parser.end())),
          Stream.flattenIterable
        )
        let done = false
        return events.pipe(
          Stream.mapEffect((e): Effect.Effect<Array<Response.StreamPartEncoded>, AiError.AiError> => {
            if (done) return Effect.succeed([])
            if (Sse.isDone(e)) {
              done = true
              return decoder.end()
            }
            let json: unknown
            try {
              json = JSON.parse(e.data)
            } catch {
              return Effect.fail(invalidResponse("streamText", `a stream event is not JSON: ${e.data.slice(0, 200)}`))
            }
            return decoder.chunk(json)
          }),
          Stream.concat(Stream.fromEffect(Effect.suspend(() => decoder.end()))),
          Stream.flattenIterable
        )
      }))

    return yield* LanguageModel.make({ generateText, streamText })
  })

/**
 * The `LanguageModel` service from options and environment, over the `HttpClient` in the context.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (options: Options = {}): Effect.Effect<LanguageModel.LanguageModel, LlmConfigError, HttpClient.HttpClient> =>
  Effect.flatMap(resolveConfig(options), makeWith)

/**
 * The model as the `LanguageModel` service, over the `HttpClient` in the context.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options: Options = {}): Layer.Layer<LanguageModel.LanguageModel, LlmConfigError, HttpClient.HttpClient> =>
  Layer.effect(LanguageModel.LanguageModel, make(options))

/**
 * The model over `FetchHttpClient` (safe on Node 20).
 *
 * @category layers
 * @since 0.1.0
 */
export const layerFetch = (options: Options = {}): Layer.Layer<LanguageModel.LanguageModel, LlmConfigError> =>
  Layer.provide(layer(options), FetchHttpClient.layer)

/**
 * Configuration of the OpenAI-compatible model: endpoint, model and key (from the options or the environment, a key
 * required off loopback), sampling parameters per layer and per call ({@link withSampling}), and their checks.
 * Re-exported by the public {@link OpenAiCompat} namespace.
 * @internal
 * @since 0.2.0
 */
import { Context, Duration, Effect, Stream } from "effect"
import { LlmConfigError } from "../LlmErrors.js"

/**
 * Sampling parameters (OpenAI names in comments). Unset ones are not sent, so the server's defaults apply.
 *
 * @category models
 * @since 0.1.0
 */
export interface Sampling {
  /** `temperature` */
  readonly temperature?: number | undefined
  /** `top_p` */
  readonly topP?: number | undefined
  /** `max_tokens` */
  readonly maxTokens?: number | undefined
  /** `seed` (vLLM and llama.cpp honour it per request) */
  readonly seed?: number | undefined
  /** `stop` */
  readonly stop?: ReadonlyArray<string> | undefined
  /** `logprobs` */
  readonly logprobs?: boolean | undefined
  /** `top_logprobs` */
  readonly topLogprobs?: number | undefined
  /** `presence_penalty` */
  readonly presencePenalty?: number | undefined
  /** `frequency_penalty` */
  readonly frequencyPenalty?: number | undefined
  /** Extra JSON fields merged into the request body (e.g. `{ return_token_ids: true }` for vLLM, `{ top_k: 20 }`). */
  readonly extraBody?: { readonly [key: string]: unknown } | undefined
}

/**
 * Options of the model layer.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options extends Sampling {
  /** API root, e.g. `http://127.0.0.1:8000/v1` (default `AUTODIDACT_LLM_BASE_URL`). */
  readonly baseUrl?: string | undefined
  /** Model name sent in the body (default `AUTODIDACT_LLM_MODEL`). */
  readonly model?: string | undefined
  /** Bearer token (default `AUTODIDACT_LLM_API_KEY`, then `OPENAI_API_KEY`). */
  readonly apiKey?: string | undefined
  /** Time limit of one request up to its response headers (default 60 seconds). */
  readonly timeout?: Duration.Input | undefined
  /** Retries of a retryable failure (default 3). */
  readonly retries?: number | undefined
  /** First backoff delay, doubled on each retry (default 200 millis). */
  readonly retryBase?: Duration.Input | undefined
  /** Extra request headers. */
  readonly headers?: { readonly [key: string]: string } | undefined
  /** The environment to read the defaults from (default `process.env`). */
  readonly env?: { readonly [key: string]: string | undefined } | undefined
}

/**
 * A resolved configuration.
 *
 * @category models
 * @since 0.1.0
 */
export interface Config {
  readonly baseUrl: string
  readonly model: string
  readonly apiKey: string | undefined
  readonly timeout: Duration.Duration
  readonly retries: number
  readonly retryBase: Duration.Duration
  readonly headers: { readonly [key: string]: string }
  readonly sampling: Sampling
}

/**
 * Whether a URL's host is a loopback address (`localhost`, `127.0.0.0/8`, `::1`).
 *
 * @category config
 * @since 0.1.0
 */
export const isLoopbackUrl = (url: string): boolean => {
  try {
    return isLoopbackHost(new URL(url).hostname)
  } catch {
    return false
  }
}

/**
 * Whether a host name or address is loopback.
 *
 * @category config
 * @since 0.1.0
 */
export const isLoopbackHost = (host: string): boolean => {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase()
  return h === "localhost" || h.endsWith(".localhost") || h === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || h === "::ffff:127.0.0.1"
}

/**
 * Resolve options and environment into a {@link Config}, failing with `LlmConfigError` on a missing or malformed
 * base URL or model, a missing API key for a non-loopback URL, or an out-of-range number.
 *
 * @category config
 * @since 0.1.0
 */
export const resolveConfig = (options: Options = {}): Effect.Effect<Config, LlmConfigError> =>
  Effect.gen(function*() {
    const env = options.env ?? process.env
    const baseUrl = (options.baseUrl ?? env["AUTODIDACT_LLM_BASE_URL"])?.trim()
    if (baseUrl === undefined || baseUrl === "") {
      return yield* new LlmConfigError({ option: "baseUrl", value: baseUrl ?? null, reason: "no base URL: pass baseUrl or set AUTODIDACT_LLM_BASE_URL (e.g. http://127.0.0.1:8080/v1)" })
    }
    let parsed: URL
    try {
      parsed = new URL(baseUrl)
    } catch {
      return yield* new LlmConfigError({ option: "baseUrl", value: baseUrl, reason: "not a URL" })
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
      return yield* new LlmConfigError({ option: "baseUrl", value: baseUrl, reason: "must be http or https" })
    }
    const model = options.model ?? env["AUTODIDACT_LLM_MODEL"]
    if (model === undefined || model.trim() === "") {
      return yield* new LlmConfigError({ option: "model", value: model ?? null, reason: "no model: pass model or set AUTODIDACT_LLM_MODEL" })
    }
    const apiKey = options.apiKey ?? env["AUTODIDACT_LLM_API_KEY"] ?? env["OPENAI_API_KEY"]
    if ((apiKey === undefined || apiKey === "") && !isLoopbackHost(parsed.hostname)) {
      return yield* new LlmConfigError({
        option: "apiKey",
        value: null,
        reason: `missing API key for the non-loopback ${parsed.host}: pass apiKey or set AUTODIDACT_LLM_API_KEY or OPENAI_API_KEY`
      })
    }
    const timeout = Duration.fromInputUnsafe(options.timeout ?? Duration.seconds(60))
    if (!(Duration.toMillis(timeout) > 0)) return yield* new LlmConfigError({ option: "timeout", value: Duration.format(timeout), reason: "must be positive" })
    const retries = options.retries ?? 3
    if (!Number.isSafeInteger(retries) || retries < 0) return yield* new LlmConfigError({ option: "retries", value: retries, reason: "must be a non-negative integer" })
    const { baseUrl: _b, model: _m, apiKey: _k, timeout: _t, retries: _r, retryBase, headers, env: _e, ...sampling } = options
    const bad = checkSampling(sampling)
    if (bad !== undefined) return yield* bad
    return {
      baseUrl: baseUrl.replace(/\/+$/, ""),
      model,
      apiKey: apiKey === "" ? undefined : apiKey,
      timeout,
      retries,
      retryBase: Duration.fromInputUnsafe(retryBase ?? Duration.millis(200)),
      headers: headers ?? {},
      sampling
    }
  })

const checkSampling = (s: Sampling): LlmConfigError | undefined => {
  const num = (name: string, v: number | undefined, ok: (x: number) => boolean, reason: string) =>
    v !== undefined && !(Number.isFinite(v) && ok(v)) ? new LlmConfigError({ option: name, value: v, reason }) : undefined
  return num("temperature", s.temperature, (x) => x >= 0, "must be a finite number >= 0") ??
    num("topP", s.topP, (x) => x > 0 && x <= 1, "must be in (0, 1]") ??
    num("maxTokens", s.maxTokens, (x) => Number.isSafeInteger(x) && x > 0, "must be a positive integer") ??
    num("seed", s.seed, Number.isSafeInteger, "must be an integer") ??
    num("topLogprobs", s.topLogprobs, (x) => Number.isSafeInteger(x) && x >= 0 && x <= 20, "must be an integer in [0, 20]")
}

/**
 * Per-call sampling parameters, merged over the layer's (see {@link withSampling}).
 *
 * @category services
 * @since 0.1.0
 */
export const CurrentSampling = Context.Reference<Sampling>("@autodidact/llm/OpenAiCompat/CurrentSampling", { defaultValue: () => ({}) })

/**
 * Run an effect (`LanguageModel.generateText`, `generateObject`) with sampling parameters merged over the current
 * ones.
 *
 * @category combinators
 * @since 0.1.0
 */
export const withSampling = (sampling: Sampling) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.gen(function*() {
    const current = yield* CurrentSampling
    return yield* Effect.provideService(self, CurrentSampling, { ...current, ...sampling })
  })

/**
 * Run a stream (`LanguageModel.streamText`) with sampling parameters merged over the current ones.
 *
 * @category combinators
 * @since 0.1.0
 */
export const withSamplingStream = (sampling: Sampling) => <A, E, R>(self: Stream.Stream<A, E, R>): Stream.Stream<A, E, R> =>
  Stream.unwrap(Effect.gen(function*() {
    const current = yield* CurrentSampling
    return Stream.provideService(self, CurrentSampling, { ...current, ...sampling })
  }))

/**
 * Text embedders for the experience store: a deterministic local hashed-feature embedder (the default; no network,
 * no model file) and a client for OpenAI-compatible `/embeddings` endpoints.
 *
 * **Details**
 *
 * `layerHashed` maps a text to features (lower-cased word unigrams and bigrams, and character trigrams of each word
 * with `^`/`$` boundary marks), hashes each feature with 32-bit FNV-1a into one of `dimension` buckets with a sign
 * taken from another hash bit (the signed hashing trick, Weinberger et al. 2009), weights each by sublinear term
 * frequency `1 + ln(tf)` (TF-IDF without a corpus IDF), and L2-normalizes. Texts that share words or word pieces get
 * a positive cosine; it is lexical, not semantic.
 *
 * A local ONNX sentence-embedding model is `OnnxEmbedder.layerOnnx`, in its own entry point `@autodidact/memory/onnx`
 * (it needs ONNX Runtime and `@huggingface/tokenizers`, optional peers); this module loads neither and has no Node
 * built-in. The service class itself is declared in `EmbedderService.ts` (re-exported here).
 *
 * @since 0.1.0
 */
import { Effect, Layer, Schema } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { Embedder } from "./EmbedderService.js"
import { EmbedderError } from "../store/StoreErrors.js"

export { Embedder } from "./EmbedderService.js"

const FNV_OFFSET = 0x811c9dc5
const FNV_PRIME = 0x01000193

/** 32-bit FNV-1a (Fowler–Noll–Vo) of a string's UTF-16 code units (each unit fed as two bytes, low first), an unsigned integer; `seed` replaces the offset basis. */
export const fnv1a = (s: string, seed = FNV_OFFSET): number => {
  let h = seed
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    h ^= c & 0xff
    h = Math.imul(h, FNV_PRIME)
    h ^= c >>> 8
    h = Math.imul(h, FNV_PRIME)
  }
  return h >>> 0
}

/**
 * The words of a text: lower-cased, NFKC-normalized runs of Unicode letters and digits, in order (the tokens of
 * the hashed embedder and of the store's full-text query).
 *
 * @category features
 * @since 0.1.0
 */
export const wordsOf = (text: string): Array<string> =>
  text.toLowerCase().normalize("NFKC").split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 0)

/** The features `hashedEmbedding` counts, in order: for each lower-cased NFKC word `w:<word>`, `b:<word> <next>`, and its character trigrams `c:<tri>` of `^word$`. */
export const features = (text: string): Array<string> => {
  const words = wordsOf(text)
  const out: Array<string> = []
  for (let i = 0; i < words.length; i++) {
    const w = words[i]
    out.push(`w:${w}`)
    if (i + 1 < words.length) out.push(`b:${w} ${words[i + 1]}`)
    const padded = `^${w}$`
    for (let j = 0; j + 3 <= padded.length; j++) out.push(`c:${padded.slice(j, j + 3)}`)
  }
  return out
}

/**
 * The hashed-feature embedding of one text (see the module docs); a text without words maps to the zero vector.
 *
 * @category constructors
 * @since 0.1.0
 */
export const hashedEmbedding = (text: string, dimension: number): Float32Array => {
  const counts = new Map<string, number>()
  for (const f of features(text)) counts.set(f, (counts.get(f) ?? 0) + 1)
  const v = new Float64Array(dimension)
  for (const [f, tf] of counts) {
    const h = fnv1a(f)
    const sign = (fnv1a(f, 0x9747b28c) & 1) === 0 ? 1 : -1
    // Character trigrams are many and individually weak: weigh them at half a word.
    const w = (f.startsWith("c:") ? 0.5 : 1) * (1 + Math.log(tf))
    v[h % dimension] += sign * w
  }
  let norm = 0
  for (let i = 0; i < dimension; i++) norm += v[i] * v[i]
  norm = Math.sqrt(norm)
  const out = new Float32Array(dimension)
  if (norm > 0) for (let i = 0; i < dimension; i++) out[i] = v[i] / norm
  return out
}

/**
 * The local hashed-feature embedder (default dimension 256). Deterministic across runs and machines.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Embedder } from "@autodidact/memory"
 *
 * const vectors = Effect.gen(function*() {
 *   const embedder = yield* Embedder.Embedder
 *   return yield* embedder.embed(["open the door"])
 * }).pipe(Effect.provide(Embedder.layerHashed()))
 * ```
 * @category layers
 * @since 0.1.0
 */
export const layerHashed = (options: { readonly dimension?: number } = {}): Layer.Layer<Embedder> => {
  const dimension = options.dimension ?? 256
  if (!Number.isInteger(dimension) || dimension < 1 || dimension > 16000) {
    throw new RangeError(`Embedder.layerHashed: dimension ${dimension} must be an integer in [1, 16000]`)
  }
  return Layer.succeed(Embedder, {
    dimension,
    model: `hashed-ngram-v1-${dimension}`,
    embed: (texts) => Effect.sync(() => texts.map((t) => hashedEmbedding(t, dimension)))
  })
}

const EmbeddingsResponse = Schema.Struct({
  data: Schema.Array(Schema.Struct({ embedding: Schema.Array(Schema.Number), index: Schema.optional(Schema.Number) }))
})

/**
 * Options of {@link layerOpenAi}.
 *
 * @category models
 * @since 0.1.0
 */
export interface OpenAiOptions {
  /** Base URL up to and excluding `/embeddings`, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:8080/v1`. */
  readonly baseUrl: string
  readonly model: string
  /** Length of the vectors the model returns (sent as `dimensions` when `sendDimensions` is true). */
  readonly dimension: number
  readonly apiKey?: string | undefined
  /** Texts per request (default 64). */
  readonly batchSize?: number | undefined
  /** Send `dimensions` in the request (models with Matryoshka truncation support it). Default false. */
  readonly sendDimensions?: boolean | undefined
}

/**
 * A client for an OpenAI-compatible `POST {baseUrl}/embeddings` endpoint (OpenAI, vLLM, llama.cpp server, Ollama's
 * `/v1`, text-embeddings-inference, ...). Needs an `HttpClient`: provide `FetchHttpClient.layer` from `effect/http`
 * (on Node 20 avoid the undici client, which crashes).
 *
 * **Gotchas**: vectors are checked for length and finiteness; a mismatch fails with `EmbedderError` rather than
 * reaching the store.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerOpenAi = (options: OpenAiOptions): Layer.Layer<Embedder, never, HttpClient.HttpClient> =>
  Layer.effect(
    Embedder,
    Effect.gen(function*() {
      const client = yield* HttpClient.HttpClient
      const batchSize = options.batchSize ?? 64
      const url = `${options.baseUrl.replace(/\/+$/, "")}/embeddings`
      const fail = (reason: string, extra: { status?: number; cause?: unknown } = {}) =>
        new EmbedderError({ model: options.model, reason, ...extra })
      const embedBatch = (texts: ReadonlyArray<string>) =>
        Effect.gen(function*() {
          let request = HttpClientRequest.post(url).pipe(
            HttpClientRequest.bodyJsonUnsafe({
              model: options.model,
              input: texts,
              ...(options.sendDimensions === true ? { dimensions: options.dimension } : {})
            })
          )
          if (options.apiKey !== undefined) request = HttpClientRequest.bearerToken(request, options.apiKey)
          const response = yield* client.execute(request).pipe(
            Effect.mapError((cause) => fail(`request to ${url} failed`, { cause }))
          )
          if (response.status < 200 || response.status >= 300) {
            const body = yield* response.text.pipe(Effect.orElseSucceed(() => ""))
            return yield* fail(`endpoint answered: ${body.slice(0, 200)}`, { status: response.status })
          }
          const json = yield* response.json.pipe(Effect.mapError((cause) => fail("response is not JSON", { cause })))
          const decoded = yield* Schema.decodeUnknownEffect(EmbeddingsResponse)(json).pipe(
            Effect.mapError((cause) => fail("response has no data[].embedding", { cause }))
          )
          if (decoded.data.length !== texts.length) {
            return yield* fail(`expected ${texts.length} embeddings, got ${decoded.data.length}`)
          }
          const out: Array<Float32Array> = new Array(texts.length)
          for (let i = 0; i < decoded.data.length; i++) {
            const item = decoded.data[i]
            const at = item.index ?? i
            if (item.embedding.length !== options.dimension) {
              return yield* fail(`embedding ${at} has dimension ${item.embedding.length}, expected ${options.dimension}`)
            }
            if (!item.embedding.every(Number.isFinite)) return yield* fail(`embedding ${at} has a non-finite value`)
            out[at] = Float32Array.from(item.embedding)
          }
          return out
        })
      return Embedder.of({
        dimension: options.dimension,
        model: options.model,
        embed: (texts) =>
          Effect.gen(function*() {
            const out: Array<Float32Array> = []
            for (let i = 0; i < texts.length; i += batchSize) {
              out.push(...(yield* embedBatch(texts.slice(i, i + batchSize))))
            }
            return out
          })
      })
    })
  )

/**
 * An embedder written without Effect: `embed` returns (or resolves to) one `Float32Array` of length `dimension` per
 * text, in order. Turned into the service by {@link layerPlain}; `ExperienceStore.open` and the skill library's plain
 * `open` take one directly.
 *
 * @category models
 * @since 0.1.0
 */
export interface PlainEmbedder {
  readonly dimension: number
  readonly model: string
  readonly embed: (texts: ReadonlyArray<string>) => ReadonlyArray<Float32Array> | Promise<ReadonlyArray<Float32Array>>
}

/**
 * The {@link Embedder} service over a {@link PlainEmbedder}. A throw or rejection of `embed` becomes an
 * `EmbedderError` naming `model` (its message the thrown error's).
 *
 * @category layers
 * @since 0.1.0
 */
export const layerPlain = (embedder: PlainEmbedder): Layer.Layer<Embedder> =>
  Layer.succeed(Embedder, {
    dimension: embedder.dimension,
    model: embedder.model,
    embed: (texts) =>
      Effect.tryPromise({
        try: async () => await embedder.embed(texts),
        catch: (cause) =>
          new EmbedderError({
            model: embedder.model,
            reason: cause instanceof Error ? cause.message : String(cause),
            cause
          })
      })
  })

/**
 * The layer for an embedder given either way: an `Embedder` layer as it is, a {@link PlainEmbedder} through
 * {@link layerPlain}.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerFrom = <E = never>(embedder: PlainEmbedder | Layer.Layer<Embedder, E>): Layer.Layer<Embedder, E> =>
  Layer.isLayer(embedder) ? (embedder as Layer.Layer<Embedder, E>) : layerPlain(embedder as PlainEmbedder)

/**
 * A local ONNX sentence-embedding model (a sentence-transformers / Hugging Face feature-extraction export such as
 * all-MiniLM-L6-v2 or bge-small) run with `onnxruntime-node`, with its `tokenizer.json` read from disk by
 * `@huggingface/tokenizers`. No network. Entry point: `@autodidact/memory/onnx`.
 *
 * **Optional peers**: `onnxruntime-node` (through `@autodidact/kernels/ort`) and `@huggingface/tokenizers` are
 * optional peer dependencies, loaded when the layer is built (not when this module is imported); a missing one fails
 * the layer with `MissingPeerError` naming the package to install.
 *
 * **Details**
 * - The ONNX Runtime session is `OrtSession` from `@autodidact/kernels/ort` (the one session wrapper; `onnxruntime-node`
 *   is imported when the layer is built, not when this module is): created once when the layer is built from the model
 *   path (so external-data files next to it are found) and released when the layer's scope closes. Execution
 *   providers: CUDA first when `onnxruntime-node` reports it bundled (a CUDA build), else CPU.
 * - Inputs (sentence-transformers layout, int64 or int32 as the model declares): `input_ids` and, when declared,
 *   `attention_mask` and `token_type_ids` (zeros, or what the tokenizer's post-processor gives), each
 *   `[batch, seq]`, right-padded with the tokenizer's pad token to the longest text of the batch. A model that
 *   declares any other input fails the load with `EmbedderLoadError` (`kind: "inputs"`).
 * - Output: `options.output`, else `sentence_embedding` `[batch, dim]` (already pooled, used as is), else
 *   `last_hidden_state` / `token_embeddings` `[batch, seq, dim]`, else the model's only output. Token outputs are
 *   pooled by the mean over the attention mask (Reimers & Gurevych 2019, arXiv:1908.10084) or by the first token
 *   (`pooling: "cls"`), then L2-normalized (`normalize`, default true).
 * - The embedding table's row count is read from the graph (`OrtSession.embeddingRows`: the initializer of the
 *   `Gather` that indexes `input_ids`, directly or through a `Cast`; `vocabSize` overrides it); a tokenizer with more ids fails the load
 *   with `EmbedderTokenizerMismatchError`.
 * - At load, a probe batch of two texts is run to find (or check) the output dimension and shape; a model whose
 *   output has the wrong shape fails the load with `EmbedderLoadError` (`kind: "outputs"`).
 * - Texts are truncated to `maxLength` tokens (default 512), keeping a final special token such as `[SEP]`.
 *
 * **Gotchas**
 * - An output of the wrong shape or with a non-finite value fails `embed` with `EmbedderError`.
 * - A text with no tokens at all (possible only without a post-processor adding `[CLS]`/`[SEP]`) embeds to the zero
 *   vector under mean pooling.
 *
 * @since 0.1.0
 */
import { readFile } from "node:fs/promises"
import { basename, dirname, join } from "node:path"
import type { Tokenizer } from "@huggingface/tokenizers"
import { MissingPeerError, OptionalPeer } from "@autodidact/core"
import { OrtSession } from "@autodidact/kernels/ort"
import { Effect, Layer } from "effect"
import { Embedder } from "./EmbedderService.js"
import { EmbedderError, EmbedderLoadError, EmbedderTokenizerMismatchError } from "../store/StoreErrors.js"

/**
 * Options of {@link layerOnnx}.
 *
 * @category models
 * @since 0.1.0
 */
export interface OnnxOptions {
  /** Path of the `.onnx` file (external data files are resolved next to it by ONNX Runtime). */
  readonly modelPath: string
  /** Path of the Hugging Face `tokenizer.json` (a `tokenizer_config.json` beside it is read when present). */
  readonly tokenizerPath: string
  /** Expected vector length; checked against the model (default: what the model outputs). */
  readonly dimension?: number | undefined
  /** Pooling of a token-level output: `"mean"` over the attention mask (default) or `"cls"` (the first token). */
  readonly pooling?: "mean" | "cls" | undefined
  /** L2-normalize the vectors (default true). */
  readonly normalize?: boolean | undefined
  /** Tokens per text at most (default 512). */
  readonly maxLength?: number | undefined
  /** Texts per ONNX Runtime call (default 32). */
  readonly batchSize?: number | undefined
  /** The output to read (default: see the module docs). */
  readonly output?: string | undefined
  /** The embedding table's row count when the graph does not show it. */
  readonly vocabSize?: number | undefined
  /** `"auto"` (default: CUDA when bundled, else CPU) or an explicit list, e.g. `["cpu"]`. */
  readonly executionProviders?: "auto" | ReadonlyArray<string> | undefined
  /** Model name reported by the service (default `onnx:<file name>`). */
  readonly name?: string | undefined
}

const messageOf = OrtSession.messageOf

/** The optional peer that reads `tokenizer.json`, with the version range `@autodidact/memory` declares. */
export const tokenizersPeer = { name: "@huggingface/tokenizers", version: "^0.2.0" } as const

/** The entry point named in a `MissingPeerError` of this module. */
export const entryPoint = "@autodidact/memory/onnx"

const loadTokenizers = (model: string) =>
  Effect.tryPromise({
    try: () =>
      OptionalPeer.load(tokenizersPeer.name, entryPoint, () => import("@huggingface/tokenizers"), tokenizersPeer.version),
    catch: (e) =>
      e instanceof MissingPeerError
        ? e
        : new EmbedderLoadError({ model, kind: "tokenizer", reason: `loading ${tokenizersPeer.name}: ${messageOf(e)}`, cause: e })
  })

interface LoadedTokenizer {
  readonly tokenizer: Tokenizer
  readonly vocabSize: number
  readonly padId: number
  readonly specialIds: ReadonlySet<number>
}

const loadTokenizer = (
  model: string,
  path: string,
  Tokenizer: typeof import("@huggingface/tokenizers").Tokenizer
): Effect.Effect<LoadedTokenizer, EmbedderLoadError> =>
  Effect.gen(function*() {
    const fail = (reason: string, cause?: unknown) =>
      new EmbedderLoadError({ model, kind: "tokenizer", reason, ...(cause === undefined ? {} : { cause }) })
    const text = yield* Effect.tryPromise({
      try: () => readFile(path, "utf8"),
      catch: (e) =>
        fail(
          (e as NodeJS.ErrnoException).code === "ENOENT" ? `tokenizer file not found: ${path}` : messageOf(e),
          e
        )
    })
    const config = yield* Effect.promise(() =>
      readFile(join(dirname(path), "tokenizer_config.json"), "utf8").then(
        (t) => JSON.parse(t) as Record<string, unknown>,
        () => ({}) as Record<string, unknown>
      )
    ).pipe(Effect.orElseSucceed(() => ({}) as Record<string, unknown>))
    return yield* Effect.try({
      try: () => {
        const json = JSON.parse(text) as { model?: { unk_token?: unknown } }
        if (typeof json !== "object" || json === null || typeof json.model !== "object" || json.model === null) {
          throw new Error("no \"model\" section")
        }
        const cfg: Record<string, unknown> = { ...config }
        if (cfg["unk_token"] === undefined && typeof json.model.unk_token === "string") {
          cfg["unk_token"] = json.model.unk_token
        }
        const tokenizer = new Tokenizer(json, cfg)
        let maxId = -1
        for (const id of tokenizer.get_vocab(true).values()) if (id > maxId) maxId = id
        if (maxId < 0) throw new Error("empty vocabulary")
        const padId = (typeof cfg["pad_token"] === "string" ? tokenizer.token_to_id(cfg["pad_token"]) : undefined) ??
          tokenizer.token_to_id("[PAD]") ?? tokenizer.token_to_id("<pad>") ?? 0
        const specialIds = new Set<number>()
        for (const [id, t] of tokenizer.get_added_tokens_decoder()) if (t.special) specialIds.add(id)
        return { tokenizer, vocabSize: maxId + 1, padId, specialIds }
      },
      catch: (e) => fail(`not a usable tokenizer.json: ${path} (${messageOf(e)})`, e)
    })
  })

const FEEDABLE = new Set(["input_ids", "attention_mask", "token_type_ids"])
const TOKEN_OUTPUTS = ["last_hidden_state", "token_embeddings"]

interface Encoded {
  readonly batch: number
  readonly length: number
  readonly ids: Array<number>
  readonly mask: Uint8Array
  readonly types: Array<number>
}

/**
 * An embedder running a local ONNX sentence-embedding model (see the module docs). The layer is scoped: the ONNX
 * Runtime session lives as long as the layer.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Embedder } from "@autodidact/memory"
 * import { OnnxEmbedder } from "@autodidact/memory/onnx"
 *
 * const layer = OnnxEmbedder.layerOnnx({
 *   modelPath: "models/all-MiniLM-L6-v2/onnx/model.onnx",
 *   tokenizerPath: "models/all-MiniLM-L6-v2/tokenizer.json"
 * })
 * const vectors = Effect.gen(function*() {
 *   const embedder = yield* Embedder.Embedder
 *   return yield* embedder.embed(["open the door"])
 * }).pipe(Effect.provide(layer))
 * ```
 * @category layers
 * @since 0.1.0
 */
export const layerOnnx = (
  options: OnnxOptions
): Layer.Layer<Embedder, EmbedderLoadError | EmbedderTokenizerMismatchError | MissingPeerError> => {
  const pooling = options.pooling ?? "mean"
  const normalize = options.normalize ?? true
  const maxLength = options.maxLength ?? 512
  const batchSize = options.batchSize ?? 32
  for (const [k, v] of [["maxLength", maxLength], ["batchSize", batchSize]] as const) {
    if (!Number.isInteger(v) || v < 1) throw new RangeError(`OnnxEmbedder.layerOnnx: ${k} ${v} must be a positive integer`)
  }
  if (options.dimension !== undefined && (!Number.isInteger(options.dimension) || options.dimension < 1)) {
    throw new RangeError(`OnnxEmbedder.layerOnnx: dimension ${options.dimension} must be a positive integer`)
  }
  const model = options.name ?? `onnx:${basename(options.modelPath)}`
  const loadFail = (kind: EmbedderLoadError["kind"], reason: string, cause?: unknown) =>
    new EmbedderLoadError({ model, kind, reason, ...(cause === undefined ? {} : { cause }) })
  // a missing file or runtime is "missing"; an empty or unloadable file "corrupted" (the graph is checked below)
  const acquire = OrtSession.open(options.modelPath, { name: model, executionProviders: options.executionProviders }).pipe(
    Effect.mapError((e) => loadFail(e.kind === "missing" || e.kind === "unavailable" ? "missing" : "corrupted", e.reason, e))
  )

  return Layer.effect(
    Embedder,
    Effect.gen(function*() {
      const { Tokenizer } = yield* loadTokenizers(model)
      const session = yield* acquire
      const bytes = session.bytes

      // Inputs.
      const inputs = new Map<string, string>()
      for (const m of session.inputs) inputs.set(m.name, m.type)
      const names = [...inputs.keys()]
      if (!inputs.has("input_ids")) {
        return yield* loadFail("inputs", `the model has no input "input_ids" (inputs: ${names.join(", ")})`)
      }
      const unknown = names.filter((n) => !FEEDABLE.has(n))
      if (unknown.length > 0) {
        return yield* loadFail(
          "inputs",
          `the model declares inputs the embedder cannot feed: ${
            unknown.join(", ")
          } (feedable: input_ids, attention_mask, token_type_ids)`
        )
      }
      for (const [n, t] of inputs) {
        if (t !== "int64" && t !== "int32") {
          return yield* loadFail("inputs", `input "${n}" has element type ${t}, expected int64 (or int32)`)
        }
      }

      // Output.
      const outputNames = session.outputs.map((m) => m.name)
      const output = options.output ??
        (outputNames.includes("sentence_embedding")
          ? "sentence_embedding"
          : TOKEN_OUTPUTS.find((n) => outputNames.includes(n)) ?? (outputNames.length === 1 ? outputNames[0] : undefined))
      if (output === undefined || !outputNames.includes(output)) {
        return yield* loadFail(
          "outputs",
          output === undefined
            ? `cannot tell which output is the embedding (outputs: ${outputNames.join(", ")}); pass output`
            : `the model has no output "${output}" (outputs: ${outputNames.join(", ")})`
        )
      }
      const outMeta = session.outputs.find((m) => m.name === output)
      if (outMeta !== undefined && outMeta.type !== "non-tensor") {
        if (outMeta.shape.length !== 2 && outMeta.shape.length !== 3) {
          return yield* loadFail(
            "outputs",
            `output "${output}" has rank ${outMeta.shape.length}, expected [batch, seq, dim] or [batch, dim]`
          )
        }
        if (outMeta.type !== "float32") {
          return yield* loadFail("outputs", `output "${output}" has element type ${outMeta.type}, expected float32`)
        }
      }

      // Tokenizer vs embedding table.
      const tok = yield* loadTokenizer(model, options.tokenizerPath, Tokenizer)
      const fromGraph = options.vocabSize ?? (() => {
        try {
          return OrtSession.embeddingRows(bytes)
        } catch {
          return undefined
        }
      })()
      if (fromGraph !== undefined && tok.vocabSize > fromGraph) {
        return yield* new EmbedderTokenizerMismatchError({
          model,
          tokenizer: options.tokenizerPath,
          tokenizerVocabSize: tok.vocabSize,
          modelVocabSize: fromGraph
        })
      }

      const fail = (reason: string, cause?: unknown) =>
        new EmbedderError({ model, reason, ...(cause === undefined ? {} : { cause }) })

      const encode = (texts: ReadonlyArray<string>): Encoded => {
        const rows: Array<{ ids: ReadonlyArray<number>; types: ReadonlyArray<number> }> = []
        let length = 1
        for (const text of texts) {
          const enc = tok.tokenizer.encode(text, { return_token_type_ids: true })
          let ids: ReadonlyArray<number> = enc.ids
          // Without a post-processor the encoding has no token_type_ids (zeros then).
          let types: ReadonlyArray<number> = (enc.token_type_ids as Array<number> | undefined) ?? []
          if (ids.length > maxLength) {
            const last = ids[ids.length - 1]!
            if (maxLength > 1 && tok.specialIds.has(last)) {
              ids = [...ids.slice(0, maxLength - 1), last]
              types = [...types.slice(0, maxLength - 1), types[types.length - 1] ?? 0]
            } else {
              ids = ids.slice(0, maxLength)
              types = types.slice(0, maxLength)
            }
          }
          rows.push({ ids, types })
          if (ids.length > length) length = ids.length
        }
        const n = rows.length
        const ids = new Array<number>(n * length).fill(tok.padId)
        const types = new Array<number>(n * length).fill(0)
        const mask = new Uint8Array(n * length)
        rows.forEach((r, i) => {
          for (let k = 0; k < r.ids.length; k++) {
            ids[i * length + k] = r.ids[k]!
            types[i * length + k] = r.types[k] ?? 0
            mask[i * length + k] = 1
          }
        })
        return { batch: n, length, ids, mask, types }
      }

      const Tensor = session.runtime.Tensor
      const tensor = (name: string, values: ArrayLike<number>, dims: ReadonlyArray<number>): OrtSession.Tensor =>
        inputs.get(name) === "int32"
          ? new Tensor("int32", Int32Array.from(values), dims)
          : new Tensor("int64", BigInt64Array.from(Array.from(values, (v) => BigInt(v))), dims)

      /** Run one batch; returns the pooled (and normalized) vectors, each of the output's dimension. */
      const runBatch = (texts: ReadonlyArray<string>, expectDim: number | undefined) =>
        Effect.gen(function*() {
          if (session.released) return yield* fail("session released (the layer's scope is closed)")
          const e = encode(texts)
          const dims = [e.batch, e.length]
          const feeds: Record<string, OrtSession.Tensor> = { input_ids: tensor("input_ids", e.ids, dims) }
          if (inputs.has("attention_mask")) feeds["attention_mask"] = tensor("attention_mask", e.mask, dims)
          if (inputs.has("token_type_ids")) feeds["token_type_ids"] = tensor("token_type_ids", e.types, dims)
          const results = yield* Effect.tryPromise({
            try: () => session.run(feeds, [output]),
            catch: (cause) => fail(`inference failed: ${cause instanceof OrtSession.OrtRunError ? cause.reason : messageOf(cause)}`, cause)
          })
          const out = results[output]
          if (out === undefined) return yield* fail(`the model returned no "${output}"`)
          if (out.type !== "float32") return yield* fail(`output "${output}" has element type ${out.type}, expected float32`)
          const shape = out.dims
          const data = out.data as Float32Array
          const tokenLevel = shape.length === 3
          const ok = tokenLevel
            ? shape[0] === e.batch && shape[1] === e.length && shape[2]! > 0
            : shape.length === 2 && shape[0] === e.batch && shape[1]! > 0
          const dim = shape[shape.length - 1]!
          if (!ok || (expectDim !== undefined && dim !== expectDim)) {
            return yield* fail(
              `output "${output}" has shape [${shape.join(", ")}], expected ${
                tokenLevel || shape.length !== 2 ? `[${e.batch}, ${e.length}, ` : `[${e.batch}, `
              }${expectDim ?? "dim"}]`
            )
          }
          const vectors: Array<Float32Array> = []
          for (let i = 0; i < e.batch; i++) {
            const acc = new Float64Array(dim)
            if (!tokenLevel) {
              for (let d = 0; d < dim; d++) acc[d] = data[i * dim + d]!
            } else if (pooling === "cls") {
              const base = i * e.length * dim
              for (let d = 0; d < dim; d++) acc[d] = data[base + d]!
            } else {
              let count = 0
              for (let k = 0; k < e.length; k++) {
                if (e.mask[i * e.length + k] === 0) continue
                count++
                const base = (i * e.length + k) * dim
                for (let d = 0; d < dim; d++) acc[d] += data[base + d]!
              }
              if (count > 0) for (let d = 0; d < dim; d++) acc[d] /= count
            }
            for (let d = 0; d < dim; d++) {
              if (!Number.isFinite(acc[d])) {
                return yield* fail(`embedding of text ${i} of the batch has a non-finite value (${acc[d]}) at ${d}`)
              }
            }
            if (normalize) {
              let norm = 0
              for (let d = 0; d < dim; d++) norm += acc[d] * acc[d]
              norm = Math.sqrt(norm)
              if (norm > 0) for (let d = 0; d < dim; d++) acc[d] /= norm
            }
            vectors.push(Float32Array.from(acc))
          }
          return vectors
        })

      // Probe: a small batch, to learn (or check) the dimension and that the model runs.
      const declared = outMeta !== undefined && outMeta.type !== "non-tensor" ? outMeta.shape[outMeta.shape.length - 1] : undefined
      const fixedDim = typeof declared === "number" && declared > 0 ? declared : undefined
      if (options.dimension !== undefined && fixedDim !== undefined && options.dimension !== fixedDim) {
        return yield* loadFail(
          "outputs",
          `output "${output}" has dimension ${fixedDim}, expected ${options.dimension}`
        )
      }
      // Two texts of different lengths (one padded) so that a wrong batch or sequence axis shows here.
      const probe = yield* runBatch(["a", "a a"], options.dimension ?? fixedDim).pipe(
        Effect.mapError((e) => loadFail("outputs", `probe run failed: ${e.reason}`, e))
      )
      const dimension = probe[0]!.length

      return Embedder.of({
        dimension,
        model,
        embed: (texts) =>
          Effect.gen(function*() {
            const out: Array<Float32Array> = []
            for (let i = 0; i < texts.length; i += batchSize) {
              out.push(...(yield* runBatch(texts.slice(i, i + batchSize), dimension)))
            }
            return out
          })
      })
    })
  )
}

/**
 * ONNX reward models behind the {@link RewardModel} service: feature-vector models (`[batch, dim]` → `[batch]` or
 * `[batch, 1]`) and Hugging Face sequence-classification text models (`input_ids`, `attention_mask` int64 →
 * `logits [batch, 1]`) with a local `tokenizer.json`.
 *
 * **Details**
 * - The session is opened with {@link OnnxSession.open} in the caller's scope: {@link layerFeature}/{@link layerText}
 *   release it when the layer's scope closes.
 * - Batch sizes are dynamic: any batch is sent as one run.
 * - Feature models: the input is the model's only float32 input (or `input`), its width read from the model
 *   (`[batch, 16]`); a vector of another length is an `InputMismatchError` naming the item.
 * - Text models: the model's vocabulary size is read from the embedding table that `input_ids` gathers from (or given
 *   as `vocabSize`); a tokenizer whose vocabulary size differs fails the load with `TokenizerMismatchError`.
 * - Scores: the model's output as float32, checked finite (`NonFiniteScoreError`).
 * @since 0.1.0
 */
import onnxProto from "onnx-proto"
import { Effect } from "effect"
import type { Scope } from "effect"
import * as ort from "onnxruntime-node"
import * as OnnxSession from "./OnnxSession.js"
import { InferenceError, InputMismatchError, ModelLoadError, TokenizerMismatchError } from "./RewardError.js"
import type { ScoreError } from "./RewardError.js"
import * as RewardModel from "./RewardModel.js"
import * as TextTokenizer from "./TextTokenizer.js"

const { onnx } = onnxProto

/** A feature model: its session, input width, and a raw scorer. */
export interface FeatureModel {
  readonly session: OnnxSession.OnnxSession
  readonly dim: number
  /** Score a row-major `[n, dim]` float32 matrix. */
  scoreRows(rows: Float32Array, n: number): Effect.Effect<Float32Array, ScoreError>
}

const outputScores = (model: string, out: ort.Tensor | undefined, n: number): Effect.Effect<Float32Array, ScoreError> => {
  if (out === undefined) return Effect.fail(new InferenceError({ model, reason: "the model returned no output" }))
  const size = out.dims.reduce((a, b) => a * b, 1)
  if (out.type !== "float32" || size !== n || out.dims[0] !== n) {
    return Effect.fail(new InferenceError({ model, reason: `expected ${n} float32 scores ([${n}] or [${n}, 1]), got ${out.type} [${out.dims.join(", ")}]` }))
  }
  return Effect.succeed(out.data as Float32Array)
}

/** Open a feature model (`input`: the input name; `output`: the output name; defaults: the only ones). @category constructors */
export const openFeature = (
  source: string | Uint8Array,
  options: OnnxSession.OpenOptions & { readonly input?: string | undefined; readonly output?: string | undefined } = {}
): Effect.Effect<FeatureModel, ModelLoadError, Scope.Scope> =>
  Effect.gen(function* () {
    const session = yield* OnnxSession.open(source, options)
    const input = options.input === undefined ? session.inputs[0] : session.inputs.find((i) => i.name === options.input)
    const output = options.output ?? session.outputs[0]?.name
    const dim = input?.shape[1]
    if (input === undefined || session.inputs.length !== 1 || input.type !== "float32" || input.shape.length !== 2 || typeof dim !== "number" || output === undefined) {
      return yield* new ModelLoadError({
        model: session.name,
        reason: `expected one float32 input [batch, dim] and an output, got inputs ${session.inputs.map((i) => `${i.name}:${i.type}[${i.shape.join(",")}]`).join(", ")}`
      })
    }
    const scoreRows = (rows: Float32Array, n: number): Effect.Effect<Float32Array, ScoreError> =>
      n === 0
        ? Effect.succeed(new Float32Array(0))
        : session.run({ [input.name]: new ort.Tensor("float32", rows, [n, dim]) }).pipe(
          Effect.flatMap((out) => outputScores(session.name, out[output], n))
        )
    return { session, dim, scoreRows }
  })

/**
 * The number of rows of the embedding table that `input` indexes (a `Gather` whose indices are `input`, directly or
 * through `Cast`), read from the ONNX graph; undefined when the graph has none.
 */
export const embeddingRows = (bytes: Uint8Array, input = "input_ids"): number | undefined => {
  const model = onnx.ModelProto.decode(bytes)
  const graph = model.graph
  if (graph == null) return undefined
  const aliases = new Set([input])
  for (const n of graph.node ?? []) if (n.opType === "Cast" && aliases.has(n.input?.[0] ?? "")) for (const o of n.output ?? []) aliases.add(o)
  for (const n of graph.node ?? []) {
    if (n.opType !== "Gather" || !aliases.has(n.input?.[1] ?? "")) continue
    const table = (graph.initializer ?? []).find((t) => t.name === n.input?.[0])
    if (table?.dims != null && table.dims.length >= 1) return Number(table.dims[0])
  }
  return undefined
}

/** A text model: its session, tokenizer, and a raw scorer. */
export interface TextModel {
  readonly session: OnnxSession.OnnxSession
  readonly tokenizer: TextTokenizer.TextTokenizer
  readonly vocabSize: number
  /** Score already-encoded ids (row-major `[batch, length]`). */
  scoreIds(batch: TextTokenizer.EncodedBatch): Effect.Effect<Float32Array, ScoreError>
  scoreTexts(texts: ReadonlyArray<string>): Effect.Effect<Float32Array, ScoreError>
}

/** Options of {@link openText}. */
export interface TextOptions extends OnnxSession.OpenOptions {
  /** The tokenizer (a loaded one, or a path to `tokenizer.json`). */
  readonly tokenizer: TextTokenizer.TextTokenizer | string
  /** The model's vocabulary size when the graph does not show it. */
  readonly vocabSize?: number | undefined
  /** Truncate texts to this many tokens. */
  readonly maxLength?: number | undefined
  /** Output name (default `logits`). */
  readonly output?: string | undefined
}

/** Open a Hugging Face sequence-classification model with its tokenizer. @category constructors */
export const openText = (source: string | Uint8Array, options: TextOptions): Effect.Effect<TextModel, ModelLoadError | TokenizerMismatchError, Scope.Scope> =>
  Effect.gen(function* () {
    const tokenizer = typeof options.tokenizer === "string" ? yield* TextTokenizer.load(options.tokenizer) : options.tokenizer
    const output = options.output ?? "logits"
    const session = yield* OnnxSession.open(source, {
      ...options,
      expectInputs: [
        { name: "input_ids", type: "int64", shape: ["batch", "sequence"] },
        { name: "attention_mask", type: "int64", shape: ["batch", "sequence"] }
      ],
      expectOutputs: [output]
    })
    const fromGraph = yield* Effect.try({ try: () => embeddingRows(session.bytes), catch: () => undefined }).pipe(Effect.orElseSucceed(() => undefined))
    const vocabSize = options.vocabSize ?? fromGraph
    if (vocabSize === undefined) {
      return yield* new ModelLoadError({ model: session.name, reason: "cannot read the vocabulary size from the graph; pass vocabSize" })
    }
    if (tokenizer.vocabSize !== vocabSize) {
      return yield* new TokenizerMismatchError({
        tokenizer: tokenizer.name,
        tokenizerVocabSize: tokenizer.vocabSize,
        modelVocabSize: vocabSize,
        reason: tokenizer.vocabSize > vocabSize ? "the tokenizer emits ids past the model's embedding table" : "the tokenizer does not cover the model's vocabulary"
      })
    }
    const scoreIds = (b: TextTokenizer.EncodedBatch): Effect.Effect<Float32Array, ScoreError> => {
      for (let i = 0; i < b.inputIds.length; i++) {
        const id = b.inputIds[i]!
        if (id < 0n || id >= BigInt(vocabSize)) {
          return Effect.fail(new InputMismatchError({ model: session.name, input: "input_ids", expected: `ids in [0, ${vocabSize})`, actual: `id ${id} at position ${i}` }))
        }
      }
      return session.run({
        input_ids: new ort.Tensor("int64", b.inputIds, [b.batch, b.length]),
        attention_mask: new ort.Tensor("int64", b.attentionMask, [b.batch, b.length])
      }).pipe(Effect.flatMap((out) => outputScores(session.name, out[output], b.batch)))
    }
    const scoreTexts = (texts: ReadonlyArray<string>): Effect.Effect<Float32Array, ScoreError> =>
      texts.length === 0
        ? Effect.succeed(new Float32Array(0))
        : Effect.flatMap(TextTokenizer.encodeBatch(tokenizer, texts, { maxLength: options.maxLength }), scoreIds)
    return { session, tokenizer, vocabSize, scoreIds, scoreTexts }
  })

/** A feature ONNX model as a {@link RewardModel.RewardModelShape} (scoped). @category constructors */
export const feature = (
  source: string | Uint8Array,
  options: OnnxSession.OpenOptions & {
    readonly input?: string | undefined
    readonly output?: string | undefined
    readonly featurize?: Parameters<typeof RewardModel.fromFeatures>[3]
  } = {}
): Effect.Effect<RewardModel.RewardModelShape, ModelLoadError, Scope.Scope> =>
  Effect.map(openFeature(source, options), (m) => RewardModel.fromFeatures(`onnx:${m.session.name}`, m.dim, m.scoreRows, options.featurize))

/** A text ONNX model as a {@link RewardModel.RewardModelShape} (scoped). @category constructors */
export const text = (
  source: string | Uint8Array,
  options: TextOptions & { readonly render?: Parameters<typeof RewardModel.fromTexts>[2] }
): Effect.Effect<RewardModel.RewardModelShape, ModelLoadError | TokenizerMismatchError, Scope.Scope> =>
  Effect.map(openText(source, options), (m) => RewardModel.fromTexts(`onnx:${m.session.name}`, m.scoreTexts, options.render))

/** The {@link RewardModel.RewardModel} service from a feature ONNX model; the session is released with the layer. */
export const layerFeature = (source: string | Uint8Array, options: Parameters<typeof feature>[1] = {}) =>
  RewardModel.layer(feature(source, options))

/** The {@link RewardModel.RewardModel} service from a text ONNX model; the session is released with the layer. */
export const layerText = (source: string | Uint8Array, options: Parameters<typeof text>[1]) => RewardModel.layer(text(source, options))

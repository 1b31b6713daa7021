/**
 * ONNX reward models behind the {@link RewardModel} service: feature-vector models (`[batch, dim]` → `[batch]` or
 * `[batch, 1]`) and Hugging Face sequence-classification text models (`input_ids`, `attention_mask` int64 →
 * `logits [batch, 1]`) with a local `tokenizer.json`.
 *
 * **Details**
 * - The session is opened with `OrtSession.open` from `@autodidact/kernels/ort` (the one ONNX Runtime session
 *   wrapper; `onnxruntime-node` is imported when the first model opens) in the caller's scope:
 *   {@link layerFeature}/{@link layerText} release it when the layer's scope closes. Its failures become this
 *   package's errors: a load failure `ModelLoadError`, feeds that do not fit `InputMismatchError`, a runtime failure
 *   or a released session `InferenceError`.
 * - Execution providers: `"auto"` (default) is CUDA first when `onnxruntime-node` bundles it, else CPU.
 * - Batch sizes are dynamic: any batch is sent as one run.
 * - Feature models: the input is the model's only float32 input (or `input`), its width read from the model
 *   (`[batch, 16]`); a vector of another length is an `InputMismatchError` naming the item. The raw `scoreRows`
 *   checks its matrix against the declared shape before building the tensor (`InputMismatchError` with the expected
 *   and received shapes) and its values finite (`NonFiniteInputError` naming the row and column).
 * - Text models: `scoreIds` checks `input_ids` and `attention_mask` against `[batch, length]` (their declared
 *   `[batch, sequence]`) before building the tensors: another element count is an `InputMismatchError` naming the
 *   input and both shapes; an id outside the vocabulary is an `InputMismatchError` naming its position.
 * - Text models: the model's vocabulary size is read from the embedding table that `input_ids` gathers from (or given
 *   as `vocabSize`); a tokenizer whose vocabulary size differs fails the load with `TokenizerMismatchError`.
 * - Scores: the model's output as float32, checked finite (`NonFiniteScoreError`).
 * @since 0.1.0
 */
import { OrtSession } from "@autodidact/kernels/ort"
import { Effect, Exit, Scope } from "effect"
import { InferenceError, InputMismatchError, ModelLoadError, TokenizerMismatchError } from "./RewardError.js"
import type { ScoreError } from "./RewardError.js"
import * as RewardModel from "./RewardModel.js"
import * as TextTokenizer from "./TextTokenizer.js"
import { checkFinite } from "./internal/inputs.js"

/**
 * The first way `dims` and `length` (the data's element count) fail to fit `spec` (kernels' `OrtSession.checkDims`,
 * the one shape check of every ONNX feed), as this package's InputMismatchError naming the input, the expected shape
 * (with the declared one) and the received one. Called before a tensor is built (ONNX Runtime's own error is untyped).
 */
const checkShape = (
  model: string,
  spec: { readonly name: string; readonly shape: ReadonlyArray<number | string> },
  dims: ReadonlyArray<number>,
  length: number
): InputMismatchError | undefined => {
  const bad = OrtSession.checkDims(model, spec, dims, length)
  return bad === undefined ? undefined : new InputMismatchError({ model, input: bad.input, expected: bad.expected, actual: bad.actual })
}

/** Options of the ONNX session: a name for messages, execution providers, expected inputs/outputs. */
export type OpenOptions = OrtSession.OpenOptions

/** Open a session in the caller's scope; a load failure is a {@link ModelLoadError} naming the model. */
const openSession = (source: string | Uint8Array, options: OpenOptions): Effect.Effect<OrtSession.OrtSession, ModelLoadError, Scope.Scope> =>
  OrtSession.open(source, options).pipe(Effect.mapError((e) => new ModelLoadError({ model: e.model, reason: e.reason })))

/** Run checked feeds; a feed that does not fit is an {@link InputMismatchError}, a runtime failure an {@link InferenceError}. */
const runSession = (
  session: OrtSession.OrtSession,
  feeds: Readonly<Record<string, OrtSession.Tensor>>
): Effect.Effect<Record<string, OrtSession.Tensor>, InputMismatchError | InferenceError> =>
  OrtSession.run(session, feeds).pipe(
    Effect.mapError((e) =>
      e._tag === "OrtInputError"
        ? new InputMismatchError({ model: e.model, input: e.input, expected: e.expected, actual: e.actual })
        : new InferenceError({ model: e.model, reason: e.reason })
    )
  )

/** A feature model: its session, input width, and a raw scorer. */
export interface FeatureModel {
  readonly session: OrtSession.OrtSession
  readonly dim: number
  /**
   * Score a row-major `[n, dim]` float32 matrix (`rows.length === n * dim`), one score per row.
   * Fails with InputMismatchError (another element count, naming the expected and received shapes),
   * NonFiniteInputError (a NaN/±Infinity value, naming its row and column), NonFiniteScoreError or InferenceError.
   */
  scoreRows(rows: Float32Array, n: number): Effect.Effect<Float32Array, ScoreError>
}

const outputScores = (model: string, out: OrtSession.Tensor | undefined, n: number): Effect.Effect<Float32Array, ScoreError> => {
  if (out === undefined) return Effect.fail(new InferenceError({ model, reason: "the model returned no output" }))
  const size = out.dims.reduce((a, b) => a * b, 1)
  if (out.type !== "float32" || size !== n || out.dims[0] !== n) {
    return Effect.fail(new InferenceError({ model, reason: `expected ${n} float32 scores ([${n}] or [${n}, 1]), got ${out.type} [${out.dims.join(", ")}]` }))
  }
  return Effect.succeed(out.data as Float32Array)
}

/**
 * Open a feature model: one float32 input `[batch, dim]` (`input`: its name, default the only input) and a score output
 * `[batch]` or `[batch, 1]` (`output`: its name, default the first output). `source`: a path or the model bytes.
 * @returns fails with ModelLoadError for a missing, unreadable or corrupted file or a graph of another shape.
 * @category constructors
 */
export const openFeature = (
  source: string | Uint8Array,
  options: OpenOptions & { readonly input?: string | undefined; readonly output?: string | undefined } = {}
): Effect.Effect<FeatureModel, ModelLoadError, Scope.Scope> =>
  Effect.gen(function* () {
    const session = yield* openSession(source, options)
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
      Effect.suspend(() => {
        const bad = checkShape(session.name, input, [n, dim], rows.length) ?? checkFinite(session.name, input.name, rows, dim)
        if (bad !== undefined) return Effect.fail(bad)
        if (n === 0) return Effect.succeed(new Float32Array(0))
        return runSession(session, { [input.name]: new session.runtime.Tensor("float32", rows, [n, dim]) }).pipe(
          Effect.flatMap((out) => outputScores(session.name, out[output], n))
        )
      })
    return { session, dim, scoreRows }
  })

/** A text model: its session, tokenizer, and a raw scorer. */
export interface TextModel {
  readonly session: OrtSession.OrtSession
  readonly tokenizer: TextTokenizer.TextTokenizer
  readonly vocabSize: number
  /**
   * Score already-encoded ids (row-major `[batch, length]`, `inputIds` and `attentionMask` of `batch * length`
   * each). Fails with InputMismatchError (another element count, naming the input and both shapes, or an id outside
   * `[0, vocabSize)`) or InferenceError.
   */
  scoreIds(batch: TextTokenizer.EncodedBatch): Effect.Effect<Float32Array, ScoreError>
  scoreTexts(texts: ReadonlyArray<string>): Effect.Effect<Float32Array, ScoreError>
}

/** Options of {@link openText}. */
export interface TextOptions extends OpenOptions {
  /** The tokenizer (a loaded one, or a path to `tokenizer.json`). */
  readonly tokenizer: TextTokenizer.TextTokenizer | string
  /** The model's vocabulary size when the graph does not show it. */
  readonly vocabSize?: number | undefined
  /** Truncate texts to this many tokens. */
  readonly maxLength?: number | undefined
  /** Output name (default `logits`). */
  readonly output?: string | undefined
}

/**
 * Open a Hugging Face sequence-classification model (`input_ids`, `attention_mask` int64 `[batch, sequence]` →
 * `logits` `[batch, 1]`) with its tokenizer. The vocabulary size is read from the embedding table that `input_ids`
 * gathers from (`OrtSession.embeddingRows`), or given as `vocabSize`.
 * @returns fails with ModelLoadError (missing/corrupted file, other inputs/outputs, vocabulary size unknown) or
 *   TokenizerMismatchError (the tokenizer's vocabulary differs from the model's).
 * @category constructors
 */
export const openText = (source: string | Uint8Array, options: TextOptions): Effect.Effect<TextModel, ModelLoadError | TokenizerMismatchError, Scope.Scope> =>
  Effect.gen(function* () {
    const tokenizer = typeof options.tokenizer === "string" ? yield* TextTokenizer.load(options.tokenizer) : options.tokenizer
    const output = options.output ?? "logits"
    const session = yield* openSession(source, {
      ...options,
      expectInputs: [
        { name: "input_ids", type: "int64", shape: ["batch", "sequence"] },
        { name: "attention_mask", type: "int64", shape: ["batch", "sequence"] }
      ],
      expectOutputs: [output]
    })
    const fromGraph = yield* Effect.try({ try: () => OrtSession.embeddingRows(session.bytes), catch: () => undefined }).pipe(Effect.orElseSucceed(() => undefined))
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
    const idsSpec = session.inputs.find((i) => i.name === "input_ids")!
    const maskSpec = session.inputs.find((i) => i.name === "attention_mask")!
    const scoreIds = (b: TextTokenizer.EncodedBatch): Effect.Effect<Float32Array, ScoreError> => {
      const bad = checkShape(session.name, idsSpec, [b.batch, b.length], b.inputIds.length) ??
        checkShape(session.name, maskSpec, [b.batch, b.length], b.attentionMask.length)
      if (bad !== undefined) return Effect.fail(bad)
      for (let i = 0; i < b.inputIds.length; i++) {
        const id = b.inputIds[i]!
        if (id < 0n || id >= BigInt(vocabSize)) {
          return Effect.fail(new InputMismatchError({ model: session.name, input: "input_ids", expected: `ids in [0, ${vocabSize})`, actual: `id ${id} at position ${i}` }))
        }
      }
      return runSession(session, {
        input_ids: new session.runtime.Tensor("int64", b.inputIds, [b.batch, b.length]),
        attention_mask: new session.runtime.Tensor("int64", b.attentionMask, [b.batch, b.length])
      }).pipe(Effect.flatMap((out) => outputScores(session.name, out[output], b.batch)))
    }
    const scoreTexts = (texts: ReadonlyArray<string>): Effect.Effect<Float32Array, ScoreError> =>
      texts.length === 0
        ? Effect.succeed(new Float32Array(0))
        : Effect.flatMap(TextTokenizer.encodeBatch(tokenizer, texts, { maxLength: options.maxLength }), scoreIds)
    return { session, tokenizer, vocabSize, scoreIds, scoreTexts }
  })

/**
 * A feature ONNX model (see {@link openFeature}) as a {@link RewardModel.RewardModelShape} named
 * `onnx:<path>`, scoped: each candidate (or step) is featurized (`featurize`, default its `features`) into a `[dim]`
 * vector and a batch is one run. Scoring fails with `InputMismatchError` for a vector of another length,
 * `NonFiniteScoreError`, `EmptyBatchError` or `InferenceError`.
 * @returns fails with ModelLoadError.
 * @category constructors
 */
export const feature = (
  source: string | Uint8Array,
  options: OpenOptions & {
    readonly input?: string | undefined
    readonly output?: string | undefined
    readonly featurize?: Parameters<typeof RewardModel.fromFeatures>[3]
  } = {}
): Effect.Effect<RewardModel.RewardModelShape, ModelLoadError, Scope.Scope> =>
  Effect.map(openFeature(source, options), (m) => RewardModel.fromFeatures(`onnx:${m.session.name}`, m.dim, m.scoreRows, options.featurize))

/**
 * A text ONNX model (see {@link openText}) as a {@link RewardModel.RewardModelShape} named `onnx:<path>`, scoped:
 * candidates are rendered to text (`render`), tokenized, and scored in one run per batch (the `logits` as scores).
 * @returns fails with ModelLoadError or TokenizerMismatchError.
 * @category constructors
 */
export const text = (
  source: string | Uint8Array,
  options: TextOptions & { readonly render?: Parameters<typeof RewardModel.fromTexts>[2] }
): Effect.Effect<RewardModel.RewardModelShape, ModelLoadError | TokenizerMismatchError, Scope.Scope> =>
  Effect.map(openText(source, options), (m) => RewardModel.fromTexts(`onnx:${m.session.name}`, m.scoreTexts, options.render))

/**
 * The {@link RewardModel.RewardModel} service from a feature ONNX model (see {@link feature}); the ONNX Runtime
 * session is released when the layer's scope closes. Fails to build with ModelLoadError.
 * @category layers
 */
export const layerFeature = (source: string | Uint8Array, options: Parameters<typeof feature>[1] = {}) =>
  RewardModel.layer(feature(source, options))

/**
 * The {@link RewardModel.RewardModel} service from a text ONNX model (see {@link text}); the ONNX Runtime session
 * is released when the layer's scope closes. Fails to build with ModelLoadError or TokenizerMismatchError.
 * @category layers
 */
export const layerText = (source: string | Uint8Array, options: Parameters<typeof text>[1]) => RewardModel.layer(text(source, options))

/** Open a scoped model into a scope that the {@link RewardModel.Scorer}'s `close()` closes (closed at once on a failed load). */
const toScorerScoped = async <E>(open: Effect.Effect<RewardModel.RewardModelShape, E, Scope.Scope>): Promise<RewardModel.Scorer> => {
  const scope = Effect.runSync(Scope.make())
  const exit = await Effect.runPromiseExit(Scope.provide(open, scope))
  if (Exit.isFailure(exit)) {
    await Effect.runPromise(Scope.close(scope, exit))
    return Effect.runPromise(Effect.failCause(exit.cause))
  }
  return RewardModel.toScorer(exit.value, () => Effect.runPromise(Scope.close(scope, Exit.void)))
}

/**
 * Load a feature ONNX reward model (see {@link feature}) as a plain {@link RewardModel.Scorer}:
 * `const rm = await load("rm.onnx"); const scores = await rm.score([{ features }]); await rm.close()`.
 * Rejects with the same `ModelLoadError` as {@link feature}; scoring rejects with `InputMismatchError`,
 * `NonFiniteScoreError`, `EmptyBatchError` or `InferenceError` (after `close()`, the session is released).
 * @category plain
 * @since 0.2.0
 */
export const load = (source: string | Uint8Array, options: Parameters<typeof feature>[1] = {}): Promise<RewardModel.Scorer> =>
  toScorerScoped(feature(source, options))

/**
 * Load a Hugging Face sequence-classification ONNX model with its tokenizer (see {@link text}) as a plain
 * {@link RewardModel.Scorer}; rejects with `ModelLoadError` or `TokenizerMismatchError`.
 * @category plain
 * @since 0.2.0
 */
export const loadText = (source: string | Uint8Array, options: Parameters<typeof text>[1]): Promise<RewardModel.Scorer> =>
  toScorerScoped(text(source, options))

/**
 * The typed failures of `@autodidact/rewards`. Every error names what did not match, so a caller (or the CLI) can
 * say which model, which input and which expectation failed.
 *
 * **Details**
 * - {@link ModelLoadError}: a missing, unreadable or corrupted model file, or a model whose graph is not the one the
 *   caller asked for. The session (if one was created) has already been released when this is raised.
 * - {@link InputMismatchError}: feeds whose names, element types or shapes differ from the model's inputs, or
 *   feature vectors of the wrong length.
 * - {@link TokenizerMismatchError}: a tokenizer whose vocabulary does not fit the model's embedding table, or a text
 *   with a token the tokenizer cannot map (no `unk_token`).
 * - {@link NonFiniteInputError}: a NaN or ±Infinity value in a model's input, naming the input, row and column.
 * - {@link NonFiniteScoreError}: a NaN or ±Infinity score (from a model or a rule).
 * - {@link EmptyBatchError}: an empty batch, or an episode with no steps where steps are scored.
 * - {@link InferenceError}: the runtime failed while running a loaded model.
 * - {@link JudgeAnswerError}: an LLM judge answered with no number in its scale (the answer text is kept).
 * - {@link JudgeHttpError}: an LLM judge endpoint answered with a non-2xx HTTP status (after retries for 429/5xx).
 * - {@link JudgeUnreachableError}: an LLM judge endpoint could not be reached or timed out (after retries).
 * @since 0.1.0
 */
import { Schema } from "effect"

/** A model could not be loaded (missing, unreadable, corrupted, or not the expected graph). @category errors */
export class ModelLoadError extends Schema.TaggedError<ModelLoadError>()("ModelLoadError", {
  model: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `cannot load reward model ${this.model}: ${this.reason}`
  }
}

/** Inputs do not match the model's declared inputs. @category errors */
export class InputMismatchError extends Schema.TaggedError<InputMismatchError>()("InputMismatchError", {
  model: Schema.String,
  input: Schema.String,
  expected: Schema.String,
  actual: Schema.String
}) {
  override get message() {
    return `input "${this.input}" of ${this.model} does not match: expected ${this.expected}, got ${this.actual}`
  }
}

/** The tokenizer does not fit the model's vocabulary. @category errors */
export class TokenizerMismatchError extends Schema.TaggedError<TokenizerMismatchError>()("TokenizerMismatchError", {
  tokenizer: Schema.String,
  tokenizerVocabSize: Schema.Number,
  modelVocabSize: Schema.Number,
  reason: Schema.String
}) {
  override get message() {
    return `tokenizer ${this.tokenizer} (vocabulary ${this.tokenizerVocabSize}) does not fit the model (vocabulary ${this.modelVocabSize}): ${this.reason}`
  }
}

/**
 * An input value is NaN or ±Infinity (checked before the model runs, so a bad feature is not reported as a bad
 * score). `row` is the batch row (the item, or the flattened step), `column` the position in the row. @category errors
 */
export class NonFiniteInputError extends Schema.TaggedError<NonFiniteInputError>()("NonFiniteInputError", {
  model: Schema.String,
  input: Schema.String,
  row: Schema.Number,
  column: Schema.Number,
  value: Schema.String
}) {
  override get message() {
    return `input "${this.input}" of ${this.model} holds the non-finite value ${this.value} at row ${this.row}, column ${this.column}`
  }
}

/** A score is NaN or infinite. @category errors */
export class NonFiniteScoreError extends Schema.TaggedError<NonFiniteScoreError>()("NonFiniteScoreError", {
  model: Schema.String,
  index: Schema.Number,
  step: Schema.optional(Schema.Number),
  value: Schema.String
}) {
  override get message() {
    return `${this.model} produced a non-finite score ${this.value} for item ${this.index}${this.step === undefined ? "" : ` step ${this.step}`}`
  }
}

/** An empty batch (or an episode without steps where steps are scored). @category errors */
export class EmptyBatchError extends Schema.TaggedError<EmptyBatchError>()("EmptyBatchError", {
  model: Schema.String,
  operation: Schema.String
}) {
  override get message() {
    return `${this.operation} of ${this.model} was given an empty batch`
  }
}

/** The runtime failed while running a loaded model. @category errors */
export class InferenceError extends Schema.TaggedError<InferenceError>()("InferenceError", {
  model: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `inference with ${this.model} failed: ${this.reason}`
  }
}

/** An LLM judge's answer holds no number in the judge's scale (or no answer text at all). @category errors */
export class JudgeAnswerError extends Schema.TaggedError<JudgeAnswerError>()("JudgeAnswerError", {
  model: Schema.String,
  answer: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `judge ${this.model} gave an unusable answer (${this.reason}): ${JSON.stringify(this.answer.slice(0, 200))}`
  }
}

/** An LLM judge endpoint answered with a non-2xx HTTP status. @category errors */
export class JudgeHttpError extends Schema.TaggedError<JudgeHttpError>()("JudgeHttpError", {
  model: Schema.String,
  url: Schema.String,
  status: Schema.Number,
  body: Schema.String
}) {
  override get message() {
    return `judge ${this.model} at ${this.url} answered HTTP ${this.status}: ${this.body.slice(0, 200)}`
  }
}

/** An LLM judge endpoint could not be reached (connection refused, DNS, invalid URL) or did not answer in time. @category errors */
export class JudgeUnreachableError extends Schema.TaggedError<JudgeUnreachableError>()("JudgeUnreachableError", {
  model: Schema.String,
  url: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `judge ${this.model} cannot reach ${this.url}: ${this.reason}`
  }
}

/** The failures of an LLM judge. */
export type JudgeError = JudgeAnswerError | JudgeHttpError | JudgeUnreachableError

/** Any failure of scoring. */
export type ScoreError =
  | InputMismatchError
  | TokenizerMismatchError
  | NonFiniteInputError
  | NonFiniteScoreError
  | EmptyBatchError
  | InferenceError
  | JudgeError

/** @internal */
export const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e)).split("\n")[0]!.slice(0, 300)

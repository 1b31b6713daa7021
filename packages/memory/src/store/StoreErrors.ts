/**
 * Tagged errors of the experience store: each names the offending value and where it was found, so the CLI can print
 * it and a log can store it (`Schema.TaggedError`, serializable).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { Errors } from "@autodidact/core"

const show = Errors.show

/**
 * A record handed to `put` that the store refuses: an embedding of the wrong dimension or with a NaN, an importance
 * outside `[0, 1]`, an unknown kind, a payload over the size limit, ...
 *
 * @category errors
 * @since 0.1.0
 */
export class InvalidRecordError extends Schema.TaggedError<InvalidRecordError>()("InvalidRecordError", {
  field: Schema.String,
  value: Schema.Unknown,
  reason: Schema.String
}) {
  override get message() {
    return `Invalid record ${this.field} = ${show(this.value)}: ${this.reason}`
  }
}

/**
 * A query filter, `k`, weight or consolidation option that is out of range or of the wrong type.
 *
 * @category errors
 * @since 0.1.0
 */
export class InvalidQueryError extends Schema.TaggedError<InvalidQueryError>()("InvalidQueryError", {
  option: Schema.String,
  value: Schema.Unknown,
  reason: Schema.String
}) {
  override get message() {
    return `Invalid query ${this.option} = ${show(this.value)}: ${this.reason}`
  }
}

/**
 * The store was written by a newer schema version than this build of `@autodidact/memory` knows; opening it would
 * risk corrupting it. Upgrade the package.
 *
 * @category errors
 * @since 0.1.0
 */
export class SchemaVersionError extends Schema.TaggedError<SchemaVersionError>()("SchemaVersionError", {
  location: Schema.String,
  found: Schema.Number,
  supported: Schema.Number
}) {
  override get message() {
    return `${this.location}: store schema version ${this.found} is newer than the supported version ${this.supported}; upgrade @autodidact/memory`
  }
}

/**
 * The store could not be opened: a corrupted or foreign directory, a dimension different from the one the store was
 * created with, a lock held by a live process, a server that refuses the connection.
 *
 * @category errors
 * @since 0.1.0
 */
export class StoreOpenError extends Schema.TaggedError<StoreOpenError>()("StoreOpenError", {
  location: Schema.String,
  reason: Schema.String,
  cause: Schema.optional(Schema.Unknown)
}) {
  override get message() {
    return `Cannot open experience store at ${this.location}: ${this.reason}`
  }
}

/**
 * A database operation failed after the store was opened (the underlying `SqlError` is the `cause`).
 *
 * @category errors
 * @since 0.1.0
 */
export class StoreSqlError extends Schema.TaggedError<StoreSqlError>()("StoreSqlError", {
  operation: Schema.String,
  reason: Schema.String,
  cause: Schema.optional(Schema.Unknown)
}) {
  override get message() {
    return `Experience store ${this.operation} failed: ${this.reason}`
  }
}

const transientCodes = new Set([
  "40001", // serialization_failure
  "40P01", // deadlock_detected
  "57P01", // admin_shutdown (the backend was terminated)
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now
  "ECONNRESET",
  "ECONNREFUSED",
  "EPIPE",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED"
])

/**
 * Whether a store error is transient: a `StoreSqlError` from a serialization failure, a deadlock, or a connection
 * that was lost, refused or terminated (SQLSTATE class 08, 40001, 40P01, 57P01-57P03, or the socket errors). Such a
 * write was either applied entirely or not at all (every write is one transaction), so retrying it is safe; with an
 * explicit `id` on each record the retry is idempotent even when the first attempt committed and only its
 * acknowledgement was lost (`put` leaves a record repeated with its own id unchanged).
 *
 * @category errors
 * @since 0.1.0
 */
export const isTransient = (error: unknown): boolean => {
  if (!(error instanceof StoreSqlError)) return false
  const sqlError = error.cause as { readonly isRetryable?: unknown; readonly reason?: { readonly cause?: unknown } }
  if (sqlError?.isRetryable === true) return true
  const driver = sqlError?.reason?.cause as { readonly code?: unknown; readonly message?: unknown } | undefined
  const code = typeof driver?.code === "string" ? driver.code : ""
  if (transientCodes.has(code) || code.startsWith("08")) return true
  return /connection (terminated|closed|ended)|terminating connection|ECONNRESET|socket hang up/i.test(
    `${String(driver?.message ?? "")} ${error.reason}`
  )
}

/**
 * The embedder failed: the endpoint answered with an error status or a malformed body, or returned vectors of the
 * wrong dimension.
 *
 * @category errors
 * @since 0.1.0
 */
export class EmbedderError extends Schema.TaggedError<EmbedderError>()("EmbedderError", {
  model: Schema.String,
  reason: Schema.String,
  status: Schema.optional(Schema.Number),
  cause: Schema.optional(Schema.Unknown)
}) {
  override get message() {
    return `Embedder ${this.model}: ${this.reason}${this.status === undefined ? "" : ` (HTTP ${this.status})`}`
  }
}

/**
 * The ONNX embedder could not be opened: the model file is missing (`kind: "missing"`) or not a loadable ONNX model
 * (`"corrupted"`), the tokenizer.json is missing or unusable (`"tokenizer"`), the model declares inputs the embedder
 * cannot feed or lacks `input_ids` (`"inputs"`), or it has no output of a usable shape (`"outputs"`).
 *
 * @category errors
 * @since 0.1.0
 */
export class EmbedderLoadError extends Schema.TaggedError<EmbedderLoadError>()("EmbedderLoadError", {
  model: Schema.String,
  kind: Schema.Literals(["missing", "corrupted", "tokenizer", "inputs", "outputs"]),
  reason: Schema.String,
  cause: Schema.optional(Schema.Unknown)
}) {
  override get message() {
    return `Cannot open embedder ${this.model} (${this.kind}): ${this.reason}`
  }
}

/**
 * The tokenizer emits ids past the model's embedding table (its vocabulary is larger than the table has rows).
 *
 * @category errors
 * @since 0.1.0
 */
export class EmbedderTokenizerMismatchError extends Schema.TaggedError<EmbedderTokenizerMismatchError>()(
  "EmbedderTokenizerMismatchError",
  {
    model: Schema.String,
    tokenizer: Schema.String,
    tokenizerVocabSize: Schema.Number,
    modelVocabSize: Schema.Number
  }
) {
  override get message() {
    return `Tokenizer ${this.tokenizer} (vocabulary ${this.tokenizerVocabSize}) emits ids past the embedding table of ${this.model} (${this.modelVocabSize} rows)`
  }
}

/**
 * Every error a store operation can fail with.
 *
 * @category errors
 * @since 0.1.0
 */
export type StoreError = InvalidRecordError | InvalidQueryError | StoreSqlError | EmbedderError

/**
 * Tagged errors of the replay buffers: each names the offending value and where it was found.
 *
 * **Details**
 * - The synchronous hot-path methods (`add`, `addBatch`, `sample`, `updatePriorities`) throw these (as
 *   `@autodidact/core`'s environments throw theirs); the Effect APIs (`make`, `ReplayFile.save` / `load`) fail with them in
 *   the error channel.
 * - Non-finite rewards and observations are `NonFiniteValueError`, bad options (capacity <= 0, alpha < 0, ...) are
 *   `InvalidOptionError`, both from `@autodidact/core`.
 *
 * @since 0.1.0
 */
import { Errors, InvalidOptionError } from "@autodidact/core"
import { Effect, Schema } from "effect"

/**
 * An input has the wrong number of elements (observation of length 3 for `obsDim` 4, a batch whose rows do not
 * match the number of rewards, ...).
 * @category errors
 */
export class ShapeMismatchError extends Schema.TaggedError<ShapeMismatchError>()("ShapeMismatchError", {
  where: Schema.String,
  expected: Schema.Number,
  actual: Schema.Number
}) {
  override get message() {
    return `${this.where}: expected ${this.expected} elements, got ${this.actual}`
  }
}

/**
 * An input of the wrong element type (an `Int32Array` observation for a float32 column, a fractional discrete
 * action for an int32 action column, ...).
 * @category errors
 */
export class DtypeMismatchError extends Schema.TaggedError<DtypeMismatchError>()("DtypeMismatchError", {
  where: Schema.String,
  expected: Schema.String,
  actual: Schema.String,
  value: Schema.optional(Schema.Unknown)
}) {
  override get message() {
    const v = this.value === undefined ? "" : ` (value ${Errors.show(this.value)})`
    return `${this.where}: expected ${this.expected}, got ${this.actual}${v}`
  }
}

/**
 * A sample was asked for more items than the buffer holds (or from an empty buffer).
 * @category errors
 */
export class InsufficientDataError extends Schema.TaggedError<InsufficientDataError>()("InsufficientDataError", {
  where: Schema.String,
  requested: Schema.Number,
  size: Schema.Number
}) {
  override get message() {
    return `${this.where}: requested a batch of ${this.requested} but the buffer holds ${this.size} items`
  }
}

/**
 * A priority update with a NaN, infinite or negative value, or an index outside `[0, size)`.
 * @category errors
 */
export class InvalidPriorityError extends Schema.TaggedError<InvalidPriorityError>()("InvalidPriorityError", {
  index: Schema.Number,
  value: Schema.Number,
  reason: Schema.String
}) {
  override get message() {
    return `Invalid priority update at index ${this.index} (value ${this.value}): ${this.reason}`
  }
}

/**
 * A replay file could not be written or read (I/O: permission, disk full, missing file).
 * @category errors
 */
export class ReplayIoError extends Schema.TaggedError<ReplayIoError>()("ReplayIoError", {
  path: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `Replay file ${this.path}: ${this.reason}`
  }
}

/**
 * A replay file exists but is not valid: bad magic, truncated, header failing its schema, a version newer than
 * this build reads, a different buffer kind, inconsistent shapes or a payload checksum mismatch.
 * @category errors
 */
export class CorruptReplayFileError extends Schema.TaggedError<CorruptReplayFileError>()("CorruptReplayFileError", {
  path: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `Corrupt replay file ${this.path}: ${this.reason}`
  }
}

/**
 * Construct a buffer as an Effect: the constructor's option checks (which throw `InvalidOptionError`) become the
 * error channel; anything else it throws is reported as an invalid `options` value.
 * @internal
 */
export const construct = <O, A>(Ctor: new (options: O) => A) => (options: O): Effect.Effect<A, InvalidOptionError> =>
  Effect.try({
    try: () => new Ctor(options),
    catch: (e) => (e instanceof InvalidOptionError ? e : new InvalidOptionError({ option: "options", value: options, reason: String(e) }))
  })

/**
 * Tagged errors shared by every package: each names the offending value and where it was found, so that the CLI
 * can print it and a checkpoint or log can store it (`Schema.TaggedError`, serializable).
 *
 * Synchronous hot paths (`env.step`) throw these; Effect APIs fail with them in the error channel.
 * @since 0.1.0
 */
import { Schema } from "effect"

/** An action outside the environment's action space. */
export class InvalidActionError extends Schema.TaggedError<InvalidActionError>()("InvalidActionError", {
  envId: Schema.String,
  action: Schema.Unknown,
  space: Schema.String
}) {
  override get message() {
    return `${this.envId}: action ${show(this.action)} is not in the action space ${this.space}`
  }
}

/** A NaN or ±Infinity where a finite number is required (observation, reward, advantage, loss, ...). */
export class NonFiniteValueError extends Schema.TaggedError<NonFiniteValueError>()("NonFiniteValueError", {
  where: Schema.String,
  value: Schema.Number,
  index: Schema.optional(Schema.Number)
}) {
  override get message() {
    return `${this.where}: non-finite value ${this.value}${this.index === undefined ? "" : ` at index ${this.index}`}`
  }
}

/** `step` called before the first `reset`, or after the episode terminated or was truncated. */
export class ResetNeededError extends Schema.TaggedError<ResetNeededError>()("ResetNeededError", {
  envId: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `${this.envId}: ${this.reason}; call reset() before step()`
  }
}

/** A configuration or option value that is out of range or of the wrong type. */
export class InvalidOptionError extends Schema.TaggedError<InvalidOptionError>()("InvalidOptionError", {
  option: Schema.String,
  value: Schema.Unknown,
  reason: Schema.String
}) {
  override get message() {
    return `Invalid ${this.option} = ${show(this.value)}: ${this.reason}`
  }
}

/**
 * A part of a generated module that its author has not written yet: the stubs that `nx g @autodidact/tools:<kind>`
 * writes throw (or fail with) it, naming what to fill in and where, until the logic is written.
 */
export class NotImplementedError extends Schema.TaggedError<NotImplementedError>()("NotImplementedError", {
  what: Schema.String,
  file: Schema.String
}) {
  override get message() {
    return `fill in ${this.what} in ${this.file}`
  }
}

/** Render an offending value compactly (typed arrays as lists, long values cut). */
export const show = (value: unknown): string => {
  let s: string
  if (ArrayBuffer.isView(value) && !(value instanceof DataView)) {
    s = `[${Array.from(value as unknown as ArrayLike<number>).join(", ")}]`
  } else if (typeof value === "number" || typeof value === "bigint" || value === undefined) s = String(value)
  else {
    try {
      s = JSON.stringify(value) ?? String(value)
    } catch {
      s = String(value)
    }
  }
  return s.length > 200 ? `${s.slice(0, 197)}...` : s
}

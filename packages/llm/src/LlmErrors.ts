/**
 * Tagged errors of `@autodidact/llm` that cross a boundary (printed by the CLI as `error: <Tag>: message`, written to
 * logs): each names the offending value and where it was found. Model calls themselves fail with effect/ai's
 * `AiError` (that is the `LanguageModel` contract); these cover configuration, servers, recording and exports.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

const show = (v: unknown): string => {
  if (typeof v === "string") return JSON.stringify(v.length > 200 ? `${v.slice(0, 200)}...` : v)
  try {
    const s = JSON.stringify(v)
    return s === undefined ? String(v) : s.length > 200 ? `${s.slice(0, 200)}...` : s
  } catch {
    return String(v)
  }
}

/**
 * A configuration value that cannot be used: a missing API key for a non-loopback base URL, a malformed URL, a
 * non-positive timeout, an unknown store target, ...
 *
 * @category errors
 * @since 0.1.0
 */
export class LlmConfigError extends Schema.TaggedError<LlmConfigError>()("LlmConfigError", {
  option: Schema.String,
  value: Schema.Unknown,
  reason: Schema.String
}) {
  override get message() {
    return `${this.option} = ${show(this.value)}: ${this.reason}`
  }
}

/**
 * A server (gateway or environment server) that could not start: the port is taken, the host cannot be bound, or a
 * non-loopback host was asked for without allowing it.
 *
 * @category errors
 * @since 0.1.0
 */
export class ServerStartError extends Schema.TaggedError<ServerStartError>()("ServerStartError", {
  host: Schema.String,
  port: Schema.Number,
  reason: Schema.String
}) {
  override get message() {
    return `cannot serve on ${this.host}:${this.port}: ${this.reason}`
  }
}

/**
 * A recorded exchange or reward that could not be written (disk full, store refused the record, ...).
 *
 * @category errors
 * @since 0.1.0
 */
export class RecordError extends Schema.TaggedError<RecordError>()("RecordError", {
  location: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `cannot record to ${this.location}: ${this.reason}`
  }
}

/**
 * A line of an input file of `Export` that is not a trajectory or gateway row (bad JSON, missing fields), with its
 * 1-based line number.
 *
 * @category errors
 * @since 0.1.0
 */
export class ExportInputError extends Schema.TaggedError<ExportInputError>()("ExportInputError", {
  file: Schema.String,
  line: Schema.Number,
  reason: Schema.String
}) {
  override get message() {
    return this.line > 0 ? `${this.file}:${this.line}: ${this.reason}` : `${this.file}: ${this.reason}`
  }
}

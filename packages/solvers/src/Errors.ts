/**
 * Tagged errors of the game solvers: each names the offending value, so that the CLI can print it and a log can
 * store it (`Schema.TaggedError`, serializable). Invalid option values use `InvalidOptionError` from
 * `@autodidact/core`.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/**
 * An algorithm name that {@link Solver} does not know.
 * @category errors
 */
export class UnknownAlgorithmError extends Schema.TaggedError<UnknownAlgorithmError>()("UnknownAlgorithmError", {
  algo: Schema.String,
  known: Schema.Array(Schema.String)
}) {
  override get message() {
    return `Unknown algorithm ${JSON.stringify(this.algo)}; known: ${this.known.join(", ")}`
  }
}

/**
 * A solver-state file that cannot be used: unreadable, not JSON, failing the schema, or made for another game or
 * algorithm.
 * @category errors
 */
export class CorruptedSolverStateError extends Schema.TaggedError<CorruptedSolverStateError>()("CorruptedSolverStateError", {
  path: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `Solver state ${this.path}: ${this.reason}`
  }
}

/**
 * A solver-state file could not be written.
 * @category errors
 */
export class SolverStateWriteError extends Schema.TaggedError<SolverStateWriteError>()("SolverStateWriteError", {
  path: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `Cannot write solver state ${this.path}: ${this.reason}`
  }
}

/**
 * A policy that lacks an information state the game reaches (or has other legal actions there).
 * @category errors
 */
export class PolicyMissingInfoStateError extends Schema.TaggedError<PolicyMissingInfoStateError>()(
  "PolicyMissingInfoStateError",
  {
    game: Schema.String,
    infoState: Schema.String,
    player: Schema.Number,
    reason: Schema.String
  }
) {
  override get message() {
    return `${this.game}: policy ${this.reason} information state ${JSON.stringify(this.infoState)} of player ${this.player}`
  }
}

/** A malformed game (the error of `@autodidact/envs`). */
export { InvalidGameError } from "@autodidact/envs"

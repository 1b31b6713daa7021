/**
 * The errors of PPO checkpoints ({@link CheckpointError}: I/O; {@link CorruptCheckpointError}: not a valid checkpoint),
 * browser-safe so that `Ppo.train`'s error type needs no Node: `Checkpoint` itself (node:fs, node:crypto) is in
 * `@autodidact/optim/node` and re-exports them.
 * @since 0.2.0
 */
import { Schema } from "effect"

/**
 * A checkpoint could not be written or read (I/O).
 * @category errors
 */
export class CheckpointError extends Schema.TaggedError<CheckpointError>()("CheckpointError", {
  path: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `Checkpoint ${this.path}: ${this.reason}`
  }
}

/**
 * A checkpoint file exists but is not a valid checkpoint (truncated, edited, wrong version, bad checksum).
 * @category errors
 */
export class CorruptCheckpointError extends Schema.TaggedError<CorruptCheckpointError>()("CorruptCheckpointError", {
  path: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `Corrupt checkpoint ${this.path}: ${this.reason}`
  }
}

/**
 * PPO's per-run callbacks (`Hooks` of the public {@link Ppo} namespace, re-exported there): progress rows, an abort
 * signal, and the checkpoint writer.
 * @internal
 * @since 0.2.0
 */
import type { Metrics } from "@autodidact/core"
import type { Effect } from "effect"
import type { CheckpointError } from "../ppo/CheckpointError.js"
import type { TrainState } from "./PpoState.js"

/** Per-run callbacks; all optional. They run synchronously inside the loop: keep them cheap. */
export interface Hooks {
  /** Called for every finished episode (`kind: "episode"` row of `metrics.jsonl`). */
  readonly onEpisode?: ((row: Metrics.EpisodeRow) => void) | undefined
  /** Called after every update (`kind: "update"` row). */
  readonly onUpdate?: ((row: Metrics.UpdateRow) => void) | undefined
  /** Stop at the next step boundary when aborted (`stopReason: "aborted"`). */
  readonly signal?: AbortSignal | undefined
  /**
   * Writes a checkpoint (needed with the `checkpoint` option): `Checkpoint.save` of `@autodidact/optim/node`, whose
   * `Ppo.train` passes it. Without it, the `checkpoint` option is an `InvalidOptionError` (the main entry has no file
   * system: it runs in browsers).
   */
  readonly saveCheckpoint?: ((path: string, state: TrainState) => Effect.Effect<void, CheckpointError>) | undefined
}

/**
 * `@autodidact/optim/node` (Node only): atomic PPO checkpoints ({@link Checkpoint}: node:fs, node:crypto), the
 * {@link Ppo} namespace whose `train` writes them (the `checkpoint` option), and the plain {@link trainPpo} doing the
 * same, and the text runs' DRRN policy file ({@link DrrnPolicyFile}). The main entry `@autodidact/optim` has no Node built-in (it bundles for browsers).
 * @since 0.2.0
 */
import { Effect } from "effect"
import * as Checkpoint from "./ppo/Checkpoint.js"
import type { TrainState } from "./internal/PpoState.js"
import type { TrainPpoOptions, TrainPpoResult } from "./Plain.js"
import * as Plain from "./Plain.js"

export { Checkpoint }
export * as Ppo from "./node/Ppo.js"
export * as MultiTurnBenchmark from "./node/MultiTurnBenchmark.js"
export * as PpoBenchmark from "./node/PpoBenchmark.js"
export * as SelfPlayFiles from "./node/SelfPlayFiles.js"
export * as DrrnPolicyFile from "./node/DrrnPolicyFile.js"

/** The plain `trainPpo` with checkpoints (the `checkpoint` option) written by `Checkpoint.save`. */
export const trainPpo = (options: TrainPpoOptions): Promise<TrainPpoResult> => Plain.trainPpo({ saveCheckpoint: Checkpoint.save, ...options })

/** The plain {@link Checkpoint.load}: resolves to the training state (`trainPpo({ env, resume: state })` continues it). */
export const loadCheckpoint = (path: string): Promise<TrainState> => Effect.runPromise(Checkpoint.load(path))

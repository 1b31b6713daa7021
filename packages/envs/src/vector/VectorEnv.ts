/**
 * Vector environments: `numEnvs` copies of one environment stepped together, with Gymnasium 1.x semantics.
 *
 * Batches are flat typed arrays so that policies read them without copying:
 * - observations: for a `Box` single observation space, a typed array of its dtype with `numEnvs * size` elements
 *   (row i holds env i); for `Discrete`, an `Int32Array` of `numEnvs`; for other spaces, an array of values.
 * - actions: for `Discrete`, an `Int32Array` (or number array) of `numEnvs`; for `Box`, a `Float32Array` of
 *   `numEnvs * size`; for other spaces, an array of values.
 * - rewards: `Float64Array(numEnvs)`; terminations/truncations: `Uint8Array(numEnvs)` of 0/1.
 *
 * **Autoreset modes** (Gymnasium 1.x `AutoresetMode`):
 * - `NextStep` (Gymnasium's default): when sub-env i ends at step t, step t returns its final observation;
 *   the *next* `step` call resets it (ignoring action i) and returns the reset observation with reward 0,
 *   terminated and truncated false.
 * - `SameStep`: step t resets sub-env i at once and returns the reset observation; the final observation is in
 *   `infos.finalObservation[i]` (and `infos.finalInfo[i]`). This is what CleanRL's PPO assumes.
 * - `Disabled`: no autoreset; the caller resets sub-envs with `reset({ options: { resetMask } })`.
 *
 * The returned batch buffers are owned by the vector environment and overwritten by the next call: copy what
 * must outlive it. Returning the same buffers keeps the hot path allocation-free.
 *
 * @see https://gymnasium.farama.org/api/vector/ (Gymnasium 1.x `VectorEnv`, autoreset modes)
 * @since 0.1.0
 */
import type { Space } from "@autodidact/core"
import type { Info } from "../Env.js"

/** Gymnasium 1.x autoreset mode. */
export type AutoresetMode = "NextStep" | "SameStep" | "Disabled"

/** A batch of observations or actions (see the module docs for the layout per space). */
export type Batch = Float32Array | Float64Array | Int32Array | Uint8Array | Array<unknown>

/** Per-sub-env extras of a vector step. `finalObservation`/`finalInfo` are set in `SameStep` mode for ended envs. */
export interface VectorInfo {
  /** Info of each sub-env (index i). */
  readonly infos: ReadonlyArray<Info>
  /** `SameStep` mode: the last observation of each sub-env that ended this step (undefined elsewhere). */
  readonly finalObservation?: ReadonlyArray<unknown> | undefined
  /** `SameStep` mode: the last info of each sub-env that ended this step. */
  readonly finalInfo?: ReadonlyArray<Info | undefined> | undefined
}

/** Options of a vector reset. `seed` is a base seed (sub-env i gets `seed + i`) or one seed per sub-env. */
export interface VectorResetOptions {
  /** A base seed (sub-env i gets `seed + i`) or `numEnvs` seeds. */
  readonly seed?: number | ReadonlyArray<number> | undefined
  /** Options of every sub-env's reset; `resetMask` (length `numEnvs`) resets only the sub-envs marked true. */
  readonly options?: { readonly [key: string]: unknown; readonly resetMask?: ReadonlyArray<boolean> | Uint8Array } | undefined
}

/** What a vector `reset` returns (buffers owned by the vector env, overwritten by the next call). */
export interface VectorResetResult {
  /** `numEnvs` first observations (layout in the module docs). */
  readonly observations: Batch
  /** Per-sub-env reset infos. */
  readonly infos: VectorInfo
}

/** What a vector `step` returns (buffers owned by the vector env, overwritten by the next call). */
export interface VectorStepResult {
  /** `numEnvs` observations (after autoreset in `SameStep` mode). */
  readonly observations: Batch
  /** `Float64Array(numEnvs)` rewards. */
  readonly rewards: Float64Array
  /** `Uint8Array(numEnvs)`, 1 where the sub-env terminated. */
  readonly terminations: Uint8Array
  /** `Uint8Array(numEnvs)`, 1 where the sub-env was truncated. */
  readonly truncations: Uint8Array
  /** Per-sub-env infos and, in `SameStep` mode, final observations. */
  readonly infos: VectorInfo
}

/**
 * A batch of `numEnvs` environments.
 * @category models
 */
export interface VectorEnv {
  /** Number of sub-environments (rows of every batch). */
  readonly numEnvs: number
  /** Observation space of one sub-env. */
  readonly singleObservationSpace: Space.Space
  /** Action space of one sub-env. */
  readonly singleActionSpace: Space.Space
  /** How ended sub-envs are reset (module docs). */
  readonly autoresetMode: AutoresetMode
  /**
   * Reset all sub-envs (or those in `options.resetMask`).
   * @throws InvalidOptionError for a bad seed array or mask; errors of the sub-envs' `reset`.
   */
  reset(options?: VectorResetOptions): VectorResetResult
  /**
   * Step every sub-env with row i of `actions`, autoresetting as `autoresetMode` says.
   * @throws InvalidActionError for a malformed batch or an action outside the space; ResetNeededError after
   *   `close()` or for an ended sub-env in `Disabled` mode.
   */
  step(actions: Batch): VectorStepResult
  /** Close every sub-env; idempotent. */
  close(): void
}

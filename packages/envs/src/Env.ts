/**
 * The single-agent environment contract, with Gymnasium 1.x semantics.
 *
 * An environment is a synchronous state machine: `reset` starts an episode and returns the first observation;
 * `step(action)` advances it and says whether the episode `terminated` (a terminal state of the MDP was reached)
 * or was `truncated` (a time limit or other outside condition ended it; bootstrapping is still valid); `render`
 * draws the current state; `close` releases resources. The hot path (`step`) is plain, synchronous code; the
 * Effect boundary is {@link scoped}, which acquires an environment in a `Scope` and closes it on release.
 *
 * **Details**
 * - Seeding follows Gymnasium: `reset({ seed })` re-seeds `npRandom` with `Rng.make(seed)` (NumPy-compatible), a
 *   reset without a seed continues the current generator; the first reset without any seed seeds from entropy.
 * - `step` after `terminated`/`truncated` or before the first `reset` throws {@link ResetNeededError}; an action
 *   outside `actionSpace` throws {@link InvalidActionError}; NaN/Infinity in an observation or reward throws
 *   {@link NonFiniteValueError} (checked by the `PassiveEnvChecker`-style `checked` wrapper that `make` applies).
 *
 * @see https://gymnasium.farama.org/api/env/ (Gymnasium 1.x `Env`)
 * @since 0.1.0
 */
import type { Rng, Space, Trajectory } from "@autodidact/core"
import { Effect, type Scope } from "effect"

/** Per-step diagnostics (Gymnasium's `info` dict). */
export type Info = Trajectory.Info

/** Options of `reset` (Gymnasium's `reset(seed=None, options=None)`). */
export interface ResetOptions {
  /** Re-seed `npRandom` with `Rng.make(seed)`: a non-negative safe integer (else `InvalidSeedError`). */
  readonly seed?: number | undefined
  /** Env-specific reset options (e.g. CartPole's `low`/`high`/`state`); unknown keys are ignored. */
  readonly options?: { readonly [key: string]: unknown } | undefined
}

/** What `reset` returns. */
export interface ResetResult<Obs> {
  /** The first observation of the episode, a member of `observationSpace`. */
  readonly observation: Obs
  /** Diagnostics of the reset (a plain object, often empty). */
  readonly info: Info
}

/** What `step` returns: Gymnasium's 5-tuple as a record. */
export interface StepResult<Obs> {
  /** The observation after the step, a member of `observationSpace`. */
  readonly observation: Obs
  /** Scalar reward for the transition (finite). */
  readonly reward: number
  /** A terminal state of the MDP was reached (no bootstrapping past it). */
  readonly terminated: boolean
  /** The episode was cut short (time limit, out of bounds); the last observation is still valid for bootstrapping. */
  readonly truncated: boolean
  /** Diagnostics of the step (a plain object). */
  readonly info: Info
}

/** Registration facts of an environment id (Gymnasium's `EnvSpec`). */
export interface EnvSpec {
  /** Versioned id, e.g. `CartPole-v1`. */
  readonly id: string
  /** `TimeLimit` applied by `make` (undefined = none). */
  readonly maxEpisodeSteps?: number | undefined
  /** Mean return over 100 consecutive episodes at which the task counts as solved. */
  readonly rewardThreshold?: number | undefined
  /** Whether the environment is deterministic given the seed. */
  readonly nondeterministic?: boolean | undefined
  /** Options passed to the constructor. */
  readonly kwargs?: { readonly [key: string]: unknown } | undefined
}

/** Static facts about rendering (Gymnasium's `metadata`). */
export interface Metadata {
  /** The render modes the env supports (`"ansi"`: `render()` returns text). */
  readonly renderModes: ReadonlyArray<"ansi" | "rgb_array" | "human">
  /** Frames per second of a human rendering. */
  readonly renderFps?: number | undefined
}

/**
 * A single-agent environment with observation type `Obs` and action type `Act`.
 * @category models
 */
export interface Env<Obs = unknown, Act = unknown> {
  /** The space every observation belongs to (`Space.contains(observationSpace, obs)`). */
  readonly observationSpace: Space.Space
  /** The space of legal actions. */
  readonly actionSpace: Space.Space
  /** Static facts about rendering. */
  readonly metadata: Metadata
  /** Set by the registry's `make`; undefined for an environment built by hand. */
  spec: EnvSpec | undefined
  /** The environment's generator (Gymnasium's `np_random`), re-seeded by `reset({ seed })`. */
  readonly npRandom: Rng
  /** The innermost environment under all wrappers. */
  readonly unwrapped: Env<unknown, unknown>
  /**
   * Start an episode (Gymnasium's `reset`).
   * @throws InvalidSeedError for a bad seed; InvalidOptionError for bad env options.
   */
  reset(options?: ResetOptions): ResetResult<Obs>
  /**
   * Advance the episode by one action (Gymnasium's `step`).
   * @throws ResetNeededError before the first reset or after the episode ended; InvalidActionError for an action
   *   outside `actionSpace`.
   */
  step(action: Act): StepResult<Obs>
  /** Text (ANSI) rendering of the current state, or undefined when the env has none. */
  render(): string | undefined
  /** Release resources; idempotent. */
  close(): void
}

/** Any environment. */
export type AnyEnv = Env<any, any>

/**
 * Acquire an environment in a `Scope`: `close()` runs when the scope closes, whatever the outcome.
 *
 * @example
 * ```ts
 * const program = Effect.scoped(Effect.gen(function* () {
 *   const env = yield* Env.scoped(() => Registry.make("CartPole-v1"))
 *   return env.reset({ seed: 0 }).observation
 * }))
 * ```
 */
export const scoped = <E extends AnyEnv>(acquire: () => E): Effect.Effect<E, unknown, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.try({ try: acquire, catch: (e) => e }),
    (env) => Effect.sync(() => env.close())
  )

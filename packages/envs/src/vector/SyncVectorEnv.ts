/**
 * `SyncVectorEnv`: `numEnvs` environments stepped one after the other in the calling thread, with Gymnasium 1.x
 * autoreset semantics (`gymnasium/vector/sync_vector_env.py`, `SyncVectorEnv.reset`/`step`).
 *
 * **When to use**: cheap environments (CartPole, FrozenLake, grid worlds) where a step costs less than a message to
 * another thread; use {@link AsyncVectorEnv} when one step is expensive.
 *
 * **Details**
 * - Batches follow `VectorEnv.ts`: observations in one preallocated typed array (row i = sub-env i), rewards in a
 *   `Float64Array`, terminations/truncations in `Uint8Array`s. They are reused by every call: copy what must outlive
 *   the next `step`/`reset`.
 * - `reset({ seed })`: sub-env i is reset with `seed + i` (or `seed[i]` for an array); `options.resetMask` resets
 *   only the marked sub-envs, keeping the other rows.
 * - Autoreset: `NextStep` (default), `SameStep`, `Disabled`, exactly as `VectorEnv.ts` describes.
 *
 * @example
 * ```ts
 * import { Registry, SyncVectorEnv } from "@autodidact/envs"
 * const envs = new SyncVectorEnv.SyncVectorEnv(
 *   [0, 1, 2, 3].map(() => () => Registry.make("CartPole-v1")),
 *   { autoresetMode: "SameStep" }
 * )
 * const { observations } = envs.reset({ seed: 42 }) // Float32Array(16)
 * const r = envs.step(new Int32Array([0, 1, 0, 1]))
 * ```
 * @see https://github.com/Farama-Foundation/Gymnasium/blob/v1.4.0/gymnasium/vector/sync_vector_env.py
 * @since 0.1.0
 */
import { InvalidOptionError, ResetNeededError, Space } from "@autodidact/core"
import type { AnyEnv, Info } from "../Env.js"
import { checkAutoresetMode, splitResetOptions, stepResult, subSeeds } from "../internal/VectorCommon.js"
import * as VectorBatch from "./VectorBatch.js"
import type {
  AutoresetMode,
  Batch,
  VectorEnv,
  VectorResetOptions,
  VectorResetResult,
  VectorStepResult
} from "./VectorEnv.js"

/** Options of {@link SyncVectorEnv}. */
export interface SyncVectorEnvOptions {
  /** Default `"NextStep"`. */
  readonly autoresetMode?: AutoresetMode | undefined
}

const EMPTY_INFO: Info = Object.freeze({})

/**
 * Sub-environments stepped in sequence in this thread.
 * @category models
 */
export class SyncVectorEnv implements VectorEnv {
  /** Number of sub-envs. */
  readonly numEnvs: number
  /** The sub-envs, in row order. */
  readonly envs: ReadonlyArray<AnyEnv>
  /** Observation space of sub-env 0 (every sub-env must have the same). */
  readonly singleObservationSpace: Space.Space
  /** Action space of sub-env 0 (every sub-env must have the same). */
  readonly singleActionSpace: Space.Space
  /** How ended sub-envs are reset. */
  readonly autoresetMode: AutoresetMode
  private readonly observations: Batch
  private readonly rewards: Float64Array
  private readonly terminations: Uint8Array
  private readonly truncations: Uint8Array
  /** Sub-envs that ended on the last step (Gymnasium's `_autoreset_envs`). */
  private readonly autoresetEnvs: Uint8Array
  private readonly boxObs: boolean
  private readonly discreteAct: boolean
  private closed = false

  /**
   * @param envFns one constructor per sub-env (e.g. `() => Registry.make("CartPole-v1")`).
   * @throws InvalidOptionError when `envFns` is empty, the sub-envs' spaces differ, or the mode is unknown.
   */
  constructor(envFns: ReadonlyArray<() => AnyEnv>, options: SyncVectorEnvOptions = {}) {
    if (envFns.length === 0) throw new InvalidOptionError({ option: "envFns", value: [], reason: "expected at least one env" })
    this.autoresetMode = checkAutoresetMode(options.autoresetMode ?? "NextStep")
    this.envs = envFns.map((f) => f())
    this.numEnvs = this.envs.length
    const first = this.envs[0]!
    this.singleObservationSpace = first.observationSpace
    this.singleActionSpace = first.actionSpace
    this.envs.forEach((env, i) => {
      if (!Space.equals(env.observationSpace, this.singleObservationSpace) || !Space.equals(env.actionSpace, this.singleActionSpace)) {
        throw new InvalidOptionError({
          option: `envFns[${i}]`,
          value: `${Space.describe(env.observationSpace)} / ${Space.describe(env.actionSpace)}`,
          reason: "every sub-env must have the same observation and action spaces as sub-env 0"
        })
      }
    })
    this.observations = VectorBatch.create(this.singleObservationSpace, this.numEnvs)
    this.rewards = new Float64Array(this.numEnvs)
    this.terminations = new Uint8Array(this.numEnvs)
    this.truncations = new Uint8Array(this.numEnvs)
    this.autoresetEnvs = new Uint8Array(this.numEnvs)
    this.boxObs = this.singleObservationSpace._tag === "Box"
    this.discreteAct = this.singleActionSpace._tag === "Discrete"
  }

  private get id(): string {
    return `SyncVectorEnv(${this.envs[0]?.spec?.id ?? "env"})`
  }

  private writeObs(i: number, obs: unknown): void {
    if (this.boxObs) (this.observations as Float32Array).set(obs as Float32Array, i * (obs as Float32Array).length)
    else VectorBatch.write(this.singleObservationSpace, this.observations, i, obs)
  }

  /**
   * Reset all sub-envs (or those in `options.resetMask`); sub-env i gets `seed + i`.
   * Returns the shared observation batch and each sub-env's reset info (`{}` for sub-envs not reset).
   * @throws InvalidOptionError for a bad mask or seed array; whatever the sub-envs' `reset` throws.
   */
  reset(options: VectorResetOptions = {}): VectorResetResult {
    this.assertOpen()
    const seeds = subSeeds(options.seed, this.numEnvs)
    const { mask, rest } = splitResetOptions(options.options, this.numEnvs)
    const infos = new Array<Info>(this.numEnvs)
    for (let i = 0; i < this.numEnvs; i++) {
      if (!mask[i]) {
        infos[i] = EMPTY_INFO
        continue
      }
      const r = this.envs[i]!.reset({ seed: seeds[i], options: rest })
      this.writeObs(i, r.observation)
      infos[i] = r.info
      this.autoresetEnvs[i] = 0
    }
    return { observations: this.observations, infos: { infos } }
  }

  /**
   * Step every sub-env with its action (row i of `actions`), autoresetting as `autoresetMode` says.
   * Returns the shared batches (overwritten by the next call).
   * @throws InvalidActionError when the batch has the wrong length, or from a sub-env;
   *   ResetNeededError in `Disabled` mode when a sub-env that ended was not reset, or before `reset`.
   */
  step(actions: Batch): VectorStepResult {
    this.assertOpen()
    VectorBatch.checkActions(this.id, this.singleActionSpace, actions, this.numEnvs)
    const n = this.numEnvs
    const infos = new Array<Info>(n)
    let finalObservation: Array<unknown> | undefined
    let finalInfo: Array<Info | undefined> | undefined
    const mode = this.autoresetMode
    for (let i = 0; i < n; i++) {
      const env = this.envs[i]!
      if (mode === "NextStep" && this.autoresetEnvs[i] === 1) {
        const r = env.reset()
        this.writeObs(i, r.observation)
        this.rewards[i] = 0
        this.terminations[i] = 0
        this.truncations[i] = 0
        this.autoresetEnvs[i] = 0
        infos[i] = r.info
        continue
      }
      if (mode === "Disabled" && this.autoresetEnvs[i] === 1) {
        throw new ResetNeededError({
          envId: `${this.id}[${i}]`,
          reason: `sub-env ${i} ended and autoreset is Disabled; reset it with reset({ options: { resetMask } })`
        })
      }
      const action = this.discreteAct
        ? actions[i]
        : VectorBatch.read(this.singleActionSpace, actions, i)
      const r = env.step(action)
      this.rewards[i] = r.reward
      const ended = r.terminated || r.truncated
      this.terminations[i] = r.terminated ? 1 : 0
      this.truncations[i] = r.truncated ? 1 : 0
      this.autoresetEnvs[i] = ended ? 1 : 0
      if (mode === "SameStep" && ended) {
        finalObservation ??= new Array<unknown>(n).fill(undefined)
        finalInfo ??= new Array<Info | undefined>(n).fill(undefined)
        finalObservation[i] = r.observation
        finalInfo[i] = r.info
        const rr = env.reset()
        this.writeObs(i, rr.observation)
        infos[i] = rr.info
      } else {
        this.writeObs(i, r.observation)
        infos[i] = r.info
      }
    }
    return stepResult(this.observations, this.rewards, this.terminations, this.truncations, infos, finalObservation, finalInfo)
  }

  /** Close every sub-env; further calls throw {@link ResetNeededError}. Idempotent. */
  close(): void {
    if (this.closed) return
    this.closed = true
    for (const env of this.envs) env.close()
  }

  private assertOpen(): void {
    if (this.closed) throw new ResetNeededError({ envId: this.id, reason: "the vector env is closed" })
  }
}

/**
 * `FrozenLakeBatch`: `numEnvs` FrozenLake-v1 environments as arrays, stepped in one loop: bit-identical to
 * `SyncVectorEnv` over `make("FrozenLake-v1", kwargs)` (the same transition table `P`, sampled with the same single
 * uniform draw per step from each row's generator, `TimeLimit(100)`; 200 for `FrozenLake8x8-v1`) with the same
 * seeds, actions and autoreset mode.
 *
 * **Details**
 * - `P` is flattened into typed arrays: for state s and action a, entries `(4s + a)·3 + k` (k < `count[4s + a]`) of
 *   `prob`, `next`, `reward`, `done`, in Gymnasium's order (so the cumulative sums match `categorical_sample`).
 * - `observations`: `Int32Array(numEnvs)` of states `row * ncol + col`; actions an `Int32Array(numEnvs)` of 0–3.
 * - Step info `{ prob }` and reset info `{ prob: 1 }`, built only when `infos` is read.
 * - Kwargs as `FrozenLakeEnv`, except `mapName: null` (a random map per sub-env), which a batch cannot share: pass
 *   `desc` (e.g. from `FrozenLake.generateRandomMap`) instead.
 *
 * @see https://github.com/Farama-Foundation/Gymnasium/blob/v1.4.0/gymnasium/envs/toy_text/frozen_lake.py
 * @since 0.2.0
 */
import { InvalidOptionError } from "@autodidact/core"
import type { Info } from "../Env.js"
import { type BatchedOptions, BatchedVectorEnv, NEXT_STEP } from "../vector/BatchedVectorEnv.js"
import type { Batch, VectorStepResult } from "../vector/VectorEnv.js"
import { FrozenLakeEnv, type FrozenLakeOptions } from "./FrozenLake.js"

/** Options of {@link FrozenLakeBatch}: the env's kwargs plus the batch's. */
export interface FrozenLakeBatchOptions extends FrozenLakeOptions, BatchedOptions {}

const RESET_INFO: Info = Object.freeze({ prob: 1 })

/**
 * `numEnvs` FrozenLake environments held in typed arrays.
 * @category models
 */
export class FrozenLakeBatch extends BatchedVectorEnv {
  /** `Int32Array(numEnvs)`: each sub-env's state `row * ncol + col`. */
  readonly state: Int32Array
  /** The map rows. */
  readonly desc: ReadonlyArray<string>
  private readonly count: Uint8Array
  private readonly prob: Float64Array
  private readonly next: Int32Array
  private readonly reward: Float64Array
  private readonly done: Uint8Array
  private readonly initial: Float64Array
  /** Probability of each row's last sampled transition (its step info). */
  private readonly lastProb: Float64Array

  /**
   * @param numEnvs number of sub-envs (positive integer).
   * @throws InvalidOptionError for a bad `numEnvs`, `maxEpisodeSteps` (default 100), mode, `mapName: null`, or the
   *   kwargs `FrozenLakeEnv` rejects; InvalidMapError for a bad `desc`.
   */
  constructor(numEnvs: number, options: FrozenLakeBatchOptions = {}) {
    if (options.desc === undefined && options.mapName === null) {
      throw new InvalidOptionError({ option: "mapName", value: null, reason: "a batch shares one map: pass desc (e.g. FrozenLake.generateRandomMap()) instead" })
    }
    const template = new FrozenLakeEnv(options)
    super("FrozenLakeBatch(FrozenLake-v1)", numEnvs, template.observationSpace, template.actionSpace, options.maxEpisodeSteps ?? 100, options)
    this.desc = template.desc
    const ns = template.nrow * template.ncol
    this.count = new Uint8Array(4 * ns)
    this.prob = new Float64Array(12 * ns)
    this.next = new Int32Array(12 * ns)
    this.reward = new Float64Array(12 * ns)
    this.done = new Uint8Array(12 * ns)
    for (let s = 0; s < ns; s++) {
      for (let a = 0; a < 4; a++) {
        const list = template.P[s]![a]!
        this.count[4 * s + a] = list.length
        list.forEach(([p, nx, r, d], k) => {
          const j = (4 * s + a) * 3 + k
          this.prob[j] = p
          this.next[j] = nx
          this.reward[j] = r
          this.done[j] = d ? 1 : 0
        })
      }
    }
    this.initial = template.initialStateDistrib
    this.state = new Int32Array(numEnvs)
    this.lastProb = new Float64Array(numEnvs)
  }

  protected resetRow(i: number, _options: { readonly [key: string]: unknown } | undefined): void {
    const s = this.rng(i).categorical(this.initial)
    this.state[i] = s
    ;(this.observations as Int32Array)[i] = s
  }

  protected resetInfo(_i: number): Info {
    return RESET_INFO
  }

  protected stepInfo(i: number): Info {
    return { prob: this.lastProb[i]! }
  }

  /**
   * Move every sub-env by one sampled transition of `P[s][a]` (one uniform draw each, as `categorical_sample`), in
   * one loop; autoreset as `autoresetMode` says. Returns the shared buffers.
   * @throws InvalidActionError when `actions` is not `numEnvs` values in 0–3; ResetNeededError (see the base).
   */
  step(actions: Batch): VectorStepResult {
    this.beginStep(actions)
    const act = actions as Int32Array
    const n = this.numEnvs
    const st = this.state
    const obs = this.observations as Int32Array
    const rew = this.rewards
    const term = this.terminations
    const trunc = this.truncations
    const el = this.elapsed
    const need = this.needsReset
    const rngs = this.rngs
    const count = this.count
    const prob = this.prob
    const next = this.next
    const reward = this.reward
    const done = this.done
    const lastProb = this.lastProb
    const nextStep = this.mode === NEXT_STEP
    const maxSteps = this.maxEpisodeSteps
    for (let i = 0; i < n; i++) {
      if (nextStep && need[i] === 1) {
        this.autoresetRow(i)
        continue
      }
      const sa = 4 * st[i]! + act[i]!
      const base = 3 * sa
      const c = count[sa]!
      const u = rngs[i]!.random()
      let acc = 0
      let j = base
      for (let k = 0; k < c; k++) {
        acc += prob[base + k]!
        if (acc > u) {
          j = base + k
          break
        }
      }
      const s = next[j]!
      st[i] = s
      obs[i] = s
      lastProb[i] = prob[j]!
      rew[i] = reward[j]!
      const terminated = done[j] === 1
      const steps = el[i]! + 1
      el[i] = steps
      const truncated = steps >= maxSteps
      term[i] = terminated ? 1 : 0
      trunc[i] = truncated ? 1 : 0
      if (terminated || truncated) this.endRow(i)
    }
    return this.finishStep()
  }
}

/**
 * `numEnvs` batched FrozenLake sub-envs (the registry's `vectorEntryPoint` for `FrozenLake-v1` / `FrozenLake8x8-v1`).
 * @category constructors
 */
export const make = (numEnvs: number, options: FrozenLakeBatchOptions = {}): FrozenLakeBatch => new FrozenLakeBatch(numEnvs, options)

/**
 * `NormalizeObservation`: observations to running zero mean and unit variance, and `RunningMeanStd`, the running
 * statistics behind it (Gymnasium's `NormalizeObservation` and `gymnasium/wrappers/utils.py` `RunningMeanStd`).
 * @see https://github.com/Farama-Foundation/Gymnasium/blob/v1.4.0/gymnasium/wrappers/stateful_observation.py
 * @since 0.1.0
 */
import { InvalidOptionError, Space } from "@autodidact/core"
import type { AnyEnv } from "../Env.js"
import { ObservationWrapper } from "./Wrapper.js"

/**
 * Running mean and variance of a stream of vectors (Gymnasium's `RunningMeanStd`: parallel/Chan update, starting
 * from mean 0, var 1, count `epsilon` = 1e-4).
 */
export class RunningMeanStd {
  /** Per-element running mean (`Float64Array(size)`). */
  readonly mean: Float64Array
  /** Per-element running (population) variance (`Float64Array(size)`). */
  readonly var: Float64Array
  /** Vectors folded in, plus the initial `epsilon`. */
  count: number
  /** @param size vector length; @param epsilon initial count (Gymnasium's 1e-4). */
  constructor(readonly size: number, epsilon = 1e-4) {
    this.mean = new Float64Array(size)
    this.var = new Float64Array(size).fill(1)
    this.count = epsilon
  }
  /** Fold in one vector (a batch of 1: batch mean = x, batch var = 0). */
  update(x: ArrayLike<number>): void {
    const tot = this.count + 1
    for (let i = 0; i < this.size; i++) {
      const delta = x[i]! - this.mean[i]!
      this.mean[i] = this.mean[i]! + delta / tot
      const m2 = this.var[i]! * this.count + (delta * delta * this.count) / tot
      this.var[i] = m2 / tot
    }
    this.count = tot
  }
}

/**
 * Normalizes `Box` observations to about zero mean and unit variance with running statistics:
 * `(obs - mean) / sqrt(var + epsilon)` as a `Float32Array`, after folding `obs` into the statistics (while
 * `updateRunningMean` is true). The observation space becomes `Box(-inf, inf, shape, float32)`.
 * @throws InvalidOptionError when the observation space is not a `Box`.
 * @category wrappers
 */
export class NormalizeObservation<Act = any> extends ObservationWrapper<Float32Array, Act, ArrayLike<number>> {
  /** The running statistics (Gymnasium's `obs_rms`). */
  readonly obsRms: RunningMeanStd
  /** Whether observations update the statistics (set false to freeze them for evaluation). */
  updateRunningMean = true
  private readonly space: Space.Box
  /** @param epsilon added to the variance before the square root (Gymnasium's 1e-8). */
  constructor(env: AnyEnv, readonly epsilon = 1e-8) {
    super(env)
    const s = env.observationSpace
    if (s._tag !== "Box") {
      throw new InvalidOptionError({ option: "observationSpace", value: Space.describe(s), reason: "NormalizeObservation needs a Box" })
    }
    this.obsRms = new RunningMeanStd(Space.boxSize(s))
    this.space = Space.box(-Infinity, Infinity, s.shape, "float32")
  }
  /** `Box(-inf, inf, shape, float32)` with the wrapped space's shape. */
  override get observationSpace(): Space.Space {
    return this.space
  }
  /** Fold `observation` into the statistics (unless frozen) and return it normalized (a new `Float32Array`). */
  observation(observation: ArrayLike<number>): Float32Array {
    if (this.updateRunningMean) this.obsRms.update(observation)
    const out = new Float32Array(this.obsRms.size)
    for (let i = 0; i < out.length; i++) {
      out[i] = (observation[i]! - this.obsRms.mean[i]!) / Math.sqrt(this.obsRms.var[i]! + this.epsilon)
    }
    return out
  }
}

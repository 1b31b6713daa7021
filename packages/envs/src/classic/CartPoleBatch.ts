/**
 * `CartPoleBatch`: `numEnvs` CartPole-v1 environments as arrays (structure of arrays), stepped in one loop:
 * bit-identical to `SyncVectorEnv` over `make("CartPole-v1")` (the same {@link CartPole} physics, float64 state,
 * float32 observations, `TimeLimit(500)`) with the same seeds, actions and autoreset mode.
 *
 * **Details**
 * - `state`: `Float64Array(4 * numEnvs)`, row i = `[x, x_dot, theta, theta_dot]` of sub-env i (m, m/s, rad, rad/s).
 * - `observations`: `Float32Array(4 * numEnvs)` (row i rounded from `state`); `rewards`, `terminations`,
 *   `truncations`, `elapsed`, `finalObservations` as {@link BatchedVectorEnv}.
 * - Actions: an `Int32Array(numEnvs)` (or number array) of 0 (push left) / 1 (push right).
 * - `reset` options as `CartPoleEnv.reset` (`state`, `low`, `high`), applied to every reset row; kwargs
 *   `suttonBartoReward` as `CartPoleEnv`.
 *
 * @example
 * ```ts
 * import { CartPoleBatch } from "@autodidact/envs"
 * const envs = new CartPoleBatch.CartPoleBatch(1024)
 * envs.reset({ seed: 0 })
 * const actions = new Int32Array(1024).fill(1)
 * envs.step(actions)
 * envs.observations // Float32Array(4096), the same buffer every step
 * ```
 * @see https://github.com/Farama-Foundation/Gymnasium/blob/v1.4.0/gymnasium/envs/classic_control/cartpole.py
 * @since 0.2.0
 */
import type { Info } from "../Env.js"
import { type BatchedOptions, BatchedVectorEnv, NEXT_STEP } from "../vector/BatchedVectorEnv.js"
import type { Batch, VectorStepResult } from "../vector/VectorEnv.js"
import {
  actionSpace,
  CartPoleEnv,
  type CartPoleOptions,
  FORCE_MAG,
  GRAVITY,
  LENGTH,
  MASSPOLE,
  observationSpace,
  parseResetOptions,
  POLEMASS_LENGTH,
  TAU,
  THETA_THRESHOLD_RADIANS,
  TOTAL_MASS,
  X_THRESHOLD
} from "./CartPole.js"
import * as Libm from "./Libm.js"

const EMPTY_INFO: Info = Object.freeze({})

/** Options of {@link CartPoleBatch}: the env's kwargs plus the batch's. */
export interface CartPoleBatchOptions extends CartPoleOptions, BatchedOptions {}

/**
 * `numEnvs` CartPole-v1 environments held in typed arrays.
 * @category models
 */
export class CartPoleBatch extends BatchedVectorEnv {
  /** `Float64Array(4 * numEnvs)`: row i is sub-env i's `[x, x_dot, theta, theta_dot]`. */
  readonly state: Float64Array
  private readonly suttonBarto: boolean

  /**
   * @param numEnvs number of sub-envs (positive integer).
   * @throws InvalidOptionError for a bad `numEnvs`, `maxEpisodeSteps` (default 500), mode or `suttonBartoReward`.
   */
  constructor(numEnvs: number, options: CartPoleBatchOptions = {}) {
    new CartPoleEnv(options) // validates the kwargs as the single env does
    super("CartPoleBatch(CartPole-v1)", numEnvs, observationSpace, actionSpace, options.maxEpisodeSteps ?? 500, options)
    this.suttonBarto = options.suttonBartoReward ?? false
    this.state = new Float64Array(4 * numEnvs)
  }

  protected resetRow(i: number, options: { readonly [key: string]: unknown } | undefined): void {
    const init = parseResetOptions(options)
    const s = this.state
    const o = 4 * i
    if (init.state !== undefined) for (let k = 0; k < 4; k++) s[o + k] = init.state[k]!
    else {
      const rng = this.rng(i)
      for (let k = 0; k < 4; k++) s[o + k] = rng.uniform(init.low, init.high)
    }
    const obs = this.observations as Float32Array
    obs[o] = s[o]!
    obs[o + 1] = s[o + 1]!
    obs[o + 2] = s[o + 2]!
    obs[o + 3] = s[o + 3]!
  }

  protected resetInfo(_i: number): Info {
    return EMPTY_INFO
  }

  protected stepInfo(_i: number): Info {
    return EMPTY_INFO
  }

  /**
   * Advance every sub-env by `TAU` = 0.02 s with force -10 N (action 0) or +10 N (action 1), in one loop over the
   * rows; autoreset as `autoresetMode` says. Returns the shared buffers.
   * @throws InvalidActionError when `actions` is not `numEnvs` values in {0, 1}; ResetNeededError (see the base).
   */
  step(actions: Batch): VectorStepResult {
    this.beginStep(actions)
    const act = actions as Int32Array
    const n = this.numEnvs
    const s = this.state
    const obs = this.observations as Float32Array
    const rew = this.rewards
    const term = this.terminations
    const trunc = this.truncations
    const el = this.elapsed
    const need = this.needsReset
    const nextStep = this.mode === NEXT_STEP
    const maxSteps = this.maxEpisodeSteps
    const rewardEnd = this.suttonBarto ? -1.0 : 1.0
    const rewardStep = this.suttonBarto ? 0.0 : 1.0
    // the constants as locals: module bindings are loaded from their cells on every use, locals stay in registers
    const forceMag = FORCE_MAG
    const gravity = GRAVITY
    const length = LENGTH
    const massPole = MASSPOLE
    const totalMass = TOTAL_MASS
    const poleMassLength = POLEMASS_LENGTH
    const tau = TAU
    const xThreshold = X_THRESHOLD
    const thetaThreshold = THETA_THRESHOLD_RADIANS
    for (let i = 0; i < n; i++) {
      if (nextStep && need[i] === 1) {
        this.autoresetRow(i)
        continue
      }
      const o = 4 * i
      let x = s[o]!
      let xDot = s[o + 1]!
      let theta = s[o + 2]!
      let thetaDot = s[o + 3]!
      // CartPoleEnv.step, operation for operation
      const force = act[i] === 1 ? forceMag : -forceMag
      const costheta = Libm.cos(theta)
      const sintheta = Libm.sin(theta)
      const temp = (force + poleMassLength * (thetaDot * thetaDot) * sintheta) / totalMass
      const thetaacc = (gravity * sintheta - costheta * temp) /
        (length * (4.0 / 3.0 - (massPole * (costheta * costheta)) / totalMass))
      const xacc = temp - (poleMassLength * thetaacc * costheta) / totalMass
      x = x + tau * xDot
      xDot = xDot + tau * xacc
      theta = theta + tau * thetaDot
      thetaDot = thetaDot + tau * thetaacc
      s[o] = x
      s[o + 1] = xDot
      s[o + 2] = theta
      s[o + 3] = thetaDot
      obs[o] = x
      obs[o + 1] = xDot
      obs[o + 2] = theta
      obs[o + 3] = thetaDot
      const terminated = x < -xThreshold || x > xThreshold || theta < -thetaThreshold ||
        theta > thetaThreshold
      const steps = el[i]! + 1
      el[i] = steps
      const truncated = steps >= maxSteps
      rew[i] = terminated ? rewardEnd : rewardStep
      term[i] = terminated ? 1 : 0
      trunc[i] = truncated ? 1 : 0
      if (terminated || truncated) this.endRow(i)
    }
    return this.finishStep()
  }
}

/**
 * `numEnvs` batched CartPole-v1 sub-envs (the registry's `vectorEntryPoint` for `CartPole-v1`).
 * @category constructors
 */
export const make = (numEnvs: number, options: CartPoleBatchOptions = {}): CartPoleBatch => new CartPoleBatch(numEnvs, options)

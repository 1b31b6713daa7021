/**
 * `Checked`: Gymnasium's `PassiveEnvChecker` and `OrderEnforcing` in one cheap layer, the first wrapper `make`
 * applies; and `assertFinite`, the NaN/±Infinity check it uses.
 * @see https://github.com/Farama-Foundation/Gymnasium/blob/v1.4.0/gymnasium/wrappers/common.py
 * @since 0.1.0
 */
import { InvalidActionError, NonFiniteValueError, ResetNeededError, Space } from "@autodidact/core"
import type { AnyEnv, ResetOptions, ResetResult, StepResult } from "../Env.js"
import { envIdOf, Wrapper } from "./Wrapper.js"

/**
 * Throw {@link NonFiniteValueError} when `x` (a number, typed array, array or record of those) holds NaN/±Infinity.
 * Integer typed arrays are skipped (always finite).
 */
export const assertFinite = (where: string, x: unknown): void => {
  if (typeof x === "number") {
    if (!Number.isFinite(x)) throw new NonFiniteValueError({ where, value: x })
    return
  }
  if (x instanceof Float32Array || x instanceof Float64Array) {
    for (let i = 0; i < x.length; i++) {
      const v = x[i]!
      if (v - v !== 0) throw new NonFiniteValueError({ where, value: v, index: i })
    }
    return
  }
  if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++) assertFinite(`${where}[${i}]`, x[i])
    return
  }
  if (x !== null && typeof x === "object" && !ArrayBuffer.isView(x)) {
    for (const k of Object.keys(x)) assertFinite(`${where}.${k}`, (x as Record<string, unknown>)[k])
  }
}

/**
 * Gymnasium's `PassiveEnvChecker` and `OrderEnforcing` in one cheap layer (what `make` applies first):
 * - `step` before the first `reset`, or after `terminated`/`truncated` without a `reset`: {@link ResetNeededError};
 * - an action outside `actionSpace`: {@link InvalidActionError} naming the action, the space and the env id;
 * - NaN/±Infinity in an observation (reset or step) or a reward: {@link NonFiniteValueError}.
 *
 * Cost: one branch per check; `Discrete` actions and `Float32Array` observations take an inlined fast path.
 * @category wrappers
 */
export class Checked<Obs = any, Act = any> extends Wrapper<Obs, Act> {
  private hasReset = false
  private ended = false
  private readonly discreteLo: number
  private readonly discreteHi: number

  /** Wrap `env`; a `Discrete` action space is checked by bounds, any other with `Space.contains`. */
  constructor(env: AnyEnv) {
    super(env)
    const a = env.actionSpace
    this.discreteLo = a._tag === "Discrete" ? a.start : Number.NaN
    this.discreteHi = a._tag === "Discrete" ? a.start + a.n : Number.NaN
  }

  /**
   * Reset the wrapped env and check its observation.
   * @throws NonFiniteValueError when the observation holds NaN or ±Infinity.
   */
  override reset(options?: ResetOptions): ResetResult<Obs> {
    const r = this.env.reset(options)
    assertFinite(`${envIdOf(this.env)}.reset observation`, r.observation)
    this.hasReset = true
    this.ended = false
    return r
  }

  /**
   * Check the action, step the wrapped env, check the reward and observation.
   * @throws ResetNeededError before the first reset or after the episode ended; InvalidActionError for an action
   *   outside `actionSpace`; NonFiniteValueError for a NaN/±Infinity reward or observation element.
   */
  override step(action: Act): StepResult<Obs> {
    if (!this.hasReset || this.ended) {
      throw new ResetNeededError({
        envId: envIdOf(this.env),
        reason: this.hasReset ? "the episode has ended (terminated or truncated)" : "step() called before reset()"
      })
    }
    if (this.discreteLo === this.discreteLo) {
      const a = action as unknown as number
      if (!(typeof a === "number" && a >= this.discreteLo && a < this.discreteHi && Math.floor(a) === a)) {
        this.throwInvalid(action)
      }
    } else if (!Space.contains(this.env.actionSpace, action)) this.throwInvalid(action)
    const r = this.env.step(action)
    const reward = r.reward
    if (typeof reward !== "number" || reward - reward !== 0) {
      throw new NonFiniteValueError({ where: `${envIdOf(this.env)}.step reward`, value: Number(reward) })
    }
    const obs = r.observation
    if (obs instanceof Float32Array) {
      for (let i = 0; i < obs.length; i++) {
        const v = obs[i]!
        if (v - v !== 0) throw new NonFiniteValueError({ where: `${envIdOf(this.env)}.step observation`, value: v, index: i })
      }
    } else if (typeof obs !== "number" || obs - obs !== 0) assertFinite(`${envIdOf(this.env)}.step observation`, obs)
    if (r.terminated || r.truncated) this.ended = true
    return r
  }

  private throwInvalid(action: unknown): never {
    throw new InvalidActionError({
      envId: envIdOf(this.env),
      action,
      space: Space.describe(this.env.actionSpace)
    })
  }
}

/**
 * `OrderEnforcing`: `step` before the first `reset` throws (Gymnasium's `OrderEnforcing`).
 * @see https://github.com/Farama-Foundation/Gymnasium/blob/v1.4.0/gymnasium/wrappers/common.py
 * @since 0.1.0
 */
import { ResetNeededError } from "@autodidact/core"
import type { ResetOptions, ResetResult, StepResult } from "../Env.js"
import { envIdOf, Wrapper } from "./Wrapper.js"

/**
 * Throws {@link ResetNeededError} when `step` comes before the first `reset` (Gymnasium's `OrderEnforcing`).
 * @category wrappers
 */
export class OrderEnforcing<Obs = any, Act = any> extends Wrapper<Obs, Act> {
  private hasReset = false
  /** Reset the wrapped env; later steps are allowed. */
  override reset(options?: ResetOptions): ResetResult<Obs> {
    this.hasReset = true
    return this.env.reset(options)
  }
  /** @throws ResetNeededError before the first reset. */
  override step(action: Act): StepResult<Obs> {
    if (!this.hasReset) throw new ResetNeededError({ envId: envIdOf(this.env), reason: "step() called before reset()" })
    return this.env.step(action)
  }
  /** Whether `reset` has been called (Gymnasium's `has_reset`). */
  get hasResetCalled(): boolean {
    return this.hasReset
  }
}

/**
 * `TimeLimit`: truncate episodes after a number of steps (Gymnasium's `TimeLimit`, what `make` applies for a spec's
 * `maxEpisodeSteps`).
 * @see https://github.com/Farama-Foundation/Gymnasium/blob/v1.4.0/gymnasium/wrappers/common.py
 * @since 0.1.0
 */
import { InvalidOptionError, ResetNeededError } from "@autodidact/core"
import type { AnyEnv, ResetOptions, ResetResult, StepResult } from "../Env.js"
import { envIdOf, Wrapper } from "./Wrapper.js"

/**
 * Truncates the episode after `maxEpisodeSteps` steps: the step that reaches the limit returns
 * `truncated: true` (and keeps the inner `terminated`). A further `step` without `reset` throws
 * {@link ResetNeededError}.
 * @throws InvalidOptionError when `maxEpisodeSteps` is not a positive integer.
 * @category wrappers
 */
export class TimeLimit<Obs = any, Act = any> extends Wrapper<Obs, Act> {
  /** Steps taken in the current episode (-1 before the first reset). */
  elapsedSteps = -1
  /** @param maxEpisodeSteps steps per episode, a positive integer (Gymnasium's `max_episode_steps`). */
  constructor(env: AnyEnv, readonly maxEpisodeSteps: number) {
    super(env)
    if (!Number.isInteger(maxEpisodeSteps) || maxEpisodeSteps <= 0) {
      throw new InvalidOptionError({ option: "maxEpisodeSteps", value: maxEpisodeSteps, reason: "expected a positive integer" })
    }
  }
  /** Reset the wrapped env and the step count. */
  override reset(options?: ResetOptions): ResetResult<Obs> {
    this.elapsedSteps = 0
    return this.env.reset(options)
  }
  /**
   * Step the wrapped env; the `maxEpisodeSteps`-th step returns `truncated: true`.
   * @throws ResetNeededError when the episode was already truncated by this wrapper.
   */
  override step(action: Act): StepResult<Obs> {
    if (this.elapsedSteps >= this.maxEpisodeSteps) {
      throw new ResetNeededError({
        envId: envIdOf(this.env),
        reason: `the episode was truncated by TimeLimit(${this.maxEpisodeSteps})`
      })
    }
    const r = this.env.step(action)
    if (this.elapsedSteps >= 0) this.elapsedSteps++
    if (this.elapsedSteps >= this.maxEpisodeSteps && !r.truncated) {
      return { observation: r.observation, reward: r.reward, terminated: r.terminated, truncated: true, info: r.info }
    }
    return r
  }
}

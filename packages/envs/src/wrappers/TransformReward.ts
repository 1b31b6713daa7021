/**
 * `TransformReward`: rewards mapped by a function (Gymnasium's `TransformReward`).
 * @see https://github.com/Farama-Foundation/Gymnasium/blob/v1.4.0/gymnasium/wrappers/transform_reward.py
 * @since 0.1.0
 */
import type { AnyEnv } from "../Env.js"
import { RewardWrapper } from "./Wrapper.js"

/**
 * Applies `f` to every reward.
 * @category wrappers
 */
export class TransformReward<Obs = any, Act = any> extends RewardWrapper<Obs, Act> {
  /** @param f the map; its results are not checked for NaN/±Infinity unless a `Checked` wrapper sits outside this one. */
  constructor(env: AnyEnv, readonly f: (reward: number) => number) {
    super(env)
  }
  /** `f(reward)`. */
  reward(reward: number): number {
    return this.f(reward)
  }
}

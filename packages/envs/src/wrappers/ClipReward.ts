/**
 * `ClipReward`: rewards clipped to `[minReward, maxReward]` (Gymnasium's `ClipReward`).
 * @see https://github.com/Farama-Foundation/Gymnasium/blob/v1.4.0/gymnasium/wrappers/transform_reward.py
 * @since 0.1.0
 */
import { InvalidOptionError } from "@autodidact/core"
import type { AnyEnv } from "../Env.js"
import { RewardWrapper } from "./Wrapper.js"

/**
 * Clips rewards to `[minReward, maxReward]` (either bound may be omitted).
 * @throws InvalidOptionError when both bounds are missing or min > max.
 * @category wrappers
 */
export class ClipReward<Obs = any, Act = any> extends RewardWrapper<Obs, Act> {
  /** @param minReward lower bound (default -inf); @param maxReward upper bound (default +inf). */
  constructor(env: AnyEnv, readonly minReward = -Infinity, readonly maxReward = Infinity) {
    super(env)
    if (minReward === -Infinity && maxReward === Infinity) {
      throw new InvalidOptionError({ option: "ClipReward bounds", value: [minReward, maxReward], reason: "give at least one bound" })
    }
    if (!(minReward <= maxReward)) {
      throw new InvalidOptionError({ option: "ClipReward bounds", value: [minReward, maxReward], reason: "min exceeds max" })
    }
  }
  /** `min(max(reward, minReward), maxReward)`. */
  reward(reward: number): number {
    return reward < this.minReward ? this.minReward : reward > this.maxReward ? this.maxReward : reward
  }
}

/**
 * `flow-grpo`: Flow-GRPO's outcome broadcast to turns (Li, Zhang, Han, et al., "In-the-Flow Agentic System
 * Optimization for Effective Planning and Tool Use" (AgentFlow), arXiv:2510.05592, Sec. 3): a single verifiable
 * trajectory-level outcome is broadcast to every turn, and the group's outcomes are normalized, turning the multi-turn
 * problem into a sequence of single-turn updates that all share the trajectory's advantage.
 *
 * **Details**
 * - The outcome `O_i` of trajectory i is its **last step's reward** (the terminal, verifiable outcome; shaping rewards
 *   of earlier steps, e.g. invalid-action penalties, are not part of it), and
 *   `A_{i,t} = (O_i − mean(O)) / (std(O) + ε)` within the task group for every turn t (sample std; a one-member group
 *   gives 0). Family `"group-normalized"`.
 * - Where only the last step is rewarded (TextHousehold-v0 with a policy that picks admissible actions) O_i = R_i and
 *   `flow-grpo` coincides with `grpo`; they differ when earlier steps carry rewards.
 * - Registered as `"flow-grpo"` when this module loads (the `@autodidact/optim` entry loads it).
 *
 * @example
 * ```ts
 * import { Advantages } from "@autodidact/optim"
 * // outcomes 1 and 0 (the −0.1 earlier penalty is ignored): ±0.7071 on every turn
 * Advantages.get("flow-grpo")([[{ rewards: [-0.1, 1] }, { rewards: [0, 0] }]], Advantages.defaults)
 * ```
 * @see https://arxiv.org/abs/2510.05592, https://github.com/lupantech/AgentFlow
 * @since 0.3.0
 */
import * as Advantages from "../Advantages.js"
import * as GroupSteps from "./GroupSteps.js"

/** The registered name. */
export const NAME = "flow-grpo"

/** The outcome of a trajectory: its last step's reward. */
export const outcome = (tr: Advantages.TrajectoryInput): number => tr.rewards[tr.rewards.length - 1]!

/**
 * The estimator: `result[g][i]` filled with trajectory i's group-normalized outcome.
 * @throws AdvantageInputError for an empty batch, group or trajectory, a non-finite reward, or a bad option.
 */
export const estimator: Advantages.Estimator = (batch, o) => {
  Advantages.validate(NAME, batch)
  Advantages.validateOptions(NAME, o)
  const adv = GroupSteps.perTrajectory(batch, outcome, o.eps, true)
  return batch.map((group, g) => group.map((tr, i) => new Float64Array(tr.rewards.length).fill(adv[g]![i]!)))
}

Advantages.register(NAME, estimator, { family: "group-normalized" })

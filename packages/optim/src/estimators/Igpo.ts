/**
 * `igpo`: information-gain turn rewards (Wang, Dai, Ye, Gan, Yao, Deng, Wu, Ying, "Information Gain-based Policy
 * Optimization: A Simple and Effective Approach for Multi-Turn LLM Agents" (IGPO), arXiv:2510.14967, Sec. 3).
 *
 * **Details** (P_t = exp(`goalLogProbs[t]`), the policy's probability of the ground truth given the history before
 * step t; IGPO uses the length-normalized probability of the answer's tokens, `exp((1/L) Σ_j log π(a_j | …))`)
 * - Turn reward of a non-final step t < T−1: its information gain `IG_t = P_{t+1} − P_t` plus the env reward `r_t`
 *   (0 for sparse-reward tasks); the final step gets the outcome reward `r_{T−1}` (IGPO's F1 / success score).
 * - The turn rewards of every step of every trajectory of the task group are normalized together,
 *   `r̂ = (r̃ − mean) / (std + ε)` (`normalize: "none"`: centred only), and the advantage is the discounted sum of
 *   the normalized rewards to go, `A_t = Σ_k γ^k r̂_{t+k}` (γ = `options.gamma`).
 * - Needs `goalLogProbs` on every trajectory ({@link StepSignals}), which only a policy that can score the goal
 *   provides ({@link GoalLogProbPolicy}, e.g. an LLM scoring the ground-truth answer). The DRRN text policy cannot:
 *   `MultiTurnTrainer.train` with `algo: "igpo"` fails with {@link GoalLogProbUnavailableError}.
 * - Registered as `"igpo"` (family `"custom"`) when this module loads.
 *
 * @example
 * ```ts
 * import { Igpo } from "@autodidact/optim"
 * Igpo.turnRewards({ rewards: [0, 0, 1], goalLogProbs: [Math.log(0.1), Math.log(0.4), Math.log(0.5)] }) // [0.3, 0.1, 1]
 * ```
 * @see https://arxiv.org/abs/2510.14967
 * @since 0.3.0
 */
import { Schema } from "effect"
import * as Advantages from "../Advantages.js"
import * as GroupSteps from "./GroupSteps.js"
import * as StepSignals from "./StepSignals.js"

/** The registered name. */
export const NAME = "igpo"

/**
 * A policy that can score the goal: the natural-log probability (≤ 0; length-normalized over the goal's tokens for a
 * language model) that it would produce `goal` (the ground-truth answer or target state description) after
 * `history` on `task`. What `igpo` needs per step.
 * @category models
 */
export interface GoalLogProbPolicy {
  goalLogProb(input: {
    readonly task: string
    readonly goal: string
    readonly history: ReadonlyArray<{ readonly observation: string; readonly action: string }>
  }): number
}

/** Whether `policy` implements {@link GoalLogProbPolicy}. */
export const hasGoalLogProb = (policy: unknown): policy is GoalLogProbPolicy =>
  typeof policy === "object" && policy !== null && typeof (policy as { goalLogProb?: unknown }).goalLogProb === "function"

/**
 * The estimator `estimator` needs the goal's log-probability, which `policy` does not expose.
 * @category errors
 */
export class GoalLogProbUnavailableError extends Schema.TaggedError<GoalLogProbUnavailableError>()("GoalLogProbUnavailableError", {
  estimator: Schema.String,
  policy: Schema.String
}) {
  override get message() {
    return `${this.estimator} needs the log-probability of the goal at every turn, which the ${this.policy} policy does not expose (it implements no goalLogProb); use an estimator that needs only rewards`
  }
}

/** IGPO's turn rewards of one trajectory: `P_{t+1} − P_t + r_t` for t < T−1, the outcome `r_{T−1}` last. */
export const turnRewards = (tr: StepSignals.SignalTrajectory): Float64Array => {
  const g = tr.goalLogProbs
  if (g === undefined) throw new Advantages.AdvantageInputError({ reason: "missingValues", estimator: NAME, detail: "missing goalLogProbs" })
  const T = tr.rewards.length
  return Float64Array.from({ length: T }, (_, t) => (t < T - 1 ? Math.exp(g[t + 1]!) - Math.exp(g[t]!) : 0) + tr.rewards[t]!)
}

/**
 * The estimator (see the module docs).
 * @throws AdvantageInputError for invalid shapes, rewards or options, or missing / invalid `goalLogProbs`.
 */
export const estimator: StepSignals.SignalEstimator = (batch, o) => {
  Advantages.validate(NAME, batch)
  Advantages.validateOptions(NAME, o)
  StepSignals.validateSignals(NAME, batch, ["goalLogProbs"])
  const normalized = GroupSteps.perStep(batch, turnRewards, o.eps, o.normalize === "std")
  return normalized.map((group) => group.map((r) => Advantages.discountedReturns(r, o.gamma)))
}

Advantages.register(NAME, estimator, { family: "custom" })
StepSignals.declare(NAME, ["goalLogProbs"])

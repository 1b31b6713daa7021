/**
 * `oprl`: implicit step rewards of an outcome-trained policy (Liu, Wang, Wu, Huang, Li, Zhang, Jiao, "Online Process
 * Reward Learning for Agentic Reinforcement Learning" (OPRL), arXiv:2509.19199; the implicit PRM of Yuan et al.,
 * "Free Process Rewards without Process Labels", arXiv:2412.01981, and PRIME, arXiv:2502.01456).
 *
 * **Details** (R_i = Σ_t r_t; ℓ_t = `logRatios[t]` = log π_φ(a_t|s_t) − log π_ref(a_t|s_t))
 * - Implicit step reward `r^s_t = β · ℓ_t` (β = {@link defaultBeta}, PRIME's 0.05): a model trained on outcomes (OPRL's
 *   PRM, trained with a trajectory-level DPO objective; here any outcome-trained policy) rates a step by how much more
 *   likely it makes the action than its reference.
 * - OPRL combines a step level and an episode level: `A^E_i = (R_i − mean R) / (std R + ε)` within the task group
 *   (GRPO), `A^S_t = (r^s_t − mean) / (std + ε)` over every step of the task group, and `A_t = A^E_i + ω · A^S_t`
 *   (ω = `options.omega`, default 1). With `normalize: "none"` both levels are only centred (then β sets the step
 *   level's scale; with `"std"` it cancels).
 * - The caller supplies ℓ. `MultiTurnTrainer` does what OPRL does: a separate PRM π_φ (a second DRRN, initialised
 *   as the policy) is trained each round by trajectory-level DPO on the round's outcome preferences against the
 *   rollout policy π_θold (`Dpo.trajectoryStep`, OPRL's eq. 3), and ℓ_t = log π_φ(a_t|s_t) − log π_θold(a_t|s_t).
 * - Needs `logRatios` on every trajectory ({@link StepSignals}); registered as `"oprl"` (family `"custom"`) when this
 *   module loads.
 * - **Gotcha: never let the policy be its own PRM.** An earlier trainer used the policy's own log-ratio to its
 *   frozen initialisation as ℓ, which pays the policy for drifting: on TextHousehold-v0 (default difficulty, seeds
 *   1–3, 300k env steps) the DRRN's entropy fell from 3.3 to 0.03 within 35k steps and unseen success stayed 0.00 on
 *   every seed (GiGPO: 0.84).
 *
 * @example
 * ```ts
 * import { Oprl } from "@autodidact/optim"
 * Oprl.stepRewards({ rewards: [0, 1], logRatios: [2, -1] }) // [0.1, -0.05] (β = 0.05)
 * ```
 * @see https://arxiv.org/abs/2509.19199, https://arxiv.org/abs/2412.01981
 * @since 0.3.0
 */
import * as Advantages from "../Advantages.js"
import * as GroupSteps from "./GroupSteps.js"
import * as StepSignals from "./StepSignals.js"

/** The registered name. */
export const NAME = "oprl"

/** β of the implicit reward (PRIME's and the implicit-PRM paper's 0.05). */
export const defaultBeta = 0.05

/** Implicit step rewards `β · logRatios[t]` of one trajectory. */
export const stepRewards = (tr: StepSignals.SignalTrajectory, beta = defaultBeta): Float64Array => {
  const l = tr.logRatios
  if (l === undefined) throw new Advantages.AdvantageInputError({ reason: "missingValues", estimator: NAME, detail: "missing logRatios" })
  return Float64Array.from({ length: tr.rewards.length }, (_, t) => beta * l[t]!)
}

/** The estimator with another β (> 0, finite). */
export const make = (beta: number): StepSignals.SignalEstimator => {
  if (!(beta > 0 && Number.isFinite(beta))) throw new Advantages.AdvantageInputError({ reason: "invalidOption", estimator: NAME, value: beta, detail: "beta must be a positive finite number" })
  return (batch, o) => {
    Advantages.validate(NAME, batch)
    Advantages.validateOptions(NAME, o)
    StepSignals.validateSignals(NAME, batch, ["logRatios"])
    const byStd = o.normalize === "std"
    const episode = GroupSteps.perTrajectory(batch, (tr) => Advantages.episodeReturn(tr.rewards), o.eps, byStd)
    const step = GroupSteps.perStep(batch, (tr) => stepRewards(tr, beta), o.eps, byStd)
    return step.map((group, g) =>
      group.map((a, i) => {
        const e = episode[g]![i]!
        for (let t = 0; t < a.length; t++) a[t] = e + o.omega * a[t]!
        return a
      })
    )
  }
}

/**
 * The estimator with β = {@link defaultBeta}.
 * @throws AdvantageInputError for invalid shapes, rewards or options, or missing / invalid `logRatios`.
 */
export const estimator: StepSignals.SignalEstimator = make(defaultBeta)

Advantages.register(NAME, estimator, { family: "custom" })
StepSignals.declare(NAME, ["logRatios"])

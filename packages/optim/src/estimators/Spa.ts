/**
 * `spa`: Stepwise Progress Attribution (Wang, Leong, Wang, Wang, Li, "SPA-RL: Reinforcing LLM Agents via Stepwise
 * Progress Attribution", arXiv:2505.20732): the outcome is redistributed into per-step contributions whose sum equals
 * it, and those contributions are the dense rewards the policy is trained on.
 *
 * **Details** (R_i = Σ_t r_t is trajectory i's outcome, T its length)
 * - **Contributions** `c_t` with `Σ_t c_t = R_i` exactly ({@link contributions}):
 *   - with `progress` estimates `p_t` on the trajectory (SPA's learned progress estimator, any scale): the smallest
 *     correction that makes them sum to the outcome, `c_t = p_t + (R_i − Σ_k p_k) / T` (the least-squares projection
 *     onto `Σ c = R`; SPA trains its estimator so that `Σ p ≈ R` with an MSE loss, Eq. 3–4);
 *   - without: a Monte-Carlo progress estimate from the group itself. `V(s)` is the mean outcome of the group's
 *     trajectories that visit state key `s` (each counted once), `V_0 = 0` (nothing done yet), `V_t = V(s_t)` for
 *     `1 ≤ t < T` and `V_T = R_i`; the contribution of step t is the progress it makes, `c_t = V_{t+1} − V_t`, which
 *     telescopes to `R_i`. Needs `stateKeys`.
 * - **Advantages**: the discounted contribution-to-go `G_t = Σ_k γ^k c_{t+k}` (γ = `options.gamma`), normalized over
 *   every step of the task group, `(G − mean) / (std + ε)` (`normalize: "none"`: `G − mean`). SPA-RL feeds `c_t`
 *   (plus a grounding reward for executable actions) to PPO with a critic; the DRRN trainer is critic-free, so the
 *   group's steps are the baseline, as REINFORCE++ does over a batch.
 * - Registered as `"spa"` (family `"custom"`, needs `stateKeys`) when this module loads.
 *
 * @example
 * ```ts
 * import { Spa } from "@autodidact/optim"
 * Spa.contributions({ rewards: [0, 1], progress: [0.2, 0.2] }) // [0.5, 0.5]: sums to the outcome 1
 * ```
 * @see https://arxiv.org/abs/2505.20732, https://github.com/WangHanLinHenry/SPA-RL-Agent
 * @since 0.3.0
 */
import * as Advantages from "../Advantages.js"
import * as GroupSteps from "./GroupSteps.js"
import * as StepSignals from "./StepSignals.js"

/** The registered name. */
export const NAME = "spa"

/**
 * Per-step contributions of one trajectory from its `progress` estimates, `c_t = p_t + (R − Σ p) / T` (sum = R).
 * Requires `progress` (one finite value per step; see {@link StepSignals}).
 */
export const contributions = (tr: StepSignals.SignalTrajectory): Float64Array => {
  const T = tr.rewards.length
  const p = tr.progress
  if (p === undefined) throw new Advantages.AdvantageInputError({ reason: "missingValues", estimator: NAME, detail: "missing progress" })
  const R = Advantages.episodeReturn(tr.rewards)
  let sum = 0
  for (let t = 0; t < T; t++) sum += p[t]!
  const shift = (R - sum) / T
  return Float64Array.from({ length: T }, (_, t) => p[t]! + shift)
}

/**
 * Monte-Carlo contributions of every trajectory of one group from its state keys: `c_t = V_{t+1} − V_t` with
 * `V_0 = 0`, `V_t` the mean outcome of the group's trajectories that visit `stateKeys[t]`, `V_T = R_i`.
 */
export const groupContributions = (group: ReadonlyArray<Advantages.TrajectoryInput>): Array<Float64Array> => {
  const sum = new Map<string, number>()
  const count = new Map<string, number>()
  const returns = group.map((tr) => Advantages.episodeReturn(tr.rewards))
  group.forEach((tr, i) => {
    for (const key of new Set(tr.stateKeys!)) {
      sum.set(key, (sum.get(key) ?? 0) + returns[i]!)
      count.set(key, (count.get(key) ?? 0) + 1)
    }
  })
  return group.map((tr, i) => {
    const T = tr.rewards.length
    const c = new Float64Array(T)
    let prev = 0
    for (let t = 0; t < T; t++) {
      const next = t + 1 < T ? sum.get(tr.stateKeys![t + 1]!)! / count.get(tr.stateKeys![t + 1]!)! : returns[i]!
      c[t] = next - prev
      prev = next
    }
    return c
  })
}

/**
 * The estimator (see the module docs). Uses `progress` when every trajectory of a group carries it, the Monte-Carlo
 * estimate from `stateKeys` otherwise.
 * @throws AdvantageInputError for invalid shapes, rewards, options, signals, or missing `stateKeys` without `progress`.
 */
export const estimator: StepSignals.SignalEstimator = (batch, o) => {
  const withProgress = batch.map((group) => group.every((tr) => StepSignals.signalOf(tr, "progress") !== undefined))
  Advantages.validate(NAME, batch, { stateKeys: withProgress.some((p) => !p) })
  Advantages.validateOptions(NAME, o)
  StepSignals.validateSignals(NAME, batch, [])
  const c = batch.map((group, g) => withProgress[g] ? group.map(contributions) : groupContributions(group))
  return GroupSteps.perStep(batch.map((group, g) => group.map((tr, i) => ({ ...tr, rewards: c[g]![i]! }))), (tr) => Advantages.discountedReturns(tr.rewards, o.gamma), o.eps, o.normalize === "std")
}

Advantages.register(NAME, estimator, { family: "custom", needs: { stateKeys: true } })

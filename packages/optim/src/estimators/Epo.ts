/**
 * EPO's entropy smoothing regularizer for multi-turn agents (Xu, Zhao, Wang, Li, Jin, Jin, Mei, Wan, Metaxas, "EPO:
 * Entropy-regularized Policy Optimization for LLM Agents Reinforcement Learning", arXiv:2509.22576; reference code
 * github.com/WujiangXu/EPO, `verl/workers/actor/dp_actor.py`). Not an advantage estimator: a loss term that
 * `MultiTurnTrainer` adds when its `epo` option is set (`autodidact train --epo`).
 *
 * **The three mechanisms and what is implemented**
 * 1. Trajectory-level entropy regularization: the entropy bonus averaged over every turn of every trajectory — the
 *    trainer's `entCoef` term already is this (its loss averages over all steps of a minibatch).
 * 2. Entropy smoothing ({@link penalty}): a per-turn history `H̄_t` (the mean, over earlier updates, of the batch's
 *    mean entropy at turn index t, as the reference code's `entropy_history[rollout_step]`, cumulative) defines a band
 *    `[κ_l · H̄_t, κ_r · H̄_t]`; a step whose entropy leaves it is penalized by `coef · |H − H̄_t|`, pulling it back
 *    toward the historical average (the paper's "penalizes deviations from historical averages"). Defaults from the
 *    reference configuration: κ_l = 0.8, κ_r = 1.2, coef = 0.1 (`entropy_smooth_out_range_penalty`).
 *    Difference: the reference code adds the constant `coef` for an out-of-band token, a term without gradient;
 *    here the deviation is differentiated (`∂/∂H = ±coef`), so the penalty acts on the policy.
 * 3. Adaptive phase-based weighting ({@link weight}): the smoothing weight decays over training, from 1 to 0.8 in the
 *    first half of `horizon` updates (`1 − 0.2 (1 − e^{−2p})`) and from 0.8 toward 0 in the second
 *    (`0.8 e^{−3p}`), p the progress within the half — the reference's `_calculate_epoch_based_entropy_weight`
 *    (λ_slow = 2, λ_fast = γ = 3) with updates as epochs. Without a `horizon` the weight stays 1.
 *
 * @example
 * ```ts
 * import { Epo } from "@autodidact/optim"
 * const h = Epo.makeHistory()
 * Epo.observe(h, [[1, 1], [1, 3]]) // turn means 1 and 2
 * Epo.penalty(0.5, Epo.average(h, 0)!, Epo.defaults) // { value: 0.05, slope: -0.1 } (below 0.8 · 1)
 * ```
 * @see https://arxiv.org/abs/2509.22576, https://github.com/WujiangXu/EPO
 * @since 0.3.0
 */

/** Smoothing options. */
export interface Options {
  /** Weight of the out-of-band deviation (≥ 0). Default 0.1. */
  readonly coef: number
  /** κ_l: lower edge of the band as a fraction of the historical average (≥ 0). Default 0.8. */
  readonly low: number
  /** κ_r: upper edge (≥ κ_l). Default 1.2. */
  readonly high: number
  /** Updates over which {@link weight} decays (0 = constant weight 1). Default 0. */
  readonly horizon: number
}

/** The reference configuration's defaults: coef 0.1, κ_l 0.8, κ_r 1.2, constant weight. */
export const defaults: Options = { coef: 0.1, low: 0.8, high: 1.2, horizon: 0 }

/** The first invalid option as `[name, value, reason]`, or undefined when valid. */
export const invalidOption = (o: Options): readonly [string, number, string] | undefined => {
  if (!(o.coef >= 0 && Number.isFinite(o.coef))) return ["coef", o.coef, "must be a non-negative finite number"]
  if (!(o.low >= 0 && Number.isFinite(o.low))) return ["low", o.low, "must be a non-negative finite number"]
  if (!(o.high >= o.low && Number.isFinite(o.high))) return ["high", o.high, "must be finite and ≥ low"]
  if (!(Number.isInteger(o.horizon) && o.horizon >= 0)) return ["horizon", o.horizon, "must be a non-negative integer"]
  return undefined
}

/**
 * EPO's phase-based weight at update `k` of `horizon` (see the module docs); 1 when `horizon` is 0.
 */
export const weight = (k: number, horizon: number, slow = 2, fast = 3): number => {
  if (horizon <= 0) return 1
  const x = Math.max(0, Math.min(k, horizon))
  const half = Math.floor(horizon / 2)
  if (x <= half) return half === 0 ? 1 : 1 - 0.2 * (1 - Math.exp(-slow * (x / half)))
  return 0.8 * Math.exp(-fast * ((x - half) / (horizon - half)))
}

/**
 * The penalty of entropy `h` against the historical average `avg`: `value = coef · |h − avg|` outside
 * `[low · avg, high · avg]` (0 inside) and its derivative `slope = ∂value/∂h` (±coef or 0).
 */
export const penalty = (h: number, avg: number, o: Pick<Options, "coef" | "low" | "high">): { value: number; slope: number } => {
  if (h < o.low * avg) return { value: o.coef * (avg - h), slope: -o.coef }
  if (h > o.high * avg) return { value: o.coef * (h - avg), slope: o.coef }
  return { value: 0, slope: 0 }
}

/** The per-turn entropy history: the sum and count of each turn's batch-mean entropy over the updates observed. */
export interface History {
  readonly sum: Array<number>
  readonly count: Array<number>
}

/** An empty history. */
export const makeHistory = (): History => ({ sum: [], count: [] })

/**
 * Add one batch: `entropies[j][t]` is trajectory j's entropy at turn t; each turn's mean over the trajectories that
 * reached it is added to that turn's history.
 */
export const observe = (history: History, entropies: ReadonlyArray<ArrayLike<number>>): void => {
  const sum: Array<number> = []
  const count: Array<number> = []
  for (const row of entropies) {
    for (let t = 0; t < row.length; t++) {
      sum[t] = (sum[t] ?? 0) + row[t]!
      count[t] = (count[t] ?? 0) + 1
    }
  }
  for (let t = 0; t < sum.length; t++) {
    history.sum[t] = (history.sum[t] ?? 0) + sum[t]! / count[t]!
    history.count[t] = (history.count[t] ?? 0) + 1
  }
}

/** The historical average entropy of turn `t` (undefined before that turn was observed). */
export const average = (history: History, t: number): number | undefined => {
  const c = history.count[t]
  return c === undefined || c === 0 ? undefined : history.sum[t]! / c
}

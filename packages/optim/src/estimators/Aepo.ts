/**
 * AEPO's entropy balancing (Dong, Bao, Wang, Zhao, Li, Jin, Yang, Mao, Zhang, Gai, Zhou, Zhu, Wen, Dou, "Agentic
 * Entropy-Balanced Policy Optimization", arXiv:2510.14545), its three parts as pure functions:
 *
 * 1. **Entropy-aware advantage** (registered estimator `"aepo"`): the accuracy (outcome) advantage is re-weighted
 *    by how much the step's entropy rose, prioritizing learning on high-uncertainty steps:
 *    `A_t = A^acc_i · (1 + α · Â^ΔH_t)` with `A^acc_i = (R_i − mean R) / (std R + ε)` (GRPO within the task group),
 *    `ΔH_t = H_t − H_0` (the step's entropy minus the trajectory's first step's, AEPO's "relative to the initial
 *    state") and `Â^ΔH` its normalization over every step of the task group; α = {@link defaultAlpha}. Needs
 *    `entropies` ({@link StepSignals}); `MultiTurnTrainer` records the DRRN policy's entropy at each step.
 * 2. **Entropy clipping-balanced gradient** ({@link balancedClipSlope}): PPO's clip zeroes the gradient of a step whose
 *    ratio left the trust region in the advantage's direction; AEPO keeps it for high-entropy steps with a
 *    stop-gradient so that its value stays clipped: `(1 ± ε) · sg(1/r) · r · A` has the clipped value and the
 *    gradient `(1 ± ε) · A · ∇log π`. `MultiTurnTrainer`'s `entropyBalancedClip` applies it to steps whose rollout
 *    entropy is above the batch's mean.
 * 3. **Entropy pre-monitoring** of the rollout budget ({@link globalSamples}): of k rollouts, `m = k · σ(β (H_root −
 *    H̄_tool))` start from the root and k − m branch from tool-call (mid-trajectory) steps. Provided as the
 *    allocation formula only: `GroupRollout` rolls every trajectory from the task's initial state and has no
 *    branching from mid-trajectory states, so the consecutive-branch penalty is not implemented.
 *
 * Exact constants of the paper (α, β) were not available to this implementation; {@link defaultAlpha} and
 * {@link globalSamples}' β are this module's choices, documented as such.
 *
 * @see https://arxiv.org/abs/2510.14545, https://github.com/RUC-NLPIR/ARPO (AEPO)
 * @since 0.3.0
 */
import * as Advantages from "../Advantages.js"
import * as GroupSteps from "./GroupSteps.js"
import * as StepSignals from "./StepSignals.js"

/** The registered name. */
export const NAME = "aepo"

/** α of the entropy-aware advantage (this module's choice). */
export const defaultAlpha = 0.3

/** `ΔH_t = H_t − H_0` of one trajectory (requires `entropies`). */
export const entropyRise = (tr: StepSignals.SignalTrajectory): Float64Array => {
  const h = tr.entropies
  if (h === undefined) throw new Advantages.AdvantageInputError({ reason: "missingValues", estimator: NAME, detail: "missing entropies" })
  return Float64Array.from({ length: tr.rewards.length }, (_, t) => h[t]! - h[0]!)
}

/** The entropy-aware estimator with another α (finite). */
export const make = (alpha: number): StepSignals.SignalEstimator => {
  if (!Number.isFinite(alpha)) throw new Advantages.AdvantageInputError({ reason: "invalidOption", estimator: NAME, value: alpha, detail: "alpha must be finite" })
  return (batch, o) => {
    Advantages.validate(NAME, batch)
    Advantages.validateOptions(NAME, o)
    StepSignals.validateSignals(NAME, batch, ["entropies"])
    const acc = GroupSteps.perTrajectory(batch, (tr) => Advantages.episodeReturn(tr.rewards), o.eps, true)
    const rise = GroupSteps.perStep(batch, entropyRise, o.eps, true)
    return rise.map((group, g) =>
      group.map((a, i) => {
        const A = acc[g]![i]!
        for (let t = 0; t < a.length; t++) a[t] = A * (1 + alpha * a[t]!)
        return a
      })
    )
  }
}

/**
 * The entropy-aware estimator with α = {@link defaultAlpha}.
 * @throws AdvantageInputError for invalid shapes, rewards or options, or missing / invalid `entropies`.
 */
export const estimator: StepSignals.SignalEstimator = make(defaultAlpha)

/**
 * d(loss)/d(log π) of one step under PPO's clipped surrogate `max(−A·r, −A·clip(r, 1 ± ε))` with AEPO's
 * entropy-balanced clipping: where the clip is active (the clipped term is the larger) the standard gradient is 0;
 * for a `highEntropy` step it is `−A · (1 + ε)` (A > 0, r > 1 + ε) or `−A · (1 − ε)` (A < 0, r < 1 − ε), the gradient
 * of `(1 ± ε) · sg(1/r) · r · A` whose value is the clipped one. Inside the region it is `−A · r` as in PPO.
 *
 * `outer` (default {@link defaultOuterBound}` · clip`) bounds how far the ratio may go on being pushed: beyond
 * `|r − 1| > outer` the step's gradient is 0 again, as PPO's. AEPO (like GPPO, which it follows) updates once per
 * batch, so its ratios start at 1 and stay near the region; `MultiTurnTrainer` runs 4 epochs × 4 minibatches over a
 * batch, and without the bound (`outer = Infinity`) nothing stopped a high-entropy step's ratio: on TextHousehold-v0
 * (seeds 1–3, 300k env steps) the policy ran away (approximate KL up to 25, entropy 0.01) and unseen success stayed
 * 0.00 on every seed.
 */
export const balancedClipSlope = (advantage: number, ratio: number, clip: number, highEntropy: boolean, outer = defaultOuterBound * clip): number => {
  const unclipped = -advantage * ratio
  const clipped = -advantage * Math.min(Math.max(ratio, 1 - clip), 1 + clip)
  if (unclipped >= clipped) return -advantage * ratio
  if (!highEntropy || Math.abs(ratio - 1) > outer) return 0
  return -advantage * (ratio > 1 ? 1 + clip : 1 - clip)
}

/**
 * The outer bound of {@link balancedClipSlope} in units of PPO's clip ε: the preserved gradient of a clipped
 * high-entropy step stops once `|r − 1| > 2ε` (this module's choice, a second trust region twice PPO's).
 */
export const defaultOuterBound = 2

/**
 * Entropy pre-monitoring: how many of `k` rollouts sample globally (from the root), `m = round(k · σ(β (H_root −
 * H̄_tool)))`, clamped to [1, k]; the other k − m branch from tool-call steps. `hTool` is the entropies after tool
 * calls (mean taken here; empty: m = k). β default 1 (this module's choice). Throws `RangeError` for k < 1 or a
 * non-finite input.
 */
export const globalSamples = (k: number, hRoot: number, hTool: ArrayLike<number>, beta = 1): number => {
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`globalSamples: k must be a positive integer, got ${k}`)
  if (!Number.isFinite(hRoot) || !Number.isFinite(beta)) throw new RangeError(`globalSamples: hRoot and beta must be finite, got ${hRoot}, ${beta}`)
  if (hTool.length === 0) return k
  let mean = 0
  for (let i = 0; i < hTool.length; i++) {
    if (!Number.isFinite(hTool[i]!)) throw new RangeError(`globalSamples: hTool[${i}] is ${hTool[i]}`)
    mean += hTool[i]!
  }
  mean /= hTool.length
  const m = Math.round(k / (1 + Math.exp(-beta * (hRoot - mean))))
  return Math.min(k, Math.max(1, m))
}

Advantages.register(NAME, estimator, { family: "custom" })
StepSignals.declare(NAME, ["entropies"])

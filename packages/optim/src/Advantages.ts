/**
 * Advantage estimators for group rollouts: pure functions from a batch of grouped trajectories to per-step
 * advantages, and a registry of them by name (`"gae"`, `"grpo"`, `"dr-grpo"`, `"rloo"`, `"reinforce++"`, `"gigpo"`, and
 * the multi-agent self-play ones `"rae"` (SPIRAL), `"mars"` (MARS), `"at-grpo"` (AT-GRPO)).
 *
 * A *group* is the set of trajectories rolled out from one identical initial state (one task, N samples); a *batch*
 * is a list of groups. Every estimator returns one `Float64Array` of per-step advantages per trajectory, in the
 * batch's order (`result[g][i][t]`).
 *
 * **The estimators** (R_i = Σ_t r_t is the undiscounted return of trajectory i; n the group size):
 * - `grpo` — Shao et al., "DeepSeekMath", arXiv:2402.03300, Sec. 4.1.2 (outcome supervision):
 *   `A_i = (R_i − mean(R)) / (std(R) + ε)`, broadcast to every step of trajectory i.
 * - `dr-grpo` — Liu et al., "Understanding R1-Zero-Like Training: A Critical Perspective" (Dr. GRPO),
 *   arXiv:2503.20783: `A_i = R_i − mean(R)` (no division by the std, which up-weights groups whose returns barely
 *   differ). Dr. GRPO's other half is the loss aggregation: GRPO averages each sequence's token losses by 1/|o_i|
 *   (a length bias: long wrong answers are penalized less per token); Dr. GRPO sums them and divides by a constant.
 *   {@link MultiTurnTrainer} never divides by a trajectory's length (it averages the per-step losses over all steps
 *   of a minibatch), so every estimator here is trained without that per-trajectory length normalization.
 * - `rloo` — Ahmadian et al., "Back to Basics: Revisiting REINFORCE Style Optimization for Learning from Human
 *   Feedback in LLMs", arXiv:2402.14740; Kool, van Hoof, Welling, "Buy 4 REINFORCE Samples, Get a Baseline for
 *   Free!", ICLR 2019 workshop: `A_i = R_i − (1/(n−1)) Σ_{j≠i} R_j` (leave-one-out baseline).
 * - `reinforce++` — Hu, "REINFORCE++", arXiv:2501.03262: per-step discounted returns `G_t = Σ_k γ^k r_{t+k}`,
 *   normalized across the whole batch (every step of every trajectory of every group): `A = (G − mean) / (std + ε)`.
 *   (The paper's per-token KL penalty in the reward is applied by the trainer's `klCoef` as a loss term instead.)
 * - `gigpo` — Feng, Xue, Liu, An, "Group-in-Group Policy Optimization for LLM Agent Training", arXiv:2505.10978:
 *   episode level (Eq. 3) `A^E_i = (R_i − mean(R)) / F_norm(R)`; step level (Eqs. 5–7): every step of the group's
 *   trajectories is placed in the *anchor-state group* of its state key, its value is the discounted return from that
 *   step `R_t = Σ_k γ^k r_{t+k}` (γ = 0.95 in the paper's ALFWorld/WebShop runs), and
 *   `A^S = (R_t − mean over the anchor group) / F_norm(anchor group)`; a singleton anchor group gives 0. The final
 *   advantage (Eq. 8) is `A = A^E + ω · A^S` (ω = 1 in the paper). `F_norm` is the std (`normalize: "std"`,
 *   verl-agent's `mean_std_norm`) or 1 (`normalize: "none"`, verl-agent's `mean_norm`, Dr. GRPO's choice); the same
 *   choice applies to both levels, as in the paper.
 * - `gae` — Schulman et al., arXiv:1506.02438, per trajectory with the critic values it carries (`values`,
 *   `bootstrapValue`), through `Gae.computeInto` of `@autodidact/kernels`.
 * - `rae` — SPIRAL, arXiv:2506.24119: `A = R − b_role`, `b_role` an EMA (decay 0.95) of the role's returns
 *   ({@link raeWithBaselines} carries the baselines from batch to batch).
 * - `mars` — MARS, arXiv:2510.15414: turn-level return-to-go, normalized per role within the group.
 * - `at-grpo` — AT-GRPO, arXiv:2510.11062: return-to-go normalized within (role, turn index) groups.
 *
 * **The one rule** (the group-relative advantage kernel `GroupNorm` of `@autodidact/kernels` is the one
 * implementation: `normalizeInto` for GRPO, Dr. GRPO, GiGPO's two levels and REINFORCE++'s batch, `rlooInto` for RLOO;
 * `@autodidact/llm`'s verl export calls {@link grpo}):
 * - std is the sample standard deviation (ddof = 1, n − 1 in the denominator), as `torch.std` in verl/verl-agent
 *   and TRL; ε is {@link Options.eps} (default 1e-6).
 * - A group with one member carries no relative signal: every group-relative estimator (GRPO, Dr. GRPO, RLOO,
 *   GiGPO episode and anchor-state step groups) gives it advantage 0 (verl passes the raw score through instead; we
 *   prefer no update to an unbaselined one). Returns at their group's mean (all-equal returns included) give exactly
 *   0, never NaN.
 *
 * **Details**
 * - verl-agent groups anchor states by the observation text; here by `stateKeys` (the env's `stateKey()`, the full
 *   state), which is exact where two states render alike. Anchor groups never span two task groups.
 * - verl-agent's episode level computes mean/std over the group's *steps* (`compute_mean_std_cross_steps`); we use
 *   the trajectories, as the paper's Eq. 3.
 *
 * **Errors**: {@link AdvantageInputError} with a `reason`: `"emptyBatch"`, `"emptyGroup"`, `"emptyTrajectory"`,
 * `"lengthMismatch"` (stateKeys/values length ≠ rewards length), `"nonFinite"` (naming group, trajectory, step and
 * the value), `"missingStateKeys"` (gigpo), `"missingValues"` (gae), `"invalidOption"`;
 * {@link UnknownEstimatorError} from {@link get}.
 *
 * **Registry**: {@link register} adds an estimator with its {@link Traits} (its {@link Family}, which says which
 * invariances its definition guarantees, and the inputs it needs); `CheckEstimator.checkRegistered(name)` checks it
 * against them. A contributed estimator validates with {@link validate} and {@link validateOptions}.
 *
 * @example
 * ```ts
 * import { Advantages } from "@autodidact/optim"
 * const adv = Advantages.get("grpo")([[{ rewards: [0, 1] }, { rewards: [0, 0] }]], Advantages.defaults)
 * // adv[0][0] = [0.7071, 0.7071], adv[0][1] = [-0.7071, -0.7071]
 * ```
 * @see https://arxiv.org/abs/2505.10978 (GiGPO), https://github.com/langfengQ/verl-agent (gigpo/core_gigpo.py)
 * @since 0.1.0
 */
import { Effect, Schema } from "effect"
import { Gae, GroupNorm } from "@autodidact/kernels"

// ---------------------------------------------------------------------------------------------------------------
// Inputs, options, errors
// ---------------------------------------------------------------------------------------------------------------

/** What an estimator needs of one trajectory. */
export interface TrajectoryInput {
  /** Per-step rewards r_0 … r_{T−1} (T ≥ 1). */
  readonly rewards: ArrayLike<number>
  /** Per-step state keys (the state the step's action was taken in); required by `gigpo`. */
  readonly stateKeys?: ReadonlyArray<string> | undefined
  /** Per-step critic values V(s_t); required by `gae`. */
  readonly values?: ArrayLike<number> | undefined
  /** V of the state after the last step when the episode was cut short (default 0: terminal). `gae` only. */
  readonly bootstrapValue?: number | undefined
  /**
   * The agent's role: game and seat (e.g. `"kuhn_poker/0"`). `rae` keeps one baseline per role, `mars` normalizes per
   * role, `at-grpo` groups by role and turn. Default `""` (every trajectory one role).
   */
  readonly role?: string | undefined
}

/** Trajectories from one identical initial state. */
export type Group = ReadonlyArray<TrajectoryInput>

/** Per-step advantages: `[group][trajectory][step]`. */
export type Result = Array<Array<Float64Array>>

/** Options shared by the estimators (each reads the ones it needs). */
export interface Options {
  /** Discount γ for step returns (`reinforce++`, `gigpo` step level, `gae`). Default 0.95 (GiGPO's). */
  readonly gamma: number
  /** GAE λ. Default 0.95. */
  readonly lambda: number
  /** GiGPO step-level weight ω. Default 1. */
  readonly omega: number
  /** F_norm of `gigpo`: `"std"` (default) or `"none"` (= 1). */
  readonly normalize: "std" | "none"
  /** ε added to the std. Default 1e-6 (verl-agent). */
  readonly eps: number
  /** EMA decay of `rae`'s per-role baselines, in [0, 1]. Default 0.95 (SPIRAL's `role_baseline_ema_gamma`). */
  readonly emaDecay?: number | undefined
  /** `rae`'s baselines before this batch, by role (missing roles start at 0). Default: none. */
  readonly roleBaselines?: ReadonlyMap<string, number> | undefined
}

/** The paper defaults: γ = 0.95, λ = 0.95, ω = 1, F_norm = std, ε = 1e-6. */
export const defaults: Options = { gamma: 0.95, lambda: 0.95, omega: 1, normalize: "std", eps: 1e-6 }

/** An estimator: a pure function of the batch (throws {@link AdvantageInputError}). */
export type Estimator = (batch: ReadonlyArray<Group>, options: Options) => Result

/**
 * Invalid input to an estimator.
 * @category errors
 */
export class AdvantageInputError extends Schema.TaggedError<AdvantageInputError>()("AdvantageInputError", {
  reason: Schema.Literals(["emptyBatch", "emptyGroup", "emptyTrajectory", "lengthMismatch", "nonFinite", "missingStateKeys", "missingValues", "invalidOption"]),
  estimator: Schema.String,
  group: Schema.optional(Schema.Number),
  trajectory: Schema.optional(Schema.Number),
  step: Schema.optional(Schema.Number),
  value: Schema.optional(Schema.Unknown),
  detail: Schema.optional(Schema.String)
}) {
  override get message() {
    const at = [
      this.group === undefined ? "" : `group ${this.group}`,
      this.trajectory === undefined ? "" : `trajectory ${this.trajectory}`,
      this.step === undefined ? "" : `step ${this.step}`
    ].filter((s) => s !== "").join(", ")
    const value = this.value === undefined ? "" : ` (value ${String(this.value)})`
    return `${this.estimator}: ${this.reason}${at === "" ? "" : ` at ${at}`}${value}${this.detail === undefined ? "" : `: ${this.detail}`}`
  }
}

/**
 * No estimator registered under this name.
 * @category errors
 */
export class UnknownEstimatorError extends Schema.TaggedError<UnknownEstimatorError>()("UnknownEstimatorError", {
  name: Schema.String,
  known: Schema.Array(Schema.String)
}) {
  override get message() {
    return `Unknown advantage estimator "${this.name}"; known: ${this.known.join(", ")}`
  }
}

/**
 * Check a batch's shapes and finiteness for `estimator` (named in the error): a non-empty batch of non-empty groups
 * of non-empty trajectories with finite rewards; `stateKeys` (required with `need.stateKeys`) and `values` (required
 * with `need.values`, finite, plus a finite `bootstrapValue`) of the rewards' length. Throws
 * {@link AdvantageInputError} with the first problem's `reason` and position (group, trajectory, step).
 */
export const validate = (
  estimator: string,
  batch: ReadonlyArray<Group>,
  need: { readonly stateKeys?: boolean; readonly values?: boolean } = {}
): void => {
  if (batch.length === 0) throw new AdvantageInputError({ reason: "emptyBatch", estimator })
  for (let g = 0; g < batch.length; g++) {
    const group = batch[g]!
    if (group.length === 0) throw new AdvantageInputError({ reason: "emptyGroup", estimator, group: g })
    for (let i = 0; i < group.length; i++) {
      const tr = group[i]!
      const T = tr.rewards.length
      if (T === 0) throw new AdvantageInputError({ reason: "emptyTrajectory", estimator, group: g, trajectory: i })
      for (let t = 0; t < T; t++) {
        const r = tr.rewards[t]!
        if (!Number.isFinite(r)) throw new AdvantageInputError({ reason: "nonFinite", estimator, group: g, trajectory: i, step: t, value: r, detail: "reward" })
      }
      if (need.stateKeys === true && tr.stateKeys === undefined) throw new AdvantageInputError({ reason: "missingStateKeys", estimator, group: g, trajectory: i })
      if (tr.stateKeys !== undefined && tr.stateKeys.length !== T) {
        throw new AdvantageInputError({ reason: "lengthMismatch", estimator, group: g, trajectory: i, detail: `${tr.stateKeys.length} state keys for ${T} rewards` })
      }
      if (need.values === true) {
        if (tr.values === undefined) throw new AdvantageInputError({ reason: "missingValues", estimator, group: g, trajectory: i })
        if (tr.values.length !== T) throw new AdvantageInputError({ reason: "lengthMismatch", estimator, group: g, trajectory: i, detail: `${tr.values.length} values for ${T} rewards` })
        for (let t = 0; t < T; t++) {
          const v = tr.values[t]!
          if (!Number.isFinite(v)) throw new AdvantageInputError({ reason: "nonFinite", estimator, group: g, trajectory: i, step: t, value: v, detail: "value" })
        }
        const b = tr.bootstrapValue ?? 0
        if (!Number.isFinite(b)) throw new AdvantageInputError({ reason: "nonFinite", estimator, group: g, trajectory: i, value: b, detail: "bootstrapValue" })
      }
    }
  }
}

/**
 * Check the shared {@link Options} for `estimator` (named in the error): γ and λ in [0, 1], ω finite, ε ≥ 0. Throws
 * {@link AdvantageInputError} with reason `"invalidOption"` naming the offending value. Every built-in calls it; a
 * contributed estimator should too (`CheckEstimator.checkEstimator` asserts bad options are rejected).
 */
export const validateOptions = (estimator: string, o: Options): void => {
  if (!(o.gamma >= 0 && o.gamma <= 1)) throw new AdvantageInputError({ reason: "invalidOption", estimator, value: o.gamma, detail: "gamma must be in [0, 1]" })
  if (!(o.lambda >= 0 && o.lambda <= 1)) throw new AdvantageInputError({ reason: "invalidOption", estimator, value: o.lambda, detail: "lambda must be in [0, 1]" })
  if (!Number.isFinite(o.omega)) throw new AdvantageInputError({ reason: "invalidOption", estimator, value: o.omega, detail: "omega must be finite" })
  if (!(o.eps >= 0)) throw new AdvantageInputError({ reason: "invalidOption", estimator, value: o.eps, detail: "eps must be ≥ 0" })
  if (o.emaDecay !== undefined && !(o.emaDecay >= 0 && o.emaDecay <= 1)) {
    throw new AdvantageInputError({ reason: "invalidOption", estimator, value: o.emaDecay, detail: "emaDecay must be in [0, 1]" })
  }
  if (o.roleBaselines !== undefined) {
    for (const [role, b] of o.roleBaselines) {
      if (!Number.isFinite(b)) throw new AdvantageInputError({ reason: "invalidOption", estimator, value: b, detail: `roleBaselines["${role}"] must be finite` })
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Small numeric helpers (plain loops, doubles)
// ---------------------------------------------------------------------------------------------------------------

/** Undiscounted return Σ_t r_t. */
export const episodeReturn = (rewards: ArrayLike<number>): number => {
  let s = 0
  for (let t = 0; t < rewards.length; t++) s += rewards[t]!
  return s
}

/** Discounted returns from every step: `out[t] = r_t + γ · out[t+1]`. */
export const discountedReturns = (rewards: ArrayLike<number>, gamma: number, out = new Float64Array(rewards.length)): Float64Array => {
  let running = 0
  for (let t = rewards.length - 1; t >= 0; t--) {
    running = rewards[t]! + gamma * running
    out[t] = running
  }
  return out
}

/** Mean and sample std (n − 1; 0 for n = 1) of `xs` (`GroupNorm.statsInto` of `@autodidact/kernels`, one segment). */
export const meanStd = (xs: ArrayLike<number>): { mean: number; std: number } => {
  const mean = new Float64Array(1)
  const std = new Float64Array(1)
  GroupNorm.statsInto(xs, new Int32Array(xs.length), Int32Array.of(xs.length), 1, mean, std)
  return { mean: mean[0]!, std: std[0]! }
}

/**
 * The batch's episode returns flattened in order (`returns[k]`, trajectory k of the batch) with their group index
 * (`ids[k]`) and the group sizes (`count[g]`): the segment layout of `GroupNorm` in `@autodidact/kernels`.
 */
const batchReturns = (batch: ReadonlyArray<Group>): { returns: Float64Array; ids: Int32Array; count: Int32Array } => {
  let n = 0
  for (const group of batch) n += group.length
  const returns = new Float64Array(n)
  const ids = new Int32Array(n)
  const count = new Int32Array(batch.length)
  let k = 0
  for (let g = 0; g < batch.length; g++) {
    const group = batch[g]!
    count[g] = group.length
    for (const tr of group) {
      returns[k] = episodeReturn(tr.rewards)
      ids[k++] = g
    }
  }
  return { returns, ids, count }
}

/**
 * Group-relative episode-level advantages of every trajectory, `out[k]` in batch order:
 * `GroupNorm.normalizeInto` (sample std, ε; one-member groups and returns at their group's mean give exactly 0).
 */
const episodeLevel = (batch: ReadonlyArray<Group>, scale: boolean, eps: number): Float64Array => {
  const { count, ids, returns } = batchReturns(batch)
  const out = new Float64Array(returns.length)
  GroupNorm.normalizeInto(returns, ids, count, 1, eps, scale, new Float64Array(batch.length), new Float64Array(batch.length), out)
  return out
}

/** Give trajectory k of the batch (in order) the per-trajectory value `perTrajectory[k]` at every step. */
const broadcastBatch = (batch: ReadonlyArray<Group>, perTrajectory: Float64Array): Result => {
  let k = 0
  return batch.map((group) => group.map((tr) => new Float64Array(tr.rewards.length).fill(perTrajectory[k++]!)))
}

// ---------------------------------------------------------------------------------------------------------------
// The estimators
// ---------------------------------------------------------------------------------------------------------------

/**
 * GRPO outcome advantage (Shao et al., "DeepSeekMath", arXiv:2402.03300, Sec. 4.1.2):
 * `A_i = (R_i − mean(R)) / (std(R) + ε)` within each group (sample std), broadcast to every step; a one-member group
 * gets 0. Shapes: `result[g][i]` has the length of `batch[g][i].rewards`. Throws {@link AdvantageInputError}.
 */
export const grpo: Estimator = (batch, o) => {
  validate("grpo", batch)
  validateOptions("grpo", o)
  return broadcastBatch(batch, episodeLevel(batch, true, o.eps))
}

/**
 * Dr. GRPO (Liu et al., "Understanding R1-Zero-Like Training: A Critical Perspective", arXiv:2503.20783):
 * `A_i = R_i − mean(R)` within each group, no std division; a one-member group gets 0. Throws
 * {@link AdvantageInputError}.
 */
export const drGrpo: Estimator = (batch, o) => {
  validate("dr-grpo", batch)
  validateOptions("dr-grpo", o)
  return broadcastBatch(batch, episodeLevel(batch, false, o.eps))
}

/**
 * RLOO (Ahmadian et al., arXiv:2402.14740): `A_i = R_i − (1/(n−1)) Σ_{j≠i} R_j` within each group
 * (`GroupNorm.rlooInto`), broadcast to every step; a one-member group has no leave-one-out baseline and gets 0.
 * Throws {@link AdvantageInputError}.
 */
export const rloo: Estimator = (batch, o) => {
  validate("rloo", batch)
  validateOptions("rloo", o)
  const { count, ids, returns } = batchReturns(batch)
  const advantages = new Float64Array(returns.length)
  GroupNorm.rlooInto(returns, ids, count, new Float64Array(batch.length), new Float64Array(returns.length), advantages)
  return broadcastBatch(batch, advantages)
}

/**
 * REINFORCE++ (Hu, arXiv:2501.03262): discounted step returns `G_t = Σ_k γ^k r_{t+k}`, normalized over the whole
 * batch (every step of every trajectory of every group, one `GroupNorm` segment): `A = (G − mean) / (std + ε)`,
 * sample std. Throws {@link AdvantageInputError}.
 */
export const reinforcePlusPlus: Estimator = (batch, o) => {
  validate("reinforce++", batch)
  validateOptions("reinforce++", o)
  let n = 0
  for (const group of batch) for (const tr of group) n += tr.rewards.length
  const all = new Float64Array(n)
  let offset = 0
  for (const group of batch) {
    for (const tr of group) {
      discountedReturns(tr.rewards, o.gamma, all.subarray(offset, offset + tr.rewards.length))
      offset += tr.rewards.length
    }
  }
  GroupNorm.normalizeInto(all, new Int32Array(n), Int32Array.of(n), 1, o.eps, true, new Float64Array(1), new Float64Array(1), all)
  offset = 0
  return batch.map((group) =>
    group.map((tr) => {
      const a = all.slice(offset, offset + tr.rewards.length)
      offset += tr.rewards.length
      return a
    })
  )
}

/**
 * GiGPO's step-level advantages alone (Eqs. 5–7): anchor-state groups within each task group by state key,
 * discounted step returns, normalized within each anchor group (singletons → 0).
 */
export const gigpoStep = (batch: ReadonlyArray<Group>, o: Options): Result => {
  validate("gigpo", batch, { stateKeys: true })
  validateOptions("gigpo", o)
  // anchor groups: the dense id of each step's state key within its task group (a singleton anchor group gives 0)
  return keyedStepNorm(batch, o, (tr, t) => tr.stateKeys![t]!, o.normalize === "std")
}

/**
 * GiGPO (Feng et al., "Group-in-Group Policy Optimization for LLM Agent Training", arXiv:2505.10978, Eq. 8):
 * `A = A^E + ω · A^S`, the episode level `A^E` normalized within each task group and the step level `A^S` within
 * each anchor-state group ({@link gigpoStep}), both by `F_norm` (`normalize`); one-member groups at either level
 * give 0. Requires `stateKeys`; throws {@link AdvantageInputError}.
 */
export const gigpo: Estimator = (batch, o) => {
  const step = gigpoStep(batch, o) // validates
  const episode = episodeLevel(batch, o.normalize === "std", o.eps)
  let k = 0
  return step.map((group) =>
    group.map((a) => {
      const e = episode[k++]!
      for (let t = 0; t < a.length; t++) a[t] = e + o.omega * a[t]!
      return a
    })
  )
}

/**
 * GAE per trajectory with its own critic values (Schulman et al., "High-Dimensional Continuous Control Using
 * Generalized Advantage Estimation", arXiv:1506.02438), via `Gae.computeInto` of `@autodidact/kernels`: `δ_t = r_t +
 * γ V(s_{t+1}) − V(s_t)` with `V` after the last step = `bootstrapValue` (default 0, terminal), `A_t = Σ_k (γλ)^k
 * δ_{t+k}`. Not group-relative (groups are ignored). Requires `values`; throws {@link AdvantageInputError}.
 */
export const gae: Estimator = (batch, o) => {
  validate("gae", batch, { values: true })
  validateOptions("gae", o)
  return batch.map((group) =>
    group.map((tr) => {
      const T = tr.rewards.length
      const adv = new Float64Array(T)
      const bootstrap = tr.bootstrapValue ?? 0
      Gae.computeInto(
        {
          numSteps: T,
          numEnvs: 1,
          gamma: o.gamma,
          lambda: o.lambda,
          rewards: tr.rewards,
          values: tr.values!,
          dones: new Float64Array(T),
          nextValue: [bootstrap],
          nextDone: [0]
        },
        adv,
        new Float64Array(T)
      )
      return adv
    })
  )
}

// ---------------------------------------------------------------------------------------------------------------
// Multi-agent self-play estimators (SPIRAL's RAE, MARS, AT-GRPO)
// ---------------------------------------------------------------------------------------------------------------

/** The default EMA decay of {@link rae} (SPIRAL's `role_baseline_ema_gamma = 0.95`). */
export const defaultEmaDecay = 0.95

/**
 * SPIRAL's role-conditioned advantage estimation with its state made explicit (Liu et al., "SPIRAL: Self-Play on
 * Zero-Sum Games Incentivizes Reasoning via Multi-Agent Multi-Turn Reinforcement Learning", arXiv:2506.24119,
 * Sec. 3.3): one baseline `b_role` per game and role (`TrajectoryInput.role`), an exponential moving average of that
 * role's returns. Trajectories are visited in batch order (group by group); each gets `A = R − b_role` with the
 * baseline *before* its own return is folded in (as `compute_group_rewards` of the SPIRAL repository:
 * "get baseline before updating, to be unbiased"), then `b_role ← d · b_role + (1 − d) · R` with `d` =
 * `options.emaDecay` (default 0.95). Baselines start at `options.roleBaselines` (missing roles at 0). Returns the
 * advantages (broadcast to every step) and the baselines after the batch; the input map is not modified.
 * Throws {@link AdvantageInputError}.
 */
export const raeWithBaselines = (
  batch: ReadonlyArray<Group>,
  o: Options
): { readonly advantages: Result; readonly baselines: Map<string, number> } => {
  validate("rae", batch)
  validateOptions("rae", o)
  const d = o.emaDecay ?? defaultEmaDecay
  const baselines = new Map<string, number>(o.roleBaselines ?? [])
  const advantages = batch.map((group) =>
    group.map((tr) => {
      const role = tr.role ?? ""
      const R = episodeReturn(tr.rewards)
      const b = baselines.get(role) ?? 0
      baselines.set(role, d * b + (1 - d) * R)
      return new Float64Array(tr.rewards.length).fill(R - b)
    })
  )
  return { advantages, baselines }
}

/** SPIRAL's RAE as a registered {@link Estimator}: {@link raeWithBaselines}'s advantages. */
export const rae: Estimator = (batch, o) => raeWithBaselines(batch, o).advantages

/**
 * Normalize per-step values within keyed step groups of each task group: every step `t` of trajectory `i` of a group
 * goes to the step group `key(tr, t)` (numbered in order of first appearance); its value `G` (discounted
 * reward-to-go, γ = `options.gamma`) becomes `(G − mean) / (std + ε)` over its step group (`G − mean` without
 * `byStd`; sample std; a one-member step group gives 0), through `GroupNorm.normalizeInto` as every group estimator
 * here. GiGPO's anchor-state level, MARS and AT-GRPO are this with different keys.
 */
const keyedStepNorm = (batch: ReadonlyArray<Group>, o: Options, key: (tr: TrajectoryInput, t: number) => string, byStd = true): Result =>
  batch.map((group) => {
    let n = 0
    for (const tr of group) n += tr.rewards.length
    const values = new Float64Array(n)
    const ids = new Int32Array(n)
    const idOf = new Map<string, number>()
    let offset = 0
    for (const tr of group) {
      discountedReturns(tr.rewards, o.gamma, values.subarray(offset, offset + tr.rewards.length))
      for (let t = 0; t < tr.rewards.length; t++) {
        const k = key(tr, t)
        let id = idOf.get(k)
        if (id === undefined) {
          id = idOf.size
          idOf.set(k, id)
        }
        ids[offset + t] = id
      }
      offset += tr.rewards.length
    }
    const G = idOf.size
    const count = new Int32Array(G)
    for (let k = 0; k < n; k++) count[ids[k]!]++
    const adv = new Float64Array(n)
    GroupNorm.normalizeInto(values, ids, count, 1, o.eps, byStd, new Float64Array(G), new Float64Array(G), adv)
    offset = 0
    return group.map((tr) => {
      const out = adv.slice(offset, offset + tr.rewards.length)
      offset += tr.rewards.length
      return out
    })
  })

/**
 * MARS's turn-level advantages with agent-specific normalization (Yuan, Xu et al., "MARS: Reinforcing Multi-Agent
 * Reasoning of LLMs through Self-Play in Strategic Games", arXiv:2510.15414; v2 titled MARSHAL): each turn's value is
 * its discounted return-to-go over the agent's own turns `G_t = Σ_k γ^k r_{t+k}` (credit per interaction, not per
 * episode), normalized per agent: `A_t = (G_t − mean) / (std + ε)` with mean and sample std over every turn of the
 * same role (`TrajectoryInput.role`) in the group (the repository's `reward_normalize_by_player`). A role with one
 * turn in the group gets 0. Throws {@link AdvantageInputError}.
 */
export const mars: Estimator = (batch, o) => {
  validate("mars", batch)
  validateOptions("mars", o)
  return keyedStepNorm(batch, o, (tr) => tr.role ?? "")
}

/**
 * AT-GRPO's agent- and turn-wise grouping (Zhao et al., "Stronger Together: On-Policy Reinforcement Learning for
 * Collaborative LLMs", arXiv:2510.11062, Sec. 4): GRPO's group-relative advantage, but a step is compared only with
 * the steps of the same agent (`role`) at the same turn index `t` (the agent's t-th action) within the task group:
 * `A_t = (G_t − mean) / (std + ε)` over that (role, turn) group, `G_t` the discounted return-to-go. The paper draws
 * its K candidates per (agent, turn) from one shared state (tree sampling); here the candidates are the group's
 * trajectories at that turn. A singleton (role, turn) group gives 0. Throws {@link AdvantageInputError}.
 */
export const atGrpo: Estimator = (batch, o) => {
  validate("at-grpo", batch)
  validateOptions("at-grpo", o)
  return keyedStepNorm(batch, o, (tr, t) => `${tr.role ?? ""}\u0000${t}`)
}

// ---------------------------------------------------------------------------------------------------------------
// Registry
// ---------------------------------------------------------------------------------------------------------------

const registry = new Map<string, Estimator>([
  ["gae", gae],
  ["grpo", grpo],
  ["dr-grpo", drGrpo],
  ["rloo", rloo],
  ["reinforce++", reinforcePlusPlus],
  ["gigpo", gigpo],
  ["rae", rae],
  ["mars", mars],
  ["at-grpo", atGrpo]
])

/** The built-in estimators' names (the registry as this module creates it, before any {@link register}), sorted. */
export const builtinNames: ReadonlyArray<string> = [...registry.keys()].sort()

/**
 * The family of an estimator: which invariances its definition guarantees (asserted by `CheckEstimator`).
 * - `"group-normalized"` — `(R_i − mean) / (std + ε)` within each group, one value per trajectory (GRPO).
 * - `"group-centered"` — `R_i − baseline(group)`, one value per trajectory (Dr. GRPO, RLOO).
 * - `"batch-normalized"` — normalized over every step of the whole batch (REINFORCE++).
 * - `"anchor-state"` — episode level plus anchor-state step level, both within each group (GiGPO).
 * - `"critic"` — per trajectory from its critic values (GAE).
 * - `"custom"` — none declared: only the contract every estimator keeps (shapes, finiteness, errors, determinism).
 */
export type Family = "group-normalized" | "group-centered" | "batch-normalized" | "anchor-state" | "critic" | "custom"

/** What an estimator declares about itself beside its function. */
export interface Traits {
  /** Its {@link Family}. */
  readonly family: Family
  /** Whether it requires `stateKeys` (gigpo) / `values` (gae) on every trajectory. */
  readonly needs?: { readonly stateKeys?: boolean | undefined; readonly values?: boolean | undefined } | undefined
}

const traitsRegistry = new Map<string, Traits>([
  ["gae", { family: "critic", needs: { values: true } }],
  ["grpo", { family: "group-normalized" }],
  ["dr-grpo", { family: "group-centered" }],
  ["rloo", { family: "group-centered" }],
  ["reinforce++", { family: "batch-normalized" }],
  ["gigpo", { family: "anchor-state", needs: { stateKeys: true } }],
  ["rae", { family: "custom" }],
  ["mars", { family: "custom" }],
  ["at-grpo", { family: "custom" }]
])

/**
 * Register (or replace) an estimator under `name`, for {@link get}, {@link compute} and `MultiTurnTrainer`'s `algo`,
 * with its {@link Traits} (default `{ family: "custom" }`), read back by {@link traits}. Returns a function that
 * undoes this registration (restoring what `name` held before, if anything).
 */
export const register = (name: string, estimator: Estimator, traits: Traits = { family: "custom" }): (() => void) => {
  const before = registry.get(name)
  const beforeTraits = traitsRegistry.get(name)
  registry.set(name, estimator)
  traitsRegistry.set(name, traits)
  return () => {
    if (registry.get(name) !== estimator) return
    if (before === undefined) {
      registry.delete(name)
      traitsRegistry.delete(name)
    } else {
      registry.set(name, before)
      traitsRegistry.set(name, beforeTraits ?? { family: "custom" })
    }
  }
}

/** The {@link Traits} registered with `name`; throws {@link UnknownEstimatorError} for an unknown name. */
export const traits = (name: string): Traits => {
  const t = traitsRegistry.get(name)
  if (t === undefined || !registry.has(name)) throw new UnknownEstimatorError({ name, known: names() })
  return t
}

/** Registered names, sorted. */
export const names = (): Array<string> => [...registry.keys()].sort()

/** The estimator registered under `name` (`"gae"`, `"grpo"`, `"dr-grpo"`, `"rloo"`, `"reinforce++"`, `"gigpo"` or a registered one); throws {@link UnknownEstimatorError} listing the known names. */
export const get = (name: string): Estimator => {
  const e = registry.get(name)
  if (e === undefined) throw new UnknownEstimatorError({ name, known: names() })
  return e
}

/**
 * Effect boundary: run the estimator `name` on `batch` with `options` merged over {@link defaults}. Succeeds with the
 * per-step advantages `result[g][i][t]` (one `Float64Array` per trajectory, the length of its rewards); fails with
 * {@link AdvantageInputError} or {@link UnknownEstimatorError} (any other throw is a defect).
 * @example
 * ```ts
 * // returns {1, 0} in one group: mean 0.5, sample std √0.5 → ±0.5/(√0.5 + 1e-6) = ±0.70711 on every step
 * Advantages.compute("grpo", [[{ rewards: [0, 1] }, { rewards: [0, 0] }]])
 * ```
 */
export const compute = (
  name: string,
  batch: ReadonlyArray<Group>,
  options: Partial<Options> = {}
): Effect.Effect<Result, AdvantageInputError | UnknownEstimatorError> =>
  Effect.suspend(() => {
    try {
      return Effect.succeed(get(name)(batch, { ...defaults, ...options }))
    } catch (e) {
      if (e instanceof AdvantageInputError || e instanceof UnknownEstimatorError) return Effect.fail(e)
      return Effect.die(e)
    }
  })

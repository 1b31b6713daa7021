/**
 * Multi-turn agent RL for text environments: group rollouts, a group-relative advantage estimator (GiGPO, GRPO,
 * Dr. GRPO, RLOO, REINFORCE++ from {@link Advantages}), and PPO's clipped surrogate on a critic-free text policy
 * ({@link DrrnPolicy}), as verl-agent trains LLM agents (without the LLM).
 *
 * The loop, top to bottom:
 * 1. draw `tasksPerBatch` training tasks and roll out `groupSize` trajectories of each from the identical initial
 *    state ({@link GroupRollout});
 * 2. per-step advantages with the chosen estimator (`algo`), on the env rewards or on shaped ones (`Hooks.stepRewards`,
 *    e.g. plus a process reward model's; AgentPRM, arXiv:2502.10325);
 * 3. `epochs` passes over the batch in `minibatches` shuffled minibatches, each step's loss being
 *    ```text
 *    ratio = π(a|s) / π_old(a|s)
 *    L = max(−A·ratio, −A·clip(ratio, 1 ± clip))          (Schulman et al. 2017, eq. 7)
 *      + klCoef · KL_k(π ‖ π_ref)                         (k1 = log π − log π_ref, k3 = r − 1 − log r with r = π_ref/π;
 *                                                          Schulman, "Approximating KL Divergence", 2020)
 *      − entCoef · H(π(·|s))
 *    ```
 *    averaged over the minibatch's steps (no division by a trajectory's length, see Dr. GRPO in {@link Advantages}),
 *    global-norm clipping (`maxGradNorm`), {@link Adam}; π_ref is the frozen initial policy; with `targetKl` the update
 *    stops at the first minibatch whose approximate KL to the rollout policy exceeds `1.5 · targetKl` (SB3's PPO);
 * 4. every `evalEvery` updates, the success rate of `evalEpisodes` episodes on the `evalSplit` tasks.
 *
 * **Tasks**: by default a training task is `{ seed: <drawn from the run's task generator>, options: { split } }`
 * and evaluation task k is `{ seed: evalSeedBase + k, options: { split: evalSplit } }` (envs that take
 * `options.split` choose their train/test levels from it); `tasks` overrides both. A `taskSampler`
 * ({@link TaskSamplers}: PAPRIKA, WebRL failure replay, ScalingInter-RL horizon, DART group sizes) chooses the training
 * tasks instead, may set each group's size and the step limit per update, and is told every group's successes.
 *
 * **Reproducibility**: weight init, task draws, action sampling, minibatch shuffles and evaluation all draw from
 * children of `Rng.make(seed)`; with deterministic envs a run is bit-for-bit reproducible.
 *
 * **Entropy control**: `epo` adds EPO's entropy smoothing ({@link Epo}) to the loss, `entropyBalancedClip` AEPO's
 * entropy-balanced clipping ({@link Aepo}).
 *
 * **Errors**: `InvalidOptionError` for an invalid option; `AdvantageInputError` / `UnknownEstimatorError` from
 * the estimator; `GoalLogProbUnavailableError` for an estimator needing goal log-probabilities (`igpo`); `NonFiniteValueError` when the loss or gradient norm becomes NaN/∞; {@link RolloutFailedError}
 * when every trajectory of a batch failed (env errors are otherwise recorded and skipped).
 *
 * @example
 * ```ts
 * import { MultiTurnTrainer } from "@autodidact/optim"
 * import { Effect } from "effect"
 * const envs = Array.from({ length: 8 }, () => makeTextEnv())
 * const result = await Effect.runPromise(
 *   MultiTurnTrainer.train(envs, { algo: "gigpo", groupSize: 8, totalEnvSteps: 50_000, seed: 1 }, {
 *     onUpdate: (row) => console.log(JSON.stringify(row)),
 *     onEvaluation: (row) => console.log(`success ${row.successRate}`)
 *   })
 * )
 * ```
 * @see https://arxiv.org/abs/2505.10978 (GiGPO), https://github.com/langfengQ/verl-agent
 * @see http://joschu.net/blog/kl-approx.html
 * @since 0.1.0
 */
import { InvalidOptionError, Metrics, NonFiniteValueError, Rng } from "@autodidact/core"
import { Effect, Schema } from "effect"
import * as Adam from "../Adam.js"
import * as Advantages from "../Advantages.js"
import * as DrrnPolicy from "./DrrnPolicy.js"
import * as Dpo from "./Dpo.js"
import type * as TaskSamplers from "../curriculum/TaskSamplers.js"
import * as Aepo from "../estimators/Aepo.js"
import * as Epo from "../estimators/Epo.js"
import * as Igpo from "../estimators/Igpo.js"
import * as Oprl from "../estimators/Oprl.js"
import * as StepSignals from "../estimators/StepSignals.js"
import * as GroupRollout from "./GroupRollout.js"

// ---------------------------------------------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------------------------------------------

/** Trainer hyper-parameters. */
export interface Options {
  /**
   * Registered advantage estimator: "gigpo" (default), "grpo", "dr-grpo", "rloo", "reinforce++", those of
   * `src/estimators` ("flow-grpo", "spa", "oprl", "aepo"; "igpo" needs goal log-probabilities the DRRN policy lacks and
   * fails with `GoalLogProbUnavailableError`), or a user's. Per-step signals an estimator declares
   * (`StepSignals.declare`) are attached: `entropies` (the policy's entropy at each step) and `logRatios` (OPRL's:
   * log π_φ of an implicit PRM minus the rollout's log π_θold; the PRM is a second DRRN, initialised as the policy and
   * trained each round, before the advantages, by trajectory-level DPO on the batch's outcome preferences
   * (`Dpo.trajectoryStep`, `prm.steps` full-batch steps, β = `Oprl.defaultBeta`); it is not part of checkpoints).
   */
  readonly algo: string
  /** Trajectories per task (group size N). Default 8 (verl-agent's `env.rollout.n`). */
  readonly groupSize: number
  /** Tasks per batch. Default 8 (batch = 64 trajectories). */
  readonly tasksPerBatch: number
  /** Adam learning rate. Default 1e-3. */
  readonly learningRate: number
  /**
   * Anneal the learning rate linearly toward 0 over `totalEnvSteps` (CleanRL's `anneal_lr`, PPO's schedule in Schulman
   * et al. 2017, arXiv:1707.06347): an update that starts at env step `s` uses `learningRate · (1 − s / totalEnvSteps)`.
   * Default false.
   */
  readonly annealLr: boolean
  /** Passes over each batch. Default 2. */
  readonly epochs: number
  /** Minibatches per pass. Default 4. */
  readonly minibatches: number
  /**
   * Stop an update's remaining minibatch steps once a minibatch's approximate KL to the rollout policy (measured
   * before its step, `E[r − 1 − log r]`) exceeds `1.5 · targetKl` (Stable-Baselines3's PPO `target_kl`; CleanRL's
   * `target_kl` makes the same check once per epoch). Positive when set; default undefined (every epoch runs). Update
   * rows count the optimizer steps taken (`optimizerSteps`). On TextHousehold-v0 (lr 5e-3, 4 epochs × 4 minibatches,
   * seeds 1–3) 0.2 with the `envgen` curriculum reached 90% unseen success in 130k env steps on the mean against 152k
   * without (0.5: 150k); with GiGPO alone it slowed learning (0.35 unseen success at 220k against 0.63).
   */
  readonly targetKl?: number | undefined
  /** Surrogate clipping ε. Default 0.2. */
  readonly clip: number
  /** KL penalty to the frozen initial policy (0 = off, no reference kept). Default 0. */
  readonly klCoef: number
  /** KL estimator: "k1" or "k3" (verl's `low_var_kl`). Default "k3". */
  readonly klEstimator: "k1" | "k3"
  /** Entropy bonus. Default 0.01. */
  readonly entCoef: number
  /** Discount for step returns (GiGPO step level, REINFORCE++). Default 0.95. */
  readonly gamma: number
  /** GiGPO step-level weight ω. Default 1. */
  readonly omega: number
  /** GiGPO F_norm: "std" or "none". Default "std". */
  readonly normalize: "std" | "none"
  /** Global gradient-norm clip. Default 1. */
  readonly maxGradNorm: number
  /** Environment steps of training (all trajectories). Default 100 000. */
  readonly totalEnvSteps: number
  /** Step limit per episode. Default 50. */
  readonly maxSteps: number
  /** Reward penalty of an inadmissible action (see {@link GroupRollout}). Default 0.1. */
  readonly invalidActionPenalty: number
  /** Evaluate every this many updates (0 = only at the end). Default 10. */
  readonly evalEvery: number
  /** Episodes per evaluation. Default 50. */
  readonly evalEpisodes: number
  /** Evaluate with the most probable action instead of sampling. Default false. */
  readonly evalGreedy: boolean
  /** `options.split` of training tasks. Default "train". */
  readonly split: string
  /** `options.split` of evaluation tasks. Default "test". */
  readonly evalSplit: string
  /** Seed of evaluation task 0. Default 1 000 000. */
  readonly evalSeedBase: number
  /** Seed of everything. Default 1. */
  readonly seed: number
  /** Policy network sizes and features. */
  readonly policy: Partial<DrrnPolicy.Config>
  /**
   * How the policy computes ({@link DrrnPolicy.Implementation}: the factored kernel and the encoding cache by default;
   * `{ kernel: "reference", encodingCache: 0 }` is the unoptimized baseline of the multi-turn benchmark). Changes
   * only floating-point rounding, not the method; a seed reproduces the run under either choice.
   */
  readonly implementation?: Partial<DrrnPolicy.Implementation> | undefined
  /**
   * What to do with a group whose trajectories all have the same return, whose group-relative (GRPO) advantage is 0
   * (VSPO: Zhuang et al., "Enhancing Agentic RL with Progressive Reward Shaping and Value-based Sampling Policy
   * Optimization", arXiv:2512.07478, replaces such groups): `"keep"` (default, as before), `"skip"` (leave them out
   * of the update; one is kept when all are uniform; under GiGPO this also drops their step-level signal), or
   * `"resample"` (replace each with a group of a fresh task — from `taskSampler` when given, so a value-aware sampler
   * such as PAPRIKA's chooses it — up to `maxResamples` per update). Every group rolled out counts toward the budget
   * and the episode rows; update rows count `uniformGroups` and `resampledGroups`.
   */
  readonly zeroAdvantageGroups: "keep" | "skip" | "resample"
  /** Most replacement groups per update under `zeroAdvantageGroups: "resample"` (default 8). */
  readonly maxResamples: number
  /**
   * EPO's entropy smoothing ({@link Epo}, Xu et al., arXiv:2509.22576): each step's entropy is pulled back toward the
   * historical average entropy of its turn index when it leaves `[low, high] ×` that average (`coef`), with the
   * phase-based weight over `horizon` updates. Default undefined (off); `{}` turns it on with {@link Epo.defaults}.
   * Update rows report `entropyPenalty`.
   */
  readonly epo?: Partial<Epo.Options> | undefined
  /**
   * AEPO's entropy-balanced clipping ({@link Aepo.balancedClipSlope}, Dong et al., arXiv:2510.14545): a step whose
   * rollout entropy is above the batch's mean keeps a rescaled gradient `(1 ± clip) · A` where PPO's clip would zero
   * it, while its ratio stays within `Aepo.defaultOuterBound · clip` of 1 (the bound the epochs over one batch need).
   * Default false.
   */
  readonly entropyBalancedClip: boolean
  /**
   * OPRL's implicit PRM (estimators with `logRatios`): Adam learning rate and full-batch trajectory-DPO steps per
   * round. Default 1e-3 and 1 (`Dpo`'s learning rate): the policy's 5e-3 × 4 epochs on TextHousehold-v0 moved the PRM
   * to per-step log-ratios of 10–55 within 4 rounds and the policy's entropy to 0 within 20k env steps.
   */
  readonly prm: { readonly learningRate: number; readonly steps: number }
  /**
   * A curriculum ({@link TaskSamplers}) choosing the training tasks (instead of `tasks.train` / `split`), optionally
   * each group's size and the step limit per update; it is told each group's successes after the rollout.
   */
  readonly taskSampler?: TaskSamplers.TaskSampler | undefined
  /** Custom task sources (override `split`, `evalSplit`, `evalSeedBase`). */
  readonly tasks?: {
    readonly train?: ((rng: Rng) => GroupRollout.Task) | undefined
    readonly eval?: ((k: number) => GroupRollout.Task) | undefined
  } | undefined
}

/** Defaults (see each option). */
export const defaults: Options = {
  algo: "gigpo",
  groupSize: 8,
  tasksPerBatch: 8,
  zeroAdvantageGroups: "keep",
  maxResamples: 8,
  entropyBalancedClip: false,
  prm: { learningRate: 1e-3, steps: 1 },
  learningRate: 1e-3,
  annealLr: false,
  epochs: 2,
  minibatches: 4,
  clip: 0.2,
  klCoef: 0,
  klEstimator: "k3",
  entCoef: 0.01,
  gamma: 0.95,
  omega: 1,
  normalize: "std",
  maxGradNorm: 1,
  totalEnvSteps: 100_000,
  maxSteps: 50,
  invalidActionPenalty: 0.1,
  evalEvery: 10,
  evalEpisodes: 50,
  evalGreedy: false,
  split: "train",
  evalSplit: "test",
  evalSeedBase: 1_000_000,
  seed: 1,
  policy: {}
}

/** An update row: `Metrics.UpdateRow` plus the batch's success rate and mean return. */
export type UpdateRow = Metrics.UpdateRow & {
  readonly successRate: number
  readonly episodeReturn: number
  readonly failures: number
  /**
   * GiGPO diagnostics: the fraction of step-level anchor groups (steps of one task's group sharing `stateKey`) that
   * hold more than one step; 0 means GiGPO's step level has nothing to compare and reduces to GRPO.
   */
  readonly anchorGroupShare: number
  /** Groups of the batch (as first rolled out) whose trajectories all had the same return (zero GRPO advantage). */
  readonly uniformGroups: number
  /** Groups replaced by a fresh task under `zeroAdvantageGroups: "resample"`. */
  readonly resampledGroups: number
  /** Adam steps of this update: `epochs × minibatches`, fewer when `targetKl` stopped it early. */
  readonly optimizerSteps: number
  /** EPO's smoothing penalty of the last minibatch (0 when `epo` is off or no step left its band). */
  readonly entropyPenalty: number
  /** The task sampler's `stats()` after this batch (arm success rates, weights, ladder levels, ...), when one is set. */
  readonly sampler?: Readonly<Record<string, number>> | undefined
  /**
   * OPRL's implicit PRM (estimators with `logRatios`), before this round's update: its trajectory-level DPO loss and
   * the share of the batch's preference pairs it ranked right (absent when the batch had no pair).
   */
  readonly prm?: { readonly loss: number; readonly accuracy: number; readonly pairs: number } | undefined
}

/** An evaluation row (`successRate` on the evaluation split). */
export interface EvaluationRow {
  readonly kind: "evaluation"
  readonly globalStep: number
  readonly wallSeconds: number
  readonly successRate: number
  readonly episodeReturn: number
  readonly episodeLength: number
  readonly split: string
}

/** Callbacks; all optional, run synchronously inside the loop. */
export interface Hooks {
  readonly onEpisode?: ((row: Metrics.EpisodeRow & { readonly success: boolean }) => void) | undefined
  /**
   * After each update, with the live policy (read it, e.g. to evaluate a checkpoint on other envs; do not mutate it:
   * the run would no longer reproduce).
   */
  readonly onUpdate?: ((row: UpdateRow, policy: DrrnPolicy.Drrn) => void) | undefined
  readonly onEvaluation?: ((row: EvaluationRow) => void) | undefined
  /**
   * Replace the estimator's advantages of a group, e.g. by process-reward-shaped ones (`@autodidact/rewards`
   * `ProcessReward.stepAdvantages`: group-normalized outcome plus PRM progress per step). Called once per group and
   * update with the group (its trajectories' texts, actions, rewards, state keys) and the estimator's advantages
   * (`advantages[i][t]`: step t of trajectory i); return arrays of the same shapes, or `undefined` to keep them.
   * Wrong lengths or non-finite values fail the run with `AdvantageInputError` (estimator `"stepAdvantages"`).
   */
  readonly stepAdvantages?:
    | ((group: GroupRollout.GroupResult<unknown>, advantages: ReadonlyArray<Float64Array>) => ReadonlyArray<ArrayLike<number>> | undefined)
    | undefined
  /**
   * Replace the per-step rewards the advantage estimator sees, BEFORE it runs (reward shaping inside the estimator,
   * unlike {@link Hooks.stepAdvantages}, which replaces its output). Called once per group and update, in the batch's
   * order (`groupIndex` = the group's index among the update's non-empty groups), with the group (its trajectories'
   * texts, actions, env rewards, state keys, successes). Return `rewards[i][t]` for step t of trajectory i — the same
   * shapes as `group.trajectories[i].steps`, in the env's reward units (e.g. env reward + c · a process reward
   * model's score or progress) — or `undefined` to keep the env rewards. The estimator then uses them everywhere it
   * uses rewards: with `gigpo` (Feng et al. 2025, arXiv:2505.10978) both the episode returns `R_i = Σ_t r_t` and
   * the discounted step returns that fill GiGPO's step-level anchor-state groups; so a process reward model's step
   * rewards enter the RL update as AgentPRM (arXiv:2502.10325) uses them. What is shaped: the advantages only; the
   * episode rows, success rates and the uniform-group test of `zeroAdvantageGroups` keep the env rewards.
   * Wrong lengths or non-finite values fail the run with `AdvantageInputError` (estimator `"stepRewards"`, naming the
   * group, trajectory, step and value). Runs before `stepAdvantages` when both are given.
   */
  readonly stepRewards?:
    | ((group: GroupRollout.GroupResult<unknown>, groupIndex: number) => ReadonlyArray<ArrayLike<number>> | undefined)
    | undefined
  /**
   * Asynchronous work between two updates, awaited before the next batch is drawn (after `onUpdate` and any
   * evaluation), with the update row: e.g. an app that writes each batch to an experience store, admits skills
   * discovered in it, or prepares what the next tasks need, so that the run stays reproducible (the next rollouts
   * wait for it). Its failures and defects end the run as defects. Abort through `signal` to stop after it.
   */
  readonly betweenUpdates?: ((row: UpdateRow) => Effect.Effect<void>) | undefined
  /** Stop at the next batch boundary (`stopReason: "aborted"`). */
  readonly signal?: AbortSignal | undefined
  /**
   * A per-action prior ({@link GroupRollout.ActionPrior}), asked at every step of every rollout (training and
   * evaluation): its logit bias `b` (aligned with the step's admissible actions) makes the policy act with
   * `π(a|s) ∝ exp(x_a + b_a)` and is stored with the step's encoding, so the update's log-probabilities, PPO/GiGPO
   * ratios, entropies and KL terms are those of the same biased distribution (the ratio of a step is exactly 1 at the
   * first minibatch); gradients reach only the network's scores `x`. A bad bias fails the run with
   * `InvalidOptionError` (option `"actionBias"`). Absent or all 0: the run without it, bit for bit.
   */
  readonly actionPrior?: GroupRollout.ActionPrior | undefined
}

/** What {@link train} returns. */
export interface TrainResult {
  readonly policy: DrrnPolicy.Drrn
  readonly globalStep: number
  readonly updates: number
  readonly wallSeconds: number
  readonly evaluations: ReadonlyArray<EvaluationRow>
  /** The final evaluation. */
  readonly final: EvaluationRow
  readonly failures: number
  readonly stopReason: "budget" | "aborted"
}

/**
 * Every trajectory of a batch failed (an env that throws on every reset, say).
 * @category errors
 */
export class RolloutFailedError extends Schema.TaggedError<RolloutFailedError>()("RolloutFailedError", {
  failures: Schema.Number,
  firstError: Schema.String
}) {
  override get message() {
    return `All ${this.failures} trajectories of a batch failed; first error: ${this.firstError}`
  }
}

/**
 * Validate options: `algo` a registered `Advantages` estimator other than `"gae"` (the DRRN policy has no critic),
 * positive integer sizes (`groupSize`, `tasksPerBatch`, `epochs`, `minibatches`, `totalEnvSteps`, `maxSteps`,
 * `evalEpisodes`), a positive finite learning rate, non-negative finite coefficients, γ in [0, 1], `klEstimator`
 * k1/k3, `normalize` std/none, a non-negative safe-integer seed. Fails with `InvalidOptionError` naming the first
 * offending option and its value. (A group of one trajectory is allowed; its group-relative advantage is 0.)
 */
export const validate = (o: Options): Effect.Effect<Options, InvalidOptionError> =>
  Effect.suspend(() => {
    const bad = (option: string, value: unknown, reason: string) => Effect.fail(new InvalidOptionError({ option, value, reason }))
    if (!Advantages.names().includes(o.algo)) return bad("algo", o.algo, `must be one of ${Advantages.names().join(", ")}`)
    if (o.algo === "gae") return bad("algo", o.algo, "GAE needs a critic; the DRRN policy is critic-free (use gigpo, grpo, dr-grpo, rloo or reinforce++)")
    for (const key of ["groupSize", "tasksPerBatch", "epochs", "minibatches", "totalEnvSteps", "maxSteps", "evalEpisodes"] as const) {
      if (!Number.isInteger(o[key]) || o[key] < 1) return bad(key, o[key], "must be a positive integer")
    }
    if (!Number.isInteger(o.evalEvery) || o.evalEvery < 0) return bad("evalEvery", o.evalEvery, "must be a non-negative integer")
    if (!(o.learningRate > 0 && Number.isFinite(o.learningRate))) return bad("learningRate", o.learningRate, "must be a positive finite number")
    for (const key of ["clip", "klCoef", "entCoef", "maxGradNorm", "invalidActionPenalty"] as const) {
      if (!(o[key] >= 0 && Number.isFinite(o[key]))) return bad(key, o[key], "must be a non-negative finite number")
    }
    if (!(o.gamma >= 0 && o.gamma <= 1)) return bad("gamma", o.gamma, "must be in [0, 1]")
    if (!Number.isFinite(o.omega)) return bad("omega", o.omega, "must be finite")
    if (o.targetKl !== undefined && !(o.targetKl > 0 && Number.isFinite(o.targetKl))) return bad("targetKl", o.targetKl, "must be a positive finite number when set")
    if (o.klEstimator !== "k1" && o.klEstimator !== "k3") return bad("klEstimator", o.klEstimator, "must be k1 or k3")
    if (o.normalize !== "std" && o.normalize !== "none") return bad("normalize", o.normalize, "must be std or none")
    if (!Number.isSafeInteger(o.seed) || o.seed < 0) return bad("seed", o.seed, "must be a non-negative safe integer")
    if (o.zeroAdvantageGroups !== "keep" && o.zeroAdvantageGroups !== "skip" && o.zeroAdvantageGroups !== "resample") {
      return bad("zeroAdvantageGroups", o.zeroAdvantageGroups, "must be keep, skip or resample")
    }
    if (!Number.isInteger(o.maxResamples) || o.maxResamples < 0) return bad("maxResamples", o.maxResamples, "must be a non-negative integer")
    if (o.epo !== undefined) {
      const invalid = Epo.invalidOption({ ...Epo.defaults, ...o.epo })
      if (invalid !== undefined) return bad(`epo.${invalid[0]}`, invalid[1], invalid[2])
    }
    if (typeof o.entropyBalancedClip !== "boolean") return bad("entropyBalancedClip", o.entropyBalancedClip, "must be a boolean")
    if (!(o.prm.learningRate > 0 && Number.isFinite(o.prm.learningRate))) return bad("prm.learningRate", o.prm.learningRate, "must be a positive finite number")
    if (!Number.isSafeInteger(o.prm.steps) || o.prm.steps < 1) return bad("prm.steps", o.prm.steps, "must be a positive integer")
    if (typeof o.annealLr !== "boolean") return bad("annealLr", o.annealLr, "must be a boolean")
    if (o.taskSampler !== undefined && o.tasks?.train !== undefined) {
      return bad("taskSampler", o.taskSampler.name, "give either taskSampler or tasks.train, not both")
    }
    return Effect.succeed(o)
  })

// ---------------------------------------------------------------------------------------------------------------
// The policy as a rollout policy
// ---------------------------------------------------------------------------------------------------------------

/** A {@link DrrnPolicy} as a {@link GroupRollout.TextPolicy}. */
export const drrnTextPolicy = (p: DrrnPolicy.Drrn): GroupRollout.TextPolicy<DrrnPolicy.Encoded> => ({
  encode: (input) => DrrnPolicy.encode(p, input),
  act: (enc, input, rng, greedy) => {
    const d = DrrnPolicy.sample(p, enc, rng, greedy)
    return { action: input.admissible[d.index]!, index: d.index, logProb: d.logProb, entropy: d.entropy }
  }
})

// ---------------------------------------------------------------------------------------------------------------
// The loss and its gradient
// ---------------------------------------------------------------------------------------------------------------

/** One training sample: an encoded decision, the taken action, its old log π, its advantage (and log π_ref). */
export interface Sample {
  readonly encoded: DrrnPolicy.Encoded
  readonly action: number
  readonly oldLogProb: number
  readonly advantage: number
  refLogProb: number
  /** EPO: the historical average entropy of this step's turn (undefined: no smoothing for it). */
  readonly entropyAverage?: number | undefined
  /** AEPO: the step's rollout entropy was above the batch's mean (entropy-balanced clipping applies). */
  readonly highEntropy?: boolean | undefined
}

/** The minibatch loss and its parts. */
export interface LossParts {
  readonly loss: number
  readonly policyLoss: number
  readonly kl: number
  readonly entropy: number
  readonly approxKl: number
  readonly clipFraction: number
  /** EPO's smoothing penalty (already weighted), averaged over the minibatch. */
  readonly entropyPenalty: number
}

/**
 * Loss of the samples `indices[start … start+size)` and its gradient (written to `grad`, zeroed first; not clipped).
 * What {@link train} runs per minibatch; exported for the finite-difference test.
 * @internal
 */
export const lossAndGradient = (
  policy: DrrnPolicy.Drrn,
  o: Pick<Options, "clip" | "klCoef" | "klEstimator" | "entCoef"> & { readonly entropyBalancedClip?: boolean | undefined },
  samples: ReadonlyArray<Sample>,
  indices: ArrayLike<number>,
  start: number,
  size: number,
  grad: Float64Array,
  dLogits: Float64Array,
  epo?: Pick<Epo.Options, "coef" | "low" | "high"> | undefined
): LossParts => {
  grad.fill(0)
  const c = o.clip
  let pgLoss = 0
  let klSum = 0
  let entropy = 0
  let approxKl = 0
  let clipped = 0
  let smoothing = 0
  for (let b = 0; b < size; b++) {
    const smp = samples[indices[start + b]!]!
    const k = smp.encoded.actions.length
    if (dLogits.length < k) throw new RangeError(`lossAndGradient: dLogits holds ${dLogits.length} < ${k} actions`)
    const h = DrrnPolicy.forward(policy, smp.encoded)
    const probs = DrrnPolicy.probsOf(policy)
    const logp = DrrnPolicy.logProbAt(policy, k, smp.action)
    const logRatio = logp - smp.oldLogProb
    const ratio = Math.exp(logRatio)
    approxKl += ratio - 1 - logRatio
    if (Math.abs(ratio - 1) > c) clipped++
    const adv = smp.advantage
    const pg1 = -adv * ratio
    const pg2 = -adv * Math.min(Math.max(ratio, 1 - c), 1 + c)
    pgLoss += Math.max(pg1, pg2)
    let dLogp = o.entropyBalancedClip === true ? Aepo.balancedClipSlope(adv, ratio, c, smp.highEntropy === true) : pg1 >= pg2 ? -adv * ratio : 0
    if (o.klCoef > 0) {
      const x = smp.refLogProb - logp // log(π_ref/π)
      if (o.klEstimator === "k1") {
        klSum += -x
        dLogp += o.klCoef
      } else {
        const r = Math.exp(x)
        klSum += r - 1 - x
        dLogp += o.klCoef * (1 - r)
      }
    }
    entropy += h
    // EPO: d(loss)/dH = −entCoef + the smoothing penalty's slope
    let dH = -o.entCoef
    if (epo !== undefined && smp.entropyAverage !== undefined) {
      const pen = Epo.penalty(h, smp.entropyAverage, epo)
      smoothing += pen.value
      dH += pen.slope
    }
    for (let a = 0; a < k; a++) {
      const p = probs[a]!
      const logP = p > 0 ? Math.log(p) : 0
      const dLogProb = (a === smp.action ? 1 : 0) - p
      const dEntropy = -p * (logP + h)
      dLogits[a] = (dLogp * dLogProb + dH * dEntropy) / size
    }
    DrrnPolicy.backward(policy, smp.encoded, dLogits, grad, true)
  }
  DrrnPolicy.flushActionGradient(policy, grad)
  pgLoss /= size
  klSum /= size
  entropy /= size
  smoothing /= size
  const loss = pgLoss + o.klCoef * klSum - o.entCoef * entropy + smoothing
  if (!Number.isFinite(loss)) throw new NonFiniteValueError({ where: "MultiTurnTrainer.loss", value: loss })
  return { loss, policyLoss: pgLoss, kl: klSum, entropy, approxKl: approxKl / size, clipFraction: clipped / size, entropyPenalty: smoothing }
}

// ---------------------------------------------------------------------------------------------------------------
// Evaluation
// ---------------------------------------------------------------------------------------------------------------

/**
 * Success rate, mean return and mean length of `episodes` episodes of `taskAt(k)` (k = 0 … episodes−1), one per
 * task, with `policy` (sampled or greedy). Env failures count as unsuccessful episodes.
 */
export const evaluate = <E>(
  envs: ReadonlyArray<GroupRollout.TextEnv>,
  policy: GroupRollout.TextPolicy<E>,
  taskAt: (k: number) => GroupRollout.Task,
  episodes: number,
  rng: Rng,
  options: Partial<GroupRollout.Options> = {}
): { successRate: number; episodeReturn: number; episodeLength: number } => {
  let successes = 0
  let ret = 0
  let len = 0
  for (let k = 0; k < episodes; k++) {
    const g = GroupRollout.collectGroup([envs[k % envs.length]!], policy, taskAt(k), rng, { ...options, groupSize: 1 })
    const tr = g.trajectories[0]
    if (tr === undefined) continue
    if (tr.success) successes++
    ret += tr.return
    len += tr.length
  }
  return { successRate: successes / episodes, episodeReturn: ret / episodes, episodeLength: len / episodes }
}

// ---------------------------------------------------------------------------------------------------------------
// The training loop
// ---------------------------------------------------------------------------------------------------------------

/** Options merged over {@link defaults}. */
export type TrainOptions = Partial<Options>

type TrainError =
  | InvalidOptionError
  | NonFiniteValueError
  | Advantages.AdvantageInputError
  | Advantages.UnknownEstimatorError
  | RolloutFailedError
  | Igpo.GoalLogProbUnavailableError

const rethrowTyped = (e: unknown): Effect.Effect<never, TrainError> =>
  e instanceof InvalidOptionError || e instanceof NonFiniteValueError || e instanceof Advantages.AdvantageInputError ||
    e instanceof Advantages.UnknownEstimatorError || e instanceof RolloutFailedError || e instanceof Igpo.GoalLogProbUnavailableError
    ? Effect.fail(e)
    : Effect.die(e)

const TASK_SEED_RANGE = 2 ** 31 - 1

/**
 * Check what a per-step hook returned for group `gi` against the step counts `lengths[i]`: as many trajectories,
 * as many steps each, finite values; else `AdvantageInputError` (estimator = the hook's name) naming where.
 */
const checkedSteps = (
  hookName: "stepAdvantages" | "stepRewards",
  what: string,
  out: ReadonlyArray<ArrayLike<number>>,
  lengths: ReadonlyArray<number>,
  gi: number
): Array<Float64Array> => {
  const bad = (reason: "lengthMismatch" | "nonFinite", detail: string, extra: { trajectory?: number; step?: number; value?: unknown } = {}) =>
    new Advantages.AdvantageInputError({ reason, estimator: hookName, group: gi, detail, ...extra })
  if (out.length !== lengths.length) throw bad("lengthMismatch", `returned ${out.length} trajectories for ${lengths.length}`, { value: out.length })
  return out.map((row, i) => {
    if (row.length !== lengths[i]) throw bad("lengthMismatch", `returned ${row.length} steps for ${lengths[i]}`, { trajectory: i, value: row.length })
    const a = Float64Array.from(row)
    for (let t = 0; t < a.length; t++) if (!Number.isFinite(a[t]!)) throw bad("nonFinite", `a non-finite ${what}`, { trajectory: i, step: t, value: a[t] })
    return a
  })
}

/** Apply the `stepAdvantages` hook to one group, checking what it returns. */
const replaceAdvantages = (
  hook: NonNullable<Hooks["stepAdvantages"]>,
  group: GroupRollout.GroupResult<unknown>,
  estimated: ReadonlyArray<Float64Array>,
  gi: number
): ReadonlyArray<Float64Array> => {
  const out = hook(group, estimated)
  return out === undefined ? estimated : checkedSteps("stepAdvantages", "advantage", out, estimated.map((a) => a.length), gi)
}

/**
 * The per-step rewards the estimator sees for one group: the env's, or what the `stepRewards` hook returns (checked).
 */
const groupRewards = (
  hook: Hooks["stepRewards"],
  group: GroupRollout.GroupResult<unknown>,
  gi: number
): ReadonlyArray<ArrayLike<number>> => {
  const out = hook?.(group, gi)
  if (out === undefined) return group.trajectories.map((tr) => tr.steps.map((s) => s.reward))
  return checkedSteps("stepRewards", "step reward", out, group.trajectories.map((tr) => tr.steps.length), gi)
}

/**
 * Train a DRRN policy on text environments with group rollouts and the `algo` advantage estimator until
 * `totalEnvSteps` or an abort; evaluates every `evalEvery` updates and at the end.
 */
export const train = (
  envs: ReadonlyArray<GroupRollout.TextEnv>,
  options: TrainOptions = {},
  hooks: Hooks = {}
): Effect.Effect<TrainResult, TrainError> =>
  Effect.gen(function* () {
    const o = yield* validate({ ...defaults, ...options, prm: { ...defaults.prm, ...options.prm } })
    if (envs.length === 0) return yield* new InvalidOptionError({ option: "envs", value: 0, reason: "need at least one environment" })
    // per-step signals the estimator needs: entropies and log-ratios the DRRN policy gives; not the goal's probability
    const signals = StepSignals.needsOf(o.algo)
    if (signals.includes("goalLogProbs")) {
      return yield* new Igpo.GoalLogProbUnavailableError({ estimator: o.algo, policy: "DRRN" })
    }
    const epo = o.epo === undefined ? undefined : { ...Epo.defaults, ...o.epo }
    const entropyHistory = Epo.makeHistory()
    const started = performance.now()
    const wall = () => (performance.now() - started) / 1000
    const root = Rng.make(o.seed)
    const [initRng, taskRng, actRng, shuffleRng] = root.spawn(4) as [Rng, Rng, Rng, Rng]
    const evalSeed = o.seed
    const policy = DrrnPolicy.make({ ...o.policy, rng: initRng })
    {
      const impl = { actionMemo: true, ...o.implementation }
      yield* Effect.try({
        try: () => DrrnPolicy.setImplementation(policy, impl),
        catch: (e) => new InvalidOptionError({ option: "implementation", value: impl, reason: e instanceof Error ? e.message : String(e) })
      })
    }
    // the frozen initial policy: the KL penalty's reference
    const ref = o.klCoef > 0 ? DrrnPolicy.clone(policy) : undefined
    if (ref !== undefined) DrrnPolicy.setImplementation(ref, DrrnPolicy.implementationOf(policy))
    // OPRL's implicit PRM (log-ratios): a second DRRN, initialised as the policy and trained between rounds by
    // trajectory-level DPO against the rollout policy π_θold (Dpo.trajectoryStep)
    const prm = signals.includes("logRatios") ? DrrnPolicy.clone(policy) : undefined
    if (prm !== undefined) DrrnPolicy.setImplementation(prm, DrrnPolicy.implementationOf(policy))
    const prmAdam = prm === undefined ? undefined : Adam.make(prm.params.length, { eps: 1e-8 })
    const prmGrad = prm === undefined ? undefined : new Float64Array(prm.params.length)
    const adam = Adam.make(policy.params.length, { eps: 1e-8 })
    const grad = new Float64Array(policy.params.length)
    let dLogits = new Float64Array(64)
    const rolloutPolicy = drrnTextPolicy(policy)
    const trainTask = o.tasks?.train ?? ((rng: Rng) => ({ seed: rng.integers(TASK_SEED_RANGE), options: { split: o.split } }))
    const evalTask = o.tasks?.eval ?? ((k: number) => ({ seed: o.evalSeedBase + k, options: { split: o.evalSplit } }))
    const rolloutOptions = {
      groupSize: o.groupSize,
      maxSteps: o.maxSteps,
      invalidActionPenalty: o.invalidActionPenalty,
      ...(hooks.actionPrior === undefined ? {} : { actionPrior: hooks.actionPrior })
    }
    const estimator = Advantages.get(o.algo)
    const advOptions: Advantages.Options = { ...Advantages.defaults, gamma: o.gamma, omega: o.omega, normalize: o.normalize }
    const evaluations: Array<EvaluationRow> = []
    let globalStep = 0
    let updates = 0
    let failures = 0
    let stopReason: TrainResult["stopReason"] = "budget"

    const runEvaluation = () => {
      // a fresh generator per evaluation: every evaluation of a run samples the same way
      const r = evaluate(envs, rolloutPolicy, evalTask, o.evalEpisodes, Rng.make([evalSeed, 0x5eed]), { ...rolloutOptions, greedy: o.evalGreedy })
      const row: EvaluationRow = { kind: "evaluation", globalStep, wallSeconds: wall(), ...r, split: o.evalSplit }
      evaluations.push(row)
      hooks.onEvaluation?.(row)
    }

    const iteration = (): UpdateRow => {
      const learningRate = o.annealLr ? o.learningRate * Math.max(0, 1 - globalStep / o.totalEnvSteps) : o.learningRate
      // 1. group rollouts
      /** `count` new groups: from the task sampler (told their outcomes) or the task generator. */
      const rollGroups = (count: number): Array<GroupRollout.GroupResult<DrrnPolicy.Encoded>> => {
        if (o.taskSampler === undefined) {
          const tasks = Array.from({ length: count }, () => trainTask(taskRng))
          return GroupRollout.collect(envs, rolloutPolicy, tasks, actRng, { ...rolloutOptions, policyVersion: updates })
        }
        const sampler = o.taskSampler
        const draws = sampler.next(count, taskRng, updates)
        const maxSteps = sampler.maxSteps(updates) ?? o.maxSteps
        const rolled = draws.map((d) =>
          GroupRollout.collectGroup(envs, rolloutPolicy, d.task, actRng, {
            ...rolloutOptions,
            maxSteps,
            groupSize: d.groupSize ?? o.groupSize,
            policyVersion: updates
          })
        )
        sampler.observe(
          draws.flatMap((draw, k) => rolled[k]!.trajectories.length === 0 ? [] : [{ draw, successes: rolled[k]!.trajectories.map((tr) => tr.success) }]),
          updates
        )
        return rolled
      }
      let groups = rollGroups(o.tasksPerBatch)
      // Every group rolled out counts toward the budget and the episode rows, including those VSPO handling drops.
      const collected = [...groups]
      const uniform = (g: GroupRollout.GroupResult<DrrnPolicy.Encoded>) =>
        g.trajectories.length > 1 && g.trajectories.every((tr) => tr.return === g.trajectories[0]!.return)
      const uniformGroups = groups.filter(uniform).length
      let resampledGroups = 0
      if (o.zeroAdvantageGroups === "resample") {
        let budget = o.maxResamples
        for (let i = 0; i < groups.length && budget > 0; i++) {
          while (uniform(groups[i]!) && budget > 0) {
            const [fresh] = rollGroups(1)
            collected.push(fresh!)
            groups[i] = fresh!
            budget--
            resampledGroups++
          }
        }
      } else if (o.zeroAdvantageGroups === "skip") {
        const informative = groups.filter((g) => !uniform(g))
        // keep one group when every group is uniform, so the update still has a batch (its advantages are 0)
        groups = informative.length > 0 ? informative : groups.slice(0, 1)
      }
      let batchFailures = 0
      let successes = 0
      let returns = 0
      let episodes = 0
      let firstError: unknown
      for (const g of collected) {
        batchFailures += g.failures.length
        if (firstError === undefined && g.failures.length > 0) firstError = g.failures[0]!.error
        for (const tr of g.trajectories) {
          globalStep += tr.length
          episodes++
          if (tr.success) successes++
          returns += tr.return
          hooks.onEpisode?.({ kind: "episode", globalStep, episodeReturn: tr.return, episodeLength: tr.length, wallSeconds: wall(), success: tr.success })
        }
      }
      failures += batchFailures
      if (episodes === 0) throw new RolloutFailedError({ failures: batchFailures, firstError: String(firstError) })
      // 2. advantages
      const kept = groups.filter((g) => g.trajectories.length > 0)
      // the logit-gradient scratch fits every step of the batch (the PRM's and the policy's updates)
      let maxActions = 0
      for (const g of kept) for (const tr of g.trajectories) for (const s of tr.steps) maxActions = Math.max(maxActions, s.encoded.actions.length)
      if (maxActions > dLogits.length) dLogits = new Float64Array(2 * maxActions)
      let prmReport: Dpo.TrajectoryStepReport | undefined
      if (prm !== undefined) {
        const groups = kept.map((g) => ({
          trajectories: g.trajectories.map((tr) => tr.steps.map((s) => ({ encoded: s.encoded, action: s.actionIndex, refLogProb: s.logProb }))),
          returns: g.trajectories.map((tr) => tr.return)
        }))
        for (let k = 0; k < o.prm.steps; k++) {
          const r = Dpo.trajectoryStep(prm, prmAdam!, groups, { beta: Oprl.defaultBeta, learningRate: o.prm.learningRate, maxGradNorm: o.maxGradNorm }, prmGrad!, dLogits)
          prmReport ??= r
          if (r.pairs === 0) break
        }
      }
      /** OPRL's implicit step reward's log-ratio: log π_φ(a|s) of the PRM − log π_θold(a|s) of the rollout. */
      const prmLogRatioOf = (s: GroupRollout.TextStep<DrrnPolicy.Encoded>): number => {
        if (s.actionIndex < 0) return 0 // not in the admissible list: no log π_φ, log-ratio 0
        DrrnPolicy.forward(prm!, s.encoded)
        return DrrnPolicy.logProbAt(prm!, s.encoded.actions.length, s.actionIndex) - s.logProb
      }
      const estimated = estimator(
        kept.map((g, gi) => {
          const rewards = groupRewards(hooks.stepRewards, g, gi)
          return g.trajectories.map((tr, i) => ({
            rewards: rewards[i]!,
            stateKeys: tr.steps.map((s) => s.stateKey),
            ...(signals.includes("entropies") ? { entropies: tr.steps.map((s) => s.entropy ?? 0) } : {}),
            ...(signals.includes("logRatios") ? { logRatios: tr.steps.map(prmLogRatioOf) } : {})
          }))
        }),
        advOptions
      )
      const adv = hooks.stepAdvantages === undefined ? estimated : estimated.map((a, gi) => replaceAdvantages(hooks.stepAdvantages!, kept[gi]!, a, gi))
      let anchorGroups = 0
      let sharedGroups = 0
      for (const g of kept) {
        const counts = new Map<string, number>()
        for (const tr of g.trajectories) for (const st of tr.steps) counts.set(st.stateKey, (counts.get(st.stateKey) ?? 0) + 1)
        anchorGroups += counts.size
        for (const c of counts.values()) if (c > 1) sharedGroups++
      }
      // AEPO's high-entropy steps: rollout entropy above the batch's mean
      let meanEntropy = 0
      let entropySteps = 0
      if (o.entropyBalancedClip) {
        for (const g of kept) {
          for (const tr of g.trajectories) {
            for (const s of tr.steps) {
              if (s.entropy === undefined) continue
              meanEntropy += s.entropy
              entropySteps++
            }
          }
        }
        meanEntropy = entropySteps === 0 ? 0 : meanEntropy / entropySteps
      }
      const samples: Array<Sample> = []
      for (let gi = 0; gi < kept.length; gi++) {
        const trs = kept[gi]!.trajectories
        for (let i = 0; i < trs.length; i++) {
          const steps = trs[i]!.steps
          const a = adv[gi]![i]!
          for (let t = 0; t < steps.length; t++) {
            const s = steps[t]!
            if (s.actionIndex < 0) continue // not in the admissible list: no log π under this policy
            const average = epo === undefined ? undefined : Epo.average(entropyHistory, t)
            samples.push({
              encoded: s.encoded,
              action: s.actionIndex,
              oldLogProb: s.logProb,
              advantage: a[t]!,
              refLogProb: 0,
              ...(average === undefined ? {} : { entropyAverage: average }),
              ...(o.entropyBalancedClip && s.entropy !== undefined && s.entropy > meanEntropy ? { highEntropy: true } : {})
            })
          }
        }
      }
      const epoNow = epo === undefined ? undefined : { ...epo, coef: epo.coef * Epo.weight(updates, epo.horizon) }
      if (ref !== undefined && o.klCoef > 0) {
        for (const smp of samples) {
          DrrnPolicy.forward(ref, smp.encoded)
          smp.refLogProb = DrrnPolicy.logProbAt(ref, smp.encoded.actions.length, smp.action)
        }
      }
      // 3. epochs of clipped-surrogate minibatch updates
      const n = samples.length
      const inds = Int32Array.from({ length: n }, (_, k) => k)
      const mbSize = Math.max(1, Math.ceil(n / o.minibatches))
      let last: LossParts | undefined
      let clipSum = 0
      let clipCount = 0
      const klStop = o.targetKl === undefined ? Infinity : 1.5 * o.targetKl
      epochs: for (let epoch = 0; epoch < o.epochs; epoch++) {
        shuffleRng.shuffle(inds)
        for (let start = 0; start < n; start += mbSize) {
          const size = Math.min(mbSize, n - start)
          const parts = lossAndGradient(policy, o, samples, inds, start, size, grad, dLogits, epoNow)
          last = parts // the row reports the last minibatch measured (the stopping one, when targetKl stops the update)
          if (parts.approxKl > klStop) break epochs // SB3: `if approx_kl > 1.5 * target_kl: continue_training = False; break`
          const norm = Adam.clipGradNorm(grad, o.maxGradNorm)
          if (!Number.isFinite(norm)) throw new NonFiniteValueError({ where: "MultiTurnTrainer.gradNorm", value: norm })
          Adam.step(adam, policy.params, grad, learningRate)
          DrrnPolicy.paramsChanged(policy)
          clipSum += parts.clipFraction
          clipCount++
        }
      }
      // EPO's history: this batch's mean entropy per turn, for the next updates' bands
      if (epo !== undefined) Epo.observe(entropyHistory, kept.flatMap((g) => g.trajectories.map((tr) => tr.steps.map((s) => s.entropy ?? 0))))
      updates++
      return {
        kind: "update",
        globalStep,
        wallSeconds: wall(),
        policyLoss: last?.policyLoss ?? 0,
        entropy: last?.entropy ?? 0,
        approxKl: last?.approxKl ?? 0,
        clipFraction: clipCount === 0 ? 0 : clipSum / clipCount,
        learningRate,
        successRate: successes / episodes,
        episodeReturn: returns / episodes,
        failures: batchFailures,
        anchorGroupShare: anchorGroups === 0 ? 0 : sharedGroups / anchorGroups,
        uniformGroups,
        resampledGroups,
        optimizerSteps: clipCount,
        entropyPenalty: last?.entropyPenalty ?? 0,
        ...(o.taskSampler === undefined ? {} : { sampler: o.taskSampler.stats() }),
        ...(prmReport === undefined || prmReport.pairs === 0 ? {} : { prm: prmReport })
      }
    }

    while (globalStep < o.totalEnvSteps) {
      const row = yield* Effect.try({ try: iteration, catch: (e) => e }).pipe(Effect.catch(rethrowTyped))
      hooks.onUpdate?.(row, policy)
      if (o.evalEvery > 0 && updates % o.evalEvery === 0 && globalStep < o.totalEnvSteps) {
        yield* Effect.try({ try: runEvaluation, catch: (e) => e }).pipe(Effect.catch(rethrowTyped))
      }
      if (hooks.betweenUpdates !== undefined) yield* hooks.betweenUpdates(row)
      yield* Effect.yieldNow
      if (hooks.signal?.aborted === true) {
        stopReason = "aborted"
        break
      }
    }
    yield* Effect.try({ try: runEvaluation, catch: (e) => e }).pipe(Effect.catch(rethrowTyped))
    // the caller may write the returned policy's parameters: no memo of activations outlives the run
    DrrnPolicy.setImplementation(policy, { actionMemo: false })
    return {
      policy,
      globalStep,
      updates,
      wallSeconds: wall(),
      evaluations,
      final: evaluations[evaluations.length - 1]!,
      failures,
      stopReason
    }
  })

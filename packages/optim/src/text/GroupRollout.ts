/**
 * Group rollouts for multi-turn agent RL: for each task, N trajectories from the identical initial state (a GRPO /
 * GiGPO group), with per-step text, action, reward, log-probability, state key and admissible actions.
 *
 * **Details**
 * - A task is `{ seed, options }`: every trajectory of the group starts with `env.reset({ seed, options })`, which
 *   the `TextEnv` contract makes an identical initial state. The N trajectories are collected one after another
 *   over the given env instances (trajectory j on `envs[j % envs.length]`, a plain loop).
 * - Failures: an env that throws (on reset or step) loses only that trajectory; it is recorded in
 *   `GroupResult.failures` (trajectory index, step, error) and the others are kept.
 * - Invalid actions (verl-agent's `invalid_action_penalty_coef`, 0.1 in its ALFWorld/Sokoban scripts): a policy
 *   that picks from the admissible list never acts invalidly; a policy that emits free text (an LLM) may. Such a step
 *   is recorded with `invalid: true` and its reward lowered by `invalidActionPenalty` unless the env already
 *   penalized it itself (`info.invalidAction === true`, the `"penalize"` policy of `TextEnv`). An env with the
 *   `"error"` policy throws, which ends that trajectory as a failure.
 * - `maxSteps` (default 50, verl-agent's ALFWorld `max_steps`) truncates an episode the env has not ended.
 * - Success is `info.success` (or `info.won`) of the last step when the env reports it, else `terminated` with a
 *   positive return.
 *
 * @since 0.1.0
 */
import { InvalidOptionError, type Rng, type Trajectory } from "@autodidact/core"
import type { Env, TextEnv as TextEnvContract } from "@autodidact/envs"

/**
 * What a rollout needs of a text environment: the part of `@autodidact/envs`' `TextEnv` contract it calls,
 * `task`, `spec`, `reset`, `step`, `admissibleActions` and `stateKey` (a `Pick` of that one contract, not a second
 * declaration: every `TextEnv` is one, and so is a light test double or a wrapper that has only these members).
 * @category models
 */
export type TextEnv = Pick<TextEnvContract.TextEnv, "task" | "spec" | "reset" | "step" | "admissibleActions" | "stateKey">

/** A task: the reset arguments shared by every trajectory of its group. */
export interface Task {
  readonly seed: number
  readonly options?: { readonly [key: string]: unknown } | undefined
}

/** What a policy sees at a step. */
export interface PolicyInput {
  readonly task: string
  readonly observation: string
  readonly admissible: ReadonlyArray<string>
  /** The episode so far, oldest first: each earlier step's observation and the action taken on it. */
  readonly history?: ReadonlyArray<{ readonly observation: string; readonly action: string }> | undefined
  /**
   * A per-action prior in logit units, aligned with `admissible` (`actionBias[i]` belongs to `admissible[i]`): a
   * policy that honours it (the DRRN policy) acts with `π(a|s) ∝ exp(x_a + b_a)`, `x_a` its own score. It is part of
   * the policy's distribution, not of its parameters: the DRRN policy stores it with the step's encoding, so the
   * trainer's recomputed log-probabilities, ratios and entropies include it, and no gradient reaches it. Absent (or
   * all 0): the policy's own distribution, bit for bit. Checked by {@link checkActionBias}.
   */
  readonly actionBias?: ReadonlyArray<number> | undefined
}

/**
 * Check a per-action prior against its admissible list: as many entries, all finite. Returns it as a
 * `Float64Array` (a copy), or `undefined` when `bias` is undefined. Throws `InvalidOptionError` (option
 * `"actionBias"`) naming the length mismatch or the first non-finite value and its index.
 */
export const checkActionBias = (admissible: ReadonlyArray<string>, bias: ReadonlyArray<number> | undefined): Float64Array | undefined => {
  if (bias === undefined) return undefined
  if (bias.length !== admissible.length) {
    throw new InvalidOptionError({ option: "actionBias", value: bias.length, reason: `has ${bias.length} entries for ${admissible.length} admissible actions` })
  }
  const out = new Float64Array(bias.length)
  for (let i = 0; i < bias.length; i++) {
    const b = bias[i]!
    if (typeof b !== "number" || !Number.isFinite(b)) {
      throw new InvalidOptionError({ option: "actionBias", value: b, reason: `entry ${i} (for "${admissible[i]}") must be a finite number` })
    }
    out[i] = b
  }
  return out
}

/**
 * A per-action prior for a step: given what the policy is about to see, the logit bias of each admissible action
 * (aligned with `input.admissible`), or `undefined` for none. E.g. an app's retrieved exemplar plan (ExpeL /
 * Synapse-style exemplar reuse) raising the commands the plan takes next.
 */
export type ActionPrior = (input: PolicyInput) => ReadonlyArray<number> | undefined

/** A policy's decision: the action text, its index in the admissible list (−1 if not in it) and log π. */
export interface Decision {
  readonly action: string
  readonly index: number
  readonly logProb: number
  /** Entropy of the policy's distribution at this step (nats), when the policy exposes it (the DRRN policy does). */
  readonly entropy?: number | undefined
}

/**
 * A text policy: `encode` featurizes a step once (the result is stored and reused by the optimizer), `act` decides.
 * @category models
 */
export interface TextPolicy<E> {
  encode(input: PolicyInput): E
  act(encoded: E, input: PolicyInput, rng: Rng, greedy: boolean): Decision
}

/** One recorded step (a core `Step` plus the text-agent columns). */
export interface TextStep<E = unknown> extends Trajectory.Step {
  readonly observation: string
  readonly action: string
  readonly logProb: number
  /** The policy's entropy at this step (nats), when its decision reported one (AEPO, EPO read it). */
  readonly entropy?: number | undefined
  /** `env.stateKey()` before the action (the anchor state of GiGPO). */
  readonly stateKey: string
  readonly admissible: ReadonlyArray<string>
  /** Index of the action in `admissible`, −1 when not admissible. */
  readonly actionIndex: number
  readonly invalid: boolean
  /** The policy's encoding of this step. */
  readonly encoded: E
}

/** One trajectory of a group (a core `Trajectory` with text steps). */
export interface TextTrajectory<E = unknown> extends Trajectory.Trajectory {
  readonly task: string
  readonly seed: number
  readonly steps: ReadonlyArray<TextStep<E>>
  readonly success: boolean
}

/** A trajectory lost to an env error. */
export interface Failure {
  readonly trajectory: number
  /** Steps taken before the error (−1: the reset failed). */
  readonly step: number
  readonly error: unknown
}

/** The N trajectories of one task. */
export interface GroupResult<E = unknown> {
  readonly task: Task
  readonly trajectories: ReadonlyArray<TextTrajectory<E>>
  readonly failures: ReadonlyArray<Failure>
}

/** Rollout options. */
export interface Options {
  /** Trajectories per task. Default 8. */
  readonly groupSize: number
  /** Step limit per episode. Default 50. */
  readonly maxSteps: number
  /** Reward subtracted for an inadmissible action the env did not penalize itself. Default 0.1. */
  readonly invalidActionPenalty: number
  /** Take the most probable action instead of sampling. Default false. */
  readonly greedy: boolean
  /** `envId` written in the records. Default the env's spec id or "text". */
  readonly envId?: string | undefined
  /** Policy version written in the records. */
  readonly policyVersion?: number | undefined
  /**
   * A per-action prior ({@link ActionPrior}) asked at every step; its bias becomes the step input's `actionBias`
   * (checked: a bad one fails the rollout with `InvalidOptionError`, not as an env failure).
   */
  readonly actionPrior?: ActionPrior | undefined
}

/** Defaults: groups of 8, 50 steps, penalty 0.1, sampling. */
export const defaults: Options = { groupSize: 8, maxSteps: 50, invalidActionPenalty: 0.1, greedy: false }

/**
 * Whether a finished text episode succeeded: the env's `info.success` (or `info.won`) when it reports one, else
 * terminated with a positive return. The one rule every text rollout (GiGPO/GRPO here, LLM rollouts in
 * `@autodidact/llm`) writes into `Trajectory.success`.
 */
export const successOf = (info: Trajectory.Info, terminated: boolean, ret: number): boolean => {
  if (typeof info["success"] === "boolean") return info["success"]
  if (typeof info["won"] === "boolean") return info["won"]
  return terminated && ret > 0
}

/** Index of a decision's action in `admissible` (its own index when it points at the same text), −1 when not in it. */
export const admissibleIndex = (admissible: ReadonlyArray<string>, d: { readonly index: number; readonly action: string }): number =>
  d.index >= 0 && admissible[d.index] === d.action ? d.index : admissible.indexOf(d.action)

/**
 * The recorded step of one decision, shared by every text rollout: an inadmissible action (`actionIndex < 0`) loses
 * `invalidActionPenalty` unless the env penalized it itself (`info.invalidAction`), and the last step allowed by
 * `maxSteps` is marked truncated unless the episode terminated.
 */
export const recordStep = <E>(
  decision: {
    readonly observation: string
    readonly action: string
    readonly logProb: number
    readonly entropy?: number | undefined
    readonly stateKey: string
    readonly admissible: ReadonlyArray<string>
    readonly actionIndex: number
    readonly encoded: E
  },
  out: Env.StepResult<string>,
  t: number,
  options: { readonly maxSteps: number; readonly invalidActionPenalty: number }
): TextStep<E> => {
  const invalid = decision.actionIndex < 0
  const penalty = invalid && out.info["invalidAction"] !== true ? options.invalidActionPenalty : 0
  return {
    ...decision,
    reward: out.reward - penalty,
    terminated: out.terminated,
    truncated: out.truncated || (!out.terminated && t === options.maxSteps - 1),
    invalid,
    info: out.info
  }
}

/**
 * Roll out one episode of `task` on `env`: `env.reset({ seed, options })`, then up to `options.maxSteps` decisions of
 * `policy` (encoded once per step, sampled with `rng` or greedy), each recorded by {@link recordStep} (reward minus
 * the invalid-action penalty, truncation at the step limit). Returns the {@link TextTrajectory} (steps, return,
 * length, success by the module's rule). Throws what the env throws; `progress.step` says how far it got (−1: the
 * reset).
 */
export const episode = <E>(
  env: TextEnv,
  policy: TextPolicy<E>,
  task: Task,
  rng: Rng,
  options: Options,
  progress: { step: number } = { step: 0 }
): TextTrajectory<E> => {
  progress.step = -1
  let { observation } = env.reset({ seed: task.seed, options: task.options })
  progress.step = 0
  const taskText = env.task
  const steps: Array<TextStep<E>> = []
  let ret = 0
  let lastInfo: Trajectory.Info = {}
  let terminated = false
  for (let t = 0; t < options.maxSteps; t++) {
    const admissible = env.admissibleActions().slice()
    const stateKey = env.stateKey()
    const plain: PolicyInput = { task: taskText, observation, admissible, history: steps }
    const bias = options.actionPrior?.(plain)
    checkActionBias(admissible, bias)
    const input: PolicyInput = bias === undefined ? plain : { ...plain, actionBias: bias }
    const encoded = policy.encode(input)
    const d = policy.act(encoded, input, rng, options.greedy)
    const actionIndex = admissibleIndex(admissible, d)
    const out = env.step(d.action)
    const step = recordStep(
      { observation, action: d.action, logProb: d.logProb, ...(d.entropy === undefined ? {} : { entropy: d.entropy }), stateKey, admissible, actionIndex, encoded },
      out,
      t,
      options
    )
    steps.push(step)
    ret += step.reward
    progress.step = t + 1
    observation = out.observation
    lastInfo = out.info
    terminated = out.terminated
    if (out.terminated || out.truncated) break
  }
  return {
    envId: options.envId ?? env.spec?.id ?? "text",
    seed: task.seed,
    task: taskText,
    ...(options.policyVersion === undefined ? {} : { policyVersion: options.policyVersion }),
    steps,
    finalObservation: observation,
    return: ret,
    length: steps.length,
    success: successOf(lastInfo, terminated, ret)
  }
}

/**
 * Roll out `groupSize` (default 8) trajectories of `task` over `envs` (trajectory j on `envs[j % envs.length]`), all
 * from the identical initial state `reset({ seed, options })`: one GRPO / GiGPO group. Env errors are recorded as
 * failures (trajectory index, step, error); the other trajectories are kept. Throws `RangeError` when `envs` is
 * empty.
 * @see Feng et al., "Group-in-Group Policy Optimization for LLM Agent Training", arXiv:2505.10978 (Sec. 3)
 * @see Shao et al., "DeepSeekMath" (GRPO groups), arXiv:2402.03300
 */
export const collectGroup = <E>(
  envs: ReadonlyArray<TextEnv>,
  policy: TextPolicy<E>,
  task: Task,
  rng: Rng,
  options: Partial<Options> = {}
): GroupResult<E> => {
  const o: Options = { ...defaults, ...options }
  if (envs.length === 0) throw new RangeError("GroupRollout.collectGroup: no environments")
  const trajectories: Array<TextTrajectory<E>> = []
  const failures: Array<Failure> = []
  const progress = { step: 0 }
  for (let j = 0; j < o.groupSize; j++) {
    try {
      trajectories.push(episode(envs[j % envs.length]!, policy, task, rng, o, progress))
    } catch (error) {
      if (error instanceof InvalidOptionError && error.option === "actionBias") throw error // the caller's bug, not the env's
      failures.push({ trajectory: j, step: progress.step, error })
    }
  }
  return { task, trajectories, failures }
}

/**
 * {@link collectGroup} for each task, in order: `result[k]` holds the `groupSize` trajectories of `tasks[k]` from its
 * identical initial state (a GRPO / GiGPO group) and the failures. Throws `RangeError` when `envs` is empty.
 * @see Feng et al., "Group-in-Group Policy Optimization for LLM Agent Training", arXiv:2505.10978
 */
export const collect = <E>(
  envs: ReadonlyArray<TextEnv>,
  policy: TextPolicy<E>,
  tasks: ReadonlyArray<Task>,
  rng: Rng,
  options: Partial<Options> = {}
): Array<GroupResult<E>> => tasks.map((task) => collectGroup(envs, policy, task, rng, options))

/** A uniform random policy over the admissible actions (the baseline). */
export const randomPolicy: TextPolicy<null> = {
  encode: () => null,
  act: (_e, input, rng) => {
    const k = input.admissible.length
    const index = rng.integers(k)
    return { action: input.admissible[index]!, index, logProb: -Math.log(k) }
  }
}

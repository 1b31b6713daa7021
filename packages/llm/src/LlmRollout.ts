/**
 * Rollouts of an {@link LlmPolicy} on text environments: the asynchronous counterpart of {@link GroupRollout}
 * (whose trajectory, group and failure shapes and success rule it produces), with each step's model answer, token
 * usage and latency recorded, and an evaluation entry point for an env's tasks.
 *
 * **Details**
 * - A step's `encoded` column holds the policy's {@link LlmPolicy.StepRecord} (answer, thought, match, fallback,
 *   re-ask, calls, attempts, input/output tokens, latency in ms); `logProb` is 0 (a chat API does not return it).
 * - Invalid actions: a decision outside the admissible list (the `"invalid"` fallback) is stepped as is; the step
 *   gets `invalid: true` and `invalidActionPenalty` unless the env penalized it (`info.invalidAction`), as in
 *   {@link GroupRollout}.
 * - Failures are recorded, never thrown: an env that throws, or a model call that fails after its retries
 *   ({@link LlmPolicy.ModelCallError}), or an {@link LlmPolicy.UnknownActionError} under `fallback: "fail"`, loses
 *   that trajectory only; it lands in `failures` with the step reached, the error and the steps taken so far.
 * - Groups: trajectory j of a group runs on `envs[j % envs.length]`; with `concurrency` > 1 the environments run
 *   their trajectories in parallel (one at a time per env). Each trajectory draws from its own child of `rng`, so the
 *   result does not depend on the interleaving.
 * - Success: `info.success` or `info.won` of the last step, else `terminated` with a positive return (the rule of
 *   {@link GroupRollout}).
 *
 * @example
 * ```ts
 * import { LlmPolicy, LlmRollout } from "@autodidact/llm"
 * import { TextTasks } from "@autodidact/optim"
 * import { Effect } from "effect"
 * const setup = TextTasks.setupFor("TextHousehold-v0", { difficulty: "easy" })
 * const program = LlmRollout.evaluate([setup.makeEnv()], LlmPolicy.config(), Array.from({ length: 20 }, (_, k) => setup.evalTask(k)), {
 *   maxSteps: setup.maxSteps
 * }, { onEvaluation: (row) => console.log(row.successRate) })
 * // Effect.runPromise(program.pipe(Effect.provide(modelLayer)))
 * ```
 * @since 0.1.0
 */
import { InvalidOptionError, Rng, TextEpisode, type Trajectory } from "@autodidact/core"
import { Effect } from "effect"
import type { LanguageModel } from "effect/ai"
import { GroupRollout } from "@autodidact/optim"
import * as LlmPolicy from "./LlmPolicy.js"

/** A recorded LLM step. */
export type LlmStep = GroupRollout.TextStep<LlmPolicy.StepRecord>
/** A recorded LLM trajectory. */
export type LlmTrajectory = GroupRollout.TextTrajectory<LlmPolicy.StepRecord>

/** A lost trajectory, with the steps it took before the error. */
export interface LlmFailure extends GroupRollout.Failure {
  readonly steps: ReadonlyArray<LlmStep>
}

/** A group of LLM trajectories. */
export interface LlmGroup extends GroupRollout.GroupResult<LlmPolicy.StepRecord> {
  readonly failures: ReadonlyArray<LlmFailure>
}

/** Rollout options. */
export interface Options {
  /** Trajectories per task. Default 1. */
  readonly groupSize: number
  /** Step limit per episode. Default 50. */
  readonly maxSteps: number
  /** Reward subtracted for an inadmissible action the env did not penalize. Default 0.1. */
  readonly invalidActionPenalty: number
  /** Environments run in parallel. Default 1. */
  readonly concurrency: number
  /** Put the env's rules (the system turn of `toMessages`, when the env has it) in the prompt. Default true. */
  readonly envRules: boolean
  readonly envId?: string | undefined
  readonly policyVersion?: number | undefined
}

/** Defaults. */
export const defaults: Options = { groupSize: 1, maxSteps: 50, invalidActionPenalty: 0.1, concurrency: 1, envRules: true }

/**
 * The rules of `env`: the system turn of its chat view (`TextEnv.toMessages` of an empty episode), or undefined when
 * it has none (or it throws).
 */
export const rulesOf = (env: object, envId: string): string | undefined => {
  const toMessages = (env as { toMessages?: unknown }).toMessages
  if (typeof toMessages !== "function") return undefined
  try {
    const msgs = toMessages.call(env, { envId, steps: [], return: 0, length: 0 }) as ReadonlyArray<{ readonly role?: unknown; readonly content?: unknown }>
    const system = msgs.find((m) => m.role === "system")
    return typeof system?.content === "string" ? system.content : undefined
  } catch {
    return undefined
  }
}

const validate = (o: Options): Effect.Effect<Options, InvalidOptionError> => {
  const positive = (option: string, v: number) =>
    Number.isInteger(v) && v > 0 ? undefined : new InvalidOptionError({ option, value: v, reason: "must be a positive integer" })
  const e = positive("groupSize", o.groupSize) ?? positive("maxSteps", o.maxSteps) ?? positive("concurrency", o.concurrency) ??
    (Number.isFinite(o.invalidActionPenalty) ? undefined : new InvalidOptionError({ option: "invalidActionPenalty", value: o.invalidActionPenalty, reason: "must be finite" }))
  return e === undefined ? Effect.succeed(o) : Effect.fail(e)
}

type EpisodeOutcome = { readonly _tag: "ok"; readonly trajectory: LlmTrajectory } | {
  readonly _tag: "failed"
  readonly step: number
  readonly error: unknown
  readonly steps: ReadonlyArray<LlmStep>
}

/**
 * Roll out one episode of `task` on `env` with the LLM `policy`: `env.reset({ seed, options })`, then up to
 * `maxSteps` ReAct decisions, each recorded as optim's `GroupRollout` step (observation, action, reward with the
 * invalid-action penalty, state key, admissible list) plus the model's thought, match kind and usage.
 * Returns `{ _tag: "ok", trajectory }`, or `{ _tag: "failed", step, error, steps }` when the model (after its retries)
 * or the env failed at `step` (−1: the reset); it never fails itself.
 * @see Yao et al., "ReAct: Synergizing Reasoning and Acting in Language Models", arXiv:2210.03629
 * @since 0.1.0
 */
export const episode = (
  env: GroupRollout.TextEnv,
  policy: LlmPolicy.Config,
  task: GroupRollout.Task,
  rng: Rng,
  options: Partial<Options> = {}
): Effect.Effect<EpisodeOutcome, never, LanguageModel.LanguageModel> =>
  Effect.gen(function* () {
    const o: Options = { ...defaults, ...options }
    const steps: Array<LlmStep> = []
    let stepReached = -1
    const fail = (error: unknown): EpisodeOutcome => ({ _tag: "failed", step: stepReached, error, steps })
    let observation: string
    let taskText: string
    try {
      observation = env.reset({ seed: task.seed, options: task.options }).observation
      taskText = env.task
    } catch (error) {
      return fail(error)
    }
    stepReached = 0
    const rules = o.envRules ? rulesOf(env, o.envId ?? env.spec?.id ?? "text") : undefined
    let ret = 0
    let lastInfo: Trajectory.Info = {}
    let terminated = false
    for (let t = 0; t < o.maxSteps; t++) {
      let admissible: Array<string>
      let stateKey: string
      try {
        admissible = env.admissibleActions().slice()
        stateKey = env.stateKey()
      } catch (error) {
        return fail(error)
      }
      const history = steps.map((s) => ({ observation: s.observation, action: s.action, thought: s.encoded.thought }))
      const decided = yield* Effect.result(LlmPolicy.decide(policy, { task: taskText, observation, admissible, history, rules }, rng))
      if (decided._tag === "Failure") return fail(decided.failure)
      const d = decided.success
      const actionIndex = GroupRollout.admissibleIndex(admissible, d)
      let out: ReturnType<GroupRollout.TextEnv["step"]>
      try {
        out = env.step(d.action)
      } catch (error) {
        return fail(error)
      }
      const step = GroupRollout.recordStep({ observation, action: d.action, logProb: d.logProb, stateKey, admissible, actionIndex, encoded: d.record }, out, t, o)
      steps.push(step)
      ret += step.reward
      stepReached = t + 1
      observation = out.observation
      lastInfo = out.info
      terminated = out.terminated
      if (out.terminated || out.truncated) break
    }
    const trajectory: LlmTrajectory = {
      envId: o.envId ?? env.spec?.id ?? "text",
      seed: task.seed,
      task: taskText,
      ...(o.policyVersion === undefined ? {} : { policyVersion: o.policyVersion }),
      steps,
      finalObservation: observation,
      return: ret,
      length: steps.length,
      success: GroupRollout.successOf(lastInfo, terminated, ret)
    }
    return { _tag: "ok", trajectory }
  })

/**
 * Roll out `groupSize` trajectories of `task` (trajectory j on `envs[j % envs.length]`); failures are recorded in
 * `failures`.
 */
export const collectGroup = (
  envs: ReadonlyArray<GroupRollout.TextEnv>,
  policy: LlmPolicy.Config,
  task: GroupRollout.Task,
  rng: Rng,
  options: Partial<Options> = {}
): Effect.Effect<LlmGroup, InvalidOptionError, LanguageModel.LanguageModel> =>
  Effect.gen(function* () {
    const o = yield* validate({ ...defaults, ...options })
    yield* LlmPolicy.validate(policy)
    if (envs.length === 0) return yield* new InvalidOptionError({ option: "envs", value: 0, reason: "need at least one environment" })
    const rngs = rng.spawn(o.groupSize)
    const outcomes: Array<EpisodeOutcome | undefined> = new Array(o.groupSize)
    const lanes = Array.from({ length: Math.min(envs.length, o.groupSize) }, (_, e) => e)
    yield* Effect.forEach(
      lanes,
      (e) =>
        Effect.gen(function* () {
          for (let j = e; j < o.groupSize; j += envs.length) outcomes[j] = yield* episode(envs[e]!, policy, task, rngs[j]!, o)
        }),
      { concurrency: o.concurrency, discard: true }
    )
    const trajectories: Array<LlmTrajectory> = []
    const failures: Array<LlmFailure> = []
    outcomes.forEach((r, j) => {
      if (r === undefined) return
      if (r._tag === "ok") trajectories.push(r.trajectory)
      else failures.push({ trajectory: j, step: r.step, error: r.error, steps: r.steps })
    })
    return { task, trajectories, failures }
  })

/**
 * {@link collectGroup} for each task, in order: `result[k]` is the group of `tasks[k]` (`groupSize` episodes from
 * the same initial state). Fails with `InvalidOptionError` for a bad option or policy, or no envs.
 * @since 0.1.0
 */
export const collect = (
  envs: ReadonlyArray<GroupRollout.TextEnv>,
  policy: LlmPolicy.Config,
  tasks: ReadonlyArray<GroupRollout.Task>,
  rng: Rng,
  options: Partial<Options> = {}
): Effect.Effect<Array<LlmGroup>, InvalidOptionError, LanguageModel.LanguageModel> =>
  Effect.forEach(tasks, (task) => collectGroup(envs, policy, task, rng, options))

// ---------------------------------------------------------------------------------------------------------------
// Usage and evaluation
// ---------------------------------------------------------------------------------------------------------------

/** Token usage, latency and answer-quality counts of some steps. */
export interface Usage {
  readonly steps: number
  readonly inputTokens: number
  readonly outputTokens: number
  readonly latencyMs: number
  readonly modelCalls: number
  readonly reasks: number
  readonly fallbacks: number
  readonly invalidSteps: number
}

/** Sum the usage of `steps`: step count, input/output tokens, latency (ms), model calls, re-asks, fallbacks and invalid steps. */
export const usageOf = (steps: ReadonlyArray<LlmStep>): Usage => {
  let inputTokens = 0
  let outputTokens = 0
  let latencyMs = 0
  let modelCalls = 0
  let reasks = 0
  let fallbacks = 0
  let invalidSteps = 0
  for (const s of steps) {
    inputTokens += s.encoded.inputTokens
    outputTokens += s.encoded.outputTokens
    latencyMs += s.encoded.latencyMs
    modelCalls += s.encoded.calls
    if (s.encoded.reasked) reasks++
    if (s.encoded.match === "fallback") fallbacks++
    if (s.invalid) invalidSteps++
  }
  return { steps: steps.length, inputTokens, outputTokens, latencyMs, modelCalls, reasks, fallbacks, invalidSteps }
}

/** An episode row of {@link evaluate}. */
export interface EpisodeRow extends Usage {
  readonly kind: "episode"
  readonly index: number
  readonly seed: number
  readonly success: boolean
  readonly episodeReturn: number
  readonly episodeLength: number
  /** The error that lost the episode, when it failed. */
  readonly error?: string | undefined
}

/** The evaluation row of {@link evaluate} (the shape of `MultiTurnTrainer.EvaluationRow` plus usage). */
export interface EvaluationRow extends Usage {
  readonly kind: "evaluation"
  readonly episodes: number
  readonly successRate: number
  readonly episodeReturn: number
  readonly episodeLength: number
  readonly failures: number
  readonly wallSeconds: number
}

/** Callbacks of {@link evaluate}. */
export interface Hooks {
  readonly onEpisode?: ((row: EpisodeRow) => void) | undefined
  readonly onEvaluation?: ((row: EvaluationRow) => void) | undefined
}

/** Evaluation options: rollout options (group size 1 per task unless given) and the seed of the policy's Rng. */
export type EvaluateOptions = Partial<Options> & { readonly seed?: number | undefined }

/** What {@link evaluate} returns. */
export interface EvaluationResult {
  readonly row: EvaluationRow
  readonly groups: ReadonlyArray<LlmGroup>
  /** Per task (in order): the success rate of its episodes. */
  readonly taskSuccess: ReadonlyArray<number>
}

const describe = (e: unknown): string => (e instanceof Error ? e.message : typeof e === "object" && e !== null && "_tag" in e ? String((e as { _tag: unknown })._tag) : String(e))

/**
 * Evaluate `policy` on `tasks` (`groupSize` episodes each, default 1): success rate, mean return and length over all
 * episodes (a lost episode counts as unsuccessful with return 0), summed usage; rows through `hooks`.
 */
export const evaluate = (
  envs: ReadonlyArray<GroupRollout.TextEnv>,
  policy: LlmPolicy.Config,
  tasks: ReadonlyArray<GroupRollout.Task>,
  options: EvaluateOptions = {},
  hooks: Hooks = {}
): Effect.Effect<EvaluationResult, InvalidOptionError, LanguageModel.LanguageModel> =>
  Effect.gen(function* () {
    if (tasks.length === 0) return yield* new InvalidOptionError({ option: "tasks", value: 0, reason: "need at least one task" })
    const started = performance.now()
    const rng = Rng.make(options.seed ?? 0)
    const groups: Array<LlmGroup> = []
    const taskSuccess: Array<number> = []
    const allSteps: Array<LlmStep> = []
    let episodes = 0
    let successes = 0
    let ret = 0
    let len = 0
    let failures = 0
    for (const task of tasks) {
      const g = yield* collectGroup(envs, policy, task, rng, options)
      groups.push(g)
      let ok = 0
      for (const tr of g.trajectories) {
        const u = usageOf(tr.steps)
        allSteps.push(...tr.steps)
        hooks.onEpisode?.({ kind: "episode", index: episodes, seed: task.seed, success: tr.success, episodeReturn: tr.return, episodeLength: tr.length, ...u })
        episodes++
        if (tr.success) {
          successes++
          ok++
        }
        ret += tr.return
        len += tr.length
      }
      for (const f of g.failures) {
        allSteps.push(...f.steps)
        hooks.onEpisode?.({
          kind: "episode",
          index: episodes,
          seed: task.seed,
          success: false,
          episodeReturn: 0,
          episodeLength: f.steps.length,
          ...usageOf(f.steps),
          error: describe(f.error)
        })
        episodes++
        failures++
      }
      taskSuccess.push(ok / Math.max(1, g.trajectories.length + g.failures.length))
    }
    const row: EvaluationRow = {
      kind: "evaluation",
      episodes,
      successRate: successes / episodes,
      episodeReturn: ret / episodes,
      episodeLength: len / episodes,
      failures,
      wallSeconds: (performance.now() - started) / 1000,
      ...usageOf(allSteps)
    }
    hooks.onEvaluation?.(row)
    return { row, groups, taskSuccess }
  })

/**
 * A trajectory as text for the optimizers' prompts: the task, each step's observation (cut to `maxChars`),
 * thought, action and reward, and the outcome.
 */
export const renderTrajectory = (
  tr: {
    readonly task: string
    readonly steps: ReadonlyArray<LlmStep>
    readonly return: number
    readonly success: boolean
    readonly finalObservation?: unknown
  },
  maxChars = 800
): string => {
  const cut = (s: string) => (s.length > maxChars ? `${s.slice(0, maxChars)} …` : s)
  const lines = [`Task: ${tr.task}`]
  tr.steps.forEach((s, i) => {
    lines.push(`Step ${i + 1}`, `Observation: ${cut(s.observation)}`)
    if (s.encoded.thought.length > 0) lines.push(`Thought: ${cut(s.encoded.thought)}`)
    lines.push(`Action: ${s.action}${s.invalid ? " (invalid)" : ""}`, `Reward: ${s.reward}`)
  })
  if (typeof tr.finalObservation === "string") lines.push(`Final observation: ${cut(tr.finalObservation)}`)
  lines.push(`Outcome: ${tr.success ? "success" : "failure"}, return ${tr.return}, ${tr.steps.length} steps`)
  return lines.join("\n")
}

/**
 * The dashboard notes of an LLM step (`Runs.StepExtras.notes`): the model's thought as `Thought: …`, then
 * `inadmissible action` when the action was not admissible, `fallback: <kind>` when no answer matched an action,
 * `re-asked: <parse error>` when the first answer could not be read. Empty when there is nothing to say.
 */
export const stepNotes = (step: LlmStep): Array<string> => {
  const r = step.encoded
  const notes: Array<string> = []
  if (r.thought.trim().length > 0) notes.push(`Thought: ${r.thought.trim()}`)
  if (step.invalid) notes.push("inadmissible action")
  if (r.match === "fallback") notes.push(`fallback: ${r.fallback ?? "unknown"}`)
  if (r.reasked) notes.push(`re-asked: ${r.parseError ?? "unreadable answer"}`)
  return notes
}

/**
 * An LLM trajectory as core's `TextEpisode`: the row of a run's `trajectories/*.jsonl` that the dashboard shows as
 * a transcript. Per step: observation, action, reward (the invalid-action penalty included), terminated and
 * truncated; in `info`, the step's {@link stepNotes} as `notes` (the model's thought first) and whatever
 * `options.extras(step, k)` adds (the dashboard's other `StepExtras`: `exemplar(s)`, `retrieved`, `skill(s)`).
 * Episode fields: `envId`, `seed`, `task` (`options.task` replaces the env's task text, e.g. to label a stream
 * position), `policyVersion`, `finalObservation` (when text) and `success`; `return` and `length` are recomputed
 * from the steps (core's `Trajectory.fromSteps`), so they equal the trajectory's. Token counts and the raw answer
 * stay out (they are in the gateway's recording). Pure; never fails.
 * @since 0.1.0
 */
export const toTextEpisode = (
  tr: LlmTrajectory,
  options: {
    readonly task?: string | undefined
    readonly extras?: ((step: LlmStep, index: number) => Readonly<Record<string, unknown>>) | undefined
  } = {}
): TextEpisode.TextEpisode =>
  TextEpisode.make(
    tr.envId,
    tr.steps.map((s, k) => {
      const notes = stepNotes(s)
      const info = { ...(notes.length > 0 ? { notes } : {}), ...options.extras?.(s, k) }
      return {
        observation: s.observation,
        action: s.action,
        reward: s.reward,
        terminated: s.terminated,
        truncated: s.truncated,
        ...(Object.keys(info).length > 0 ? { info } : {})
      }
    }),
    {
      seed: tr.seed,
      task: options.task ?? tr.task,
      ...(tr.policyVersion === undefined ? {} : { policyVersion: tr.policyVersion }),
      ...(typeof tr.finalObservation === "string" ? { finalObservation: tr.finalObservation } : {}),
      success: tr.success
    }
  )

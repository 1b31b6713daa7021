/**
 * ExpeL-style insight extraction (Zhao et al. 2023): an agent gathers experience on training tasks, an LLM distils
 * natural-language *insights* from it by comparing failed with successful trials of the same task and by looking at
 * sets of successful trials, and the insights are placed in the agent's prompt at evaluation time. No weights change.
 *
 * **Details**
 * - Gathering ({@link gather}): `trials` episodes per training task with the {@link LlmPolicy} (sampled), kept as
 *   successes and failures per task.
 * - Extraction ({@link extract}), as the paper's Sec. 4.2: for every task with both, each failure is compared with a
 *   success of that task (at most `pairsPerTask` pairs; `prompts.compare`), then the successes of all tasks in
 *   chunks of `successBatch` (`prompts.successes`). Each answer is a list of operations on the current insight list,
 *   one per line:
 *   `ADD: <insight>`, `EDIT <n>: <insight>`, `UPVOTE <n>`, `DOWNVOTE <n>` (the paper's ADD / EDIT / AGREE / REMOVE;
 *   `AGREE` and `REMOVE` are accepted too). Importance counts: ADD starts at 2, UPVOTE and EDIT add 1, DOWNVOTE
 *   subtracts 1, and an insight whose count reaches 0 is removed. Lines that are not operations, and operations on
 *   unknown insights, are skipped and counted.
 * - Insights are numbered by a stable id; {@link render} gives the prompt block (most important first).
 * - `learn` = gather + extract, with a row per extraction call through `onExtraction`.
 *
 * @example
 * ```ts
 * import { Expel, LlmPolicy, LlmRollout } from "@autodidact/llm"
 * import { Effect } from "effect"
 * const program = Effect.gen(function* () {
 *   const { insights } = yield* Expel.learn(envs, trainTasks, LlmPolicy.config(), { trials: 3 })
 *   return yield* LlmRollout.evaluate(envs, LlmPolicy.config({ experiences: Expel.render(insights) }), evalTasks)
 * })
 * ```
 * @see Zhao et al., "ExpeL: LLM Agents Are Experiential Learners", arXiv:2308.10144
 * @since 0.1.0
 */
import { InvalidOptionError, Rng } from "@autodidact/core"
import { Effect } from "effect"
import type { LanguageModel } from "effect/ai"
import type { GroupRollout } from "@autodidact/optim"
import * as LlmPolicy from "./LlmPolicy.js"
import * as LlmRollout from "./LlmRollout.js"

// ---------------------------------------------------------------------------------------------------------------
// Insights
// ---------------------------------------------------------------------------------------------------------------

/** An insight with its importance count. */
export interface Insight {
  readonly id: number
  readonly text: string
  readonly importance: number
}

/** The insight list. */
export interface Insights {
  readonly insights: ReadonlyArray<Insight>
  readonly nextId: number
}

/** No insights. */
export const empty: Insights = { insights: [], nextId: 1 }

/** An operation on the list. */
export type InsightOperation =
  | { readonly op: "ADD"; readonly text: string }
  | { readonly op: "EDIT"; readonly id: number; readonly text: string }
  | { readonly op: "UPVOTE"; readonly id: number }
  | { readonly op: "DOWNVOTE"; readonly id: number }

/** Importance of a new insight (the paper's 2). */
export const ADD_IMPORTANCE = 2

/**
 * Apply insight operations in order (ExpeL's ADD / EDIT / UPVOTE / DOWNVOTE, arXiv:2308.10144 Sec. 4.2): ADD starts
 * an insight at importance 2, EDIT and UPVOTE add 1, DOWNVOTE subtracts 1 and removes it at 0. Operations on unknown
 * ids and ADDs duplicating an existing text (case-insensitive) are skipped. Returns the new state (the input is not
 * changed) with the counts of applied, skipped and removed operations.
 */
export const applyOperations = (
  state: Insights,
  ops: ReadonlyArray<InsightOperation>
): { readonly state: Insights; readonly applied: number; readonly skipped: number; readonly removed: number } => {
  const list: Array<Insight> = state.insights.slice()
  let nextId = state.nextId
  let applied = 0
  let skipped = 0
  let removed = 0
  for (const op of ops) {
    if (op.op === "ADD") {
      const text = op.text.trim().replace(/\s+/g, " ")
      if (text.length === 0 || list.some((i) => i.text.toLowerCase() === text.toLowerCase())) {
        skipped++
        continue
      }
      list.push({ id: nextId++, text, importance: ADD_IMPORTANCE })
      applied++
      continue
    }
    const k = list.findIndex((i) => i.id === op.id)
    if (k < 0) {
      skipped++
      continue
    }
    const cur = list[k]!
    if (op.op === "EDIT") {
      const text = op.text.trim().replace(/\s+/g, " ")
      if (text.length === 0) {
        skipped++
        continue
      }
      list[k] = { ...cur, text, importance: cur.importance + 1 }
    } else if (op.op === "UPVOTE") list[k] = { ...cur, importance: cur.importance + 1 }
    else {
      if (cur.importance - 1 <= 0) {
        list.splice(k, 1)
        removed++
      } else list[k] = { ...cur, importance: cur.importance - 1 }
    }
    applied++
  }
  return { state: { insights: list, nextId }, applied, skipped, removed }
}

const OP_LINE = /^\s*(?:[-*•]|\d+[.)])?\s*\**\s*(ADD|EDIT|UPVOTE|DOWNVOTE|AGREE|REMOVE)\b\s*\**\s*(?:#?\s*(\d+))?\s*[:：-]?\s*(.*)$/i

/**
 * Parse an extraction answer into operations, one per line (`ADD: text`, `EDIT n: text`, `UPVOTE n`, `DOWNVOTE n`,
 * and the paper's `AGREE n` / `REMOVE n`; list markers and markdown emphasis are ignored). Prose lines are ignored;
 * lines that name an operation but cannot be used (no id, no text) are counted in `invalid`.
 */
export const parseOperations = (text: string): { readonly operations: ReadonlyArray<InsightOperation>; readonly invalid: number } => {
  const operations: Array<InsightOperation> = []
  let invalid = 0
  for (const line of text.split(/\r?\n/)) {
    const m = OP_LINE.exec(line)
    if (m === null) continue
    const name = m[1]!.toUpperCase()
    const id = m[2] === undefined ? undefined : Number(m[2])
    const rest = m[3]!.trim()
    if (name === "ADD") {
      const t = id === undefined ? rest : `${m[2]} ${rest}`.trim()
      if (t.length > 0) operations.push({ op: "ADD", text: t })
      else invalid++
    } else if (id === undefined) invalid++
    else if (name === "EDIT") {
      if (rest.length > 0) operations.push({ op: "EDIT", id, text: rest })
      else invalid++
    } else if (name === "UPVOTE" || name === "AGREE") operations.push({ op: "UPVOTE", id })
    else operations.push({ op: "DOWNVOTE", id })
  }
  return { operations, invalid }
}

/** The insights as a prompt block, most important first (`""` when there are none). */
export const render = (state: Insights, heading = "Insights from earlier tasks:"): string => {
  if (state.insights.length === 0) return ""
  const sorted = state.insights.slice().sort((a, b) => b.importance - a.importance || a.id - b.id)
  return `${heading}\n${sorted.map((i) => `${i.id}. ${i.text}`).join("\n")}`
}

const listForPrompt = (state: Insights): string =>
  state.insights.length === 0 ? "(no rules yet)" : state.insights.map((i) => `${i.id}. ${i.text}`).join("\n")

// ---------------------------------------------------------------------------------------------------------------
// Prompts
// ---------------------------------------------------------------------------------------------------------------

/** Prompt templates. */
export interface Prompts {
  readonly compare: (p: { readonly task: string; readonly failed: string; readonly success: string; readonly rules: string }) => string
  readonly successes: (p: { readonly trials: ReadonlyArray<string>; readonly rules: string }) => string
}

const FORMAT =
  "Answer with operations on the existing rules, one per line:\nADD: <new general rule>\nEDIT <n>: <improved rule n>\nUPVOTE <n> (rule n is confirmed)\nDOWNVOTE <n> (rule n is wrong or useless)\nor NONE. Rules must be general, short and useful for other tasks."

/** Default templates (after the paper's Appendix prompts). */
export const defaultPrompts: Prompts = {
  compare: ({ failed, rules, success, task }) =>
    [
      `You are given a failed trial and a successful trial of the same task, "${task}". Compare them and find why the failed one failed.`,
      `Failed trial:\n${failed}`,
      `Successful trial:\n${success}`,
      `Existing rules:\n${rules}`,
      FORMAT
    ].join("\n\n"),
  successes: ({ rules, trials }) =>
    [
      "You are given successful trials of several tasks. Find what they have in common that made them succeed.",
      `Successful trials:\n${trials.map((t, i) => `Trial ${i + 1}:\n${t}`).join("\n\n")}`,
      `Existing rules:\n${rules}`,
      FORMAT
    ].join("\n\n")
}

// ---------------------------------------------------------------------------------------------------------------
// Gather, extract, learn
// ---------------------------------------------------------------------------------------------------------------

/** The trials of one task. */
export interface TaskExperience {
  readonly task: GroupRollout.Task
  readonly successes: ReadonlyArray<LlmRollout.LlmTrajectory>
  readonly failures: ReadonlyArray<LlmRollout.LlmTrajectory>
}

/** Options. */
export interface Options {
  /** Episodes per training task. Default 3. */
  readonly trials: number
  readonly maxSteps: number
  readonly invalidActionPenalty: number
  /** Failure/success pairs compared per task. Default 2. */
  readonly pairsPerTask: number
  /** Successful trials per success-set call. Default 4 (0: no success-set calls). */
  readonly successBatch: number
  /** Temperature of the gathering episodes. Default 0.7. */
  readonly temperature: number
  /** Temperature of the extraction calls. Default 0. */
  readonly extractTemperature: number
  readonly seed: number
  readonly prompts: Prompts
}

/** Defaults. */
export const defaults: Options = {
  trials: 3,
  maxSteps: 50,
  invalidActionPenalty: 0.1,
  pairsPerTask: 2,
  successBatch: 4,
  temperature: 0.7,
  extractTemperature: 0,
  seed: 1,
  prompts: defaultPrompts
}

/** One extraction call. */
export interface ExtractionRow {
  readonly kind: "extraction"
  readonly call: number
  readonly source: "pair" | "successes"
  readonly applied: number
  readonly skipped: number
  readonly invalid: number
  readonly removed: number
  readonly insights: number
  readonly failed: boolean
}

/** Callbacks. */
export interface Hooks {
  readonly onExtraction?: ((row: ExtractionRow) => void) | undefined
}

const validate = (o: Options): Effect.Effect<Options, InvalidOptionError> => {
  const int = (option: string, v: number, min: number) =>
    Number.isInteger(v) && v >= min ? undefined : new InvalidOptionError({ option, value: v, reason: `must be an integer ≥ ${min}` })
  const e = int("trials", o.trials, 1) ?? int("maxSteps", o.maxSteps, 1) ?? int("pairsPerTask", o.pairsPerTask, 0) ?? int("successBatch", o.successBatch, 0) ??
    (Number.isFinite(o.temperature) && o.temperature >= 0 ? undefined : new InvalidOptionError({ option: "temperature", value: o.temperature, reason: "must be ≥ 0" }))
  return e === undefined ? Effect.succeed(o) : Effect.fail(e)
}

/**
 * Gather experience: `trials` (≥ 1) episodes of each task with `policy` (extended with `insights` when given) at
 * `temperature`, split per task into successes and failures (one {@link TaskExperience} per task, in task order).
 * Episodes lost to a model or env failure are dropped. Fails with `InvalidOptionError` for a bad option.
 * @see Zhao et al., "ExpeL: LLM Agents Are Experiential Learners", arXiv:2308.10144 (Sec. 4.2)
 * @since 0.1.0
 */
export const gather = (
  envs: ReadonlyArray<GroupRollout.TextEnv>,
  tasks: ReadonlyArray<GroupRollout.Task>,
  policy: LlmPolicy.Config,
  options: Partial<Options> = {}
): Effect.Effect<Array<TaskExperience>, InvalidOptionError, LanguageModel.LanguageModel> =>
  Effect.gen(function* () {
    const o = yield* validate({ ...defaults, ...options })
    const rng = Rng.make(o.seed)
    const groups = yield* LlmRollout.collect(envs, { ...policy, temperature: o.temperature }, tasks, rng, {
      groupSize: o.trials,
      maxSteps: o.maxSteps,
      invalidActionPenalty: o.invalidActionPenalty
    })
    return groups.map((g) => ({
      task: g.task,
      successes: g.trajectories.filter((t) => t.success),
      failures: g.trajectories.filter((t) => !t.success)
    }))
  })

/**
 * Distil insights from gathered experience, starting from `initial` (see the module docs): for every task with both
 * outcomes, up to `pairsPerTask` failure/success comparisons (`prompts.compare`), then the successes in chunks of
 * `successBatch` (`prompts.successes`); each answer's operations update the insight list and its importance counts
 * ({@link applyOperations}). One {@link ExtractionRow} per call through `onExtraction` (a failed call is counted there
 * and skipped). Fails with `InvalidOptionError` for a bad option.
 * @see Zhao et al., "ExpeL: LLM Agents Are Experiential Learners", arXiv:2308.10144 (Sec. 4.2)
 * @since 0.1.0
 */
export const extract = (
  experience: ReadonlyArray<TaskExperience>,
  initial: Insights = empty,
  options: Partial<Options> & { readonly policy?: LlmPolicy.Config | undefined } = {},
  hooks: Hooks = {}
): Effect.Effect<Insights, InvalidOptionError, LanguageModel.LanguageModel> =>
  Effect.gen(function* () {
    const o = yield* validate({ ...defaults, ...options, prompts: { ...defaultPrompts, ...options.prompts } })
    const p = options.policy ?? LlmPolicy.defaults
    const call = { retries: p.retries, baseDelayMs: p.baseDelayMs, maxDelayMs: p.maxDelayMs, temperature: o.extractTemperature, sampling: p.sampling }
    let state = initial
    let calls = 0
    const run = (source: ExtractionRow["source"], prompt: string) =>
      Effect.gen(function* () {
        const r = yield* Effect.result(LlmPolicy.generate(prompt, { ...call, purpose: `expel-${source}` }))
        if (r._tag === "Failure") {
          hooks.onExtraction?.({ kind: "extraction", call: calls++, source, applied: 0, skipped: 0, invalid: 0, removed: 0, insights: state.insights.length, failed: true })
          return
        }
        const parsed = parseOperations(r.success.text)
        const res = applyOperations(state, parsed.operations)
        state = res.state
        hooks.onExtraction?.({
          kind: "extraction",
          call: calls++,
          source,
          applied: res.applied,
          skipped: res.skipped,
          invalid: parsed.invalid,
          removed: res.removed,
          insights: state.insights.length,
          failed: false
        })
      })
    for (const e of experience) {
      if (e.successes.length === 0) continue
      const pairs = Math.min(o.pairsPerTask, e.failures.length)
      for (let i = 0; i < pairs; i++) {
        const failed = e.failures[i]!
        const success = e.successes[i % e.successes.length]!
        yield* run("pair", o.prompts.compare({ task: failed.task, failed: LlmRollout.renderTrajectory(failed), success: LlmRollout.renderTrajectory(success), rules: listForPrompt(state) }))
      }
    }
    if (o.successBatch > 0) {
      const successes = experience.flatMap((e) => e.successes.slice(0, 1))
      for (let i = 0; i < successes.length; i += o.successBatch) {
        const chunk = successes.slice(i, i + o.successBatch)
        yield* run("successes", o.prompts.successes({ trials: chunk.map((t) => LlmRollout.renderTrajectory(t)), rules: listForPrompt(state) }))
      }
    }
    return state
  })

/** What {@link learn} returns. */
export interface LearnResult {
  readonly insights: Insights
  readonly experience: ReadonlyArray<TaskExperience>
  /** Success rate of the gathering episodes. */
  readonly gatherSuccessRate: number
}

/**
 * ExpeL's training phase: {@link gather} experience on `tasks`, then {@link extract} insights from it starting from
 * `initial`. Returns the insights, the experience and the gathering success rate (in [0, 1]). Put the insights in a
 * policy's prompt with `{ ...policy, experiences: Expel.render(insights) }`. Fails with `InvalidOptionError` for a
 * bad option; model and env failures are dropped or counted, not raised.
 * @see Zhao et al., "ExpeL: LLM Agents Are Experiential Learners", arXiv:2308.10144 (Sec. 4.2)
 * @since 0.1.0
 */
export const learn = (
  envs: ReadonlyArray<GroupRollout.TextEnv>,
  tasks: ReadonlyArray<GroupRollout.Task>,
  policy: LlmPolicy.Config,
  options: Partial<Options> = {},
  hooks: Hooks = {},
  initial: Insights = empty
): Effect.Effect<LearnResult, InvalidOptionError, LanguageModel.LanguageModel> =>
  Effect.gen(function* () {
    const experience = yield* gather(envs, tasks, { ...policy, experiences: [policy.experiences, render(initial)].filter((s) => s.length > 0).join("\n\n") }, options)
    const insights = yield* extract(experience, initial, { ...options, policy }, hooks)
    const s = experience.reduce((a, e) => a + e.successes.length, 0)
    const n = experience.reduce((a, e) => a + e.successes.length + e.failures.length, 0)
    return { insights, experience, gatherSuccessRate: n === 0 ? 0 : s / n }
  })

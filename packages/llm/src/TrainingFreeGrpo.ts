/**
 * Training-Free GRPO (Cai et al. 2025): group-relative policy optimization without weight updates. The "policy" is a
 * frozen LLM plus an experience library in its prompt; the group-relative signal is a *semantic* advantage the LLM
 * writes by comparing the rollouts of a group, and the update edits the library.
 *
 * The loop, one epoch at a time (the paper's Sec. 3, Fig. 2):
 * 1. **Rollout**: for each of `tasksPerEpoch` tasks, a group of `groupSize` rollouts of the {@link LlmPolicy}
 *    with the current library in its prompt (`rolloutTemperature`, the paper samples at 0.7 while learning).
 * 2. **Summaries**: for each group whose rewards are not all equal (a group with equal rewards has no relative
 *    signal, as its numerical GRPO advantages would all be 0), the LLM summarizes each rollout (`prompts.summarize`).
 * 3. **Semantic group advantage**: given the summaries with their rewards and the current library, the LLM states
 *    what the better rollouts did that the worse ones did not (`prompts.extract`; "NONE" for nothing new).
 * 4. **Optimization**: one batch update per epoch: given the library and every group's advantage, the LLM answers a
 *    JSON list of operations `ADD` / `MODIFY` (id) / `DELETE` (id) / `NONE` (`prompts.update`), applied to the
 *    {@link ExperienceLibrary} service as one new version.
 * The library is injected into the policy's prompt in the following epochs. Steps 2-4 are {@link update}, which takes
 * groups rolled out by anyone (this package's rollouts, another agent's, recorded transcripts) and a library snapshot
 * and returns the new snapshot; {@link train} rolls out and calls it once per epoch.
 *
 * **Options** (defaults after the paper where it gives them): `epochs` 3, `groupSize` 5, `rolloutTemperature` 0.7,
 * `learnTemperature` 0.7 (summaries, extraction, update), `tasksPerEpoch` (default: every task),
 * `updateLibrary` (false: roll out only, the ablation without learning), `onParseError` (`"skip"`: count an
 * unparseable update answer and go on; `"fail"`: {@link OperationsParseError}), `maxExperiences` (the update is told
 * the cap; an ADD beyond it is skipped).
 *
 * **Rows**: `onEpoch` per epoch (success rate and mean reward of the epoch's rollouts, group and operation counts,
 * library version and size, tokens); with `evalTasks`, `onEvaluation` after each epoch's update (the library
 * just learned, `evalTemperature`).
 *
 * **Errors**: `InvalidOptionError` for a bad option; {@link OperationsParseError} (only with `onParseError: "fail"`);
 * `LibraryStorageError` from the library. Rollout failures are recorded in the rows; a failed summarize/extract/update
 * call skips that step and is counted (`learnFailures`).
 *
 * @example
 * ```ts
 * import { ExperienceLibrary, LlmPolicy, TrainingFreeGrpo } from "@autodidact/llm"
 * import { TextTasks } from "@autodidact/optim"
 * import { Effect, Layer } from "effect"
 * const setup = TextTasks.setupFor("TextHousehold-v0", { difficulty: "easy" })
 * const tasks = Array.from({ length: 10 }, (_, k) => ({ seed: k, options: { split: "train" } }))
 * const program = TrainingFreeGrpo.train([setup.makeEnv()], tasks, LlmPolicy.config(), { epochs: 3, groupSize: 5 }, {
 *   onEpoch: (row) => console.log(`epoch ${row.epoch}: success ${row.successRate}, ${row.librarySize} experiences`)
 * })
 * // Effect.runPromise(program.pipe(Effect.provide(Layer.mergeAll(modelLayer, ExperienceLibrary.layerFile("lib.json")))))
 * ```
 * @see Cai et al., "Training-Free Group Relative Policy Optimization", arXiv:2510.08191
 * @see Shao et al., "DeepSeekMath" (GRPO), arXiv:2402.03300
 * @since 0.1.0
 */
import { InvalidOptionError, Rng } from "@autodidact/core"
import { Effect, Schema } from "effect"
import type { LanguageModel } from "effect/ai"
import * as ExperienceLibrary from "./ExperienceLibrary.js"
import type { GroupRollout } from "@autodidact/optim"
import * as LlmPolicy from "./LlmPolicy.js"
import * as LlmRollout from "./LlmRollout.js"

// ---------------------------------------------------------------------------------------------------------------
// Prompts
// ---------------------------------------------------------------------------------------------------------------

/** Prompt templates. */
export interface Prompts {
  readonly summarize: (p: { readonly task: string; readonly trajectory: string; readonly library: string }) => string
  readonly extract: (p: {
    readonly task: string
    readonly rollouts: ReadonlyArray<{ readonly index: number; readonly reward: number; readonly success: boolean; readonly summary: string }>
    readonly library: string
  }) => string
  readonly update: (p: { readonly library: string; readonly advantages: ReadonlyArray<string>; readonly maxExperiences: number | undefined }) => string
}

const libraryOrNone = (library: string) => (library.length === 0 ? "(the library is empty)" : library)

/** The default templates (paraphrasing the paper's Appendix prompts for agentic tasks). */
export const defaultPrompts: Prompts = {
  summarize: ({ library, task, trajectory }) =>
    [
      "You are analysing one attempt of an agent at a task.",
      `Task: ${task}`,
      `Experiences the agent was given:\n${libraryOrNone(library)}`,
      `Trajectory:\n${trajectory}`,
      "Summarize the attempt step by step: what the agent did, which experiences it followed or ignored, and which steps made it succeed or fail. Be concise."
    ].join("\n\n"),
  extract: ({ library, rollouts, task }) =>
    [
      `Several attempts at the same task received different rewards. Task: ${task}`,
      rollouts.map((r) => `Attempt ${r.index + 1} (reward ${r.reward}, ${r.success ? "success" : "failure"}):\n${r.summary}`).join("\n\n"),
      `Current experience library:\n${libraryOrNone(library)}`,
      "Compare the attempts. State, as at most 3 general lessons (each one sentence, useful for other tasks too), what the better attempts did that the worse ones did not. Write one lesson per line. Answer NONE if the library already covers it."
    ].join("\n\n"),
  update: ({ advantages, library, maxExperiences }) =>
    [
      `Current experience library:\n${libraryOrNone(library)}`,
      `Lessons extracted from this batch of attempts:\n${advantages.map((a, i) => `${i + 1}. ${a}`).join("\n")}`,
      "Update the library so that it helps on future tasks. Use ADD for a new lesson, MODIFY to refine an experience (give its id, the number after G), DELETE to drop a wrong or redundant one, NONE when nothing should change." +
      (maxExperiences === undefined ? "" : ` Keep at most ${maxExperiences} experiences.`),
      'Answer only with a JSON array, e.g. [{"operation": "ADD", "content": "..."}, {"operation": "MODIFY", "id": 3, "content": "..."}, {"operation": "DELETE", "id": 1}].'
    ].join("\n\n")
}

// ---------------------------------------------------------------------------------------------------------------
// Parsing operations
// ---------------------------------------------------------------------------------------------------------------

/**
 * The model's update answer held no usable JSON (only with `onParseError: "fail"`).
 * @category errors
 */
export class OperationsParseError extends Schema.TaggedError<OperationsParseError>()("OperationsParseError", {
  output: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `could not parse library operations (${this.reason}) from ${JSON.stringify(this.output.slice(0, 200))}`
  }
}

/** Parsed operations: the valid ones, and how many items were unusable. */
export interface ParsedOperations {
  readonly operations: ReadonlyArray<ExperienceLibrary.Operation>
  readonly invalid: number
  /** Set when no JSON could be read at all. */
  readonly error?: string | undefined
}

const OP_ALIASES: Record<string, ExperienceLibrary.Operation["op"]> = {
  ADD: "ADD",
  MODIFY: "MODIFY",
  UPDATE: "MODIFY",
  EDIT: "MODIFY",
  DELETE: "DELETE",
  REMOVE: "DELETE",
  NONE: "NONE",
  KEEP: "NONE"
}

const idOf = (v: unknown): number | undefined => {
  if (typeof v === "number" && Number.isInteger(v) && v >= 0) return v
  if (typeof v === "string") {
    const m = /^\s*\[?G?(\d+)\]?\s*$/i.exec(v)
    if (m !== null) return Number(m[1])
  }
  return undefined
}

const jsonCandidates = (text: string): Array<string> => {
  const out: Array<string> = []
  const fence = /```(?:json)?\s*([\s\S]*?)```/gi
  for (let m = fence.exec(text); m !== null; m = fence.exec(text)) out.push(m[1]!)
  const a = text.indexOf("[")
  const b = text.lastIndexOf("]")
  if (a >= 0 && b > a) out.push(text.slice(a, b + 1))
  const c = text.indexOf("{")
  const d = text.lastIndexOf("}")
  if (c >= 0 && d > c) out.push(text.slice(c, d + 1))
  out.push(text)
  return out
}

/**
 * Read library operations from a model answer: a JSON array (or `{ "operations": [...] }`, or one operation
 * object), possibly inside a code fence or prose. Keys: `operation`/`op`/`option` (ADD, MODIFY/UPDATE/EDIT,
 * DELETE/REMOVE, NONE/KEEP, any case), `id` (a number or `"G3"`), `content`/`experience`/`text`. Unusable items are
 * counted in `invalid`; an answer of just `NONE` is one NONE operation.
 */
export const parseOperations = (text: string): ParsedOperations => {
  if (/^\s*["'`]*none["'`.]*\s*$/i.test(text)) return { operations: [{ op: "NONE" }], invalid: 0 }
  let items: Array<unknown> | undefined
  let lastError = "no JSON found"
  for (const candidate of jsonCandidates(text)) {
    try {
      const v = JSON.parse(candidate) as unknown
      if (Array.isArray(v)) items = v
      else if (typeof v === "object" && v !== null && Array.isArray((v as { operations?: unknown }).operations)) items = (v as { operations: Array<unknown> }).operations
      else if (typeof v === "object" && v !== null) items = [v]
      else continue
      break
    } catch (e) {
      lastError = e instanceof Error ? e.message : String(e)
    }
  }
  if (items === undefined) return { operations: [], invalid: 0, error: lastError }
  const operations: Array<ExperienceLibrary.Operation> = []
  let invalid = 0
  for (const item of items) {
    if (typeof item !== "object" || item === null) {
      invalid++
      continue
    }
    const o = item as Record<string, unknown>
    const name = o["operation"] ?? o["op"] ?? o["option"] ?? o["action"]
    const op = typeof name === "string" ? OP_ALIASES[name.trim().toUpperCase()] : undefined
    const contentRaw = o["content"] ?? o["experience"] ?? o["text"]
    const content = typeof contentRaw === "string" ? contentRaw : undefined
    const id = idOf(o["id"] ?? o["modified_from"] ?? o["target"])
    if (op === "NONE") operations.push({ op })
    else if (op === "ADD" && content !== undefined && content.trim().length > 0) operations.push({ op, content })
    else if (op === "MODIFY" && id !== undefined && content !== undefined && content.trim().length > 0) operations.push({ op, id, content })
    else if (op === "DELETE" && id !== undefined) operations.push({ op, id })
    else invalid++
  }
  return { operations, invalid }
}

// ---------------------------------------------------------------------------------------------------------------
// Options, rows
// ---------------------------------------------------------------------------------------------------------------

/** Hyper-parameters. */
export interface Options {
  readonly epochs: number
  readonly groupSize: number
  /** Tasks drawn (without replacement) per epoch; default every task, in order. */
  readonly tasksPerEpoch?: number | undefined
  readonly maxSteps: number
  readonly invalidActionPenalty: number
  readonly rolloutTemperature: number
  readonly learnTemperature: number
  readonly evalTemperature: number
  /** Extract advantages and update the library (false: the no-learning ablation). Default true. */
  readonly updateLibrary: boolean
  readonly onParseError: "skip" | "fail"
  readonly maxExperiences?: number | undefined
  /** Tasks evaluated after each epoch (none by default). */
  readonly evalTasks?: ReadonlyArray<GroupRollout.Task> | undefined
  readonly concurrency: number
  readonly seed: number
  readonly prompts: Prompts
}

/** Defaults (epochs 3, groups of 5, temperature 0.7 while learning, 0.3 for evaluation). */
export const defaults: Options = {
  epochs: 3,
  groupSize: 5,
  maxSteps: 50,
  invalidActionPenalty: 0.1,
  rolloutTemperature: 0.7,
  learnTemperature: 0.7,
  evalTemperature: 0.3,
  updateLibrary: true,
  onParseError: "skip",
  concurrency: 1,
  seed: 1,
  prompts: defaultPrompts
}

/** One epoch. */
export interface EpochRow {
  readonly kind: "epoch"
  readonly epoch: number
  /** Success rate of the epoch's rollouts (lost rollouts count as failures). */
  readonly successRate: number
  /** Mean return of the epoch's rollouts (lost rollouts count 0). */
  readonly meanReward: number
  readonly episodes: number
  readonly failures: number
  readonly groups: number
  /** Groups whose rewards differ (the ones learned from). */
  readonly groupsWithSignal: number
  /** Non-empty semantic advantages extracted. */
  readonly advantages: number
  readonly operations: OperationCounts
  readonly parseFailures: number
  readonly learnFailures: number
  /** The library after this epoch's update. */
  readonly libraryVersion: number
  readonly librarySize: number
  readonly inputTokens: number
  readonly outputTokens: number
  readonly wallSeconds: number
}

/** Callbacks, run synchronously. */
export interface Hooks {
  readonly onEpoch?: ((row: EpochRow) => void) | undefined
  readonly onEvaluation?: ((row: LlmRollout.EvaluationRow & { readonly epoch: number }) => void) | undefined
  readonly onGroup?: ((group: LlmRollout.LlmGroup, epoch: number) => void) | undefined
}

/** What {@link train} returns. */
export interface TrainResult {
  readonly epochs: ReadonlyArray<EpochRow>
  readonly evaluations: ReadonlyArray<LlmRollout.EvaluationRow & { readonly epoch: number }>
  readonly library: ExperienceLibrary.Snapshot
}

/**
 * Check options: integers `epochs` ≥ 1, `groupSize` ≥ 2 (a group needs two rollouts to compare), `tasksPerEpoch`,
 * `maxSteps`, `concurrency`, `maxExperiences` ≥ 1 when set, finite non-negative temperatures. Fails with
 * `InvalidOptionError` naming the first bad option and its value.
 */
export const validate = (o: Options): Effect.Effect<Options, InvalidOptionError> => {
  const int = (option: string, v: number | undefined, min: number) =>
    v === undefined || (Number.isInteger(v) && v >= min) ? undefined : new InvalidOptionError({ option, value: v, reason: `must be an integer ≥ ${min}` })
  const temp = (option: string, v: number) => (Number.isFinite(v) && v >= 0 ? undefined : new InvalidOptionError({ option, value: v, reason: "must be a finite number ≥ 0" }))
  const e = int("epochs", o.epochs, 1) ?? int("groupSize", o.groupSize, 2) ?? int("tasksPerEpoch", o.tasksPerEpoch, 1) ??
    int("maxSteps", o.maxSteps, 1) ?? int("concurrency", o.concurrency, 1) ?? int("maxExperiences", o.maxExperiences, 1) ??
    temp("rolloutTemperature", o.rolloutTemperature) ?? temp("learnTemperature", o.learnTemperature) ?? temp("evalTemperature", o.evalTemperature) ??
    (o.onParseError === "skip" || o.onParseError === "fail" ? undefined : new InvalidOptionError({ option: "onParseError", value: o.onParseError, reason: 'expected "skip" or "fail"' }))
  return e === undefined ? Effect.succeed(o) : Effect.fail(e)
}

const firstLines = (text: string): Array<string> =>
  text
    .split(/\r?\n/)
    .map((l) => l.replace(/^\s*(?:[-*•]|\d+[.)])\s*/, "").trim())
    .filter((l) => l.length > 0 && !/^none\.?$/i.test(l))

// ---------------------------------------------------------------------------------------------------------------
// The library update (steps 2-4), on groups rolled out by anyone
// ---------------------------------------------------------------------------------------------------------------

/**
 * One finished attempt at a task, as the update reads it: the task text, its return (reward units) and success, and
 * either its recorded steps (an {@link LlmRollout.LlmTrajectory} is one; rendered by `LlmRollout.renderTrajectory`)
 * or a ready `transcript` (for attempts recorded elsewhere, e.g. by the gateway).
 */
export type Attempt = {
  readonly task: string
  readonly return: number
  readonly success: boolean
} & (
  | { readonly steps: ReadonlyArray<LlmRollout.LlmStep>; readonly finalObservation?: unknown }
  | { readonly transcript: string }
)

/** The attempts of one task (a group; Training-Free GRPO compares them). */
export interface AttemptGroup {
  readonly trajectories: ReadonlyArray<Attempt>
}

/** Options of {@link update}: the learning part of {@link Options}, and the note of the new library version. */
export type UpdateOptions = Pick<Options, "learnTemperature" | "onParseError" | "maxExperiences" | "prompts"> & {
  /** Note of the new library version (default `"training-free grpo update"`). */
  readonly note?: string | undefined
}

/** Counts of the update's operations: applied by kind, skipped (cap or library rule) and unreadable items. */
export interface OperationCounts {
  readonly add: number
  readonly modify: number
  readonly delete: number
  readonly none: number
  readonly skipped: number
  readonly invalid: number
}

/** What {@link update} returns. */
export interface UpdateResult {
  /** The new library (the input snapshot itself when nothing changed; version + 1 otherwise). */
  readonly library: ExperienceLibrary.Snapshot
  /** The operations handed to the library (after the `maxExperiences` cap), in order. */
  readonly accepted: ReadonlyArray<ExperienceLibrary.Operation>
  /** Groups whose attempts differ in return or success (the others carry no group-relative signal). */
  readonly groupsWithSignal: number
  /** The semantic group advantages (lessons), one per line the extraction answered. */
  readonly advantages: ReadonlyArray<string>
  readonly operations: OperationCounts
  /** 1 when the update answer could not be read (`onParseError: "skip"`), else 0. */
  readonly parseFailures: number
  /** Summarize / extract / update calls that failed (each skips its step). */
  readonly learnFailures: number
  readonly inputTokens: number
  readonly outputTokens: number
}

/** Whether a group carries a group-relative signal: ≥ 2 attempts whose returns or successes differ. */
export const hasSignal = (attempts: ReadonlyArray<{ readonly return: number; readonly success: boolean }>): boolean =>
  attempts.length >= 2 && !attempts.every((t) => t.return === attempts[0]!.return && t.success === attempts[0]!.success)

const transcriptOf = (a: Attempt): string => ("transcript" in a ? a.transcript : LlmRollout.renderTrajectory(a))

/**
 * Training-Free GRPO's library update (steps 2-4 of the module docs) on groups already rolled out, by this package's
 * rollouts or any other policy: for each group with signal ({@link hasSignal}), an LLM summary per attempt
 * (`prompts.summarize`) and the group's semantic advantage (`prompts.extract`); then, when any lesson came out, one
 * batch of ADD / MODIFY / DELETE operations (`prompts.update`, JSON, ADDs beyond `maxExperiences` skipped) applied
 * to `library` with `ExperienceLibrary.applyOperations`. Pure in the library: it returns the new snapshot (and the
 * accepted operations, to apply to a stored library) and writes nothing. {@link train} runs its epochs' updates
 * through it.
 *
 * **Inputs**: `groups` (attempts with task text, return, success and steps or transcript; groups of fewer than two
 * attempts or equal outcomes are skipped), the current `library`, the `policy` whose call settings (retries, delays,
 * sampling) the learner calls use at `learnTemperature`. **Errors**: `InvalidOptionError` for a bad option;
 * {@link OperationsParseError} for an unreadable update answer with `onParseError: "fail"`. A failed model call skips
 * its step and is counted (`learnFailures`).
 *
 * @example
 * ```ts
 * const r = yield* TrainingFreeGrpo.update([{ trajectories: group.trajectories }], ExperienceLibrary.empty, policy)
 * // r.library: the new snapshot; r.advantages: the lessons
 * ```
 * @see Cai et al., "Training-Free Group Relative Policy Optimization", arXiv:2510.08191, Sec. 3
 * @since 0.1.0
 */
export const update = (
  groups: ReadonlyArray<AttemptGroup>,
  library: ExperienceLibrary.Snapshot,
  policy: LlmPolicy.Config,
  options: Partial<UpdateOptions> = {}
): Effect.Effect<UpdateResult, InvalidOptionError | OperationsParseError, LanguageModel.LanguageModel> =>
  Effect.gen(function* () {
    const o = yield* validate({ ...defaults, ...options, prompts: { ...defaultPrompts, ...options.prompts } })
    const note = options.note ?? "training-free grpo update"
    const rendered = ExperienceLibrary.render(library)
    const learnCall = { retries: policy.retries, baseDelayMs: policy.baseDelayMs, maxDelayMs: policy.maxDelayMs, temperature: o.learnTemperature, sampling: policy.sampling }
    let inputTokens = 0
    let outputTokens = 0
    const count = (st: LlmPolicy.CallStats) => {
      inputTokens += st.inputTokens
      outputTokens += st.outputTokens
    }
    let groupsWithSignal = 0
    let learnFailures = 0
    const advantages: Array<string> = []
    for (const group of groups) {
      const trs = group.trajectories
      if (!hasSignal(trs)) continue
      groupsWithSignal++
      // 2. summaries
      const rollouts: Array<{ index: number; reward: number; success: boolean; summary: string }> = []
      for (let i = 0; i < trs.length; i++) {
        const tr = trs[i]!
        const r = yield* Effect.result(
          LlmPolicy.generate(o.prompts.summarize({ task: tr.task, trajectory: transcriptOf(tr), library: rendered }), { ...learnCall, purpose: "summarize" })
        )
        if (r._tag === "Failure") {
          learnFailures++
          continue
        }
        count(r.success.stats)
        rollouts.push({ index: i, reward: tr.return, success: tr.success, summary: r.success.text.trim() })
      }
      if (rollouts.length < 2) continue
      // 3. semantic group advantage
      const a = yield* Effect.result(
        LlmPolicy.generate(o.prompts.extract({ task: trs[0]!.task, rollouts, library: rendered }), { ...learnCall, purpose: "extract" })
      )
      if (a._tag === "Failure") {
        learnFailures++
        continue
      }
      count(a.success.stats)
      advantages.push(...firstLines(a.success.text))
    }
    // 4. batch update of the library
    const ops = { add: 0, modify: 0, delete: 0, none: 0, skipped: 0, invalid: 0 }
    let parseFailures = 0
    let after = library
    const accepted: Array<ExperienceLibrary.Operation> = []
    if (advantages.length > 0) {
      const u = yield* Effect.result(
        LlmPolicy.generate(o.prompts.update({ library: rendered, advantages, maxExperiences: o.maxExperiences }), { ...learnCall, purpose: "update" })
      )
      if (u._tag === "Failure") learnFailures++
      else {
        count(u.success.stats)
        const parsed = parseOperations(u.success.text)
        ops.invalid = parsed.invalid
        if (parsed.error !== undefined) {
          if (o.onParseError === "fail") return yield* new OperationsParseError({ output: u.success.text, reason: parsed.error })
          parseFailures++
        }
        // enforce the cap on ADDs
        let size = library.experiences.length
        for (const op of parsed.operations) {
          if (op.op === "DELETE") size--
          if (op.op === "ADD" && o.maxExperiences !== undefined && size >= o.maxExperiences) {
            ops.skipped++
            continue
          }
          if (op.op === "ADD") size++
          accepted.push(op)
        }
        const result = ExperienceLibrary.applyOperations(library, accepted, note)
        ops.skipped += result.skipped.length
        for (const op of result.applied) {
          if (op.op === "ADD") ops.add++
          else if (op.op === "MODIFY") ops.modify++
          else if (op.op === "DELETE") ops.delete++
          else ops.none++
        }
        after = result.snapshot
      }
    }
    return { library: after, accepted, groupsWithSignal, advantages, operations: ops, parseFailures, learnFailures, inputTokens, outputTokens }
  })

// ---------------------------------------------------------------------------------------------------------------
// Training
// ---------------------------------------------------------------------------------------------------------------

/**
 * Run Training-Free GRPO for `epochs` epochs on `tasks` (see the module docs), learning into the
 * {@link ExperienceLibrary.ExperienceLibrary} in context, starting from its current content.
 *
 * **Per epoch**: `groupSize` (≥ 2) rollouts of each of the epoch's tasks (all of `tasks`, or `tasksPerEpoch` drawn
 * with the seeded generator) with the library in the policy's prompt at `rolloutTemperature`; for each group whose
 * rewards differ, an LLM summary per rollout and a *semantic group advantage* (the lessons the model extracts by
 * comparing the group); then one batch of library operations (ADD / MODIFY / DELETE, JSON) applied as one new
 * library version. Groups whose rewards are all equal carry no relative signal and are skipped (the rule of
 * group-relative advantages). With `evalTasks`, the library just learned is evaluated after each epoch.
 *
 * **Inputs**: `envs` (≥ 1 text env), `tasks` (≥ 1), the base `policy`. **Returns** {@link TrainResult}: one
 * {@link EpochRow} per epoch (success rate and mean reward of the epoch's rollouts in [0, 1] / reward units, group,
 * operation and failure counts, library version and size, input/output tokens), the evaluation rows (with their
 * epoch) and the final library snapshot.
 *
 * **Errors**: `InvalidOptionError` for a bad option (e.g. `groupSize` < 2, `epochs` < 1, a negative temperature) or
 * no tasks; {@link OperationsParseError} for an unparseable update answer with `onParseError: "fail"`;
 * `LibraryStorageError` from the library. Rollout failures are counted in the rows, and a failed summarize /
 * extract / update call skips that step (`learnFailures`).
 *
 * @see Cai et al., "Training-Free Group Relative Policy Optimization", arXiv:2510.08191
 * @see Shao et al., "DeepSeekMath" (GRPO), arXiv:2402.03300
 * @since 0.1.0
 */
export const train = (
  envs: ReadonlyArray<GroupRollout.TextEnv>,
  tasks: ReadonlyArray<GroupRollout.Task>,
  policy: LlmPolicy.Config,
  options: Partial<Options> = {},
  hooks: Hooks = {}
): Effect.Effect<
  TrainResult,
  InvalidOptionError | OperationsParseError | ExperienceLibrary.LibraryStorageError,
  LanguageModel.LanguageModel | ExperienceLibrary.ExperienceLibrary
> =>
  Effect.gen(function* () {
    const o = yield* validate({ ...defaults, ...options, prompts: { ...defaultPrompts, ...options.prompts } })
    if (tasks.length === 0) return yield* new InvalidOptionError({ option: "tasks", value: 0, reason: "need at least one task" })
    if (envs.length === 0) return yield* new InvalidOptionError({ option: "envs", value: 0, reason: "need at least one environment" })
    const library = yield* ExperienceLibrary.ExperienceLibrary
    const root = Rng.make(o.seed)
    const [taskRng, rolloutRng] = root.spawn(2) as [Rng, Rng]
    const started = performance.now()
    const epochs: Array<EpochRow> = []
    const evaluations: Array<LlmRollout.EvaluationRow & { readonly epoch: number }> = []
    for (let epoch = 0; epoch < o.epochs; epoch++) {
      const before = yield* library.current
      const rendered = ExperienceLibrary.render(before)
      const rolloutPolicy: LlmPolicy.Config = { ...policy, experiences: [policy.experiences, rendered].filter((s) => s.length > 0).join("\n\n"), temperature: o.rolloutTemperature }
      const epochTasks = o.tasksPerEpoch === undefined || o.tasksPerEpoch >= tasks.length ? tasks : taskRng.shuffle(tasks.slice()).slice(0, o.tasksPerEpoch)
      let inputTokens = 0
      let outputTokens = 0
      let episodes = 0
      let successes = 0
      let returns = 0
      let failures = 0
      const groups: Array<LlmRollout.LlmGroup> = []
      // 1. rollouts
      for (const task of epochTasks) {
        const group = yield* LlmRollout.collectGroup(envs, rolloutPolicy, task, rolloutRng, {
          groupSize: o.groupSize,
          maxSteps: o.maxSteps,
          invalidActionPenalty: o.invalidActionPenalty,
          concurrency: o.concurrency,
          policyVersion: before.version
        })
        hooks.onGroup?.(group, epoch)
        groups.push(group)
        for (const tr of group.trajectories) {
          episodes++
          if (tr.success) successes++
          returns += tr.return
          const u = LlmRollout.usageOf(tr.steps)
          inputTokens += u.inputTokens
          outputTokens += u.outputTokens
        }
        for (const f of group.failures) {
          episodes++
          failures++
          const u = LlmRollout.usageOf(f.steps)
          inputTokens += u.inputTokens
          outputTokens += u.outputTokens
        }
      }
      // 2-4. summaries, semantic group advantages and the batch update, on the epoch's groups
      const note = `training-free grpo epoch ${epoch}`
      const learned = o.updateLibrary ? yield* update(groups, before, policy, { ...o, note }) : undefined
      let after = before
      if (learned !== undefined) {
        inputTokens += learned.inputTokens
        outputTokens += learned.outputTokens
        if (learned.accepted.length > 0) after = (yield* library.apply(learned.accepted, note)).snapshot
      }
      const ops: OperationCounts = learned?.operations ?? { add: 0, modify: 0, delete: 0, none: 0, skipped: 0, invalid: 0 }
      const row: EpochRow = {
        kind: "epoch",
        epoch,
        successRate: episodes === 0 ? 0 : successes / episodes,
        meanReward: episodes === 0 ? 0 : returns / episodes,
        episodes,
        failures,
        groups: epochTasks.length,
        groupsWithSignal: learned?.groupsWithSignal ?? groups.filter((g) => hasSignal(g.trajectories)).length,
        advantages: learned?.advantages.length ?? 0,
        operations: ops,
        parseFailures: learned?.parseFailures ?? 0,
        learnFailures: learned?.learnFailures ?? 0,
        libraryVersion: after.version,
        librarySize: after.experiences.length,
        inputTokens,
        outputTokens,
        wallSeconds: (performance.now() - started) / 1000
      }
      epochs.push(row)
      hooks.onEpoch?.(row)
      if (o.evalTasks !== undefined && o.evalTasks.length > 0) {
        const evalPolicy: LlmPolicy.Config = {
          ...policy,
          experiences: [policy.experiences, ExperienceLibrary.render(after)].filter((s) => s.length > 0).join("\n\n"),
          temperature: o.evalTemperature
        }
        const ev = yield* LlmRollout.evaluate(envs, evalPolicy, o.evalTasks, { maxSteps: o.maxSteps, invalidActionPenalty: o.invalidActionPenalty, concurrency: o.concurrency, seed: o.seed })
        const evRow = { ...ev.row, epoch }
        evaluations.push(evRow)
        hooks.onEvaluation?.(evRow)
      }
    }
    return { epochs, evaluations, library: yield* library.current }
  })

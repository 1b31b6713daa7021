/**
 * Regression-gated releases in the style of AgentDevel: a candidate agent (a new prompt, experience library, insight
 * set or skill set) replaces the baseline only if, on a held-out task set, it fixes more tasks than it breaks. The
 * decision comes with the flipped tasks listed, so a reviewer sees exactly what changed.
 *
 * **Details**
 * - A task *passes* for an agent when its success rate over the task's episodes is at least `passThreshold`
 *   (default 0.5: with one episode per task, success; with several, a majority, ties passing).
 * - `fixed`: tasks failing under the baseline and passing under the candidate; `broken`: the reverse. The candidate
 *   is accepted iff `fixed.length − broken.length ≥ margin` (default 1, i.e. strictly more fixes than breaks; a
 *   stricter gate raises it). `maxBroken` (default unlimited) additionally rejects a candidate breaking more tasks.
 * - {@link compare} works on results the caller already has (any agent: LLM policies through `@autodidact/llm`'s
 *   `ReleaseGate.gate`, which runs two LLM policy configurations and compares; configurations of an archive search in
 *   `@autodidact/search`).
 * - Both result sets must cover the same task ids ({@link TaskSetMismatchError} otherwise).
 *
 * @example
 * ```ts
 * import { ReleaseGate } from "@autodidact/optim"
 * import { Effect } from "effect"
 * const decision = Effect.runSync(ReleaseGate.compare(
 *   [{ taskId: "a", success: true }, { taskId: "b", success: false }, { taskId: "c", success: false }],
 *   [{ taskId: "a", success: true }, { taskId: "b", success: true }, { taskId: "c", success: false }]
 * ))
 * decision.accepted // true; decision.fixed = ["b"], decision.broken = []
 * ```
 * @see Di Zhang, "AgentDevel: Reframing Self-Evolving LLM Agents as Release Engineering", arXiv:2601.04620 (flip-centered gating)
 * @since 0.1.0
 */
import { InvalidOptionError } from "@autodidact/core"
import { Effect, Schema } from "effect"
import type * as GroupRollout from "./text/GroupRollout.js"

/** The outcome of one episode of a task. */
export interface TaskResult {
  readonly taskId: string
  readonly success: boolean
}

/** Gate options. */
export interface Options {
  /** Required `fixed − broken`. Default 1. */
  readonly margin: number
  /** Reject when more tasks break than this. Default Infinity. */
  readonly maxBroken: number
  /** Success rate at which a task passes. Default 0.5. */
  readonly passThreshold: number
}

/** Defaults. */
export const defaults: Options = { margin: 1, maxBroken: Number.POSITIVE_INFINITY, passThreshold: 0.5 }

/** The gate's verdict. */
export interface Decision {
  readonly accepted: boolean
  /** Task ids failing before, passing with the candidate (sorted). */
  readonly fixed: ReadonlyArray<string>
  /** Task ids passing before, failing with the candidate (sorted). */
  readonly broken: ReadonlyArray<string>
  readonly stillPassing: number
  readonly stillFailing: number
  readonly tasks: number
  readonly baselinePassRate: number
  readonly candidatePassRate: number
  /** Why, in words. */
  readonly reason: string
}

/**
 * The baseline and candidate results cover different tasks.
 * @category errors
 */
export class TaskSetMismatchError extends Schema.TaggedError<TaskSetMismatchError>()("TaskSetMismatchError", {
  onlyInBaseline: Schema.Array(Schema.String),
  onlyInCandidate: Schema.Array(Schema.String)
}) {
  override get message() {
    return `baseline and candidate cover different tasks: only in baseline [${this.onlyInBaseline.join(", ")}], only in candidate [${this.onlyInCandidate.join(", ")}]`
  }
}

const validate = (o: Options): Effect.Effect<Options, InvalidOptionError> => {
  if (!Number.isInteger(o.margin)) return Effect.fail(new InvalidOptionError({ option: "margin", value: o.margin, reason: "must be an integer" }))
  if (!(o.maxBroken >= 0)) return Effect.fail(new InvalidOptionError({ option: "maxBroken", value: o.maxBroken, reason: "must be ≥ 0" }))
  if (!(o.passThreshold > 0 && o.passThreshold <= 1)) {
    return Effect.fail(new InvalidOptionError({ option: "passThreshold", value: o.passThreshold, reason: "must be in (0, 1]" }))
  }
  return Effect.succeed(o)
}

const passes = (results: ReadonlyArray<TaskResult>, threshold: number): Map<string, boolean> => {
  const counts = new Map<string, [number, number]>()
  for (const r of results) {
    const c = counts.get(r.taskId) ?? [0, 0]
    c[0] += r.success ? 1 : 0
    c[1] += 1
    counts.set(r.taskId, c)
  }
  const out = new Map<string, boolean>()
  for (const [id, [s, n]] of counts) out.set(id, s / n >= threshold)
  return out
}

/**
 * Compare per-episode results of a baseline and a candidate on the same tasks and decide (see the module docs): a
 * task passes when its success rate is ≥ `passThreshold`; the candidate is accepted iff `fixed − broken ≥ margin`
 * and `broken ≤ maxBroken`. Returns the {@link Decision} with the sorted `fixed` and `broken` task ids and both pass
 * rates (in [0, 1]). Fails with {@link TaskSetMismatchError} when the two result sets cover different task ids,
 * `InvalidOptionError` for a bad option.
 * @since 0.1.0
 */
export const compare = (
  baseline: ReadonlyArray<TaskResult>,
  candidate: ReadonlyArray<TaskResult>,
  options: Partial<Options> = {}
): Effect.Effect<Decision, TaskSetMismatchError | InvalidOptionError> =>
  Effect.gen(function* () {
    const o = yield* validate({ ...defaults, ...options })
    const b = passes(baseline, o.passThreshold)
    const c = passes(candidate, o.passThreshold)
    const onlyInBaseline = [...b.keys()].filter((k) => !c.has(k)).sort()
    const onlyInCandidate = [...c.keys()].filter((k) => !b.has(k)).sort()
    if (onlyInBaseline.length > 0 || onlyInCandidate.length > 0) return yield* new TaskSetMismatchError({ onlyInBaseline, onlyInCandidate })
    if (b.size === 0) return yield* new InvalidOptionError({ option: "tasks", value: 0, reason: "no task results to compare" })
    const fixed: Array<string> = []
    const broken: Array<string> = []
    let stillPassing = 0
    let stillFailing = 0
    let basePass = 0
    let candPass = 0
    for (const [id, before] of b) {
      const after = c.get(id)!
      if (before) basePass++
      if (after) candPass++
      if (!before && after) fixed.push(id)
      else if (before && !after) broken.push(id)
      else if (before) stillPassing++
      else stillFailing++
    }
    fixed.sort()
    broken.sort()
    const net = fixed.length - broken.length
    const accepted = net >= o.margin && broken.length <= o.maxBroken
    const reason = accepted
      ? `accepted: ${fixed.length} fixed, ${broken.length} broken (net ${net} ≥ margin ${o.margin})`
      : broken.length > o.maxBroken
      ? `rejected: ${broken.length} broken > maxBroken ${o.maxBroken}`
      : `rejected: ${fixed.length} fixed, ${broken.length} broken (net ${net} < margin ${o.margin})`
    return {
      accepted,
      fixed,
      broken,
      stillPassing,
      stillFailing,
      tasks: b.size,
      baselinePassRate: basePass / b.size,
      candidatePassRate: candPass / b.size,
      reason
    }
  })

/** The default task id: the seed, plus the reset options as JSON when there are any. */
export const taskIdOf = (task: GroupRollout.Task): string =>
  task.options === undefined ? String(task.seed) : `${task.seed}:${JSON.stringify(task.options)}`

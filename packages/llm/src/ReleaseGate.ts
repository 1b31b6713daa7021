/**
 * Regression-gated releases of LLM agents (AgentDevel): {@link gate} runs a baseline and a candidate LLM policy
 * configuration on held-out tasks and decides with `@autodidact/optim`'s `ReleaseGate.compare` (the one home of the
 * flip-centred rule: accept iff the candidate fixes more tasks than it breaks), re-exported here with its types.
 * @see Di Zhang, "AgentDevel: Reframing Self-Evolving LLM Agents as Release Engineering", arXiv:2601.04620 (flip-centered gating)
 * @since 0.1.0
 */
import { InvalidOptionError } from "@autodidact/core"
import { ReleaseGate } from "@autodidact/optim"
import type { GroupRollout } from "@autodidact/optim"
import { Effect } from "effect"
import type { LanguageModel } from "effect/ai"
import type * as LlmPolicy from "./LlmPolicy.js"
import * as LlmRollout from "./LlmRollout.js"

export type TaskResult = ReleaseGate.TaskResult
export type Options = ReleaseGate.Options
export type Decision = ReleaseGate.Decision
export const defaults = ReleaseGate.defaults
export const TaskSetMismatchError = ReleaseGate.TaskSetMismatchError
export type TaskSetMismatchError = ReleaseGate.TaskSetMismatchError
export const compare = ReleaseGate.compare
export const taskIdOf = ReleaseGate.taskIdOf

/** Options of {@link gate}. */
export interface GateOptions extends Partial<Options> {
  /** Episodes per task for each agent. Default 1. */
  readonly episodesPerTask?: number | undefined
  readonly maxSteps?: number | undefined
  readonly seed?: number | undefined
  readonly taskId?: ((task: GroupRollout.Task) => string) | undefined
}

/** What {@link gate} returns. */
export interface GateResult extends Decision {
  readonly baseline: LlmRollout.EvaluationRow
  readonly candidate: LlmRollout.EvaluationRow
}

/**
 * Evaluate `baseline` and `candidate` policies on the held-out `tasks` (same seeds) and {@link compare}.
 *
 * Both run through `LlmRollout.evaluate` with the same rollout options, so the only difference is the policy
 * (instruction, experiences, insights). Task ids come from `options.taskId` (default {@link taskIdOf}: the seed, plus
 * the reset options as JSON). Returns the {@link Decision} with both evaluations' rows. Fails with
 * `InvalidOptionError` for a bad option and {@link TaskSetMismatchError} if the task ids of the two runs differ
 * (e.g. duplicate ids); model and env failures count as failed episodes.
 * @see Di Zhang, "AgentDevel: Reframing Self-Evolving LLM Agents as Release Engineering", arXiv:2601.04620
 * @since 0.1.0
 */
export const gate = (
  envs: ReadonlyArray<GroupRollout.TextEnv>,
  tasks: ReadonlyArray<GroupRollout.Task>,
  baseline: LlmPolicy.Config,
  candidate: LlmPolicy.Config,
  options: GateOptions = {}
): Effect.Effect<GateResult, TaskSetMismatchError | InvalidOptionError, LanguageModel.LanguageModel> =>
  Effect.gen(function* () {
    const id = options.taskId ?? taskIdOf
    const ids = tasks.map(id)
    if (new Set(ids).size !== ids.length) return yield* new InvalidOptionError({ option: "tasks", value: ids, reason: "task ids must be distinct" })
    const ev = { groupSize: options.episodesPerTask ?? 1, ...(options.maxSteps === undefined ? {} : { maxSteps: options.maxSteps }), seed: options.seed ?? 0 }
    const results = (r: LlmRollout.EvaluationResult): Array<TaskResult> =>
      r.groups.flatMap((g, k) => [
        ...g.trajectories.map((t) => ({ taskId: ids[k]!, success: t.success })),
        ...g.failures.map(() => ({ taskId: ids[k]!, success: false }))
      ])
    const b = yield* LlmRollout.evaluate(envs, baseline, tasks, ev)
    const c = yield* LlmRollout.evaluate(envs, candidate, tasks, ev)
    const decision = yield* compare(results(b), results(c), options)
    return { ...decision, baseline: b.row, candidate: c.row }
  })

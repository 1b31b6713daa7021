/**
 * A reflective prompt optimizer in the style of GEPA (Agrawal et al. 2025): the candidates are instruction texts for
 * the {@link LlmPolicy}; new candidates come from an LLM reflecting on the failed trajectories of a parent; a Pareto
 * front over tasks decides which candidates get to be parents; the search is budgeted in rollouts.
 *
 * The loop (the paper's Algorithm 1 for a single-module system, with Algorithm 2's candidate selection):
 * 1. Evaluate the seed instruction on the Pareto tasks (`paretoTasks`): a score per task (success rate over
 *    `episodesPerTask` episodes).
 * 2. Until `budget` rollouts are spent: select a parent from the Pareto front — the candidates that are best on at
 *    least one Pareto task, minus the ones dominated by another candidate, sampled with probability proportional to
 *    the number of tasks they are best on; draw a minibatch of `minibatchSize` feedback tasks (`trainTasks`, in
 *    shuffled passes); run the parent on it; if every episode succeeded there is nothing to reflect on and the
 *    iteration ends; otherwise the LLM reads the parent's instruction and the minibatch trajectories (failed ones
 *    first) and proposes an edited instruction (`prompts.reflect`); the child runs on the same minibatch and is kept
 *    only if its summed score is higher (then it is scored on the Pareto tasks).
 * 3. Return the candidate with the best mean Pareto score (ties: the earlier one).
 *
 * Rows: `onIteration` after each iteration (parent, minibatch scores, acceptance, the front, the best score, rollouts
 * used). Rollout failures count as unsuccessful episodes; a failed reflection call ends that iteration (counted).
 *
 * @example
 * ```ts
 * import { Gepa, LlmPolicy } from "@autodidact/llm"
 * const program = Gepa.optimize(envs, { trainTasks, paretoTasks }, LlmPolicy.config({ instruction: "Solve the task." }), {
 *   budget: 200, minibatchSize: 3
 * }, { onIteration: (row) => console.log(row.bestScore, row.accepted) })
 * ```
 * @see Agrawal et al., "GEPA: Reflective Prompt Evolution Can Outperform Reinforcement Learning", arXiv:2507.19457
 * @since 0.1.0
 */
import { InvalidOptionError, Rng } from "@autodidact/core"
import { Effect } from "effect"
import type { LanguageModel } from "effect/ai"
import type { GroupRollout } from "@autodidact/optim"
import * as LlmPolicy from "./LlmPolicy.js"
import * as LlmRollout from "./LlmRollout.js"

/** A candidate instruction with its Pareto scores. */
export interface Candidate {
  readonly index: number
  readonly instruction: string
  /** Index of the parent candidate (undefined for the seed). */
  readonly parent: number | undefined
  /** Score per Pareto task, in task order. */
  readonly scores: ReadonlyArray<number>
  readonly meanScore: number
}

/** Prompt templates. */
export interface Prompts {
  readonly reflect: (p: { readonly instruction: string; readonly trajectories: ReadonlyArray<string> }) => string
}

/** The default reflection prompt (after the paper's meta prompt). */
export const defaultPrompts: Prompts = {
  reflect: ({ instruction, trajectories }) =>
    [
      "An agent follows the instruction below to solve tasks in a text environment.",
      `Current instruction:\n${instruction}`,
      `Here are trajectories of the agent with this instruction, with their outcomes:\n\n${trajectories.join("\n\n---\n\n")}`,
      "Read them carefully. Identify why the failed attempts failed and what the successful ones did right, including any general strategy or domain fact the agent was missing. Then write an improved instruction that keeps what works and fixes the failures.",
      "Answer with the complete new instruction after a line 'New instruction:'."
    ].join("\n\n")
}

/** Options. */
export interface Options {
  /** Rollouts (episodes) to spend, the seed's Pareto evaluation included. Default 200. */
  readonly budget: number
  /** Feedback tasks per iteration. Default 3. */
  readonly minibatchSize: number
  /** Episodes per task for every score. Default 1. */
  readonly episodesPerTask: number
  readonly maxSteps: number
  /** Temperature of the policy's rollouts. Default the policy's. */
  readonly rolloutTemperature?: number | undefined
  /** Temperature of the reflection call. Default 0.7. */
  readonly reflectTemperature: number
  /** Trajectories shown to the reflection (failed first). Default 4. */
  readonly maxTrajectories: number
  readonly seed: number
  readonly prompts: Prompts
}

/** Defaults. */
export const defaults: Options = {
  budget: 200,
  minibatchSize: 3,
  episodesPerTask: 1,
  maxSteps: 50,
  reflectTemperature: 0.7,
  maxTrajectories: 4,
  seed: 1,
  prompts: defaultPrompts
}

/** One iteration. */
export interface IterationRow {
  readonly kind: "iteration"
  readonly iteration: number
  readonly parent: number
  readonly parentMinibatchScore: number
  /** Undefined when there was no child (perfect minibatch, failed or empty reflection). */
  readonly childMinibatchScore: number | undefined
  readonly accepted: boolean
  readonly candidates: number
  /** Candidate indices on the Pareto front. */
  readonly front: ReadonlyArray<number>
  readonly bestIndex: number
  readonly bestScore: number
  readonly rolloutsUsed: number
  readonly wallSeconds: number
}

/** Callbacks. */
export interface Hooks {
  readonly onIteration?: ((row: IterationRow) => void) | undefined
}

/** What {@link optimize} returns. */
export interface Result {
  readonly best: Candidate
  readonly candidates: ReadonlyArray<Candidate>
  readonly front: ReadonlyArray<number>
  readonly rolloutsUsed: number
  readonly iterations: number
  readonly reflectionFailures: number
}

/**
 * The Pareto front of Algorithm 2: candidates best (within 1e-12) on at least one task, without those dominated by
 * another front member (≥ on every task, > on one); with, per candidate, the number of tasks it is best on.
 */
export const paretoFront = (scores: ReadonlyArray<ReadonlyArray<number>>): Array<{ readonly index: number; readonly wins: number }> => {
  if (scores.length === 0) return []
  const tasks = scores[0]!.length
  const wins = new Array<number>(scores.length).fill(0)
  for (let t = 0; t < tasks; t++) {
    let best = Number.NEGATIVE_INFINITY
    for (const s of scores) best = Math.max(best, s[t]!)
    scores.forEach((s, i) => {
      if (s[t]! >= best - 1e-12) wins[i]!++
    })
  }
  const members = scores.map((_, i) => i).filter((i) => wins[i]! > 0 || tasks === 0)
  const dominated = (i: number) =>
    members.some((j) => {
      if (j === i) return false
      let strictly = false
      for (let t = 0; t < tasks; t++) {
        if (scores[j]![t]! < scores[i]![t]!) return false
        if (scores[j]![t]! > scores[i]![t]!) strictly = true
      }
      // of identical candidates keep the earliest
      return strictly || j < i
    })
  return members.filter((i) => !dominated(i)).map((index) => ({ index, wins: Math.max(1, wins[index]!) }))
}

const validate = (o: Options): Effect.Effect<Options, InvalidOptionError> => {
  const int = (option: string, v: number, min: number) =>
    Number.isInteger(v) && v >= min ? undefined : new InvalidOptionError({ option, value: v, reason: `must be an integer ≥ ${min}` })
  const e = int("budget", o.budget, 1) ?? int("minibatchSize", o.minibatchSize, 1) ?? int("episodesPerTask", o.episodesPerTask, 1) ??
    int("maxSteps", o.maxSteps, 1) ?? int("maxTrajectories", o.maxTrajectories, 1)
  return e === undefined ? Effect.succeed(o) : Effect.fail(e)
}

/**
 * Extract the instruction from a reflection answer: the text after the first "New instruction:" (any case; the whole
 * answer when there is none), code fences and surrounding white space removed; `""` when nothing is left (GEPA then
 * proposes no child).
 */
export const parseInstruction = (text: string): string => {
  const i = text.search(/new instruction\s*:/i)
  let body = i >= 0 ? text.slice(i).replace(/^new instruction\s*:/i, "") : text
  body = body.replace(/^\s*```[a-z]*\s*\n?/i, "").replace(/\n?```\s*$/, "")
  return body.trim()
}

/**
 * Run GEPA: evolve the policy's instruction by LLM reflection on failed trajectories, keeping a Pareto front of
 * candidates over `paretoTasks`, until `budget` rollouts are spent (see the module docs for the loop).
 *
 * **Inputs**: `envs` (≥ 1 text env; episodes run on them in turn), `trainTasks` (≥ 1, the feedback minibatches are
 * drawn from them in shuffled passes) and `paretoTasks` (≥ 1, every kept candidate is scored on all of them, one
 * score per task: the success rate over `episodesPerTask` episodes, in [0, 1]), the seed `policy` (its `instruction`
 * is candidate 0).
 *
 * **Returns** {@link Result}: `candidates` in creation order (index, instruction, parent index, `scores[t]` per Pareto
 * task, `meanScore`), `best` (highest mean Pareto score, the earlier on ties), `front` (candidate indices on the
 * Pareto front, {@link paretoFront}), `rolloutsUsed` (episodes; every run starts only if it fits in `budget`, so this
 * is ≤ `budget` unless the seed's own Pareto evaluation exceeds it), `iterations`, `reflectionFailures`. `onIteration` gets one {@link IterationRow} per iteration.
 *
 * **Errors**: `InvalidOptionError` for a non-integer or non-positive `budget`, `minibatchSize`, `episodesPerTask`,
 * `maxSteps` or `maxTrajectories`, or an empty task list. Model and env failures are not errors: a failed rollout
 * counts as an unsuccessful episode and a failed reflection call ends its iteration (`reflectionFailures`).
 *
 * @see Agrawal et al., "GEPA: Reflective Prompt Evolution Can Outperform Reinforcement Learning", arXiv:2507.19457
 *   (Algorithm 1 and the Pareto-based candidate selection of Algorithm 2)
 * @since 0.1.0
 */
export const optimize = (
  envs: ReadonlyArray<GroupRollout.TextEnv>,
  tasks: { readonly trainTasks: ReadonlyArray<GroupRollout.Task>; readonly paretoTasks: ReadonlyArray<GroupRollout.Task> },
  policy: LlmPolicy.Config,
  options: Partial<Options> = {},
  hooks: Hooks = {}
): Effect.Effect<Result, InvalidOptionError, LanguageModel.LanguageModel> =>
  Effect.gen(function* () {
    const o = yield* validate({ ...defaults, ...options, prompts: { ...defaultPrompts, ...options.prompts } })
    if (tasks.trainTasks.length === 0) return yield* new InvalidOptionError({ option: "trainTasks", value: 0, reason: "need at least one feedback task" })
    if (tasks.paretoTasks.length === 0) return yield* new InvalidOptionError({ option: "paretoTasks", value: 0, reason: "need at least one Pareto task" })
    const root = Rng.make(o.seed)
    const [selectRng, batchRng] = root.spawn(2) as [Rng, Rng]
    const started = performance.now()
    let rolloutsUsed = 0
    let evalSeed = 0
    const policyFor = (instruction: string): LlmPolicy.Config => ({
      ...policy,
      instruction,
      ...(o.rolloutTemperature === undefined ? {} : { temperature: o.rolloutTemperature })
    })
    const run = (instruction: string, ts: ReadonlyArray<GroupRollout.Task>) =>
      Effect.map(
        LlmRollout.evaluate(envs, policyFor(instruction), ts, { groupSize: o.episodesPerTask, maxSteps: o.maxSteps, seed: o.seed * 7919 + evalSeed++ }),
        (r) => {
          rolloutsUsed += r.row.episodes
          return r
        }
      )
    const candidates: Array<Candidate> = []
    const addCandidate = (instruction: string, parent: number | undefined) =>
      Effect.gen(function* () {
        const r = yield* run(instruction, tasks.paretoTasks)
        const scores = r.taskSuccess
        const c: Candidate = { index: candidates.length, instruction, parent, scores, meanScore: scores.reduce((a, b) => a + b, 0) / scores.length }
        candidates.push(c)
        return c
      })
    yield* addCandidate(policy.instruction, undefined)
    const best = () => candidates.reduce((a, b) => (b.meanScore > a.meanScore ? b : a))
    // minibatches: shuffled passes over the feedback tasks
    let order: Array<GroupRollout.Task> = []
    const nextBatch = () => {
      const batch: Array<GroupRollout.Task> = []
      while (batch.length < Math.min(o.minibatchSize, tasks.trainTasks.length)) {
        if (order.length === 0) {
          order = batchRng.shuffle(tasks.trainTasks.slice())
        }
        batch.push(order.pop()!)
      }
      return batch
    }
    const reflectCall = { retries: policy.retries, baseDelayMs: policy.baseDelayMs, maxDelayMs: policy.maxDelayMs, temperature: o.reflectTemperature, sampling: policy.sampling, purpose: "reflect" }
    let iterations = 0
    let reflectionFailures = 0
    const episodesPerIteration = Math.min(o.minibatchSize, tasks.trainTasks.length) * o.episodesPerTask
    while (rolloutsUsed + episodesPerIteration <= o.budget) {
      const front = paretoFront(candidates.map((c) => c.scores))
      const total = front.reduce((a, f) => a + f.wins, 0)
      let u = selectRng.random() * total
      let parentIndex = front[front.length - 1]!.index
      for (const f of front) {
        u -= f.wins
        if (u < 0) {
          parentIndex = f.index
          break
        }
      }
      const parent = candidates[parentIndex]!
      const batch = nextBatch()
      const before = yield* run(parent.instruction, batch)
      const parentScore = before.taskSuccess.reduce((a, b) => a + b, 0)
      let childScore: number | undefined
      let accepted = false
      const perfect = before.groups.every((g) => g.failures.length === 0 && g.trajectories.every((t) => t.success))
      if (!perfect) {
        const trs = before.groups.flatMap((g) => g.trajectories)
        const shown = [...trs.filter((t) => !t.success), ...trs.filter((t) => t.success)].slice(0, o.maxTrajectories)
        const answer = yield* Effect.result(
          LlmPolicy.generate(o.prompts.reflect({ instruction: parent.instruction, trajectories: shown.map((t) => LlmRollout.renderTrajectory(t)) }), reflectCall)
        )
        if (answer._tag === "Failure") reflectionFailures++
        else {
          const instruction = parseInstruction(answer.success.text)
          if (instruction.length > 0 && instruction !== parent.instruction && rolloutsUsed + episodesPerIteration <= o.budget) {
            const after = yield* run(instruction, batch)
            childScore = after.taskSuccess.reduce((a, b) => a + b, 0)
            if (childScore > parentScore && rolloutsUsed + tasks.paretoTasks.length * o.episodesPerTask <= o.budget) {
              yield* addCandidate(instruction, parentIndex)
              accepted = true
            }
          }
        }
      }
      const b = best()
      hooks.onIteration?.({
        kind: "iteration",
        iteration: iterations,
        parent: parentIndex,
        parentMinibatchScore: parentScore,
        childMinibatchScore: childScore,
        accepted,
        candidates: candidates.length,
        front: paretoFront(candidates.map((c) => c.scores)).map((f) => f.index),
        bestIndex: b.index,
        bestScore: b.meanScore,
        rolloutsUsed,
        wallSeconds: (performance.now() - started) / 1000
      })
      iterations++
    }
    return {
      best: best(),
      candidates,
      front: paretoFront(candidates.map((c) => c.scores)).map((f) => f.index),
      rolloutsUsed,
      iterations,
      reflectionFailures
    }
  })

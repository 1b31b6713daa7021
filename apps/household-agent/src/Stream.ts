/**
 * The task stream of the household agent: `TextHousehold-v0` tasks in order, seen families first, then unseen
 * layouts, unseen families and re-visits of seen tasks (the Evo-Memory protocol: a dataset as a sequential stream,
 * Wei et al., "Evo-Memory: Benchmarking LLM Agent Test-time Learning with Self-Evolving Memory", arXiv:2511.20857).
 *
 * - Seen phase (while fewer than `seenSteps` env steps were taken): a family among {@link SEEN_FAMILIES}, uniformly,
 *   on the `train` split (seen layouts and goal pairs), a fresh seed.
 * - Unseen phase: one of three, uniformly: an `unseen-layout` task (a seen family on the `unseen` split: layouts and
 *   goal pairs never seen in training), an `unseen-family` task (one of {@link UNSEEN_FAMILIES}, `train` split), or a
 *   `revisit` of a seen-phase task (the same family, split and seed: the same task), to measure forgetting.
 * - A `--stream FILE` gives the tasks instead: JSON lines `{ "family", "split", "seed", "novelty"? }` played in order;
 *   the run stops when they run out.
 *
 * Everything is drawn from a core `Rng` seeded by the run's seed, so a seed gives the same stream for the same steps.
 * @since 0.0.0
 */
import { InvalidOptionError, Rng } from "@autodidact/core"
import { TextHouseholdWorld } from "@autodidact/envs"
import { GroupRollout, MultiTurnTrainer } from "@autodidact/optim"
import * as fs from "node:fs"

/** ALFWorld task families the agent meets in the seen phase. */
export const SEEN_FAMILIES: ReadonlyArray<TextHouseholdWorld.TaskType> = TextHouseholdWorld.TASK_TYPES.slice(0, 4)
/** Families held out until the unseen phase. */
export const UNSEEN_FAMILIES: ReadonlyArray<TextHouseholdWorld.TaskType> = TextHouseholdWorld.TASK_TYPES.slice(4)

/** What is new about a task when it comes. */
export type Novelty = "seen" | "unseen-layout" | "unseen-family"

/** One task of the stream. */
export interface StreamTask {
  /** Position in the stream, from 0. */
  readonly index: number
  readonly family: TextHouseholdWorld.TaskType
  readonly split: "train" | "unseen"
  readonly seed: number
  readonly novelty: Novelty
  /** A re-visit of an earlier task (same family, split and seed). */
  readonly revisit: boolean
  /** `family|split|seed`: equal keys are the same task. */
  readonly key: string
}

/**
 * The task label of a stream task's transcript in `trajectories/stream.jsonl`: the env's task text, then
 * `[stream <index>, <novelty>(, revisit)(, attempt <k>/<n>)]` (attempt: 1-based, among the task's group).
 */
export const transcriptTask = (text: string, t: StreamTask, attempt?: { readonly k: number; readonly n: number }): string =>
  `${text} [stream ${t.index}, ${t.novelty}${t.revisit ? ", revisit" : ""}${attempt === undefined ? "" : `, attempt ${attempt.k}/${attempt.n}`}]`

/** The env task of a stream task (`reset({ seed, options: { split, taskTypes: [family] } })`). */
export const envTask = (t: StreamTask): GroupRollout.Task => ({ seed: t.seed, options: { split: t.split, taskTypes: [t.family] } })

const keyOf = (family: string, split: string, seed: number) => `${family}|${split}|${seed}`

/** A stream: `next(stepsSoFar)` gives the next task, or undefined when a file stream has run out. */
export interface TaskStream {
  readonly next: (stepsSoFar: number) => StreamTask | undefined
  /** What the config records. */
  readonly description: Record<string, unknown>
}

/**
 * The seeded generator: seen phase until `seenSteps` env steps, then the unseen phase (see the module docs).
 * @throws InvalidOptionError for a negative or non-finite `seenSteps`.
 */
export const generator = (seed: number, seenSteps: number): TaskStream => {
  if (!Number.isFinite(seenSteps) || seenSteps < 0) throw new InvalidOptionError({ option: "seenSteps", value: seenSteps, reason: "must be a finite number ≥ 0" })
  const rng = Rng.make([seed, 0x57e4])
  const seen: Array<StreamTask> = []
  let index = 0
  const fresh = (family: TextHouseholdWorld.TaskType, split: "train" | "unseen", novelty: Novelty): StreamTask => {
    const s = rng.integers(1_000_000)
    return { index: index++, family, split, seed: s, novelty, revisit: false, key: keyOf(family, split, s) }
  }
  return {
    description: { kind: "generator", seed, seenSteps, seenFamilies: SEEN_FAMILIES, unseenFamilies: UNSEEN_FAMILIES },
    next: (stepsSoFar) => {
      if (stepsSoFar < seenSteps || seen.length === 0) {
        const t = fresh(SEEN_FAMILIES[rng.integers(SEEN_FAMILIES.length)]!, "train", "seen")
        seen.push(t)
        return t
      }
      const kind = rng.integers(3)
      if (kind === 0) return fresh(SEEN_FAMILIES[rng.integers(SEEN_FAMILIES.length)]!, "unseen", "unseen-layout")
      if (kind === 1) return fresh(UNSEEN_FAMILIES[rng.integers(UNSEEN_FAMILIES.length)]!, "train", "unseen-family")
      const old = seen[rng.integers(seen.length)]!
      return { ...old, index: index++, revisit: true }
    }
  }
}

/**
 * A stream read from a JSON-lines file of `{ family, split, seed, novelty? }` (novelty defaults to `unseen-family` for
 * a family outside {@link SEEN_FAMILIES}, `unseen-layout` for the `unseen` split, else `seen`); a key met before is a
 * re-visit. Fails with InvalidOptionError naming the file and line of a malformed entry.
 */
export const fromFile = (file: string): TaskStream => {
  let text: string
  try {
    text = fs.readFileSync(file, "utf8")
  } catch (e) {
    throw new InvalidOptionError({ option: "stream", value: file, reason: `cannot read: ${String(e)}` })
  }
  const tasks: Array<StreamTask> = []
  const keys = new Set<string>()
  text.split("\n").forEach((line, i) => {
    if (line.trim().length === 0) return
    const bad = (reason: string) => new InvalidOptionError({ option: "stream", value: `${file}:${i + 1}`, reason })
    let row: Record<string, unknown>
    try {
      row = JSON.parse(line) as Record<string, unknown>
    } catch {
      throw bad("not JSON")
    }
    const family = row["family"]
    if (!(TextHouseholdWorld.TASK_TYPES as ReadonlyArray<unknown>).includes(family)) throw bad(`family must be one of ${TextHouseholdWorld.TASK_TYPES.join(", ")}, got ${JSON.stringify(family)}`)
    const split = row["split"] ?? "train"
    if (split !== "train" && split !== "unseen") throw bad(`split must be "train" or "unseen", got ${JSON.stringify(split)}`)
    const seed = row["seed"]
    if (typeof seed !== "number" || !Number.isSafeInteger(seed) || seed < 0) throw bad(`seed must be a non-negative integer, got ${JSON.stringify(seed)}`)
    const f = family as TextHouseholdWorld.TaskType
    const novelty = row["novelty"] ?? (!SEEN_FAMILIES.includes(f) ? "unseen-family" : split === "unseen" ? "unseen-layout" : "seen")
    if (novelty !== "seen" && novelty !== "unseen-layout" && novelty !== "unseen-family") throw bad(`novelty must be seen, unseen-layout or unseen-family, got ${JSON.stringify(novelty)}`)
    const key = keyOf(f, split, seed)
    tasks.push({ index: tasks.length, family: f, split, seed, novelty, revisit: keys.has(key), key })
    keys.add(key)
  })
  if (tasks.length === 0) throw new InvalidOptionError({ option: "stream", value: file, reason: "holds no task" })
  let at = 0
  return { description: { kind: "file", file, tasks: tasks.length }, next: () => tasks[at++] }
}

/**
 * The forward-transfer baseline of `st` (Evo-Memory's comparison with a learner that has seen nothing): a random
 * policy's success on it in one episode of at most `maxSteps` steps on `env`, for a first encounter of an unseen task;
 * `undefined` for seen tasks and re-visits. Success in [0, 1].
 */
export const randomBaseline = (env: GroupRollout.TextEnv, st: StreamTask, rng: Rng, maxSteps: number): number | undefined =>
  st.novelty !== "seen" && !st.revisit
    ? MultiTurnTrainer.evaluate([env], GroupRollout.randomPolicy, () => envTask(st), 1, rng, { maxSteps }).successRate
    : undefined

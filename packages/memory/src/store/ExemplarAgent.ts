/**
 * A memory-driven text agent with no language model: Synapse-style trajectory-exemplar replay over the
 * {@link ExperienceStore}, for ALFWorld-style household tasks (`TextHousehold-v0`) and any text env with the same
 * command grammar. It shows what memory alone buys in an Evo-Memory-style stream: the agent writes every finished
 * episode to the store and, on each new task, retrieves the most similar successful trajectory and follows it.
 *
 * **When to use**: a memory baseline for a stream of tasks (does retrieval help, how fast does success grow with
 * experience), or a cheap exemplar policy in front of an LLM agent.
 *
 * **Details**
 * - Roles: the task's content words (`"put a hot apple in fridge."` → `apple`, `fridge`) are the roles `{0}`,
 *   `{1}`; {@link abstractTask} gives the task template (`"put a hot {0} in {1}."`) and {@link abstractAction}
 *   maps a command to its role form (`"heat apple 1 with microwave 1"` → `"heat {0} with microwave"`,
 *   `"take apple 2 from countertop 1"` → `"take {0} from countertop"`): instance numbers dropped, task entities
 *   replaced by their role. So a trajectory of one task is a plan for every task of the same template.
 * - Memory: each finished episode is stored as a `trajectory` record (`Records.trajectory`) whose `text` is the
 *   task template, `task` the concrete task, outcome success/failure. Retrieval is `store.exemplars({ text:
 *   template, k })` (successful trajectories by cosine similarity of the template embedding, Zheng et al.,
 *   "Synapse", arXiv:2306.07863); of the hits with similarity >= `minSimilarity` the shortest plan wins.
 * - Plan: the exemplar's *key* commands (`take`, `move`, `heat`, `cool`, `clean`, `use`, `slice`, `toggle`) that
 *   mention a role, in role form ({@link planOf}); navigation and search are re-derived in the new layout.
 * - Following a plan ({@link PlanFollower}): when an admissible command matches the next plan step (a `take` step
 *   matches the object from any receptacle, but never from where this episode put one), do it; otherwise open the
 *   current receptacle if it can be opened and was not, else `go to` a receptacle of the step's target type, else
 *   an unvisited receptacle (search), else explore.
 * - Exploration (no exemplar, retrieval disabled, or plan exhausted): count-based novelty over admissible commands:
 *   a uniformly random command among those tried least often this episode, skipping `look`, `inventory`,
 *   `examine` and `close` while others exist. With `memory: false` the agent is exactly this explorer.
 * - Seeded by a core {@link Rng}; deterministic for a given store content.
 *
 * **Gotchas**
 * - The env must expose `info.admissibleActions` (`TextHousehold` does on `reset` and `step`; `Registry.make`'s
 *   wrappers keep `info`) and `info.task` on reset.
 * - The planner knows the command grammar (`go to R`, `open R`, `take O from R`): memory supplies *which* key
 *   commands in *which* order; a task template never solved stays at the explorer's success rate.
 *
 * @example
 * ```ts
 * import { TextHousehold } from "@autodidact/envs"
 * const env = new TextHousehold.TextHousehold({ difficulty: "easy" })
 * const result = yield* ExemplarAgent.runEpisode(env, { seed: 0, taskIndex: 0 }, { memory: true })
 * result.success // and the episode is now in the ExperienceStore for the next task
 * ```
 * @see Zheng et al., "Synapse: Trajectory-as-Exemplar Prompting with Memory for Computer Control", arXiv:2306.07863
 * @see Wei et al., "Evo-Memory: Benchmarking LLM Agent Test-time Learning with Self-Evolving Memory", 2025
 * @see Blundell et al., "Model-Free Episodic Control", arXiv:1606.04460 (the non-parametric memory idea)
 * @category models
 * @since 0.1.0
 */
import { Rng, Trajectory } from "@autodidact/core"
import { Effect } from "effect"
import * as Records from "./Records.js"
import { ExperienceStore } from "./Store.js"
import type { StoreError } from "./StoreErrors.js"

/** The text-env surface the agent needs (`TextHousehold` and its wrapped form satisfy it). */
export interface TextTaskEnv {
  reset(options?: {
    readonly seed?: number | undefined
    readonly options?: { readonly [key: string]: unknown } | undefined
  }): { readonly observation: string; readonly info: { readonly [key: string]: unknown } }
  step(action: string): {
    readonly observation: string
    readonly reward: number
    readonly terminated: boolean
    readonly truncated: boolean
    readonly info: { readonly [key: string]: unknown }
  }
}

/** Agent options. */
export interface Options {
  /** Retrieve exemplars and store episodes (default true); false: the explorer alone, nothing stored. */
  readonly memory?: boolean | undefined
  /** Exemplars retrieved per task (default 5); the shortest plan among them is followed. */
  readonly k?: number | undefined
  /** Minimum cosine similarity of an exemplar's template to the task's (default 0.9). */
  readonly minSimilarity?: number | undefined
  /** Env id stored with the records (default "TextHousehold-v0"). */
  readonly envId?: string | undefined
  /** Store failed episodes too (default true; only successes are retrieved as exemplars). */
  readonly storeFailures?: boolean | undefined
  /** A guard for envs without a time limit: the episode is cut after this many steps (default 1000). */
  readonly maxSteps?: number | undefined
}

/** What one episode gave. */
export interface EpisodeResult {
  readonly task: string
  readonly template: string
  readonly success: boolean
  readonly length: number
  /** The plan followed (role form), empty when the agent explored. */
  readonly plan: ReadonlyArray<string>
  /** Similarity of the exemplar followed, or undefined. */
  readonly similarity: number | undefined
}

const STOP = new Set([
  "a", "an", "the", "some", "two", "put", "in", "on", "examine", "with", "look", "at", "under", "and", "it", "them",
  "find", "clean", "hot", "cool", "heat", "cold", "to", "of", "into", "onto"
])

/** The task's content words, in order: role `{i}` is word `i` (`"put a clean mug in coffeemachine."` → mug, coffeemachine). */
export const taskRoles = (task: string): ReadonlyArray<string> =>
  task.toLowerCase().replace(/[^a-z0-9 ]/g, " ").split(/\s+/).filter((w) => w.length > 0 && !STOP.has(w))

/**
 * The task template: each role word replaced by `{i}`, and the placement prepositions `on`/`into`/`onto` written
 * `in` (phrasing, not meaning): `"put a hot apple on countertop."` → `"put a hot {0} in {1}."`.
 */
export const abstractTask = (task: string, roles: ReadonlyArray<string> = taskRoles(task)): string =>
  task.toLowerCase().replace(/[a-z0-9]+/g, (w) => {
    const i = roles.indexOf(w)
    return i >= 0 ? `{${i}}` : w === "on" || w === "into" || w === "onto" ? "in" : w
  })

/**
 * A command in role form: `"<type> <n>"` entity mentions lose their number, and a type that is a role becomes
 * `{i}` (`"move apple 1 to fridge 1"` with roles apple, fridge → `"move {0} to {1}"`).
 */
export const abstractAction = (action: string, roles: ReadonlyArray<string>): string =>
  action.trim().toLowerCase().replace(/\s+/g, " ").replace(/([a-z]+) \d+/g, (_, type: string) => {
    const i = roles.indexOf(type)
    return i < 0 ? type : `{${i}}`
  })

const KEY_VERBS = new Set(["take", "move", "put", "heat", "cool", "clean", "use", "slice", "toggle"])

const verb = (a: string): string => a.slice(0, a.indexOf(" ") < 0 ? a.length : a.indexOf(" "))

const IDEMPOTENT = new Set(["heat", "cool", "clean"])

/**
 * The key commands of a trajectory's actions that mention a role, in role form, without detours: a plan for the
 * task's template. Detours removed until none is left: `move {r} to X` directly followed by `take {r} ...` (put
 * down and picked up again, X not a role), and a repeated `heat`/`cool`/`clean` (idempotent).
 */
export const planOf = (actions: ReadonlyArray<string>, roles: ReadonlyArray<string>): Array<string> => {
  let plan: Array<string> = []
  for (const a of actions) {
    const r = abstractAction(a, roles)
    if (KEY_VERBS.has(verb(r)) && r.includes("{")) plan.push(r)
  }
  for (let changed = true; changed;) {
    changed = false
    const out: Array<string> = []
    for (let i = 0; i < plan.length; i++) {
      const s = plan[i]!
      const n = plan[i + 1]
      const m = /^move (\{\d+\}) to ([a-z]+)$/.exec(s)
      if (m !== null && n !== undefined && n.startsWith(`take ${m[1]} `)) {
        i++ // skip the pair
        changed = true
        continue
      }
      if (IDEMPOTENT.has(verb(s)) && out[out.length - 1] === s) {
        changed = true
        continue
      }
      out.push(s)
    }
    plan = out
  }
  return plan
}

/** `take {0} from countertop` → `take {0}` (a take step matches the object wherever it is). */
const takeHead = (r: string): string => {
  const j = r.indexOf(" from ")
  return j < 0 ? r : r.slice(0, j)
}

/** The receptacle a command acts on (`"take mug 1 from cabinet 2"` → `cabinet 2`; `"go to fridge 1"` → `fridge 1`). */
const receptacleOf = (action: string): string | undefined => {
  const m = /(?:from|to|with|go to|open|close) ([a-z]+ \d+)$/.exec(action)
  return m?.[1]
}

/** The entity type a plan step must be next to (`"heat {0} with microwave"` → microwave; `"move {0} to {1}"` → roles[1]). */
const stepTarget = (step: string, roles: ReadonlyArray<string>): string | undefined => {
  const m = /(?:to|with|from) (\{\d+\}|[a-z]+)$/.exec(step) ?? /^use (\{\d+\}|[a-z]+)$/.exec(step)
  if (m === null) return undefined
  const t = m[1]!
  return t.startsWith("{") ? roles[Number(t.slice(1, -1))] : t
}

const typeOf = (entity: string): string => entity.replace(/ \d+$/, "")

const boring = (a: string): boolean =>
  a === "look" || a === "inventory" || a.startsWith("examine ") || a.startsWith("close ")

/**
 * The per-episode policy: follows a plan (possibly empty) and explores when it has none (see the module docs).
 * @category models
 */
export class PlanFollower {
  private next = 0
  private location: string | undefined = undefined
  private readonly visited = new Set<string>()
  private readonly opened = new Set<string>()
  private readonly placedAt = new Set<string>()
  private readonly tries = new Map<string, number>()

  constructor(
    readonly plan: ReadonlyArray<string>,
    readonly roles: ReadonlyArray<string>,
    readonly rng: Rng
  ) {}

  /** Plan steps done so far. */
  get progress(): number {
    return this.next
  }

  /** The next command among `admissible` (non-empty). */
  act(admissible: ReadonlyArray<string>): string {
    const a = this.choose(admissible)
    this.record(a)
    return a
  }

  private choose(admissible: ReadonlyArray<string>): string {
    if (this.next < this.plan.length) {
      const step = this.plan[this.next]!
      const isTake = verb(step) === "take"
      const want = isTake ? takeHead(step) : step
      for (const a of admissible) {
        const r = abstractAction(a, this.roles)
        if ((isTake ? takeHead(r) : r) !== want) continue
        if (isTake && this.placedAt.has(receptacleOf(a) ?? "")) continue // never undo a placement
        this.next++
        return a
      }
      // not doable here: look inside, go to the step's target type, or search
      const here = this.location
      if (here !== undefined && !this.opened.has(here) && admissible.includes(`open ${here}`)) return `open ${here}`
      const target = isTake ? undefined : stepTarget(step, this.roles)
      const gos = admissible.filter((a) => a.startsWith("go to "))
      if (target !== undefined) {
        const there = gos.filter((a) => typeOf(a.slice(6)) === target)
        const fresh = there.filter((a) => !this.visited.has(a.slice(6)))
        if (fresh.length > 0) return fresh[this.rng.integers(fresh.length)]!
        if (there.length > 0 && (here === undefined || typeOf(here) !== target)) return there[this.rng.integers(there.length)]!
      }
      const unvisited = gos.filter((a) => !this.visited.has(a.slice(6)))
      if (unvisited.length > 0) return unvisited[this.rng.integers(unvisited.length)]!
    }
    return this.explore(admissible)
  }

  /** Count-based novelty: a random command among the least-tried ones (skipping no-op commands when possible). */
  explore(admissible: ReadonlyArray<string>): string {
    let pool = admissible.filter((a) => !boring(a))
    if (pool.length === 0) pool = admissible.slice()
    let least = Infinity
    for (const a of pool) least = Math.min(least, this.tries.get(a) ?? 0)
    const cands = pool.filter((a) => (this.tries.get(a) ?? 0) === least)
    return cands[this.rng.integers(cands.length)]!
  }

  private record(a: string): void {
    this.tries.set(a, (this.tries.get(a) ?? 0) + 1)
    if (a.startsWith("go to ")) {
      this.location = a.slice(6)
      this.visited.add(this.location)
    } else if (a.startsWith("open ")) this.opened.add(a.slice(5))
    else if (a.startsWith("move ")) this.placedAt.add(receptacleOf(a) ?? "")
  }
}

const admissibleOf = (info: { readonly [key: string]: unknown }): ReadonlyArray<string> => {
  const a = info["admissibleActions"]
  return Array.isArray(a) && a.length > 0 ? (a as ReadonlyArray<string>) : ["look"]
}

/**
 * Run one episode: retrieve an exemplar for the task's template (when `memory`), follow it or explore, and store the
 * finished episode. `reset` gets `{ seed, options: { taskIndex } }` (taskIndex only when given).
 * @returns fails with a StoreError when the store does.
 */
export const runEpisode = (
  env: TextTaskEnv,
  reset: { readonly seed: number; readonly taskIndex?: number | undefined },
  options: Options = {}
): Effect.Effect<EpisodeResult, StoreError, ExperienceStore> =>
  Effect.gen(function*() {
    const memory = options.memory ?? true
    const envId = options.envId ?? "TextHousehold-v0"
    const r0 = env.reset({
      seed: reset.seed,
      ...(reset.taskIndex === undefined ? {} : { options: { taskIndex: reset.taskIndex } })
    })
    const task = typeof r0.info["task"] === "string" ? (r0.info["task"] as string) : r0.observation
    const roles = taskRoles(task)
    const template = abstractTask(task, roles)
    let plan: ReadonlyArray<string> = []
    let similarity: number | undefined = undefined
    if (memory) {
      const store = yield* ExperienceStore
      const hits = yield* store.exemplars({ text: template, env: envId, k: options.k ?? 5 })
      for (const h of hits) {
        if (h.similarity < (options.minSimilarity ?? 0.9)) continue
        const exRoles = taskRoles(h.trajectory.task ?? h.record.task ?? "")
        const p = planOf(h.trajectory.steps.map((s) => String(s.action)), exRoles)
        if (p.length > 0 && (similarity === undefined || p.length < plan.length)) {
          plan = p
          similarity = h.similarity
        }
      }
    }
    const policy = new PlanFollower(plan, roles, Rng.make([reset.seed, 0x45584d50]))
    const steps: Array<Trajectory.Step> = []
    let observation = r0.observation
    let info = r0.info
    let success = false
    const maxSteps = options.maxSteps ?? 1000
    for (let t = 0; t < maxSteps; t++) {
      const action = policy.act(admissibleOf(info))
      const r = env.step(action)
      steps.push({ observation, action, reward: r.reward, terminated: r.terminated, truncated: r.truncated })
      observation = r.observation
      info = r.info
      if (r.terminated || r.truncated) {
        success = r.terminated && r.reward > 0
        break
      }
    }
    if (memory && (success || (options.storeFailures ?? true))) {
      const store = yield* ExperienceStore
      const t = Trajectory.fromSteps(envId, steps, { seed: reset.seed, task, success })
      yield* store.put(Records.trajectory(t, { text: template, task }))
    }
    return { task, template, success, length: steps.length, plan, similarity }
  })

/** Success counts of a stream, overall and per window. */
export interface StreamResult {
  readonly episodes: ReadonlyArray<EpisodeResult>
  readonly successRate: number
  /** Success rate per consecutive window of `window` tasks (the last may be shorter). */
  readonly windows: ReadonlyArray<number>
}

/**
 * An Evo-Memory-style stream: tasks `first .. first + n - 1` (task `i` reset with seed `i` and `taskIndex: i`), in
 * order, each stored after it ends (when `memory`) so later tasks can retrieve it.
 */
export const runStream = (
  env: TextTaskEnv,
  stream: { readonly n: number; readonly first?: number | undefined; readonly window?: number | undefined },
  options: Options = {}
): Effect.Effect<StreamResult, StoreError, ExperienceStore> =>
  Effect.gen(function*() {
    const first = stream.first ?? 0
    const window = stream.window ?? 50
    const episodes: Array<EpisodeResult> = []
    for (let i = first; i < first + stream.n; i++) {
      episodes.push(yield* runEpisode(env, { seed: i, taskIndex: i }, options))
    }
    const windows: Array<number> = []
    for (let s = 0; s < episodes.length; s += window) {
      const w = episodes.slice(s, s + window)
      windows.push(w.filter((e) => e.success).length / w.length)
    }
    return { episodes, successRate: episodes.filter((e) => e.success).length / Math.max(1, episodes.length), windows }
  })

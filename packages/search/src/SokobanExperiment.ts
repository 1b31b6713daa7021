/**
 * Levels solved at equal env-step budgets on text Sokoban (`Sokoban-6x6-1box-v0` and Boxoban levels through the
 * same `TextSokoban` env): a text policy alone (greedy; sampled with restarts) against best-first search
 * ({@link BestFirst.bestFirst}) whose priority is a value function — a learned one (e.g. `Drrn.valueHead` over a value
 * head fitted on the policy's own rollouts, see {@link collectSamples}), the no-learning box-distance heuristic
 * ({@link boxDistanceValue}) and a constant (breadth-first order) as baselines.
 *
 * **What counts** (per level, budget `B` env steps): every `env.step` call a method makes — the policy's steps in
 * every attempt, failed attempts included, and every expansion of the search. `reset`, `snapshot` and `restore`
 * simulate nothing and are not charged (the policy restores the level's start before each restart, the search
 * restores a stored node before expanding it; {@link solve} returns the restores beside the steps). A level is solved when a step is
 * `terminated` with `info.won` (all boxes on targets) within the budget; nothing else (no plan replay) is needed,
 * since the env is deterministic and the search's plan is the path it stepped.
 *
 * **Methods** (each run once per level with the largest budget; its env steps at the solving step give every smaller
 * budget exactly, since each method is budget-prefix-consistent: with budget `B` it makes exactly the first `B` steps
 * it makes with any larger budget, from the same seed):
 * - `greedy`: one episode of the policy's most probable action, up to `B` steps (the env's own step limit is off:
 *   a deterministic policy gains nothing from restarting).
 * - `sampled`: episodes of at most `attemptSteps` steps sampling the policy (seeded per level), restarting from the
 *   level's start until solved or `B` steps are spent.
 * - `best-first`: {@link BestFirst.bestFirst} from the start state, `budget: { envSteps: B }`, priority the value.
 *
 * **Gotchas**
 * - The DRRN's Sokoban relational features (optim `TextAbstraction.sokobanFeatures`) describe one box and one target,
 *   and its grid features are positions in the room: a policy and a value head fitted on 6 × 6 one-box levels carry
 *   little to 10 × 10 four-box Boxoban levels.
 * - A learned value costs one DRRN encode + forward per new node (and the node's input path is rebuilt per call),
 *   far more than an env step: compare methods by env steps, not seconds.
 * @since 0.2.0
 */
import { InvalidOptionError, Rng } from "@autodidact/core"
import type { Env, SokobanLevel } from "@autodidact/envs"
import { TextSokoban } from "@autodidact/envs"
import { type DrrnPolicy, DrrnValue } from "@autodidact/optim"
import * as BestFirst from "./BestFirst.js"
import { validate } from "./Budget.js"
import * as Drrn from "./Drrn.js"
import { defaultGoal, type Policy, type SearchEnv, type Step } from "./NodeStore.js"
import type { ValueFunction } from "./Value.js"

/** One way to solve a level within a budget. */
export interface Method {
  readonly name: string
  readonly kind: "greedy" | "sampled" | "best-first"
  /** `greedy` and `sampled`: the text policy (greedy: its argmax; sampled: a sample with the given rng). */
  readonly policy?: Policy | undefined
  /** `best-first`: the priority, made per level (a value may read the level, e.g. its goals). */
  readonly value?: ((env: TextSokoban.TextSokoban) => ValueFunction) | undefined
}

/** A set of levels: a fresh env (step limit off) and one reset per level. */
export interface LevelSet {
  readonly name: string
  readonly make: () => TextSokoban.TextSokoban
  readonly levels: ReadonlyArray<Env.ResetOptions>
  /** `sampled`: steps per attempt (e.g. the training horizon). */
  readonly attemptSteps: number
}

/** What one method did on one level with the largest budget. */
export interface Outcome {
  readonly solved: boolean
  /** Env steps spent when the level was solved (the solving step included), else the steps spent in all. */
  readonly envSteps: number
  readonly restores: number
}

/** One table row: a method on a level set at one budget. */
export interface Row {
  readonly set: string
  readonly method: string
  readonly budget: number
  readonly solved: number
  readonly levels: number
  /** Median env steps to solve over the solved levels (NaN when none). */
  readonly medianStepsToSolve: number
  /** Wall seconds of the method's run over the set with the largest budget (the same for each budget row). */
  readonly seconds: number
}

/**
 * Play `attemptSteps`-step episodes of `policy` from the env's current state, restoring it before each restart,
 * until a goal step or `budget` steps.
 */
const playPolicy = (
  env: SearchEnv,
  observation: string,
  policy: Policy,
  budget: number,
  attemptSteps: number,
  rng: Rng
): Outcome => {
  const start = env.snapshot()
  let used = 0
  let restores = 0
  while (used < budget) {
    if (used > 0) {
      env.restore(start)
      restores++
    }
    let obs = observation
    const steps: Array<Step> = []
    const history: Array<string> = []
    for (let t = 0; t < attemptSteps && used < budget; t++) {
      const action = policy({ task: env.task, observation: obs, admissible: env.admissibleActions(), history: history.slice(), steps: steps.slice() }, rng)
      const r = env.step(action)
      used++
      if (r.terminated || r.truncated) {
        if (defaultGoal(r.reward, r.terminated, r.info)) return { solved: true, envSteps: used, restores }
        break
      }
      steps.push({ observation: obs, action })
      history.push(action)
      obs = r.observation
    }
  }
  return { solved: false, envSteps: used, restores }
}

/**
 * Run `method` on the env's current level with `budget` env steps (see the module docs).
 * @throws InvalidOptionError naming the field for a bad budget (`budget.envSteps`: 0, NaN, negative, fractional,
 *   Infinity) or `attemptSteps`, or a method missing its policy/value.
 */
export const solve = (env: TextSokoban.TextSokoban, observation: string, method: Method, budget: number, attemptSteps: number, seed: number): Outcome => {
  if (budget === Infinity) throw new InvalidOptionError({ option: "budget.envSteps", value: budget, reason: "expected a positive integer (a per-level budget is finite)" })
  validate({ envSteps: budget })
  if (!(Number.isInteger(attemptSteps) && attemptSteps >= 1)) throw new InvalidOptionError({ option: "attemptSteps", value: attemptSteps, reason: "expected a positive integer" })
  const rng = Rng.make(seed)
  if (method.kind === "best-first") {
    if (method.value === undefined) throw new InvalidOptionError({ option: "value", value: method.name, reason: "best-first needs a value" })
    const r = BestFirst.bestFirst(env, observation, { budget: { envSteps: budget }, value: method.value(env) })
    return { solved: r.solved, envSteps: r.stats.envSteps, restores: r.stats.restores }
  }
  if (method.policy === undefined) throw new InvalidOptionError({ option: "policy", value: method.name, reason: `${method.kind} needs a policy` })
  return playPolicy(env, observation, method.policy, budget, method.kind === "greedy" ? budget : attemptSteps, rng)
}

/**
 * Every method on every level of every set with the largest budget, then levels solved per budget (see the module
 * docs). Level k of a set is played with seed `seed + k` (sampled policies).
 */
export const run = (
  sets: ReadonlyArray<LevelSet>,
  methods: ReadonlyArray<Method>,
  budgets: ReadonlyArray<number>,
  options: { readonly seed?: number | undefined; readonly onRow?: ((line: string) => void) | undefined } = {}
): Array<Row> => {
  const max = Math.max(...budgets)
  const rows: Array<Row> = []
  for (const set of sets) {
    const env = set.make()
    for (const method of methods) {
      const t0 = performance.now()
      const outcomes = set.levels.map((reset, k) => {
        const { observation } = env.reset(reset)
        return solve(env, observation, method, max, set.attemptSteps, (options.seed ?? 0) + k)
      })
      const seconds = (performance.now() - t0) / 1000
      for (const budget of budgets) {
        const steps = outcomes.filter((o) => o.solved && o.envSteps <= budget).map((o) => o.envSteps).sort((a, b) => a - b)
        const half = steps.length >> 1
        const medianStepsToSolve = steps.length === 0 ? Number.NaN : steps.length % 2 === 1 ? steps[half]! : (steps[half - 1]! + steps[half]!) / 2
        rows.push({ set: set.name, method: method.name, budget, solved: steps.length, levels: set.levels.length, medianStepsToSolve, seconds })
      }
      options.onRow?.(`${set.name} ${method.name}: ${outcomes.filter((o) => o.solved).length}/${set.levels.length} at ${max} steps (${seconds.toFixed(1)} s)`)
    }
  }
  return rows
}

/**
 * The no-learning heuristic: minus the sum over boxes of the Manhattan distance to the nearest goal of the env's
 * current level, read from the state key (`player|box,box,...`, cell indices). A baseline, not a learned value.
 */
export const boxDistanceValue = (env: TextSokoban.TextSokoban): ValueFunction => {
  const level = env.inner.currentLevel
  if (level === undefined) throw new TypeError("boxDistanceValue: reset the env first")
  const w = level.width
  const goals = Array.from(level.goals)
  return (_input, key) => {
    const bar = key.indexOf("|")
    let total = 0
    for (const part of key.slice(bar + 1).split(",")) {
      const b = Number(part)
      const bx = b % w, by = (b - bx) / w
      let best = Infinity
      for (const g of goals) {
        const d = Math.abs((g % w) - bx) + Math.abs(Math.floor(g / w) - by)
        if (d < best) best = d
      }
      total += best
    }
    return -total
  }
}

/** A constant value: best-first pops in insertion order, i.e. breadth-first search (a baseline). */
export const constantValue = (): ValueFunction => () => 0

/**
 * Regression samples for a value head (`DrrnValue.fit`) from `episodes` episodes of `policy` (sampled with `rng`)
 * of at most `maxSteps` steps on `levels` (cycled): each step's input and its Monte Carlo return-to-go
 * `Σ_{t' ≥ t} γ^{t'-t} r_{t'}` within the episode (a truncated episode's tail is simply cut).
 */
export const collectSamples = (
  env: TextSokoban.TextSokoban,
  levels: ReadonlyArray<Env.ResetOptions>,
  policy: Policy,
  options: { readonly episodes: number; readonly maxSteps: number; readonly gamma?: number | undefined; readonly rng: Rng }
): Array<DrrnValue.Sample> => {
  const gamma = options.gamma ?? 1
  const out: Array<DrrnValue.Sample> = []
  for (let e = 0; e < options.episodes; e++) {
    let { observation } = env.reset(levels[e % levels.length]!)
    const steps: Array<Step> = []
    const inputs: Array<{ task: string; observation: string; admissible: ReadonlyArray<string>; history: Array<Step> }> = []
    const rewards: Array<number> = []
    for (let t = 0; t < options.maxSteps; t++) {
      const admissible = env.admissibleActions()
      const action = policy({ task: env.task, observation, admissible, history: steps.map((s) => s.action), steps: steps.slice() }, options.rng)
      inputs.push({ task: env.task, observation, admissible, history: steps.slice() })
      const r = env.step(action)
      rewards.push(r.reward)
      steps.push({ observation, action })
      observation = r.observation
      if (r.terminated || r.truncated) break
    }
    let g = 0
    const start = out.length
    for (let t = rewards.length - 1; t >= 0; t--) {
      g = rewards[t]! + gamma * g
      out[start + t] = { input: inputs[t]!, target: g }
    }
  }
  return out
}

/** The rows as a markdown table (levels solved / N per method and budget), headed by `load`. */
export const formatMarkdown = (rows: ReadonlyArray<Row>, load: string): string => {
  const budgets = [...new Set(rows.map((r) => r.budget))].sort((a, b) => a - b)
  const lines = [
    `Load: ${load}`,
    "",
    `| levels | method | ${budgets.map((b) => `solved @ ${b} steps`).join(" | ")} | median steps to solve (largest budget) | seconds |`,
    `|---|---|${budgets.map(() => "---:").join("|")}|---:|---:|`
  ]
  const keys = [...new Set(rows.map((r) => `${r.set}\u0000${r.method}`))]
  for (const key of keys) {
    const [set, method] = key.split("\u0000") as [string, string]
    const mine = rows.filter((r) => r.set === set && r.method === method)
    const last = mine.find((r) => r.budget === budgets[budgets.length - 1])!
    const cells = budgets.map((b) => {
      const r = mine.find((x) => x.budget === b)!
      return `${r.solved}/${r.levels}`
    })
    lines.push(`| ${set} | ${method} | ${cells.join(" | ")} | ${Number.isNaN(last.medianStepsToSolve) ? "–" : last.medianStepsToSolve} | ${last.seconds.toFixed(1)} |`)
  }
  return lines.join("\n")
}

/** Options of {@link experiment}. */
export interface ExperimentOptions {
  /** The trained DRRN policy (e.g. `autodidact train --env Sokoban-6x6-1box-v0` → `checkpoints/policy.json`). */
  readonly policy: DrrnPolicy.Drrn
  /** `Sokoban-6x6-1box-v0` levels with seeds `10^6 + k`, k < sokobanLevels (the training runs' evaluation levels; default 100). */
  readonly sokobanLevels?: number | undefined
  /** Boxoban levels (10 × 10, 4 boxes) to play, e.g. the first 50 of `unfiltered/valid/000.txt` (default none). */
  readonly boxoban?: ReadonlyArray<SokobanLevel.Level> | undefined
  /** Env-step budgets per level (default 50, 200, 1000, 5000). */
  readonly budgets?: ReadonlyArray<number> | undefined
  /**
   * Sampled-policy episodes (20 steps at most, 6 × 6 levels with seeds 500000 + e, disjoint from the evaluation
   * levels) whose Monte Carlo returns the value head is fitted on (default 2000).
   */
  readonly valueEpisodes?: number | undefined
  readonly seed?: number | undefined
  readonly onRow?: ((line: string) => void) | undefined
}

/** What {@link experiment} returns. */
export interface ExperimentResult {
  readonly rows: ReadonlyArray<Row>
  /** The value head's fit (`DrrnValue.fit`), samples and held-out R². */
  readonly valueFit: Omit<DrrnValue.FitResult, "head">
}

/** Steps per sampled attempt on 6 × 6 levels: the training horizon of `TextTasks` (20). */
const SOKOBAN_ATTEMPT = 20
/** Steps per sampled attempt on Boxoban levels (Guez et al. 2018 play 120-step episodes). */
const BOXOBAN_ATTEMPT = 120

/**
 * The reference experiment: fit the learned value on the policy's own rollouts, then play the policy alone (greedy,
 * sampled with restarts) and best-first search with the learned value, the box-distance heuristic (no learning) and
 * a constant value (breadth-first) on `Sokoban-6x6-1box-v0` evaluation levels and the given Boxoban levels, at each
 * budget (see the module docs).
 * @throws InvalidOptionError for a bad budget or option.
 */
export const experiment = (options: ExperimentOptions): ExperimentResult => {
  const { policy } = options
  const seed = options.seed ?? 0
  const nSokoban = options.sokobanLevels ?? 100
  const budgets = options.budgets ?? [50, 200, 1000, 5000]
  for (const b of budgets) validate({ envSteps: b })
  const valueEpisodes = options.valueEpisodes ?? 2000
  if (!(Number.isInteger(valueEpisodes) && valueEpisodes >= 1)) throw new InvalidOptionError({ option: "valueEpisodes", value: valueEpisodes, reason: "expected a positive integer" })
  const sampled = Drrn.policy(policy, { greedy: false })
  const samples = collectSamples(
    new TextSokoban.TextSokoban({ maxSteps: Infinity }),
    Array.from({ length: Math.min(valueEpisodes, 100_000) }, (_, e) => ({ seed: 500_000 + e })),
    sampled,
    { episodes: valueEpisodes, maxSteps: SOKOBAN_ATTEMPT, rng: Rng.make([seed, 0x7a1e]) }
  )
  const { head, ...valueFit } = DrrnValue.fit(policy, samples, { rng: Rng.make([seed, 0xf17]) })
  options.onRow?.(`value head: ${valueFit.trainSamples} samples, held-out R² ${valueFit.validR2.toFixed(3)}`)
  const learned = Drrn.valueHead(head)
  const methods: ReadonlyArray<Method> = [
    { name: "policy alone, greedy", kind: "greedy", policy: Drrn.policy(policy) },
    { name: "policy alone, sampled with restarts", kind: "sampled", policy: sampled },
    { name: "best-first, learned value (DRRN value head)", kind: "best-first", value: () => learned },
    { name: "best-first, box-distance heuristic (no learning)", kind: "best-first", value: boxDistanceValue },
    { name: "best-first, constant value (breadth-first, no learning)", kind: "best-first", value: () => constantValue() }
  ]
  const sets: Array<LevelSet> = []
  if (nSokoban > 0) {
    sets.push({
      name: `Sokoban-6x6-1box-v0, seeds 10^6 + [0, ${nSokoban})`,
      make: () => new TextSokoban.TextSokoban({ maxSteps: Infinity }),
      levels: Array.from({ length: nSokoban }, (_, k) => ({ seed: 1_000_000 + k })),
      attemptSteps: SOKOBAN_ATTEMPT
    })
  }
  const boxoban = options.boxoban ?? []
  if (boxoban.length > 0) {
    sets.push({
      name: `Boxoban (${boxoban.length} levels)`,
      make: () => new TextSokoban.TextSokoban({ size: 10, numBoxes: 4, maxSteps: Infinity }),
      levels: boxoban.map((level) => ({ options: { level } })),
      attemptSteps: BOXOBAN_ATTEMPT
    })
  }
  const rows = run(sets, methods, budgets, { seed, onRow: options.onRow })
  return { rows, valueFit }
}

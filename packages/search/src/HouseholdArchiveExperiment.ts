/**
 * The archive-search reference experiment: search over GiGPO/DRRN *training configurations* (learning rate, epochs,
 * minibatches, group size, tasks per batch, clip, entropy coefficient, γ, GiGPO's ω, gradient-norm clip, learning-rate
 * annealing, the DRRN's hidden and embedding widths and history) on TextHousehold-v0 with {@link Archive.run}, HGM vs
 * DGM vs random parent selection vs the default configuration, at an equal budget of environment steps per seed.
 *
 * **A node** is a configuration. Evaluating it first trains it (`MultiTurnTrainer.train`, GiGPO, `trainSteps` env
 * steps, the trainer seed = the search seed for every node: common random numbers, so two nodes differ only by their
 * configuration) and keeps the trained policy (trained once per node; HGM's later batches cost only evaluation), then
 * plays it greedily on the asked search tasks (unseen-split tasks `EVAL_SEED_BASE + 10 000·(seed + 1) + i`, i < `searchTasks`);
 * each task's success goes to the archive (Wilson bound, release gate).
 *
 * **Budget** (per seed and method, env steps): every env step of training (the trainer's `globalStep`, the last batch's
 * overshoot included) and of the search evaluations is charged; the trainer's one-episode closing evaluation is
 * not (≤ `maxSteps` steps). Before each archive step the search stops when the budget left cannot pay for it (a new
 * node: `trainSteps + tasks · maxSteps`; an HGM evaluation: `batchSize · maxSteps`). The trainer stops at the first
 * batch boundary at or past `trainSteps`, so a method may end above the budget by less than one training batch of its
 * last node (`groupSize · tasksPerBatch · maxSteps` steps at most; the table shows what each spent). The initial node
 * (the default configuration) is charged to every method; a configuration already trained under this seed is
 * reused (from a cache shared by the methods) without retraining, but charged again in each method that trains it.
 *
 * **Control** (`restarts`): the default configuration retrained with other trainer seeds under the same budget and
 * archive rules. Small configuration changes send a short GiGPO run down a different trajectory, so part of what
 * a configuration search finds is a luckier run; the search beats this control only where configurations matter.
 *
 * **Score**: the best node's policy (`state.best`: Wilson lower bound, promoted through the release gate) and the
 * default configuration's policy (the same `trainSteps`, the same seed: it is every archive's node 0) are played
 * greedily on `heldOutTasks` unseen tasks (`EVAL_SEED_BASE + 500 000 + i`), disjoint from every search task: the search
 * never saw them, so the score carries no selection bias. Optionally (`fullBudgetDefault`) the default configuration
 * trained for the whole budget is scored too (what the search's env steps would buy as plain training).
 *
 * `train` and `play` are parameters ({@link Dependencies}; {@link householdDependencies} the real ones) so tests run the
 * search logic without training. Rows are reported as they finish (`onRow`) and rows passed back as `done` are not
 * rerun: an interrupted experiment resumes per seed and method.
 *
 * @see Archive (DGM: arXiv:2505.22954; HGM: arXiv:2510.21614), MultiTurnTrainer (GiGPO: arXiv:2505.10978)
 * @since 0.2.0
 */
import { InvalidOptionError, Rng } from "@autodidact/core"
import { DrrnPolicy, GroupRollout, MultiTurnTrainer, TextTasks } from "@autodidact/optim"
import { Effect, Schema } from "effect"
import * as Archive from "./Archive.js"

// ---------------------------------------------------------------------------------------------------------------
// Configurations
// ---------------------------------------------------------------------------------------------------------------

/** A training configuration (the searched hyper-parameters; everything else is the trainer's default). */
export interface Config {
  readonly learningRate: number
  readonly epochs: number
  readonly minibatches: number
  readonly groupSize: number
  readonly tasksPerBatch: number
  readonly clip: number
  readonly entCoef: number
  readonly gamma: number
  readonly omega: number
  readonly maxGradNorm: number
  readonly annealLr: boolean
  readonly hidden: number
  readonly embed: number
  readonly history: number
  /**
   * Which training run: the trainer's seed is `seed + 1000 · seedOffset` (`seed` the search seed). 0 for the default
   * and every searched configuration ({@link mutate} never changes it: common random numbers); the `restarts`
   * baseline draws others.
   */
  readonly seedOffset: number
}

/** The configuration's schema (archive files: `ArchiveFile.load(path, ConfigSchema)`). */
export const ConfigSchema: Schema.Codec<Config, unknown> = Schema.Struct({
  learningRate: Schema.Number,
  epochs: Schema.Number,
  minibatches: Schema.Number,
  groupSize: Schema.Number,
  tasksPerBatch: Schema.Number,
  clip: Schema.Number,
  entCoef: Schema.Number,
  gamma: Schema.Number,
  omega: Schema.Number,
  maxGradNorm: Schema.Number,
  annealLr: Schema.Boolean,
  hidden: Schema.Number,
  embed: Schema.Number,
  history: Schema.Number,
  seedOffset: Schema.Number
}) as unknown as Schema.Codec<Config, unknown>

/** A numeric field's range and how mutation moves it. */
export interface Range {
  readonly min: number
  readonly max: number
  /** `"log"`: × exp(N(0, 0.7)); `"linear"`: + N(0, 0.2 · (max − min)); `"int"`: ± 1 or 2; `"pow2"`: × 2 or ÷ 2. */
  readonly scale: "log" | "linear" | "int" | "pow2"
}

/** The numeric fields of {@link Config}. */
export type NumericField = Exclude<keyof Config, "annealLr" | "seedOffset">

/** The searched ranges (inclusive). */
export const ranges: Readonly<Record<NumericField, Range>> = {
  learningRate: { min: 1e-4, max: 3e-2, scale: "log" },
  epochs: { min: 1, max: 6, scale: "int" },
  minibatches: { min: 1, max: 8, scale: "int" },
  groupSize: { min: 2, max: 16, scale: "int" },
  tasksPerBatch: { min: 2, max: 16, scale: "int" },
  clip: { min: 0.05, max: 0.5, scale: "linear" },
  entCoef: { min: 1e-4, max: 0.1, scale: "log" },
  gamma: { min: 0.8, max: 1, scale: "linear" },
  omega: { min: 0, max: 2, scale: "linear" },
  maxGradNorm: { min: 0.1, max: 10, scale: "log" },
  hidden: { min: 16, max: 128, scale: "pow2" },
  embed: { min: 8, max: 64, scale: "pow2" },
  history: { min: 0, max: 4, scale: "int" }
}

/** The mutated fields, in a fixed order. */
export const fields: ReadonlyArray<NumericField | "annealLr"> = [...(Object.keys(ranges) as Array<NumericField>), "annealLr"]

/**
 * The default configuration: what `autodidact train --env TextHousehold-v0` and the household app use —
 * `MultiTurnTrainer.defaults` under `TextTasks.setupFor("TextHousehold-v0").trainer` (learning rate 5e-3, 4 epochs)
 * and `DrrnPolicy.defaults`.
 */
export const defaultConfig: Config = (() => {
  const t = { ...MultiTurnTrainer.defaults, ...TextTasks.setupFor("TextHousehold-v0").trainer }
  const p = DrrnPolicy.defaults
  return {
    learningRate: t.learningRate,
    epochs: t.epochs,
    minibatches: t.minibatches,
    groupSize: t.groupSize,
    tasksPerBatch: t.tasksPerBatch,
    clip: t.clip,
    entCoef: t.entCoef,
    gamma: t.gamma,
    omega: t.omega,
    maxGradNorm: t.maxGradNorm,
    annealLr: t.annealLr,
    hidden: p.hidden,
    embed: p.embed,
    history: p.history,
    seedOffset: 0
  }
})()

/**
 * Check a configuration: every field of {@link Config} present, numbers finite and inside {@link ranges}, integer
 * fields integers, `annealLr` a boolean.
 * @throws Archive.InvalidConfigError whose reason names the first offending field and its value.
 */
export const validateConfig = (config: Config, origin = "validateConfig"): void => {
  const fail = (reason: string) => {
    throw new Archive.InvalidConfigError({ origin, reason })
  }
  if (typeof config !== "object" || config === null) fail(`expected an object, got ${String(config)}`)
  for (const key of Object.keys(ranges) as Array<NumericField>) {
    const v = config[key] as unknown
    const r = ranges[key]
    if (typeof v !== "number" || !Number.isFinite(v)) fail(`${key} = ${String(v)}: expected a finite number`)
    const x = v as number
    if (x < r.min || x > r.max) fail(`${key} = ${x}: outside [${r.min}, ${r.max}]`)
    if ((r.scale === "int" || r.scale === "pow2") && !Number.isInteger(x)) fail(`${key} = ${x}: expected an integer`)
  }
  if (typeof config.annealLr !== "boolean") fail(`annealLr = ${String(config.annealLr)}: expected a boolean`)
  if (!(Number.isSafeInteger(config.seedOffset) && config.seedOffset >= 0)) fail(`seedOffset = ${String(config.seedOffset)}: expected a non-negative integer`)
}

const clamp = (x: number, r: Range) => Math.min(r.max, Math.max(r.min, x))

/**
 * A child of `parent`: one field (probability ½) or two distinct fields, chosen uniformly, each perturbed as its
 * {@link Range} says and clamped into range (rates on a log scale; a field that lands on its old value is moved one
 * step the other way where it can; `annealLr` flips). Deterministic for a given rng state.
 */
export const mutate = (parent: Config, rng: Rng): Config => {
  const count = rng.random() < 0.5 ? 1 : 2
  const picked: Array<NumericField | "annealLr"> = []
  while (picked.length < count) {
    const f = fields[rng.integers(fields.length)]!
    if (!picked.includes(f)) picked.push(f)
  }
  const child: Record<string, number | boolean> = { ...parent }
  for (const f of picked) {
    if (f === "annealLr") {
      child[f] = !parent.annealLr
      continue
    }
    const r = ranges[f]
    const x = parent[f]
    let y: number
    switch (r.scale) {
      case "log":
        y = clamp(x * Math.exp(0.7 * rng.normal()), r)
        break
      case "linear":
        y = clamp(x + 0.2 * (r.max - r.min) * rng.normal(), r)
        break
      case "int": {
        const step = (rng.random() < 0.5 ? -1 : 1) * (1 + rng.integers(2))
        y = clamp(x + step, r)
        if (y === x) y = clamp(x - step, r)
        break
      }
      case "pow2":
        y = clamp(rng.random() < 0.5 ? x * 2 : x / 2, r)
        if (y === x) y = clamp(x === r.max ? x / 2 : x * 2, r)
        break
    }
    child[f] = Number(y.toPrecision(4))
  }
  return child as unknown as Config
}

/** The fields where `config` differs from `base`, as `field=value` (empty: the same). */
export const describeChanges = (config: Config, base: Config = defaultConfig): string =>
  [...fields, "seedOffset" as const].filter((f) => config[f] !== base[f]).map((f) => `${f}=${String(config[f])}`).join(" ")

// ---------------------------------------------------------------------------------------------------------------
// The experiment
// ---------------------------------------------------------------------------------------------------------------

/** Where the search tasks come from (task k of the unseen split: `setup.evalTask(k)`; seed s uses `EVAL_SEED_BASE + SEARCH_TASK_BASE·(s + 1) + i`). */
export const SEARCH_TASK_BASE = 10_000
/** The first held-out task (`EVAL_SEED_BASE + HELD_OUT_BASE + i`): disjoint from every seed's search tasks. */
export const HELD_OUT_BASE = 500_000

/** Train and play: the two expensive operations, injected so tests need not train. */
export interface Dependencies<P> {
  /** Train `config` for `steps` env steps with trainer seed `seed`; the env steps it actually spent. */
  readonly train: (config: Config, seed: number, steps: number) => Promise<{ readonly policy: P; readonly envSteps: number }>
  /** Play `policy` greedily on unseen tasks `ks`: per task its success, and the env steps spent. */
  readonly play: (policy: P, ks: ReadonlyArray<number>) => { readonly successes: ReadonlyArray<boolean>; readonly envSteps: number }
}

/**
 * The methods compared: archive search with HGM, DGM or random parent selection, and `restarts` — the default
 * configuration retrained with other trainer seeds (`seedOffset`), the best by the same archive rules: the control
 * that separates a better configuration from a luckier training run.
 */
export const methods = ["hgm", "dgm", "random", "restarts"] as const
export type Method = typeof methods[number]

/** Options of {@link run}. */
export interface Options {
  readonly seeds: ReadonlyArray<number>
  readonly methods?: ReadonlyArray<Method> | undefined
  /** Env steps of training per node. */
  readonly trainSteps: number
  /** Env steps per seed and method (training + search evaluation). */
  readonly budget: number
  /** Search tasks (the archive's task list). Default 64. */
  readonly searchTasks?: number | undefined
  /** HGM's evaluation batch. Default 8. */
  readonly batchSize?: number | undefined
  /** Tasks a new node is evaluated on under DGM and random. Default all `searchTasks`. */
  readonly evaluationSize?: number | undefined
  /** Held-out unseen tasks of the final score. Default 200. */
  readonly heldOutTasks?: number | undefined
  /** Step limit per episode (charged at most this per evaluation task when checking the budget). */
  readonly maxSteps: number
  /** Also score the default configuration trained for the whole `budget`. Default false. */
  readonly fullBudgetDefault?: boolean | undefined
  /** Results already computed (e.g. read back from a results file): those (seed, method) pairs are not rerun. */
  readonly done?: ReadonlyArray<Row> | undefined
  /** Called with every row as soon as it exists (save it to resume). */
  readonly onRow?: ((row: Row) => void) | undefined
  /** Progress lines. */
  readonly log?: ((line: string) => void) | undefined
  /** Passed to each archive (`Archive.Options.onStep`), e.g. to save the archive file. */
  readonly onStep?: ((seed: number, method: Method, state: Archive.State<Config>) => void) | undefined
}

/** One result: a method's best node (or a default-configuration baseline) on one seed. */
export interface Row {
  readonly seed: number
  /** `"default"`, `"default (full budget)"`, `"random"`, `"dgm"` or `"hgm"`. */
  readonly method: string
  /** Successes on the held-out tasks. */
  readonly heldOutSuccesses: number
  readonly heldOutTasks: number
  /** The best node's id (0: the default configuration; −1 for baselines). */
  readonly bestNode: number
  /** The best node's successes / tasks on the search tasks it was evaluated on. */
  readonly searchSuccesses: number
  readonly searchEvaluated: number
  /** The best configuration's changes from the default (`describeChanges`). */
  readonly changes: string
  readonly config: Config
  readonly nodes: number
  /** Configurations trained (charged) by this method. */
  readonly nodesTrained: number
  readonly trainingSteps: number
  readonly evaluationSteps: number
  readonly budget: number
  /** Archive steps taken, evaluations, promotions accepted, mutations rejected. */
  readonly archiveSteps: number
  readonly evaluations: number
  readonly promotions: number
  readonly rejected: number
  readonly wallSeconds: number
}

const searchTaskK = (seed: number, i: number) => SEARCH_TASK_BASE * (seed + 1) + i
const heldOutK = (i: number) => HELD_OUT_BASE + i

const positiveInt = (option: string, value: unknown) => {
  if (!(typeof value === "number" && Number.isSafeInteger(value) && value >= 1)) throw new InvalidOptionError({ option, value, reason: "must be a positive integer" })
}

/**
 * Run the experiment (see the module docs): per seed, the default configuration, then each method's archive search
 * within the budget, each best scored on the held-out tasks. Rows in `done` are returned as they are and not rerun.
 * @throws InvalidOptionError naming a bad option (a budget of 0, NaN or one too small for a single node included).
 */
export const run = async <P>(options: Options, deps: Dependencies<P>): Promise<Array<Row>> => {
  positiveInt("trainSteps", options.trainSteps)
  positiveInt("budget", options.budget)
  positiveInt("maxSteps", options.maxSteps)
  const searchTasks = options.searchTasks ?? 64
  positiveInt("searchTasks", searchTasks)
  const batchSize = options.batchSize ?? 8
  positiveInt("batchSize", batchSize)
  const evaluationSize = options.evaluationSize ?? searchTasks
  positiveInt("evaluationSize", evaluationSize)
  if (evaluationSize > searchTasks) throw new InvalidOptionError({ option: "evaluationSize", value: evaluationSize, reason: `must be at most searchTasks (${searchTasks})` })
  const heldOut = options.heldOutTasks ?? 200
  positiveInt("heldOutTasks", heldOut)
  const ms = options.methods ?? methods
  for (const m of ms) if (!methods.includes(m)) throw new InvalidOptionError({ option: "methods", value: m, reason: `must be one of ${methods.join(", ")}` })
  if (options.seeds.length === 0) throw new InvalidOptionError({ option: "seeds", value: options.seeds, reason: "need at least one seed" })
  for (const s of options.seeds) {
    if (!(Number.isSafeInteger(s) && s >= 0)) throw new InvalidOptionError({ option: "seeds", value: s, reason: "each seed must be a non-negative integer" })
  }
  const firstNode = options.trainSteps + Math.max(evaluationSize, batchSize) * options.maxSteps
  if (options.budget < firstNode) {
    throw new InvalidOptionError({ option: "budget", value: options.budget, reason: `cannot pay for the initial node (${firstNode} env steps: trainSteps + its first evaluation at ${options.maxSteps} steps a task)` })
  }
  const log = options.log ?? (() => {})
  const heldOutKs = Array.from({ length: heldOut }, (_, i) => heldOutK(i))
  const rows: Array<Row> = [...(options.done ?? [])]
  const isDone = (seed: number, method: string) => rows.some((r) => r.seed === seed && r.method === method)
  const emit = (row: Row) => {
    rows.push(row)
    options.onRow?.(row)
    log(`seed ${row.seed} ${row.method}: held-out ${row.heldOutSuccesses}/${row.heldOutTasks}, ${row.nodesTrained} trained, ${row.trainingSteps + row.evaluationSteps} env steps, ${row.wallSeconds.toFixed(0)} s${row.changes === "" ? "" : ` (${row.changes})`}`)
  }
  const baseline = (seed: number, method: string, config: Config, trained: { envSteps: number }, score: number, seconds: number): Row => ({
    seed,
    method,
    heldOutSuccesses: score,
    heldOutTasks: heldOut,
    bestNode: -1,
    searchSuccesses: 0,
    searchEvaluated: 0,
    changes: "",
    config,
    nodes: 1,
    nodesTrained: 1,
    trainingSteps: trained.envSteps,
    evaluationSteps: 0,
    budget: method === "default" ? options.trainSteps : options.budget,
    archiveSteps: 0,
    evaluations: 0,
    promotions: 0,
    rejected: 0,
    wallSeconds: seconds
  })
  const count = (xs: ReadonlyArray<boolean>) => xs.filter((x) => x).length
  for (const seed of options.seeds) {
    // trained policies of this seed, by configuration (shared by the methods; each method is charged its own)
    const cache = new Map<string, { policy: P; envSteps: number; seconds: number }>()
    const trained = async (config: Config) => {
      const key = JSON.stringify(config)
      const hit = cache.get(key)
      if (hit !== undefined) return { ...hit, fresh: false }
      const t0 = performance.now()
      const r = await deps.train(config, seed + 1000 * config.seedOffset, options.trainSteps)
      const made = { policy: r.policy, envSteps: r.envSteps, seconds: (performance.now() - t0) / 1000 }
      cache.set(key, made)
      return { ...made, fresh: true }
    }
    if (!isDone(seed, "default")) {
      const t0 = performance.now()
      const d = await trained(defaultConfig)
      emit(baseline(seed, "default", defaultConfig, d, count(deps.play(d.policy, heldOutKs).successes), (performance.now() - t0) / 1000))
    }
    const taskIds = Array.from({ length: searchTasks }, (_, i) => String(searchTaskK(seed, i)))
    for (const method of ms) {
      if (isDone(seed, method)) continue
      const t0 = performance.now()
      let trainingSteps = 0
      let evaluationSteps = 0
      // every configuration this method trained, charged once; the seconds of trainings another method did for it
      const charged = new Set<string>()
      let cachedSeconds = 0
      const perTask = method === "hgm" ? batchSize : evaluationSize
      const state = await Archive.run<Config>({
        initial: defaultConfig,
        mutate: method === "restarts" ? (_parent, rng) => ({ ...defaultConfig, seedOffset: 1 + rng.integers(999_999) }) : mutate,
        validate: (c) => validateConfig(c, "mutation"),
        selection: method === "restarts" ? "random" : method,
        tasks: taskIds,
        steps: Number.MAX_SAFE_INTEGER,
        batchSize,
        evaluationSize,
        seed,
        evaluate: async (config, ids) => {
          const key = JSON.stringify(config)
          const t = await trained(config)
          if (!charged.has(key)) {
            charged.add(key)
            trainingSteps += t.envSteps
            if (!t.fresh) cachedSeconds += t.seconds
          }
          const played = deps.play(t.policy, ids.map(Number))
          evaluationSteps += played.envSteps
          return ids.map((taskId, i) => ({ taskId, success: played.successes[i]! }))
        },
        shouldStop: (_state, next) => {
          const cost = next === "expand" ? options.trainSteps + perTask * options.maxSteps : batchSize * options.maxSteps
          return trainingSteps + evaluationSteps + cost > options.budget
        },
        onStep: (s) => options.onStep?.(seed, method, s)
      })
      const best = state.nodes[state.best]!
      const t = await trained(best.config)
      emit({
        seed,
        method,
        heldOutSuccesses: count(deps.play(t.policy, heldOutKs).successes),
        heldOutTasks: heldOut,
        bestNode: best.id,
        searchSuccesses: best.results.filter((r) => r.success).length,
        searchEvaluated: best.results.length,
        changes: describeChanges(best.config),
        config: best.config,
        nodes: state.nodes.length,
        nodesTrained: charged.size,
        trainingSteps,
        evaluationSteps,
        budget: options.budget,
        archiveSteps: state.step,
        evaluations: state.evaluations,
        promotions: state.promotions.filter((p) => p.accepted).length,
        rejected: state.rejected.length,
        // wall time as if nothing were cached: the method's own time plus the trainings it reused
        wallSeconds: (performance.now() - t0) / 1000 + cachedSeconds
      })
    }
  }
  // last, so that an experiment cut short has the searches of every finished seed
  if (options.fullBudgetDefault === true) {
    for (const seed of options.seeds) {
      if (isDone(seed, "default (full budget)")) continue
      const t0 = performance.now()
      const d = await deps.train(defaultConfig, seed, options.budget)
      emit(baseline(seed, "default (full budget)", defaultConfig, d, count(deps.play(d.policy, heldOutKs).successes), (performance.now() - t0) / 1000))
    }
  }
  return rows
}

// ---------------------------------------------------------------------------------------------------------------
// The real train and play (GiGPO on TextHousehold-v0)
// ---------------------------------------------------------------------------------------------------------------

/**
 * The real {@link Dependencies}: `MultiTurnTrainer.train` (GiGPO; `config` over the trainer's defaults; training tasks
 * `setup.trainTask`, the `difficulty` and `maxSteps` given; the trainer's closing evaluation is one episode) and greedy episodes of the trained DRRN policy on
 * `setup.evalTask(k)` (unseen split).
 */
export const householdDependencies = (options: { readonly difficulty: string; readonly maxSteps: number }): Dependencies<DrrnPolicy.Drrn> => {
  const setup = TextTasks.setupFor("TextHousehold-v0", { difficulty: options.difficulty, maxSteps: options.maxSteps, split: "unseen" })
  const env = setup.makeEnv()
  return {
    train: async (config, seed, steps) => {
      const { annealLr, hidden, embed, history, ...rest } = config
      const r = await Effect.runPromise(MultiTurnTrainer.train([setup.makeEnv()], {
        algo: "gigpo",
        seed,
        totalEnvSteps: steps,
        maxSteps: setup.maxSteps,
        evalEvery: 0,
        evalEpisodes: 1,
        tasks: { train: setup.trainTask, eval: setup.evalTask },
        ...rest,
        annealLr,
        policy: { grid: setup.grid, hidden, embed, history }
      }))
      return { policy: r.policy, envSteps: r.globalStep }
    },
    play: (policy, ks) => {
      const textPolicy = MultiTurnTrainer.drrnTextPolicy(policy)
      let envSteps = 0
      const successes = ks.map((k) => {
        const g = GroupRollout.collectGroup([env], textPolicy, setup.evalTask(k), Rng.make(k), { groupSize: 1, greedy: true, maxSteps: setup.maxSteps })
        const tr = g.trajectories[0]
        envSteps += tr?.length ?? 0
        return tr?.success ?? false
      })
      return { successes, envSteps }
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The table
// ---------------------------------------------------------------------------------------------------------------

/** How often `method` beats `baseline` on held-out success over the seeds that have both rows. */
const wins = (rows: ReadonlyArray<Row>, method: string, baseline: string): { readonly beats: number; readonly comparable: number } => {
  let beats = 0
  let comparable = 0
  for (const r of rows.filter((x) => x.method === method)) {
    const b = rows.find((x) => x.seed === r.seed && x.method === baseline)
    if (b === undefined) continue
    comparable++
    if (r.heldOutSuccesses / r.heldOutTasks > b.heldOutSuccesses / b.heldOutTasks) beats++
  }
  return { beats, comparable }
}

/**
 * Per method (and baseline): seeds run, mean held-out success, and on how many seeds it beats the same seed's default
 * (and the `restarts` control) out of the seeds that have both.
 */
export const summarize = (rows: ReadonlyArray<Row>): Array<{
  readonly method: string
  readonly seeds: number
  readonly meanSuccess: number
  readonly beatsDefault: number
  readonly comparable: number
  readonly beatsRestarts: number
  readonly comparableRestarts: number
}> =>
  [...new Set(rows.map((r) => r.method))].map((method) => {
    const mine = rows.filter((r) => r.method === method)
    const d = wins(rows, method, "default")
    const c = wins(rows, method, "restarts")
    return {
      method,
      seeds: mine.length,
      meanSuccess: mine.reduce((a, r) => a + r.heldOutSuccesses / r.heldOutTasks, 0) / Math.max(1, mine.length),
      beatsDefault: d.beats,
      comparable: d.comparable,
      beatsRestarts: c.beats,
      comparableRestarts: c.comparable
    }
  })

/** The rows as a markdown table (one line per seed and method, the same seed's default beside each), then the summary. */
export const formatMarkdown = (rows: ReadonlyArray<Row>, load: string): string => {
  const rate = (r: Row) => r.heldOutSuccesses / r.heldOutTasks
  const lines = [
    `Load: ${load}`,
    "",
    "| seed | method | held-out success | Δ vs default (same seed) | best node: changes from default | search tasks (best) | nodes trained | env steps train + eval (budget) | wall s |",
    "|---:|---|---:|---:|---|---:|---:|---:|---:|"
  ]
  for (const r of rows) {
    const d = rows.find((x) => x.seed === r.seed && x.method === "default")
    const delta = d === undefined ? "–" : `${rate(r) - rate(d) >= 0 ? "+" : ""}${(100 * (rate(r) - rate(d))).toFixed(1)} pts`
    const best = r.bestNode < 0 ? "–" : `#${r.bestNode}: ${r.changes === "" ? "(the default)" : r.changes}`
    const search = r.searchEvaluated === 0 ? "–" : `${r.searchSuccesses}/${r.searchEvaluated}`
    lines.push(`| ${r.seed} | ${r.method} | ${rate(r).toFixed(3)} (${r.heldOutSuccesses}/${r.heldOutTasks}) | ${delta} | ${best} | ${search} | ${r.nodesTrained} | ${r.trainingSteps} + ${r.evaluationSteps} (${r.budget}) | ${r.wallSeconds.toFixed(0)} |`)
  }
  lines.push("", "| method | seeds | mean held-out success | seeds beating the default | seeds beating restarts |", "|---|---:|---:|---:|---:|")
  for (const s of summarize(rows)) {
    const vsDefault = s.method === "default" ? "–" : `${s.beatsDefault} of ${s.comparable}`
    const vsRestarts = s.method === "restarts" || s.comparableRestarts === 0 ? "–" : `${s.beatsRestarts} of ${s.comparableRestarts}`
    lines.push(`| ${s.method} | ${s.seeds} | ${s.meanSuccess.toFixed(3)} | ${vsDefault} | ${vsRestarts} |`)
  }
  return lines.join("\n")
}

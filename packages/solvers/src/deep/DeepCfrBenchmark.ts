/**
 * The Deep CFR (SD-CFR) benchmark that `autodidact bench deep-cfr` prints: SD-CFR iterations on a game with a
 * compiled tree until the exact NashConv of its average policy is at or below a target, beside tabular CFR+ run in the
 * same process to the same NashConv.
 *
 * **Details**
 * - SD-CFR ({@link DeepCfr.make}) steps until NashConv ≤ `target` or `maxIterations`; after every iteration NashConv is
 *   evaluated exactly on the compiled tree (`DeepCfr.averagePolicyOnTree`, each stored network folded in once, then
 *   `Exploitability.nashConvOnTree`). The solver's seconds (traversal + training) and the evaluation's seconds are
 *   kept apart; the reported wall time is the solver's.
 * - CFR+ (`Solver.run`, algorithm `cfr+`) first finds the first iteration `k` whose NashConv is at or below SD-CFR's
 *   final NashConv (the same NashConv, not the target, so both rows stand at the same quality), then a run of exactly
 *   `k` iterations is timed `cfrRepeats` times (median; one NashConv evaluation at the end is included, the tree
 *   compilation is not).
 * - `engines` runs the same SD-CFR (same options and seed) once per training engine, one after the other in the same
 *   process (e.g. `simd` beside the TensorFlow.js engine of `@autodidact/solvers/tfjs`), each with its own CFR+ row;
 *   `maxSeconds` stops each run after that much solver time.
 * - Default SD-CFR options ({@link defaultSolverOptions}) are a measured configuration that reaches 0.1 on Leduc;
 *   {@link quickOptions} is a seconds-long Kuhn run of the same code (for smoke tests and `--quick`).
 *
 * @example
 * ```ts
 * import { DeepCfrBenchmark } from "@autodidact/solvers"
 * const report = DeepCfrBenchmark.run(DeepCfrBenchmark.quickOptions)
 * console.log(DeepCfrBenchmark.markdown(report))
 * ```
 * @since 0.3.0
 */
import { InvalidOptionError, Statistics } from "@autodidact/core"
import { GameRegistry } from "@autodidact/envs"
import * as Exploitability from "../evaluation/Exploitability.js"
import * as Solver from "../regret/Solver.js"
import * as GameTree from "../tree/GameTree.js"
import * as DeepCfr from "./DeepCfr.js"

/** Options of {@link run}. */
export interface Options {
  /** `GameRegistry` name of a game with an information-state tensor whose tree compiles (default `leduc_poker`). */
  readonly game?: string | undefined
  /** NashConv to reach (utility units, default 0.1). */
  readonly target?: number | undefined
  /** SD-CFR iterations at most (default 300). */
  readonly maxIterations?: number | undefined
  /** SD-CFR options (default {@link defaultSolverOptions}); `seed` below overrides theirs. */
  readonly solver?: DeepCfr.Options | undefined
  /** Seed of SD-CFR (default 0). */
  readonly seed?: number | undefined
  /** Timed repeats of the CFR+ run (median, default 5). */
  readonly cfrRepeats?: number | undefined
  /**
   * Training engines to run SD-CFR on, one run each in this order (default: the solver options' engine, else
   * `simd`); `DeepCfrTf.loadEngine("tfjs")` of `@autodidact/solvers/tfjs` gives the TensorFlow.js one.
   */
  readonly engines?: ReadonlyArray<DeepCfr.Engine> | undefined
  /** Solver seconds (traversal + training) after which a run stops even below `maxIterations` (default: none). */
  readonly maxSeconds?: number | undefined
}

/**
 * SD-CFR's default configuration here (Leduc): 2,000 traversals per player per iteration, hidden 64, `dedup`
 * (full-memory Adam steps), 4M-row memories (no row dropped within 300 iterations; with 1M rows the reservoir starts
 * subsampling near iteration 110 and NashConv levels off near 0.11–0.12), and each advantage network warm-started
 * from the previous iteration's (`reinitialize: false`) with 200 steps at learning rate 0.01 decaying linearly:
 * measured 0.0995 at iteration 170 in 170 s. The paper's retraining from scratch (1,000 steps at 0.03) reached 0.0992
 * at iteration 149 in 1,017 s (module docs of `DeepCfr`).
 */
export const defaultSolverOptions: DeepCfr.Options = {
  traversals: 2000,
  hidden: 64,
  trainSteps: 200,
  batchSize: 1024,
  learningRate: 0.01,
  schedule: "linear",
  dedup: true,
  reinitialize: false,
  memoryCapacity: 4_000_000
}

/** A seconds-long run: Kuhn poker to NashConv 0.1 (reached in about 15 iterations). */
export const quickOptions: Options = {
  game: "kuhn_poker",
  target: 0.1,
  maxIterations: 40,
  solver: { traversals: 200, trainSteps: 100, batchSize: 256, hidden: 16, learningRate: 3e-2, schedule: "linear", dedup: true },
  seed: 1,
  cfrRepeats: 5
}

/** One SD-CFR iteration's measurement. */
export interface Progress {
  readonly iteration: number
  /** Exact NashConv of the average policy after this iteration. */
  readonly nashConv: number
  /** Solver seconds so far (traversal + training; evaluations excluded). */
  readonly seconds: number
  readonly traverseSeconds: number
  readonly trainSeconds: number
  /** Seconds spent on the exact NashConv evaluations so far. */
  readonly evalSeconds: number
}

/** One engine's SD-CFR run and its CFR+ baseline. */
export interface EngineRun {
  readonly config: DeepCfr.Config
  readonly deepCfr: Progress
  readonly reached: boolean
  readonly traversals: number
  readonly curve: ReadonlyArray<number>
  /** Solver seconds after each iteration (index `t − 1`). */
  readonly seconds: ReadonlyArray<number>
  readonly cfr: { readonly iterations: number; readonly nashConv: number; readonly seconds: number; readonly repeats: number }
}

/** What {@link run} measured: the first engine's run at the top level (as before engines), every run in `runs`. */
export interface Report {
  readonly game: string
  readonly target: number
  /** One per engine, in the order of `Options.engines`. */
  readonly runs: ReadonlyArray<EngineRun>
  readonly config: DeepCfr.Config
  /** SD-CFR: the last iteration's measurement (its NashConv is the final one). */
  readonly deepCfr: Progress
  /** Whether SD-CFR reached the target within `maxIterations`. */
  readonly reached: boolean
  /** Traversals of all players over the run. */
  readonly traversals: number
  /** NashConv after each iteration (index `t − 1`). */
  readonly curve: ReadonlyArray<number>
  /** CFR+ to SD-CFR's final NashConv: iterations, its NashConv there, median seconds over `repeats`. */
  readonly cfr: { readonly iterations: number; readonly nashConv: number; readonly seconds: number; readonly repeats: number }
}

/**
 * Run the benchmark (synchronous; minutes with the defaults, seconds with {@link quickOptions}); `onProgress` sees
 * every SD-CFR iteration.
 * @throws InvalidOptionError for a bad target, iteration count, repeat count, time limit or an empty engine list (and DeepCfr's for bad solver
 *   options); InvalidGameError when the game has no information-state tensor.
 */
export const run = (options: Options = {}, onProgress?: (p: Progress, engine: string) => void): Report => {
  const target = options.target ?? 0.1
  if (!(Number.isFinite(target) && target >= 0)) throw new InvalidOptionError({ option: "target", value: target, reason: "must be a non-negative number" })
  const maxIterations = options.maxIterations ?? 300
  if (!Number.isInteger(maxIterations) || maxIterations < 1) throw new InvalidOptionError({ option: "maxIterations", value: maxIterations, reason: "must be a positive integer" })
  const repeats = options.cfrRepeats ?? 5
  if (!Number.isInteger(repeats) || repeats < 1) throw new InvalidOptionError({ option: "cfrRepeats", value: repeats, reason: "must be a positive integer" })
  const maxSeconds = options.maxSeconds ?? Infinity
  if (!(maxSeconds > 0)) throw new InvalidOptionError({ option: "maxSeconds", value: maxSeconds, reason: "must be a positive number" })
  const name = options.game ?? "leduc_poker"
  const game = GameRegistry.loadGame(name)
  const tree = GameTree.compile(game)
  const base = options.solver ?? defaultSolverOptions
  const engines = options.engines ?? [DeepCfr.resolveEngine(base.engine)]
  if (engines.length === 0) throw new InvalidOptionError({ option: "engines", value: "[]", reason: "must name at least one engine" })
  const runs: Array<EngineRun> = []
  for (const engine of engines) {
    const solver = DeepCfr.make(game, { ...base, engine, seed: options.seed ?? base.seed ?? 0 })
    const avg = DeepCfr.treeAverage(game, tree)
    const curve: Array<number> = []
    const times: Array<number> = []
    let seconds = 0
    let traverseSeconds = 0
    let trainSeconds = 0
    let evalSeconds = 0
    let last: Progress | undefined
    while (solver.iteration < maxIterations && seconds < maxSeconds && (last === undefined || last.nashConv > target)) {
      const t0 = performance.now()
      const st = solver.step()
      const t1 = performance.now()
      const nashConv = Exploitability.nashConvOnTree(tree, DeepCfr.averagePolicyOnTree(avg, solver.policy))
      evalSeconds += (performance.now() - t1) / 1000
      seconds += (t1 - t0) / 1000
      traverseSeconds += st.traverseSeconds
      trainSeconds += st.trainSeconds
      curve.push(nashConv)
      times.push(seconds)
      last = { iteration: st.iteration, nashConv, seconds, traverseSeconds, trainSeconds, evalSeconds }
      onProgress?.(last, solver.config.engine)
    }
    const final = last!
    const found = Solver.run(game, { algo: "cfr+", iterations: 1_000_000, targetNashConv: final.nashConv, reportEvery: 1_000_000 })
    const cfrTimes: Array<number> = []
    let cfrNashConv = found.nashConv
    for (let r = 0; r < repeats; r++) {
      const timed = Solver.run(game, { algo: "cfr+", iterations: found.iteration, reportEvery: found.iteration })
      cfrTimes.push(timed.elapsedSeconds)
      cfrNashConv = timed.nashConv
    }
    runs.push({
      config: solver.config,
      deepCfr: final,
      reached: final.nashConv <= target,
      traversals: final.iteration * solver.config.traversals * game.info.numPlayers,
      curve,
      seconds: times,
      cfr: { iterations: found.iteration, nashConv: cfrNashConv, seconds: Statistics.median(cfrTimes), repeats }
    })
  }
  const first = runs[0]!
  return { game: name, target, runs, config: first.config, deepCfr: first.deepCfr, reached: first.reached, traversals: first.traversals, curve: first.curve, cfr: first.cfr }
}

/** The report's rows (what `--json` prints and {@link markdown} tabulates). */
export const rows = (report: Report): ReadonlyArray<Record<string, string | number | boolean>> =>
  report.runs.flatMap((run) => {
    const c = run.config
    return [
      {
        solver: `SD-CFR (${c.traversals} traversals/player/iteration, hidden ${c.hidden}, ${c.trainSteps} × ${c.batchSize}-row steps, lr ${c.learningRate} ${c.schedule}, memory ${c.memoryCapacity}${c.dedup ? ", dedup" : ""}${c.reinitialize ? "" : ", warm start"}, seed ${c.seed})`,
        engine: c.engine,
        iterations: run.deepCfr.iteration,
        nashConv: run.deepCfr.nashConv,
        target: report.target,
        reached: run.reached,
        seconds: run.deepCfr.seconds,
        "traverse s": run.deepCfr.traverseSeconds,
        "train s": run.deepCfr.trainSeconds,
        ratio: run.deepCfr.seconds / run.cfr.seconds
      },
      {
        solver: `CFR+ (tabular, same process, to the same NashConv; median of ${run.cfr.repeats})`,
        engine: "",
        iterations: run.cfr.iterations,
        nashConv: run.cfr.nashConv,
        target: run.deepCfr.nashConv,
        reached: run.cfr.nashConv <= run.deepCfr.nashConv,
        seconds: run.cfr.seconds,
        "traverse s": "",
        "train s": "",
        ratio: 1
      }
    ]
  })

/** A run's solver seconds to its first iteration at or below NashConv `level` (`undefined` where never reached). */
export const secondsTo = (run: EngineRun, level: number): number | undefined => {
  const i = run.curve.findIndex((v) => v <= level)
  return i < 0 ? undefined : run.seconds[i]
}

const cell = (v: string | number | boolean): string =>
  typeof v === "number" ? (Number.isInteger(v) ? String(v) : Math.abs(v) >= 100 ? v.toFixed(0) : v.toPrecision(3)) : typeof v === "boolean" ? (v ? "yes" : "no") : v

/**
 * A markdown table of {@link rows} under a title naming the game and target (`note`, e.g. the load, appended), each
 * run's NashConv curve and, with several engines, a table of solver seconds to NashConv 0.5 … 0.1 per engine (the
 * last engine over the first).
 */
export const markdown = (report: Report, note = ""): string => {
  const rs = rows(report)
  const cols = Object.keys(rs[0]!)
  const lines = [
    `### ${report.game}: SD-CFR to NashConv ${report.target} beside CFR+${note === "" ? "" : ` — ${note}`}`,
    "",
    `| ${cols.join(" | ")} |`,
    `|${cols.map(() => "---").join("|")}|`,
    ...rs.map((r) => `| ${cols.map((c) => cell(r[c]!)).join(" | ")} |`),
    "",
    ...report.runs.map((run) =>
      `NashConv every 10 iterations${report.runs.length > 1 ? ` (${run.config.engine})` : ""}: ${run.curve.flatMap((v, i) => ((i + 1) % 10 === 0 || i === run.curve.length - 1 ? [`${i + 1}:${v.toFixed(3)}`] : [])).join(" ")}`
    )
  ]
  if (report.runs.length > 1) {
    const levels = [0.5, 0.3, 0.2, 0.15, 0.1].filter((l) => l >= report.target)
    const base = report.runs[0]!
    lines.push("", `| solver seconds to NashConv | ${report.runs.map((r) => r.config.engine).join(" | ")} | ${report.runs[report.runs.length - 1]!.config.engine} / ${base.config.engine} |`, `|---|${report.runs.map(() => "---").join("|")}|---|`)
    for (const l of levels) {
      const ts = report.runs.map((r) => secondsTo(r, l))
      const b = ts[0]
      const last = ts[ts.length - 1]
      lines.push(`| ≤ ${l} | ${ts.map((t) => (t === undefined ? "not reached" : t.toPrecision(3))).join(" | ")} | ${b === undefined || last === undefined ? "—" : (last / b).toFixed(2)} |`)
    }
  }
  return lines.join("\n")
}

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

/** What {@link run} measured. */
export interface Report {
  readonly game: string
  readonly target: number
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
 * @throws InvalidOptionError for a bad target, iteration count or repeat count (and DeepCfr's for bad solver
 *   options); InvalidGameError when the game has no information-state tensor.
 */
export const run = (options: Options = {}, onProgress?: (p: Progress) => void): Report => {
  const target = options.target ?? 0.1
  if (!(Number.isFinite(target) && target >= 0)) throw new InvalidOptionError({ option: "target", value: target, reason: "must be a non-negative number" })
  const maxIterations = options.maxIterations ?? 300
  if (!Number.isInteger(maxIterations) || maxIterations < 1) throw new InvalidOptionError({ option: "maxIterations", value: maxIterations, reason: "must be a positive integer" })
  const repeats = options.cfrRepeats ?? 5
  if (!Number.isInteger(repeats) || repeats < 1) throw new InvalidOptionError({ option: "cfrRepeats", value: repeats, reason: "must be a positive integer" })
  const name = options.game ?? "leduc_poker"
  const game = GameRegistry.loadGame(name)
  const solver = DeepCfr.make(game, { ...(options.solver ?? defaultSolverOptions), seed: options.seed ?? options.solver?.seed ?? 0 })
  const tree = GameTree.compile(game)
  const avg = DeepCfr.treeAverage(game, tree)
  const curve: Array<number> = []
  let seconds = 0
  let traverseSeconds = 0
  let trainSeconds = 0
  let evalSeconds = 0
  let last: Progress | undefined
  while (solver.iteration < maxIterations && (last === undefined || last.nashConv > target)) {
    const t0 = performance.now()
    const st = solver.step()
    const t1 = performance.now()
    const nashConv = Exploitability.nashConvOnTree(tree, DeepCfr.averagePolicyOnTree(avg, solver.policy))
    evalSeconds += (performance.now() - t1) / 1000
    seconds += (t1 - t0) / 1000
    traverseSeconds += st.traverseSeconds
    trainSeconds += st.trainSeconds
    curve.push(nashConv)
    last = { iteration: st.iteration, nashConv, seconds, traverseSeconds, trainSeconds, evalSeconds }
    onProgress?.(last)
  }
  const final = last!
  const found = Solver.run(game, { algo: "cfr+", iterations: 1_000_000, targetNashConv: final.nashConv, reportEvery: 1_000_000 })
  const times: Array<number> = []
  let cfrNashConv = found.nashConv
  for (let r = 0; r < repeats; r++) {
    const timed = Solver.run(game, { algo: "cfr+", iterations: found.iteration, reportEvery: found.iteration })
    times.push(timed.elapsedSeconds)
    cfrNashConv = timed.nashConv
  }
  return {
    game: name,
    target,
    config: solver.config,
    deepCfr: final,
    reached: final.nashConv <= target,
    traversals: final.iteration * solver.config.traversals * game.info.numPlayers,
    curve,
    cfr: { iterations: found.iteration, nashConv: cfrNashConv, seconds: Statistics.median(times), repeats }
  }
}

/** The report's rows (what `--json` prints and {@link markdown} tabulates). */
export const rows = (report: Report): ReadonlyArray<Record<string, string | number | boolean>> => {
  const c = report.config
  return [
    {
      solver: `SD-CFR (${c.traversals} traversals/player/iteration, hidden ${c.hidden}, ${c.trainSteps} × ${c.batchSize}-row steps, lr ${c.learningRate} ${c.schedule}, memory ${c.memoryCapacity}${c.dedup ? ", dedup" : ""}${c.reinitialize ? "" : ", warm start"}, seed ${c.seed})`,
      iterations: report.deepCfr.iteration,
      nashConv: report.deepCfr.nashConv,
      target: report.target,
      reached: report.reached,
      seconds: report.deepCfr.seconds,
      "traverse s": report.deepCfr.traverseSeconds,
      "train s": report.deepCfr.trainSeconds,
      ratio: report.deepCfr.seconds / report.cfr.seconds
    },
    {
      solver: `CFR+ (tabular, same process, to the same NashConv; median of ${report.cfr.repeats})`,
      iterations: report.cfr.iterations,
      nashConv: report.cfr.nashConv,
      target: report.deepCfr.nashConv,
      reached: report.cfr.nashConv <= report.deepCfr.nashConv,
      seconds: report.cfr.seconds,
      "traverse s": "",
      "train s": "",
      ratio: 1
    }
  ]
}

const cell = (v: string | number | boolean): string =>
  typeof v === "number" ? (Number.isInteger(v) ? String(v) : Math.abs(v) >= 100 ? v.toFixed(0) : v.toPrecision(3)) : typeof v === "boolean" ? (v ? "yes" : "no") : v

/** A markdown table of {@link rows} under a title naming the game and target (`note`, e.g. the load, appended). */
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
    `NashConv every 10 iterations: ${report.curve.flatMap((v, i) => ((i + 1) % 10 === 0 || i === report.curve.length - 1 ? [`${i + 1}:${v.toFixed(3)}`] : [])).join(" ")}`
  ]
  return lines.join("\n")
}

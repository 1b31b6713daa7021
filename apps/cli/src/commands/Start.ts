/**
 * `autodidact start` (what `npm start` runs): the main job. Train PPO on CartPole-v1 until solved (seed 1), evaluate
 * the trained policy for 100 episodes, then solve the first 100 levels of
 * `../shared/data/boxoban/unfiltered/valid/000.txt` (generated levels when that file is absent), and print both
 * summaries.
 *
 * The run directory (`--out`, default `runs/start`) gets `config.json` (`command: "start"`), `metrics.jsonl` (paths
 * relative to the run directory) and `sokoban.json` (the Sokoban summary). A previous run there is kept: it is moved
 * to `<out>.prev-<timestamp>` first, and the output says so.
 * @since 0.1.0
 */
import { AtomicFile } from "@autodidact/core/node"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Output from "../Output.js"
import * as RunDirectory from "../RunDirectory.js"
import { evaluate } from "./Eval.js"
import { loadOrGenerate, solveAndReport } from "./Sokoban.js"
import { train } from "./Train.js"
import type { Configs } from "../Commands.js"

/** The budgets of the main job (smaller ones are for tests). */
export interface StartBudget {
  readonly totalSteps: number
  readonly evalEpisodes: number
  readonly levels: number
  readonly maxNodes: number
  /** Mean return that counts as solved (default: the env's threshold, 475 for CartPole-v1). */
  readonly solveThreshold?: number
}

export const defaultBudget: StartBudget = { totalSteps: 500_000, evalEpisodes: 100, levels: 100, maxNodes: 1_000_000 }

/** The Sokoban summary file of the main job's run directory. */
export const sokobanPath = (runDir: string): string => path.join(runDir, "sokoban.json")

/**
 * Move an earlier run in `dir` (one with a config.json) aside to `<dir>.prev-<timestamp>`; returns the new path, or
 * undefined when there was none. Fails with `RunDirectoryError` when the move fails.
 */
export const keepPrevious = (dir: string, now: Date = new Date()): Effect.Effect<string | undefined, RunDirectory.RunDirectoryError> =>
  Effect.try({
    try: () => {
      if (!fs.existsSync(path.join(dir, "config.json"))) return undefined
      const stamp = now.toISOString().replace(/[:.]/g, "-")
      let target = `${dir}.prev-${stamp}`
      for (let k = 2; fs.existsSync(target); k++) target = `${dir}.prev-${stamp}-${k}`
      fs.renameSync(dir, target)
      return target
    },
    catch: (e) => new RunDirectory.RunDirectoryError({ path: dir, reason: `cannot keep the previous run: ${String(e)}` })
  })

/** `autodidact start` (`budget`: the main job's, {@link defaultBudget}). */
export const handleStart = (config: Configs["start"], budget: StartBudget = defaultBudget): Effect.Effect<void, unknown> =>
    Effect.gen(function* () {
      const previous = yield* keepPrevious(config.out)
      if (previous !== undefined) Output.note(config.json, `Kept the previous run of ${config.out}: moved to ${previous}`)
      const summary = yield* train({
        env: "CartPole-v1",
        algo: "ppo",
        seed: config.seed,
        totalSteps: budget.totalSteps,
        out: config.out,
        untilSolved: true,
        numEnvs: 4,
        resume: false,
        overwrite: false,
        json: config.json,
        command: "start",
        ...(budget.solveThreshold === undefined ? {} : { solveThreshold: budget.solveThreshold })
      })
      const evaluation = yield* evaluate(config.out, { episodes: budget.evalEpisodes, seed: 10_000, greedy: true })
      Output.printSummary(config.json, "1. PPO on CartPole-v1: training and evaluation", {
        ...summary,
        evalEpisodes: evaluation.episodes,
        evalMeanReturn: evaluation.meanReturn,
        evalStdReturn: evaluation.stdReturn
      })
      const { levels, source } = yield* loadOrGenerate(config.levels, budget.levels, config.seed, config.json)
      const solved = yield* solveAndReport(source, levels, {
        json: config.json,
        maxNodes: budget.maxNodes,
        title: `2. Sokoban: the first ${levels.length} levels solved by A* (push-optimal)`
      })
      const file = sokobanPath(config.out)
      yield* AtomicFile.write(file, JSON.stringify({ kind: "sokoban", ...solved, maxNodes: budget.maxNodes }, null, 2) + "\n")
      Output.note(config.json, `Wrote the Sokoban summary -> ${file}`)
    })

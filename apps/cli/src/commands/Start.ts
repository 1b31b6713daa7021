/**
 * `autodidact start` (what `npm start` runs): the main job. Train PPO on CartPole-v1 until solved (seed 1), evaluate
 * the trained policy for 100 episodes, then solve the first 100 levels of
 * `../shared/data/boxoban/unfiltered/valid/000.txt` (generated levels when that file is absent), and print both
 * summaries.
 * @since 0.1.0
 */
import { Effect } from "effect"
import * as Output from "../Output.js"
import { evaluate } from "./Eval.js"
import { loadOrGenerate, solveAndReport } from "./Sokoban.js"
import { train } from "./Train.js"
import type { Configs } from "../Commands.js"

/** `autodidact start` */
export const handleStart = (config: Configs["start"]): Effect.Effect<void, unknown> =>
    Effect.gen(function* () {
      const summary = yield* train({
        env: "CartPole-v1",
        algo: "ppo",
        seed: config.seed,
        totalSteps: 500_000,
        out: config.out,
        untilSolved: true,
        numEnvs: 4,
        resume: false,
        overwrite: true,
        json: config.json
      })
      const evaluation = yield* evaluate(config.out, { episodes: 100, seed: 10_000, greedy: true })
      Output.printSummary(config.json, "1. PPO on CartPole-v1: training and evaluation", {
        ...summary,
        evalEpisodes: evaluation.episodes,
        evalMeanReturn: evaluation.meanReturn,
        evalStdReturn: evaluation.stdReturn
      })
      const { levels, source } = yield* loadOrGenerate(config.levels, 100, config.seed, config.json)
      yield* solveAndReport(source, levels, {
        json: config.json,
        maxNodes: 1_000_000,
        title: `2. Sokoban: the first ${levels.length} levels solved by A* (push-optimal)`
      })
    })

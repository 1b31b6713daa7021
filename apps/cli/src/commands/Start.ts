/**
 * `autodidact start` (what `npm start` runs): the main job. Train PPO on CartPole-v1 until solved (seed 1), evaluate
 * the trained policy for 100 episodes, then solve the first 100 levels of
 * `../shared/data/boxoban/unfiltered/valid/000.txt` (generated levels when that file is absent), and print both
 * summaries.
 * @since 0.1.0
 */
import { Effect } from "effect"
import { Command, Flag } from "effect/cli"
import * as path from "node:path"
import { jsonFlag } from "../Flags.js"
import * as Output from "../Output.js"
import { sharedData, workspaceRoot } from "../Paths.js"
import { evaluate } from "./Eval.js"
import { loadOrGenerate, solveAndReport } from "./Sokoban.js"
import { train } from "./Train.js"

export const startCommand = Command.make(
  "start",
  {
    seed: Flag.Int("seed").pipe(Flag.withDefault(1), Flag.withDescription("Training seed")),
    out: Flag.String("out").pipe(Flag.withDefault(path.join(workspaceRoot, "runs", "start")), Flag.withDescription("Run directory (replaced)")),
    levels: Flag.String("levels").pipe(Flag.withDefault(sharedData("boxoban", "unfiltered", "valid", "000.txt")), Flag.withDescription("Boxoban level file")),
    json: jsonFlag
  },
  (config) =>
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
).pipe(Command.withDescription("The main job: PPO on CartPole-v1 until solved, evaluation, then 100 Sokoban levels solved"))

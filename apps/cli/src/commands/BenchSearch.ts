/**
 * `autodidact bench search [--quick] [--repeats N] [--json]`: MCTS nodes and env steps per second on TextHousehold-v0
 * and text Sokoban beside the raw random-policy env step rate measured in the same run (ratio), and the cost of
 * `snapshot()`/`restore()` beside one env step; medians over repeats, headed by the load average. The measuring code
 * is `Benchmark` in `@autodidact/search`.
 *
 * `autodidact bench search --sokoban-run DIR [--levels N] [--boxoban-levels N] [--boxoban FILE] [--budgets a,b,c] [--value-episodes N]`:
 * instead, levels solved at equal env-step budgets per level on Sokoban-6x6-1box-v0 and Boxoban levels by the run's
 * DRRN policy alone (greedy; sampled with restarts) and by best-first search with a value head fitted on the policy's
 * own rollouts, beside two no-learning baselines (`SokobanExperiment.experiment` in `@autodidact/search`).
 * @since 0.2.0
 */
import { SokobanLevel } from "@autodidact/envs/node"
import { DrrnPolicyFile } from "@autodidact/optim/node"
import { Benchmark, SokobanExperiment } from "@autodidact/search"
import { Effect, Option } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import type { Configs } from "../Commands.js"
import * as Output from "../Output.js"
import { TrainConfigError } from "./Train.js"

const loadAverage = () => `load average ${Os.loadavg().map((x) => x.toFixed(2)).join(" ")} (${Os.cpus().length} cpus, node ${process.version})`

/** `autodidact bench search --sokoban-run DIR` */
const sokoban = (config: Configs["bench search"], runDir: string): Effect.Effect<void, unknown> =>
  Effect.gen(function*() {
    const budgets = config.budgets.split(",").map((b) => Number(b.trim()))
    if (budgets.length === 0 || budgets.some((b) => !(Number.isInteger(b) && b >= 1))) {
      return yield* new TrainConfigError({ option: "budgets", value: config.budgets, reason: "expected comma-separated positive integers" })
    }
    const policy = yield* DrrnPolicyFile.load(DrrnPolicyFile.policyPath(runDir))
    let boxoban: Array<SokobanLevel.Level> = []
    if (config.boxobanLevels > 0) {
      if (Fs.existsSync(config.boxoban)) boxoban = (yield* SokobanLevel.loadLevelFile(config.boxoban)).slice(0, config.boxobanLevels)
      else Output.note(config.json, `note: ${config.boxoban} not found; Boxoban rows skipped`)
    }
    const before = loadAverage()
    const result = yield* Effect.try({
      try: () => SokobanExperiment.experiment({ policy, sokobanLevels: config.levels, boxoban, budgets, valueEpisodes: config.valueEpisodes, onRow: (line) => Output.note(config.json, `  ${line}`) }),
      catch: (e) => e
    })
    const load = `${before} at start, ${loadAverage()} at end`
    if (config.json) for (const row of result.rows) process.stdout.write(JSON.stringify({ table: "sokoban", ...row, valueR2: result.valueFit.validR2, load }) + "\n")
    else {
      process.stdout.write(
        `Text Sokoban: levels solved at equal env-step budgets (${runDir})\n` +
          `Value head: ${result.valueFit.trainSamples} samples of the policy's rollouts, held-out R² ${result.valueFit.validR2.toFixed(3)}\n\n` +
          `${SokobanExperiment.formatMarkdown(result.rows, load)}\n`
      )
    }
  })

/** `autodidact bench search` */
export const handleBenchSearch = (config: Configs["bench search"]): Effect.Effect<void, unknown> =>
  Option.isSome(config.sokobanRun) ? sokoban(config, config.sokobanRun.value) : Effect.sync(() => {
    const load = loadAverage()
    const result = Benchmark.run({
      envSteps: config.quick ? 3000 : 20000,
      calls: config.quick ? 5000 : 20000,
      repeats: config.quick ? 1 : config.repeats,
      onRow: (line) => Output.note(config.json, `  ${line}`)
    })
    if (config.json) {
      for (const row of result.mcts) process.stdout.write(JSON.stringify({ table: "mcts", ...row, load }) + "\n")
      for (const row of result.snapshot) process.stdout.write(JSON.stringify({ table: "snapshot", ...row, load }) + "\n")
    } else process.stdout.write(`Search (MCTS nodes per second; snapshot/restore cost)\n\n${Benchmark.formatMarkdown(result, load)}\n`)
  })

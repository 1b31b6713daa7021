/**
 * `autodidact bench multiturn [--steps 30000] [--repeats 3] [--eval-episodes 100] [--seed 1] [--json]`: GiGPO on
 * TextHousehold-v0 (default difficulty, `autodidact train`'s household settings) with the optimized DRRN path and with
 * the unoptimized one (reference kernel, no encoding cache), alternating in one run: env steps/s, their ratio, unseen
 * success per run, whether a seed reproduced its run, and the load. The measuring is `MultiTurnBenchmark` of
 * `@autodidact/optim/node`; this only prints. A benchmark, not a test: the figures depend on the machine and its load.
 * @since 0.3.0
 */
import { MultiTurnBenchmark } from "@autodidact/optim/node"
import { Effect } from "effect"
import type { Configs } from "../Commands.js"
import * as Output from "../Output.js"

/** `autodidact bench multiturn` */
export const handleBenchMultiturn = (config: Configs["bench multiturn"]): Effect.Effect<void, unknown> =>
  Effect.promise(async () => {
    const report = await MultiTurnBenchmark.run({
      steps: config.steps,
      repeats: config.repeats,
      evalEpisodes: config.evalEpisodes,
      seed: config.seed,
      onRow: (row) => {
        if (config.json) process.stdout.write(JSON.stringify({ ...row, kind: "bench-multiturn-run" }) + "\n")
        else Output.note(false, `  ${row.implementation} #${row.repeat + 1}: ${row.envSteps} steps in ${row.trainSeconds.toFixed(1)} s (${row.stepsPerSecond.toFixed(0)}/s), unseen success ${row.success.toFixed(2)}`)
      }
    })
    if (config.json) {
      for (const s of report.summaries) process.stdout.write(JSON.stringify({ kind: "bench-multiturn-summary", ...s }) + "\n")
      process.stdout.write(JSON.stringify({ kind: "bench-multiturn-ratio", speedup: report.speedup, loadBefore: report.loadBefore, loadAfter: report.loadAfter, cpus: report.cpus, node: report.node }) + "\n")
    } else {
      process.stdout.write(MultiTurnBenchmark.markdown(report) + "\n")
    }
  })

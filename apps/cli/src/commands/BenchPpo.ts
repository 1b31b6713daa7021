/**
 * `autodidact bench ppo [--seeds 1,2,3,4,5] [--engine wasm-simd|typed-array] [--baseline-seeds 1|none] [--no-tfjs]
 * [--json]`: PPO (CleanRL `ppo.py` defaults) until CartPole-v1's mean return over the last 100 episodes reaches 475,
 * one row per seed (solved, wall s, env steps, episodes, updates) and the median, beside the previous engine
 * (`typed-array`) measured on the baseline seeds in the same run and CleanRL's recorded 76 s; then the actor-critic's
 * network passes per engine and in TensorFlow.js. The measuring is `PpoBenchmark` of `@autodidact/optim/node`; this
 * only prints. A benchmark, not a test: the figures depend on the machine and its load (printed).
 * @since 0.1.0
 */
import { PpoBenchmark } from "@autodidact/optim/node"
import { Effect } from "effect"
import { type Configs, seedList } from "../Commands.js"
import * as Output from "../Output.js"

/** `autodidact bench ppo` */
export const handleBenchPpo = (config: Configs["bench ppo"]): Effect.Effect<void, unknown> =>
  Effect.promise(async () => {
    const report = await PpoBenchmark.run({
      seeds: seedList(config.seeds),
      engine: config.engine,
      baselineSeeds: seedList(config.baselineSeeds),
      tfjs: !config.noTfjs,
      onRow: (row) => {
        if (config.json) process.stdout.write(JSON.stringify({ ...row, kind: `bench-ppo-${row.kind}` }) + "\n")
        else if (row.kind === "solve") Output.note(false, `  ${row.engine} seed ${row.seed}: ${row.solved ? "solved" : "not solved"} in ${row.wallSeconds.toFixed(2)} s, ${row.envSteps} steps`)
      }
    })
    if (config.json) {
      for (const m of PpoBenchmark.medians(report.solves)) process.stdout.write(JSON.stringify({ kind: "bench-ppo-median", ...m }) + "\n")
      process.stdout.write(
        JSON.stringify({ kind: "bench-ppo-baseline", label: PpoBenchmark.CLEANRL_LABEL, wallSeconds: PpoBenchmark.CLEANRL_SECONDS, loadBefore: report.loadBefore, loadAfter: report.loadAfter, cpus: report.cpus, node: report.node }) + "\n"
      )
    } else {
      process.stdout.write(PpoBenchmark.markdown(report) + "\n")
    }
  })

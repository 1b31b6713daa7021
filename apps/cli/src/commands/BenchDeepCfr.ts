/**
 * `autodidact bench deep-cfr [--iterations 300] [--target 0.1] [--seed 0] [--quick] [--json]`: `DeepCfrBenchmark`
 * (`@autodidact/solvers`): SD-CFR on Leduc poker until the exact NashConv of its average policy is at or below the
 * target (at most `--iterations`), beside tabular CFR+ timed in the same process to the same NashConv (ratio column),
 * with the load average before and after. `--quick` runs the benchmark's seconds-long Kuhn configuration instead
 * (`--iterations` then ignored). Progress every 10 iterations goes to stderr; `--json` prints one JSON line per row
 * (and one with the NashConv curve) instead of the table.
 * @since 0.3.0
 */
import { DeepCfrBenchmark } from "@autodidact/solvers"
import { Effect } from "effect"
import * as os from "node:os"
import type { Configs } from "../Commands.js"

const load = () => os.loadavg().map((x) => x.toFixed(2)).join(" ")

/** `autodidact bench deep-cfr` */
export const handleBenchDeepCfr = (config: Configs["bench deep-cfr"]): Effect.Effect<void, unknown> =>
  Effect.try({
    try: () => {
      const load0 = load()
      const options: DeepCfrBenchmark.Options = config.quick
        ? { ...DeepCfrBenchmark.quickOptions, target: config.target, seed: config.seed }
        : { maxIterations: config.iterations, target: config.target, seed: config.seed }
      const report = DeepCfrBenchmark.run(options, (p) => {
        if (p.iteration % 10 === 0) {
          process.stderr.write(
            `  SD-CFR iteration ${p.iteration}: NashConv ${p.nashConv.toFixed(4)} (${p.seconds.toFixed(1)} s: traverse ${p.traverseSeconds.toFixed(1)}, train ${p.trainSeconds.toFixed(1)}; load ${load()})\n`
          )
        }
      })
      const loads = `loadavg ${load0} → ${load()} (${os.cpus().length} cpus)`
      if (config.json) {
        for (const row of DeepCfrBenchmark.rows(report)) process.stdout.write(JSON.stringify({ kind: "row", game: report.game, ...row, loadavg: loads }) + "\n")
        process.stdout.write(JSON.stringify({ kind: "curve", game: report.game, nashConv: report.curve }) + "\n")
      } else process.stdout.write(DeepCfrBenchmark.markdown(report, loads) + "\n")
    },
    catch: (e) => e
  })

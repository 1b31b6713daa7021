/**
 * `autodidact bench deep-cfr [--iterations 300] [--target 0.1] [--seed 0] [--quick] [--engine simd|tfjs]
 * [--max-seconds S] [--json]`: `DeepCfrBenchmark` (`@autodidact/solvers`): SD-CFR on Leduc poker until the exact
 * NashConv of its average policy is at or below the target (at most `--iterations`, and `--max-seconds` of solver
 * time), beside tabular CFR+ timed in the same process to the same NashConv (ratio column), with the load average
 * before and after. `--engine tfjs` trains the advantage networks on TensorFlow.js (`@autodidact/solvers/tfjs`,
 * loaded only then) in a second run after the `simd` one, the baseline, and adds a table of each engine's seconds to
 * NashConv 0.5 … 0.1. `--quick` runs the benchmark's seconds-long Kuhn configuration instead (`--iterations` then
 * ignored). Progress every 10 iterations goes to stderr; `--json` prints one JSON line per row (and one per engine
 * with the NashConv curve) instead of the tables.
 * @since 0.3.0
 */
import { DeepCfr, DeepCfrBenchmark } from "@autodidact/solvers"
import { Effect } from "effect"
import * as os from "node:os"
import type { Configs } from "../Commands.js"

const load = () => os.loadavg().map((x) => x.toFixed(2)).join(" ")

/** `autodidact bench deep-cfr` */
export const handleBenchDeepCfr = (config: Configs["bench deep-cfr"]): Effect.Effect<void, unknown> =>
  Effect.gen(function* () {
    const engines: Array<DeepCfr.Engine> = [DeepCfr.simdEngine]
    if (config.engine === "tfjs") {
      const { DeepCfrTf } = yield* Effect.tryPromise({ try: () => import("@autodidact/solvers/tfjs"), catch: (e) => e })
      engines.push(yield* Effect.tryPromise({ try: () => DeepCfrTf.loadEngine("tfjs"), catch: (e) => e }))
    }
    yield* Effect.try({
      try: () => {
        const load0 = load()
        const limits = { engines, ...(config.maxSeconds._tag === "Some" ? { maxSeconds: config.maxSeconds.value } : {}) }
        const options: DeepCfrBenchmark.Options = config.quick
          ? { ...DeepCfrBenchmark.quickOptions, target: config.target, seed: config.seed, ...limits }
          : { maxIterations: config.iterations, target: config.target, seed: config.seed, ...limits }
        const report = DeepCfrBenchmark.run(options, (p, engine) => {
          if (p.iteration % 10 === 0) {
            process.stderr.write(
              `  SD-CFR (${engine}) iteration ${p.iteration}: NashConv ${p.nashConv.toFixed(4)} (${p.seconds.toFixed(1)} s: traverse ${p.traverseSeconds.toFixed(1)}, train ${p.trainSeconds.toFixed(1)}; load ${load()})\n`
            )
          }
        })
        const loads = `loadavg ${load0} → ${load()} (${os.cpus().length} cpus)`
        if (config.json) {
          for (const row of DeepCfrBenchmark.rows(report)) process.stdout.write(JSON.stringify({ kind: "row", game: report.game, ...row, loadavg: loads }) + "\n")
          for (const run of report.runs) {
            process.stdout.write(JSON.stringify({ kind: "curve", game: report.game, engine: run.config.engine, nashConv: run.curve, seconds: run.seconds }) + "\n")
          }
        } else process.stdout.write(DeepCfrBenchmark.markdown(report, loads) + "\n")
      },
      catch: (e) => e
    })
  })

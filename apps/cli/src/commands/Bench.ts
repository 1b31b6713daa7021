/**
 * `autodidact bench envs [--steps N] [--batch-envs N] [--repeats N] [--no-python] [--json]`: environment throughput, one
 * row per env and mode: the bare env (`raw`), through `make` with its wrappers (`make`), a synchronous vector env of 64
 * (`vector-sync`), the worker-thread one with `--async`, and the structure-of-arrays batched env (`batched`, N sub-envs);
 * beside them Gymnasium's CartPole-v1 raw step and `SyncVectorEnv(64)` as a Python transcription, with the ratio ours /
 * baseline and the load average (`EnvBenchmark` of `@autodidact/envs/node`). `autodidact bench kernels [--quick]
 * [--backends a,b] [--json]`: each numeric kernel on each available engine against NumPy on the same machine (ours /
 * NumPy time), with the engine the default dispatch picks marked (`default` column; `isDefault` in `--json` rows) and a
 * second table of the default engine per case against NumPy.
 * @since 0.1.0
 */
import { EnvBenchmark } from "@autodidact/envs/node" // also enables Registry.makeVec "async" (worker threads)
import { Benchmark } from "@autodidact/kernels/bench"
import { Effect } from "effect"
import * as Output from "../Output.js"
import type { Configs } from "../Commands.js"

/** `autodidact bench envs` */
export const handleBenchEnvs = (config: Configs["bench envs"]): Effect.Effect<void, unknown> =>
  Effect.gen(function* () {
    const result = yield* Effect.promise(() =>
      EnvBenchmark.runEnvBenchmark({
        ...(config.env._tag === "Some" ? { envs: [config.env.value] } : {}),
        steps: config.steps,
        repeats: config.repeats,
        batchEnvs: config.batchEnvs,
        async: config.async,
        seed: config.seed,
        ...(config.noPython ? { python: null } : {}),
        onRow: (row) => Output.note(config.json, `  ${row.env} ${row.mode}: ${Math.round(row.stepsPerSecond)} steps/s`)
      })
    )
    if (config.json) {
      for (const row of result.rows) process.stdout.write(JSON.stringify({ ...row, loadavg: result.loadavg, node: result.node }) + "\n")
    } else process.stdout.write(`Environment throughput (env steps per second)\n\n${EnvBenchmark.formatMarkdown(result)}\n`)
  })

/** `autodidact bench kernels` */
export const handleBenchKernels = (config: Configs["bench kernels"]): Effect.Effect<void, unknown> =>
    Effect.gen(function* () {
      const list = (o: typeof config.backends) => (o._tag === "Some" ? o.value.split(",").map((x) => x.trim()).filter((x) => x.length > 0) : undefined)
      const backends = list(config.backends) as Benchmark.BenchOptions["backends"]
      const kernels = list(config.kernels)
      const rows = yield* Benchmark.runKernelBenchmarks({
        quick: config.quick,
        ...(backends === undefined ? {} : { backends }),
        ...(kernels === undefined ? {} : { kernels }),
        ...(config.noNumpy ? { python: null } : {}),
        onRow: (row) => Output.note(config.json, `  ${row.kernel} ${row.size} on ${row.backend}: ${row.ourMs.toFixed(3)} ms`)
      })
      if (config.json) for (const row of rows) process.stdout.write(JSON.stringify(row) + "\n")
      else {
        process.stdout.write(Benchmark.formatTable(rows) + "\n\nDefault engine per case (what the default dispatch runs here):\n\n")
        process.stdout.write(Benchmark.formatDefaults(rows) + "\n")
      }
    })

/** `autodidact bench ...` */

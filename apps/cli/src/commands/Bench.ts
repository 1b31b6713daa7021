/**
 * `autodidact bench envs [--steps N] [--json]`: environment throughput, one row per env and mode: the bare env
 * (`raw`), through `make` with its wrappers (`make`), and a synchronous vector env of 64 (`vector`), plus the
 * worker-thread vector env when `--async` is given. `autodidact bench kernels [--quick] [--backends a,b] [--json]`: each
 * numeric kernel on each available engine against NumPy on the same machine (ours / NumPy time), with the engine the
 * default dispatch picks marked (`default` column; `isDefault` in `--json` rows) and a second table of the default
 * engine per case against NumPy.
 * @since 0.1.0
 */
import { Rng } from "@autodidact/core"
import { SokobanGenerator, Throughput } from "@autodidact/envs"
import "@autodidact/envs/node" // worker-thread vector envs for --async (Registry.makeVec "async")
import { Benchmark } from "@autodidact/kernels/bench"
import { Effect } from "effect"
import * as Output from "../Output.js"
import type { Configs } from "../Commands.js"

const ENVS = ["CartPole-v1", "FrozenLake-v1", "Sokoban-v0"] as const

/**
 * Constructor options per env for the benchmark. Sokoban-v0 generates a new level at every reset by default
 * (~8 ms each, as gym-sokoban does), which would time the generator rather than the environment, so it steps through
 * a fixed set of 16 generated 10x10 levels (seed 0) instead.
 */
const benchKwargs = (envId: string): Record<string, unknown> =>
  envId === "Sokoban-v0"
    ? { levels: Array.from({ length: 16 }, (_, i) => SokobanGenerator.generate(Rng.make(i), { id: String(i) })) }
    : {}

/** `autodidact bench envs` */
export const handleBenchEnvs = (config: Configs["bench envs"]): Effect.Effect<void, unknown> =>
    Effect.sync(() => {
      const ids = config.env._tag === "Some" ? [config.env.value] : [...ENVS]
      const rows: Array<Record<string, string | number>> = []
      for (const envId of ids) {
        const kwargs = benchKwargs(envId)
        const base = { envId, steps: config.steps, seed: config.seed, kwargs }
        const modes: Array<Throughput.ThroughputOptions> = [
          { ...base, mode: "raw" },
          { ...base, mode: "make" },
          { ...base, mode: "vector", numEnvs: 64, vectorizationMode: "sync" }
        ]
        if (config.async) modes.push({ ...base, mode: "vector", numEnvs: 64, vectorizationMode: "async" })
        for (const m of modes) {
          const r = Throughput.measureThroughput(m)
          const row = {
            env: r.envId,
            mode: r.mode === "vector" ? `vector-${r.vectorizationMode ?? "sync"}` : r.mode,
            numEnvs: r.numEnvs,
            steps: r.steps,
            seconds: Number(r.seconds.toFixed(3)),
            stepsPerSecond: Math.round(r.stepsPerSecond)
          }
          if (config.json) process.stdout.write(JSON.stringify(row) + "\n")
          rows.push(row)
        }
      }
      if (!config.json) Output.printTable(false, "Environment throughput (env steps per second)", rows)
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

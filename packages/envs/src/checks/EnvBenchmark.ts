/**
 * The environment benchmark behind `autodidact bench envs`: steps per second of each env bare (`raw`), through
 * `make` (`make`), in a `SyncVectorEnv` of 64 (`vector-sync`), optionally on worker threads (`vector-async`), and
 * batched as arrays (`batched`, `numEnvs` = `batchEnvs`), each the median of `repeats` runs (the upper middle one for an even count) of
 * {@link Throughput.measureThroughput}; beside them, in the same run, Gymnasium's CartPole-v1 as a Python
 * transcription (`bench/gymnasium_cartpole.py`, run by `python3` with NumPy): its raw `step` and its
 * `SyncVectorEnv` of 64 (NextStep autoreset). The `ratio` column is ours / that baseline (raw and make rows against
 * the raw step, vector and batched rows against the vector env); it is empty where there is no baseline.
 *
 * **When to use**: to measure the targets of the batched envs and the single CartPole; `formatMarkdown` prints the
 * table with the load average before and after (the machine's load skews every figure, the ratio less).
 *
 * **Gotchas**: Node-only (it starts `python3` and reads `os.loadavg`); without python3 or NumPy the baseline rows say
 * why they are missing and the ratios are empty.
 *
 * @see https://github.com/Farama-Foundation/Gymnasium/blob/v1.4.0/gymnasium/envs/classic_control/cartpole.py
 * @since 0.2.0
 */
import { Rng, Statistics } from "@autodidact/core"
import { execFile } from "node:child_process"
import * as os from "node:os"
import { fileURLToPath } from "node:url"
import * as SokobanGenerator from "../sokoban/SokobanGenerator.js"
import { measureThroughput, type ThroughputOptions } from "./Throughput.js"

/** Options of {@link runEnvBenchmark}. */
export interface EnvBenchmarkOptions {
  /** Env ids (default `CartPole-v1`, `FrozenLake-v1`, `Sokoban-v0`). */
  readonly envs?: ReadonlyArray<string> | undefined
  /** Environment steps timed per run of our rows (default 2,000,000; batched rows time 5 times as many). */
  readonly steps?: number | undefined
  /** Runs per row; the row reports the median (default 3). */
  readonly repeats?: number | undefined
  /** Sub-envs of the batched rows (default 1024). */
  readonly batchEnvs?: number | undefined
  /** Also time the worker-thread vector env (needs `@autodidact/envs/node` loaded, which this module's entry is). */
  readonly async?: boolean | undefined
  /** Seed of the envs and the pre-sampled actions (default 0). */
  readonly seed?: number | undefined
  /** Python executable of the baseline (default `python3`); `null` skips it. */
  readonly python?: string | null | undefined
  /** Steps per run of the Python baseline (default 200,000). */
  readonly pythonSteps?: number | undefined
  /** Called with each row as it is measured (our rows before the baseline exists: `ratio` null). */
  readonly onRow?: ((row: EnvBenchmarkRow) => void) | undefined
}

/** One row of the table. */
export interface EnvBenchmarkRow {
  /** The env id. */
  readonly env: string
  /** `raw`, `make`, `vector-sync`, `vector-async`, `batched`, or a baseline's `gymnasium-raw (py)` / `gymnasium-sync (py)`. */
  readonly mode: string
  /** Sub-envs (1 for single envs). */
  readonly numEnvs: number
  /** Median steps per second over the runs. */
  readonly stepsPerSecond: number
  /** Every run's steps per second. */
  readonly runs: ReadonlyArray<number>
  /** The baseline row this one is compared with (its mode), or null. */
  readonly baseline: string | null
  /** Ours / baseline steps per second, or null. */
  readonly ratio: number | null
}

/** What {@link runEnvBenchmark} returns. */
export interface EnvBenchmarkResult {
  /** Our rows then the baseline rows. */
  readonly rows: ReadonlyArray<EnvBenchmarkRow>
  /** `os.loadavg()` (1, 5, 15 min) before and after the run. */
  readonly loadavg: { readonly before: ReadonlyArray<number>; readonly after: ReadonlyArray<number> }
  /** Why the Python baseline is missing, or its Python/NumPy versions. */
  readonly baselineNote: string
  /** `node` version. */
  readonly node: string
}

/** The Python transcription of Gymnasium's CartPole-v1 (`bench/gymnasium_cartpole.py` of this package). */
export const baselineScript = (): string => fileURLToPath(new URL("../../bench/gymnasium_cartpole.py", import.meta.url))

const RAW_BASELINE = "gymnasium-raw (py)"
const VEC_BASELINE = "gymnasium-sync (py)"

/**
 * Constructor options per env: Sokoban-v0 generates a level at every reset by default (~ms each, as gym-sokoban),
 * which would time the generator, so it plays a fixed set of 16 generated 10x10 levels (seeds 0-15) instead.
 */
export const benchKwargs = (envId: string): Record<string, unknown> =>
  envId === "Sokoban-v0"
    ? { levels: Array.from({ length: 16 }, (_, i) => SokobanGenerator.generate(Rng.make(i), { id: String(i) })) }
    : {}

interface PythonRun {
  readonly rates?: ReadonlyArray<number>
  readonly versions?: string
  readonly error?: string
}

const runPython = (python: string, mode: "raw" | "vec", steps: number, repeats: number): Promise<PythonRun> =>
  new Promise((resolve) => {
    execFile(python, [baselineScript(), mode, String(steps), String(repeats)], { timeout: 10 * 60 * 1000 }, (error, stdout, stderr) => {
      if (error !== null) {
        resolve({ error: `${python} ${baselineScript()} failed: ${(stderr || error.message).trim().split("\n").slice(-1)[0]}` })
        return
      }
      try {
        const out = JSON.parse(stdout) as { python: string; numpy: string; stepsPerSecond: Array<number> }
        resolve({ rates: out.stepsPerSecond, versions: `Python ${out.python}, NumPy ${out.numpy}` })
      } catch (e) {
        resolve({ error: `unreadable output of ${python} ${baselineScript()}: ${String(e)}` })
      }
    })
  })

/**
 * Measure every row (ours, then the Python baseline, one after the other so they do not share the cores).
 * @throws InvalidOptionError / UnknownEnvError from `measureThroughput` for a bad option or id.
 */
export const runEnvBenchmark = async (options: EnvBenchmarkOptions = {}): Promise<EnvBenchmarkResult> => {
  const before = os.loadavg()
  const envs = options.envs ?? ["CartPole-v1", "FrozenLake-v1", "Sokoban-v0"]
  const steps = options.steps ?? 2_000_000
  const repeats = options.repeats ?? 3
  const batchEnvs = options.batchEnvs ?? 1024
  const seed = options.seed ?? 0
  const ours: Array<Omit<EnvBenchmarkRow, "ratio" | "baseline">> = []
  for (const envId of envs) {
    const kwargs = benchKwargs(envId)
    const base = { envId, seed, kwargs }
    const modes: Array<[string, ThroughputOptions]> = [
      ["raw", { ...base, mode: "raw", steps }],
      ["make", { ...base, mode: "make", steps }],
      ["vector-sync", { ...base, mode: "vector", numEnvs: 64, vectorizationMode: "sync", steps }]
    ]
    if (options.async === true) modes.push(["vector-async", { ...base, mode: "vector", numEnvs: 64, vectorizationMode: "async", steps }])
    modes.push(["batched", { ...base, mode: "vector", numEnvs: batchEnvs, vectorizationMode: "batched", steps: 5 * steps }])
    for (const [label, m] of modes) {
      const runs = Array.from({ length: repeats }, () => measureThroughput(m).stepsPerSecond)
      const row = { env: envId, mode: label, numEnvs: m.mode === "vector" ? m.numEnvs ?? 64 : 1, stepsPerSecond: Statistics.median(runs), runs }
      ours.push(row)
      options.onRow?.({ ...row, baseline: null, ratio: null })
    }
  }
  let baselineNote = "skipped (python: null)"
  const baselines: Array<EnvBenchmarkRow> = []
  if (options.python !== null && envs.includes("CartPole-v1")) {
    const python = options.python ?? "python3"
    const pySteps = options.pythonSteps ?? 200_000
    const raw = await runPython(python, "raw", pySteps, repeats)
    const vec = raw.error === undefined ? await runPython(python, "vec", pySteps, repeats) : raw
    if (raw.rates !== undefined && vec.rates !== undefined) {
      baselineNote = `Gymnasium 1.x CartPole-v1 transcribed to Python (bench/gymnasium_cartpole.py), ${raw.versions}`
      baselines.push({ env: "CartPole-v1", mode: RAW_BASELINE, numEnvs: 1, stepsPerSecond: Statistics.median(raw.rates), runs: raw.rates, baseline: null, ratio: null })
      baselines.push({ env: "CartPole-v1", mode: VEC_BASELINE, numEnvs: 64, stepsPerSecond: Statistics.median(vec.rates), runs: vec.rates, baseline: null, ratio: null })
    } else baselineNote = `baseline unavailable: ${raw.error ?? vec.error}`
  }
  const rows: Array<EnvBenchmarkRow> = ours.map((r) => {
    const name = r.env !== "CartPole-v1" ? undefined : r.mode === "raw" || r.mode === "make" ? RAW_BASELINE : VEC_BASELINE
    const b = baselines.find((x) => x.mode === name)
    return { ...r, baseline: b === undefined ? null : b.mode, ratio: b === undefined ? null : r.stepsPerSecond / b.stepsPerSecond }
  })
  for (const b of baselines) options.onRow?.(b)
  rows.push(...baselines)
  return { rows, loadavg: { before, after: os.loadavg() }, baselineNote, node: process.version }
}

const fmt = (x: number): string => Math.round(x).toLocaleString("en-US")

/** The result as a markdown table (env, mode, numEnvs, median steps/s, runs, baseline, ratio) with the load average. */
export const formatMarkdown = (result: EnvBenchmarkResult): string => {
  const head = "| env | mode | numEnvs | steps/s (median) | runs | ratio (ours / baseline) |\n|---|---|---:|---:|---|---:|"
  const lines = result.rows.map((r) =>
    `| ${r.env} | ${r.mode} | ${r.numEnvs} | ${fmt(r.stepsPerSecond)} | ${r.runs.map(fmt).join(", ")} | ${r.ratio === null ? "" : `${r.ratio.toFixed(1)}x vs ${r.baseline}`} |`
  )
  const load = (xs: ReadonlyArray<number>) => xs.map((x) => x.toFixed(2)).join(" ")
  return [
    head,
    ...lines,
    "",
    `loadavg before: ${load(result.loadavg.before)}; after: ${load(result.loadavg.after)}; ${os.availableParallelism()} cores; node ${result.node}`,
    `baseline: ${result.baselineNote}`
  ].join("\n")
}

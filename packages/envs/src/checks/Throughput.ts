/**
 * Environment throughput: how many environment steps per second an env takes, bare, through `make`'s wrappers, or
 * batched in a vector env. Actions come from a pre-sampled array so that sampling is not measured; episodes are
 * reset as they end (in vector mode, by the vector env's autoreset).
 *
 * **When to use**: before and after a change to a hot path (`step`, a wrapper, batching), or to choose between
 * `SyncVectorEnv` and `AsyncVectorEnv` for an env. `bench/throughput.ts` prints a table.
 *
 * **Gotchas**: the first `warmupSteps` (default 10% of `steps`, at most 50,000) run before the clock starts so the
 * JIT has compiled the loop; numbers vary with the machine and its load.
 *
 * @example
 * ```ts
 * import { Throughput } from "@autodidact/envs"
 * const r = Throughput.measureThroughput({ envId: "CartPole-v1", mode: "raw", steps: 1_000_000, seed: 0 })
 * console.log(r.stepsPerSecond)
 * ```
 * @since 0.1.0
 */
import { InvalidOptionError, Rng, Space } from "@autodidact/core"
import type { AnyEnv } from "../Env.js"
import * as Registry from "../Registry.js"
import * as VectorBatch from "../vector/VectorBatch.js"
import type { Batch } from "../vector/VectorEnv.js"

/** Options of {@link measureThroughput}. */
export interface ThroughputOptions {
  /** A registered id, e.g. `CartPole-v1`. */
  readonly envId: string
  /** `raw`: the unwrapped env; `make`: with `make`'s wrappers; `vector`: a vector env of `numEnvs` wrapped envs. */
  readonly mode: "raw" | "make" | "vector"
  /** Vector mode only; default 64. */
  readonly numEnvs?: number | undefined
  /**
   * Vector mode only; default `"sync"`. `"async"` needs `@autodidact/envs/node` loaded (see `Registry.makeVec`);
   * `"batched"` is the id's structure-of-arrays vector env.
   */
  readonly vectorizationMode?: "sync" | "async" | "batched" | undefined
  /** Environment steps to time (vector mode: rounded up to a multiple of `numEnvs`). */
  readonly steps: number
  /** Seed of the first reset and of the pre-sampled actions. */
  readonly seed: number
  /** Untimed steps first (default `min(50_000, steps / 10)`). */
  readonly warmupSteps?: number | undefined
  /** Kwargs passed to `make`. */
  readonly kwargs?: Registry.Kwargs | undefined
}

/** What {@link measureThroughput} reports. */
export interface ThroughputResult {
  /** The id measured. */
  readonly envId: string
  /** How it was stepped (see {@link ThroughputOptions}). */
  readonly mode: "raw" | "make" | "vector"
  /** 1 for raw/make. */
  readonly numEnvs: number
  /** Vector mode only: sync, async or batched. */
  readonly vectorizationMode?: "sync" | "async" | "batched" | undefined
  /** Environment steps timed. */
  readonly steps: number
  /** Wall-clock seconds. */
  readonly seconds: number
  /** `steps / seconds`. */
  readonly stepsPerSecond: number
}

const ACTION_POOL = 4096

const runSingle = (env: AnyEnv, actions: ReadonlyArray<unknown>, steps: number): void => {
  const mask = ACTION_POOL - 1
  for (let i = 0; i < steps; i++) {
    const r = env.step(actions[i & mask])
    if (r.terminated || r.truncated) env.reset()
  }
}

/**
 * Time `steps` environment steps with random (pre-sampled) actions.
 * @throws InvalidOptionError when `steps` or `numEnvs` is not a positive integer; UnknownEnvError for an unknown id.
 */
export const measureThroughput = (options: ThroughputOptions): ThroughputResult => {
  const { envId, mode, seed } = options
  if (!Number.isInteger(options.steps) || options.steps <= 0) {
    throw new InvalidOptionError({ option: "steps", value: options.steps, reason: "expected a positive integer" })
  }
  const warmup = options.warmupSteps ?? Math.min(50_000, Math.floor(options.steps / 10))
  const rng = Rng.make(seed)
  const kwargs = options.kwargs ?? {}
  if (mode === "raw" || mode === "make") {
    const made = Registry.make(envId, kwargs)
    const env: AnyEnv = mode === "raw" ? made.unwrapped : made
    const actions = Array.from({ length: ACTION_POOL }, () => Space.sample(env.actionSpace, rng))
    env.reset({ seed })
    runSingle(env, actions, warmup)
    env.reset({ seed })
    const t0 = performance.now()
    runSingle(env, actions, options.steps)
    const seconds = (performance.now() - t0) / 1000
    env.close()
    return { envId, mode, numEnvs: 1, steps: options.steps, seconds, stepsPerSecond: options.steps / seconds }
  }
  const numEnvs = options.numEnvs ?? 64
  if (!Number.isInteger(numEnvs) || numEnvs <= 0) {
    throw new InvalidOptionError({ option: "numEnvs", value: numEnvs, reason: "expected a positive integer" })
  }
  const vectorizationMode = options.vectorizationMode ?? "sync"
  const envs = Registry.makeVec(envId, numEnvs, { vectorizationMode, kwargs })
  try {
    const batches: Array<Batch> = []
    for (let b = 0; b < 64; b++) {
      const batch = VectorBatch.create(envs.singleActionSpace, numEnvs)
      for (let i = 0; i < numEnvs; i++) VectorBatch.write(envs.singleActionSpace, batch, i, Space.sample(envs.singleActionSpace, rng))
      batches.push(batch)
    }
    const calls = Math.ceil(options.steps / numEnvs)
    const warmCalls = Math.ceil(warmup / numEnvs)
    envs.reset({ seed })
    for (let c = 0; c < warmCalls; c++) envs.step(batches[c & 63]!)
    envs.reset({ seed })
    const t0 = performance.now()
    for (let c = 0; c < calls; c++) envs.step(batches[c & 63]!)
    const seconds = (performance.now() - t0) / 1000
    const steps = calls * numEnvs
    return { envId, mode, numEnvs, vectorizationMode, steps, seconds, stepsPerSecond: steps / seconds }
  } finally {
    envs.close()
  }
}

/** Format results as an aligned text table (env, mode, numEnvs, steps, seconds, steps/s). */
export const formatTable = (results: ReadonlyArray<ThroughputResult>): string => {
  const header = ["env", "mode", "numEnvs", "steps", "seconds", "steps/s"]
  const rows = results.map((r) => [
    r.envId,
    r.mode === "vector" ? `vector(${r.vectorizationMode ?? "sync"})` : r.mode,
    String(r.numEnvs),
    String(r.steps),
    r.seconds.toFixed(3),
    Math.round(r.stepsPerSecond).toLocaleString("en-US")
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)))
  const line = (cells: ReadonlyArray<string>) => cells.map((c, i) => c.padStart(widths[i]!)).join("  ")
  return [line(header), ...rows.map(line)].join("\n")
}

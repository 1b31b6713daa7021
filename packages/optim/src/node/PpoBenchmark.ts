/**
 * Time for PPO to solve CartPole-v1, per seed and engine, beside its baselines: what `autodidact bench ppo` prints.
 *
 * **What is measured**
 * - Solve rows: {@link Ppo.train} with CleanRL `ppo.py`'s defaults (4 envs × 128 steps, lr 2.5e-4 annealed over
 *   500 000 steps, 4 minibatches × 4 epochs, clip 0.2, GAE γ 0.99 λ 0.95, ent 0.01, vf 0.5, max-grad-norm 0.5, 64-64
 *   tanh MLPs, Adam ε 1e-5, orthogonal init) on `CartPole-v1` (synchronous vector env, `autoresetMode: "SameStep"`),
 *   stopped when the mean return of the last 100 episodes reaches 475: wall-clock seconds (env creation to stop),
 *   environment steps, episodes, updates. One row per (engine, seed), run one after another (never concurrently).
 * - The previous engine (`typed-array`, the float64 loops PPO ran on before `wasm-simd`) on `baselineSeeds` in the
 *   same run: the ratio column divides each seed's time by that seed's `typed-array` time.
 * - CleanRL's `ppo.py`: no PyTorch on the benchmark machine, so its 76 s is the figure recorded on the same 2-core
 *   machine in an earlier session ({@link CLEANRL_SECONDS}), labelled as such.
 * - Network rows: the actor-critic's forward pass on 4 rows (one rollout step) and forward + backward on 128 rows (one
 *   minibatch), per engine, and the same network in TensorFlow.js (weights resident as `tf.Variable`s, inputs
 *   uploaded and results read back with `dataSync`, gradients by `tf.variableGrads`) on its `wasm` backend, when
 *   `tfjs` is set and the optional peers are installed. Fastest of 5 samples of ≥ 20 ms each, in µs per call.
 * - `loadavg` (1, 5, 15 minutes) is read before and after: timings on a loaded machine are not comparable across runs,
 *   only within one.
 * @see https://github.com/vwxyzjn/cleanrl/blob/master/cleanrl/ppo.py
 * @since 0.2.0
 */
import { Rng, Statistics } from "@autodidact/core"
import { Registry } from "@autodidact/envs"
import { Effect } from "effect"
import { cpus, loadavg } from "node:os"
import * as ActorCritic from "../ppo/ActorCritic.js"
import * as Ppo from "../ppo/Ppo.js"

/** CleanRL `ppo.py`'s time to solve CartPole-v1 on this 2-core machine, recorded in an earlier session (seconds). */
export const CLEANRL_SECONDS = 76
/** How the CleanRL figure is labelled wherever it is printed. */
export const CLEANRL_LABEL = "CleanRL ppo.py: recorded, earlier session, no PyTorch here"

/** One PPO run to the CartPole goal. */
export interface SolveRow {
  readonly kind: "solve"
  readonly engine: ActorCritic.Engine
  readonly seed: number
  readonly solved: boolean
  /** Wall-clock seconds from creating the env to the stop. */
  readonly wallSeconds: number
  /** Environment steps (all envs) when the goal was reached (or the budget ran out). */
  readonly envSteps: number
  readonly episodes: number
  readonly updates: number
  /** Mean return of the last 100 episodes at the stop. */
  readonly meanReturn: number
}

/** The engine names of the network rows: the two `ActorCritic` engines and TensorFlow.js on its wasm backend. */
export type NetworkEngine = ActorCritic.Engine | "tfjs-wasm"

/** Time per call of one network pass. */
export interface NetworkRow {
  readonly kind: "network"
  readonly engine: NetworkEngine
  readonly pass: "forward, 4 rows (rollout step)" | "forward + backward, 128 rows (minibatch)"
  /** µs per call (fastest sample); null when the engine could not run (see `note`). */
  readonly microseconds: number | null
  /** microseconds / typed-array's microseconds for the same pass. */
  readonly ratioToTypedArray: number | null
  readonly note?: string | undefined
}

/** Options of {@link run}. */
export interface RunOptions {
  /** Seeds of the `engine` runs. Default 1, 2, 3, 4, 5. */
  readonly seeds?: ReadonlyArray<number> | undefined
  /** The engine measured. Default `"wasm-simd"`. */
  readonly engine?: ActorCritic.Engine | undefined
  /** Seeds on which the previous engine (`typed-array`) also runs, for the ratio column. Default [1]; [] for none. */
  readonly baselineSeeds?: ReadonlyArray<number> | undefined
  /** Time the network passes (and TensorFlow.js's, when `tfjs`). Default true. */
  readonly network?: boolean | undefined
  /** Include TensorFlow.js (wasm backend) in the network rows. Default true; skipped with a note when not installed. */
  readonly tfjs?: boolean | undefined
  /** Called after each row (progress). */
  readonly onRow?: ((row: SolveRow | NetworkRow) => void) | undefined
}

/** What {@link run} returns. */
export interface Report {
  readonly solves: ReadonlyArray<SolveRow>
  readonly network: ReadonlyArray<NetworkRow>
  readonly loadBefore: ReadonlyArray<number>
  readonly loadAfter: ReadonlyArray<number>
  readonly cpus: number
  readonly node: string
}


/**
 * One PPO run on CartPole-v1 (CleanRL defaults, `seed`, `engine`) until the mean return of the last 100 episodes
 * reaches 475 or 500 000 steps are spent.
 */
export const solveCartPole = async (seed: number, engine: ActorCritic.Engine): Promise<SolveRow> => {
  const t0 = performance.now()
  const env = Registry.makeVec("CartPole-v1", 4, { autoresetMode: "SameStep" })
  try {
    const r = await Effect.runPromise(Ppo.train(env, { seed, engine, stopWhen: { meanReturn: 475 } }))
    return {
      kind: "solve",
      engine: r.agent.engine,
      seed,
      solved: r.stopReason === "solved",
      wallSeconds: (performance.now() - t0) / 1000,
      envSteps: r.globalStep,
      episodes: r.episodes,
      updates: r.state.iteration,
      meanReturn: r.meanRecentReturn
    }
  } finally {
    env.close()
  }
}

/** µs per call of `f`: fastest of 5 samples, each of enough calls to last ≥ 20 ms (after one warm-up sample). */
const microsPerCall = (f: () => void): number => {
  let n = 1
  for (;;) {
    const t0 = performance.now()
    for (let k = 0; k < n; k++) f()
    if (performance.now() - t0 >= 20) break
    n *= 2
  }
  let best = Infinity
  for (let s = 0; s < 5; s++) {
    const t0 = performance.now()
    for (let k = 0; k < n; k++) f()
    best = Math.min(best, (performance.now() - t0) / n)
  }
  return best * 1000
}

const passes = [
  ["forward, 4 rows (rollout step)", 4, false],
  ["forward + backward, 128 rows (minibatch)", 128, true]
] as const

/** The network rows: each pass on both `ActorCritic` engines, and on TensorFlow.js's wasm backend when `tfjs`. */
export const timeNetwork = async (tfjs: boolean): Promise<Array<NetworkRow>> => {
  const sizes = { obsDim: 4, numActions: 2, hidden: 64 }
  const rng = Rng.make(0)
  const obs = Float32Array.from({ length: 128 * 4 }, () => rng.normal())
  const dLogits = Float64Array.from({ length: 128 * 2 }, () => rng.normal())
  const dValues = Float64Array.from({ length: 128 }, () => rng.normal())
  const reference = ActorCritic.make({ ...sizes, rng: Rng.make(1) })
  const rows: Array<NetworkRow> = []
  const base = new Map<string, number>()
  for (const engine of ["typed-array", "wasm-simd"] as const) {
    const net = ActorCritic.fromParams(sizes, reference.params, engine)
    const grad = new Float64Array(net.params.length)
    for (const [pass, batch, backward] of passes) {
      if (net.engine !== engine) {
        rows.push({ kind: "network", engine, pass, microseconds: null, ratioToTypedArray: null, note: "WebAssembly SIMD unavailable" })
        continue
      }
      const us = microsPerCall(() => {
        ActorCritic.forward(net, obs, batch)
        if (backward) ActorCritic.backward(net, batch, dLogits, dValues, grad)
      })
      if (engine === "typed-array") base.set(pass, us)
      rows.push({ kind: "network", engine, pass, microseconds: us, ratioToTypedArray: us / base.get(pass)! })
    }
  }
  if (tfjs) rows.push(...(await timeTfjs(reference, obs, dLogits, dValues, base)))
  return rows
}

const timeTfjs = async (
  net: ActorCritic.ActorCritic,
  obs: Float32Array,
  dLogits: Float64Array,
  dValues: Float64Array,
  base: ReadonlyMap<string, number>
): Promise<Array<NetworkRow>> => {
  let loaded: { tf: import("@autodidact/kernels/tfjs").Backend.Tf; ActorCriticTf: typeof import("../tfjs.js").ActorCriticTf }
  try {
    const m = await import("../tfjs.js")
    const backend = await m.loadBackend({ force: "wasm" })
    loaded = { tf: backend.tf, ActorCriticTf: m.ActorCriticTf }
  } catch (e) {
    const note = `TensorFlow.js unavailable: ${(e instanceof Error ? e.message : String(e)).split("\n")[0]}`
    return passes.map(([pass]) => ({ kind: "network", engine: "tfjs-wasm", pass, microseconds: null, ratioToTypedArray: null, note }))
  }
  const { tf, ActorCriticTf } = loaded
  const w = ActorCriticTf.toVariables(net, tf)
  const mlp = (x: import("@tensorflow/tfjs-core").Tensor, k: number) =>
    tf.add(tf.matMul(tf.tanh(tf.add(tf.matMul(tf.tanh(tf.add(tf.matMul(x, w[k]!), w[k + 1]!)), w[k + 2]!), w[k + 3]!)), w[k + 4]!), w[k + 5]!)
  const rows: Array<NetworkRow> = []
  try {
    for (const [pass, batch, backward] of passes) {
      const us = microsPerCall(() =>
        tf.tidy(() => {
          const x = tf.tensor2d(obs.subarray(0, batch * 4), [batch, 4])
          if (!backward) {
            mlp(x, 0).dataSync()
            mlp(x, 6).dataSync()
            return
          }
          const dl = tf.tensor2d(Float32Array.from(dLogits.subarray(0, batch * 2)), [batch, 2])
          const dv = tf.tensor2d(Float32Array.from(dValues.subarray(0, batch)), [batch, 1])
          const { grads } = tf.variableGrads(() => tf.add(tf.sum(tf.mul(mlp(x, 0), dl)), tf.sum(tf.mul(mlp(x, 6), dv))) as import("@tensorflow/tfjs-core").Scalar, w)
          for (const g of Object.values(grads)) g.dataSync()
        })
      )
      rows.push({ kind: "network", engine: "tfjs-wasm", pass, microseconds: us, ratioToTypedArray: us / base.get(pass)! })
    }
  } finally {
    tf.dispose(w)
  }
  return rows
}

/**
 * The benchmark: the network rows (unless `network: false`), then `engine` on every seed and `typed-array` on the
 * baseline seeds, one run at a time. Never fails on an unsolved seed (the row says `solved: false`).
 */
export const run = async (options: RunOptions = {}): Promise<Report> => {
  const seeds = options.seeds ?? [1, 2, 3, 4, 5]
  const engine = options.engine ?? "wasm-simd"
  const baselineSeeds = engine === "typed-array" ? [] : (options.baselineSeeds ?? [1])
  const loadBefore = loadavg()
  const network: Array<NetworkRow> = []
  if (options.network ?? true) {
    for (const row of await timeNetwork(options.tfjs ?? true)) {
      network.push(row)
      options.onRow?.(row)
    }
  }
  const solves: Array<SolveRow> = []
  const jobs: Array<[number, ActorCritic.Engine]> = [...seeds.map((s): [number, ActorCritic.Engine] => [s, engine]), ...baselineSeeds.map((s): [number, ActorCritic.Engine] => [s, "typed-array"])]
  for (const [seed, e] of jobs) {
    const row = await solveCartPole(seed, e)
    solves.push(row)
    options.onRow?.(row)
  }
  return { solves, network, loadBefore, loadAfter: loadavg(), cpus: cpus().length, node: process.version }
}

const fmt = (x: number | null | undefined, digits: number): string => (x === null || x === undefined || !Number.isFinite(x) ? "–" : x.toFixed(digits))
const steps = (n: number): string => String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, " ")

/** The ratio of a solve row's time to the `typed-array` run of the same seed in `rows` (null when there is none). */
export const ratioToTypedArray = (row: SolveRow, rows: ReadonlyArray<SolveRow>): number | null => {
  const base = rows.find((r) => r.engine === "typed-array" && r.seed === row.seed)
  return base === undefined ? null : row.wallSeconds / base.wallSeconds
}

/** Per-engine summary rows: median wall seconds, env steps and episodes over that engine's seeds, seeds solved. */
export const medians = (rows: ReadonlyArray<SolveRow>): Array<{ engine: ActorCritic.Engine; seeds: number; solved: number; wallSeconds: number; envSteps: number; episodes: number; ratioToTypedArray: number | null; ratioToCleanRl: number }> =>
  [...new Set(rows.map((r) => r.engine))].map((engine) => {
    const mine = rows.filter((r) => r.engine === engine)
    const ratios = mine.map((r) => ratioToTypedArray(r, rows)).filter((x): x is number => x !== null)
    const wall = Statistics.median(mine.map((r) => r.wallSeconds))
    return {
      engine,
      seeds: mine.length,
      solved: mine.filter((r) => r.solved).length,
      wallSeconds: wall,
      envSteps: Statistics.median(mine.map((r) => r.envSteps)),
      episodes: Statistics.median(mine.map((r) => r.episodes)),
      ratioToTypedArray: ratios.length === 0 ? null : Statistics.median(ratios),
      ratioToCleanRl: wall / CLEANRL_SECONDS
    }
  })

/** The report as Markdown tables (solve rows with medians and the CleanRL line, then the network rows). */
export const markdown = (report: Report): string => {
  const lines: Array<string> = []
  const la = (l: ReadonlyArray<number>) => l.map((x) => x.toFixed(2)).join(" ")
  lines.push(
    `PPO on CartPole-v1 until the mean return of the last 100 episodes is ≥ 475 (CleanRL ppo.py defaults, 4 envs). ` +
      `Node ${report.node}, ${report.cpus} CPUs, loadavg ${la(report.loadBefore)} before, ${la(report.loadAfter)} after.`,
    "",
    "| engine | seed | solved | wall s | env steps | episodes | updates | × typed-array (same seed) | × CleanRL (76 s) |",
    "|:--|--:|:--|--:|--:|--:|--:|--:|--:|"
  )
  for (const r of report.solves) {
    lines.push(
      `| ${r.engine} | ${r.seed} | ${r.solved ? "yes" : "no"} | ${fmt(r.wallSeconds, 2)} | ${steps(r.envSteps)} | ${r.episodes} | ${r.updates} | ${fmt(ratioToTypedArray(r, report.solves), 3)} | ${fmt(r.wallSeconds / CLEANRL_SECONDS, 3)} |`
    )
  }
  for (const m of medians(report.solves)) {
    lines.push(
      `| **${m.engine}** | **median of ${m.seeds}** | ${m.solved}/${m.seeds} | **${fmt(m.wallSeconds, 2)}** | ${steps(m.envSteps)} | ${steps(m.episodes)} | | ${fmt(m.ratioToTypedArray, 3)} | **${fmt(m.ratioToCleanRl, 3)}** |`
    )
  }
  lines.push(`| ${CLEANRL_LABEL} | | yes | ${CLEANRL_SECONDS} | | | | | 1 |`)
  if (report.network.length > 0) {
    lines.push("", "Actor-critic network passes (µs per call, fastest of 5 samples):", "", "| engine | pass | µs | × typed-array | note |", "|:--|:--|--:|--:|:--|")
    for (const r of report.network) lines.push(`| ${r.engine} | ${r.pass} | ${fmt(r.microseconds, 1)} | ${fmt(r.ratioToTypedArray, 3)} | ${r.note ?? ""} |`)
  }
  return lines.join("\n")
}

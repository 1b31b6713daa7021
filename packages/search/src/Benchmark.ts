/**
 * The search benchmark behind `autodidact bench search` and `bench/search.ts`: MCTS nodes and env steps per second on
 * TextHousehold-v0 and text Sokoban, with the raw env step rate of a random policy measured in the same run as the
 * baseline (ratio = search env steps/s ÷ raw env steps/s: the search's overhead per env step), and the cost per call
 * of `snapshot()` and `restore()` beside the cost of one `step()`.
 *
 * **Details**
 * - Every figure is the median over `repeats` runs. MCTS runs start from `reset({ seed })` and stop at their
 *   `envSteps` budget; a node is a distinct state key stored.
 * - Rows: UCT with random rollouts (depth 10), and PUCT with a prior and a value function (no rollouts). The prior
 *   and value here are cheap stand-ins (a fixed pseudo-random distribution per state and 0), not a neural network: the
 *   rows measure the search and env costs; a learned prior adds its own inference time.
 * - `step` cost in the snapshot table: time of `restore + step` pairs minus time of `restore` alone, per call.
 * - Plain: no Effect, no Node built-ins (the caller supplies the load average).
 * @since 0.1.0
 */
import { Rng } from "@autodidact/core"
import { SokobanLevel, TextFrozenLake, TextHousehold, TextSokoban } from "@autodidact/envs"
import * as Mcts from "./Mcts.js"
import type { SearchEnv } from "./NodeStore.js"
import * as Value from "./Value.js"

/** One MCTS row. */
export interface MctsRow {
  readonly env: string
  readonly search: string
  /** Env steps the last repeat used (its budget unless the search ended first). */
  readonly envSteps: number
  readonly nodes: number
  /** MCTS simulations of the last repeat. */
  readonly simulations: number
  readonly nodesPerSecond: number
  readonly envStepsPerSecond: number
  /** Raw random-policy env steps per second, same env, same run. */
  readonly rawStepsPerSecond: number
  /** envStepsPerSecond / rawStepsPerSecond. */
  readonly ratio: number
}

/** One snapshot/restore row (microseconds per call). */
export interface SnapshotRow {
  readonly env: string
  readonly snapshotUs: number
  readonly restoreUs: number
  readonly stepUs: number
  /** restoreUs / stepUs. */
  readonly restoreOverStep: number
}

/** Benchmark options. */
export interface Options {
  /** Env-step budget per MCTS run (default 20000). */
  readonly envSteps?: number | undefined
  /** Repeats per figure (default 3). */
  readonly repeats?: number | undefined
  /** Calls per snapshot/restore timing (default 20000). */
  readonly calls?: number | undefined
  readonly onRow?: ((line: string) => void) | undefined
}

export interface Result {
  readonly mcts: ReadonlyArray<MctsRow>
  readonly snapshot: ReadonlyArray<SnapshotRow>
}

/** The median (mean of the middle two for an even count). */
const median = (xs: Array<number>): number => {
  const sorted = Float64Array.from(xs).sort()
  const half = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 0 ? 0.5 * (sorted[half - 1]! + sorted[half]!) : sorted[half]!
}

interface EnvCase {
  readonly name: string
  readonly make: () => SearchEnv
  readonly seed: number
  readonly options?: { readonly [key: string]: unknown } | undefined
}

/** A one-box level whose solution takes 16 steps (random play does not solve it), so MCTS spends its whole budget. */
const LEVEL = SokobanLevel.fromRows(["######", "#@   #", "#  $ #", "## # #", "#.   #", "######"])

const cases: ReadonlyArray<EnvCase> = [
  // seed 2: "clean some soapbar and put it on toilet.", not solved within the budget
  { name: "TextHousehold-v0 (default, seed 2)", make: () => new TextHousehold.TextHousehold(), seed: 2 },
  { name: "Sokoban-6x6-1box-v0 (16-step level)", make: () => new TextSokoban.TextSokoban(), seed: 1, options: { level: LEVEL } }
]

/** A fixed pseudo-random distribution per state (a stand-in prior). */
const standInPrior: Mcts.Prior = (input) => {
  let h = 2166136261
  for (let i = 0; i < input.observation.length; i++) h = Math.imul(h ^ input.observation.charCodeAt(i), 16777619)
  const out = new Array<number>(input.admissible.length)
  for (let i = 0; i < out.length; i++) {
    h = Math.imul(h ^ (i + 1), 2654435761)
    out[i] = 0.05 + (h >>> 8) / 16777216
  }
  return out
}

const rawStepsPerSecond = (c: EnvCase, steps: number): number => {
  const env = c.make()
  env.reset({ seed: c.seed, options: c.options })
  const start = env.snapshot()
  const rng = Rng.make(0)
  const t0 = performance.now()
  for (let i = 0; i < steps; i++) {
    const a = env.admissibleActions()
    const r = env.step(a[rng.integers(a.length)]!)
    if (r.terminated || r.truncated) env.restore(start)
  }
  return steps / ((performance.now() - t0) / 1000)
}

/** Run the benchmark. */
export const run = (options: Options = {}): Result => {
  const envSteps = options.envSteps ?? 20000
  const repeats = options.repeats ?? 3
  const calls = options.calls ?? 20000
  const mcts: Array<MctsRow> = []
  const searches: ReadonlyArray<readonly [string, Omit<Mcts.Options, "budget">]> = [
    ["MCTS UCT, random rollouts (depth 10)", { value: Value.randomRollout(10) }],
    ["MCTS PUCT, prior + value function", { selection: "puct", prior: standInPrior, value: Value.fromFunction(() => 0) }]
  ]
  for (const c of cases) {
    for (const [label, opts] of searches) {
      const nps: Array<number> = []
      const sps: Array<number> = []
      const raw: Array<number> = []
      let nodes = 0
      let simulations = 0
      let used = 0
      // one unmeasured run first (JIT warm-up)
      {
        const env = c.make()
        const { observation } = env.reset({ seed: c.seed, options: c.options })
        Mcts.search(env, observation, { ...opts, budget: { envSteps }, seed: 99 })
        rawStepsPerSecond(c, envSteps)
      }
      for (let k = 0; k < repeats; k++) {
        const env = c.make()
        const { observation } = env.reset({ seed: c.seed, options: c.options })
        const t0 = performance.now()
        const r = Mcts.search(env, observation, { ...opts, budget: { envSteps }, seed: k })
        const s = (performance.now() - t0) / 1000
        nodes = r.stats.nodes
        simulations = r.stats.iterations
        used = r.stats.envSteps
        nps.push(r.stats.nodes / s)
        sps.push(r.stats.envSteps / s)
        raw.push(rawStepsPerSecond(c, envSteps))
      }
      const row: MctsRow = {
        env: c.name,
        search: label,
        envSteps: used,
        nodes,
        simulations,
        nodesPerSecond: median(nps),
        envStepsPerSecond: median(sps),
        rawStepsPerSecond: median(raw),
        ratio: median(sps) / median(raw)
      }
      mcts.push(row)
      options.onRow?.(`${row.env} ${row.search}: ${Math.round(row.nodesPerSecond)} nodes/s`)
    }
  }
  const snapshot: Array<SnapshotRow> = []
  const snapCases: ReadonlyArray<EnvCase> = [
    ...cases,
    { name: "TextHousehold-v0 (easy)", make: () => new TextHousehold.TextHousehold({ difficulty: "easy" }), seed: 1 },
    { name: "TextFrozenLake-v1 (4x4, slippery)", make: () => new TextFrozenLake.TextFrozenLake(), seed: 1 }
  ]
  for (const c of snapCases) {
    const sn: Array<number> = []
    const re: Array<number> = []
    const st: Array<number> = []
    for (let k = 0; k < repeats; k++) {
      const env = c.make()
      env.reset({ seed: c.seed, options: c.options })
      if (k === 0) for (let i = 0; i < calls; i++) env.restore(env.snapshot()) // warm-up
      const a = env.admissibleActions()
      const action = a[a.length >> 1]!
      let t0 = performance.now()
      let s = env.snapshot()
      for (let i = 1; i < calls; i++) s = env.snapshot()
      sn.push(((performance.now() - t0) * 1000) / calls)
      t0 = performance.now()
      for (let i = 0; i < calls; i++) env.restore(s)
      const restore = ((performance.now() - t0) * 1000) / calls
      re.push(restore)
      t0 = performance.now()
      for (let i = 0; i < calls; i++) {
        env.restore(s)
        env.step(action)
      }
      st.push(Math.max(0, ((performance.now() - t0) * 1000) / calls - restore))
    }
    const row: SnapshotRow = { env: c.name, snapshotUs: median(sn), restoreUs: median(re), stepUs: median(st), restoreOverStep: median(re) / median(st) }
    snapshot.push(row)
    options.onRow?.(`${row.env}: snapshot ${row.snapshotUs.toFixed(2)} µs, restore ${row.restoreUs.toFixed(2)} µs`)
  }
  return { mcts, snapshot }
}

/** The result as two markdown tables, headed by `load` (e.g. the load average). */
export const formatMarkdown = (result: Result, load: string): string => {
  const lines = [`Load: ${load}`, "", "| env | search | env steps | nodes | simulations | nodes/s | search env steps/s | raw env steps/s (baseline) | ratio |", "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
  for (const r of result.mcts) {
    lines.push(`| ${r.env} | ${r.search} | ${r.envSteps} | ${r.nodes} | ${r.simulations} | ${Math.round(r.nodesPerSecond)} | ${Math.round(r.envStepsPerSecond)} | ${Math.round(r.rawStepsPerSecond)} | ${r.ratio.toFixed(2)} |`)
  }
  lines.push("", "| env | snapshot µs/call | restore µs/call | step µs/call (baseline) | restore / step |", "|---|---:|---:|---:|---:|")
  for (const r of result.snapshot) {
    lines.push(`| ${r.env} | ${r.snapshotUs.toFixed(2)} | ${r.restoreUs.toFixed(2)} | ${r.stepUs.toFixed(2)} | ${r.stepUs > 0 ? r.restoreOverStep.toFixed(2) : "n/a"} |`)
  }
  return lines.join("\n")
}

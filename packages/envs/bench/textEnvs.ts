/**
 * Steps per second of the text environments: `TextHousehold-v0` (default, easy and hard), `Sokoban-6x6-1box-v0`,
 * `TextFrozenLake-v1`; bare (the unwrapped class), through `make`-style wrappers (`Checked` + `TimeLimit`), and in a
 * `SyncVectorEnv` of 64 (string actions in a plain array). Actions: a uniformly random admissible command
 * (drawn with a seeded `Rng`; the draw and `admissibleActions()` are included in the timing). Each figure is the
 * median of `repeats` runs, the rows interleaved within each repeat; the `vs default` column is a TextHousehold-v0
 * difficulty's bare steps/s over the default difficulty's, measured in the same run. Prints a Markdown table (with
 * the load average), or with `--json` one JSON row per env.
 *
 *   cd packages/envs && npx tsx --conditions=@autodidact/source bench/textEnvs.ts [steps] [repeats] [--json]
 */
import { Rng, Statistics } from "@autodidact/core"
import * as os from "node:os"
import type { AnyEnv } from "../src/Env.js"
import { SyncVectorEnv } from "../src/vector/SyncVectorEnv.js"
import type { TextEnv } from "../src/text/TextEnv.js"
import { TextFrozenLake } from "../src/text/TextFrozenLake.js"
import { TextHousehold } from "../src/text/TextHousehold.js"
import { TextSokoban } from "../src/text/TextSokoban.js"
import { Checked, TimeLimit } from "../src/wrappers/Wrappers.js"

const args = process.argv.slice(2).filter((a) => a !== "--json")
const json = process.argv.includes("--json")
const steps = Number(args[0] ?? 200_000)
const repeats = Number(args[1] ?? 3)
if (!(Number.isSafeInteger(steps) && steps > 0 && Number.isSafeInteger(repeats) && repeats > 0)) {
  throw new Error(`usage: textEnvs.ts [steps ≥ 1] [repeats ≥ 1] [--json] (got steps ${args[0]}, repeats ${args[1]})`)
}
const makers: Array<[string, () => TextEnv, number]> = [
  ["TextHousehold-v0", () => new TextHousehold(), 50],
  ["TextHousehold-v0 (easy)", () => new TextHousehold({ difficulty: "easy" }), 50],
  ["TextHousehold-v0 (hard)", () => new TextHousehold({ difficulty: "hard" }), 50],
  ["Sokoban-6x6-1box-v0", () => new TextSokoban(), 100],
  ["TextFrozenLake-v1", () => new TextFrozenLake(), 100]
]

const single = (env: AnyEnv, text: TextEnv, n: number): { sps: number; resets: number } => {
  const rng = Rng.make(0)
  env.reset({ seed: 0 })
  let resets = 1
  const t0 = performance.now()
  for (let i = 0; i < n; i++) {
    const acts = text.admissibleActions()
    const r = env.step(acts[rng.integers(acts.length)]!)
    if (r.terminated || r.truncated) {
      env.reset()
      resets++
    }
  }
  return { sps: n / ((performance.now() - t0) / 1000), resets }
}

/** One repeat of one env: bare, wrapped and vectorized steps/s, and the bare run's episode count. */
const measure = (mk: () => TextEnv, limit: number) => {
  const bare = mk()
  single(bare, bare, Math.min(steps, 20_000)) // warm-up
  const b = single(bare, bare, steps)
  const inner = mk()
  const wrapped = new TimeLimit(new Checked(inner), limit)
  const w = single(wrapped, inner, steps)
  const numEnvs = 64
  const subs = Array.from({ length: numEnvs }, () => mk())
  let k = 0
  const vec = new SyncVectorEnv(subs.map(() => () => new TimeLimit(new Checked(subs[k++]!), limit)), { autoresetMode: "SameStep" })
  vec.reset({ seed: 0 })
  const rng = Rng.make(1)
  const actions = new Array<string>(numEnvs)
  const iters = Math.max(1, Math.floor(steps / numEnvs))
  const t0 = performance.now()
  for (let i = 0; i < iters; i++) {
    for (let e = 0; e < numEnvs; e++) {
      const acts = subs[e]!.admissibleActions()
      actions[e] = acts[rng.integers(acts.length)]!
    }
    vec.step(actions)
  }
  return { bare: b.sps, wrapped: w.sps, vector: (iters * numEnvs) / ((performance.now() - t0) / 1000), episodes: b.resets }
}

const samples = makers.map(() => ({ bare: [] as Array<number>, wrapped: [] as Array<number>, vector: [] as Array<number>, episodes: 0 }))
for (let r = 0; r < repeats; r++) {
  makers.forEach(([, mk, limit], i) => {
    const m = measure(mk, limit)
    samples[i]!.bare.push(m.bare)
    samples[i]!.wrapped.push(m.wrapped)
    samples[i]!.vector.push(m.vector)
    samples[i]!.episodes = m.episodes
  })
}
const bareDefault = Statistics.median(samples[0]!.bare)
const rows = makers.map(([id], i) => {
  const s = samples[i]!
  const bare = Statistics.median(s.bare)
  return {
    env: id,
    bareStepsPerSecond: Math.round(bare),
    vsDefault: id.startsWith("TextHousehold-v0") ? Number((bare / bareDefault).toFixed(3)) : null,
    wrappedStepsPerSecond: Math.round(Statistics.median(s.wrapped)),
    vectorStepsPerSecond: Math.round(Statistics.median(s.vector)),
    microsecondsPerStepBare: Number((1e6 / bare).toFixed(2)),
    episodes: s.episodes
  }
})
const load = os.loadavg().map((x) => x.toFixed(2)).join(" ")
if (json) {
  for (const row of rows) console.log(JSON.stringify({ ...row, steps, repeats, loadavg: load, node: process.version }))
} else {
  const n = (x: number) => x.toLocaleString("en-US")
  console.log(`text environments, ${n(steps)} steps per figure, median of ${repeats} repeats, random admissible actions, node ${process.version}, loadavg ${load} (${os.availableParallelism()} cores)`)
  console.log("")
  console.log("| env | bare steps/s | vs default (bare) | make-wrapped steps/s | SyncVectorEnv(64) steps/s | µs/step bare | episodes (bare run) |")
  console.log("|---|---:|---:|---:|---:|---:|---:|")
  for (const r of rows) {
    console.log(`| ${r.env} | ${n(r.bareStepsPerSecond)} | ${r.vsDefault === null ? "—" : `${r.vsDefault.toFixed(2)}x`} | ${n(r.wrappedStepsPerSecond)} | ${n(r.vectorStepsPerSecond)} | ${r.microsecondsPerStepBare.toFixed(2)} | ${r.episodes} |`)
  }
}

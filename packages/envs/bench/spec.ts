/**
 * Env steps per second of the spec-compiled text envs (`TextEnvSpec.compile(ReferenceSpecs.*)`) against their
 * hand-written twins, measured alternately in one run (median of `repeats`), random admissible commands, autoreset.
 *
 *   cd packages/envs && node --conditions=@autodidact/source --import tsx bench/spec.ts [steps=100000] [repeats=5]
 */
import { Rng, Statistics } from "@autodidact/core"
import { loadavg } from "node:os"
import * as ReferenceSpecs from "../src/text/spec/ReferenceSpecs.js"
import * as TextEnvSpec from "../src/text/spec/TextEnvSpec.js"
import type { TextEnv } from "../src/text/TextEnv.js"
import * as TextFrozenLake from "../src/text/TextFrozenLake.js"
import * as TextSokoban from "../src/text/TextSokoban.js"

const steps = Number(process.argv[2] ?? 100_000)
const repeats = Number(process.argv[3] ?? 5)

const rate = (env: TextEnv): number => {
  const rng = Rng.make(0)
  let seed = 0
  env.reset({ seed: seed++ })
  const t0 = performance.now()
  for (let i = 0; i < steps; i++) {
    const commands = env.admissibleActions()
    const r = env.step(commands[rng.integers(commands.length)]!)
    if (r.terminated || r.truncated) env.reset({ seed: seed++ })
  }
  return steps / ((performance.now() - t0) / 1000)
}

const rows: Array<string> = []
for (const [name, hand, spec] of [
  ["TextFrozenLake-v1 (8x8)", () => new TextFrozenLake.TextFrozenLake({ mapName: "8x8" }), () => TextEnvSpec.compile(ReferenceSpecs.frozenLakeSpec({ mapName: "8x8" }))],
  ["Sokoban-6x6-1box-v0", () => new TextSokoban.TextSokoban(), () => TextEnvSpec.compile(ReferenceSpecs.sokobanSpec(), { maxStates: 20_000 })]
] as const) {
  const h: Array<number> = []
  const s: Array<number> = []
  for (let k = 0; k < repeats; k++) {
    h.push(rate(hand()))
    s.push(rate(spec()))
  }
  const mh = Statistics.median(h)
  const ms = Statistics.median(s)
  rows.push(`| ${name} | ${Math.round(mh).toLocaleString("en")} | ${Math.round(ms).toLocaleString("en")} | ${(ms / mh).toFixed(2)} |`)
}
console.log(`Spec-compiled vs hand-written text envs: env steps/s, median of ${repeats} × ${steps} steps (loadavg ${loadavg().map((x) => x.toFixed(2)).join(" ")})\n`)
console.log("| env | hand-written | spec-compiled | ratio (spec / hand) |\n|---|---|---|---|")
for (const r of rows) console.log(r)

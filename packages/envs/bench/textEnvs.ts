/**
 * Steps per second of the text environments: `TextHousehold-v0` (default and easy), `Sokoban-6x6-1box-v0`,
 * `TextFrozenLake-v1`; bare (the unwrapped class), through `make`-style wrappers (`Checked` + `TimeLimit`), and in a
 * `SyncVectorEnv` of 64 (string actions in a plain array). Actions: a uniformly random admissible command
 * (drawn with a seeded `Rng`; the draw and `admissibleActions()` are included in the timing).
 *
 *   cd packages/envs && npx tsx --conditions=@autodidact/source bench/textEnvs.ts [steps]
 */
import { Rng } from "@autodidact/core"
import type { AnyEnv } from "../src/Env.js"
import { SyncVectorEnv } from "../src/vector/SyncVectorEnv.js"
import type { TextEnv } from "../src/text/TextEnv.js"
import { TextFrozenLake } from "../src/text/TextFrozenLake.js"
import { TextHousehold } from "../src/text/TextHousehold.js"
import { TextSokoban } from "../src/text/TextSokoban.js"
import { Checked, TimeLimit } from "../src/wrappers/Wrappers.js"

const steps = Number(process.argv[2] ?? 200_000)
const makers: Array<[string, () => TextEnv, number]> = [
  ["TextHousehold-v0", () => new TextHousehold(), 50],
  ["TextHousehold-v0 (easy)", () => new TextHousehold({ difficulty: "easy" }), 50],
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

const rows: Array<string> = []
for (const [id, mk, limit] of makers) {
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
  const vsps = (iters * numEnvs) / ((performance.now() - t0) / 1000)
  rows.push(
    `${id.padEnd(26)} bare ${Math.round(b.sps).toLocaleString("en-US").padStart(10)}  make-wrapped ${Math.round(w.sps).toLocaleString("en-US").padStart(10)}  SyncVectorEnv(64) ${Math.round(vsps).toLocaleString("en-US").padStart(10)} steps/s  (${(1e6 / b.sps).toFixed(2)} us/step bare, ${b.resets} episodes)`
  )
}
console.log(`text environments, ${steps.toLocaleString("en-US")} steps each, random admissible actions, node ${process.version}`)
for (const r of rows) console.log(r)

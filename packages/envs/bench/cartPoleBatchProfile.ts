/**
 * Where the time of a batched CartPole step goes: nanoseconds per sub-env step of `CartPoleBatch.step` (NextStep,
 * random actions, `numEnvs` rows), of the WebAssembly call alone, and of each of its passes alone (`trig`, `physics`,
 * `flags` without autoreset; what is left of the call is the NextStep resets with their PCG64 draws, the pre-pass
 * and the accurate-series lanes), beside the JavaScript loop (`wasm: false`) measured in the same run. Medians over
 * `repeats` rounds of CPU time (process user + system) and of wall time; the load average is printed with them.
 *
 *   cd packages/envs && node --conditions=@autodidact/source --import tsx bench/cartPoleBatchProfile.ts [numEnvs=1024] [repeats=9]
 */
import { Rng, Statistics } from "@autodidact/core"
import { loadavg } from "node:os"
import { CartPoleBatch } from "../src/classic/CartPoleBatch.js"
import type * as CartPoleWasm from "../src/classic/CartPoleWasm.js"

const n = Number(process.argv[2] ?? 1024)
const repeats = Number(process.argv[3] ?? 9)
const calls = Math.max(50, Math.round(1_500_000 / n))
const rng = Rng.make(0)
const pool: Array<Int32Array> = Array.from({ length: 64 }, () => Int32Array.from({ length: n }, () => rng.integers(2)))
const wasmOf = (env: CartPoleBatch) => (env as unknown as { wasm: CartPoleWasm.CartPoleWasm }).wasm

const stepEnv = new CartPoleBatch(n)
const jsEnv = new CartPoleBatch(n, { wasm: false })
const callEnv = new CartPoleBatch(n) // its WebAssembly step is called directly (the batch's bookkeeping not kept)
const passEnv = new CartPoleBatch(n)
for (const env of [stepEnv, jsEnv, callEnv, passEnv]) env.reset({ seed: 0 })
const call = wasmOf(callEnv)
const passes = wasmOf(passEnv)

const rows: ReadonlyArray<readonly [string, (c: number) => void]> = [
  ["CartPoleBatch.step, JavaScript loop (baseline)", (c) => void jsEnv.step(pool[c & 63]!)],
  ["CartPoleBatch.step, WebAssembly (whole call)", (c) => void stepEnv.step(pool[c & 63]!)],
  ["  WebAssembly step alone (actions copied, NextStep)", (c) => {
    call.actions.set(pool[c & 63]!)
    call.step(500, 1, 1, true)
  }],
  ["    pass 1: sin/cos (f64x2)", () => passes.profilePass(0)],
  ["    pass 2: physics, observations (f64x2)", () => passes.profilePass(1)],
  ["    pass 3: TimeLimit, rewards, flags (16 rows, no resets)", () => passes.profilePass(2)]
]
const cpu: Array<Array<number>> = rows.map(() => [])
const wall: Array<Array<number>> = rows.map(() => [])
const before = loadavg()
for (let r = -1; r < repeats; r++) {
  rows.forEach(([, f], k) => {
    if (k >= 3) {
      // the passes alone step the same rows again and again: start them from fresh states each round
      passEnv.reset({ seed: r + 1 })
      passes.actions.set(pool[r & 63]!)
    }
    const u0 = process.cpuUsage()
    const t0 = performance.now()
    for (let c = 0; c < calls; c++) f(c)
    const t = performance.now() - t0
    const u = process.cpuUsage(u0)
    if (r >= 0) {
      cpu[k]!.push(((u.user + u.system) * 1e3) / (calls * n))
      wall[k]!.push((t * 1e6) / (calls * n))
    }
  })
}
const ns = (k: number) => Statistics.median(cpu[k]!)
const lines = [
  `CartPole batch step profile: ${n} rows, ${calls} steps per round, median of ${repeats} rounds (ns per sub-env step)`,
  "",
  "| what | CPU ns/step | wall ns/step | M steps/s (CPU) | vs JavaScript loop |",
  "|---|---:|---:|---:|---:|",
  ...rows.map(([name], k) =>
    `| ${name} | ${ns(k).toFixed(2)} | ${Statistics.median(wall[k]!).toFixed(2)} | ${(1e3 / ns(k)).toFixed(1)} | ${(ns(0) / ns(k)).toFixed(2)}x |`
  ),
  `| resets (PCG64 draws), pre-pass, accurate lanes = call − passes | ${(ns(2) - ns(3) - ns(4) - ns(5)).toFixed(2)} | | | |`,
  `| JavaScript around the call (checks, copy, bookkeeping) = step − call | ${(ns(1) - ns(2)).toFixed(2)} | | | |`,
  "",
  `loadavg before: ${before.map((x) => x.toFixed(2)).join(" ")}; after: ${loadavg().map((x) => x.toFixed(2)).join(" ")}; node ${process.version}`
]
console.log(lines.join("\n"))

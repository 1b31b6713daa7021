import { CartPoleBatch } from "../src/classic/CartPoleBatch.js"
import { Rng } from "@autodidact/core"
const n = 1024
const rng = Rng.make(0)
const acts = Array.from({ length: 64 }, () => Int32Array.from({ length: n }, () => rng.integers(2)))
const run = (label: string, balanced: boolean) => {
  const env = new CartPoleBatch(n)
  env.reset({ seed: 0 })
  const a = new Int32Array(n)
  const o = env.observations
  const calls = 400
  let t0 = 0
  for (let c = 0; c < calls + 100; c++) {
    if (c === 100) t0 = performance.now()
    if (balanced) { for (let i = 0; i < n; i++) a[i] = o[4 * i + 2]! + 0.5 * o[4 * i + 3]! > 0 ? 1 : 0; env.step(a) }
    else env.step(acts[c & 63]!)
  }
  const s = (performance.now() - t0) / 1000
  console.log(label, ((calls * n) / s / 1e6).toFixed(2), "M/s", (s * 1e9 / calls / n).toFixed(1), "ns/env-step")
}
for (let k = 0; k < 3; k++) { run("random  ", false); run("balanced", true) }

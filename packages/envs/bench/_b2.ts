import { CartPoleBatch } from "../src/classic/CartPoleBatch.js"
import { Rng } from "@autodidact/core"
const n = 1024
const env = new CartPoleBatch(n)
const rng = Rng.make(0)
const acts = Array.from({ length: 64 }, () => Int32Array.from({ length: n }, () => rng.integers(2)))
env.reset({ seed: 0 })
const calls = 5000
for (let c = 0; c < 500; c++) env.step(acts[c & 63]!)
const t = performance.now()
for (let c = 0; c < calls; c++) env.step(acts[c & 63]!)
const s = (performance.now() - t) / 1000
console.log(((calls * n) / s / 1e6).toFixed(2), "M/s", (s * 1e9 / calls / n).toFixed(1), "ns/env-step")

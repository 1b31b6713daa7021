import { CartPoleBatch } from "../src/classic/CartPoleBatch.js"
import { Rng } from "@autodidact/core"
const n = 1024
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e3 }
const rng = Rng.make(0)
const acts = Array.from({ length: 64 }, () => Int32Array.from({ length: n }, () => rng.integers(2)))
const res: Record<string, number[]> = { wasm: [], js: [] }
for (let k = 0; k < 9; k++) {
  for (const wasm of [true, false]) {
    const env = new CartPoleBatch(n, { wasm }); env.reset({ seed: 0 })
    for (let c = 0; c < 100; c++) env.step(acts[c & 63]!)
    const t = cpu(); for (let c = 0; c < 1500; c++) env.step(acts[c & 63]!)
    res[wasm ? "wasm" : "js"]!.push(1500 * n / ((cpu() - t) / 1000) / 1e6)
  }
}
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!.toFixed(1)
console.log(`CartPoleBatch(1024), random actions, CPU-time medians of 9: wasm-simd ${med(res.wasm!)} M/s, js ${med(res.js!)} M/s`)

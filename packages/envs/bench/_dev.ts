import { Rng } from "@autodidact/core"
import { CartPoleBatch } from "../src/classic/CartPoleBatch.js"
const n = 1024
const reps = Number(process.argv[2] ?? 5)
const calls = Number(process.argv[3] ?? 5000)
const wasm = !process.argv.includes("--js")
const rng = Rng.make(0)
const batches: Int32Array[] = []
for (let b = 0; b < 64; b++) { const a = new Int32Array(n); for (let i = 0; i < n; i++) a[i] = rng.integers(2); batches.push(a) }
const env = new CartPoleBatch(n, { wasm })
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6 }
const rates: number[] = []; const wall: number[] = []
env.reset({ seed: 0 }); for (let c = 0; c < 1000; c++) env.step(batches[c & 63]!)
for (let r = 0; r < reps; r++) {
  env.reset({ seed: 0 })
  const c0 = cpu(), t0 = performance.now()
  for (let c = 0; c < calls; c++) env.step(batches[c & 63]!)
  const s = cpu() - c0, w = (performance.now() - t0) / 1000
  rates.push(calls * n / s); wall.push(calls * n / w)
}
const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!
console.log(env.engine, "cpu-rate", rates.map((x) => (x / 1e6).toFixed(1)).join(" "), "median", (med(rates) / 1e6).toFixed(1), "M/s; wall median", (med(wall)/1e6).toFixed(1), "ns/step(cpu)", (1e9/med(rates)).toFixed(1), "load", (await import("node:os")).loadavg()[0].toFixed(2))

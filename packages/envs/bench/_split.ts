import { Rng } from "@autodidact/core"
import { CartPoleBatch } from "../src/classic/CartPoleBatch.js"
const n = 1024, calls = 3000
const rng = Rng.make(0)
const batches: Int32Array[] = []
for (let b = 0; b < 64; b++) { const a = new Int32Array(n); for (let i = 0; i < n; i++) a[i] = rng.integers(2); batches.push(a) }
const env = new CartPoleBatch(n)
const w = (env as any).wasm
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6 }
env.reset({ seed: 0 })
for (let c = 0; c < 2000; c++) env.step(batches[c & 63]!)
for (let r = 0; r < 5; r++) {
  let c0 = cpu()
  for (let c = 0; c < calls; c++) env.step(batches[c & 63]!)
  const full = (cpu() - c0) / calls / n * 1e9
  c0 = cpu()
  for (let c = 0; c < calls; c++) { w.actions.set(batches[c & 63]!); w.step(500, 1, 1, true) }
  const ws = (cpu() - c0) / calls / n * 1e9
  c0 = cpu()
  for (let c = 0; c < calls; c++) { (env as any).beginStep(batches[c & 63]!) }
  const bs = (cpu() - c0) / calls / n * 1e9
  console.log(`full ${full.toFixed(2)} ns/step; wasm step+copy ${ws.toFixed(2)}; beginStep ${bs.toFixed(2)}; load ${(await import("node:os")).loadavg()[0].toFixed(1)}`)
}

import * as binary from "../src/generated/cartPoleWasm.js"
import * as Libm from "../src/classic/Libm.js"
import { Rng } from "@autodidact/core"
let ns = 0, nc = 0
const bytes = Buffer.from(binary.base64, "base64")
const inst = new WebAssembly.Instance(new WebAssembly.Module(bytes), { cartpole: { sinAccurate: (x: number) => { ns++; return Libm.sinAccurate(x) }, cosAccurate: (x: number) => { nc++; return Libm.cosAccurate(x) } } })
const ex = inst.exports as any
ex.memory.grow(10)
const n = 1024, base = 1024
const px = base, pxd = px + 8*n, pth = pxd + 8*n, pthd = pth + 8*n, pact = pthd + 8*n, pobs = pact + 4*n, pterm = pobs + 16*n, ptrunc = pterm + n, pel = ptrunc + n, prew = pel + 4*n, pended = prew + 8*n
const buf = ex.memory.buffer
const F = (p: number) => new Float64Array(buf, p, n)
const x = F(px), xd = F(pxd), th = F(pth), thd = F(pthd), act = new Int32Array(buf, pact, n), term = new Uint8Array(buf, pterm, n)
const rng = Rng.make(1)
const init = (i: number) => { x[i] = rng.uniform(-.05,.05); xd[i] = rng.uniform(-.05,.05); th[i] = rng.uniform(-.05,.05); thd[i] = rng.uniform(-.05,.05) }
for (let i = 0; i < n; i++) init(i)
const calls = 3000
const t0 = performance.now()
let resets = 0
for (let c = 0; c < calls; c++) {
  for (let i = 0; i < n; i++) act[i] = rng.integers(2)
  ex.step(n, px, pxd, pth, pthd, pact, pobs, pterm, pel, prew, ptrunc, pended, 500, 1, 1)
  for (let i = 0; i < n; i++) if (term[i]) { init(i); resets++ }
}
console.log("sin fallbacks/step", ns / calls / n, "cos", nc / calls / n, "episode len", calls*n/resets)
// pure timing: no fallback counting
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6 }
const sx = new Float64Array(n), sxd = new Float64Array(n), sth = new Float64Array(n), sthd = new Float64Array(n)
for (let i = 0; i < n; i++) { sx[i] = rng.uniform(-.05,.05); sxd[i] = rng.uniform(-.05,.05); sth[i] = rng.uniform(-.05,.05); sthd[i] = rng.uniform(-.05,.05) }
const pool: Int32Array[] = []; for (let b = 0; b < 64; b++) { const a = new Int32Array(n); for (let i = 0; i < n; i++) a[i] = rng.integers(2); pool.push(a) }
ns = 0
for (let r = 0; r < 5; r++) {
  const c0 = cpu()
  for (let c = 0; c < calls; c++) { act.set(pool[c & 63]!); ex.step(n, px, pxd, pth, pthd, pact, pobs, pterm, pel, prew, ptrunc, pended, 500, 1, 1); if ((c & 7) === 0) { x.set(sx); xd.set(sxd); th.set(sth); thd.set(sthd) } }
  console.log("fallbacks", ns/calls/n, "ns/step", ((cpu() - c0) / calls / n * 1e9).toFixed(1))
}

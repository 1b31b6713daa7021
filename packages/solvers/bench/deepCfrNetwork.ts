/**
 * Why `DeepCfr`'s default engine is `@autodidact/kernels`' `MlpSimd` rather than TensorFlow.js (the `tfjs` engine,
 * kernels' `MlpTf`): one training step (forward, weighted-MSE gradient, backward, clipping, Adam) of the Leduc
 * advantage network (30 → 64 → 64 → 3, tanh) on a mini-batch, and one single-row forward pass (what a traversal does
 * at each decision node), on `MlpSimd` + `Adam` and on `MlpTf` on TensorFlow.js's WASM backend, same process; median
 * of 7 samples of ≥ 200 ms, µs per call, with the load average.
 *
 * Run (from packages/solvers): `npx tsx --conditions=@autodidact/source bench/deepCfrNetwork.ts [--json]`.
 */
import { readFileSync } from "node:fs"
import { Rng } from "@autodidact/core"
import { Adam, MlpSimd } from "@autodidact/kernels"
import { Backend, MlpTf } from "@autodidact/kernels/tfjs"

const json = process.argv.includes("--json")
const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")
const median = (f: () => void): number => {
  const samples: Array<number> = []
  for (let s = 0; s < 7; s++) {
    let n = 0
    const t0 = performance.now()
    while (performance.now() - t0 < 200) {
      f()
      n++
    }
    samples.push(((performance.now() - t0) * 1000) / n)
  }
  return samples.sort((a, b) => a - b)[3]!
}

const sizes = { obsDim: 30, hidden: 64, numActions: 3 }
const rng = Rng.make(0)
const P = MlpSimd.numParamsSingle(sizes)
const params = Float32Array.from({ length: P }, () => rng.normal(0, 0.2))
const loadBefore = load()
const rows: Array<Record<string, string | number>> = []
const backend = await Backend.load({ force: "wasm" })
const tf = backend.tf
for (const batch of [1, 1024]) {
  const x = Float32Array.from({ length: batch * 30 }, () => (rng.random() < 0.2 ? 1 : 0))
  const y = Float64Array.from({ length: batch * 3 }, () => rng.normal())
  const w = new Float64Array(batch).fill(1)
  const ws = MlpSimd.make(sizes, batch)
  const out = new Float64Array(batch * 3)
  const d = new Float64Array(batch * 3)
  const grad = new Float64Array(P)
  const trained = params.slice()
  const opt = Adam.make(P)
  MlpSimd.forwardSingle(ws, params, x, batch, undefined, 0, out)
  const simd = median(() => {
    // one row: the network stays loaded (null), as in a traversal; a batch: parameters copied in, as in training
    MlpSimd.forwardSingle(ws, batch === 1 ? null : trained, x, batch, undefined, 0, out)
    if (batch > 1) {
      MlpSimd.weightedMse(out, y, w, batch, 3, d)
      grad.fill(0)
      MlpSimd.backwardSingle(ws, batch, d, grad)
      Adam.clipGradNorm(grad, 1)
      Adam.step(opt, trained, grad, 1e-6)
    }
  })
  const net = MlpTf.make(tf, sizes)
  MlpTf.reinit(net, params)
  const tfBatch: MlpTf.Batch = { x, target: Float32Array.from(y), weight: Float32Array.from(w), batch }
  const tfOut = new Float32Array(batch * 3)
  const tfjs = median(() => {
    if (batch === 1) MlpTf.forward(net, x, 1, tfOut)
    else {
      MlpTf.trainStep(net, tfBatch, 1e-6, 1)
      MlpTf.lastLoss(net) // wait for the step (one read back, as the engine does once per training)
    }
  })
  MlpTf.dispose(net)
  const what = batch === 1 ? "forward, 1 row (traversal)" : `train step, ${batch} rows (forward + MSE + backward + clip + Adam)`
  rows.push({ pass: what, "MlpSimd µs": simd.toFixed(1), [`MlpTf (${backend.name}) µs`]: tfjs.toFixed(1), "MlpTf / MlpSimd": (tfjs / simd).toFixed(1) + "×" })
}
if (json) for (const r of rows) console.log(JSON.stringify({ ...r, load: load() }))
else {
  console.log(`\n### Leduc advantage network (30 → 64 → 64 → 3 tanh), TF.js backend ${backend.name} — loadavg ${loadBefore} → ${load()}\n`)
  const cols = Object.keys(rows[0]!)
  console.log(`| ${cols.join(" | ")} |\n|${cols.map(() => "---").join("|")}|`)
  for (const r of rows) console.log(`| ${cols.map((c) => r[c]).join(" | ")} |`)
}

/**
 * Why `DeepCfr` trains on `@autodidact/kernels`' `MlpSimd` rather than TensorFlow.js: one training step (forward,
 * weighted-MSE gradient, backward) of the Leduc advantage network (30 → 64 → 64 → 3, tanh) on a mini-batch, and one
 * single-row forward pass (what a traversal does at each decision node), on `MlpSimd` and on TensorFlow.js's WASM
 * backend, same process; median of 7 samples of ≥ 200 ms, µs per call, with the load average.
 *
 * Run (from packages/solvers): `npx tsx --conditions=@autodidact/source bench/deepCfrNetwork.ts [--json]`.
 */
import { readFileSync } from "node:fs"
import { Rng } from "@autodidact/core"
import { MlpSimd } from "@autodidact/kernels"
import { Backend } from "@autodidact/kernels/tfjs"
import type * as tfc from "@tensorflow/tfjs-core"

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
const tf = backend.tf as unknown as typeof tfc
for (const batch of [1, 1024]) {
  const x = Float32Array.from({ length: batch * 30 }, () => (rng.random() < 0.2 ? 1 : 0))
  const y = Float64Array.from({ length: batch * 3 }, () => rng.normal())
  const w = new Float64Array(batch).fill(1)
  const ws = MlpSimd.make(sizes, batch)
  const out = new Float64Array(batch * 3)
  const d = new Float64Array(batch * 3)
  const grad = new Float64Array(P)
  MlpSimd.forwardSingle(ws, params, x, batch, undefined, 0, out)
  const simd = median(() => {
    // one row: the network stays loaded (null), as in a traversal; a batch: parameters copied in, as in training
    MlpSimd.forwardSingle(ws, batch === 1 ? null : params, x, batch, undefined, 0, out)
    if (batch > 1) {
      MlpSimd.weightedMse(out, y, w, batch, 3, d)
      grad.fill(0)
      MlpSimd.backwardSingle(ws, batch, d, grad)
    }
  })
  const v = [
    tf.variable(tf.randomNormal([30, 64])), tf.variable(tf.zeros([64])), tf.variable(tf.randomNormal([64, 64])), tf.variable(tf.zeros([64])),
    tf.variable(tf.randomNormal([64, 3])), tf.variable(tf.zeros([3]))
  ]
  const net = (t: tfc.Tensor) => tf.add(tf.matMul(tf.tanh(tf.add(tf.matMul(tf.tanh(tf.add(tf.matMul(t, v[0]!), v[1]!)), v[2]!), v[3]!)), v[4]!), v[5]!)
  const yt = tf.tensor2d(Float32Array.from(y), [batch, 3])
  const tfjs = median(() =>
    tf.tidy(() => {
      const xt = tf.tensor2d(x, [batch, 30])
      if (batch === 1) {
        net(xt).dataSync()
        return
      }
      const { grads } = tf.variableGrads(() => tf.mean(tf.square(tf.sub(net(xt), yt))) as tfc.Scalar, v)
      for (const g of Object.values(grads)) g.dataSync()
    })
  )
  tf.dispose([...v, yt])
  const what = batch === 1 ? "forward, 1 row (traversal)" : `train step, ${batch} rows (forward + MSE + backward)`
  rows.push({ pass: what, "MlpSimd µs": simd.toFixed(1), "TF.js wasm µs": tfjs.toFixed(1), "TF.js / MlpSimd": (tfjs / simd).toFixed(1) + "×" })
}
if (json) for (const r of rows) console.log(JSON.stringify({ ...r, load: load() }))
else {
  console.log(`\n### Leduc advantage network (30 → 64 → 64 → 3 tanh), TF.js backend ${backend.name} — loadavg ${loadBefore} → ${load()}\n`)
  const cols = Object.keys(rows[0]!)
  console.log(`| ${cols.join(" | ")} |\n|${cols.map(() => "---").join("|")}|`)
  for (const r of rows) console.log(`| ${cols.map((c) => r[c]).join(" | ")} |`)
}

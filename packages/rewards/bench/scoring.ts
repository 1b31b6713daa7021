/**
 * Scoring throughput (items/s) of the PyTorch-exported reward models in onnxruntime-node (CPU) vs the same models in
 * TF.js (wasm), at batch 1, 32 and 256, in one run; and Bradley-Terry training time per epoch.
 * Run: `cd packages/rewards && npx tsx bench/scoring.ts` (reads ../shared/data/onnx; exits 0 with a message if absent).
 */
import { existsSync, readFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { Rng } from "@autodidact/core"
import { Backend } from "@autodidact/kernels/tfjs"
import onnxProto from "onnx-proto"
import { Effect } from "effect"
import { OnnxRewardModel, TextTokenizer } from "../src/onnx.js"
import { Mlp, Training } from "../src/train.js"

const DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../../../../shared/data/onnx")
const { onnx } = onnxProto

/** Initializers of an ONNX file as float32 arrays (dims kept). */
const initializers = (path: string): Map<string, { dims: Array<number>; data: Float32Array }> => {
  const m = onnx.ModelProto.decode(readFileSync(path))
  const out = new Map<string, { dims: Array<number>; data: Float32Array }>()
  for (const t of m.graph!.initializer!) {
    const raw = t.rawData!
    const data = raw.length > 0 ? new Float32Array(Uint8Array.from(raw).buffer) : Float32Array.from(t.floatData ?? [])
    out.set(t.name!, { dims: t.dims!.map(Number), data })
  }
  return out
}
/** PyTorch Linear weight [out, in] → W [in, out]. */
const transpose = (w: { dims: Array<number>; data: Float32Array }): Float32Array => {
  const [o, i] = w.dims as [number, number]
  const t = new Float32Array(o * i)
  for (let r = 0; r < o; r++) for (let c = 0; c < i; c++) t[c * o + r] = w.data[r * i + c]!
  return t
}

const timeIt = async (fn: () => Promise<unknown> | unknown, items: number, minMs = 400): Promise<number> => {
  for (let i = 0; i < 3; i++) await fn()
  let n = 0
  const t0 = performance.now()
  while (performance.now() - t0 < minMs) {
    await fn()
    n++
  }
  return (n * items) / ((performance.now() - t0) / 1000)
}

const program = Effect.gen(function* () {
  if (!existsSync(join(DIR, "feature_rm.onnx"))) {
    console.log(`skipped: ${DIR} not found`)
    return
  }
  const { tf, name } = yield* Backend.Backend
  const rng = Rng.make(0)
  const feat = yield* OnnxRewardModel.openFeature(join(DIR, "feature_rm.onnx"))
  const fi = initializers(join(DIR, "feature_rm.onnx"))
  const tfFeat = Mlp.fromWeights(tf, "tanh", [
    { w: transpose(fi.get("net.0.weight")!), rows: 16, cols: 32, b: fi.get("net.0.bias")!.data },
    { w: transpose(fi.get("net.2.weight")!), rows: 32, cols: 1, b: fi.get("net.2.bias")!.data }
  ])
  const vocab: Record<string, number> = {}
  for (let i = 0; i < 64; i++) vocab[`tok${i}`] = i
  const tok = yield* TextTokenizer.fromJson({ model: { type: "WordLevel", vocab, unk_token: "tok1" }, pre_tokenizer: { type: "Whitespace" }, normalizer: null, post_processor: null, decoder: null, added_tokens: [] })
  const text = yield* OnnxRewardModel.openText(join(DIR, "text_rm.onnx"), { tokenizer: tok })
  const ti = initializers(join(DIR, "text_rm.onnx"))
  const emb = tf.tensor2d(ti.get("emb.weight")!.data, [64, 24])
  const headW = tf.tensor2d(transpose(ti.get("head.weight")!), [24, 1])
  const headB = tf.tensor1d(ti.get("head.bias")!.data)
  const SEQ = 32
  const tfText = (ids: Int32Array, mask: Float32Array, b: number): Float32Array =>
    tf.tidy(() => {
      const m = tf.tensor3d(mask, [b, SEQ, 1])
      const e = tf.mul(tf.reshape(tf.gather(emb, tf.tensor1d(ids, "int32")), [b, SEQ, 24]), m)
      const pooled = tf.div(tf.sum(e, 1), tf.maximum(tf.sum(m, 1), 1e-9))
      return tf.add(tf.matMul(tf.tanh(pooled) as never, headW), headB)
    }).dataSync() as Float32Array
  console.log(`scoring throughput, items/s (onnxruntime-node ${feat.session.executionProviders.join("+")} vs TF.js ${name}); text rows of ${SEQ} tokens`)
  console.log("model    batch   ORT items/s   TF.js items/s   ORT/TF.js   max |ORT-TF.js|")
  for (const b of [1, 32, 256]) {
    const x = Float32Array.from({ length: b * 16 }, () => rng.normal())
    const ort = yield* Effect.promise(() => timeIt(() => Effect.runPromise(feat.scoreRows(x, b)), b))
    const tfs = yield* Effect.promise(() => timeIt(() => Mlp.predict(tfFeat, x, b), b))
    const a = yield* feat.scoreRows(x, b)
    const c = Mlp.predict(tfFeat, x, b)
    const diff = a.reduce((m, v, i) => Math.max(m, Math.abs(v - c[i]!)), 0)
    console.log(`feature  ${String(b).padStart(5)}  ${ort.toFixed(0).padStart(12)}  ${tfs.toFixed(0).padStart(14)}  ${(ort / tfs).toFixed(2).padStart(10)}  ${diff.toExponential(1)}`)
  }
  for (const b of [1, 32, 256]) {
    const ids = Int32Array.from({ length: b * SEQ }, () => rng.integers(64))
    const mask = Float32Array.from({ length: b * SEQ }, (_, i) => (i % SEQ < SEQ - (i % 7) ? 1 : 0))
    const enc = { batch: b, length: SEQ, inputIds: BigInt64Array.from(ids, (v) => BigInt(v)), attentionMask: BigInt64Array.from(mask, (v) => BigInt(v)) }
    const ort = yield* Effect.promise(() => timeIt(() => Effect.runPromise(text.scoreIds(enc)), b))
    const tfs = yield* Effect.promise(() => timeIt(() => tfText(ids, mask, b), b))
    const a = yield* text.scoreIds(enc)
    const c = tfText(ids, mask, b)
    const diff = a.reduce((m, v, i) => Math.max(m, Math.abs(v - c[i]!)), 0)
    console.log(`text     ${String(b).padStart(5)}  ${ort.toFixed(0).padStart(12)}  ${tfs.toFixed(0).padStart(14)}  ${(ort / tfs).toFixed(2).padStart(10)}  ${diff.toExponential(1)}`)
  }
  // Bradley-Terry training time per epoch (8 features, MLP 8-32-1 tanh, 4096 pairs, batch 64)
  const n = 4096, dim = 8
  const pairs: Training.Pairs = { n, dim, chosen: Float32Array.from({ length: n * dim }, () => rng.normal()), rejected: Float32Array.from({ length: n * dim }, () => rng.normal()) }
  for (const hidden of [[32], [256, 256]]) {
    const m = Mlp.make(tf, { inputSize: dim, hidden, activation: "tanh" }, rng)
    const r = Training.trainPairwise(m, pairs, { epochs: 4, batchSize: 64, learningRate: 1e-3, rng })
    const steady = r.epochSeconds.slice(1)
    console.log(`BT training, MLP ${[dim, ...hidden, 1].join("-")}, ${n} pairs, batch 64, TF.js ${name}: ${(1000 * steady.reduce((a, b) => a + b, 0) / steady.length).toFixed(0)} ms/epoch (first epoch ${(1000 * r.epochSeconds[0]!).toFixed(0)} ms)`)
    Mlp.dispose(m)
  }
})

Effect.runPromise(Effect.scoped(Effect.provide(program, Backend.layerWith({ force: "wasm" })))).catch((e) => {
  console.error(e)
  process.exit(1)
})

/**
 * Experience-store benchmark: insert throughput (batches of 500 in one transaction each) and top-10 query latency at
 * N records, on PGlite with pgvector HNSW, PGlite with the exact JS scorer, and (when AUTODIDACT_PG_URL is set) a
 * PostgreSQL server; recall@10 of HNSW against the exact relevance ranking.
 *
 *   cd packages/memory && node --conditions=@autodidact/source --import tsx bench/store.ts [N=10000] [queries=50]
 */
import { Effect, Layer } from "effect"
import * as Embedder from "../src/Embedder.js"
import * as Records from "../src/Records.js"
import * as Store from "../src/Store.js"

const N = Number(process.argv[2] ?? 10_000)
const Q = Number(process.argv[3] ?? 50)
const DIM = 256
const words = ["open", "door", "key", "kitchen", "fridge", "apple", "north", "south", "take", "drop", "lamp", "sword",
  "chest", "gold", "river", "bridge", "tower", "stairs", "window", "table", "book", "read", "light", "dark"]
let seed = 12345
const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32)
const sentence = () => Array.from({ length: 6 + Math.floor(rand() * 6) }, () => words[Math.floor(rand() * words.length)]).join(" ")
const texts = Array.from({ length: N }, (_, i) => `${sentence()} #${i}`)
const queries = Array.from({ length: Q }, () => sentence())

const run = (name: string, layer: Layer.Layer<Store.ExperienceStore, unknown, Embedder.Embedder>) =>
  Effect.gen(function*() {
    const store = yield* Store.ExperienceStore
    yield* store.removeWhere({})
    const embedder = yield* Embedder.Embedder
    const vectors = yield* embedder.embed(texts)
    const t0 = performance.now()
    for (let i = 0; i < N; i += 500) {
      yield* store.putMany(texts.slice(i, i + 500).map((t, j) =>
        Records.tip(t, { embedding: vectors[i + j], importance: rand(), task: `task-${(i + j) % 10}` })
      ))
    }
    const insertS = (performance.now() - t0) / 1000
    const lat: Array<number> = []
    let recall = 0
    for (const q of queries) {
      const t1 = performance.now()
      const hits = yield* store.query({ text: q, k: 10, touch: false })
      lat.push(performance.now() - t1)
      if (store.vectorIndex === "hnsw") {
        const approx = yield* store.query({ text: q, k: 10, touch: false, weights: { recency: 0, importance: 0 } })
        // exact relevance top-10 by brute force in JS
        const qe = (yield* embedder.embed([q]))[0]
        const exact = vectors.map((v, i) => [i, dot(v, qe)] as const).sort((a, b) => b[1] - a[1]).slice(0, 10)
        const exactTexts = new Set(exact.map(([i]) => texts[i]))
        recall += approx.filter((h) => exactTexts.has(h.record.text)).length / 10
      }
      void hits
    }
    lat.sort((a, b) => a - b)
    const p = (x: number) => lat[Math.min(lat.length - 1, Math.floor(x * lat.length))].toFixed(1)
    console.log(
      `${name.padEnd(28)} N=${N} insert ${(N / insertS).toFixed(0)} rec/s (${insertS.toFixed(1)} s)  ` +
        `top-10 query p50 ${p(0.5)} ms p95 ${p(0.95)} ms` +
        (store.vectorIndex === "hnsw" ? `  recall@10 (relevance only) ${(recall / Q).toFixed(3)}` : "")
    )
  }).pipe(Effect.provide(layer.pipe(Layer.provideMerge(Embedder.layerHashed({ dimension: DIM })))))

const dot = (a: Float32Array, b: Float32Array) => {
  let s = 0
  for (let i = 0; i < a.length; i++) s += a[i] * b[i]
  return s
}

const main = Effect.gen(function*() {
  yield* run("pglite (pgvector hnsw)", Store.layerMemory())
  yield* run("pglite (exact)", Store.layerMemory({ vectorIndex: "exact" }))
  const url = process.env.AUTODIDACT_PG_URL
  if (url) yield* run("postgres server (exact)", Store.layerPg({ url }))
})
Effect.runPromise(main).catch((e) => {
  console.error(e)
  process.exit(1)
})

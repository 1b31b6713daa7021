/**
 * Experience-store benchmark: insert throughput (batches of 500 in one transaction each) and top-10 query latency at
 * N records, on PGlite with pgvector HNSW, PGlite with the exact JS scorer, and (when AUTODIDACT_PG_URL is set) a
 * PostgreSQL server; recall@10 of HNSW against the exact relevance ranking. The bulk-load path (insert into a PGlite
 * directory opened `exact`, close, reopen `auto`: the HNSW index is built once) is timed separately.
 *
 *   cd packages/memory && node --conditions=@autodidact/source --import tsx bench/store.ts [N=10000] [queries=50] [runs]
 *
 * `runs`: comma-separated subset of `hnsw,exact,bulk,pg` (default all; `pg` needs AUTODIDACT_PG_URL).
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { Effect, Layer } from "effect"
import * as Embedder from "../src/embedders/Embedder.js"
import * as Records from "../src/store/Records.js"
import * as Store from "../src/store/Store.js"

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

const RUNS = new Set((process.argv[4] ?? "hnsw,exact,bulk,pg").split(","))

const insertAll = Effect.gen(function*() {
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
  return (performance.now() - t0) / 1000
})

const run = (
  name: string,
  layer: Layer.Layer<Store.ExperienceStore, unknown, Embedder.Embedder>,
  preloaded?: { readonly insertS: number; readonly note: string }
) =>
  Effect.gen(function*() {
    const store = yield* Store.ExperienceStore
    const embedder = yield* Embedder.Embedder
    const vectors = yield* embedder.embed(texts)
    const insertS = preloaded?.insertS ?? (yield* insertAll)
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
      `${name.padEnd(28)} N=${N} insert ${(N / insertS).toFixed(0)} rec/s (${insertS.toFixed(1)} s${preloaded?.note ?? ""})  ` +
        `top-10 query p50 ${p(0.5)} ms p95 ${p(0.95)} ms` +
        (store.vectorIndex === "hnsw" ? `  recall@10 (relevance only) ${(recall / Q).toFixed(3)}` : "")
    )
  }).pipe(Effect.provide(layer.pipe(Layer.provideMerge(Embedder.layerHashed({ dimension: DIM })))))

const dot = (a: Float32Array, b: Float32Array) => {
  let s = 0
  for (let i = 0; i < a.length; i++) s += a[i] * b[i]
  return s
}

/** Bulk load: insert into a directory store opened `exact`, close it, reopen `auto` (backfill + one HNSW build). */
const bulk = Effect.suspend(() => {
  const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "autodidact-store-bench-"))
  const db = Path.join(dir, "db")
  const hashed = Embedder.layerHashed({ dimension: DIM })
  return Effect.gen(function*() {
    const loadS = yield* insertAll.pipe(Effect.provide(Store.layerPglite({ dir: db, vectorIndex: "exact" }).pipe(
      Layer.provideMerge(hashed)
    )))
    const t0 = performance.now()
    const reopened = Store.layerPglite({ dir: db })
    // building the layer once here times the reopen (backfill + index build); `run` reopens it (index exists: fast)
    yield* Effect.scoped(Layer.build(reopened.pipe(Layer.provide(hashed))))
    const buildS = (performance.now() - t0) / 1000
    console.log(`bulk load: exact inserts ${(N / loadS).toFixed(0)} rec/s (${loadS.toFixed(1)} s), reopen with HNSW build ${buildS.toFixed(1)} s`)
    yield* run("pglite dir, bulk-loaded hnsw", reopened, { insertS: loadS + buildS, note: " incl. index build" })
  }).pipe(Effect.ensuring(Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))))
})

const main = Effect.gen(function*() {
  if (RUNS.has("hnsw")) yield* run("pglite (pgvector hnsw)", Store.layerMemory())
  if (RUNS.has("exact")) yield* run("pglite (exact)", Store.layerMemory({ vectorIndex: "exact" }))
  if (RUNS.has("bulk")) yield* bulk
  const url = process.env.AUTODIDACT_PG_URL
  if (url && RUNS.has("pg")) yield* run("postgres server (exact)", Store.layerPg({ url }))
})
Effect.runPromise(main).catch((e) => {
  console.error(e)
  process.exit(1)
})

/**
 * Experience-store benchmark on generated dialogue turns (test/fixtures/Dialogues.ts: realistic vocabulary, 1-3
 * sentences a turn): the store grows through the given sizes; at each size it prints insert throughput (putMany
 * batches of 500, one transaction each, embeddings computed beforehand) and the latency of the default hybrid
 * query (lexical + vector, reciprocal-rank fusion, `touch` on) and of a vector-only query, top 10, no filter, each
 * measured on a second pass over the questions (the first warms up).
 *
 *   cd packages/memory && node --conditions=@autodidact/source --import tsx bench/store.ts [sizes=1000,10000] [queries=50] [runs=resident,hnsw]
 *
 * `runs`: comma-separated subset of `resident` (PGlite with the resident in-memory index: the default store),
 * `reopen` (a directory store with the resident index filled to the largest size, closed, reopened: the time to
 * load the index, then queries), `hnsw` (PGlite with pgvector HNSW, maintained per insert), `exact` (PGlite, exact JS
 * vector scoring of every row, no index), `bulk` (insert into an `exact` directory store, reopen `hnsw`: one HNSW
 * build, then query) and `pg` (a PostgreSQL server, needs AUTODIDACT_PG_URL).
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { Statistics } from "@autodidact/core"
import { Effect, Layer } from "effect"
import * as Embedder from "../src/embedders/Embedder.js"
import * as Records from "../src/store/Records.js"
import * as Store from "../src/store/Store.js"
import { generate } from "../test/fixtures/Dialogues.js"

const SIZES = (process.argv[2] ?? "1000,10000").split(",").map(Number)
const Q = Number(process.argv[3] ?? 50)
const RUNS = new Set((process.argv[4] ?? "resident,hnsw").split(","))
const N = Math.max(...SIZES)
const DIM = 256

// enough conversations for N turns (240 turns each), one task per conversation
const d = generate({ seed: 1, conversations: Math.ceil(N / 240) })
const turns = d.turns.slice(0, N)
const queries = d.questions.slice(0, Q).map((q) => q.text)
const vectors = turns.map((t) => Embedder.hashedEmbedding(t.text, DIM))
const records = turns.map((t, i) =>
  Records.tip(t.text, { embedding: vectors[i], task: t.conversation, createdAt: t.at, importance: (i % 10) / 10 })
)

const rows: Array<string> = []
const row = (name: string, n: number, insert: string, hybrid: Array<number>, vector: Array<number>) =>
  rows.push(
    `| ${name} | ${n} | ${insert} | ${Statistics.quantile(hybrid, 0.5).toFixed(1)} / ${Statistics.quantile(hybrid, 0.95).toFixed(1)} | ` +
      `${Statistics.quantile(vector, 0.5).toFixed(1)} / ${Statistics.quantile(vector, 0.95).toFixed(1)} |`
  )

/** Latencies of the query set, after one unmeasured pass over it (steady state: caches warm, the WAL of the inserts
 * checkpointed; the first queries after a bulk insert pay for that). */
const timeQueries = (store: Store.ExperienceStore["Service"], options: { mode?: "vector" }) =>
  Effect.gen(function*() {
    for (const text of queries) yield* store.query({ text, k: 10, ...options })
    const lat: Array<number> = []
    for (const text of queries) {
      const t = performance.now()
      yield* store.query({ text, k: 10, ...options })
      lat.push(performance.now() - t)
    }
    return lat
  })

const insertRange = (store: Store.ExperienceStore["Service"], from: number, to: number) =>
  Effect.gen(function*() {
    const t0 = performance.now()
    for (let i = from; i < to; i += 500) yield* store.putMany(records.slice(i, Math.min(to, i + 500)))
    return (to - from) / ((performance.now() - t0) / 1000)
  })

const growing = (name: string, layer: Layer.Layer<Store.ExperienceStore, unknown, Embedder.Embedder>) =>
  Effect.gen(function*() {
    const store = yield* Store.ExperienceStore
    let have = 0
    for (const n of SIZES) {
      const rate = yield* insertRange(store, have, n)
      have = n
      const hybrid = yield* timeQueries(store, {})
      const vector = yield* timeQueries(store, { mode: "vector" })
      row(name, n, rate.toFixed(0), hybrid, vector)
      console.log(rows[rows.length - 1])
    }
  }).pipe(Effect.provide(layer.pipe(Layer.provideMerge(Embedder.layerHashed({ dimension: DIM })))))

/** Bulk load: insert into a directory store opened `exact`, close it, reopen `auto` (backfill + one HNSW build). */
const bulk = Effect.suspend(() => {
  const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "autodidact-store-bench-"))
  const db = Path.join(dir, "db")
  const hashed = Embedder.layerHashed({ dimension: DIM })
  return Effect.gen(function*() {
    const rate = yield* Effect.gen(function*() {
      return yield* insertRange(yield* Store.ExperienceStore, 0, N)
    }).pipe(Effect.provide(Store.layerPglite({ dir: db, vectorIndex: "exact" }).pipe(Layer.provide(hashed))))
    const t0 = performance.now()
    yield* Effect.gen(function*() {
      const store = yield* Store.ExperienceStore
      const buildS = (performance.now() - t0) / 1000
      const overall = N / (N / rate + buildS)
      const hybrid = yield* timeQueries(store, {})
      const vector = yield* timeQueries(store, { mode: "vector" })
      row("pglite bulk: exact inserts, reopen hnsw", N, `${rate.toFixed(0)} (+ build ${buildS.toFixed(0)} s = ${overall.toFixed(0)})`, hybrid, vector)
      console.log(rows[rows.length - 1])
    }).pipe(Effect.provide(Store.layerPglite({ dir: db, vectorIndex: "hnsw" }).pipe(Layer.provide(hashed))))
  }).pipe(Effect.ensuring(Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))))
})

/** A resident directory store filled to N, closed and reopened: the open time (loading the index), then queries. */
const reopen = Effect.suspend(() => {
  const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "autodidact-store-bench-"))
  const db = Path.join(dir, "db")
  const layer = Store.layerPglite({ dir: db }).pipe(Layer.provide(Embedder.layerHashed({ dimension: DIM })))
  return Effect.gen(function*() {
    const rate = yield* Effect.gen(function*() {
      return yield* insertRange(yield* Store.ExperienceStore, 0, N)
    }).pipe(Effect.provide(layer))
    const t0 = performance.now()
    yield* Effect.gen(function*() {
      const store = yield* Store.ExperienceStore
      const openS = (performance.now() - t0) / 1000
      const hybrid = yield* timeQueries(store, {})
      const vector = yield* timeQueries(store, { mode: "vector" })
      row("pglite directory, resident: reopened", N, `${rate.toFixed(0)} (reopen ${openS.toFixed(1)} s)`, hybrid, vector)
      console.log(rows[rows.length - 1])
    }).pipe(Effect.provide(layer))
  }).pipe(Effect.ensuring(Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))))
})

const main = Effect.gen(function*() {
  console.log(`| store | records | insert rec/s | hybrid query p50 / p95 ms | vector-only p50 / p95 ms |`)
  console.log(`|---|---|---|---|---|`)
  if (RUNS.has("resident")) yield* growing("pglite, resident index (default)", Store.layerMemory())
  if (RUNS.has("reopen")) yield* reopen
  if (RUNS.has("hnsw")) yield* growing("pglite, pgvector hnsw", Store.layerMemory({ vectorIndex: "hnsw" }))
  if (RUNS.has("exact")) yield* growing("pglite, exact", Store.layerMemory({ vectorIndex: "exact" }))
  if (RUNS.has("bulk")) yield* bulk
  const url = process.env.AUTODIDACT_PG_URL
  if (url && RUNS.has("pg")) yield* growing("postgres server", Store.layerPg({ url }))
  console.log(`\n${Os.cpus().length} cores, load average ${Os.loadavg().map((x) => x.toFixed(1)).join(" ")}`)
})
Effect.runPromise(main).catch((e) => {
  console.error(e)
  process.exit(1)
})

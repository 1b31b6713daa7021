/**
 * Retrieval quality on generated long multi-session dialogues (test/fixtures/Dialogues.ts, seeded): recall@10 of
 * plain BM25 (in TS), the store's vector-only and lexical-only rankers and the hybrid default, on PGlite with the
 * resident index (the default: exact cosine, BM25 lexical ranker), with pgvector HNSW and with the exact scorer (both
 * with the PostgreSQL full-text lexical ranker); then the hybrid default again after the same questions were asked
 * 1,000 times with `touch` (reading must not degrade memory).
 *
 *   cd packages/memory && node --conditions=@autodidact/source --import tsx bench/retrieval.ts [conversations=20] [seed=1]
 *
 * With a third argument `seeds` it instead runs the small set of `test/Retrieval.test.ts` (4 conversations of 4
 * sessions of 30 turns, exact scorer) for seeds 1..8 and prints BM25, vector-only, lexical-only and hybrid recall@10
 * for each (how robust the test's margins are):
 *
 *   node --conditions=@autodidact/source --import tsx bench/retrieval.ts 4 1 seeds
 */
import { Effect, Layer } from "effect"
import * as Embedder from "../src/embedders/Embedder.js"
import * as Store from "../src/store/Store.js"
import { generate } from "../test/fixtures/Dialogues.js"
import { bm25Recall, load, storeRecall } from "../test/fixtures/RetrievalEval.js"

const C = Number(process.argv[2] ?? 20)
const SEED = Number(process.argv[3] ?? 1)
const d = generate({ seed: SEED, conversations: C })
if (process.argv[4] !== "seeds") {
  console.log(`${C} conversations, ${d.turns.length} turns, ${d.questions.length} questions (seed ${SEED})`)
  console.log(`| ranker | recall@10 (resident) | recall@10 (hnsw) | recall@10 (exact) |`)
  console.log(`|---|---|---|---|`)
}

const measure = (vectorIndex: Store.VectorIndex) =>
  Effect.gen(function*() {
    const store = yield* Store.ExperienceStore
    yield* load(store, d)
    const rows: Record<string, number> = {}
    rows["vector only (mode: vector)"] = yield* storeRecall(store, d, { mode: "vector", touch: false })
    rows["vector only, relevance weight only"] = yield* storeRecall(store, d, {
      mode: "vector",
      touch: false,
      weights: { recency: 0, importance: 0 }
    })
    rows["lexical only (mode: lexical)"] = yield* storeRecall(store, d, { mode: "lexical", touch: false })
    rows["hybrid, relevance weight only"] = yield* storeRecall(store, d, {
      touch: false,
      weights: { recency: 0, importance: 0 }
    })
    rows["hybrid (default)"] = yield* storeRecall(store, d)
    let asked = 0
    while (asked < 1000) {
      for (const q of d.questions) {
        if (asked++ >= 1000) break
        yield* store.query({ text: q.text, now: q.at + asked * 60_000, filters: { task: q.conversation } })
      }
    }
    rows["hybrid (default) after 1,000 queries"] = yield* storeRecall(store, d)
    rows["hybrid, recencyFrom accessed, after 1,000 queries"] = yield* storeRecall(store, d, {
      recencyFrom: "accessed"
    })
    return rows
  }).pipe(Effect.provide(Store.layerMemory({ vectorIndex }).pipe(Layer.provide(Embedder.layerHashed({ dimension: 256 })))))

const seeds = Effect.gen(function*() {
  const store = yield* Store.ExperienceStore
  console.log(`| seed | BM25 | vector only | lexical only | hybrid (default) |`)
  console.log(`|---|---|---|---|---|`)
  for (let seed = 1; seed <= 8; seed++) {
    const small = generate({ seed, conversations: C, sessions: 4, turnsPerSession: 30 })
    yield* store.removeWhere({})
    yield* load(store, small)
    const v = yield* storeRecall(store, small, { mode: "vector", touch: false })
    const l = yield* storeRecall(store, small, { mode: "lexical", touch: false })
    const h = yield* storeRecall(store, small, { touch: false })
    console.log(`| ${seed} | ${bm25Recall(small).toFixed(3)} | ${v.toFixed(3)} | ${l.toFixed(3)} | ${h.toFixed(3)} |`)
  }
}).pipe(
  Effect.provide(Store.layerMemory({ vectorIndex: "exact" }).pipe(Layer.provide(Embedder.layerHashed({ dimension: 256 }))))
)

const main = process.argv[4] === "seeds" ? seeds : Effect.gen(function*() {
  const resident = yield* measure("resident")
  const hnsw = yield* measure("hnsw")
  const exact = yield* measure("exact")
  const bm25 = bm25Recall(d).toFixed(3)
  console.log(`| BM25 (plain TS, k1 1.2, b 0.75) | ${bm25} | ${bm25} | ${bm25} |`)
  for (const name of Object.keys(hnsw)) {
    console.log(`| ${name} | ${resident[name].toFixed(3)} | ${hnsw[name].toFixed(3)} | ${exact[name].toFixed(3)} |`)
  }
})
Effect.runPromise(main).catch((e) => {
  console.error(e)
  process.exit(1)
})

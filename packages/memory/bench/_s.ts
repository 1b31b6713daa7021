import { Effect, Layer } from "effect"
import * as Embedder from "../src/embedders/Embedder.js"
import * as Store from "../src/store/Store.js"
import { generate } from "../test/fixtures/Dialogues.js"
import { bm25Recall, load, storeRecall } from "../test/fixtures/RetrievalEval.js"
Effect.runPromise(Effect.gen(function*() {
  const store = yield* Store.ExperienceStore
  for (let seed = 1; seed <= 8; seed++) {
    const d = generate({ seed, conversations: 4, sessions: 4, turnsPerSession: 30 })
    yield* store.removeWhere({})
    yield* load(store, d)
    const v = yield* storeRecall(store, d, { mode: "vector", touch: false })
    const l = yield* storeRecall(store, d, { mode: "lexical", touch: false })
    const h = yield* storeRecall(store, d, { touch: false })
    const h0 = yield* storeRecall(store, d, { touch: false, weights: { recency: 0, importance: 0 } })
    console.log(seed, "bm25", bm25Recall(d).toFixed(3), "vec", v.toFixed(3), "lex", l.toFixed(3), "hyb", h.toFixed(3), "hyb0", h0.toFixed(3))
  }
}).pipe(Effect.provide(Store.layerMemory({ vectorIndex: "exact" }).pipe(Layer.provide(Embedder.layerHashed({ dimension: 256 }))))))

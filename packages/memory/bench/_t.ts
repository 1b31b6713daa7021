import { Effect, Layer } from "effect"
import * as Embedder from "../src/embedders/Embedder.js"
import * as Store from "../src/store/Store.js"
import { generate } from "../test/fixtures/Dialogues.js"
import { load } from "../test/fixtures/RetrievalEval.js"
const d = generate({ seed: 7, conversations: 3, sessions: 4, turnsPerSession: 30 })
const t0 = performance.now()
Effect.runPromise(Effect.gen(function*() {
  const store = yield* Store.ExperienceStore
  console.log("open", performance.now() - t0)
  let t = performance.now()
  yield* load(store, d)
  console.log("load", performance.now() - t)
  for (const mode of ["vector", "lexical", "hybrid"] as const) {
    t = performance.now()
    for (const q of d.questions) yield* store.query({ text: q.text, mode, touch: false, filters: { task: q.conversation } })
    console.log(mode, (performance.now() - t) / d.questions.length, "ms/query")
  }
  t = performance.now()
  for (const q of d.questions) yield* store.query({ text: q.text, filters: { task: q.conversation } })
  console.log("touch", (performance.now() - t) / d.questions.length, "ms/query")
}).pipe(Effect.provide(Store.layerMemory({ vectorIndex: (process.argv[2] ?? "exact") as any }).pipe(Layer.provide(Embedder.layerHashed({ dimension: 256 }))))))

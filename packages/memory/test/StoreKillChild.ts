/**
 * Child process of `StoreDurability.test.ts`: writes batches of 20 records, each in one transaction, to the PGlite
 * directory given as argv[2], printing `committed <n>` after each commit, until it is killed.
 */
import { Effect, Layer } from "effect"
import * as Embedder from "../src/embedders/Embedder.js"
import * as Records from "../src/store/Records.js"
import * as Store from "../src/store/Store.js"

const dir = process.argv[2]
const program = Effect.gen(function*() {
  const store = yield* Store.ExperienceStore
  for (let batch = 0; batch < 100_000; batch++) {
    yield* store.putMany(
      Array.from({ length: 20 }, (_, i) =>
        Records.tip(`batch ${batch} record ${i}`, { tags: [`batch-${batch}`], payload: { batch, i } }))
    )
    process.stdout.write(`committed ${batch}\n`)
  }
})
Effect.runPromise(
  program.pipe(Effect.provide(Store.layerPglite({ dir }).pipe(Layer.provide(Embedder.layerHashed({ dimension: 16 })))))
).catch((e) => {
  process.stderr.write(`child failed: ${String(e)}\n`)
  process.exit(1)
})

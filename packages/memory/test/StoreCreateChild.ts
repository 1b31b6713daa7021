/**
 * Child process of `StoreDurability.test.ts`: opens (creating) a PGlite store on the directory argv[2], printing
 * `stage <name>` at each creation stage (`SqlBackend.CreateStage`) and `opened` once the store is open; it hangs at
 * the stage named by argv[3] (or, for `none`, after opening) until it is killed.
 */
import { Effect } from "effect"
import * as Embedder from "../src/embedders/Embedder.js"
import * as SqlBackend from "../src/store/SqlBackend.js"
import * as Store from "../src/store/Store.js"

const [dir, blockAt] = process.argv.slice(2)
const forever = () => new Promise<void>(() => setInterval(() => {}, 60_000))
const program = Effect.gen(function*() {
  const backend = yield* SqlBackend.pglite({
    dir,
    onCreateStage: async (stage) => {
      process.stdout.write(`stage ${stage}\n`)
      if (stage === blockAt) await forever()
    }
  })
  yield* Store.make(backend)
  process.stdout.write("opened\n")
  yield* Effect.promise(forever)
})
process.stdin.on("end", () => process.exit(1)) // the test process is gone: do not linger
process.stdin.resume()
process.stdout.write("starting\n")
Effect.runPromise(program.pipe(Effect.scoped, Effect.provide(Embedder.layerHashed({ dimension: 16 })))).catch((e) => {
  process.stderr.write(`child failed: ${String(e)}\n`)
  process.exit(1)
})

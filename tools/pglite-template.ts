/**
 * Write a PGlite template (`SqlBackend.writeTemplate`: a freshly initialized data directory) to the file argv[2].
 * Run with the workspace's source condition, as `vitest.pglite.ts` and `.ci/run` do:
 *
 *   node --conditions=@autodidact/source --import tsx tools/pglite-template.ts /tmp/pglite-template.tar
 */
import { Effect } from "effect"
import * as SqlBackend from "../packages/memory/src/store/SqlBackend.js"

const file = process.argv[2]
if (file === undefined) {
  process.stderr.write("usage: pglite-template.ts FILE\n")
  process.exit(2)
}
Effect.runPromise(SqlBackend.writeTemplate(file)).catch((e) => {
  process.stderr.write(`pglite template: ${String(e)}\n`)
  process.exit(1)
})

/**
 * Child process of `StoreTemplate.ts` (the test run's globalSetup, which cannot resolve the workspace's source
 * entries itself): creates the PGlite store directory argv[2] with `SqlBackend.pglite`, opens and closes it.
 */
import { Effect } from "effect"
import * as SqlBackend from "../src/store/SqlBackend.js"

Effect.runPromise(Effect.scoped(SqlBackend.pglite({ dir: process.argv[2] }))).catch((e) => {
  process.stderr.write(`template store: ${String(e)}\n`)
  process.exit(1)
})

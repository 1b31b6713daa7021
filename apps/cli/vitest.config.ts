import * as Os from "node:os"
import { mergeConfig } from "vitest/config"
import { sharedConfig } from "../../vitest.shared.js"

// At least two workers (vitest's default is one on a 2-core machine): Nx starts this project among the last, and its
// tests mostly wait on the processes they start, so two files at a time use the cores the finished projects leave.
// ../../vitest.pglite.ts: commands create PGlite stores; one template per run spares each an initdb.
export default mergeConfig(sharedConfig, {
  test: { maxWorkers: Math.max(2, Os.availableParallelism() - 1), globalSetup: ["../../vitest.pglite.ts"] }
})

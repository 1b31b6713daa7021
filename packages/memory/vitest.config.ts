import * as Os from "node:os"
import { mergeConfig } from "vitest/config"
import { sharedConfig } from "../../vitest.shared.js"

// ../../vitest.pglite.ts: one PGlite template per run, so new databases skip initdb; test/StoreTemplate.ts: one PGlite
// store directory created per run, copied by the tests that need an existing one; vitest.children.ts: the child-process
// scripts bundled once per run (test/ChildScripts.ts), so that the children skip tsx.
// At least two workers (vitest's default is one on a 2-core machine): the store tests are the longest of the workspace
// and Nx starts this project late, so it spreads over both cores once the other projects are done. Timeouts are
// ceilings against hangs, not speed checks: PGlite stores take several times longer on a CI host shared by all projects.
export default mergeConfig(sharedConfig, {
  test: {
    globalSetup: ["../../vitest.pglite.ts", "vitest.children.ts", "test/StoreTemplate.ts"],
    maxWorkers: Math.max(2, Os.availableParallelism() - 1),
    testTimeout: 180_000,
    hookTimeout: 180_000
  }
})

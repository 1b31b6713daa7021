import { mergeConfig } from "vitest/config"
import { sharedConfig } from "../../vitest.shared.js"

// vitest.async-worker.ts: one bundle of the AsyncVectorEnv worker per run, so each worker the tests start loads one
// file instead of the sources through tsx.
export default mergeConfig(sharedConfig, { test: { globalSetup: ["vitest.async-worker.ts"] } })

import { mergeConfig } from "vitest/config"
import { sharedConfig } from "../../vitest.shared.js"

// vitest.thread-worker.ts: bundles of the rollout worker thread and of the integration tests' runner and trainer
// processes, once per run, so that each worker and process the tests start loads plain JavaScript instead of the
// sources through tsx.
export default mergeConfig(sharedConfig, { test: { globalSetup: ["vitest.thread-worker.ts"] } })

// Vitest globalSetup: one bundle of the AsyncVectorEnv worker per run (see ../../vitest.worker-bundle.ts and
// src/vector/AsyncVectorEnv.ts), so that each worker the tests start loads one file instead of the sources through tsx.
import { workerBundle } from "../../vitest.worker-bundle.js"

export default workerBundle(
  new URL("src/vector/AsyncVectorEnvWorker.ts", import.meta.url).pathname,
  "AUTODIDACT_ASYNC_ENV_WORKER_BUNDLE"
)

// Vitest globalSetups (see ../../vitest.worker-bundle.ts): one bundle of the rollout worker thread per run (read by
// src/ThreadPool.ts), and bundles of the runner and trainer processes of the integration tests (test/support.ts), so
// that each worker and process the tests start loads plain JavaScript instead of the sources through tsx.
import { scriptBundles, workerBundle } from "../../vitest.worker-bundle.js"

const here = (p: string) => new URL(p, import.meta.url).pathname

export const threadWorker = workerBundle(here("src/ThreadWorker.ts"), "AUTODIDACT_THREAD_WORKER_BUNDLE")
// (test/processes/idle.ts starts a thread pool, which finds its worker by import.meta.url: it stays on tsx)
export const processes = scriptBundles(
  here("."),
  [here("test/processes/runner.ts"), here("test/processes/trainer.ts")],
  "AUTODIDACT_CLUSTER_TEST_SCRIPTS"
)

export default async function setup(): Promise<() => void> {
  const done = [await threadWorker(), await processes()]
  return () => {
    for (const d of done) d?.()
  }
}

/**
 * Shared Vitest settings for every project in the workspace.
 *
 * Packages resolve each other through the `@autodidact/source` export condition, so tests run against
 * `src/` without a build step (the same condition `tsconfig.base.json` gives TypeScript).
 *
 * `isolate: false`: the test files of a project run one after another in the same worker, which imports effect and
 * the package's modules once instead of once per file (most of a small file's time). A test that changes
 * process-wide state (environment variables, registrations, spies, the working directory) restores it itself, in a
 * `finally`/`ensuring`/`afterEach`. A project whose tests depend on per-file module state keeps `isolate: true` in its
 * own config (kernels: importing `@autodidact/kernels/ort` changes the default engines for the rest of the process).
 */
import { defineConfig } from "vitest/config"

export const sourceConditions = ["@autodidact/source", "module", "node", "import", "default"]

export const sharedConfig = defineConfig({
  resolve: { conditions: sourceConditions },
  ssr: { resolve: { conditions: sourceConditions, externalConditions: ["@autodidact/source"] } },
  test: {
    include: ["test/**/*.test.ts"],
    environment: "node",
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    isolate: false
  }
})

/**
 * Shared Vitest settings for every project in the workspace.
 *
 * Packages resolve each other through the `@autodidact/source` export condition, so tests run against
 * `src/` without a build step (the same condition `tsconfig.base.json` gives TypeScript).
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
    pool: "forks"
  }
})

import { defineConfig } from "vitest/config"
import { sharedConfig } from "../vitest.shared.js"

// The generator tests: tree-level checks of every generator, and one end-to-end file that generates every kind into a
// scratch workspace and typechecks, lints, builds and tests the result (test/generators.e2e.test.ts).
// The shared settings, without the `import` condition: Vitest hands the conditions to Node (`--conditions`), and with
// `import` among them Node's `require` inside Nx's CommonJS devkit picks ejs's ESM build (`ejs.render` undefined).
const conditions = ["@autodidact/source", "node", "default"]

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ["@autodidact/source"] } },
  test: sharedConfig.test
})

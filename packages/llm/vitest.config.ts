import { mergeConfig } from "vitest/config"
import { sharedConfig } from "../../vitest.shared.js"

// ../../vitest.pglite.ts: the tests create PGlite stores; one template per run spares each an initdb
export default mergeConfig(sharedConfig, { test: { globalSetup: ["../../vitest.pglite.ts"] } })

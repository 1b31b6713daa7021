import { mergeConfig } from "vitest/config"
import { sharedConfig } from "../../vitest.shared.js"

// ../../vitest.pglite.ts: the runs open an in-memory PGlite experience store; one template per run spares each an initdb.
export default mergeConfig(sharedConfig, { test: { globalSetup: ["../../vitest.pglite.ts"] } })

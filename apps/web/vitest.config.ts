import { mergeConfig } from "vitest/config"
import { sharedConfig } from "../../vitest.shared.js"

export default mergeConfig(sharedConfig, { test: { testTimeout: 180_000, hookTimeout: 180_000 } })

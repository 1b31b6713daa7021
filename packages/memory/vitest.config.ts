import { mergeConfig } from "vitest/config"
import { sharedConfig } from "../../vitest.shared.js"

// passWithNoTests: the package is being filled in (replay buffers, experience store); remove once tests land.
export default mergeConfig(sharedConfig, { test: { passWithNoTests: true } })

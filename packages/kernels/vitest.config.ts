import { mergeConfig } from "vitest/config"
import { sharedConfig } from "../../vitest.shared.js"

// Every test file in a fresh worker: the default engines are process-wide state that some files change on purpose
// (importing `@autodidact/kernels/ort`, registering kernels, AUTODIDACT_WASM_SIMD) and others assert.
export default mergeConfig(sharedConfig, { test: { isolate: true } })

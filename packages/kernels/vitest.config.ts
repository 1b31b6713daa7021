import * as Fs from "node:fs"
import { mergeConfig } from "vitest/config"
import { sharedConfig } from "../../vitest.shared.js"

// The default engines are process-wide state that some files change on purpose (importing `@autodidact/kernels/ort`,
// registering kernels, AUTODIDACT_WASM_SIMD) and others assert: those files run each in a fresh worker
// (`isolate: true`); the rest share one (the workspace default, `isolate: false`), importing the package once.
const stateful = [
  "test/Backend.test.ts",
  "test/Benchmark.test.ts",
  "test/Gpu.test.ts",
  "test/KernelRegistry.test.ts",
  "test/MainEntry.test.ts",
  "test/OrtEngine.test.ts",
  "test/OrtSession.test.ts",
  "test/WasmSimd.test.ts"
]

const stateless = Fs.readdirSync(new URL("test", import.meta.url))
  .filter((f) => f.endsWith(".test.ts"))
  .map((f) => `test/${f}`)
  .filter((f) => !stateful.includes(f))

// (each project takes the shared `include`; `exclude` splits the files between them)
export default mergeConfig(sharedConfig, {
  test: {
    projects: [
      { extends: true, test: { name: "kernels", exclude: stateful, isolate: false } },
      { extends: true, test: { name: "kernels (own process state)", exclude: stateless, isolate: true } }
    ]
  }
})

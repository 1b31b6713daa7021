/**
 * The embedded `wasm-simd` module is up to date: recompile `wasm/kernels.ts` with `asc` (the `assemblyscript`
 * devDependency) and compare with `src/generated/wasmSimdBinary.ts`. That test is skipped (`it.skipIf`) when `asc`
 * cannot be loaded (an install without devDependencies); the module's validation and exports are checked always.
 */
import { readFileSync } from "node:fs"
import { describe, expect, it } from "@effect/vitest"
import { ascModule, compileKernels, generatedPath, renderModule } from "../scripts/build-wasm.js"
import * as binary from "../src/generated/wasmSimdBinary.js"

let ascError: string | undefined
try {
  await import(ascModule)
} catch (e) {
  ascError = e instanceof Error ? e.message : String(e)
}

describe("wasm-simd build", () => {
  it.skipIf(ascError !== undefined)("recompiling wasm/kernels.ts gives exactly the embedded bytes (run npm run build:wasm -w @autodidact/kernels if not)", async () => {
    const bytes = await compileKernels()
    expect(Buffer.from(binary.base64, "base64").equals(Buffer.from(bytes))).toBe(true)
    expect(readFileSync(generatedPath, "utf8")).toBe(renderModule(bytes))
  }, 60_000)

  it("the module validates with SIMD and exports every kernel", () => {
    const WebAssembly = (globalThis as any).WebAssembly
    const bytes = Buffer.from(binary.base64, "base64")
    expect(bytes.length).toBe(binary.byteLength)
    expect(WebAssembly.validate(bytes)).toBe(true)
    const names = WebAssembly.Module.exports(new WebAssembly.Module(bytes)).map((e: { name: string }) => e.name).sort()
    expect(names).toEqual([
      "categorical", "gae", "groupNorm", "inverseNorms", "kl", "klSums", "logSoftmax", "memory", "pcg64Uniforms", "ppoLoss", "quantizeRows", "quantizeRows8",
      "topK", "topKBadQuery", "topKBadRow", "topKCandidates", "topKCandidates8", "topKRescore"
    ])
  })
})

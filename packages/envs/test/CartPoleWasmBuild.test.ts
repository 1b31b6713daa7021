/**
 * The embedded CartPole batch WebAssembly is up to date: recompile `wasm/cartpole.ts` with `asc` (the `assemblyscript`
 * devDependency) and compare with `src/generated/cartPoleWasm.ts`. Skipped (`it.skipIf`) when `asc` cannot be loaded
 * (an install without devDependencies); the embedded module's hash and validity are checked always.
 */
import { createHash } from "node:crypto"
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { ascModule, compileCartPole, generatedPath, renderModule } from "../scripts/build-wasm.js"
import * as embedded from "../src/generated/cartPoleWasm.js"

let ascError: string | undefined
try {
  await import(ascModule)
} catch (e) {
  ascError = e instanceof Error ? e.message : String(e)
}

describe("CartPole batch WebAssembly build", () => {
  it.skipIf(ascError !== undefined)("recompiling wasm/cartpole.ts gives exactly the embedded bytes (run npm run build:wasm -w @autodidact/envs if not)", async () => {
    const wasm = await compileCartPole()
    expect(Buffer.from(embedded.base64, "base64").equals(Buffer.from(wasm))).toBe(true)
    expect(readFileSync(generatedPath, "utf8")).toBe(renderModule(wasm))
  }, 60_000)

  it("the embedded module matches its SHA-256 and validates with SIMD", () => {
    const bytes = Buffer.from(embedded.base64, "base64")
    expect(createHash("sha256").update(bytes).digest("hex")).toBe(embedded.sha256)
    const wasm = (globalThis as { WebAssembly?: { validate(bytes: Uint8Array): boolean } }).WebAssembly!
    expect(wasm.validate(bytes)).toBe(true)
  })
})

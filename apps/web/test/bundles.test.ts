/**
 * The browser entry points bundle with esbuild for `platform: "browser"` and reach no Node built-in (the
 * `no-node-builtins` plugin fails the build naming the importer; nothing is stubbed). Prints and writes
 * (`test-output/bundle-sizes.md`) the minified and gzipped size of each. No browser needed.
 */
import { afterAll, describe, expect, it } from "vitest"
import { type Bundle, bundle } from "../tools/bundle.js"
import { type Check, checkEntry, checks, entries, here, sizeTable } from "./browser.js"

/** Rows in definition order; a test replaces its row's placeholder with the bundle. */
const sizes: Array<[string, Bundle | string]> = []
const row = (name: string, placeholder: string): ((b: Bundle) => void) => {
  const r: [string, Bundle | string] = [name, placeholder]
  sizes.push(r)
  return (b) => {
    r[1] = b
  }
}

describe("browser bundles of the entry points", () => {
  for (const entry of entries) {
    const set = row(entry.specifier, "failed")
    it(`${entry.specifier} has no Node built-in in its import graph`, async () => {
      const b = await bundle({ contents: `export * from ${JSON.stringify(entry.specifier)}`, resolveDir: here })
      expect(b.bytes).toBeGreaterThan(1000)
      set(b)
    })
  }

  const byModule = new Map<string, Check>()
  for (const c of Object.values(checks) as ReadonlyArray<Check>) if (!byModule.has(c.module)) byModule.set(c.module, c)
  for (const check of byModule.values()) {
    const name = `page check ${check.module.replace(/^.*\/src\//, "src/")}`
    const set = row(name, "failed")
    it(`${name} bundles`, async () => {
      set(await bundle({ contents: checkEntry(check), resolveDir: here }))
    })
  }

  it("refuses a Node built-in, also one that a polyfill package in node_modules would resolve", async () => {
    await expect(bundle({ contents: `import "node:os"`, resolveDir: here })).rejects.toThrow(/Node built-in "node:os"/)
    await expect(bundle({ contents: `import { EventEmitter } from "events"; console.log(EventEmitter)`, resolveDir: here })).rejects.toThrow(/Node built-in "events"/)
    await expect(bundle({ contents: `import * as w from "worker_threads"; console.log(w)`, resolveDir: here })).rejects.toThrow(/Node built-in "worker_threads"/)
  })

  const setTf = row("@tensorflow/tfjs-core + tfjs-backend-cpu", "failed")
  it("accepts what a package's own browser field disables (tfjs-core: util, crypto)", async () => {
    const b = await bundle({ contents: `import * as tf from "@tensorflow/tfjs-core"; import "@tensorflow/tfjs-backend-cpu"; console.log(tf.version_core)`, resolveDir: here })
    setTf(b)
  })

  afterAll(() => {
    console.log(sizeTable("Browser bundle sizes", sizes, "bundle-sizes.md"))
  })
})

/**
 * A PGlite store directory created once per test run (vitest `globalSetup` of this package) for the tests that need
 * "an existing, empty store directory": each copies it (`copyStoreTemplate`) instead of creating its own, which costs
 * a PGlite initdb in WebAssembly (seconds of CPU) every time. The template is exactly what `SqlBackend.pglite` leaves
 * after creating a new directory and closing it cleanly (initdb'd, no migrations run, no lock, no summary file). The
 * tests of creation itself (`StoreDurability.test.ts`, killed during creation) still create their stores.
 */
import { execFileSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { inject } from "vitest"
import type { TestProject } from "vitest/node"
import { childCommand } from "./ChildScripts.js"

declare module "vitest" {
  export interface ProvidedContext {
    /** The directory of the template store (see `StoreTemplate.ts`). */
    readonly memoryStoreTemplate: string
  }
}

/** globalSetup: create the template store, provide its directory, delete it after the run. */
export default function setup(project: TestProject): () => void {
  const tmp = Fs.mkdtempSync(Path.join(Os.tmpdir(), "autodidact-store-template-"))
  const dir = Path.join(tmp, "store")
  const here = Path.dirname(new URL(import.meta.url).pathname)
  execFileSync(
    process.execPath,
    [...childCommand("StoreTemplateChild"), dir],
    { cwd: Path.resolve(here, ".."), stdio: ["ignore", "ignore", "inherit"] }
  )
  if (!Fs.existsSync(Path.join(dir, "PG_VERSION")) || Fs.existsSync(`${dir}.lock`)) {
    throw new Error(`StoreTemplate: ${dir} is not a closed PGlite store`)
  }
  project.provide("memoryStoreTemplate", dir)
  return () => Fs.rmSync(tmp, { recursive: true, force: true })
}

/** Copy the template store to `dir` (absent; its parent is created): an existing empty store directory. */
export const copyStoreTemplate = (dir: string): string => {
  Fs.mkdirSync(Path.dirname(dir), { recursive: true })
  Fs.cpSync(inject("memoryStoreTemplate"), dir, { recursive: true, errorOnExist: true, force: false })
  return dir
}

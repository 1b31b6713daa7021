/**
 * Vitest `globalSetup` for the projects whose tests create PGlite stores (memory, llm, the CLI): writes one PGlite
 * template (`SqlBackend.writeTemplate`: a freshly initialized data directory) per test run and exports
 * `AUTODIDACT_PGLITE_TEMPLATE`, so that every new PGlite database of the run — in the test workers and in the
 * processes they start — is unpacked from it instead of running initdb (seconds of WebAssembly each). The stores are
 * the same; creation itself (the sibling directory, the rename, crash safety) is unchanged. Set
 * `AUTODIDACT_PGLITE_TEMPLATE` yourself to reuse a template across runs, or to `none` to test initdb.
 */
import { execFileSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"

const variable = "AUTODIDACT_PGLITE_TEMPLATE"

export default function setup(): (() => void) | undefined {
  if (process.env[variable] !== undefined) return undefined // given by the caller (or "none")
  const tmp = Fs.mkdtempSync(Path.join(Os.tmpdir(), "autodidact-pglite-template-"))
  const file = Path.join(tmp, "pglite-template.tar")
  const root = Path.dirname(new URL(import.meta.url).pathname)
  // a child: this process (vitest's main one) does not resolve the workspace's source entries
  execFileSync(
    process.execPath,
    ["--conditions=@autodidact/source", "--import", "tsx", Path.join(root, "tools", "pglite-template.ts"), file],
    { cwd: root, stdio: ["ignore", "ignore", "inherit"] }
  )
  process.env[variable] = file
  return () => {
    delete process.env[variable]
    Fs.rmSync(tmp, { recursive: true, force: true })
  }
}

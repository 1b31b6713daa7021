#!/usr/bin/env node
// The `autodidact` command. It runs the TypeScript sources of the workspace directly through tsx, with the
// `@autodidact/source` export condition so that workspace packages resolve to their `src/` too: no build step
// is needed after `npm ci`. SIGINT and SIGTERM sent to this process are passed on to the child (a Ctrl-C in a
// terminal reaches both, being sent to the whole process group; the child's runtime treats a repeated interrupt as
// one), which closes its scopes and exits; this process then exits with its code.
import { spawn } from "node:child_process"
import { createRequire } from "node:module"
import { fileURLToPath, pathToFileURL } from "node:url"

const require = createRequire(import.meta.url)
const main = fileURLToPath(new URL("../src/main.ts", import.meta.url))
const tsx = require.resolve("tsx")
const child = spawn(
  process.execPath,
  ["--conditions=@autodidact/source", "--import", pathToFileURL(tsx).href, main, ...process.argv.slice(2)],
  { stdio: "inherit" }
)
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal)
  })
}
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)))

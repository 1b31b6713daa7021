#!/usr/bin/env node
// The `autodidact` command. It runs the TypeScript sources of the workspace directly through tsx, with the
// `@autodidact/source` export condition so that workspace packages resolve to their `src/` too: no build step
// is needed after `npm ci`. A SIGINT reaches the child (same process group); this process waits for its exit code.
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
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => {})
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)))

#!/usr/bin/env node
// The `autodidact` command.
//
// Compiled: when dist/autodidact.js exists and is current, it runs in this process (plain JavaScript: the bundled
// front end, which loads each command's compiled module when that command runs). It is current when there are no
// sources (an installed package) or, in the workspace, when it is newer than every file under apps/cli/src and
// packages/*/src (the packages' dist is built with it: `npm run build`).
//
// From sources: otherwise (right after `npm ci`, or with AUTODIDACT_CLI_SOURCE=1) it runs the TypeScript sources
// through tsx in a child process, with the `@autodidact/source` export condition so that workspace packages resolve
// to their `src/` too: no build step is needed. SIGINT and SIGTERM sent to this process are passed on to the child
// (a Ctrl-C in a terminal reaches both, being sent to the whole process group; the child's runtime treats a
// repeated interrupt as one), which closes its scopes and exits; this process then exits with its code.
import * as fs from "node:fs"
import { fileURLToPath, pathToFileURL } from "node:url"

const at = (relative) => fileURLToPath(new URL(relative, import.meta.url))
const dist = at("../dist/autodidact.js")

/** Newest modification time (ms) of the files under `dir` (0 when absent). */
const newest = (dir) => {
  let max = 0
  let entries
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true })
  } catch {
    return 0
  }
  for (const e of entries) {
    const p = `${dir}/${e.name}`
    const t = e.isDirectory() ? newest(p) : fs.statSync(p).mtimeMs
    if (t > max) max = t
  }
  return max
}

const current = () => {
  if (process.env.AUTODIDACT_CLI_SOURCE === "1") return false
  let built
  try {
    built = fs.statSync(dist).mtimeMs
  } catch {
    return false
  }
  const src = at("../src")
  if (!fs.existsSync(src)) return true
  if (newest(src) > built) return false
  const packages = at("../../../packages")
  if (!fs.existsSync(packages)) return true
  for (const name of fs.readdirSync(packages)) if (newest(`${packages}/${name}/src`) > built) return false
  return true
}

// AUTODIDACT_CLI_MODE tells the command (e.g. `bench cli`) which of the two ran
if (current()) {
  process.env.AUTODIDACT_CLI_MODE = "compiled"
  await import(pathToFileURL(dist).href)
} else {
  const { spawn } = await import("node:child_process")
  const { createRequire } = await import("node:module")
  const tsx = createRequire(import.meta.url).resolve("tsx")
  const child = spawn(
    process.execPath,
    ["--conditions=@autodidact/source", "--import", pathToFileURL(tsx).href, at("../src/main.ts"), ...process.argv.slice(2)],
    { stdio: "inherit", env: { ...process.env, AUTODIDACT_CLI_MODE: "sources" } }
  )
  for (const signal of ["SIGINT", "SIGTERM"]) {
    process.on(signal, () => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
    })
  }
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)))
}

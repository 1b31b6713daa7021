#!/usr/bin/env node
/**
 * `npm run test:docs`: every ```ts code block in the docs is type-checked, and run.
 *
 * Markdown files read: README.md, CONTRIBUTING.md, docs/**\/*.md, packages/*\/README.md, apps/*\/README.md.
 * Each ```ts (or ```typescript) block becomes one module in `tmp/doctest-<pid>/` (inside the repository, so workspace
 * packages and their dependencies resolve as they do for the tests: through the `@autodidact/source` condition,
 * `src/` without a build). Then:
 *   1. one `tsc` program type-checks every block (strict, the workspace's tsconfig.base.json) against the packages'
 *      built declarations (`dist/*.d.ts`: 4x cheaper than re-checking every package's sources), which a
 *      `tsc -b` over the packages' tsconfig.lib.json brings up to date first (a no-op after `npm run typecheck`);
 *   2. one Node process (`node --conditions=@autodidact/source --import tsx`) imports the blocks one after another,
 *      each under a timeout (default 20 s, `--timeout MS`); a block that throws, rejects or times out fails.
 * A tsc error or a failing block is reported as `<file.md>:<line>` and fails the command.
 *
 * Markers, in the info string after the language:
 *   ```ts no-run     type-checked, never run (it needs a service: a PostgreSQL server, an LLM endpoint, a model file)
 *   ```ts slow       type-checked, run only with `--slow` (a training run, a large index: seconds of CPU each; CI
 *                    passes `--slow`, so every block but the no-run ones runs there)
 *   ```ts timeout=N  run with a timeout of N ms
 * A block is a whole module: it imports what it uses. Blocks run in one process, in file order, so a block must not
 * depend on another block's side effects.
 *
 *   npm run test:docs                      # all of them
 *   npm run test:docs -- docs/guides/x.md  # only these files
 *   npm run test:docs -- --verbose         # show the blocks' own output and each block's time
 *   npm run test:docs -- --slow            # run the `slow` blocks too
 *   npm run test:docs -- --keep            # keep tmp/doctest-<pid>/ (the extracted blocks) for a look
 */
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const argv = process.argv.slice(2)
const verbose = argv.includes("--verbose")
const runSlow = argv.includes("--slow")
const timeoutIndex = argv.indexOf("--timeout")
const defaultTimeout = timeoutIndex >= 0 ? Number(argv[timeoutIndex + 1]) : 20_000
const only = argv.filter((a, i) => !a.startsWith("--") && argv[i - 1] !== "--timeout").map((a) => resolve(a))

/** The markdown files whose ts blocks are tested. */
const markdownFiles = () => {
  const files = []
  for (const f of ["README.md", "CONTRIBUTING.md"]) if (existsSync(join(root, f))) files.push(join(root, f))
  const walk = (dir) => {
    if (!existsSync(dir)) return
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = join(dir, entry.name)
      if (entry.isDirectory()) {
        if (entry.name !== "node_modules" && entry.name !== "site" && entry.name !== "build") walk(p)
      } else if (entry.name.endsWith(".md")) files.push(p)
    }
  }
  walk(join(root, "docs"))
  for (const group of ["packages", "apps"]) {
    for (const name of readdirSync(join(root, group)).sort()) {
      const readme = join(root, group, name, "README.md")
      if (existsSync(readme)) files.push(readme)
    }
  }
  return only.length === 0 ? files : files.filter((f) => only.includes(f))
}

/** The ts blocks of one markdown file: code, first code line (1-based), flags. */
export const extractBlocks = (text) => {
  const blocks = []
  const lines = text.split("\n")
  let open = undefined
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]
    if (open === undefined) {
      const m = /^(\s*)(`{3,}|~{3,})\s*(ts|typescript)(\s.*)?$/.exec(line)
      if (m) open = { fence: m[2], indent: m[1].length, info: (m[4] ?? "").trim(), start: i + 2, body: [] }
      else if (/^\s*(`{3,}|~{3,})/.test(line)) {
        // another language's block: skip to its closing fence
        const fence = /^\s*(`{3,}|~{3,})/.exec(line)[1]
        for (i++; i < lines.length && !lines[i].trim().startsWith(fence); i++);
      }
    } else if (line.trim().startsWith(open.fence) && line.trim().replace(/[`~]/g, "") === "") {
      const flags = open.info.split(/\s+/).filter(Boolean)
      const timeout = flags.find((f) => f.startsWith("timeout="))
      blocks.push({
        code: open.body.map((l) => l.slice(Math.min(open.indent, l.length - l.trimStart().length))).join("\n"),
        line: open.start,
        run: !flags.includes("no-run"),
        slow: flags.includes("slow"),
        timeout: timeout === undefined ? defaultTimeout : Number(timeout.slice("timeout=".length))
      })
      open = undefined
    } else open.body.push(line)
  }
  return blocks
}

const started = Date.now()
// one directory per run (two runs at once do not clobber each other), removed at the end unless --keep
const dir = join(root, "tmp", `doctest-${process.pid}`)
rmSync(dir, { recursive: true, force: true })
mkdirSync(dir, { recursive: true })
const finish = (code) => {
  if (!argv.includes("--keep")) rmSync(dir, { recursive: true, force: true })
  process.exit(code)
}

const modules = []
for (const file of markdownFiles()) {
  const rel = relative(root, file)
  extractBlocks(readFileSync(file, "utf8")).forEach((block, index) => {
    const name = `${rel.replace(/[^A-Za-z0-9]+/g, "_")}_${index + 1}.ts`
    writeFileSync(join(dir, name), block.code + "\n")
    modules.push({ ...block, name, source: rel })
  })
}
if (modules.length === 0) {
  rmSync(dir, { recursive: true, force: true })
  console.log("doctest: no ts blocks in the files given")
  process.exit(0)
}
const where = new Map(modules.map((m) => [m.name, m]))
const locate = (name, line) => {
  const m = where.get(name)
  return m === undefined ? `${name}:${line}` : `${m.source}:${m.line + line - 1}`
}

writeFileSync(
  join(dir, "tsconfig.json"),
  JSON.stringify({
    extends: "../../tsconfig.base.json",
    compilerOptions: {
      composite: false,
      incremental: false,
      noEmit: true,
      declaration: false,
      declarationMap: false,
      sourceMap: false,
      noUnusedLocals: false,
      customConditions: []
    },
    include: ["*.ts"]
  })
)

let failed = 0
// 1. the packages' declarations up to date, then one tsc program over every block
const tscBin = join(root, "node_modules", "typescript", "bin", "tsc")
const libs = []
for (const group of ["packages", "apps"]) {
  for (const name of readdirSync(join(root, group)).sort()) {
    const lib = join(group, name, "tsconfig.lib.json")
    if (existsSync(join(root, lib))) libs.push(lib)
  }
}
const build = spawnSync(process.execPath, [tscBin, "-b", ...libs], { cwd: root, encoding: "utf8" })
if (build.status !== 0) {
  console.error(`${build.stdout}${build.stderr}`.trim())
  console.error("doctest: the packages do not build (tsc -b); fix that first")
  finish(1)
}
const tsc = spawnSync(process.execPath, [tscBin, "-p", dir, "--pretty", "false"], { cwd: root, encoding: "utf8" })
const tscSeconds = ((Date.now() - started) / 1000).toFixed(1)
if (tsc.status !== 0) {
  const out = `${tsc.stdout}${tsc.stderr}`.trim()
  const errorLines = out.split("\n").map((l) =>
    l.replace(/^(?:tmp\/doctest-\d+\/)?([^(\s]+\.ts)\((\d+),(\d+)\)/, (_, f, line, col) => `${locate(f, Number(line))}:${col}`)
  )
  const count = errorLines.filter((l) => /error TS\d+/.test(l)).length
  console.error(errorLines.join("\n"))
  console.error(`doctest: tsc found ${count} error(s) in the docs' ts blocks`)
  failed += Math.max(count, 1)
}

// 2. run the runnable blocks in one process, each under its timeout
const runnable = modules.filter((m) => m.run && (runSlow || !m.slow))
const workDir = join(dir, "cwd") // blocks that write files (./memory-db, runs/) write them here
mkdirSync(workDir, { recursive: true })
const runner = join(dir, "run.mjs")
writeFileSync(
  runner,
  `import { pathToFileURL } from "node:url"
const blocks = ${JSON.stringify(runnable.map((m) => ({ name: m.name, at: `${m.source}:${m.line}`, timeout: m.timeout })))}
const verbose = ${verbose}
const quiet = { log: console.log, info: console.info, warn: console.warn, table: console.table, debug: console.debug }
const silence = () => { for (const k of Object.keys(quiet)) console[k] = () => {} }
const restore = () => Object.assign(console, quiet)
let failures = 0
// an error thrown outside the block's own promise (a forked fiber, a callback) fails the block that is running
let current = undefined
const stray = (e) => {
  if (current !== undefined) current(e)
  else { restore(); failures++; console.error("FAIL (between blocks): " + (e && e.stack ? e.stack : String(e))) }
}
process.on("uncaughtException", stray)
process.on("unhandledRejection", stray)
// a library's own process-wide error handlers (Emscripten's rethrow) would end the run at the first stray error
for (const method of ["on", "addListener", "prependListener", "once", "prependOnceListener"]) {
  const original = process[method].bind(process)
  process[method] = (event, listener) =>
    event === "uncaughtException" || event === "unhandledRejection" ? process : original(event, listener)
}
for (const b of blocks) {
  const t0 = Date.now()
  if (!verbose) silence()
  let timer
  try {
    await Promise.race([
      import(pathToFileURL(new URL(b.name, import.meta.url).pathname).href),
      new Promise((_, reject) => {
        current = reject
        timer = setTimeout(() => reject(new Error("timed out after " + b.timeout + " ms")), b.timeout)
      })
    ])
    restore()
    if (verbose) console.log("ok   " + b.at + " (" + (Date.now() - t0) + " ms)")
  } catch (e) {
    restore()
    failures++
    console.error("FAIL " + b.at + ": " + (e && e.stack ? e.stack : String(e)))
  } finally {
    current = undefined
    clearTimeout(timer)
    restore()
  }
}
process.exit(failures === 0 ? 0 : 1)
`
)
const runStarted = Date.now()
const budget = runnable.reduce((s, m) => s + m.timeout, 0) + 30_000
const run = spawnSync(process.execPath, ["--conditions=@autodidact/source", "--import", "tsx", runner], {
  cwd: workDir,
  encoding: "utf8",
  timeout: budget,
  env: { ...process.env, NODE_NO_WARNINGS: "1" }
})
const out = `${run.stdout ?? ""}${run.stderr ?? ""}`.replace(/(?:file:\/\/)?\S*?tmp\/doctest-\d+\/([^:\s]+\.ts):(\d+)/g, (_, f, l) =>
  locate(f, Number(l))
)
if (out.trim() !== "") console.error(out.trim())
const runFailures = (out.match(/^FAIL /gm) ?? []).length
if (run.status !== 0) {
  failed += Math.max(runFailures, 1)
  if (run.error) console.error(`doctest: the runner did not finish: ${run.error.message}`)
}
const seconds = ((Date.now() - started) / 1000).toFixed(1)
console.log(
  `doctest: ${modules.length} blocks type-checked (tsc ${tscSeconds} s), ${runnable.length} run ` +
    `(${((Date.now() - runStarted) / 1000).toFixed(1)} s), ` +
    `${modules.filter((m) => !m.run).length} no-run, ${modules.filter((m) => m.run && m.slow && !runSlow).length} slow not run; ` +
    `${failed === 0 ? "all passed" : `${failed} failure(s)`} in ${seconds} s`
)
finish(failed === 0 ? 0 : 1)

#!/usr/bin/env node
/**
 * Check the packages as a user receives them: `npm pack` every publishable workspace package, lint each tarball
 * with publint and @arethetypeswrong/cli, install all tarballs into a fresh project outside the repository with
 * default npm settings (no project `.npmrc`), type-check a consumer file against the packed `.d.ts`, and run it:
 * it imports each package's plain API, makes one call, and checks that an entry point whose optional peer is not
 * installed fails with `MissingPeerError` naming the package to install (tools/pack-consumer/).
 *
 *   node tools/pack-check.mjs            build, pack, lint, install, type-check, run   (CI runs this)
 *   node tools/pack-check.mjs --no-build use the dist/ folders already built
 *   node tools/pack-check.mjs --sizes    also install each package alone into its own empty project (with only
 *                                        its required dependencies, then with each optional peer added) and print
 *                                        `du -sh node_modules` for each: the installed-size table of the README
 *   node tools/pack-check.mjs --keep     keep the temporary directory and print its path
 *
 * Exits non-zero on the first failure, printing the failing command's output.
 */
import { execFile, execFileSync } from "node:child_process"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const args = new Set(process.argv.slice(2))
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "autodidact-pack-"))
const tarballs = path.join(tmp, "tarballs")
fs.mkdirSync(tarballs)

const log = (line) => process.stdout.write(`${line}\n`)
/** Run a command; on failure print its output and exit. Returns stdout. */
const run = (cmd, cmdArgs, options = {}) => {
  try {
    return execFileSync(cmd, cmdArgs, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 1 << 28, ...options })
  } catch (error) {
    log(`FAILED: ${cmd} ${cmdArgs.join(" ")}${options.cwd ? ` (in ${options.cwd})` : ""}`)
    log(String(error.stdout ?? ""))
    log(String(error.stderr ?? ""))
    process.exit(1)
  }
}
/** Environment of a user's shell: none of this workspace's npm settings or CI switches leak into the fresh project. */
const userEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(npm_|NX_|ONNXRUNTIME_NODE_INSTALL$)/i.test(k)))

// ---- the publishable packages, in dependency order ----
const workspaces = ["packages", "apps"].flatMap((dir) =>
  fs.readdirSync(path.join(root, dir)).map((name) => path.join(root, dir, name)).filter((d) => fs.existsSync(path.join(d, "package.json")))
)
const manifests = workspaces.map((dir) => ({ dir, pkg: JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) }))
const publishable = manifests.filter((m) => m.pkg.private !== true)
const byName = new Map(publishable.map((m) => [m.pkg.name, m]))
const internalDeps = (m) =>
  Object.keys({ ...m.pkg.dependencies, ...m.pkg.peerDependencies }).filter((d) => byName.has(d) && !(m.pkg.peerDependenciesMeta?.[d]?.optional))

if (!args.has("--no-build")) {
  log("building every package (nx run-many -t build) ...")
  run("npx", ["nx", "run-many", "-t", "build", "--outputStyle=static"], { cwd: root })
}

// npm pack, publint and attw read or write one package each and share nothing: up to `pool` of them run at a time
// (a few seconds each, mostly process start-up); the lines are printed in package order.
const pool = Math.max(2, Math.min(4, os.availableParallelism()))
/** Like {@link run}, without blocking: resolves stdout; on failure prints the command's output and exits. */
const runAsync = (cmd, cmdArgs, options = {}) =>
  new Promise((resolve) =>
    execFile(cmd, cmdArgs, { encoding: "utf8", maxBuffer: 1 << 28, ...options }, (error, stdout, stderr) => {
      if (error) {
        log(`FAILED: ${cmd} ${cmdArgs.join(" ")}${options.cwd ? ` (in ${options.cwd})` : ""}`)
        log(String(stdout ?? ""))
        log(String(stderr ?? ""))
        process.exit(1)
      }
      resolve(stdout)
    })
  )
/** `f` over `items`, at most `pool` at a time; the results in the order of `items`. */
const inPool = async (items, f) => {
  const results = new Array(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const i = next++
      results[i] = await f(items[i])
    }
  }
  await Promise.all(Array.from({ length: pool }, worker))
  return results
}

// ---- pack ----
const packed = new Map()
const packs = await inPool(publishable, (m) => runAsync("npm", ["pack", "--json", "--pack-destination", tarballs], { cwd: m.dir }))
publishable.forEach((m, i) => {
  const out = JSON.parse(packs[i])[0]
  packed.set(m.pkg.name, { file: path.join(tarballs, out.filename), size: out.size, unpacked: out.unpackedSize, files: out.entryCount })
})
log(`packed ${packed.size} packages into ${tarballs}`)

// ---- lint every tarball (the tools from the workspace's own bins) ----
const bin = (name) => path.join(root, "node_modules", ".bin", name)
const lintTarball = async ([name, t]) => {
  const publint = await runAsync(bin("publint"), ["run", t.file, "--level", "warning"], { cwd: root })
  if (!/All good|No issues/i.test(publint)) {
    log(`publint reports problems in ${name}:\n${publint}`)
    process.exit(1)
  }
  // ESM-only packages: CommonJS `require` resolution is out of scope (profile esm-only).
  await runAsync(bin("attw"), [t.file, "--profile", "esm-only", "--format", "ascii", "--no-emoji", "--no-color"], { cwd: root })
  return `  ${name.padEnd(22)} publint ok, attw ok   ${(t.size / 1024).toFixed(0)} kB packed, ${t.files} files`
}
for (const line of await inPool([...packed], lintTarball)) log(line)

// ---- one fresh project with every package ----
const writeProject = (dir) => {
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }, null, 2))
}
const npmInstall = (dir, specs, env = userEnv) =>
  run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=warn", ...specs], { cwd: dir, env })

// The libraries, without the CLI: the CLI is a program whose dependencies include some of the libraries' optional
// peers (PGlite for `gateway --store pglite:DIR`), which would hide a missing-peer error here.
const libraries = publishable.filter((m) => m.pkg.bin === undefined)
const project = path.join(tmp, "consumer")
writeProject(project)
const noEngineWarnings = (installLog) => {
  const engineWarnings = installLog.split("\n").filter((l) => /EBADENGINE/.test(l))
  if (engineWarnings.length > 0) {
    log(`npm warns EBADENGINE on ${process.version}:\n${engineWarnings.join("\n")}`)
    process.exit(1)
  }
}
noEngineWarnings(npmInstall(project, libraries.map((m) => packed.get(m.pkg.name).file)))
log(`installed the ${libraries.length} library tarballs into ${project} with default npm settings`)

const consumerSrc = path.join(root, "tools", "pack-consumer")
for (const f of fs.readdirSync(consumerSrc)) fs.copyFileSync(path.join(consumerSrc, f), path.join(project, f))
run(process.execPath, [path.join(root, "node_modules", "typescript", "bin", "tsc"), "-p", project], { cwd: project })
log("consumer.ts type-checks against the packed .d.ts files")
process.stdout.write(run(process.execPath, [path.join(project, "consumer.js")], { cwd: project, env: userEnv }))

// The CLI as a user installs it: its tarball (with the libraries' tarballs, which are not on the registry yet) into
// an empty project; `autodidact --help` and a small solve run from the installed bin, compiled JavaScript only.
for (const m of publishable.filter((p) => p.pkg.bin !== undefined)) {
  const dir = path.join(tmp, `program-${m.pkg.name.replace(/\W/g, "_")}`)
  writeProject(dir)
  noEngineWarnings(npmInstall(dir, [...packed.values()].map((t) => t.file)))
  for (const [bin] of Object.entries(m.pkg.bin)) {
    const exe = path.join(dir, "node_modules", ".bin", bin)
    run(exe, ["--help"], { cwd: dir, env: userEnv })
    const solved = run(exe, ["games", "solve", "--game", "kuhn_poker", "--algo", "cfr+", "--iterations", "50", "--json"], { cwd: dir, env: userEnv })
    if (!/nashConv/i.test(solved)) {
      log(`${bin} games solve printed no NashConv:\n${solved}`)
      process.exit(1)
    }
    log(`  ${m.pkg.name}: \`${bin} --help\` and \`${bin} games solve\` run from the installed package`)
  }
}

// ---- installed sizes ----
const du = (dir) => run("du", ["-sk", path.join(dir, "node_modules")]).split("\t")[0] / 1024
if (args.has("--sizes")) {
  const closure = (name, seen = new Set()) => {
    if (seen.has(name)) return seen
    seen.add(name)
    for (const d of internalDeps(byName.get(name))) closure(d, seen)
    return seen
  }
  const effectOnly = path.join(tmp, "size-effect")
  writeProject(effectOnly)
  const effectVersion = JSON.parse(fs.readFileSync(path.join(root, "node_modules", "effect", "package.json"), "utf8")).version
  npmInstall(effectOnly, [`effect@${effectVersion}`])
  log(`\ninstalled size (du -sh node_modules) into an empty project; effect ${effectVersion} alone: ${du(effectOnly).toFixed(1)} MB`)
  log("| package | required dependencies | with optional peer |")
  log("|---|---|---|")
  for (const m of publishable) {
    const dir = path.join(tmp, `size-${m.pkg.name.replace(/\W/g, "_")}`)
    writeProject(dir)
    npmInstall(dir, [...closure(m.pkg.name)].map((n) => packed.get(n).file))
    const base = du(dir)
    const optional = Object.entries(m.pkg.peerDependenciesMeta ?? {}).filter(([, meta]) => meta.optional).map(([peer]) => peer)
    const extras = []
    for (const peer of optional) {
      const version = m.pkg.devDependencies?.[peer] ?? m.pkg.peerDependencies[peer]
      const withPeer = path.join(tmp, `${path.basename(dir)}+${peer.replace(/\W/g, "_")}`)
      fs.cpSync(dir, withPeer, { recursive: true, verbatimSymlinks: true })
      // onnxruntime-node's install script downloads GPU binaries, which fails offline: skip it as its docs say
      npmInstall(withPeer, [`${peer}@${version}`], { ...userEnv, ONNXRUNTIME_NODE_INSTALL: "skip" })
      extras.push(`+${peer}: ${du(withPeer).toFixed(1)} MB`)
      fs.rmSync(withPeer, { recursive: true, force: true })
    }
    log(`| ${m.pkg.name} | ${base.toFixed(1)} MB | ${extras.join(", ") || "—"} |`)
  }
}

if (args.has("--keep")) log(`kept ${tmp}`)
else fs.rmSync(tmp, { recursive: true, force: true })
log("pack-check: every package packs, lints, installs with default npm settings, type-checks and runs")

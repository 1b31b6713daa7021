#!/usr/bin/env node
/**
 * `npm run release:dry`: what a release would publish, without publishing or changing anything here.
 *
 * Applies the pending changesets (`changeset version`) to a copy of the workspace's manifests, changelogs and
 * `.changeset/` in a temporary directory, then prints for every publishable package: its version now → after, the
 * changelog entry the release adds, and what `npm pack --dry-run` would put in its tarball (file count, packed and
 * unpacked size, the files outside dist/ and src/). Pack contents are read from this workspace, so build first
 * (`npm run build`) to see the dist/ files a release would carry.
 *
 *   npm run release:dry            summary and changelog entries
 *   npm run release:dry -- --files also list every file of every tarball
 */
import { execFileSync } from "node:child_process"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const listFiles = process.argv.includes("--files")
const out = (line = "") => process.stdout.write(`${line}\n`)

const workspaceDirs = ["packages", "apps"].flatMap((dir) =>
  fs.readdirSync(path.join(root, dir)).map((name) => path.join(dir, name)).filter((d) => fs.existsSync(path.join(root, d, "package.json")))
)

// ---- a copy with just what `changeset version` reads and writes ----
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "autodidact-release-"))
try {
  fs.copyFileSync(path.join(root, "package.json"), path.join(tmp, "package.json"))
  fs.cpSync(path.join(root, ".changeset"), path.join(tmp, ".changeset"), { recursive: true })
  for (const dir of workspaceDirs) {
    fs.mkdirSync(path.join(tmp, dir), { recursive: true })
    for (const file of ["package.json", "CHANGELOG.md"]) {
      if (fs.existsSync(path.join(root, dir, file))) fs.copyFileSync(path.join(root, dir, file), path.join(tmp, dir, file))
    }
  }
  fs.symlinkSync(path.join(root, "node_modules"), path.join(tmp, "node_modules"), "dir")
  const pending = fs.readdirSync(path.join(tmp, ".changeset")).filter((f) => f.endsWith(".md") && f !== "README.md")
  out(`${pending.length} pending changeset(s)`)
  if (pending.length > 0) {
    execFileSync(process.execPath, [path.join(root, "node_modules", "@changesets", "cli", "bin.js"), "version"], {
      cwd: tmp,
      stdio: ["ignore", "pipe", "pipe"]
    })
  }

  for (const dir of workspaceDirs) {
    const before = JSON.parse(fs.readFileSync(path.join(root, dir, "package.json"), "utf8"))
    if (before.private === true) continue
    const after = JSON.parse(fs.readFileSync(path.join(tmp, dir, "package.json"), "utf8"))
    out()
    out(`## ${before.name}  ${before.version} → ${after.version}${before.version === after.version ? " (unchanged)" : ""}`)
    const oldLog = fs.existsSync(path.join(root, dir, "CHANGELOG.md")) ? fs.readFileSync(path.join(root, dir, "CHANGELOG.md"), "utf8") : ""
    const newLog = fs.existsSync(path.join(tmp, dir, "CHANGELOG.md")) ? fs.readFileSync(path.join(tmp, dir, "CHANGELOG.md"), "utf8") : ""
    const added = newLog.length > oldLog.length ? newLog.slice(0, newLog.length - oldLog.length + newLog.indexOf("\n") + 1) : ""
    const entry = added.split("\n").filter((l) => !/^# /.test(l)).join("\n").trim()
    if (entry) out(entry.split("\n").map((l) => `    ${l}`).join("\n"))
    const [pack] = JSON.parse(
      execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: path.join(root, dir), encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })
    )
    const files = pack.files.map((f) => f.path)
    const other = files.filter((f) => !/^(dist|src)\//.test(f))
    out(`  tarball: ${pack.entryCount} files, ${(pack.size / 1024).toFixed(0)} kB packed, ${(pack.unpackedSize / 1024).toFixed(0)} kB unpacked; dist/ ${files.filter((f) => f.startsWith("dist/")).length} files, src/ ${files.filter((f) => f.startsWith("src/")).length}; also: ${other.join(", ")}`)
    if (!files.some((f) => f.startsWith("dist/"))) out("  WARNING: no dist/ in the tarball: run `npm run build` first")
    if (listFiles) for (const f of files) out(`    ${f}`)
  }
  out()
  out("dry run: nothing was published or changed (`npx changeset version` then `npx changeset publish` would do it)")
} finally {
  fs.rmSync(tmp, { recursive: true, force: true })
}

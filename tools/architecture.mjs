#!/usr/bin/env node
/**
 * Writes the generated part of docs/architecture.md (the package diagram and the table of what each package holds
 * and may import) from what exists: every `packages/<name>/package.json` (its description and `@autodidact/*`
 * dependencies) and the layer table in tools/layers.cjs, which `.dependency-cruiser.cjs` enforces on the imports.
 *
 * `node tools/architecture.mjs` rewrites the part between the `<!-- generated:packages -->` markers;
 * `node tools/architecture.mjs --check` (CI) fails when the doc is stale, when a package.json declares a dependency
 * that the layer table forbids, or when a package exists that the layer table does not list.
 */
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const { mayImport, testsMayAlsoImport } = createRequire(import.meta.url)("./layers.cjs")
const docPath = path.join(root, "docs", "architecture.md")
const BEGIN = "<!-- generated:packages (node tools/architecture.mjs) -->"
const END = "<!-- /generated:packages -->"

const readJson = (p) => JSON.parse(fs.readFileSync(p, "utf8"))
const packages = fs.readdirSync(path.join(root, "packages")).filter((d) => fs.existsSync(path.join(root, "packages", d, "package.json"))).sort()
const problems = []
const info = packages.map((dir) => {
  const pj = readJson(path.join(root, "packages", dir, "package.json"))
  const internal = (deps) => Object.keys(deps ?? {}).filter((d) => d.startsWith("@autodidact/")).map((d) => d.slice("@autodidact/".length)).sort()
  const deps = [...new Set([...internal(pj.dependencies), ...internal(pj.peerDependencies)])].sort()
  const devDeps = internal(pj.devDependencies).filter((d) => !deps.includes(d))
  const allowed = mayImport[dir]
  if (allowed === undefined) problems.push(`packages/${dir} is not in tools/layers.cjs: say what it may import`)
  else {
    for (const d of deps) if (!allowed.includes(d)) problems.push(`${pj.name} depends on @autodidact/${d}, which tools/layers.cjs does not allow`)
    for (const d of devDeps) if (!allowed.includes(d) && !(testsMayAlsoImport[dir] ?? []).includes(d)) problems.push(`${pj.name} has a devDependency on @autodidact/${d}, which tools/layers.cjs does not allow`)
  }
  return { dir, name: pj.name, description: pj.description ?? "", deps, devDeps, allowed: allowed ?? [] }
})
for (const name of Object.keys(mayImport)) if (!packages.includes(name)) problems.push(`tools/layers.cjs lists ${name}, which is not a package`)

const apps = fs.readdirSync(path.join(root, "apps")).filter((d) => fs.existsSync(path.join(root, "apps", d, "package.json"))).sort()
const mermaidId = (n) => n.replace(/[^a-zA-Z0-9]/g, "_")
const lines = []
lines.push(BEGIN)
lines.push("")
lines.push("```mermaid")
lines.push("graph BT")
for (const p of info) for (const d of p.deps) lines.push(`  ${mermaidId(p.dir)}[${p.dir}] --> ${mermaidId(d)}[${d}]`)
for (const a of apps) {
  const pj = readJson(path.join(root, "apps", a, "package.json"))
  const deps = Object.keys(pj.dependencies ?? {}).filter((d) => d.startsWith("@autodidact/")).map((d) => d.slice("@autodidact/".length)).sort()
  // the apps reach every package; draw only their edges to packages nothing else depends on, to keep the picture legible
  const tops = deps.filter((d) => !info.some((p) => p.deps.includes(d)))
  for (const d of tops) lines.push(`  app_${mermaidId(a)}([apps/${a}]) --> ${mermaidId(d)}[${d}]`)
}
lines.push("```")
lines.push("")
lines.push("An arrow points from a package to a package it depends on (`package.json`); `apps/*` may use every package.")
lines.push("")
lines.push("| package | holds | depends on | may import (tools/layers.cjs) |")
lines.push("|---|---|---|---|")
const list = (xs) => (xs.length === 0 ? "—" : xs.map((x) => `\`${x}\``).join(", "))
for (const p of info) {
  const dev = p.devDeps.length > 0 ? ` (tests and benchmarks also: ${list(p.devDeps)})` : ""
  lines.push(`| [\`${p.name}\`](../packages/${p.dir}) | ${p.description.replace(/\|/g, "\\|")} | ${list(p.deps)}${dev} | ${p.allowed.length === 0 ? "`effect` only" : list(p.allowed)} |`)
}
for (const a of apps) {
  const pj = readJson(path.join(root, "apps", a, "package.json"))
  lines.push(`| [\`apps/${a}\`](../apps/${a}) | ${(pj.description ?? "").replace(/\|/g, "\\|")} | every package it needs | any package |`)
}
lines.push("")
lines.push(END)
const generated = lines.join("\n")

const doc = fs.readFileSync(docPath, "utf8")
const i = doc.indexOf(BEGIN)
const j = doc.indexOf(END)
if (i < 0 || j < 0) {
  console.error(`docs/architecture.md has no ${BEGIN} … ${END} section`)
  process.exit(1)
}
const next = doc.slice(0, i) + generated + doc.slice(j + END.length)

if (process.argv.includes("--check")) {
  if (next !== doc) problems.push("docs/architecture.md is stale: run `node tools/architecture.mjs`")
  if (problems.length > 0) {
    for (const p of problems) console.error(`architecture: ${p}`)
    process.exit(1)
  }
  console.log(`architecture: ${info.length} packages and ${apps.length} app(s) match tools/layers.cjs and docs/architecture.md`)
} else {
  fs.writeFileSync(docPath, next)
  for (const p of problems) console.error(`architecture: ${p}`)
  console.log(`wrote the generated section of ${path.relative(root, docPath)}`)
  if (problems.length > 0) process.exit(1)
}

/**
 * `nx g @autodidact/tools:package NAME [--description TEXT] [--mayImport core,kernels]`: a new independently
 * versioned package in the house layout (what packages/core has): `package.json` with `exports` (the
 * `@autodidact/source` condition for in-repo source resolution), `engines`, peer dependencies on `effect` and
 * `@autodidact/core`; `tsconfig.json`/`tsconfig.lib.json`/`tsconfig.test.json`; `vitest.config.ts` (the Nx `test`
 * target is inferred from it, `build`/`typecheck` from the tsconfigs); `src/index.ts` and a first module with a plain
 * and an Effect face; `test/`; `bench/`; a README (plain example, then Effect); a changeset. Registers it in the
 * solution `tsconfig.json` and in `tools/layers.cjs` (what it may import), then runs `npm install` (links the
 * workspace) and `node tools/architecture.mjs` (the generated package table), unless `--skipInstall`.
 */
import { execSync } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { generateFiles, updateJson } from "@nx/devkit"
import { addChangeset, assertAbsent, caretVersion, GeneratorError, nameForms, readText } from "../lib.js"

const here = path.dirname(fileURLToPath(import.meta.url))

/**
 * Add `name: [imports]` to the `mayImport` table of tools/layers.cjs.
 * @param {string} text @param {string} name @param {Array<string>} imports
 */
export const addLayer = (text, name, imports) => {
  const start = text.indexOf("const mayImport = {")
  const end = text.indexOf("\n}\n", start)
  if (start < 0 || end < 0) throw new GeneratorError("tools/layers.cjs: found no `const mayImport = { ... }` table")
  const entry = `  ${/^[a-z][a-z0-9]*$/.test(name) ? name : JSON.stringify(name)}: [${imports.map((i) => JSON.stringify(i)).join(", ")}]`
  return text.slice(0, end) + ",\n" + entry + text.slice(end)
}

/**
 * @param {import("@nx/devkit").Tree} tree
 * @param {{ name: string, description?: string, mayImport?: string, skipInstall?: boolean }} options
 */
export default async function packageGenerator(tree, options) {
  const { name } = options
  if (typeof name !== "string" || !/^[a-z][a-z0-9-]*$/.test(name)) {
    throw new GeneratorError(`package name ${JSON.stringify(name)} is not valid: lower-case letters, digits and dashes, starting with a letter (e.g. my-package)`)
  }
  const dir = `packages/${name}`
  assertAbsent(tree, dir)
  const layers = readText(tree, "tools/layers.cjs")
  const known = [...layers.slice(layers.indexOf("const mayImport = {"), layers.indexOf("\n}\n", layers.indexOf("const mayImport = {"))).matchAll(/^ {2}"?([a-z][a-z0-9-]*)"?:/gm)].map((m) => m[1])
  if (known.includes(name)) throw new GeneratorError(`tools/layers.cjs already lists ${name}`)
  const mayImport = (options.mayImport ?? "core").split(",").map((s) => s.trim()).filter((s) => s !== "")
  for (const dep of mayImport) {
    if (!known.includes(dep)) throw new GeneratorError(`--mayImport ${dep}: not a package of tools/layers.cjs (known: ${known.join(", ")})`)
  }
  if (!mayImport.includes("core")) mayImport.unshift("core")
  const forms = nameForms(name, "package")
  const description = (options.description ?? `Autodidact ${name}`).replace(/\.$/, "")
  const coreRange = caretVersion(tree, "packages/core")

  generateFiles(tree, path.join(here, "files"), dir, { ...forms, name, description, tmpl: "" })
  tree.write(`${dir}/package.json`, JSON.stringify({
    name: `@autodidact/${name}`,
    version: "0.0.0",
    description: `${description}.`,
    license: "Apache-2.0",
    type: "module",
    sideEffects: false,
    exports: {
      ".": { "@autodidact/source": "./src/index.ts", types: "./dist/index.d.ts", import: "./dist/index.js", default: "./dist/index.js" },
      "./package.json": "./package.json"
    },
    files: ["dist", "src", "README.md"],
    dependencies: Object.fromEntries(mayImport.filter((d) => d !== "core").map((d) => [`@autodidact/${d}`, caretVersion(tree, `packages/${d}`)])),
    peerDependencies: { "@autodidact/core": coreRange, effect: "^4.1.0" },
    engines: { node: ">=20.19" },
    devDependencies: { "@autodidact/core": coreRange }
  }, null, 2) + "\n")
  const refs = mayImport.map((d) => `    {\n      "path": "../${d}/tsconfig.lib.json"\n    }`).join(",\n")
  tree.write(`${dir}/tsconfig.lib.json`, `{
  "extends": "../../tsconfig.base.json",
  "compilerOptions": { "rootDir": "src", "outDir": "dist", "tsBuildInfoFile": "dist/tsconfig.lib.tsbuildinfo" },
  "include": ["src/**/*.ts"],
  "references": [
${refs}
  ]
}
`)
  updateJson(tree, "tsconfig.json", (json) => {
    json.references = [...(json.references ?? []), { path: `./${dir}` }]
    return json
  })
  tree.write("tools/layers.cjs", addLayer(layers, name, mayImport))
  addChangeset(tree, `@autodidact/${name}`, `${name}-new-package`, `New package @autodidact/${name}: ${description}.`)

  return () => {
    if (options.skipInstall) return
    const root = tree.root
    execSync("npm install --no-audit --no-fund", { cwd: root, stdio: "inherit" })
    execSync("node tools/architecture.mjs", { cwd: root, stdio: "inherit" })
    console.log(`Created ${dir}. Next: write src/ and test/, then \`npx nx test @autodidact/${name}\` and \`npx nx build @autodidact/${name}\`.`)
  }
}

/**
 * What the generators share: name forms, checked names, edits of registration files, changesets.
 * Plain ESM JavaScript so that `nx g` loads it without a TypeScript transpiler (Nx 23 on Node 20 has none).
 */
import * as path from "node:path"
import { generateFiles, names } from "@nx/devkit"

/** A typed, readable failure of a generator (bad name, target exists, file not in the expected shape). */
export class GeneratorError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message)
    this.name = "GeneratorError"
  }
}

/**
 * Name forms of a user-given `name` (`my-env`, `myEnv`, `MyEnv` all give the same forms).
 * @param {string} name
 * @param {string} what what is being generated, for the error message
 */
export const nameForms = (name, what) => {
  if (typeof name !== "string" || !/^[A-Za-z][A-Za-z0-9-_]*$/.test(name)) {
    throw new GeneratorError(`${what} name ${JSON.stringify(name)} is not valid: use letters, digits and dashes, starting with a letter (e.g. my-${what})`)
  }
  const n = names(name)
  return {
    /** `MyEnv` */
    className: n.className,
    /** `myEnv` */
    propertyName: n.propertyName,
    /** `my-env` */
    fileName: n.fileName,
    /** `my_env` */
    snakeName: n.fileName.replace(/-/g, "_")
  }
}

/**
 * Insert `line` after the last top-level `import` statement of `text` (an import may span lines).
 * @param {string} text @param {string} line @param {string} file for the error message
 */
export const addImport = (text, line, file) => {
  if (text.includes(line)) return text
  const re = /^import [^;]*?from "[^"]+"\n/gms
  let end = -1
  for (const m of text.matchAll(re)) end = m.index + m[0].length
  if (end < 0) throw new GeneratorError(`${file}: found no import statement to add ${JSON.stringify(line)} after`)
  return text.slice(0, end) + line + "\n" + text.slice(end)
}

/**
 * Insert `block` before the closing brace of the top-level function `export const fnName = ...` of `text`.
 * @param {string} text @param {string} fnName @param {string} block @param {string} file
 */
export const addToFunctionBody = (text, fnName, block, file) => {
  const start = text.indexOf(`export const ${fnName} = `)
  if (start < 0) throw new GeneratorError(`${file}: found no "export const ${fnName}" to register in`)
  const close = text.indexOf("\n}\n", start)
  if (close < 0) throw new GeneratorError(`${file}: found no closing "}" of ${fnName}`)
  return text.slice(0, close + 1) + block + text.slice(close + 1)
}

/**
 * Read a file of the tree, failing with the file's name when it is missing.
 * @param {import("@nx/devkit").Tree} tree @param {string} file
 */
export const readText = (tree, file) => {
  const text = tree.read(file, "utf-8")
  if (text === null) throw new GeneratorError(`${file} does not exist: run the generator from the workspace root`)
  return text
}

/**
 * Fail when a path exists already (a generator never overwrites).
 * @param {import("@nx/devkit").Tree} tree @param {string} file
 */
export const assertAbsent = (tree, file) => {
  if (tree.exists(file)) throw new GeneratorError(`${file} already exists: pick another name or delete it first`)
}

/**
 * Add `export * as <Module> from "<path>"` to a package's `src/index.ts` (after the last `export * as` line).
 * @param {import("@nx/devkit").Tree} tree @param {string} indexFile @param {string} moduleName @param {string} from
 */
export const addModuleExport = (tree, indexFile, moduleName, from) => {
  const text = readText(tree, indexFile)
  if (new RegExp(`export \\* as ${moduleName} from`).test(text)) {
    throw new GeneratorError(`${indexFile} already exports a module named ${moduleName}: pick another name`)
  }
  const line = `export * as ${moduleName} from "${from}"`
  const lines = text.split("\n")
  let last = -1
  lines.forEach((l, i) => {
    if (l.startsWith("export * as ")) last = i
  })
  if (last < 0) lines.push(line)
  else lines.splice(last + 1, 0, line)
  tree.write(indexFile, lines.join("\n"))
}

/**
 * Write `.changeset/<slug>.md` bumping `pkg` by `bump` with a one-line summary (never overwrites: a suffix is added).
 * @param {import("@nx/devkit").Tree} tree @param {string} pkg @param {string} slug @param {string} summary
 * @param {"patch" | "minor" | "major"} [bump]
 */
export const addChangeset = (tree, pkg, slug, summary, bump = "minor") => {
  let file = `.changeset/${slug}.md`
  for (let i = 2; tree.exists(file); i++) file = `.changeset/${slug}-${i}.md`
  tree.write(file, `---\n"${pkg}": ${bump}\n---\n${summary}\n`)
  return file
}

/**
 * The version of a workspace package as a caret range (`^0.1.0`).
 * @param {import("@nx/devkit").Tree} tree @param {string} dir e.g. `packages/core`
 */
export const caretVersion = (tree, dir) => `^${JSON.parse(readText(tree, `${dir}/package.json`)).version}`

/**
 * A generator of one module of a package: `<pkgDir>/src/<folder>/<ClassName>.ts` and `<pkgDir>/test/<ClassName>.test.ts`
 * from the generator's `files/` templates, exported from the package's `src/index.ts` as `<ClassName>`, with a changeset.
 * @param {{ here: string, pkgDir: string, pkg: string, folder: string, what: string, summary: (name: string) => string }} spec
 */
export const moduleGenerator = (spec) =>
  /**
   * @param {import("@nx/devkit").Tree} tree
   * @param {{ name: string }} options
   */
  async (tree, options) => {
    const forms = nameForms(options.name, spec.what)
    const name = forms.fileName
    const { className } = forms
    const rel = spec.folder === "" ? className : `${spec.folder}/${className}`
    assertAbsent(tree, `${spec.pkgDir}/src/${rel}.ts`)
    assertAbsent(tree, `${spec.pkgDir}/test/${className}.test.ts`)
    addModuleExport(tree, `${spec.pkgDir}/src/index.ts`, className, `./${rel}.js`)
    generateFiles(tree, path.join(spec.here, "files"), spec.pkgDir, { ...forms, name, tmpl: "" })
    addChangeset(tree, spec.pkg, `${spec.pkg.replace("@autodidact/", "")}-${name}`, spec.summary(name))
  }

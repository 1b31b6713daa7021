/**
 * Shared by the generator tests: the repository root, a tree holding copies of chosen repository files, and (for the
 * end-to-end test) a scratch workspace holding copies of chosen packages, with a TypeScript check, ESLint and a child
 * Vitest run over the files a generator wrote.
 */
import type { Tree } from "@nx/devkit"
import { createTree } from "@nx/devkit/testing"
import { ESLint } from "eslint"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"

/** The repository root (tools/test/../..). */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..")

/** An in-memory tree holding the repository's current `files` (relative paths), as a generator reads them. */
export const treeWith = (files: ReadonlyArray<string>): Tree => {
  const tree = createTree()
  for (const f of files) tree.write(f, fs.readFileSync(path.join(repoRoot, f), "utf8"))
  return tree
}

/** The text of `file` in `tree`; fails the test when it is missing. */
export const text = (tree: Tree, file: string): string => {
  const t = tree.read(file, "utf-8")
  if (t === null) throw new Error(`${file} was not generated`)
  return t
}

/** Every generated file still holding template syntax (`<%`) or an unsubstituted `__name__` path part. */
export const leftovers = (tree: Tree): Array<string> =>
  tree.listChanges().filter((c) => c.type !== "DELETE" && (/__\w+__/.test(c.path) || (c.content?.toString("utf8") ?? "").includes("<%"))).map((c) => c.path)

/** What {@link makeWorkspace} copies and links. */
export interface WorkspaceOptions {
  /** Packages copied (their src and configs, no tests or dist): the ones generators write into. */
  readonly copy: ReadonlyArray<string>
  /** Packages linked from the repository (read only): the ones the copies import. */
  readonly link: ReadonlyArray<string>
}

/**
 * A scratch workspace: the root configs (package.json, tsconfig.json, tsconfig.base.json, vitest.shared.ts,
 * eslint.config.js, tools/layers.cjs) copied, the `copy` packages copied, the `link` packages linked, and a
 * node_modules whose entries link to the repository's except `@autodidact/*`, which point at the workspace's packages
 * (the copies, so a copied package imports the other copies, as npm's workspace links do). {@link linkPackage} adds a
 * package generated later. Delete it when done.
 */
export const makeWorkspace = (options: WorkspaceOptions): string => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "autodidact-gen-"))
  for (const f of ["package.json", "tsconfig.json", "tsconfig.base.json", "vitest.shared.ts", "eslint.config.js", "tools/layers.cjs"]) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true })
    fs.copyFileSync(path.join(repoRoot, f), path.join(dir, f))
  }
  fs.mkdirSync(path.join(dir, ".changeset"))
  fs.mkdirSync(path.join(dir, "packages"))
  fs.mkdirSync(path.join(dir, "node_modules/@autodidact"), { recursive: true })
  for (const entry of fs.readdirSync(path.join(repoRoot, "node_modules"))) {
    if (entry === "@autodidact") continue
    fs.symlinkSync(path.join(repoRoot, "node_modules", entry), path.join(dir, "node_modules", entry))
  }
  for (const pkg of options.link) {
    fs.symlinkSync(path.join(repoRoot, "packages", pkg), path.join(dir, "packages", pkg), "dir")
    linkPackage(dir, pkg)
  }
  for (const pkg of options.copy) {
    const source = path.join(repoRoot, "packages", pkg)
    const target = path.join(dir, "packages", pkg)
    fs.mkdirSync(path.join(target, "test"), { recursive: true })
    fs.cpSync(path.join(source, "src"), path.join(target, "src"), { recursive: true })
    for (const f of ["package.json", "tsconfig.json", "tsconfig.lib.json", "tsconfig.test.json", "vitest.config.ts"]) {
      if (fs.existsSync(path.join(source, f))) fs.copyFileSync(path.join(source, f), path.join(target, f))
    }
    if (fs.existsSync(path.join(source, "node_modules"))) fs.symlinkSync(path.join(source, "node_modules"), path.join(target, "node_modules"), "dir")
    linkPackage(dir, pkg)
  }
  return dir
}

/** Link `packages/<pkg>` of workspace `dir` as `node_modules/@autodidact/<pkg>` (what `npm install` does for a workspace). */
export const linkPackage = (dir: string, pkg: string): void => {
  fs.symlinkSync(path.join(dir, "packages", pkg), path.join(dir, "node_modules/@autodidact", pkg), "dir")
}

/**
 * A TypeScript check of chosen files of a workspace under `tsconfig.base.json` (what each package's tsconfig
 * extends): the program holds the files and what they import, and only the chosen files are checked (the unchanged
 * files around them were checked by the repository's own typecheck). Calling it again reuses the parsed files that
 * did not change. `build` compiles one project with the same parsed files.
 */
export const typechecker = (dir: string) => {
  const parsed = ts.parseJsonConfigFileContent(
    { extends: "./tsconfig.base.json", compilerOptions: { noEmit: true, composite: false, incremental: false, declaration: false, declarationMap: false, sourceMap: false } },
    ts.sys,
    dir
  )
  const host = ts.createCompilerHost(parsed.options)
  const read = host.getSourceFile.bind(host)
  const cache = new Map<string, { text: string; file: ts.SourceFile }>()
  host.getSourceFile = (fileName, languageVersion, onError) => {
    const text = ts.sys.readFile(fileName)
    const hit = cache.get(fileName)
    if (text !== undefined && hit !== undefined && hit.text === text) return hit.file
    const file = read(fileName, languageVersion, onError)
    if (file !== undefined && text !== undefined) cache.set(fileName, { text, file })
    return file
  }
  let old: ts.Program | undefined
  const format = (diagnostics: ReadonlyArray<ts.Diagnostic>) =>
    diagnostics.map((d) => ts.formatDiagnostic(d, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => dir, getNewLine: () => "\n" }).trim())
  /**
   * Build the project of `tsconfig` (relative to `dir`, e.g. a package's `tsconfig.lib.json`) as `tsc -b` builds it
   * once its references are built: check every file and emit JavaScript and declarations. Returns the diagnostics.
   */
  const build = (tsconfig: string): Array<string> => {
    const config = ts.getParsedCommandLineOfConfigFile(path.join(dir, tsconfig), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => { throw new Error(format([d]).join("\n")) } })
    if (config === undefined) throw new Error(`${tsconfig} could not be read`)
    const program = ts.createProgram({ rootNames: config.fileNames, options: config.options, host, ...(config.projectReferences === undefined ? {} : { projectReferences: config.projectReferences }) })
    const emitted = program.emit()
    return format([...config.errors, ...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics])
  }
  /** The diagnostics of `files` (paths relative to `dir`), formatted `file(line,col): error TS...`; [] when clean. */
  const check = (files: ReadonlyArray<string>): Array<string> => {
    const roots = files.map((f) => path.join(dir, f))
    const program = ts.createProgram({ rootNames: roots, options: parsed.options, host, ...(old === undefined ? {} : { oldProgram: old }) })
    old = program
    const diagnostics = [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()]
    for (const root of roots) {
      const sf = program.getSourceFile(root)
      if (sf === undefined) throw new Error(`${root} is not in the program`)
      diagnostics.push(...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf))
    }
    return format(diagnostics)
  }
  return { check, build }
}

/** ESLint (the repository's config, copied into the workspace) over `files` (relative to `dir`): one line per message. */
export const lint = async (dir: string, files: ReadonlyArray<string>): Promise<Array<string>> => {
  const eslint = new ESLint({ cwd: dir })
  const results = await eslint.lintFiles(files.map((f) => path.join(dir, f)))
  return results.flatMap((r) => r.messages.map((m) => `${path.relative(dir, r.filePath)}:${m.line} ${m.ruleId}: ${m.message}`))
}

/** Replace `pattern` in `file` of `dir`, failing when the file does not hold it (the generated stub changed). */
export const replaceIn = (dir: string, file: string, pattern: RegExp, replacement: string): void => {
  const p = path.join(dir, file)
  const before = fs.readFileSync(p, "utf8")
  if (!pattern.test(before)) throw new Error(`${file} does not hold the generated stub ${pattern}`)
  fs.writeFileSync(p, before.replace(pattern, replacement))
}

/** One test's outcome in a child Vitest run. */
export interface TestOutcome {
  /** The test file, relative to the run's directory. */
  readonly file: string
  readonly name: string
  readonly status: string
  readonly failureMessages: Array<string>
}

/**
 * Run `tests` (paths relative to `dir`) in a child Vitest (its own process, as `npx vitest run` would) under the
 * workspace's shared Vitest settings, reading its JSON report.
 */
export const runVitest = (dir: string, tests: ReadonlyArray<string>): Array<TestOutcome> => {
  const out = path.join(dir, "vitest-report.json")
  const config = path.join(dir, "vitest.generated.config.ts")
  fs.writeFileSync(config, [
    'import { defineConfig } from "vitest/config"',
    'import { sharedConfig } from "./vitest.shared.js"',
    `export default defineConfig({ ...sharedConfig, test: { ...sharedConfig.test, include: ${JSON.stringify(tests)}, testTimeout: 120_000 } })`,
    ""
  ].join("\n"))
  fs.rmSync(out, { force: true })
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("VITEST") && k !== "NODE_OPTIONS"))
  try {
    execFileSync(process.execPath, [path.join(repoRoot, "node_modules/vitest/vitest.mjs"), "run", "--config", config, "--reporter=json", `--outputFile=${out}`], { cwd: dir, env, stdio: "pipe" })
  } catch {
    // a failing test run exits non-zero; the report says which tests failed
  }
  if (!fs.existsSync(out)) throw new Error(`the child Vitest in ${dir} wrote no report`)
  const report = JSON.parse(fs.readFileSync(out, "utf8")) as {
    testResults: Array<{ name: string; assertionResults: Array<{ fullName: string; status: string; failureMessages: Array<string> }> }>
  }
  return report.testResults.flatMap((f) =>
    f.assertionResults.map((a) => ({ file: path.relative(dir, f.name), name: a.fullName, status: a.status, failureMessages: a.failureMessages }))
  )
}

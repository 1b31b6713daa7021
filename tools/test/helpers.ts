/**
 * Shared by the generator tests: the repository root, a tree holding copies of chosen repository files, and (for the
 * end-to-end cases) a scratch workspace holding a copy of one package with a child Vitest run in it.
 */
import type { Tree } from "@nx/devkit"
import { createTree } from "@nx/devkit/testing"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

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

/**
 * A scratch workspace: the root configs copied, `packages/<pkg>` copied (its src and configs, no tests or dist), the
 * other `links` packages and node_modules linked from the repository. With `vitestConfig`, that text replaces the
 * package's vitest.config.ts (e.g. without a global setup the generated test does not need). Delete it when done.
 */
export const makeScratch = (pkg: string, options: { readonly links?: ReadonlyArray<string>; readonly vitestConfig?: string } = {}): string => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `autodidact-gen-${pkg}-`))
  for (const f of ["package.json", "tsconfig.base.json", "vitest.shared.ts", "eslint.config.js"]) fs.copyFileSync(path.join(repoRoot, f), path.join(dir, f))
  fs.symlinkSync(path.join(repoRoot, "node_modules"), path.join(dir, "node_modules"), "dir")
  fs.mkdirSync(path.join(dir, `packages/${pkg}/test`), { recursive: true })
  fs.mkdirSync(path.join(dir, ".changeset"))
  for (const l of options.links ?? ["core"]) fs.symlinkSync(path.join(repoRoot, "packages", l), path.join(dir, "packages", l), "dir")
  const source = path.join(repoRoot, "packages", pkg)
  fs.cpSync(path.join(source, "src"), path.join(dir, `packages/${pkg}/src`), { recursive: true })
  for (const f of ["package.json", "tsconfig.json", "tsconfig.lib.json", "tsconfig.test.json", "vitest.config.ts"]) {
    fs.copyFileSync(path.join(source, f), path.join(dir, `packages/${pkg}`, f))
  }
  if (options.vitestConfig !== undefined) fs.writeFileSync(path.join(dir, `packages/${pkg}/vitest.config.ts`), options.vitestConfig)
  return dir
}

/** One test's outcome in a child Vitest run. */
export interface TestOutcome {
  readonly name: string
  readonly status: string
  readonly failureMessages: Array<string>
}

/** Run `tests` (paths relative to `cwd`) in a child Vitest (its own process, as `npx vitest run` would), reading its JSON report. */
export const runVitest = (cwd: string, tests: ReadonlyArray<string>): Array<TestOutcome> => {
  const out = path.join(cwd, "vitest-report.json")
  fs.rmSync(out, { force: true })
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("VITEST") && k !== "NODE_OPTIONS"))
  try {
    execFileSync(process.execPath, [path.join(repoRoot, "node_modules/vitest/vitest.mjs"), "run", ...tests, "--reporter=json", `--outputFile=${out}`], { cwd, env, stdio: "pipe" })
  } catch {
    // a failing test run exits non-zero; the report says which tests failed
  }
  const report = JSON.parse(fs.readFileSync(out, "utf8")) as { testResults: Array<{ assertionResults: Array<{ fullName: string; status: string; failureMessages: Array<string> }> }> }
  return report.testResults.flatMap((f) => f.assertionResults.map((a) => ({ name: a.fullName, status: a.status, failureMessages: a.failureMessages })))
}

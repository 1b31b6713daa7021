/**
 * End to end, as a contributor meets it: generate a single-agent env and a multi-agent game into a scratch workspace
 * (a copy of packages/envs, with packages/core and node_modules linked from the repository), then typecheck, lint and
 * run the generated tests. Before the fill-in the conformance tests fail with the "fill in ... in <file>" message;
 * after a fill-in of a few lines each (supplied here) everything passes.
 *
 * Cost: one TypeScript program over packages/envs (re-checked incrementally after the fill-in), one ESLint instance,
 * two Vitest runs in a child process.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { ESLint } from "eslint"
import * as fs from "node:fs"
import * as path from "node:path"
import { FsTree, flushChanges } from "nx/src/generators/tree.js"
import ts from "typescript"
import envGenerator from "../generators/env/generator.js"
import { makeScratch, runVitest } from "./helpers.js"

const SINGLE = "packages/envs/src/classic/LineWalk.ts"
const MULTI = "packages/envs/src/multiagent/CoinMatch.ts"
const TESTS = ["test/LineWalk.test.ts", "test/CoinMatch.test.ts"]

let scratch = ""
let changed: Array<string> = []

/** Typecheck packages/envs' entry and the generated tests; a builder program so the second check re-checks only what changed. */
let builder: ts.SemanticDiagnosticsBuilderProgram | undefined
const sourceCache = new Map<string, { text: string; file: ts.SourceFile }>()
const typecheck = (): Array<string> => {
  const parsed = ts.parseJsonConfigFileContent(
    { extends: "./tsconfig.base.json", compilerOptions: { noEmit: true, composite: false, incremental: false, declaration: false, declarationMap: false, sourceMap: false } },
    ts.sys,
    scratch
  )
  const host = ts.createIncrementalCompilerHost(parsed.options)
  const read = host.getSourceFile.bind(host)
  host.getSourceFile = (fileName, languageVersion, onError) => {
    const text = ts.sys.readFile(fileName)
    const hit = sourceCache.get(fileName)
    if (text !== undefined && hit !== undefined && hit.text === text) return hit.file
    const file = read(fileName, languageVersion, onError)
    if (file !== undefined && text !== undefined) sourceCache.set(fileName, { text, file })
    return file
  }
  const roots = ["packages/envs/src/index.ts", ...TESTS.map((t) => `packages/envs/${t}`)].map((f) => path.join(scratch, f))
  builder = ts.createSemanticDiagnosticsBuilderProgram(roots, parsed.options, host, builder)
  const diagnostics = [...builder.getSyntacticDiagnostics(), ...builder.getSemanticDiagnostics()]
  return diagnostics.map((d) => ts.formatDiagnostic(d, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => scratch, getNewLine: () => "\n" }))
}

const lint = async (): Promise<Array<string>> => {
  const eslint = new ESLint({ cwd: scratch })
  const results = await eslint.lintFiles(changed.filter((f) => f.endsWith(".ts")).map((f) => path.join(scratch, f)))
  return results.flatMap((r) => r.messages.map((m) => `${path.relative(scratch, r.filePath)}:${m.line} ${m.ruleId}: ${m.message}`))
}

/** Run the generated tests in a child Vitest. */
const runTests = () => runVitest(path.join(scratch, "packages/envs"), TESTS)

const replace = (file: string, pattern: RegExp, replacement: string) => {
  const p = path.join(scratch, file)
  const before = fs.readFileSync(p, "utf8")
  expect(pattern.test(before), `${file} has the generated stub ${pattern}`).toBe(true)
  fs.writeFileSync(p, before.replace(pattern, replacement))
}

describe("env generator, end to end", { timeout: 300_000 }, () => {
  beforeAll(async () => {
    scratch = makeScratch("envs")
    const tree = new FsTree(scratch, false)
    await envGenerator(tree, { name: "line-walk", kind: "single" })
    await envGenerator(tree, { name: "coin-match", kind: "multi" })
    changed = tree.listChanges().map((c) => c.path)
    flushChanges(scratch, tree.listChanges())
  })
  afterAll(() => {
    if (scratch !== "") fs.rmSync(scratch, { recursive: true, force: true })
  })

  it("generates code that typechecks and lints, whose conformance tests fail with the fill-in message", async () => {
    expect(changed).toEqual(expect.arrayContaining([SINGLE, MULTI, "packages/envs/test/LineWalk.test.ts", "packages/envs/test/CoinMatch.test.ts"]))
    expect(typecheck()).toEqual([])
    expect(await lint()).toEqual([])
    const outcomes = runTests()
    const byName = (prefix: string) => outcomes.filter((o) => o.name.startsWith(prefix))
    const single = byName("LineWalk passes the conformance check")
    expect(single.map((o) => o.status)).toEqual(["failed"])
    expect(single[0]!.failureMessages.join("\n")).toContain(`fill in step() in ${SINGLE}`)
    const multi = byName("CoinMatch passes the conformance check")
    expect(multi.map((o) => o.status)).toEqual(["failed"])
    expect(multi[0]!.failureMessages.join("\n")).toContain(`in ${MULTI}`)
    // the registration tests pass from the start
    expect(byName("LineWalk is registered").map((o) => o.status)).toEqual(["passed"])
    expect(byName("CoinMatch is registered").map((o) => o.status)).toEqual(["passed"])
  })

  it("passes typecheck, lint and its conformance tests after a few-line fill-in", async () => {
    // a walk on a line: 1 moves right, 0 left; reaching the last cell pays 1 and ends the episode
    replace(SINGLE, / {4}throw new NotImplementedError\(\{ what: "step\(\)".*\n/, [
      "    const next = Math.min(this.size - 1, Math.max(0, this.state + (action === 1 ? 1 : -1)))",
      "    this.state = next",
      "    this.done = next === this.size - 1",
      "    return { observation: this.observe(), reward: this.done ? 1 : 0, terminated: this.done, truncated: false, info: {} }",
      ""
    ].join("\n"))
    replace(SINGLE, /NotImplementedError, /, "") // the stub's error is no longer used
    // matching pennies, played in turn: both pick 0 or 1; player 0 wins when the picks match
    replace(MULTI, /export const legalActions = [\s\S]*?\n}\n/, "export const legalActions = (_history: ReadonlyArray<number>): ReadonlyArray<number> => [0, 1]\n")
    replace(MULTI, /export const terminalReturns = [\s\S]*?\n}\n/, [
      "export const terminalReturns = (history: ReadonlyArray<number>): ReadonlyArray<number> | undefined => {",
      "  if (history.length < NUM_PLAYERS) return undefined",
      "  return history[0] === history[1] ? [1, -1] : [-1, 1]",
      "}",
      ""
    ].join("\n"))
    replace(MULTI, /import \{ NotImplementedError \} from "@autodidact\/core"\n/, "")
    expect(typecheck()).toEqual([])
    expect(await lint()).toEqual([])
    const outcomes = runTests()
    expect(outcomes.length).toBe(4)
    expect(outcomes.filter((o) => o.status !== "passed").map((o) => `${o.name}: ${o.failureMessages.join("\n")}`)).toEqual([])
  })
})

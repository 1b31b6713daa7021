/**
 * Every generator end to end, as a contributor meets it: generate into a scratch workspace (copies of the packages
 * the generators write into, with packages/core, packages/kernels and node_modules linked from the repository), then
 * typecheck and lint what was written and run the generated tests in a child Vitest. Before the fill-in each module's
 * conformance test fails with the "fill in <what> in <file>" message of its stub; after a fill-in of a few lines
 * per module (supplied here) every generated test passes. The package generator's output builds, lints
 * and passes its tests as generated.
 *
 * Cost (all kinds share it): TypeScript programs sharing their parsed files (checking only the written files, and
 * building the new package), one ESLint instance, two child Vitest runs.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { FsTree, flushChanges } from "nx/src/generators/tree.js"
import envGenerator from "../generators/env/generator.js"
import estimatorGenerator from "../generators/estimator/generator.js"
import memoryBackendGenerator from "../generators/memory-backend/generator.js"
import metaSolverGenerator from "../generators/meta-solver/generator.js"
import packageGenerator from "../generators/package/generator.js"
import rewardModelGenerator from "../generators/reward-model/generator.js"
import skillGenerator from "../generators/skill/generator.js"
import { lint, linkPackage, makeWorkspace, replaceIn, runVitest, type TestOutcome, typechecker } from "./helpers.js"

/** One generated module: where it is, its test, the conformance test's name and the stub's fill-in message. */
interface Case {
  readonly module: string
  readonly test: string
  readonly conformance: string
  readonly message: string
}

const CASES = {
  single: { module: "packages/envs/src/classic/LineWalk.ts", test: "packages/envs/test/LineWalk.test.ts", conformance: "LineWalk passes the conformance check", message: "fill in step() in packages/envs/src/classic/LineWalk.ts" },
  multi: { module: "packages/envs/src/multiagent/CoinMatch.ts", test: "packages/envs/test/CoinMatch.test.ts", conformance: "CoinMatch passes the conformance check", message: "in packages/envs/src/multiagent/CoinMatch.ts" },
  text: { module: "packages/envs/src/text/TextCorridor.ts", test: "packages/envs/test/TextCorridor.test.ts", conformance: "TextCorridor passes the conformance check", message: "fill in step() (its move() method) in packages/envs/src/text/TextCorridor.ts" },
  estimator: { module: "packages/optim/src/estimators/CenteredReturn.ts", test: "packages/optim/test/CenteredReturn.test.ts", conformance: "CenteredReturn passes the conformance check", message: "fill in estimator() in packages/optim/src/estimators/CenteredReturn.ts" },
  rewardModel: { module: "packages/rewards/src/AnswerMatch.ts", test: "packages/rewards/test/AnswerMatch.test.ts", conformance: "AnswerMatch passes the conformance check", message: "fill in outcome() in packages/rewards/src/AnswerMatch.ts" },
  metaSolver: { module: "packages/solvers/src/normalform/UniformMix.ts", test: "packages/solvers/test/UniformMix.test.ts", conformance: "UniformMix passes the conformance check", message: "fill in metaSolver() in packages/solvers/src/normalform/UniformMix.ts" },
  skill: { module: "packages/skills/src/TakeObject.ts", test: "packages/skills/test/TakeObject.test.ts", conformance: "TakeObject passes the conformance check", message: "fill in main() in packages/skills/src/TakeObject.ts" },
  memoryBackend: { module: "packages/memory/src/store/backends/PgliteProxy.ts", test: "packages/memory/test/PgliteProxy.test.ts", conformance: "PgliteProxy passes the conformance check", message: "fill in removeWhere() in packages/memory/src/store/backends/PgliteProxy.ts" }
} satisfies Record<string, Case>

const PACKAGE = "packages/greeter"
const PACKAGE_TEST = `${PACKAGE}/test/Greeter.test.ts`

let dir = ""
let written: Array<string> = []
let ts: ReturnType<typeof typechecker>
const tests = [...Object.values(CASES).map((c) => c.test), PACKAGE_TEST]

/** The outcomes of the tests of `file` whose name starts with `prefix`. */
const outcomesOf = (outcomes: ReadonlyArray<TestOutcome>, c: Case): Array<TestOutcome> =>
  outcomes.filter((o) => o.file === c.test && o.name.startsWith(c.conformance))

describe("generators, end to end", { timeout: 300_000 }, () => {
  beforeAll(async () => {
    dir = makeWorkspace({ copy: ["envs", "optim", "rewards", "solvers", "skills", "memory"], link: ["core", "kernels"] })
    const tree = new FsTree(dir, false)
    await envGenerator(tree, { name: "line-walk", kind: "single" })
    await envGenerator(tree, { name: "coin-match", kind: "multi" })
    await envGenerator(tree, { name: "text-corridor", kind: "text" })
    await estimatorGenerator(tree, { name: "centered-return" })
    await rewardModelGenerator(tree, { name: "answer-match" })
    await metaSolverGenerator(tree, { name: "uniform-mix" })
    await skillGenerator(tree, { name: "take-object" })
    await memoryBackendGenerator(tree, { name: "pglite-proxy" })
    await packageGenerator(tree, { name: "greeter", skipInstall: true })
    written = tree.listChanges().map((c) => c.path)
    flushChanges(dir, tree.listChanges())
    linkPackage(dir, "greeter") // what the generator's `npm install` does
    ts = typechecker(dir)
  })
  afterAll(() => {
    if (dir !== "") fs.rmSync(dir, { recursive: true, force: true })
  })

  it("generates code that typechecks and lints; each module's conformance test fails with its fill-in message", async () => {
    expect(written).toEqual(expect.arrayContaining([...Object.values(CASES).flatMap((c) => [c.module, c.test]), PACKAGE_TEST]))
    const sources = written.filter((f) => f.endsWith(".ts"))
    expect(ts.check(sources)).toEqual([])
    expect(await lint(dir, sources)).toEqual([])
    const outcomes = runVitest(dir, tests)
    for (const c of Object.values(CASES)) {
      const conformance = outcomesOf(outcomes, c)
      expect(conformance.map((o) => `${o.name}: ${o.status}`), c.test).toEqual([expect.stringMatching(/: failed$/)])
      expect(conformance[0]!.failureMessages.join("\n"), c.test).toContain(c.message)
    }
    // the rest passes from the start: the registration tests, and the new package's tests
    const others = outcomes.filter((o) => !Object.values(CASES).some((c) => o.file === c.test && o.name.startsWith(c.conformance)))
    expect(others.map((o) => o.name)).toEqual(expect.arrayContaining(["LineWalk is registered as LineWalk-v0 with a time limit of 100 steps", "Greeter greets by name (plain API)"]))
    expect(others.filter((o) => o.status !== "passed").map((o) => `${o.name}: ${o.failureMessages.join("\n")}`)).toEqual([])
  })

  it("builds the new package (its tsconfig.lib.json, as tsc -b does) into dist/ with declarations", () => {
    expect(ts.build(`${PACKAGE}/tsconfig.lib.json`)).toEqual([])
    for (const f of ["index.js", "index.d.ts", "Greeter.js", "Greeter.d.ts"]) expect(fs.existsSync(path.join(dir, PACKAGE, "dist", f)), f).toBe(true)
  })

  it("passes typecheck, lint and every generated test after a few-line fill-in per module", async () => {
    fillIn()
    const sources = written.filter((f) => f.endsWith(".ts"))
    expect(ts.check(sources)).toEqual([])
    expect(await lint(dir, sources)).toEqual([])
    const outcomes = runVitest(dir, tests)
    for (const c of Object.values(CASES)) expect(outcomesOf(outcomes, c).length, c.test).toBe(1)
    expect(outcomes.filter((o) => o.status !== "passed").map((o) => `${o.file} ${o.name}: ${o.failureMessages.join("\n")}`)).toEqual([])
  })
})

/** What a contributor writes: the logic of each generated module, a few lines each. */
const fillIn = () => {
  const edit = (file: string, pattern: RegExp, replacement: string) => replaceIn(dir, file, pattern, replacement)

  // a walk on a line: 1 moves right, 0 left; reaching the last cell pays 1 and ends the episode
  edit(CASES.single.module, / {4}throw new NotImplementedError\(\{ what: "step\(\)".*\n/, [
    "    const next = Math.min(this.size - 1, Math.max(0, this.state + (action === 1 ? 1 : -1)))",
    "    this.state = next",
    "    this.done = next === this.size - 1",
    "    return { observation: this.observe(), reward: this.done ? 1 : 0, terminated: this.done, truncated: false, info: {} }",
    ""
  ].join("\n"))
  edit(CASES.single.module, /NotImplementedError, /, "") // the stub's error is no longer used

  // matching pennies, played in turn: both pick 0 or 1; player 0 wins when the picks match
  edit(CASES.multi.module, /export const legalActions = [\s\S]*?\n}\n/, "export const legalActions = (_history: ReadonlyArray<number>): ReadonlyArray<number> => [0, 1]\n")
  edit(CASES.multi.module, /export const terminalReturns = [\s\S]*?\n}\n/, [
    "export const terminalReturns = (history: ReadonlyArray<number>): ReadonlyArray<number> | undefined => {",
    "  if (history.length < NUM_PLAYERS) return undefined",
    "  return history[0] === history[1] ? [1, -1] : [-1, 1]",
    "}",
    ""
  ].join("\n"))
  edit(CASES.multi.module, /import \{ NotImplementedError \} from "@autodidact\/core"\n/, "")

  // the same walk in words: "Right" moves right, "Left" left; the last cell pays 1 and ends the episode
  edit(CASES.text.module, /move\(_index: number\): GridMove \{\n {4}\/\/ TODO: update the state[^\n]*\n {4}throw new NotImplementedError\([^\n]*\n/, [
    "move(index: number): GridMove {",
    "    this.position = Math.min(this.size - 1, Math.max(0, this.position + (index === 1 ? 1 : -1)))",
    "    const terminated = this.position === this.size - 1",
    "    return { reward: terminated ? 1 : 0, terminated, info: {} }",
    ""
  ].join("\n"))
  edit(CASES.text.module, /NotImplementedError, /, "")

  // a group-centred return: A_i = R_i − mean(R), on every step of trajectory i (RLOO's baseline with the mean kept)
  edit(CASES.estimator.module, / {2}\/\/ TODO: compute the advantages[^\n]*\n[^\n]*\n {2}throw new NotImplementedError\([^\n]*\n/, [
    "  return batch.map((group) => {",
    "    const returns = group.map((trajectory) => Advantages.episodeReturn(trajectory.rewards))",
    "    const mean = returns.reduce((a, b) => a + b, 0) / returns.length",
    "    return group.map((trajectory, i) => new Float64Array(trajectory.rewards.length).fill(returns[i]! - mean))",
    "  })",
    ""
  ].join("\n"))
  edit(CASES.estimator.module, /import \{ NotImplementedError \} from "@autodidact\/core"\n/, "")
  edit(CASES.estimator.module, /\{ family: "custom" \}/, '{ family: "group-centered" }') // so the check asserts zero sum and shift invariance

  // 1 when the response is the expected answer (the task), else 0; a step scores 1 when its action is non-empty
  edit(CASES.rewardModel.module, /export const outcome = [\s\S]*?\n}\n/, "export const outcome = (candidate: RewardModel.Candidate): number => ((candidate.response ?? \"\").trim() === (candidate.task ?? \"\").trim() ? 1 : 0)\n")
  edit(CASES.rewardModel.module, /export const step = [\s\S]*?\n}\n/, "export const step = (step: RewardModel.StepView, _candidate: RewardModel.Candidate): number => (step.action.trim() === \"\" ? 0 : 1)\n")
  edit(CASES.rewardModel.module, /import \{ NotImplementedError \} from "@autodidact\/core"\n/, "")

  // every strategy of each population equally likely, and it says so (CheckMetaSolver then asserts uniformity)
  edit(CASES.metaSolver.module, / {4}\/\/ TODO: compute the strategies[^\n]*\n {4}return Effect\.die\([^\n]*\n/, "    return Effect.succeed(metaGame.shape.map((n) => new Float64Array(n).fill(1 / n)))\n")
  edit(CASES.metaSolver.module, /claims: "none"/, 'claims: "uniform"')
  edit(CASES.metaSolver.module, /import \{ NotImplementedError \} from "@autodidact\/core"\n/, "")

  // take the object when a command offers it, else say why
  edit(CASES.skill.module, / {2}\/\/ TODO: read a\.object[^\n]*\n {2}throw new Error\([^\n]*\n/, [
    "  var o = observe();",
    "  for (var i = 0; i < o.admissible.length; i++) {",
    '    if (o.admissible[i].indexOf("take " + a.object + " ") === 0) { act(o.admissible[i]); return { ok: true }; }',
    "  }",
    '  return { ok: false, reason: "no " + a.object };',
    ""
  ].join("\n"))

  // a backend that keeps its records in an in-memory PGlite store, every operation delegated to it: what this checks
  // is the generated wiring (module, layer, export, conformance test); new storage logic is the contributor's
  edit(CASES.memoryBackend.module, / {4}const embedder = yield\* Embedder\n/, "")
  edit(CASES.memoryBackend.module, / {4}\/\/ TODO: open the storage here[\s\S]*?\n {4}\}\)\n {2}\}\)\n/, [
    "    const inner = yield* Effect.flatMap(SqlBackend.pglite({}), (backend) => Store.make(backend)).pipe(",
    "      Effect.mapError((cause) => new StoreOpenError({ location, reason: cause.message, cause }))",
    "    )",
    "    return ExperienceStore.of({ ...inner, backend: NAME as ExperienceStore[\"Service\"][\"backend\"], location })",
    "  })",
    ""
  ].join("\n"))
  edit(CASES.memoryBackend.module, /\/\*\* The stub of one operation[^\n]*\nconst todo = [^\n]*\n/, "")
  edit(CASES.memoryBackend.module, /const FILE = [^\n]*\n/, "")
  edit(CASES.memoryBackend.module, /import \{ NotImplementedError \} from "@autodidact\/core"\n/, "")
  edit(CASES.memoryBackend.module, /import \{ latestVersion \} from "\.\.\/Migrations\.js"\n/, 'import * as SqlBackend from "../SqlBackend.js"\n')
  edit(CASES.memoryBackend.module, /import \{ ExperienceStore \} from "\.\.\/Store\.js"\nimport type \{ StoreOpenError \} from "\.\.\/StoreErrors\.js"\n/, [
    'import * as Store from "../Store.js"',
    'import { ExperienceStore } from "../Store.js"',
    'import { StoreOpenError } from "../StoreErrors.js"',
    ""
  ].join("\n"))
}

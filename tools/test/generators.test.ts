/**
 * Tree-level tests of the generators: each runs on an in-memory tree holding copies of the repository files it edits,
 * and the test reads back what it wrote (layout, registration, exports, changeset) and what it refuses.
 * The end-to-end case (every generator into a scratch workspace: typecheck, lint, tests before and after a fill-in) is
 * generators.e2e.test.ts.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import envGenerator from "../generators/env/generator.js"
import estimatorGenerator from "../generators/estimator/generator.js"
import memoryBackendGenerator from "../generators/memory-backend/generator.js"
import metaSolverGenerator from "../generators/meta-solver/generator.js"
import packageGenerator from "../generators/package/generator.js"
import rewardModelGenerator from "../generators/reward-model/generator.js"
import skillGenerator from "../generators/skill/generator.js"
import { leftovers, repoRoot, text, treeWith } from "./helpers.js"

const ENV_FILES = [
  "packages/envs/src/internal/BuiltinEnvs.ts",
  "packages/envs/src/multiagent/GameRegistry.ts",
  "packages/envs/src/index.ts",
  "packages/envs/src/classic/CartPole.ts"
]
const PACKAGE_FILES = ["tools/layers.cjs", "tsconfig.json", "packages/core/package.json", "packages/kernels/package.json"]
const OPTIM_FILES = ["packages/optim/src/Advantages.ts", "packages/optim/src/index.ts", "packages/optim/package.json"]

/** Evaluate tools/layers.cjs as CommonJS. */
const layersOf = (source: string): { mayImport: Record<string, Array<string>> } => {
  const module = { exports: {} as { mayImport: Record<string, Array<string>> } }
  new Function("module", "require", source)(module, () => ({}))
  return module.exports
}

describe("package generator", () => {
  it("writes the house layout, registers the package in the solution tsconfig and the layer table, and adds a changeset", async () => {
    const tree = treeWith(PACKAGE_FILES)
    const callback = await packageGenerator(tree, { name: "demo-pkg", description: "A demo package.", mayImport: "core,kernels", skipInstall: true })
    for (const f of ["README.md", "tsconfig.json", "tsconfig.lib.json", "tsconfig.test.json", "vitest.config.ts", "src/index.ts", "src/DemoPkg.ts", "test/DemoPkg.test.ts", "bench/demo-pkg.ts"]) {
      expect(tree.exists(`packages/demo-pkg/${f}`), f).toBe(true)
    }
    const pkg = JSON.parse(text(tree, "packages/demo-pkg/package.json"))
    expect(pkg.name).toBe("@autodidact/demo-pkg")
    expect(pkg.description).toBe("A demo package.")
    expect(pkg.exports["."]["@autodidact/source"]).toBe("./src/index.ts")
    expect(pkg.exports["."].types).toBe("./dist/index.d.ts")
    expect(pkg.engines.node).toBe(">=20.19")
    const coreVersion = JSON.parse(text(tree, "packages/core/package.json")).version
    expect(pkg.peerDependencies).toEqual({ "@autodidact/core": `^${coreVersion}`, effect: "^4.1.0" })
    expect(Object.keys(pkg.dependencies)).toEqual(["@autodidact/kernels"])
    expect(JSON.parse(text(tree, "packages/demo-pkg/tsconfig.lib.json")).references).toEqual([
      { path: "../core/tsconfig.lib.json" },
      { path: "../kernels/tsconfig.lib.json" }
    ])
    expect(JSON.parse(text(tree, "tsconfig.json")).references).toContainEqual({ path: "./packages/demo-pkg" })
    const layers = layersOf(text(tree, "tools/layers.cjs"))
    expect(layers.mayImport["demo-pkg"]).toEqual(["core", "kernels"])
    expect(layers.mayImport["core"]).toEqual([]) // the rest of the table is untouched
    expect(text(tree, ".changeset/demo-pkg-new-package.md")).toBe('---\n"@autodidact/demo-pkg": minor\n---\nNew package @autodidact/demo-pkg: A demo package.\n')
    const readme = text(tree, "packages/demo-pkg/README.md")
    expect(readme.indexOf("DemoPkg.greet(")).toBeGreaterThan(0)
    expect(readme.indexOf("Effect.runPromise")).toBeGreaterThan(readme.indexOf("DemoPkg.greet(")) // plain example first
    expect(text(tree, "packages/demo-pkg/src/index.ts")).toContain('export * as DemoPkg from "./DemoPkg.js"')
    expect(leftovers(tree)).toEqual([])
    expect(typeof callback).toBe("function")
  })

  it("refuses a bad name, an existing package and an unknown layer, naming the value", async () => {
    await expect(packageGenerator(treeWith(PACKAGE_FILES), { name: "Demo_Pkg", skipInstall: true })).rejects.toThrow(/"Demo_Pkg" is not valid/)
    const withCore = treeWith([...PACKAGE_FILES, "packages/core/src/index.ts"])
    await expect(packageGenerator(withCore, { name: "core", skipInstall: true })).rejects.toThrow(/packages\/core already exists/)
    await expect(packageGenerator(treeWith(PACKAGE_FILES), { name: "demo", mayImport: "nope", skipInstall: true })).rejects.toThrow(/--mayImport nope/)
  })
})

describe("env generator", () => {
  it("single: a module in classic/, registered as <Name>-v0 in BuiltinEnvs, exported, with a CheckEnv test", async () => {
    const tree = treeWith(ENV_FILES)
    await envGenerator(tree, { name: "line-walk", kind: "single" })
    const mod = text(tree, "packages/envs/src/classic/LineWalk.ts")
    expect(mod).toContain("export class LineWalkEnv implements Env<Float32Array, number>")
    expect(mod).toContain('throw new NotImplementedError({ what: "step()", file: "packages/envs/src/classic/LineWalk.ts" })')
    const builtins = text(tree, "packages/envs/src/internal/BuiltinEnvs.ts")
    expect(builtins).toContain('import * as LineWalk from "../classic/LineWalk.js"')
    expect(builtins).toMatch(/add\(\{\n {4}id: "LineWalk-v0",\n {4}entryPoint: \(kwargs\) => new LineWalk\.LineWalkEnv\(kwargs as LineWalk\.LineWalkOptions\),\n {4}maxEpisodeSteps: 100\n {2}\}\)\n\}\n$/)
    expect(text(tree, "packages/envs/src/index.ts")).toContain('export * as LineWalk from "./classic/LineWalk.js"')
    const test = text(tree, "packages/envs/test/LineWalk.test.ts")
    expect(test).toContain("CheckEnv.checkEnv(new LineWalk.LineWalkEnv())")
    expect(test).toContain('CheckEnv.checkEnv(Registry.make("LineWalk-v0"))')
    expect(text(tree, ".changeset/envs-line-walk.md")).toContain('"@autodidact/envs": minor')
    expect(leftovers(tree)).toEqual([])
  })

  it("single --folder toytext puts the module in toytext/", async () => {
    const tree = treeWith(ENV_FILES)
    await envGenerator(tree, { name: "ice-path", kind: "single", folder: "toytext", maxEpisodeSteps: 40 })
    expect(tree.exists("packages/envs/src/toytext/IcePath.ts")).toBe(true)
    expect(text(tree, "packages/envs/src/internal/BuiltinEnvs.ts")).toContain('import * as IcePath from "../toytext/IcePath.js"')
    expect(text(tree, "packages/envs/test/IcePath.test.ts")).toContain(".maxEpisodeSteps).toBe(40)")
  })

  it("multi: a game in multiagent/, registered in GameRegistry, with a CheckAecEnv test", async () => {
    const tree = treeWith(ENV_FILES)
    await envGenerator(tree, { name: "coin-match", kind: "multi", players: 3 })
    const mod = text(tree, "packages/envs/src/multiagent/CoinMatch.ts")
    expect(mod).toContain('name: "coin_match"')
    expect(mod).toContain("export const NUM_PLAYERS = 3")
    const games = text(tree, "packages/envs/src/multiagent/GameRegistry.ts")
    expect(games).toContain('import * as CoinMatch from "./CoinMatch.js"')
    expect(games.endsWith('registerGame("coin_match", () => CoinMatch.make())\n')).toBe(true)
    expect(text(tree, "packages/envs/src/internal/BuiltinEnvs.ts")).not.toContain("CoinMatch")
    expect(text(tree, "packages/envs/test/CoinMatch.test.ts")).toContain('CheckAecEnv.checkAecEnv(gameToAec(loadGame("coin_match")), { numCycles: 100 })')
    expect(leftovers(tree)).toEqual([])
  })

  it("text: a TextEnv in text/, registered as <Name>-v0, with a CheckTextEnv test", async () => {
    const tree = treeWith(ENV_FILES)
    await envGenerator(tree, { name: "word-walk", kind: "text" })
    const mod = text(tree, "packages/envs/src/text/WordWalk.ts")
    expect(mod).toContain("export class WordWalk extends GridTextEnv")
    expect(mod).toContain('file: "packages/envs/src/text/WordWalk.ts"')
    expect(text(tree, "packages/envs/src/internal/BuiltinEnvs.ts")).toContain("new WordWalk.WordWalk(kwargs as WordWalk.WordWalkOptions)")
    expect(text(tree, "packages/envs/test/WordWalk.test.ts")).toContain("CheckTextEnv.checkTextEnv(new WordWalk.WordWalk())")
    expect(leftovers(tree)).toEqual([])
  })

  it("refuses an existing module, a name the index exports, a bad kind and a bad name", async () => {
    await expect(envGenerator(treeWith(ENV_FILES), { name: "cart-pole", kind: "single" })).rejects.toThrow(/packages\/envs\/src\/classic\/CartPole\.ts already exists/)
    await expect(envGenerator(treeWith(ENV_FILES), { name: "registry", kind: "single" })).rejects.toThrow(/already exports a module named Registry/)
    await expect(envGenerator(treeWith(ENV_FILES), { name: "x", kind: "vector" as never })).rejects.toThrow(/--kind "vector"/)
    await expect(envGenerator(treeWith(ENV_FILES), { name: "9lives" })).rejects.toThrow(/env name "9lives" is not valid/)
  })
})

describe("estimator generator", () => {
  it("writes a self-registering estimator, exports it, lists it in sideEffects, with a CheckEstimator test", async () => {
    const tree = treeWith(OPTIM_FILES)
    await estimatorGenerator(tree, { name: "mean-baseline" })
    const mod = text(tree, "packages/optim/src/estimators/MeanBaseline.ts")
    expect(mod).toContain('export const NAME = "mean-baseline"')
    expect(mod).toContain("Advantages.register(NAME, estimator, { family: \"custom\" })")
    expect(mod).toContain('file: "packages/optim/src/estimators/MeanBaseline.ts"')
    expect(text(tree, "packages/optim/src/index.ts")).toContain('export * as MeanBaseline from "./estimators/MeanBaseline.js"')
    // appended to the modules already listed (the estimators of src/estimators that register themselves)
    const listed: Array<string> = JSON.parse(fs.readFileSync(path.join(repoRoot, "packages/optim/package.json"), "utf8")).sideEffects
    expect(JSON.parse(text(tree, "packages/optim/package.json")).sideEffects).toEqual([
      ...listed,
      "./src/estimators/MeanBaseline.ts",
      "./dist/estimators/MeanBaseline.js"
    ])
    expect(text(tree, "packages/optim/test/MeanBaseline.test.ts")).toContain("CheckEstimator.checkEstimator(MeanBaseline.estimator, { name: MeanBaseline.NAME, ...Advantages.traits(MeanBaseline.NAME) })")
    expect(text(tree, ".changeset/optim-mean-baseline.md")).toContain('"@autodidact/optim": minor')
    expect(leftovers(tree)).toEqual([])
  })

  it("refuses a built-in name and a module name the index exports", async () => {
    await expect(estimatorGenerator(treeWith(OPTIM_FILES), { name: "grpo" })).rejects.toThrow(/already has an estimator named grpo/)
    await expect(estimatorGenerator(treeWith(OPTIM_FILES), { name: "advantages" })).rejects.toThrow(/already exports a module named Advantages/)
  })
})

describe("reward-model, meta-solver and skill generators", () => {
  it("reward-model: a rules model in rewards/src, exported, with a CheckRewardModel test", async () => {
    const tree = treeWith(["packages/rewards/src/index.ts"])
    await rewardModelGenerator(tree, { name: "exact-match" })
    const mod = text(tree, "packages/rewards/src/ExactMatch.ts")
    expect(mod).toContain('export const NAME = "exact-match"')
    expect(mod).toContain("RewardModel.rules(NAME, { outcome, step })")
    expect(mod).toContain('throw new NotImplementedError({ what: "outcome()", file: "packages/rewards/src/ExactMatch.ts" })')
    expect(text(tree, "packages/rewards/src/index.ts")).toContain('export * as ExactMatch from "./ExactMatch.js"')
    expect(text(tree, "packages/rewards/test/ExactMatch.test.ts")).toContain("await CheckRewardModel.checkRewardModel(ExactMatch.make(), { range: [0, 1] })")
    expect(text(tree, ".changeset/rewards-exact-match.md")).toBe('---\n"@autodidact/rewards": minor\n---\nNew reward model `exact-match`.\n')
    expect(leftovers(tree)).toEqual([])
  })

  it("meta-solver: a MetaSolver in solvers/src/normalform, exported, with a CheckMetaSolver test", async () => {
    const tree = treeWith(["packages/solvers/src/index.ts"])
    await metaSolverGenerator(tree, { name: "softmax-nash" })
    const mod = text(tree, "packages/solvers/src/normalform/SoftmaxNash.ts")
    expect(mod).toContain("export const metaSolver: MetaSolver = (metaGame) =>")
    expect(mod).toContain('file: "packages/solvers/src/normalform/SoftmaxNash.ts"')
    expect(text(tree, "packages/solvers/src/index.ts")).toContain('export * as SoftmaxNash from "./normalform/SoftmaxNash.js"')
    expect(text(tree, "packages/solvers/test/SoftmaxNash.test.ts")).toContain(
      "await CheckMetaSolver.checkMetaSolver(SoftmaxNash.metaSolver, { name: SoftmaxNash.NAME, ...SoftmaxNash.declaration })"
    )
    expect(leftovers(tree)).toEqual([])
  })

  it("skill: a SkillSpec in skills/src with scripted-host tests, exported, with a CheckSkill test", async () => {
    const tree = treeWith(["packages/skills/src/index.ts"])
    await skillGenerator(tree, { name: "take-first" })
    const mod = text(tree, "packages/skills/src/TakeFirst.ts")
    expect(mod).toContain('name: "take-first"')
    expect(mod).toContain('throw new Error("fill in main() in packages/skills/src/TakeFirst.ts");')
    expect(text(tree, "packages/skills/src/index.ts")).toContain('export * as TakeFirst from "./TakeFirst.js"')
    expect(text(tree, "packages/skills/test/TakeFirst.test.ts")).toContain("await CheckSkill.checkSkill(TakeFirst.skill)")
    expect(text(tree, ".changeset/skills-take-first.md")).toContain('"@autodidact/skills": minor')
    expect(leftovers(tree)).toEqual([])
  })

  it("refuses a module name the package already exports", async () => {
    await expect(rewardModelGenerator(treeWith(["packages/rewards/src/index.ts"]), { name: "calibration" })).rejects.toThrow(/already exports a module named Calibration/)
    await expect(metaSolverGenerator(treeWith(["packages/solvers/src/index.ts"]), { name: "psro" })).rejects.toThrow(/already exports a module named Psro/)
  })
})

const MEMORY_FILES = ["packages/memory/src/store.ts", "packages/memory/src/store/Store.ts"]

describe("memory-backend generator", () => {
  it("writes an ExperienceStore layer in memory/src/store/backends, exported from the store entry, with a CheckMemoryBackend test", async () => {
    const tree = treeWith(MEMORY_FILES)
    await memoryBackendGenerator(tree, { name: "sqlite-file" })
    const mod = text(tree, "packages/memory/src/store/backends/SqliteFile.ts")
    expect(mod).toContain('export const NAME = "sqlite-file"')
    expect(mod).toContain('const FILE = "packages/memory/src/store/backends/SqliteFile.ts"')
    expect(mod).toContain("export const layerSqliteFile = (\n  options: SqliteFileOptions = {}\n): Layer.Layer<ExperienceStore, StoreOpenError, Embedder> =>")
    expect(mod).toContain("Effect.die(new NotImplementedError({ what: `${operation}()`, file: FILE }))")
    // every operation of the service is a stub naming itself
    for (const op of ["put", "putMany", "get", "query", "exemplars", "vote", "remove", "removeWhere", "count", "consolidate"]) {
      expect(mod).toMatch(new RegExp(`\\n {6}${op}: \\([^)]*\\) => todo\\("${op}"\\)`))
    }
    const entry = text(tree, "packages/memory/src/store.ts")
    expect(entry).toContain('export * as SqliteFile from "./store/backends/SqliteFile.js"')
    expect(entry.replace('export * as SqliteFile from "./store/backends/SqliteFile.js"\n', "")).toBe(fs.readFileSync(path.join(repoRoot, "packages/memory/src/store.ts"), "utf8"))
    const test = text(tree, "packages/memory/test/SqliteFile.test.ts")
    expect(test).toContain("await CheckMemoryBackend.checkMemoryBackend({")
    expect(test).toContain("open: () => SqliteFile.layerSqliteFile().pipe(Layer.provide(Embedder.layerHashed({ dimension: 16 })))")
    expect(text(tree, ".changeset/memory-sqlite-file.md")).toBe(
      '---\n"@autodidact/memory": minor\n---\nNew experience-store backend `sqlite-file` (`SqliteFile.layerSqliteFile` in `@autodidact/memory/store`).\n'
    )
    expect(leftovers(tree)).toEqual([])
  })

  it("refuses a bad name, an existing backend or test, a module the store entry exports and a built-in backend's name", async () => {
    await expect(memoryBackendGenerator(treeWith(MEMORY_FILES), { name: "2fast" })).rejects.toThrow(/memory-backend name "2fast" is not valid/)
    const existing = treeWith(MEMORY_FILES)
    existing.write("packages/memory/src/store/backends/Lance.ts", "export {}\n")
    await expect(memoryBackendGenerator(existing, { name: "lance" })).rejects.toThrow(/packages\/memory\/src\/store\/backends\/Lance\.ts already exists/)
    await expect(memoryBackendGenerator(treeWith([...MEMORY_FILES, "packages/memory/test/Summary.test.ts"]), { name: "summary" })).rejects.toThrow(/packages\/memory\/test\/Summary\.test\.ts already exists/)
    await expect(memoryBackendGenerator(treeWith(MEMORY_FILES), { name: "records" })).rejects.toThrow(/already exports a module named Records/)
    for (const builtin of ["pglite", "pg", "memory"]) {
      await expect(memoryBackendGenerator(treeWith(MEMORY_FILES), { name: builtin })).rejects.toThrow(/Store\.ts already has a built-in backend layer(Pglite|Pg|Memory)\b/)
    }
  })
})

describe("generated stubs", () => {
  /** Every template file under tools/generators/<generator>/files. */
  const templates = (dir: string): Array<string> =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? templates(path.join(dir, e.name)) : [path.join(dir, e.name)]))
  const all = fs.readdirSync(path.join(repoRoot, "tools/generators"), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .flatMap((e) => templates(path.join(repoRoot, "tools/generators", e.name, "files")))

  it("throw the one NotImplementedError of @autodidact/core, declaring none of their own", () => {
    const users = all.filter((f) => fs.readFileSync(f, "utf8").includes("new NotImplementedError("))
    expect(users.length).toBeGreaterThanOrEqual(6)
    for (const f of users) {
      const source = fs.readFileSync(f, "utf8")
      expect(source, f).toMatch(/^import \{[^}]*\bNotImplementedError\b[^}]*\} from "@autodidact\/core"$/m)
      expect(source, f).not.toMatch(/class NotImplementedError/)
    }
  })
})

/**
 * The command definitions without running any command: the value lists written in `Commands.ts` match the packages,
 * every flag's help names its default (or says it is required) and its unit, the front end imports no package, and
 * parsed flags reach the `run` given to `makeApp` unchanged.
 */
import * as NodeServices from "../src/NodeServices.js"
import { DeepCfr, MetaSolvers, Solver } from "@autodidact/solvers"
import { Advantages, TextTasks } from "@autodidact/optim"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { Command } from "effect/cli"
import { TestConsole } from "effect/testing"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { stripVTControlCharacters } from "node:util"
import { type CommandPath, type Configs, deepCfrDefaults, deepCfrEngines, jointPsroMetaSolvers, makeApp, psroMetaSolvers, solverAlgorithms, textAlgos, textCurricula, textEnvIds, version } from "../src/Commands.js"
import { textEstimators } from "../src/Estimators.js"

const leaves: ReadonlyArray<CommandPath> = [
  "agent eval", "agent train", "bench envs", "bench kernels", "bench cli", "bench ppo", "bench replay", "bench solvers", "bench multiturn", "bench search", "bench deep-cfr", "bench archive", "compare", "dashboard", "eval", "export",
  "games solve", "games psro", "games rank", "gateway", "report", "runner", "serve-env", "skills list", "skills show", "skills admit", "skills check",
  "skills retrieve", "skills call", "skills rollback", "skills remove", "skills discover", "sokoban solve", "start", "train"
]

/** Run the tree on `argv` with `run`, returning what it printed on stdout. */
const runArgv = (argv: ReadonlyArray<string>, run: Parameters<typeof makeApp>[0]) =>
  Effect.gen(function* () {
    // the test console may be shared by the runs of one test: keep only what this run printed
    const before = (yield* TestConsole.logLines).length
    yield* Command.runWith(makeApp(run), { version })(argv)
    const lines = (yield* TestConsole.logLines).slice(before)
    // colours are on when the runner sets FORCE_COLOR (Nx does): compare the text
    return stripVTControlCharacters(lines.map(String).join("\n"))
  }).pipe(Effect.provide(TestConsole.layer), Effect.provide(NodeServices.layer)) // the test console innermost: it wins

const never = () => Effect.die("a command ran")

/** Run the tree on `argv`: the error lines it printed, and whether a command ran (it must not, on a bad flag). */
const runArgvErrors = (argv: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    let ran = false
    const before = (yield* TestConsole.errorLines).length
    yield* Effect.exit(Command.runWith(makeApp(() => Effect.sync(() => void (ran = true))), { version })(argv))
    const errors = stripVTControlCharacters((yield* TestConsole.errorLines).slice(before).map(String).join("\n"))
    return { errors, ran }
  }).pipe(Effect.provide(TestConsole.layer), Effect.provide(NodeServices.layer))

describe("command definitions", () => {
  it("the value lists written in Commands.ts are the packages' own", () => {
    expect([...solverAlgorithms]).toEqual([...Solver.algorithms])
    const { lrSchedule, warmStart, ...deep } = deepCfrDefaults
    expect([...deepCfrEngines]).toEqual([...DeepCfr.engineNames])
    expect(DeepCfr.resolve()).toMatchObject({ ...deep, schedule: lrSchedule, reinitialize: !warmStart })
    expect(psroMetaSolvers.filter((m) => !(jointPsroMetaSolvers as ReadonlyArray<string>).includes(m))).toEqual([...MetaSolvers.metaSolverNames])
    expect([...textEnvIds]).toEqual([...TextTasks.envIds])
    expect([...textCurricula]).toEqual([...TextTasks.curricula])
    // the built-in estimators that train the critic-free text policy (not gae), with the default first
    expect([...textAlgos].sort()).toEqual(Advantages.builtinNames.filter((n) => Advantages.traits(n).needs?.values !== true))
    expect(textAlgos[0]).toBe("gigpo")
    // what the registry offers: the built-ins in the same order, then any other registered one
    expect(textEstimators().slice(0, textAlgos.length)).toEqual([...textAlgos])
    expect([...textEstimators()].sort()).toEqual(Advantages.names().filter((n) => n !== "gae"))
  })

  it.effect("--help of every command shows each flag's default (or that it is required)", () =>
    Effect.gen(function* () {
      for (const leaf of leaves) {
        const help = yield* runArgv([...leaf.split(" "), "--help"], never)
        const flags = help.split("GLOBAL FLAGS")[0]!.split("FLAGS\n")[1] ?? ""
        const lines = flags.split("\n").filter((l) => /^\s+--/.test(l))
        expect(lines.length, leaf).toBeGreaterThan(0)
        for (const line of lines) expect(line, `${leaf}: ${line}`).toMatch(/\((default: [^)]*|required[^)]*)\)/)
      }
      const solve = yield* runArgv(["games", "solve", "--help"], never)
      expect(solve).toMatch(/--iterations integer .*\(default: 1000 iterations; range: ≥ 1\)/)
      expect(solve).toMatch(/--target-nashconv number .*unit: utility units/)
      // train's description names every algorithm --algo offers, not only PPO
      const trainHelp = (yield* runArgv(["train", "--help"], never)).split("USAGE")[0]!
      for (const algo of ["PPO", ...textAlgos]) expect(trainHelp).toContain(algo)
      const serve = yield* runArgv(["serve-env", "--help"], never)
      expect(serve).toMatch(/--idle-ttl number .*\(default: 600 seconds; range: > 0\)/)
    }))

  it.effect("every numeric flag of every command states its range, and a value outside it is refused naming flag and value", () =>
    Effect.gen(function* () {
      let checked = 0
      const seen: Array<string> = []
      for (const leaf of leaves) {
        const help = yield* runArgv([...leaf.split(" "), "--help"], never)
        const flags = help.split("GLOBAL FLAGS")[0]!.split("FLAGS\n")[1] ?? ""
        // the command's required flags and positional arguments, filled in (a missing one hides the other errors)
        const requiredArgs = (except: string): Array<string> => {
          const out: Array<string> = []
          for (const line of flags.split("\n")) {
            const r = /^\s+--([a-z-]+) (\w+) .*\(required/.exec(line)
            if (r === null || r[1] === except) continue
            const choice = /\(choices: ([^,)]+)/.exec(line)?.[1]
            out.push(`--${r[1]}`, choice ?? (r[2] === "integer" ? "1" : "x"))
          }
          const usage = /USAGE\n\s+(.*)/.exec(help)?.[1] ?? ""
          for (const _ of usage.matchAll(/<[a-z-]+>/g)) out.push("x")
          return out
        }
        for (const line of flags.split("\n")) {
          const m = /^\s+--([a-z-]+) (integer|number) /.exec(line)
          if (m === null) continue
          const [, name, type] = m as unknown as [string, string, string]
          const range = /range: ([^;)]*)\)/.exec(line)?.[1]
          expect(range, `${leaf} --${name} has no range in its help: ${line}`).toBeDefined()
          // a value just outside the stated range
          const n = (s: string) => Number(s.replaceAll("_", ""))
          const r = range!
          const bad = /^(\S+) to (\S+)$/.test(r) ? n(r.split(" to ")[1]!) + 1
            : /^≥ (\S+)$/.test(r) ? n(r.slice(2)) - 1
            : /^> (\S+)$/.test(r) ? n(r.slice(2))
            : /^≥ (\S+) and < (\S+)$/.test(r) ? n(r.split("< ")[1]!)
            : Number.NaN
          expect(Number.isFinite(bad), `${leaf} --${name}: unrecognized range ${r}`).toBe(true)
          const value = type === "integer" ? String(Math.trunc(bad)) : String(bad)
          const { errors, ran } = yield* runArgvErrors([...leaf.split(" "), ...requiredArgs(name), `--${name}`, value])
          expect(ran, `${leaf} --${name} ${value} ran the command`).toBe(false)
          expect(errors, `${leaf} --${name} ${value}`).toContain(`Invalid value for flag --${name}: "${value}". Expected: an ${type === "integer" ? "integer" : "number"} ${r}`.replace("an number", "a number"))
          checked++
          seen.push(`${leaf} --${name}`)
        }
      }
      expect(checked).toBeGreaterThanOrEqual(50)
      expect(seen).toContain("sokoban solve --max-nodes")
      expect(seen).toContain("train --total-steps")
      // the cases
      expect((yield* runArgvErrors(["sokoban", "solve", "--levels", "x.txt", "--max-nodes", "-5"])).errors).toContain(`Invalid value for flag --max-nodes: "-5". Expected: an integer ≥ 1`)
      expect((yield* runArgvErrors(["sokoban", "solve", "--levels", "x.txt", "--limit", "-5"])).errors).toContain(`Invalid value for flag --limit: "-5". Expected: an integer ≥ 1`)
      expect((yield* runArgvErrors(["games", "solve", "--game", "leduc_poker", "--algo", "deep-cfr", "--traversals", "-3"])).errors).toContain(`Invalid value for flag --traversals: "-3". Expected: an integer ≥ 1`)
      expect(seen).toContain("games solve --traversals")
    }))

  it.effect("parsed flags reach run unchanged (games solve --target-nashconv)", () =>
    Effect.gen(function* () {
      const seen: Array<[CommandPath, unknown]> = []
      yield* runArgv(["games", "solve", "--game", "kuhn_poker", "--target-nashconv", "0.01"], (command, config) =>
        Effect.sync(() => void seen.push([command, config])))
      expect(seen).toHaveLength(1)
      const [command, config] = seen[0]! as [CommandPath, Configs["games solve"]]
      expect(command).toBe("games solve")
      expect(config.game).toBe("kuhn_poker")
      expect(config.algo).toBe("cfr+")
      expect(config.iterations).toBe(1000)
      expect(config.targetNashConv).toMatchObject({ _tag: "Some", value: 0.01 })
      expect(config.reportEvery).toMatchObject({ _tag: "None" })
    }))

  it.effect("parsed flags reach run unchanged (bench deep-cfr; games solve --algo deep-cfr --dedup --warm-start)", () =>
    Effect.gen(function* () {
      const seen: Array<[CommandPath, unknown]> = []
      const record = (command: CommandPath, config: unknown) => Effect.sync(() => void seen.push([command, config]))
      yield* runArgv(["bench", "deep-cfr", "--quick", "--seed", "3", "--target", "0.2", "--json"], record)
      yield* runArgv(["bench", "deep-cfr"], record)
      yield* runArgv(["games", "solve", "--game", "leduc_poker", "--algo", "deep-cfr", "--dedup", "--warm-start"], record)
      yield* runArgv(["games", "solve", "--game", "leduc_poker", "--algo", "deep-cfr"], record)
      yield* runArgv(["bench", "deep-cfr", "--engine", "tfjs", "--max-seconds", "300"], record)
      yield* runArgv(["games", "solve", "--game", "leduc_poker", "--algo", "deep-cfr", "--engine", "tfjs"], record)
      expect(seen.map(([c]) => c)).toEqual(["bench deep-cfr", "bench deep-cfr", "games solve", "games solve", "bench deep-cfr", "games solve"])
      expect(seen[0]![1]).toEqual({ iterations: 300, target: 0.2, seed: 3, quick: true, engine: "simd", maxSeconds: Option.none(), json: true })
      expect(seen[1]![1]).toEqual({ iterations: 300, target: 0.1, seed: 0, quick: false, engine: "simd", maxSeconds: Option.none(), json: false })
      expect(seen[4]![1]).toMatchObject({ engine: "tfjs", maxSeconds: Option.some(300) })
      expect(seen[5]![1]).toMatchObject({ algo: "deep-cfr", engine: "tfjs" })
      // an unknown engine is refused, naming the value
      const bad = (yield* runArgvErrors(["bench", "deep-cfr", "--engine", "gpu"])).errors
      expect(bad).toContain("gpu")
      expect(bad).toContain("engine")
      expect(seen[2]![1]).toMatchObject({ algo: "deep-cfr", dedup: true, warmStart: true })
      expect(seen[3]![1]).toMatchObject({ algo: "deep-cfr", dedup: false, warmStart: false })
    }))

  it("the front end (main.ts and what it imports statically) reaches no Autodidact package", () => {
    const src = fileURLToPath(new URL("../src/", import.meta.url))
    const seen = new Set<string>()
    const bare = new Set<string>()
    const visit = (file: string) => {
      if (seen.has(file)) return
      seen.add(file)
      for (const m of fs.readFileSync(file, "utf8").matchAll(/^(?:import|export)\s+(?!type\b)[^"';]*?from\s+"([^"]+)"/gm)) {
        const spec = m[1]!
        if (spec.startsWith(".")) visit(path.resolve(path.dirname(file), spec.replace(/\.js$/, ".ts")))
        else bare.add(spec)
      }
    }
    visit(path.join(src, "main.ts"))
    expect([...seen].map((f) => path.relative(src, f)).sort()).toEqual(["Commands.ts", "Flags.ts", "NodeServices.ts", "Paths.ts", "main.ts"])
    expect([...bare].filter((s) => s.startsWith("@autodidact/"))).toEqual([])
    // Exec.ts is loaded with a dynamic import when a command runs
    expect(fs.readFileSync(path.join(src, "main.ts"), "utf8")).toContain(`import("./Exec.js")`)
  })
})

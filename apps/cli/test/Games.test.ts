/**
 * `games solve --out DIR` in process: a run directory like `train --out` (config.json, metrics.jsonl, policy.json)
 * whose `solver` rows carry the NashConv/exploitability curve by iteration (`globalStep`), read back by the
 * dashboard's metrics reader as plottable columns; `games psro` (PSRO and JPSRO, with its typed refusal of a JPSRO
 * meta-solver on an extensive-form game) and `games rank` (α-Rank over saved policies) on the same directories.
 */
import { Metrics } from "@autodidact/dashboard"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { InvalidOptionError } from "@autodidact/core"
import { Exploitability, PsroExtensive, TabularPolicy } from "@autodidact/solvers"
import { Highs } from "@autodidact/solvers/lp"
import { deepCfrDefaults } from "../src/Commands.js"
import { handleGamesSolve } from "../src/commands/Games.js"
import { handleGamesPsro } from "../src/commands/GamesPsro.js"
import { handleGamesRank } from "../src/commands/GamesRank.js"
import { KuhnPoker } from "@autodidact/envs"

/** What `run` printed on stdout as JSON lines. */
const captureJson = <A, E>(run: Effect.Effect<A, E>) =>
  Effect.gen(function* () {
    const lines: Array<string> = []
    const write = process.stdout.write
    process.stdout.write = ((chunk: string) => (lines.push(String(chunk)), true)) as typeof process.stdout.write
    const result = yield* Effect.exit(run).pipe(Effect.ensuring(Effect.sync(() => void (process.stdout.write = write))))
    return { result, rows: lines.join("").trim().split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as Record<string, unknown>) }
  })

const solve = (out: string, algo: "cfr+" | "cfr" | "pdcfr+", iterations: number) =>
  handleGamesSolve({
    game: "kuhn_poker", algo, iterations, reportEvery: Option.none(), targetNashConv: Option.none(), seed: 0, ...deepCfrDefaults,
    save: Option.none(), resume: Option.none(), out: Option.some(out), json: true
  })

describe("games solve --out", () => {
  it.effect("writes config.json and one metrics row per report; the dashboard reads the nashConv curve", () =>
    Effect.gen(function* () {
      const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "autodidact-games-")), "kuhn")
      yield* handleGamesSolve({
        game: "kuhn_poker", algo: "cfr+", iterations: 40, reportEvery: Option.some(10), targetNashConv: Option.none(), seed: 0, ...deepCfrDefaults,
        save: Option.none(), resume: Option.none(), out: Option.some(out), json: true
      })
      const config = JSON.parse(fs.readFileSync(path.join(out, "config.json"), "utf8"))
      expect(config).toMatchObject({ command: "games solve", game: "kuhn_poker", algo: "cfr+", iterations: 40, reportEvery: 10, seed: 0 })
      const rows = fs.readFileSync(path.join(out, "metrics.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l))
      const solver = rows.filter((r) => r.kind === "solver")
      expect(solver.map((r) => r.globalStep)).toEqual([10, 20, 30, 40])
      for (const r of solver) {
        expect(r.nashConv).toBeGreaterThanOrEqual(0)
        expect(r.exploitability).toBeCloseTo(r.nashConv / 2, 12) // two players: exploitability = NashConv / 2
        expect(r.wallSeconds).toBeGreaterThanOrEqual(0)
      }
      expect(rows.at(-1)).toMatchObject({ kind: "summary", game: "kuhn_poker", iteration: 40, globalStep: 40 })
      const reader = new Metrics.MetricsReader(path.join(out, "metrics.jsonl"))
      yield* Effect.promise(() => reader.refresh())
      expect(reader.columns.get("nashConv")?.step).toEqual([10, 20, 30, 40])
      expect(reader.summary).toMatchObject({ kind: "summary" })
    }))

  it.effect("writes the average policy as policy.json, the same policy whose NashConv the summary reports", () =>
    Effect.gen(function* () {
      const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "autodidact-games-")), "kuhn")
      const { rows } = yield* captureJson(solve(out, "cfr+", 30))
      const summary = rows.at(-1)!
      expect(summary).toMatchObject({ kind: "summary", policy: "policy.json" })
      const policy = yield* TabularPolicy.fromJson(JSON.parse(fs.readFileSync(path.join(out, "policy.json"), "utf8")))
      expect(yield* Exploitability.nashConv(KuhnPoker.make(), policy)).toBeCloseTo(summary["nashConv"] as number, 12)
    }))
})

describe("games psro", () => {
  it.effect("PSRO with the Nash meta-solver on Kuhn poker converges to NashConv 0 and writes a run directory with the mixture", () =>
    Effect.gen(function* () {
      const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "autodidact-psro-")), "kuhn")
      const { rows } = yield* captureJson(handleGamesPsro({ game: "kuhn_poker", metaSolver: "nash", evalMetaSolver: Option.none(), iterations: 20, out: Option.some(out), json: true }))
      const summary = rows.at(-1)!
      expect(summary).toMatchObject({ kind: "summary", metaSolver: "nash", stopReason: "converged", policy: "policy.json" })
      expect(summary["nashConv"]).toBeLessThan(1e-9)
      const iterations = rows.filter((r) => r["kind"] === "iteration")
      expect(iterations.length).toBe(summary["iterations"])
      expect(iterations[0]!["nashConv"]).toBeCloseTo(11 / 12, 12) // the uniform start: Kuhn's uniform NashConv
      const metrics = fs.readFileSync(path.join(out, "metrics.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l))
      expect(metrics.filter((r) => r.kind === "psro").map((r) => r.globalStep)).toEqual(iterations.map((r) => r["iteration"]))
      const mixture = yield* TabularPolicy.fromJson(JSON.parse(fs.readFileSync(path.join(out, "policy.json"), "utf8")))
      expect(yield* Exploitability.nashConv(KuhnPoker.make(), mixture)).toBeLessThan(1e-9)
    }))

  it.effect("JPSRO(CE) with MGCE on Chicken reaches (C)CE gap 0; a JPSRO meta-solver on Kuhn poker fails naming it", () =>
    Effect.gen(function* () {
      const { rows } = yield* captureJson(handleGamesPsro({ game: "matrix_chicken", metaSolver: "mgce", evalMetaSolver: Option.none(), iterations: 10, out: Option.none(), json: true }))
      expect(rows.at(-1)).toMatchObject({ kind: "summary", metaSolver: "mgce", gap: 0 })
      const refused = yield* Effect.flip(handleGamesPsro({ game: "kuhn_poker", metaSolver: "cce", evalMetaSolver: Option.none(), iterations: 5, out: Option.none(), json: true }))
      expect(refused).toBeInstanceOf(InvalidOptionError)
      expect(refused).toMatchObject({ option: "meta-solver", value: "cce" })
    }))
  it.effect("SHOR-PSRO reports its evaluation-time meta-strategy by default and goes on through stalls; --eval-meta-solver on JPSRO is refused", () =>
    Effect.gen(function* () {
      const { rows } = yield* captureJson(handleGamesPsro({ game: "kuhn_poker", metaSolver: "shor", evalMetaSolver: Option.none(), iterations: 8, out: Option.none(), json: true }))
      const summary = rows.at(-1)!
      expect(summary).toMatchObject({ kind: "summary", metaSolver: "shor", evalMetaSolver: "shor-eval", stopReason: "iterations", iterations: 8 })
      // the same run through the library: the CLI's NashConv rows are the evaluation meta-strategy's
      const lib = yield* PsroExtensive.run(KuhnPoker.make(), { metaSolver: "shor", evalMetaSolver: "shor-eval", iterations: 8 }).pipe(Effect.provide(Highs.layer))
      expect(rows.filter((r) => r["kind"] === "iteration").map((r) => r["nashConv"])).toEqual(lib.history.map((h) => h.nashConv))
      const refused = yield* Effect.flip(handleGamesPsro({ game: "matrix_chicken", metaSolver: "mgce", evalMetaSolver: Option.some("nash"), iterations: 5, out: Option.none(), json: true }))
      expect(refused).toMatchObject({ _tag: "InvalidOptionError", option: "eval-meta-solver", value: "nash" })
    }))
})

describe("games rank", () => {
  it.effect("ranks saved policies by α-Rank: a near-equilibrium CFR+ policy above a 1-iteration one; bad populations fail typed", () =>
    Effect.gen(function* () {
      const root = fs.mkdtempSync(path.join(os.tmpdir(), "autodidact-rank-"))
      yield* captureJson(solve(path.join(root, "strong"), "pdcfr+", 300))
      yield* captureJson(solve(path.join(root, "weak"), "cfr", 1))
      const { rows } = yield* captureJson(handleGamesRank({ population: root, alpha: Option.none(), populationSize: 50, json: true }))
      const ranked = rows.filter((r) => r["kind"] === "policy")
      expect(ranked.map((r) => r["policy"])).toEqual([path.join("strong", "policy.json"), path.join("weak", "policy.json")])
      expect(ranked[0]!["mass"]).toBeGreaterThan(0.99)
      expect(ranked[0]!["meanPayoff"]).toBeGreaterThan(0) // it wins on average over both seats
      expect(ranked[0]!["nashConv"]).toBeLessThan(1e-6)
      // one policy, and a policy of another game: typed errors naming the population value
      const lonely = fs.mkdtempSync(path.join(os.tmpdir(), "autodidact-rank-"))
      fs.copyFileSync(path.join(root, "strong", "policy.json"), path.join(lonely, "a.json"))
      const one = yield* Effect.flip(handleGamesRank({ population: lonely, alpha: Option.none(), populationSize: 50, json: true }))
      expect(one).toMatchObject({ _tag: "InvalidOptionError", option: "population" })
      const other = JSON.parse(fs.readFileSync(path.join(root, "weak", "policy.json"), "utf8"))
      fs.writeFileSync(path.join(lonely, "b.json"), JSON.stringify({ ...other, game: "leduc_poker" }))
      const mixed = yield* Effect.flip(handleGamesRank({ population: lonely, alpha: Option.none(), populationSize: 50, json: true }))
      expect(String((mixed as InvalidOptionError).reason)).toContain("leduc_poker")
    }))
})

describe("games solve --algo deep-cfr", () => {
  it.effect("Kuhn: a run directory with a nashConv row per iteration, policy.json (TabularPolicy) and sd-cfr-policy.json", () =>
    Effect.gen(function* () {
      const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "autodidact-deepcfr-")), "kuhn")
      const { result, rows } = yield* captureJson(handleGamesSolve({
        game: "kuhn_poker", algo: "deep-cfr", iterations: 3, reportEvery: Option.some(1), targetNashConv: Option.none(), seed: 1,
        ...deepCfrDefaults, traversals: 20, trainSteps: 10, batchSize: 32, hidden: 8,
        save: Option.none(), resume: Option.none(), out: Option.some(out), json: true
      }))
      expect(result._tag).toBe("Success")
      expect(rows.filter((r) => r.kind === "report").map((r) => r.iteration)).toEqual([1, 2, 3])
      const summary = rows.at(-1)!
      expect(summary).toMatchObject({ kind: "summary", algo: "deep-cfr", iteration: 3, traversals: 3 * 20 * 2, policy: "policy.json" })
      const policy = yield* TabularPolicy.fromJson(JSON.parse(fs.readFileSync(path.join(out, "policy.json"), "utf8")))
      // the summary's NashConv is the saved policy's, recomputed independently by the package's best response
      expect(Exploitability.evaluate(KuhnPoker.make(), policy).nashConv).toBeCloseTo(summary.nashConv as number, 10)
      expect(JSON.parse(fs.readFileSync(path.join(out, "sd-cfr-policy.json"), "utf8")).format).toBe("autodidact.sd-cfr-policy")
      const metrics = fs.readFileSync(path.join(out, "metrics.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>)
      expect(metrics.filter((m) => m.kind === "solver").every((m) => typeof m.nashConv === "number")).toBe(true)
    }))

  it.effect("bad input: a game without an information-state tensor, --resume, and an unknown game parameter are typed errors naming the value", () =>
    Effect.gen(function* () {
      const base = {
        algo: "deep-cfr" as const, iterations: 1, reportEvery: Option.none(), targetNashConv: Option.none(), seed: 0, ...deepCfrDefaults,
        save: Option.none(), resume: Option.none(), out: Option.none(), json: true as const
      }
      const ttt = yield* Effect.flip(handleGamesSolve({ ...base, game: "tic_tac_toe" }))
      expect(String((ttt as Error).message)).toContain("informationStateTensor")
      const resume = yield* Effect.flip(handleGamesSolve({ ...base, game: "kuhn_poker", resume: Option.some("state.json") }))
      expect(resume).toBeInstanceOf(InvalidOptionError)
      expect((resume as InvalidOptionError).message).toContain("state.json")
      const unknown = yield* Effect.flip(handleGamesSolve({ ...base, game: "leduc_poker(cards=9)" }))
      expect(String((unknown as Error).message)).toContain("cards")
    }))
})


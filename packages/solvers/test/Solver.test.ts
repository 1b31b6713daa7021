import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Stream } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { KuhnPoker, LeducPoker } from "@autodidact/envs"
import * as Solver from "../src/regret/Solver.js"
import { tinyGame } from "./TinyGame.js"

const tmpDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "autodidact-solver-"))
const kuhn = KuhnPoker.make()

describe("Solver", () => {
  it.effect("solve: reports every reportEvery iterations; CFR+ on Kuhn ends below 1e-3 NashConv", () =>
    Effect.gen(function*() {
      const seen: Array<number> = []
      const result = yield* Solver.solve(kuhn, { algo: "cfr+", iterations: 500, reportEvery: 100 }, {
        onReport: (p) => void seen.push(p.iteration)
      })
      expect(seen).toEqual([100, 200, 300, 400, 500])
      expect(result.reports.map((r) => r.iteration)).toEqual(seen)
      expect(result.iteration).toBe(500)
      expect(result.nashConv).toBeLessThan(1e-3)
      expect(result.exploitability).toBeCloseTo(result.nashConv / 2, 15)
      expect(result.reports[4]!.elapsedSeconds).toBeGreaterThanOrEqual(result.reports[0]!.elapsedSeconds)
      expect(result.policy.size).toBe(12)
    }))

  it.effect("every algorithm runs on a user-defined game through solve", () =>
    Effect.gen(function*() {
      for (const algo of Solver.algorithms) {
        const r = yield* Solver.solve(tinyGame, { algo, iterations: 3000, seed: 5 })
        expect(r.reports.length, algo).toBe(10)
        expect(r.nashConv, algo).toBeLessThan(0.06)
      }
    }))

  it.effect("stream emits the progress reports and stops at the NashConv target", () =>
    Effect.gen(function*() {
      const all = yield* Stream.runCollect(Solver.stream(kuhn, { algo: "cfr", iterations: 50, reportEvery: 10 }))
      expect(Array.from(all).map((p) => p.iteration)).toEqual([10, 20, 30, 40, 50])
      const early = yield* Stream.runCollect(
        Solver.stream(kuhn, { algo: "cfr+", iterations: 10_000, reportEvery: 50, targetNashConv: 0.01 })
      )
      const last = Array.from(early).at(-1)!
      expect(last.nashConv).toBeLessThanOrEqual(0.01)
      expect(last.iteration).toBeLessThan(10_000)
    }))

  it.effect("typed errors: unknown algorithm, invalid options naming the value", () =>
    Effect.gen(function*() {
      const e1 = yield* Effect.flip(Solver.solve(kuhn, { algo: "cfr++", iterations: 10 }))
      expect(e1._tag).toBe("UnknownAlgorithmError")
      if (e1._tag === "UnknownAlgorithmError") expect(e1.known).toContain("os-mccfr")
      const e2 = yield* Effect.flip(Solver.solve(kuhn, { algo: "cfr", iterations: 0 }))
      expect(e2._tag).toBe("InvalidOptionError")
      expect(e2.message).toContain("iterations = 0")
      const e3 = yield* Effect.flip(Solver.solve(kuhn, { algo: "os-mccfr", iterations: 5, explorationEpsilon: 1.5 }))
      expect(e3.message).toContain("explorationEpsilon = 1.5")
      const e4 = yield* Effect.flip(Solver.solve(kuhn, { algo: "cfr", iterations: 5, reportEvery: 2.5 }))
      expect(e4.message).toContain("reportEvery = 2.5")
    }))

  for (const algo of ["cfr+", "dcfr", "es-mccfr", "os-mccfr"] as const) {
    it.effect(`${algo}: N iterations straight equal k, save, load, N − k (bitwise)`, () =>
      Effect.gen(function*() {
        const game = LeducPoker.make()
        const N = algo.endsWith("mccfr") ? 400 : 30
        const k = algo.endsWith("mccfr") ? 150 : 11
        const straight = yield* Solver.solve(game, { algo, iterations: N, seed: 9 })
        const first = yield* Solver.solve(game, { algo, iterations: k, seed: 9 })
        const file = path.join(tmpDir(), "nested", "state.json")
        yield* Solver.saveState(file, first.state)
        const loaded = yield* Solver.loadState(file)
        expect(loaded.iteration).toBe(k)
        const resumed = yield* Solver.solve(game, { algo, iterations: N - k, seed: 9, resume: loaded })
        expect(resumed.iteration).toBe(N)
        expect(Buffer.from(resumed.state.regrets.buffer)).toEqual(Buffer.from(straight.state.regrets.buffer))
        expect(Buffer.from(resumed.state.cumulativePolicy.buffer)).toEqual(Buffer.from(straight.state.cumulativePolicy.buffer))
        expect(Buffer.from(resumed.policy.probabilities.buffer)).toEqual(Buffer.from(straight.policy.probabilities.buffer))
        expect(resumed.nashConv).toBe(straight.nashConv)
        // no temporary file is left behind
        expect(fs.readdirSync(path.dirname(file))).toEqual(["state.json"])
      }))
  }

  it.effect("loadState: corrupted files fail with CorruptedSolverStateError naming the reason", () =>
    Effect.gen(function*() {
      const dir = tmpDir()
      const good = (yield* Solver.solve(kuhn, { algo: "cfr", iterations: 3 })).state
      const write = (name: string, text: string) => {
        const f = path.join(dir, name)
        fs.writeFileSync(f, text)
        return f
      }
      const cases: Array<[string, string, RegExp]> = [
        ["trunc.json", JSON.stringify(Solver.toJson(good)).slice(0, 40), /not JSON/],
        ["schema.json", JSON.stringify({ ...Solver.toJson(good), version: 2 }), /version|Expected/],
        ["short.json", JSON.stringify({ ...Solver.toJson(good), regrets: "AAAA" }), /regrets are not 24/]
      ]
      for (const [name, text, re] of cases) {
        const e = yield* Effect.flip(Solver.loadState(write(name, text)))
        expect(e._tag).toBe("CorruptedSolverStateError")
        expect(e.message, name).toMatch(re)
      }
      const missing = yield* Effect.flip(Solver.loadState(path.join(dir, "absent.json")))
      expect(missing.message).toMatch(/cannot read/)
      // a state for another game is refused on resume
      const other = yield* Effect.flip(Solver.solve(LeducPoker.make(), { algo: "cfr", iterations: 1, resume: good }))
      expect(other._tag).toBe("InvalidOptionError")
    }))

  it.live("can be interrupted while running (yields to the runtime between slices)", () =>
    Effect.gen(function*() {
      const t0 = performance.now()
      let reports = 0
      const fiber = yield* Effect.forkChild(
        Solver.solve(LeducPoker.make(), { algo: "cfr", iterations: 1_000_000, reportEvery: 1_000_000 }, {
          onReport: () => void reports++
        })
      )
      yield* Effect.sleep("100 millis")
      yield* Fiber.interrupt(fiber)
      expect(reports).toBe(0)
      expect(performance.now() - t0).toBeLessThan(3000) // a million Leduc iterations would take minutes
    }), { timeout: 10_000 })
})

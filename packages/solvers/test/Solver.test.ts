import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Stream } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { KuhnPoker, LeducPoker } from "@autodidact/envs"
import { InvalidOptionError } from "@autodidact/core"
import { CorruptedSolverStateError, UnknownAlgorithmError } from "../src/Errors.js"
import * as Exploitability from "../src/evaluation/Exploitability.js"
import * as Solver from "../src/regret/Solver.js"
import * as SolverFiles from "../src/regret/SolverFiles.js"
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
        yield* SolverFiles.saveState(file, first.state)
        const loaded = yield* SolverFiles.loadState(file)
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
        const e = yield* Effect.flip(SolverFiles.loadState(write(name, text)))
        expect(e._tag).toBe("CorruptedSolverStateError")
        expect(e.message, name).toMatch(re)
      }
      const missing = yield* Effect.flip(SolverFiles.loadState(path.join(dir, "absent.json")))
      expect(missing.message).toMatch(/cannot read/)
      // a state for another game is refused on resume
      const other = yield* Effect.flip(Solver.solve(LeducPoker.make(), { algo: "cfr", iterations: 1, resume: good }))
      expect(other._tag).toBe("InvalidOptionError")
    }))

  it("targetNashConv: stops at the first iteration whose NashConv is at or below the target (Kuhn, checked independently)", () => {
    const target = 5e-3
    const stopped = Solver.run(kuhn, { algo: "cfr+", iterations: 100_000, reportEvery: 100_000, targetNashConv: target })
    const n = stopped.iteration
    expect(stopped.reachedTarget).toBe(true)
    expect(n).toBeGreaterThan(1)
    expect(n).toBeLessThan(100_000)
    expect(stopped.nashConv).toBeLessThanOrEqual(target)
    expect(stopped.reports.at(-1)!.iteration).toBe(n)
    // independently: plain runs of n and n − 1 iterations without a target, NashConv from Exploitability.evaluate
    const at = Solver.run(kuhn, { algo: "cfr+", iterations: n })
    expect(Exploitability.evaluate(kuhn, at.policy).nashConv).toBeLessThanOrEqual(target)
    const before = Solver.run(kuhn, { algo: "cfr+", iterations: n - 1 })
    expect(Exploitability.evaluate(kuhn, before.policy).nashConv).toBeGreaterThan(target)
    // and no earlier iteration reached it either (a report after every iteration, no target)
    const every = Solver.run(kuhn, { algo: "cfr+", iterations: n - 1, reportEvery: 1 })
    expect(every.reports.every((r) => r.nashConv > target)).toBe(true)
    expect(every.reachedTarget).toBe(false)
  })

  it.effect("targetNashConv: the Effect face stops at the same iteration as the plain one, bit for bit", () =>
    Effect.gen(function*() {
      const options = { algo: "cfr", iterations: 10_000, reportEvery: 37, targetNashConv: 2e-2 }
      const plain = Solver.run(kuhn, options)
      const effect = yield* Solver.solve(kuhn, options)
      expect(effect.iteration).toBe(plain.iteration)
      expect(effect.reports.map((r) => r.iteration)).toEqual(plain.reports.map((r) => r.iteration))
      expect(Buffer.from(effect.state.regrets.buffer)).toEqual(Buffer.from(plain.state.regrets.buffer))
      expect(effect.nashConv).toBe(plain.nashConv)
    }))

  it("run (plain face) throws the same tagged errors as solve", () => {
    expect(() => Solver.run(kuhn, { algo: "cfr++", iterations: 10 })).toThrow(UnknownAlgorithmError)
    try {
      Solver.run(kuhn, { algo: "cfr", iterations: 10, targetNashConv: -1 })
      expect.unreachable()
    } catch (e) {
      expect(e).toBeInstanceOf(InvalidOptionError)
      expect((e as InvalidOptionError)._tag).toBe("InvalidOptionError")
      expect((e as InvalidOptionError).message).toContain("targetNashConv = -1")
    }
  })

  it("SolverFiles: the Promise face saves, loads and rejects with CorruptedSolverStateError", async () => {
    const dir = tmpDir()
    const first = Solver.run(kuhn, { algo: "cfr+", iterations: 20 })
    await SolverFiles.save(path.join(dir, "s.json"), first.state)
    const loaded = await SolverFiles.load(path.join(dir, "s.json"))
    expect(Array.from(loaded.regrets)).toEqual(Array.from(first.state.regrets))
    await expect(SolverFiles.load(path.join(dir, "absent.json"))).rejects.toBeInstanceOf(CorruptedSolverStateError)
  })

  it("toJson / fromJson round-trip exactly, -0 included (browser-safe base64)", () => {
    const state = { ...Solver.run(kuhn, { algo: "cfr", iterations: 3 }).state }
    const regrets = Float64Array.from(state.regrets)
    regrets[0] = -0
    regrets[1] = Number.MIN_VALUE
    const back = Effect.runSync(Solver.fromJson(JSON.parse(JSON.stringify(Solver.toJson({ ...state, regrets })))))
    expect(Object.is(back.regrets[0], -0)).toBe(true)
    expect(Array.from(back.regrets)).toEqual(Array.from(regrets))
    expect(Solver.toJson(state).regrets).toBe(Buffer.from(state.regrets.buffer).toString("base64"))
  })

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

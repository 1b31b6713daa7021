/**
 * DeepCfrBenchmark: a short Kuhn run reaches its target, its curve ends at the reported NashConv, CFR+'s row is the
 * first CFR+ iteration at or below that NashConv (checked against the iteration before), and bad input is refused.
 */
import { InvalidOptionError } from "@autodidact/core"
import { GameRegistry } from "@autodidact/envs"
import { describe, expect, it } from "@effect/vitest"
import * as DeepCfrBenchmark from "../src/deep/DeepCfrBenchmark.js"
import * as Solver from "../src/regret/Solver.js"

describe("DeepCfrBenchmark", () => {
  it("Kuhn: SD-CFR (dedup) reaches NashConv 0.3; CFR+ is timed to the same NashConv", () => {
    const report = DeepCfrBenchmark.run({ ...DeepCfrBenchmark.quickOptions, target: 0.3, cfrRepeats: 1 })
    expect(report.reached).toBe(true)
    expect(report.deepCfr.nashConv).toBeLessThanOrEqual(0.3)
    expect(report.curve.length).toBe(report.deepCfr.iteration)
    expect(report.curve[report.curve.length - 1]).toBe(report.deepCfr.nashConv)
    // stopped at the first iteration at or below the target
    for (const v of report.curve.slice(0, -1)) expect(v).toBeGreaterThan(0.3)
    expect(report.traversals).toBe(report.deepCfr.iteration * 200 * 2)
    expect(report.config.dedup).toBe(true)
    // CFR+: at or below SD-CFR's NashConv at its iteration, above it one iteration earlier
    expect(report.cfr.nashConv).toBeLessThanOrEqual(report.deepCfr.nashConv)
    const game = GameRegistry.loadGame("kuhn_poker")
    if (report.cfr.iterations > 1) expect(Solver.run(game, { algo: "cfr+", iterations: report.cfr.iterations - 1 }).nashConv).toBeGreaterThan(report.deepCfr.nashConv)
    const md = DeepCfrBenchmark.markdown(report, "load 1.0")
    expect(md).toContain("kuhn_poker: SD-CFR to NashConv 0.3 beside CFR+ — load 1.0")
    expect(md).toContain("| SD-CFR (200 traversals/player/iteration, hidden 16, 100 × 256-row steps, lr 0.03 linear, memory 1000000, dedup, seed 1) |")
    expect(DeepCfrBenchmark.rows(report).length).toBe(2)
    expect(report.runs.length).toBe(1)
    expect(DeepCfrBenchmark.rows(report)[0]!.engine).toBe("simd")
  })

  it("bad input: typed errors naming the option", () => {
    for (const [opts, option] of [
      [{ target: -1 }, "target"],
      [{ maxIterations: 0 }, "maxIterations"],
      [{ cfrRepeats: 1.5 }, "cfrRepeats"],
      [{ maxSeconds: 0 }, "maxSeconds"],
      [{ engines: [] }, "engines"]
    ] as const) {
      let err: unknown
      try {
        DeepCfrBenchmark.run(opts)
      } catch (e) {
        err = e
      }
      expect(err).toBeInstanceOf(InvalidOptionError)
      expect((err as InvalidOptionError).option).toBe(option)
    }
  })
})

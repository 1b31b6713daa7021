import { describe, expect, it } from "@effect/vitest"
import * as MultiTurnBenchmark from "../src/node/MultiTurnBenchmark.js"

describe("MultiTurnBenchmark.markdown", () => {
  it("prints each implementation beside the baseline (ratio of median steps/s), the 500k extrapolation and the load", () => {
    const report: MultiTurnBenchmark.Report = {
      options: { envId: "TextHousehold-v0", difficulty: "default", algo: "gigpo", learningRate: 5e-3, epochs: 4, steps: 20_000, seed: 1, repeats: 2, evalEpisodes: 100 },
      rows: [],
      summaries: [
        { implementation: "baseline", medianStepsPerSecond: 250, medianTrainSeconds: 80, success: [0.5, 0.5], reproduced: true },
        { implementation: "optimized", medianStepsPerSecond: 1000, medianTrainSeconds: 20, success: [0.5, 0.25], reproduced: false }
      ],
      speedup: 4,
      loadBefore: [1.5, 1.25, 1],
      loadAfter: [2, 1.5, 1],
      cpus: 2,
      node: "v20.0.0"
    }
    const text = MultiTurnBenchmark.markdown(report)
    expect(text).toContain("| baseline | 250 | 1.00× | 80.0 | 0.50, 0.50 | yes |")
    expect(text).toContain("| optimized | 1000 | 4.00× | 20.0 | 0.50, 0.25 | no |")
    // 500 000 / 250 / 60 = 33.3 min, 500 000 / 1000 / 60 = 8.3 min
    expect(text).toContain("baseline 33.3 min, optimized 8.3 min")
    expect(text).toContain("loadavg before 1.50 1.25 1.00, after 2.00 1.50 1.00; 2 CPUs")
  })
  it("the baseline is the unoptimized DRRN path and the optimized one the trainer's default", () => {
    expect(MultiTurnBenchmark.implementations.baseline).toEqual({ kernel: "reference", encodingCache: 0, actionMemo: false })
    expect(MultiTurnBenchmark.implementations.optimized).toEqual({})
  })
})

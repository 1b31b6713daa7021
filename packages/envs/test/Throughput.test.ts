import { InvalidOptionError } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import * as Throughput from "../src/checks/Throughput.js"

describe("Throughput", () => {
  it("times raw, make and vector stepping and reports consistent numbers", () => {
    for (const mode of ["raw", "make"] as const) {
      const r = Throughput.measureThroughput({ envId: "CartPole-v1", mode, steps: 20_000, seed: 0 })
      expect(r).toMatchObject({ envId: "CartPole-v1", mode, numEnvs: 1, steps: 20_000 })
      expect(r.seconds).toBeGreaterThan(0)
      expect(r.stepsPerSecond).toBeCloseTo(r.steps / r.seconds, 6)
    }
    // vector: steps rounded up to whole calls of numEnvs
    const v = Throughput.measureThroughput({ envId: "FrozenLake-v1", mode: "vector", numEnvs: 64, steps: 10_000, seed: 1 })
    expect(v.numEnvs).toBe(64)
    expect(v.steps).toBe(Math.ceil(10_000 / 64) * 64)
    const table = Throughput.formatTable([v])
    expect(table.split("\n")).toHaveLength(2)
    expect(table).toContain("vector(sync)")
    expect(() => Throughput.measureThroughput({ envId: "CartPole-v1", mode: "raw", steps: 0, seed: 0 })).toThrow(InvalidOptionError)
  })
})

import { describe, expect, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import * as EnvBenchmark from "../src/checks/EnvBenchmark.js"

const hasNumpy = (() => {
  try {
    execFileSync("python3", ["-c", "import numpy"], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
})()
if (!hasNumpy) console.warn("EnvBenchmark baseline test skipped: python3 with NumPy not found")

describe("EnvBenchmark", () => {
  it.skipIf(!hasNumpy)("times our CartPole rows and the Python transcription in one run, with ratios against it", async () => {
    const result = await EnvBenchmark.runEnvBenchmark({ envs: ["CartPole-v1"], steps: 2000, repeats: 1, batchEnvs: 8, pythonSteps: 1000 })
    expect(result.rows.map((r) => r.mode)).toEqual(["raw", "make", "vector-sync", "batched", "gymnasium-raw (py)", "gymnasium-sync (py)"])
    const [raw, , vec, batched, pyRaw, pyVec] = result.rows
    expect(raw!.ratio).toBeCloseTo(raw!.stepsPerSecond / pyRaw!.stepsPerSecond, 9)
    expect(vec!.baseline).toBe("gymnasium-sync (py)")
    expect(batched!.ratio).toBeCloseTo(batched!.stepsPerSecond / pyVec!.stepsPerSecond, 9)
    expect(batched!.numEnvs).toBe(8)
    expect(pyVec!.numEnvs).toBe(64)
    const table = EnvBenchmark.formatMarkdown(result)
    expect(table).toContain("| CartPole-v1 | batched | 8 |")
    expect(table).toMatch(/loadavg before: [\d.]+ [\d.]+ [\d.]+/)
    expect(result.baselineNote).toMatch(/NumPy \d/)
  })

  it("reports a missing Python baseline instead of failing, with empty ratios", async () => {
    const result = await EnvBenchmark.runEnvBenchmark({ envs: ["FrozenLake-v1", "CartPole-v1"], steps: 500, repeats: 1, batchEnvs: 4, python: "/nonexistent/python3" })
    expect(result.rows).toHaveLength(8)
    expect(result.rows.every((r) => r.ratio === null)).toBe(true)
    expect(result.baselineNote).toMatch(/baseline unavailable: .*nonexistent/)
  })
})

import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { Metrics } from "../src/index.js"

const runnerRow = {
  kind: "runner", runner: "127.0.0.1:5001", globalStep: 320, wallSeconds: 2, episodes: 8, steps: 160, episodesPerSecond: 4,
  stepsPerSecond: 80, meanPolicyLag: 0.5, maxPolicyLag: 1, failures: 0, storageRetries: 0, sendRetries: 0, duplicatesDropped: 0
}

describe("Metrics.RunnerRow", () => {
  it("decodes a runner row as the cluster trainer writes it, unchanged", () => {
    expect(Schema.decodeUnknownSync(Metrics.RunnerRow)(runnerRow)).toEqual(runnerRow)
  })

  it("refuses an empty runner, a negative or fractional count, a non-finite rate and a missing field", () => {
    const decode = Schema.decodeUnknownExit(Metrics.RunnerRow)
    expect(decode({ ...runnerRow, runner: "" })._tag).toBe("Failure")
    expect(decode({ ...runnerRow, failures: -1 })._tag).toBe("Failure")
    expect(decode({ ...runnerRow, episodes: 1.5 })._tag).toBe("Failure")
    expect(decode({ ...runnerRow, stepsPerSecond: Infinity })._tag).toBe("Failure")
    const { meanPolicyLag: _, ...noLag } = runnerRow
    expect(decode(noLag)._tag).toBe("Failure")
  })
})

describe("Metrics.SystemRow", () => {
  const systemRow = { kind: "system", globalStep: 4096, wallSeconds: 12.5, stepsPerSecond: 1500.25, cpuPercent: 180, rssMB: 210.5, heapUsedMB: 64 }
  it("decodes a system row unchanged and refuses negative, fractional-step and non-finite values", () => {
    expect(Schema.decodeUnknownSync(Metrics.SystemRow)(systemRow)).toEqual(systemRow)
    const decode = Schema.decodeUnknownExit(Metrics.SystemRow)
    expect(decode({ ...systemRow, cpuPercent: -1 })._tag).toBe("Failure")
    expect(decode({ ...systemRow, globalStep: 1.5 })._tag).toBe("Failure")
    expect(decode({ ...systemRow, rssMB: NaN })._tag).toBe("Failure")
    expect(decode({ ...systemRow, kind: "runner" })._tag).toBe("Failure")
  })
})

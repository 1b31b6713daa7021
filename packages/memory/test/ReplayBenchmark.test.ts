import { describe, expect, it } from "@effect/vitest"
import { ReplayBenchmark } from "../src/bench.js"
import { Numpy } from "@autodidact/kernels/bench"

/** Whether the `python3` on PATH imports NumPy (.ci/run installs Debian's python3-numpy, so CI must have it). */
const hasNumpy = Numpy.available()

describe("ReplayBenchmark", () => {
  it("rows per capacity and operation, NumPy ratios from the same run, and a markdown table", async () => {
    const result = await ReplayBenchmark.run({ capacities: [3000], batchSize: 32, iters: 20, rounds: 1 })
    if (process.env["CI"] === "true") expect(hasNumpy, "CI installs python3-numpy").toBe(true)
    expect(result.rows.map((r) => `${r.capacity} ${r.operation}`)).toEqual([
      "3000 sample 32",
      "3000 updatePriorities 32",
      "3000 updatePriorities 32, one slot at a time (reference)",
      "3000 tree descent 32",
      "3000 gather 32"
    ])
    for (const r of result.rows) {
      expect(r.medianUs).toBeGreaterThan(0)
      expect(r.p99Us).toBeGreaterThanOrEqual(r.medianUs)
      // the targets are the issue's, at capacity 1M only
      expect([r.target, r.met]).toEqual(["", null])
      if (r.operation.endsWith("(reference)")) expect([r.numpyMedianUs, r.ratio]).toEqual([null, null]) // NumPy has no such row
      else if (hasNumpy) {
        expect(r.numpyMedianUs).toBeGreaterThan(0)
        expect(r.ratio).toBeCloseTo(r.medianUs / r.numpyMedianUs!, 9)
      } else expect([r.numpyMedianUs, r.ratio]).toEqual([null, null])
    }
    expect(result.loadBefore).toHaveLength(3)
    const lines = ReplayBenchmark.formatTable(result).split("\n")
    expect(lines[0]).toMatch(/^node v\d+.*loadavg before [\d.]+ [\d.]+ [\d.]+, after /)
    // columns are as wide as their widest value (a p99 of 1000+ µs on a loaded host widens its header cell)
    expect(lines[2]).toMatch(/^\| capacity +\| operation +\| median µs +\| p99 µs +\| NumPy median µs +\| NumPy p99 µs +\| ratio \(ours\/NumPy\) +\| target +\| met +\|$/)
    expect(lines).toHaveLength(9)
    expect(lines[4]).toMatch(/^\| 3000 +\| sample 32 +\| [\d.]+ +\| [\d.]+ +\| /)
  }, 60_000)

  it("without NumPy (python null) the baseline columns say unavailable and the targets are judged on ours alone", async () => {
    const result = await ReplayBenchmark.run({ capacities: [500], targetCapacity: 500, batchSize: 8, iters: 3, rounds: 1, python: null })
    expect(result.numpyError).toBe("skipped")
    const byOp = Object.fromEntries(result.rows.map((r) => [r.operation, r]))
    expect(byOp["sample 8"]).toMatchObject({ ratio: null, met: null, target: "median < 50 µs, p99 < 150 µs, ≤ 0.5× NumPy" })
    expect(byOp["updatePriorities 8"]!.met).toBe(byOp["updatePriorities 8"]!.medianUs < 30)
    expect(ReplayBenchmark.formatTable(result)).toContain("NumPy unavailable (skipped)")
  }, 60_000)
})

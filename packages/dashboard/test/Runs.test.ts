import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { MetricsReader } from "../src/Metrics.js"
import * as Runs from "../src/Runs.js"
import { cartPoleConfig, learningRows, tempDir, writeRun } from "./fixtures.js"

describe("MetricsReader", () => {
  it("skips malformed lines with a count and leaves a truncated last line for later", async () => {
    const root = tempDir()
    const dir = writeRun(root, {
      name: "r",
      config: cartPoleConfig(1),
      rows: [
        { kind: "episode", globalStep: 10, episodeReturn: 5, episodeLength: 5, wallSeconds: 0.1 },
        { kind: "update", globalStep: 10, wallSeconds: 0.2, policyLoss: -0.5, valueLoss: 2 }
      ],
      tail: 'not json\n[1,2]\n\n{"kind":"episode","globalStep":20,"episodeReturn":9,"episodeLength":9,"wallSeconds":0.3}\n{"kind":"episode","globalStep":30,"episodeRe'
    })
    const r = new MetricsReader(path.join(dir, "metrics.jsonl"))
    expect(await r.refresh()).toBe(true)
    expect(r.malformed).toBe(2)
    expect(r.malformedLines).toEqual([3, 4]) // 1-based line numbers in the file (the blank line 5 is not malformed)
    expect(Runs.malformedWarning(r)).toBe("metrics.jsonl: 2 malformed lines skipped (lines 3, 4)")
    expect(r.truncatedTail).toBe(true)
    expect(r.episodes).toBe(2)
    expect(r.columns.get("episodeReturn")!.value).toEqual([5, 9])
    expect(r.columns.get("policyLoss")!.step).toEqual([10])
    expect(r.lastStep).toBe(20)
    // the writer finishes the line
    fs.appendFileSync(path.join(dir, "metrics.jsonl"), 'turn":12,"episodeLength":12,"wallSeconds":0.4}\n')
    expect(await r.refresh()).toBe(true)
    expect(r.truncatedTail).toBe(false)
    expect(r.columns.get("episodeReturn")!.value).toEqual([5, 9, 12])
    expect(r.bestReturn).toBe(12)
    expect(await r.refresh()).toBe(false)
    // rewritten (shorter) file: start over
    fs.writeFileSync(path.join(dir, "metrics.jsonl"), '{"kind":"episode","globalStep":1,"episodeReturn":1}\n')
    await r.refresh()
    expect(r.columns.get("episodeReturn")!.value).toEqual([1])
    expect(r.malformed).toBe(0)
    expect(r.malformedLines).toEqual([])
  })

  it("stream-parses a large file across chunk boundaries", async () => {
    const root = tempDir()
    const rows = learningRows(60_000, 1)
    const dir = writeRun(root, { name: "big", config: cartPoleConfig(1), rows })
    const r = new MetricsReader(path.join(dir, "metrics.jsonl"))
    await r.refresh()
    expect(r.malformed).toBe(0)
    expect(r.episodes).toBe(60_000)
    expect(r.lines).toBe(rows.length)
    expect(r.offset).toBe(fs.statSync(path.join(dir, "metrics.jsonl")).size)
  })
})

describe("RunStore", () => {
  const root = tempDir()
  for (const s of [1, 2, 3]) writeRun(root, { name: `cp-${s}`, config: cartPoleConfig(s), rows: learningRows(100, s) })
  writeRun(root, { name: "lr/cp-1", config: cartPoleConfig(1, { ppo: { learningRate: 0.001, seed: 1 } }), rows: learningRows(50, 1) })
  writeRun(root, { name: "empty", config: cartPoleConfig(9), rows: [] })
  writeRun(root, { name: "updates-only", config: cartPoleConfig(4, { env: "FrozenLake-v1" }), rows: [{ kind: "update", globalStep: 5, policyLoss: 1 }] })

  it("lists runs with summaries, including empty runs and runs without episodes", async () => {
    const rows = await Effect.runPromise(Runs.scan(root))
    expect(rows.map((r) => r.name)).toEqual(["cp-1", "cp-2", "cp-3", "empty", "lr/cp-1", "updates-only"])
    const cp1 = rows.find((r) => r.name === "cp-1")!
    expect(cp1.env).toBe("CartPole-v1")
    expect(cp1.seed).toBe(1)
    expect(cp1.episodes).toBe(100)
    expect(cp1.steps).toBe(2000)
    expect(cp1.metrics).toContain("valueLoss")
    const empty = rows.find((r) => r.name === "empty")!
    expect(empty.status).toBe("empty")
    expect(empty.bestReturn).toBeNull()
    expect(rows.find((r) => r.name === "updates-only")!.warnings).toContain("no episode rows")
  })

  it("groups runs that differ only by seed", async () => {
    const rows = await Effect.runPromise(Runs.scan(root))
    const key = (n: string) => rows.find((r) => r.name === n)!.groupKey
    expect(key("cp-1")).toBe(key("cp-2"))
    expect(key("cp-2")).toBe(key("cp-3"))
    expect(key("lr/cp-1")).not.toBe(key("cp-1"))
    expect(Runs.groupKey({ a: 1, seed: 2, nested: { seed: 3, b: [1] } })).toBe(Runs.groupKey({ nested: { b: [1], seed: 4 }, a: 1, seed: 7 }))
  })

  it("builds smoothed, downsampled series and bands over seeds", async () => {
    const store = await Effect.runPromise(Runs.load(root))
    const res = store.series({ metric: "episodeReturn", runs: ["cp-1", "cp-2", "cp-3", "lr/cp-1"], smoothing: 0.9, maxPoints: 20, bands: true })
    expect(res.series.map((s) => s.points)).toEqual([100, 100, 100, 50])
    expect(res.series.every((s) => s.x.length === 20)).toBe(true)
    const three = res.bands.find((b) => b.runs.length === 3)!
    expect(three.n).toBe(3)
    for (let i = 0; i < three.x.length; i++) {
      expect(three.min[i]!).toBeLessThanOrEqual(three.mean[i]! + 1e-9)
      expect(three.max[i]!).toBeGreaterThanOrEqual(three.mean[i]! - 1e-9)
    }
    const wall = store.series({ metric: "episodeReturn", runs: ["cp-2"], xAxis: "wall", maxPoints: 1000 })
    expect(wall.series[0]!.x[0]).toBeCloseTo(20 / 1000 + 0.02, 9)
    expect(store.series({ metric: "episodeReturn", runs: ["../cp-1", "nope"] }).series).toEqual([])
  })

  it("refuses names outside the runs directory (traversal, absolute, symlinks)", async () => {
    const outside = tempDir("outside-")
    writeRun(outside, { name: "secret", config: { env: "x" }, rows: [] })
    fs.symlinkSync(path.join(outside, "secret"), path.join(root, "link"))
    const store = await Effect.runPromise(Runs.load(root))
    expect(store.resolve("cp-1")).toBe(fs.realpathSync(path.join(root, "cp-1")))
    for (const bad of ["../cp-1", "..", "/etc", "cp-1/..", "cp-1/../cp-2", "lr\\cp-1", "link", "nope", "", "cp-1\0"]) {
      expect(store.resolve(bad)).toBeUndefined()
    }
    fs.unlinkSync(path.join(root, "link"))
  })
})

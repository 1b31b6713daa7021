/**
 * The stream metrics on a hand-made stream of outcomes, against values computed by hand from the formulas
 * (Evo-Memory's success over the stream, GEM's forward transfer with a per-task baseline, the forgetting measure on
 * re-visits), and the stream generator's and file reader's phases, re-visits and errors.
 */
import { InvalidOptionError } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Stream from "../src/Stream.js"
import { definedNumbers, StreamMetrics } from "../src/StreamMetrics.js"

describe("StreamMetrics", () => {
  it("success over the stream, unseen success, forward transfer and forgetting of a hand-made stream", () => {
    const m = new StreamMetrics()
    const first = m.add({ key: "A", novelty: "seen", success: 1 })
    expect(first).toMatchObject({ tasks: 1, streamSuccess: 1, seenSuccess: 1, unseenSuccess: undefined, forwardTransfer: undefined, forgetting: undefined })
    m.add({ key: "B", novelty: "seen", success: 0.5 })
    m.add({ key: "C", novelty: "unseen-layout", success: 0.75, baseline: 0.25 })
    m.add({ key: "D", novelty: "unseen-family", success: 0, baseline: 0 })
    m.add({ key: "E", novelty: "unseen-family", success: 0.5 }) // no baseline: in unseenSuccess, not in forwardTransfer
    m.add({ key: "A", novelty: "seen", success: 0.25 }) // forgets 1 − 0.25 = 0.75
    m.add({ key: "B", novelty: "seen", success: 1 }) // better than before: forgets 0
    const last = m.add({ key: "A", novelty: "seen", success: 0.5 }) // best earlier on A is still 1: forgets 0.5
    expect(last.tasks).toBe(8)
    expect(last.streamSuccess).toBeCloseTo((1 + 0.5 + 0.75 + 0 + 0.5 + 0.25 + 1 + 0.5) / 8, 12)
    expect(last.seenSuccess).toBeCloseTo(0.75, 12)
    expect(last.unseenSuccess).toBeCloseTo((0.75 + 0 + 0.5) / 3, 12)
    expect(last.forwardTransfer).toBeCloseTo(((0.75 - 0.25) + (0 - 0)) / 2, 12)
    expect(last.forgetting).toBeCloseTo((0.75 + 0 + 0.5) / 3, 12)
    expect(last.revisits).toBe(3)
    expect(last.unseenTasks).toBe(3)
    const row = definedNumbers(first)
    expect(Object.keys(row)).not.toContain("unseenSuccess")
    expect(Object.values(row).every(Number.isFinite)).toBe(true)
  })

  it("refuses a success or baseline outside [0, 1] with InvalidOptionError naming it", () => {
    const m = new StreamMetrics()
    expect(() => m.add({ key: "A", novelty: "seen", success: 1.5 })).toThrow(InvalidOptionError)
    expect(() => m.add({ key: "A", novelty: "seen", success: Number.NaN })).toThrow(/success/)
    expect(() => m.add({ key: "A", novelty: "unseen-layout", success: 0.5, baseline: -1 })).toThrow(/baseline/)
    expect(m.snapshot().tasks).toBe(0)
  })
})

describe("Stream", () => {
  it("generator: seen families on the train split until the seen budget, then unseen layouts, unseen families and re-visits; a seed repeats it", () => {
    const draw = () => {
      const s = Stream.generator(7, 100)
      return [...Array.from({ length: 20 }, () => s.next(0)!), ...Array.from({ length: 60 }, () => s.next(100)!)]
    }
    const tasks = draw()
    expect(draw()).toEqual(tasks)
    const seen = tasks.slice(0, 20)
    expect(seen.every((t) => t.novelty === "seen" && t.split === "train" && !t.revisit && Stream.SEEN_FAMILIES.includes(t.family))).toBe(true)
    const later = tasks.slice(20)
    const layouts = later.filter((t) => t.novelty === "unseen-layout")
    const families = later.filter((t) => t.novelty === "unseen-family")
    const revisits = later.filter((t) => t.revisit)
    expect(layouts.length + families.length + revisits.length).toBe(60)
    expect(Math.min(layouts.length, families.length, revisits.length)).toBeGreaterThan(5)
    expect(layouts.every((t) => t.split === "unseen" && Stream.SEEN_FAMILIES.includes(t.family))).toBe(true)
    expect(families.every((t) => t.split === "train" && Stream.UNSEEN_FAMILIES.includes(t.family))).toBe(true)
    const seenKeys = new Set(seen.map((t) => t.key))
    expect(revisits.every((t) => seenKeys.has(t.key) && t.novelty === "seen")).toBe(true)
    expect(tasks.map((t) => t.index)).toEqual(tasks.map((_, i) => i))
    expect(Stream.envTask(layouts[0]!)).toEqual({ seed: layouts[0]!.seed, options: { split: "unseen", taskTypes: [layouts[0]!.family] } })
  })

  it("fromFile: tasks in order, a repeated task is a re-visit, novelty inferred; a bad line is named", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "household-stream-"))
    try {
      const file = path.join(dir, "stream.jsonl")
      fs.writeFileSync(file, [
        { family: "pick_and_place_simple", split: "train", seed: 3 },
        { family: "pick_cool_then_place_in_recep", seed: 4 },
        { family: "pick_and_place_simple", split: "unseen", seed: 5 },
        { family: "pick_and_place_simple", split: "train", seed: 3 }
      ].map((r) => JSON.stringify(r)).join("\n") + "\n")
      const s = Stream.fromFile(file)
      const got = [s.next(0), s.next(0), s.next(0), s.next(0), s.next(0)]
      expect(got.map((t) => t?.novelty)).toEqual(["seen", "unseen-family", "unseen-layout", "seen", undefined])
      expect(got.map((t) => t?.revisit)).toEqual([false, false, false, true, undefined])
      fs.writeFileSync(file, `${JSON.stringify({ family: "pick_and_place_simple", seed: 1 })}\n${JSON.stringify({ family: "fly", seed: 1 })}\n`)
      expect(() => Stream.fromFile(file)).toThrow(/stream\.jsonl:2/)
      expect(() => Stream.fromFile(path.join(dir, "missing.jsonl"))).toThrow(InvalidOptionError)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})

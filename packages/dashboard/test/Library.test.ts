import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import * as Library from "../src/Library.js"
import * as Runs from "../src/Runs.js"
import { cartPoleConfig, learningRows, skillRecord, tempDir, writeMemory, writeRun, writeSkills } from "./fixtures.js"

describe("Library", () => {
  it("summarizes a skill library: counts, versions and the most-called skills with success rate and mean return", async () => {
    const root = tempDir()
    const lib = writeSkills(root, [
      skillRecord("push_box", 3, { calls: 40, successes: 30, meanReturn: 2.5 }, 2),
      skillRecord("walk_to", 1, { calls: 100, successes: 99, meanReturn: 0.5 }),
      skillRecord("unused", 2, { calls: 0, successes: 0, meanReturn: 0 }),
      skillRecord("also_40", 1, { calls: 40, successes: 10, meanReturn: -1 })
    ])
    fs.writeFileSync(path.join(lib, "broken.json"), "{ not json")
    fs.writeFileSync(path.join(lib, "notes.json"), JSON.stringify({ hello: "world" }))
    const s = (await Library.readSkills(lib, "skills", 3))!
    expect(s).toMatchObject({ path: "skills", skills: 4, versions: 7, calls: 180 })
    expect(s.top.map((u) => u.name)).toEqual(["walk_to", "also_40", "push_box"])
    expect(s.top[2]).toEqual({ name: "push_box", calls: 40, successes: 30, successRate: 0.75, meanReturn: 2.5, activeVersion: 2, versions: 3 })
    expect(s.warnings).toEqual(["broken.json: not JSON", "notes.json: not a skill record"])
    const all = (await Library.readSkills(lib, "skills"))!
    expect(all.top.find((u) => u.name === "unused")).toMatchObject({ calls: 0, successRate: null, meanReturn: null })
    // a folder without skill records, or no folder
    expect(await Library.readSkills(tempDir(), "x")).toBeUndefined()
    expect(await Library.readSkills(path.join(root, "nope"), "x")).toBeUndefined()
  })

  it("reads memory counts by kind from memory-summary.json, and reports a store without one", async () => {
    const a = tempDir()
    writeMemory(a, { trajectory: 12, insight: 4, reflection: 2, tip: 1 })
    expect(await Library.readMemory(a, "run-a")).toEqual({
      path: "run-a/memory",
      counts: { trajectory: 12, insight: 4, reflection: 2, tip: 1 },
      total: 19,
      writtenAt: "2026-01-02T03:04:05.000Z",
      warnings: []
    })
    const b = tempDir()
    writeMemory(b)
    const noSummary = (await Library.readMemory(b, ""))!
    expect(noSummary.counts).toBeNull()
    expect(noSummary.warnings[0]).toContain("memory-summary.json")
    // a bare counts object next to the run, without a store directory
    const c = tempDir()
    fs.writeFileSync(path.join(c, "memory-summary.json"), JSON.stringify({ insight: 3, tip: 5 }))
    expect(await Library.readMemory(c, "")).toMatchObject({ counts: { insight: 3, tip: 5 }, total: 8 })
    fs.writeFileSync(path.join(c, "memory-summary.json"), "{")
    expect((await Library.readMemory(c, ""))!.warnings).toEqual(["memory-summary.json unreadable"])
    expect(await Library.readMemory(tempDir(), "")).toBeUndefined()
  })

  it("flags runs and the runs directory that hold memory or skills, without taking them for runs", async () => {
    const root = tempDir()
    const dir = writeRun(root, { name: "agent", config: cartPoleConfig(1), rows: learningRows(5, 1) })
    writeSkills(dir, [skillRecord("s", 1, { calls: 1, successes: 1, meanReturn: 1 })])
    writeMemory(dir, { trajectory: 1 })
    writeRun(root, { name: "plain", config: cartPoleConfig(2), rows: learningRows(5, 2) })
    writeSkills(root, [skillRecord("t", 2, { calls: 3, successes: 1, meanReturn: 0 })])
    writeMemory(root, { insight: 2 })
    const rows = await Effect.runPromise(Runs.scan(root))
    expect(rows.map((r) => [r.name, r.hasLibrary])).toEqual([
      ["agent", true],
      ["plain", false]
    ])
    expect(Library.present(root)).toBe(true)
    const top = await Library.read(root)
    expect(top.skills).toMatchObject({ path: "skills", skills: 1, versions: 2 })
    expect(top.memory).toMatchObject({ path: "memory", counts: { insight: 2 } })
    const run = await Library.read(dir, "agent")
    expect(run.skills?.path).toBe("agent/skills")
    expect(run.memory?.total).toBe(1)
    expect(await Library.read(path.join(root, "plain"), "plain")).toEqual({ skills: null, memory: null })
  })
})

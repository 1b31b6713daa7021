/**
 * The run directory on resume: metrics rows written after the checkpoint are dropped (atomically, a torn last line
 * included), and a config that differs in a result-changing key is refused with a typed error naming the keys
 * unless the override is given, which config.json then records.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as RunDirectory from "../src/RunDirectory.js"

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "autodidact-rundir-"))
const rows = (file: string) => fs.readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>)

describe("RunDirectory resume", () => {
  it("truncateMetrics keeps rows up to the checkpoint step and rows without a step, drops the rest and a torn tail", () => {
    const file = path.join(tmp(), "metrics.jsonl")
    fs.writeFileSync(
      file,
      [
        { kind: "episode", globalStep: 8 },
        { kind: "update", globalStep: 16 },
        { kind: "note" },
        { kind: "episode", globalStep: 20 },
        { kind: "update", globalStep: 32 }
      ].map((r) => JSON.stringify(r) + "\n").join("") + `{"kind":"episode","glo`
    )
    expect(RunDirectory.truncateMetrics(file, 16)).toEqual({ kept: 3, dropped: 3 })
    expect(rows(file)).toEqual([{ kind: "episode", globalStep: 8 }, { kind: "update", globalStep: 16 }, { kind: "note" }])
    expect(fs.readFileSync(file, "utf8").endsWith("\n")).toBe(true)
    // nothing past the step: the file is left as it is
    const before = fs.statSync(file).mtimeMs
    expect(RunDirectory.truncateMetrics(file, 16)).toEqual({ kept: 3, dropped: 0 })
    expect(fs.statSync(file).mtimeMs).toBe(before)
    // no temp file left behind
    expect(fs.readdirSync(path.dirname(file))).toEqual(["metrics.jsonl"])
  })

  it.effect("resume with another seed fails with ResumeConfigError naming seed; --resume-override is recorded", () =>
    Effect.gen(function* () {
      const dir = path.join(tmp(), "run")
      const config = { command: "train", env: "CartPole-v1", seed: 1, numEnvs: 4, totalSteps: 1024, startedAt: "t0" }
      const run = yield* RunDirectory.open(dir, config)
      run.append({ kind: "episode", globalStep: 100 })
      run.append({ kind: "episode", globalStep: 600 })

      const error = yield* Effect.flip(
        RunDirectory.open(dir, { ...config, seed: 2, numEnvs: 8, totalSteps: 4096, startedAt: "t1" }, { resume: { step: 512, mayDiffer: ["totalSteps"] } })
      )
      expect(error).toBeInstanceOf(RunDirectory.ResumeConfigError)
      expect(error).toMatchObject({ _tag: "ResumeConfigError", keys: ["seed", "numEnvs"] })
      expect(error.message).toContain("seed (1 in config.json, 2 now)")
      expect(error.message).toContain("--resume-override")
      // a refused resume changes nothing
      expect(rows(path.join(dir, "metrics.jsonl"))).toHaveLength(2)
      expect(JSON.parse(fs.readFileSync(path.join(dir, "config.json"), "utf8"))).toEqual(config)

      const resumed = yield* RunDirectory.open(dir, { ...config, seed: 2, startedAt: "t1" }, { resume: { step: 512, override: true } })
      expect(resumed.dropped).toBe(1)
      expect(rows(path.join(dir, "metrics.jsonl"))).toEqual([{ kind: "episode", globalStep: 100 }])
      const written = JSON.parse(fs.readFileSync(path.join(dir, "config.json"), "utf8"))
      expect(written).toMatchObject({ seed: 2, startedAt: "t0" })
      expect(written.resumes).toEqual([{ step: 512, startedAt: "t1", droppedRows: 1, resumeOverride: true, differences: [{ key: "seed", was: 1, now: 2 }] }])
    }))
})

describe("RunDirectory system rows", () => {
  /** A probe whose clock, CPU time and memory the test sets. */
  const fakeProbe = () => {
    const p = { t: 0, cpu: 0, rss: 100 * 2 ** 20, heap: 30 * 2 ** 20 }
    return { p, probe: { now: () => p.t, cpuMicros: () => p.cpu, rssBytes: () => p.rss, heapUsedBytes: () => p.heap } }
  }

  it.effect("append writes a system row after a row once every N seconds, with steps/s, CPU % and memory", () =>
    Effect.gen(function* () {
      const dir = path.join(tmp(), "run")
      const { p, probe } = fakeProbe()
      const run = yield* RunDirectory.open(dir, { command: "train", seed: 1 }, { systemEverySeconds: 5, systemProbe: probe })
      p.t = 4000
      run.append({ kind: "episode", globalStep: 100 }) // 4 s: too early
      p.t = 6000
      p.cpu = 3_000_000 // 3 s of CPU in 6 s: 50 %
      run.append({ kind: "episode", globalStep: 600 })
      p.t = 8000
      run.append({ kind: "update", globalStep: 800 })
      p.t = 16_000
      p.cpu = 13_000_000 // 10 s of CPU in 10 s: 100 %
      p.rss = 150 * 2 ** 20
      run.append({ kind: "episode", globalStep: 2600 })
      run.append({ kind: "summary", globalStep: 2600 })
      p.t = 60_000
      run.append({ kind: "late", globalStep: 3000 }) // after the summary: no more system rows
      expect(rows(path.join(dir, "metrics.jsonl"))).toEqual([
        { kind: "episode", globalStep: 100 },
        { kind: "episode", globalStep: 600 },
        { kind: "system", globalStep: 600, wallSeconds: 6, stepsPerSecond: 100, cpuPercent: 50, rssMB: 100, heapUsedMB: 30 },
        { kind: "update", globalStep: 800 },
        { kind: "episode", globalStep: 2600 },
        { kind: "system", globalStep: 2600, wallSeconds: 16, stepsPerSecond: 200, cpuPercent: 100, rssMB: 150, heapUsedMB: 30 },
        { kind: "summary", globalStep: 2600 },
        { kind: "late", globalStep: 3000 }
      ])
    }))

  it.effect("systemEverySeconds 0 writes none", () =>
    Effect.gen(function* () {
      const dir = path.join(tmp(), "run")
      const { p, probe } = fakeProbe()
      const run = yield* RunDirectory.open(dir, { command: "train" }, { systemEverySeconds: 0, systemProbe: probe })
      p.t = 1e9
      run.append({ kind: "episode", globalStep: 1 })
      expect(rows(path.join(dir, "metrics.jsonl"))).toEqual([{ kind: "episode", globalStep: 1 }])
    }))
})

/**
 * The app end to end on a tiny stream (easy tasks, 10-step episodes, a small network): each switch gives a run
 * directory that the dashboard's reader accepts, with the components it asked for and no others; the stream rows
 * agree with the stream metrics recomputed from their own outcomes; a seed reproduces the run; bad options are
 * refused with a typed error naming them.
 */
import { InvalidOptionError, TextEpisode } from "@autodidact/core"
import { Runs } from "@autodidact/dashboard"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Agent from "../src/Agent.js"
import { parse } from "../src/main.js"
import { StreamMetrics } from "../src/StreamMetrics.js"

const tiny = {
  seed: 3,
  steps: 240,
  difficulty: "easy",
  maxSteps: 10,
  groupSize: 2,
  tasksPerBatch: 4,
  evalEvery: 0,
  evalEpisodes: 2,
  skillEvery: 1,
  prmEvery: 1,
  seenFraction: 0.5,
  policy: { buckets: 1024, hidden: 16, embed: 8 }
}

const rows = (dir: string) => fs.readFileSync(path.join(dir, "metrics.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>)

const root = fs.mkdtempSync(path.join(os.tmpdir(), "household-agent-"))

describe("household-agent", () => {
  // each switch off once; the experience store (PGlite, the costly part) only in the full agent (here and in the
  // reproducibility test below, which runs it again)
  const variants = [
    { name: "full", memory: true, skills: true, prm: true },
    { name: "no-memory", memory: false, skills: true, prm: true },
    { name: "no-skills", memory: false, skills: false, prm: true },
    { name: "no-prm", memory: false, skills: true, prm: false },
    { name: "plain", memory: false, skills: false, prm: false }
  ] as const

  it.effect("prmInto: the PRM's progress in the step rewards (before estimation) trains another policy than in the advantages", () =>
    Effect.gen(function*() {
      const policies: Array<string> = []
      for (const prmInto of ["advantages", "rewards"] as const) {
        const out = path.join(root, `prm-${prmInto}`)
        const s = yield* Agent.run({ ...tiny, out, memory: false, skills: false, prm: true, prmInto })
        expect(s.prmFits).toBeGreaterThan(0)
        policies.push(fs.readFileSync(path.join(out, "checkpoints", "policy.json"), "utf8"))
      }
      expect(policies[0]).not.toBe(policies[1])
    }), 60_000)

  for (const v of variants) {
    it.effect(`${v.name}: runs the stream and writes a run directory the dashboard reads`, () =>
      Effect.gen(function*() {
        const out = path.join(root, v.name)
        const s = yield* Agent.run({ ...tiny, out, memory: v.memory, skills: v.skills, prm: v.prm })
        expect(s.components).toEqual({ memory: v.memory, skills: v.skills, prm: v.prm })
        expect(s.envSteps).toBeGreaterThanOrEqual(tiny.steps)
        expect(s.streamTasks).toBe(s.updates * tiny.tasksPerBatch)
        const all = rows(out)
        const stream = all.filter((r) => r["kind"] === "stream")
        expect(stream.length).toBe(s.streamTasks)
        // the stream rows' running metrics are the stream metrics of their own outcomes, in order
        const m = new StreamMetrics()
        for (const r of stream) {
          const snap = m.add({ key: `${r["family"]}|${r["streamIndex"]}`, novelty: String(r["novelty"]), success: Number(r["taskSuccess"]), baseline: r["baselineSuccess"] as number | undefined })
          expect(r["streamSuccess"]).toBeCloseTo(snap.streamSuccess!, 12)
        }
        expect(stream.some((r) => r["novelty"] !== "seen")).toBe(true)
        const steps = all.filter((r) => r["kind"] === "episode").map((r) => r["globalStep"] as number)
        expect(steps).toEqual([...steps].sort((a, b) => a - b))
        expect(steps[steps.length - 1]).toBe(s.envSteps)
        expect(all[all.length - 1]!["kind"]).toBe("summary")
        expect(all.some((r) => r["kind"] === "memory")).toBe(v.memory)
        expect(all.some((r) => r["kind"] === "prm")).toBe(v.prm)
        expect(s.prmFits > 0).toBe(v.prm)
        expect(fs.existsSync(path.join(out, "memory"))).toBe(v.memory)
        expect(s.storedEpisodes).toBe(v.memory ? s.updates * tiny.tasksPerBatch * tiny.groupSize : 0)
        if (!v.skills) expect(s.admittedSkills).toEqual([])
        const transcripts = fs.readFileSync(path.join(out, "trajectories", "stream.jsonl"), "utf8").trim().split("\n")
        expect(transcripts.length).toBe(s.streamTasks)
        expect(TextEpisode.is(JSON.parse(transcripts[0]!))).toBe(true)
        expect(fs.existsSync(path.join(out, "checkpoints", "policy.json"))).toBe(true)
        // the dashboard's reader: one finished run, no warnings, the stream metrics plotted
        const table = yield* Runs.scan(root)
        const summary = table.find((r) => r.name === v.name)!
        expect(summary.status).toBe("finished")
        expect(summary.warnings).toEqual([])
        expect(summary.env).toBe("TextHousehold-v0")
        expect(summary.metrics).toEqual(expect.arrayContaining(["streamSuccess", "taskSuccess", "episodeReturn"]))
        expect(summary.evalSuccess).toBe(s.evalSuccess)
        expect(summary.config["components.memory"]).toBe(v.memory)
      }), 120_000)
  }

  it.effect("a seed reproduces the run: the full agent again gives the same episodes and stream rows", () =>
    Effect.gen(function*() {
      const again = path.join(root, "full-again")
      const b = yield* Agent.run({ ...tiny, out: again, memory: true, skills: true, prm: true })
      const strip = (dir: string) => rows(dir).filter((r) => r["kind"] === "stream" || r["kind"] === "episode").map((r) => ({ ...r, wallSeconds: 0 }))
      expect(b.storedEpisodes).toBeGreaterThan(0)
      expect(strip(again)).toEqual(strip(path.join(root, "full")))
      const a = rows(path.join(root, "full")).find((r) => r["kind"] === "summary")!
      expect(b.evalSuccess).toBe(a["evalSuccess"])
      expect(b.admittedSkills).toEqual(a["admittedSkills"])
    }), 120_000)

  it.effect("--stream FILE: plays the file's tasks in order and stops when they run out; a file shorter than a batch is refused", () =>
    Effect.gen(function*() {
      const file = path.join(root, "stream.jsonl")
      const tasks = [
        { family: "pick_and_place_simple", split: "train", seed: 11 },
        { family: "pick_heat_then_place_in_recep", split: "train", seed: 12 },
        { family: "pick_and_place_simple", split: "unseen", seed: 13 },
        { family: "pick_two_obj_and_place", split: "train", seed: 14 },
        { family: "pick_and_place_simple", split: "train", seed: 11 },
        { family: "pick_cool_then_place_in_recep", split: "train", seed: 15 }
      ]
      fs.writeFileSync(file, tasks.map((t) => JSON.stringify(t)).join("\n") + "\n")
      const out = path.join(root, "from-file")
      const s = yield* Agent.run({ ...tiny, out, stream: file, tasksPerBatch: 3, steps: 10_000, memory: false, skills: false, prm: false })
      expect(s.updates).toBe(2)
      expect(s.streamTasks).toBe(6)
      expect(s.envSteps).toBeLessThan(10_000)
      const stream = rows(out).filter((r) => r["kind"] === "stream")
      expect(stream.map((r) => r["family"])).toEqual(tasks.map((t) => t.family))
      expect(stream.map((r) => r["novelty"])).toEqual(["seen", "seen", "unseen-layout", "unseen-family", "seen", "unseen-family"])
      expect(stream.map((r) => r["revisit"])).toEqual([false, false, false, false, true, false])
      expect(s.revisits).toBe(1)
      fs.writeFileSync(file, JSON.stringify(tasks[0]) + "\n")
      const short = yield* Effect.flip(Agent.run({ ...tiny, out: path.join(root, "short"), stream: file, memory: false, skills: false, prm: false }))
      expect(short).toBeInstanceOf(InvalidOptionError)
      expect(String((short as InvalidOptionError).message)).toMatch(/fewer tasks \(1\) than one batch \(4\)/)
      expect(fs.existsSync(path.join(root, "short"))).toBe(false)
    }), 120_000)

  it.effect("bad options fail with InvalidOptionError naming the option; the command line maps its flags", () =>
    Effect.gen(function*() {
      for (const [bad, option] of [[{ steps: 0 }, "steps"], [{ seed: -1 }, "seed"], [{ seenFraction: 2 }, "seenFraction"], [{ groupSize: 1.5 }, "groupSize"], [{ difficulty: "brutal" }, "difficulty"], [{ exemplarLine: "sometimes" as "none" }, "exemplarLine"], [{ prmInto: "logits" as "rewards" }, "prmInto"]] as const) {
        const exit = yield* Effect.exit(Agent.run({ ...tiny, ...bad, out: path.join(root, "bad") }))
        expect(Exit.isFailure(exit)).toBe(true)
        const err = Exit.isFailure(exit) ? (exit.cause.reasons[0] as { error?: unknown }).error : undefined
        expect(err).toBeInstanceOf(InvalidOptionError)
        expect((err as InvalidOptionError).option).toBe(option)
      }
      expect(fs.existsSync(path.join(root, "bad"))).toBe(false)
      expect(parse(["--out", "x", "--steps", "500", "--seed", "2", "--no-memory", "--no-prm", "--quiet"])).toEqual({ out: "x", steps: 500, seed: 2, memory: false, prm: false })
      expect(parse(["--out", "x", "--memory", "--exemplar-line", "first-step", "--quiet"])).toEqual({ out: "x", memory: true, exemplarLine: "first-step" })
      expect(parse(["--out", "x", "--skills", "--quiet"])).toEqual({ out: "x", skills: true })
      expect(parse(["--out", "x", "--no-skills", "--quiet"])).toEqual({ out: "x", skills: false })
      expect(Agent.defaults).toMatchObject({ memory: true, skills: false, prm: true }) // what the README's ablation kept
      expect(parse(["--out", "x", "--prm-into", "rewards", "--quiet"])).toEqual({ out: "x", prmInto: "rewards" })
      expect(() => parse(["--out", "x", "--steps", "many"])).toThrow(/--steps/)
      expect(() => parse(["--steps", "5"])).toThrow(/--out/)
    }))
})

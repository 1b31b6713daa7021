/**
 * `autodidact start` (the main job) in process with small budgets: a previous run is kept (moved aside, and said),
 * a run solved before its budget says so and completes its bar, config.json records `command: "start"`,
 * metrics.jsonl holds no absolute path, and the Sokoban result is written to the run directory.
 */
import { afterEach, describe, expect, it, vi } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { handleStart, sokobanPath } from "../src/commands/Start.js"
import { LEVELS } from "./levels.js"

afterEach(() => void vi.restoreAllMocks())

describe("autodidact start", () => {
  it.effect("keeps the previous run, says it stopped early when solved, records start, relative paths, sokoban.json", () =>
    Effect.gen(function* () {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "autodidact-start-"))
      const out = path.join(dir, "start")
      const levels = path.join(dir, "levels.txt")
      fs.writeFileSync(levels, LEVELS)
      // an earlier run of the main job
      fs.mkdirSync(out)
      fs.writeFileSync(path.join(out, "config.json"), `{"command":"start","marker":1}\n`)
      const stderr: Array<string> = []
      vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => (stderr.push(String(chunk)), true))
      vi.spyOn(process.stdout, "write").mockImplementation(() => true)
      // solved = mean return of the last 100 episodes ≥ 15: an untrained CartPole policy gets there within a few updates
      yield* handleStart({ seed: 1, out, levels, json: false }, { totalSteps: 50_000, evalEpisodes: 3, levels: 2, maxNodes: 10_000, solveThreshold: 15 }).pipe(
        Effect.ensuring(Effect.sync(() => vi.restoreAllMocks())) // the worker runs other files after this one
      )
      const said = stderr.join("")

      const kept = fs.readdirSync(dir).filter((n) => n.startsWith("start.prev-"))
      expect(kept).toHaveLength(1)
      expect(JSON.parse(fs.readFileSync(path.join(dir, kept[0]!, "config.json"), "utf8"))).toEqual({ command: "start", marker: 1 })
      expect(said).toContain(`Kept the previous run of ${out}: moved to ${path.join(dir, kept[0]!)}`)

      const config = JSON.parse(fs.readFileSync(path.join(out, "config.json"), "utf8"))
      expect(config).toMatchObject({ command: "start", env: "CartPole-v1", untilSolved: true, solveThreshold: 15 })
      const rows = fs.readFileSync(path.join(out, "metrics.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>)
      const summary = rows.find((r) => r["kind"] === "summary")!
      expect(summary).toMatchObject({ stopReason: "solved", run: ".", checkpoint: "checkpoints/latest.json" })
      const step = summary["globalStep"] as number
      expect(step).toBeLessThan(50_000)
      expect(said).toMatch(new RegExp(`solved at step ${step} \\(mean return \\d+\\.\\d ≥ threshold 15\\); stopping early`))
      // no row holds a path of this machine
      for (const r of rows) for (const v of Object.values(r)) if (typeof v === "string") expect(path.isAbsolute(v), v).toBe(false)

      const sokoban = JSON.parse(fs.readFileSync(sokobanPath(out), "utf8"))
      expect(sokoban).toMatchObject({ kind: "sokoban", solved: 2, total: 2, unsolvable: 0, maxNodes: 10_000 })
    }), 60_000)
})

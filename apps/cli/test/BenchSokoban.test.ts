/**
 * `bench search --sokoban-run DIR` (in process, a tiny trained DRRN on Sokoban-6x6-1box-v0, three levels): one row per
 * method and budget, breadth-first (complete) solves every 6x6 level at 1000 steps, and bad budgets name the flag.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { trainText } from "../src/commands/TextTrain.js"
import { cli } from "./inproc.js"

describe("bench search --sokoban-run", () => {
  it.effect("prints levels solved per method and budget for the run's policy", () =>
    Effect.gen(function* () {
      const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "autodidact-benchsokoban-")), "run")
      yield* trainText({ env: "Sokoban-6x6-1box-v0", algo: "grpo", seed: 3, totalSteps: 60, out, groupSize: 2, difficulty: "default", overwrite: false, json: true, evalEpisodes: 1 })
      const ran = yield* Effect.promise(() =>
        cli(["bench", "search", "--sokoban-run", out, "--levels", "3", "--boxoban-levels", "0", "--budgets", "10,1000", "--value-episodes", "20", "--json"])
      )
      expect(ran.code).toBe(0)
      const rows = ran.json()
      expect(rows.length).toBe(10)
      expect(new Set(rows.map((r) => r["budget"]))).toEqual(new Set([10, 1000]))
      // a 6x6 room has at most 16 x 15 states x 4 actions < 1000 steps: breadth-first is complete within the budget
      const bfs = rows.find((r) => String(r["method"]).includes("breadth-first") && r["budget"] === 1000)!
      expect(bfs).toMatchObject({ solved: 3, levels: 3 })
      for (const r of rows) expect(r["solved"]).toBeLessThanOrEqual(3)
      const bad = yield* Effect.promise(() => cli(["bench", "search", "--sokoban-run", out, "--budgets", "0,10"]))
      expect(bad.code).toBe(1)
      expect(bad.stderr).toContain("budgets")
    }), 60_000)
})

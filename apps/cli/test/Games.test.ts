/**
 * `games solve --out DIR` in process: a run directory like `train --out` (config.json, metrics.jsonl) whose
 * `solver` rows carry the NashConv/exploitability curve by iteration (`globalStep`), read back by the dashboard's
 * metrics reader as plottable columns.
 */
import { Metrics } from "@autodidact/dashboard"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { handleGamesSolve } from "../src/commands/Games.js"

describe("games solve --out", () => {
  it.effect("writes config.json and one metrics row per report; the dashboard reads the nashConv curve", () =>
    Effect.gen(function* () {
      const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "autodidact-games-")), "kuhn")
      yield* handleGamesSolve({
        game: "kuhn_poker", algo: "cfr+", iterations: 40, reportEvery: Option.some(10), targetNashConv: Option.none(), seed: 0,
        save: Option.none(), resume: Option.none(), out: Option.some(out), json: true
      })
      const config = JSON.parse(fs.readFileSync(path.join(out, "config.json"), "utf8"))
      expect(config).toMatchObject({ command: "games solve", game: "kuhn_poker", algo: "cfr+", iterations: 40, reportEvery: 10, seed: 0 })
      const rows = fs.readFileSync(path.join(out, "metrics.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l))
      const solver = rows.filter((r) => r.kind === "solver")
      expect(solver.map((r) => r.globalStep)).toEqual([10, 20, 30, 40])
      for (const r of solver) {
        expect(r.nashConv).toBeGreaterThanOrEqual(0)
        expect(r.exploitability).toBeCloseTo(r.nashConv / 2, 12) // two players: exploitability = NashConv / 2
        expect(r.wallSeconds).toBeGreaterThanOrEqual(0)
      }
      expect(rows.at(-1)).toMatchObject({ kind: "summary", game: "kuhn_poker", iteration: 40, globalStep: 40 })
      const reader = new Metrics.MetricsReader(path.join(out, "metrics.jsonl"))
      yield* Effect.promise(() => reader.refresh())
      expect(reader.columns.get("nashConv")?.step).toEqual([10, 20, 30, 40])
      expect(reader.summary).toMatchObject({ kind: "summary" })
    }))
})

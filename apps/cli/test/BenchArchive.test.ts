/**
 * `bench archive` (in process, tiny: one seed, 200 training steps a node, 5-step episodes): a row for the default and
 * each method, every method within its env-step budget (but for the last training batch), rows written to --out and not rerun, a bad seed list named.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { cli } from "./inproc.js"

describe("bench archive", () => {
  it.effect("prints the default and each method's best within the budget; a rerun reads the rows back", () =>
    Effect.gen(function* () {
      const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "autodidact-bencharchive-")), "run")
      const argv = ["bench", "archive", "--seeds", "2", "--train-steps", "100", "--budget", "700", "--max-steps", "5", "--search-tasks", "4", "--batch", "2", "--held-out", "4", "--out", out, "--json"]
      const ran = yield* Effect.promise(() => cli(argv))
      expect(ran.code).toBe(0)
      const rows = ran.json()
      expect(rows.map((r) => r["method"])).toEqual(["default", "hgm", "dgm", "random", "restarts"])
      for (const r of rows.slice(1)) {
        // within the budget but for the last node's training batch overshoot (at most 16 x 16 trajectories x 5 steps)
        expect(Number(r["trainingSteps"]) + Number(r["evaluationSteps"])).toBeLessThanOrEqual(700 + 16 * 16 * 5)
        expect(Number(r["trainingSteps"]) + Number(r["evaluationSteps"])).toBeGreaterThan(700 - 100 - 4 * 5)
        expect(Number(r["nodesTrained"])).toBeGreaterThanOrEqual(1)
        expect(r["heldOutTasks"]).toBe(4)
      }
      expect(fs.readFileSync(path.join(out, "rows.jsonl"), "utf8").trim().split("\n").length).toBe(5)
      expect(fs.existsSync(path.join(out, "archive-seed-2-hgm.json"))).toBe(true)
      const again = yield* Effect.promise(() => cli(argv))
      expect(again.json().map((r) => r["wallSeconds"])).toEqual(rows.map((r) => r["wallSeconds"]))
      const bad = yield* Effect.promise(() => cli(["bench", "archive", "--seeds", "1,x"]))
      expect(bad.code).toBe(1)
      expect(bad.stderr).toContain("seeds")
    }), 60_000)
})

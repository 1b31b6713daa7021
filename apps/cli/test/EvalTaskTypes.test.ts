/**
 * `eval --task-types F,...|all` on a TextHousehold run (in process, a tiny trained DRRN): one row per family, each
 * playing tasks of that family only; another env or an unknown family is a TrainConfigError naming the value.
 */
import { TextHousehold } from "@autodidact/envs"
import { TextTasks } from "@autodidact/optim"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { trainText, withTaskTypes } from "../src/commands/TextTrain.js"
import { cli } from "./inproc.js"

describe("eval --task-types", () => {
  it("restricts the evaluation tasks to the families: every task's reset is of one of them", () => {
    const setup = TextTasks.setupFor("TextHousehold-v0")
    const env = new TextHousehold.TextHousehold()
    for (const families of [["pick_two_obj_and_place"], ["look_at_obj_in_light", "pick_heat_then_place_in_recep"]]) {
      const task = withTaskTypes(setup.evalTask, families)
      const seen = new Set<string>()
      for (let k = 0; k < 12; k++) {
        const t = task(k)
        expect(t.seed).toBe(setup.evalTask(k).seed)
        const r = env.reset({ seed: t.seed, options: t.options })
        expect(r.info["split"]).toBe("unseen")
        seen.add(String(r.info["taskType"]))
      }
      expect([...seen].sort()).toEqual([...families].sort())
    }
  })

  it.effect("prints one row per family; refuses other envs and unknown families", () =>
    Effect.gen(function* () {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "autodidact-evaltypes-"))
      const out = path.join(dir, "run")
      yield* trainText({ env: "TextHousehold-v0", algo: "grpo", seed: 3, totalSteps: 60, out, groupSize: 2, difficulty: "easy", overwrite: false, json: true, evalEpisodes: 1 })
      const ran = yield* Effect.promise(() => cli(["eval", "--run", out, "--task-types", "pick_two_obj_and_place,look_at_obj_in_light", "--episodes", "2", "--json"]))
      expect(ran.code).toBe(0)
      expect(ran.json().map((r) => [r["taskTypes"], r["episodes"], r["tasks"]])).toEqual([
        ["pick_two_obj_and_place", 2, "unseen tasks"],
        ["look_at_obj_in_light", 2, "unseen tasks"]
      ])
      const all = yield* Effect.promise(() => cli(["eval", "--run", out, "--task-types", "all", "--episodes", "1", "--json"]))
      expect(all.json().map((r) => r["taskTypes"])).toEqual([...TextHousehold.TASK_TYPES])
      const bad = yield* Effect.promise(() => cli(["eval", "--run", out, "--task-types", "pick_three"]))
      expect(bad.code).toBe(1)
      expect(bad.stderr).toContain("pick_three")
      const frozen = path.join(dir, "lake")
      yield* trainText({ env: "TextFrozenLake-v1", algo: "grpo", seed: 3, totalSteps: 40, out: frozen, groupSize: 2, difficulty: "default", overwrite: false, json: true, evalEpisodes: 1 })
      const other = yield* Effect.promise(() => cli(["eval", "--run", frozen, "--task-types", "all"]))
      expect(other.code).toBe(1)
      expect(other.stderr).toContain("TextHousehold-v0")
    }), 60_000)
})

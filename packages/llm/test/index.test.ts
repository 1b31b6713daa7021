/**
 * The package entry point: what `@autodidact/llm` holds after the in-context learners moved here from
 * `@autodidact/optim` (and what neither package exports), and one run through the public API across the package
 * boundaries: an LLM policy's group rollout on an `@autodidact/envs` text env (optim's `GroupRollout` shapes), its
 * trajectories exported in the verl layout with optim's GRPO advantages.
 */
import { Rng } from "@autodidact/core"
import { TextFrozenLake } from "@autodidact/envs"
import * as Llm from "@autodidact/llm"
import * as Optim from "@autodidact/optim"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { MAP, scripted } from "./fixtures/ScriptedModel.js"

const moved = ["LlmPolicy", "LlmRollout", "TrainingFreeGrpo", "Expel", "Gepa", "ExperienceLibrary"]

describe("@autodidact/llm", () => {
  it("holds the in-context learners, optim does not; internal helpers are not exported", () => {
    for (const name of moved) {
      expect(name in Llm, `${name} in @autodidact/llm`).toBe(true)
      expect(name in Optim, `${name} in @autodidact/optim`).toBe(false)
    }
    // the release gate: the LLM gate here, the flip-centred decision in optim (re-exported here, one implementation)
    expect("gate" in Llm.ReleaseGate && !("gate" in Optim.ReleaseGate)).toBe(true)
    expect(Llm.ReleaseGate.compare).toBe(Optim.ReleaseGate.compare)
    for (const internal of ["Sse", "HttpListen"]) expect(internal in Llm).toBe(false)
    expect(new Llm.LlmConfigError({ option: "model", value: null, reason: "missing" }).message).toBe("model = null: missing")
  })

  it.effect("policy → group rollout on a text env → verl rows with GRPO advantages, through the entry points", () =>
    Effect.gen(function*() {
      // trajectory 0: Down, Down, Right, Right reaches G (return 1); trajectory 1: Right, Down falls into the hole
      // at row 2, column 2 (return 0); the scripted model answers in order
      const model = scripted(["Action: Down", "Action: Down", "Action: Right", "Action: Right", "Action: Right", "Action: Down"])
      const env = new TextFrozenLake.TextFrozenLake({ desc: MAP, isSlippery: false })
      const group = yield* Llm.LlmRollout.collectGroup([env], Llm.LlmPolicy.config({ baseDelayMs: 0 }), { seed: 0 }, Rng.make(1), { groupSize: 2, maxSteps: 8 }).pipe(
        Effect.provide(model.layer)
      )
      expect(group.failures).toEqual([])
      expect(group.trajectories.map((t) => [t.success, t.return, t.steps.length])).toEqual([[true, 1, 4], [false, 0, 2]])
      // optim's GroupRollout columns: state keys and admissible actions per step
      const first = group.trajectories[0]!.steps[0]!
      expect(first.admissible).toEqual(["Left", "Down", "Right", "Up"])
      expect(first.stateKey).toBe(group.trajectories[1]!.steps[0]!.stateKey) // same initial state
      const episodes = group.trajectories.map((t, i) => Llm.Export.fromTrajectory(t, `t${i}`))
      const rows = Llm.Export.toVerl(episodes, { advantage: "grpo" })
      expect(rows.length).toBe(6)
      // one group (same env, task, seed), returns {1, 0}: mean 0.5, sample std √0.5 → ±0.5/(√0.5 + 1e-6) = ±0.70711
      const a = 0.5 / (Math.sqrt(0.5) + 1e-6)
      expect(rows.map((r) => r.advantage)).toEqual([a, a, a, a, -a, -a])
      expect(rows.map((r) => r.uid).every((u) => u === rows[0]!.uid)).toBe(true)
      expect(rows.filter((r) => r.done).map((r) => r.episode_return)).toEqual([1, 0])
    }))
})

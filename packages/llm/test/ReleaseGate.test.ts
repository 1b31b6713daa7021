import { TextFrozenLake } from "@autodidact/envs"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as LlmPolicy from "../src/LlmPolicy.js"
import * as ReleaseGate from "../src/ReleaseGate.js"
import { HINT, learner, MAP } from "./fixtures/ScriptedModel.js"

describe("ReleaseGate.gate", () => {
  it.effect("evaluates both policies on held-out tasks: the library candidate is accepted, the reverse rejected", () =>
    Effect.gen(function* () {
      const makeEnv = () => new TextFrozenLake.TextFrozenLake({ desc: MAP, isSlippery: false })
      const tasks = Array.from({ length: 8 }, (_, k) => ({ seed: 900 + k }))
      const base = LlmPolicy.config({ baseDelayMs: 0 })
      const cand = LlmPolicy.config({ baseDelayMs: 0, experiences: HINT })
      const model = learner({ seed: 2 })
      const g = yield* ReleaseGate.gate([makeEnv()], tasks, base, cand, { maxSteps: 8 }).pipe(Effect.provide(model.layer))
      expect(g.accepted).toBe(true)
      expect(g.broken).toEqual([])
      expect(g.candidatePassRate).toBe(1)
      expect(g.fixed.length).toBe(Math.round((1 - g.baselinePassRate) * 8))
      expect(g.fixed.every((id) => tasks.some((t) => String(t.seed) === id))).toBe(true)
      expect(g.candidate.successRate).toBe(1)
      const back = yield* ReleaseGate.gate([makeEnv()], tasks, cand, base, { maxSteps: 8 }).pipe(Effect.provide(model.layer))
      expect(back.accepted).toBe(false)
      expect(back.fixed).toEqual([])
      expect(back.broken.length).toBeGreaterThan(0)
    }))
})

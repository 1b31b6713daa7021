import { TextFrozenLake } from "@autodidact/envs"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Gepa from "../src/Gepa.js"
import * as LlmPolicy from "../src/LlmPolicy.js"
import * as LlmRollout from "../src/LlmRollout.js"
import { HINT, HINT_KEY, hintFor, learner, MAP, USELESS } from "./fixtures/ScriptedModel.js"

const makeEnv = () => new TextFrozenLake.TextFrozenLake({ desc: MAP, isSlippery: false })
const trainTasks = Array.from({ length: 6 }, (_, k) => ({ seed: k }))
const paretoTasks = Array.from({ length: 5 }, (_, k) => ({ seed: 500 + k }))
const SEED_INSTRUCTION = "You walk on a frozen lake."
const policy = LlmPolicy.config({ instruction: SEED_INSTRUCTION, baseDelayMs: 0 })

describe("Gepa.paretoFront", () => {
  it("keeps candidates best on some task, drops dominated ones and duplicates, counts wins", () => {
    // tasks:      t0   t1   t2
    const scores = [
      [1, 0, 0], // 0: best on t0
      [0, 1, 0.5], // 1: best on t1 and (tied) t2
      [0, 0, 0.5], // 2: tied best on t2 but dominated by 1
      [1, 0, 0], // 3: duplicate of 0 (the earlier is kept)
      [0.5, 0.5, 0.2] // 4: best on nothing
    ]
    expect(Gepa.paretoFront(scores)).toEqual([{ index: 0, wins: 1 }, { index: 1, wins: 2 }])
  })

  it("parses the reflection answer", () => {
    expect(Gepa.parseInstruction("Reasoning...\nNew instruction:\n```\nGo down first.\n```")).toBe("Go down first.")
    expect(Gepa.parseInstruction("Just do it.")).toBe("Just do it.")
  })
})

describe("Gepa.optimize", () => {
  it.effect("reflection on failed trajectories finds the hint; the best candidate beats the seed", () =>
    Effect.gen(function* () {
      const model = learner({ seed: 5 })
      const rows: Array<Gepa.IterationRow> = []
      const result = yield* Gepa.optimize([makeEnv()], { trainTasks, paretoTasks }, policy, { budget: 60, minibatchSize: 3, maxSteps: 8 }, {
        onIteration: (r) => rows.push(r)
      }).pipe(Effect.provide(model.layer))
      const seed = result.candidates[0]!
      expect(seed.instruction).toBe(SEED_INSTRUCTION)
      expect(seed.meanScore).toBeLessThan(0.5)
      expect(result.best.instruction).toBe(`${SEED_INSTRUCTION} ${HINT}`)
      expect(result.best.parent).toBe(0)
      expect(result.best.meanScore).toBe(1)
      expect(result.best.scores).toEqual([1, 1, 1, 1, 1])
      // the hint dominates the seed on every Pareto task it could: the front is the hint alone (or with seed wins)
      expect(result.front).toContain(result.best.index)
      expect(result.rolloutsUsed).toBeLessThanOrEqual(60)
      expect(rows.some((r) => r.accepted)).toBe(true)
      expect(rows.at(-1)!.bestScore).toBe(1)
      // the reflection saw failed trajectories
      expect(model.state.calls["reflect"]).toBeGreaterThan(0)
    }))

  it.effect("ablation: a reflector that proposes a useless edit never finds the hint and the best score stays low", () =>
    Effect.gen(function* () {
      const model = learner({ seed: 5, learns: false })
      const result = yield* Gepa.optimize([makeEnv()], { trainTasks, paretoTasks }, policy, { budget: 60, minibatchSize: 3, maxSteps: 8 }).pipe(
        Effect.provide(model.layer)
      )
      expect(result.candidates.every((c) => !c.instruction.includes(HINT_KEY))).toBe(true)
      expect(result.candidates.some((c) => c.instruction.includes(USELESS)) || result.candidates.length === 1).toBe(true)
      expect(result.best.meanScore).toBeLessThanOrEqual(0.6)
    }))

  it.effect("the rule must come from the failed trajectories: a reflection shown none of them finds nothing", () =>
    Effect.gen(function* () {
      // the learner's rule names the hole's cell, which only the failed trajectories' final observations show; a
      // broken GEPA that sends the reflection no trajectories cannot improve the seed
      const model = learner({ seed: 5 })
      const blind: Gepa.Prompts = { ...Gepa.defaultPrompts, reflect: ({ instruction }) => Gepa.defaultPrompts.reflect({ instruction, trajectories: [] }) }
      const result = yield* Gepa.optimize([makeEnv()], { trainTasks, paretoTasks }, policy, { budget: 60, minibatchSize: 3, maxSteps: 8, prompts: blind }).pipe(
        Effect.provide(model.layer)
      )
      expect(model.state.calls["reflect"]).toBeGreaterThan(0)
      expect(result.candidates.every((c) => !c.instruction.includes(HINT_KEY))).toBe(true)
      expect(result.best.meanScore).toBeLessThan(0.5)
    }))

  it.effect("the fixture's policy needs the discovered cell: a rule without it, or with a wrong one, fails", () =>
    Effect.gen(function* () {
      const model = learner({ seed: 5 })
      const rate = (experiences: string) =>
        Effect.map(LlmRollout.evaluate([makeEnv()], { ...policy, experiences }, paretoTasks, { maxSteps: 8 }), (r) => r.row.successRate)
      expect(yield* rate(HINT).pipe(Effect.provide(model.layer))).toBe(1)
      expect(yield* rate(hintFor([])).pipe(Effect.provide(model.layer))).toBe(0)
      expect(yield* rate(hintFor(["row 1, column 3"])).pipe(Effect.provide(model.layer))).toBe(0)
    }))

  it.effect("rejects a bad budget", () =>
    Effect.gen(function* () {
      const e = yield* Effect.flip(Gepa.optimize([makeEnv()], { trainTasks, paretoTasks }, policy, { budget: 0 }).pipe(Effect.provide(learner().layer)))
      expect(e._tag).toBe("InvalidOptionError")
    }))
})

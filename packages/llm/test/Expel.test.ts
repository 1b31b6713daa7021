import { TextFrozenLake } from "@autodidact/envs"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Expel from "../src/Expel.js"
import * as LlmPolicy from "../src/LlmPolicy.js"
import * as LlmRollout from "../src/LlmRollout.js"
import { HINT, learner, MAP, USELESS } from "./fixtures/ScriptedModel.js"

const makeEnv = () => new TextFrozenLake.TextFrozenLake({ desc: MAP, isSlippery: false })
const trainTasks = Array.from({ length: 6 }, (_, k) => ({ seed: k }))
const evalTasks = Array.from({ length: 8 }, (_, k) => ({ seed: 1000 + k }))
const policy = LlmPolicy.config({ instruction: "You walk on a frozen lake.", baseDelayMs: 0 })

describe("Expel insight operations", () => {
  it("ADD starts at 2, UPVOTE/EDIT add 1, DOWNVOTE subtracts 1, 0 removes", () => {
    let s = Expel.empty
    s = Expel.applyOperations(s, [{ op: "ADD", text: "a" }, { op: "ADD", text: "b" }, { op: "ADD", text: "A" }]).state
    expect(s.insights).toEqual([{ id: 1, text: "a", importance: 2 }, { id: 2, text: "b", importance: 2 }])
    const r = Expel.applyOperations(s, [{ op: "UPVOTE", id: 1 }, { op: "EDIT", id: 2, text: "b2" }, { op: "DOWNVOTE", id: 2 }, { op: "DOWNVOTE", id: 9 }])
    expect(r.state.insights).toEqual([{ id: 1, text: "a", importance: 3 }, { id: 2, text: "b2", importance: 2 }])
    expect([r.applied, r.skipped, r.removed]).toEqual([3, 1, 0])
    const gone = Expel.applyOperations(r.state, [{ op: "DOWNVOTE", id: 2 }, { op: "DOWNVOTE", id: 2 }])
    expect(gone.state.insights.map((i) => i.id)).toEqual([1])
    expect([gone.removed, gone.skipped]).toEqual([1, 0])
    expect(Expel.render(Expel.applyOperations(r.state, [{ op: "UPVOTE", id: 2 }, { op: "UPVOTE", id: 2 }]).state)).toBe(
      "Insights from earlier tasks:\n2. b2\n1. a"
    )
  })

  it("parses operation lines in the paper's and our names", () => {
    const p = Expel.parseOperations("Here:\n1. ADD: avoid holes\n- EDIT 3: go down first\nAGREE 2\n**REMOVE 4**\nUPVOTE\nEDIT 5:\nsome prose")
    expect(p.operations).toEqual([
      { op: "ADD", text: "avoid holes" },
      { op: "EDIT", id: 3, text: "go down first" },
      { op: "UPVOTE", id: 2 },
      { op: "DOWNVOTE", id: 4 }
    ])
    expect(p.invalid).toBe(2)
  })
})

describe("Expel.learn", () => {
  const evaluate = (experiences: string) =>
    Effect.map(LlmRollout.evaluate([makeEnv()], { ...policy, experiences }, evalTasks, { maxSteps: 8, seed: 5 }), (r) => r.row.successRate)

  it.effect("extracts the hint from success/failure pairs, and the insights raise success", () =>
    Effect.gen(function* () {
      const model = learner({ seed: 21 })
      const rows: Array<Expel.ExtractionRow> = []
      const before = yield* evaluate("").pipe(Effect.provide(model.layer))
      const learned = yield* Expel.learn([makeEnv()], trainTasks, policy, { trials: 4, maxSteps: 8 }, { onExtraction: (r) => rows.push(r) }).pipe(
        Effect.provide(model.layer)
      )
      expect(learned.insights.insights[0]!.text).toBe(HINT)
      // added once (2), then confirmed by every later pair
      const pairs = rows.filter((r) => r.source === "pair").length
      expect(pairs).toBeGreaterThan(1)
      expect(learned.insights.insights[0]!.importance).toBe(2 + pairs - 1)
      const after = yield* evaluate(Expel.render(learned.insights)).pipe(Effect.provide(model.layer))
      expect(before).toBeLessThan(0.5)
      expect(after).toBe(1)
    }))

  it.effect("the insight must come from the failed trial: a comparison shown no failed trajectory learns nothing", () =>
    Effect.gen(function* () {
      // the learner's rule names the hole's cell, visible only in the failed trial's final observation; a broken
      // ExpeL that leaves the failed trial out of the comparison prompt gets no rule
      const model = learner({ seed: 21 })
      const blind: Expel.Prompts = { ...Expel.defaultPrompts, compare: (p) => Expel.defaultPrompts.compare({ ...p, failed: "(not shown)" }) }
      const rows: Array<Expel.ExtractionRow> = []
      yield* evaluate("").pipe(Effect.provide(model.layer)) // the same model stream as the test above: the same trials
      const learned = yield* Expel.learn([makeEnv()], trainTasks, policy, { trials: 4, maxSteps: 8, prompts: blind }, { onExtraction: (r) => rows.push(r) }).pipe(
        Effect.provide(model.layer)
      )
      expect(rows.filter((r) => r.source === "pair").length).toBeGreaterThan(1)
      expect(learned.insights.insights).toEqual([])
      expect(yield* evaluate(Expel.render(learned.insights)).pipe(Effect.provide(model.layer))).toBeLessThan(0.5)
    }))

  it.effect("ablation: a model that writes useless insights does not improve", () =>
    Effect.gen(function* () {
      const model = learner({ seed: 21, learns: false })
      const before = yield* evaluate("").pipe(Effect.provide(model.layer))
      const learned = yield* Expel.learn([makeEnv()], trainTasks, policy, { trials: 4, maxSteps: 8 }).pipe(Effect.provide(model.layer))
      expect(learned.insights.insights.map((i) => i.text)).toEqual([USELESS])
      const after = yield* evaluate(Expel.render(learned.insights)).pipe(Effect.provide(model.layer))
      expect(after).toBeLessThan(0.5)
      expect(Math.abs(after - before)).toBeLessThanOrEqual(0.25)
    }))
})

import { TextFrozenLake } from "@autodidact/envs"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as ExperienceLibrary from "../src/ExperienceLibrary.js"
import * as LlmPolicy from "../src/LlmPolicy.js"
import * as TrainingFreeGrpo from "../src/TrainingFreeGrpo.js"
import { HINT, HINT_KEY, learner, MAP, scripted } from "./fixtures/ScriptedModel.js"

const makeEnv = () => new TextFrozenLake.TextFrozenLake({ desc: MAP, isSlippery: false })
const tasks = Array.from({ length: 6 }, (_, k) => ({ seed: k }))
const policy = LlmPolicy.config({ instruction: "You walk on a frozen lake.", baseDelayMs: 0 })

const run = (options: Partial<TrainingFreeGrpo.Options>, learns = true) => {
  const model = learner({ seed: 11, learns })
  const rows: Array<TrainingFreeGrpo.EpochRow> = []
  return TrainingFreeGrpo.train([makeEnv()], tasks, policy, { epochs: 3, groupSize: 5, maxSteps: 8, ...options }, { onEpoch: (r) => rows.push(r) }).pipe(
    Effect.map((result) => ({ result, rows, model })),
    Effect.provide(Layer.mergeAll(model.layer, ExperienceLibrary.layerMemory()))
  )
}

describe("TrainingFreeGrpo.parseOperations", () => {
  it("reads arrays, wrapped objects, fences, aliases and G-ids; counts bad items", () => {
    const p = TrainingFreeGrpo.parseOperations(
      'Sure!\n```json\n[{"operation":"add","content":"a"},{"op":"UPDATE","id":"G2","content":"b"},{"option":"remove","id":3},{"operation":"ADD"},{"operation":"MODIFY","content":"no id"},7,{"operation":"keep"}]\n```'
    )
    expect(p.operations).toEqual([
      { op: "ADD", content: "a" },
      { op: "MODIFY", id: 2, content: "b" },
      { op: "DELETE", id: 3 },
      { op: "NONE" }
    ])
    expect(p.invalid).toBe(3)
    expect(p.error).toBeUndefined()
    expect(TrainingFreeGrpo.parseOperations('{"operations": [{"operation": "DELETE", "id": 0}]}').operations).toEqual([{ op: "DELETE", id: 0 }])
    expect(TrainingFreeGrpo.parseOperations("NONE").operations).toEqual([{ op: "NONE" }])
  })

  it("reports unparseable answers", () => {
    const p = TrainingFreeGrpo.parseOperations("I would add something about holes [but not in JSON")
    expect(p.operations).toEqual([])
    expect(p.error).toBeDefined()
  })
})

describe("TrainingFreeGrpo.train", () => {
  it.effect("learns the hint into the library and success rises because of it", () =>
    Effect.gen(function* () {
      const { model, result, rows } = yield* run({})
      expect(rows.map((r) => r.epoch)).toEqual([0, 1, 2])
      // epoch 0: the empty library, random moves; the learner only walks safely with the hint
      expect(rows[0]!.successRate).toBeLessThan(0.5)
      expect(rows[0]!.groupsWithSignal).toBeGreaterThan(0)
      expect(rows[0]!.operations.add).toBe(1)
      expect(rows[0]!.libraryVersion).toBe(1)
      // with the hint in the prompt the safe walk reaches G in 4 steps every time
      expect(rows[1]!.successRate).toBe(1)
      expect(rows[2]!.successRate).toBe(1)
      expect(rows[2]!.meanReward).toBe(1)
      // groups of equal rewards are not learned from: no summaries after epoch 0
      expect(rows[1]!.groupsWithSignal).toBe(0)
      expect(result.library.experiences).toEqual([{ id: 0, text: HINT }])
      expect(result.library.version).toBe(1)
      // the library reached the policy's prompt
      const policyPrompts = model.state.prompts.filter((p) => p.purpose === "policy")
      expect(policyPrompts.some((p) => p.text.includes(`[G0] ${HINT}`))).toBe(true)
      expect(model.state.calls["summarize"]).toBeGreaterThan(0)
      expect(rows.every((r) => r.inputTokens > 0 && r.outputTokens > 0)).toBe(true)
    }))

  it.effect("ablation: without library updates success stays flat (same model, same rollouts at epoch 0)", () =>
    Effect.gen(function* () {
      const learned = yield* run({})
      const ablated = yield* run({ updateLibrary: false })
      expect(ablated.rows[0]!.successRate).toBe(learned.rows[0]!.successRate)
      expect(ablated.rows.every((r) => r.successRate < 0.5)).toBe(true)
      expect(ablated.rows.every((r) => r.librarySize === 0 && r.advantages === 0)).toBe(true)
      expect(ablated.model.state.calls["summarize"]).toBeUndefined()
      expect(ablated.model.state.prompts.some((p) => p.text.includes(HINT_KEY))).toBe(false)
    }))

  it.effect("evaluates after each epoch with the learned library", () =>
    Effect.gen(function* () {
      const evals: Array<number> = []
      const model = learner({ seed: 11 })
      yield* TrainingFreeGrpo.train([makeEnv()], tasks, policy, { epochs: 2, groupSize: 5, maxSteps: 8, evalTasks: [{ seed: 100 }, { seed: 101 }] }, {
        onEvaluation: (r) => evals.push(r.successRate)
      }).pipe(Effect.provide(Layer.mergeAll(model.layer, ExperienceLibrary.layerMemory())))
      expect(evals).toEqual([1, 1])
    }))

  it.effect("an unparseable update is skipped and counted, or fails with onParseError: fail", () =>
    Effect.gen(function* () {
      // a policy that sometimes wins (the scripted answers alternate) and an updater that answers prose
      // trajectory 1: Down Down Right Right reaches G; trajectory 2: Right Down falls into the hole
      const answers = ["Action: Down", "Action: Down", "Action: Right", "Action: Right", "Action: Right", "Action: Down", "summary A", "summary B", "go down first", "no json here"]
      const m = scripted(answers)
      const env = makeEnv()
      const out = yield* TrainingFreeGrpo.train([env], [{ seed: 0 }], policy, { epochs: 1, groupSize: 2, maxSteps: 5 }).pipe(
        Effect.provide(Layer.mergeAll(m.layer, ExperienceLibrary.layerMemory()))
      )
      expect(out.epochs[0]!.groupsWithSignal).toBe(1)
      expect(out.epochs[0]!.parseFailures).toBe(1)
      expect(out.library.version).toBe(0)
      const m2 = scripted(answers)
      const err = yield* TrainingFreeGrpo.train([makeEnv()], [{ seed: 0 }], policy, { epochs: 1, groupSize: 2, maxSteps: 5, onParseError: "fail" }).pipe(
        Effect.provide(Layer.mergeAll(m2.layer, ExperienceLibrary.layerMemory())),
        Effect.flip
      )
      expect(err._tag).toBe("OperationsParseError")
    }))

  it.effect("rejects bad options with InvalidOptionError", () =>
    Effect.gen(function* () {
      const e1 = yield* Effect.flip(run({ groupSize: 1 }))
      expect(e1._tag).toBe("InvalidOptionError")
      const e2 = yield* Effect.flip(run({ rolloutTemperature: Number.NaN }))
      expect(e2._tag).toBe("InvalidOptionError")
    }))
})

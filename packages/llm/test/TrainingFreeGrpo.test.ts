import { TextFrozenLake } from "@autodidact/envs"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { LanguageModel } from "effect/ai"
import * as ExperienceLibrary from "../src/ExperienceLibrary.js"
import * as LlmPolicy from "../src/LlmPolicy.js"
import * as OpenAiCompat from "../src/OpenAiCompat.js"
import { type Reply, type ScriptedRequest, type ScriptedServer, scriptedServer } from "../src/testing.js"
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

describe("TrainingFreeGrpo.update on groups rolled out elsewhere (over HTTP, the scripted server)", () => {
  // The scripted learner: a summary naming the outcome the transcript states, two lessons for a contrast, and an
  // update that adds both lessons and refines G0.
  const respond = (r: ScriptedRequest): Reply => {
    const text = r.transcript
    if (text.includes("Summarize the attempt")) {
      if (text.includes("BROKEN")) return { status: 400, body: { error: { message: "bad request", type: "invalid_request_error" } } }
      return text.includes("reached the fridge") ? "Went straight to the fridge and won." : "Wandered and failed."
    }
    if (text.includes("Compare the attempts")) return text.includes("won.") && text.includes("failed.") ? "1. Go to the fridge first.\n2. Do not wander." : "NONE"
    if (text.includes("Update the library")) {
      if (text.includes("[G0] Answer in prose.")) return "I would add both."
      return JSON.stringify([{ operation: "ADD", content: "Go to the fridge first." }, { operation: "ADD", content: "Do not wander." }, { operation: "MODIFY", id: 0, content: "Look before acting." }])
    }
    return { status: 500, body: { error: { message: `unexpected prompt: ${text.slice(0, 80)}` } } }
  }
  const attempt = (task: string, won: boolean) => ({
    task,
    return: won ? 1 : 0,
    success: won,
    transcript: won ? "Step 1 go to fridge 1: reached the fridge. Outcome: success" : "Step 1 look. Outcome: failure"
  })
  const start: ExperienceLibrary.Snapshot = { version: 3, nextId: 1, experiences: [{ id: 0, text: "Look around." }] }
  const learnPolicy = LlmPolicy.config({ baseDelayMs: 0, retries: 0 })
  const withServer = <A, E>(f: (s: ScriptedServer) => Effect.Effect<A, E, LanguageModel.LanguageModel>) =>
    Effect.scoped(Effect.gen(function*() {
      const s = yield* scriptedServer({ respond })
      return yield* f(s).pipe(Effect.provide(OpenAiCompat.layerFetch({ baseUrl: s.baseUrl, model: "scripted", env: {} })))
    }))

  it.effect("learns from the group with signal only, caps ADDs, returns the new snapshot and leaves the input as it was", () =>
    withServer((s) =>
      Effect.gen(function*() {
        const groups = [
          { trajectories: [attempt("heat a mug", true), attempt("heat a mug", false)] },
          { trajectories: [attempt("cool a pan", false), attempt("cool a pan", false)] } // equal outcomes: no signal
        ]
        const r = yield* TrainingFreeGrpo.update(groups, start, learnPolicy, { maxExperiences: 2, learnTemperature: 0.3, note: "block 7" })
        expect(r.groupsWithSignal).toBe(1)
        expect(r.advantages).toEqual(["Go to the fridge first.", "Do not wander."])
        // library of 1, cap 2: the first ADD fits, the second is skipped, the MODIFY applies
        expect(r.accepted).toEqual([{ op: "ADD", content: "Go to the fridge first." }, { op: "MODIFY", id: 0, content: "Look before acting." }])
        expect(r.operations).toEqual({ add: 1, modify: 1, delete: 0, none: 0, skipped: 1, invalid: 0 })
        expect(r.library).toEqual({ version: 4, nextId: 2, note: "block 7", experiences: [{ id: 0, text: "Look before acting." }, { id: 1, text: "Go to the fridge first." }] })
        expect(start.experiences).toEqual([{ id: 0, text: "Look around." }])
        expect([r.parseFailures, r.learnFailures]).toEqual([0, 0])
        // 2 summaries (the signal group only), 1 extraction, 1 update; each at the learning temperature, the
        // summaries carrying the attempt's transcript and the current library
        expect(s.requests).toHaveLength(4)
        expect(s.requests.map((q) => q.body.temperature)).toEqual([0.3, 0.3, 0.3, 0.3])
        expect(s.requests[0]!.transcript).toContain("reached the fridge. Outcome: success")
        expect(s.requests[0]!.transcript).toContain("[G0] Look around.")
        expect(r.inputTokens).toBe(40) // the server's usage: 10 per message, one message per call
      })))

  it.effect("a failed summary call is counted and skips the group; no lesson, no update call, the same snapshot", () =>
    withServer((s) =>
      Effect.gen(function*() {
        const broken = { ...attempt("heat a mug", false), transcript: "BROKEN" }
        const r = yield* TrainingFreeGrpo.update([{ trajectories: [attempt("heat a mug", true), broken] }], start, learnPolicy)
        expect(r.learnFailures).toBe(1)
        expect(r.groupsWithSignal).toBe(1)
        expect(r.advantages).toEqual([])
        expect(r.library).toBe(start)
        expect(s.requests).toHaveLength(2)
      })))

  it.effect("an unreadable update answer: counted with onParseError skip, OperationsParseError with fail", () =>
    withServer(() =>
      Effect.gen(function*() {
        const groups = [{ trajectories: [attempt("heat a mug", true), attempt("heat a mug", false)] }]
        const prose: ExperienceLibrary.Snapshot = { version: 1, nextId: 1, experiences: [{ id: 0, text: "Answer in prose." }] }
        const skipped = yield* TrainingFreeGrpo.update(groups, prose, learnPolicy)
        expect(skipped.parseFailures).toBe(1)
        expect(skipped.advantages).toHaveLength(2)
        expect(skipped.library).toBe(prose)
        const err = yield* Effect.flip(TrainingFreeGrpo.update(groups, prose, learnPolicy, { onParseError: "fail" }))
        expect(err._tag).toBe("OperationsParseError")
        const bad = yield* Effect.flip(TrainingFreeGrpo.update(groups, start, learnPolicy, { learnTemperature: -1 }))
        expect(bad).toMatchObject({ _tag: "InvalidOptionError", option: "learnTemperature" })
      })))
})

import { describe, expect, it } from "@effect/vitest"
import { TextHousehold } from "@autodidact/envs"
import { Embedder } from "@autodidact/memory"
import { Effect, Layer } from "effect"
import { Discovery, Sandbox, SkillLibrary, SkillOptions } from "../src/index.js"

const layer = Layer.mergeAll(Sandbox.layer({ timeoutMs: 10_000, poolSize: 2 }), Embedder.layerHashed())

describe("Discovery", () => {
  it("delexicalizes and matches step templates", () => {
    const d = Discovery.delexicalize(["go to cabinet 2", "open cabinet 2", "take mug 1 from cabinet 2"])
    expect(d.steps).toEqual(["go to {0}", "open {0}", "take {1} from {0}"])
    expect(d.entities).toEqual(["cabinet 2", "mug 1"])
    expect([...Discovery.matchStep("take {1} from {0}", "take mug 1 from cabinet 2")!]).toEqual([[1, "mug 1"], [0, "cabinet 2"]])
    expect(Discovery.matchStep("move {0} to {0}", "move mug 1 to cabinet 2")).toBeUndefined()
  })

  it.effect("mines expert trajectories, verifies on held-out episodes and admits macros that shorten them", () =>
    Effect.gen(function*() {
      const env = new TextHousehold.TextHousehold({ difficulty: "easy" })
      const expert = () => env.expertAction()
      const train = Array.from({ length: 30 }, (_, k) => Discovery.rollout(env, { seed: k, options: { taskIndex: k } }, expert))
      const held = Array.from({ length: 10 }, (_, k) => Discovery.rollout(env, { seed: k, options: { taskIndex: k, split: "seen" } }, expert))
      expect(train.every((e) => e.won)).toBe(true)
      const patterns = Discovery.minePatterns(train, { top: 5 })
      expect(patterns.length).toBeGreaterThan(0)
      const lib = yield* SkillLibrary.SkillLibrary.make()
      const found = yield* Discovery.discover(lib, env, train, held, { top: 4, maxChecks: 8 })
      const admitted = found.filter((f) => f.admitted)
      expect(admitted.length).toBeGreaterThan(0)
      expect([...lib.names()].sort()).toEqual(admitted.map((f) => f.name).sort())
      for (const f of admitted) expect(f.successRate).toBeGreaterThanOrEqual(0.8)
      // a saved macro gives back its steps and the entity types of its variables (what its option grounds with)
      for (const f of admitted) expect(Discovery.macroOf(lib.active(f.name)!)).toEqual({ steps: f.steps, varTypes: f.varTypes })
      expect(Discovery.macroOf({ ...lib.active(admitted[0]!.name)!, source: "function main() { return 1 }" })).toBeUndefined()
    }).pipe(Effect.provide(layer)), 60_000)
})

describe("Discovery.macroOption", () => {
  const fakeEnv = (task: string, admissible: ReadonlyArray<string>) => ({ task, admissibleActions: () => admissible, render: () => "" }) as unknown as TextHousehold.TextHousehold

  it("binds first-step variables to applicable instances and later ones to goal types, most goal-relevant first", () => {
    const opt = Discovery.macroOption("go-take", ["go to {0}", "take {1} from {0}"], { 1: ["cd", "mug"] }, { maxGroundings: 3 })
    expect(opt.params).toEqual(["x0", "x1"])
    const env = fakeEnv("put a cd on shelf.", ["go to desk 1", "go to shelf 1", "go to drawer 1", "look", "take mug 1 from desk 1"])
    // {1} may be cd (named in the task, a training type) or mug (visible, a training type); a tuple scores one per
    // argument whose type the task names (shelf 1 → shelf, cd): shelf-cd 2; desk-cd, shelf-mug, drawer-cd 1; ties in
    // admissible order (desk, shelf, drawer; then cd before mug)
    expect(opt.ground(env)).toEqual([["shelf 1", "cd"], ["desk 1", "cd"], ["shelf 1", "mug"]])
    expect(Discovery.macroOption("go-take", ["go to {0}", "take {1} from {0}"], { 1: ["cd", "mug"] }, { maxGroundings: 10 }).ground(env)).toEqual([
      ["shelf 1", "cd"], ["desk 1", "cd"], ["shelf 1", "mug"], ["drawer 1", "cd"], ["desk 1", "mug"], ["drawer 1", "mug"]
    ])
    // a macro whose first step fits no admissible command is not offered; a 1-step pattern never is
    expect(opt.ground(fakeEnv("put a cd on shelf.", ["look"]))).toEqual([])
    expect(Discovery.macroOption("go", ["go to {0}"]).ground(env)).toEqual([])
  })

  it.effect("expands a grounding into its steps, and the wrapper describes offered skill commands only", () =>
    Effect.gen(function*() {
      const opt = Discovery.macroOption("fetch", ["go to {0}", "take {1} from {0}", "go to {2}", "move {1} to {2}"], { 1: ["mug"], 2: ["desk"] }, { maxGroundings: 2 })
      expect(opt.expand!(["cabinet 1", "mug", "desk"])).toEqual(["go to cabinet 1", "take mug from cabinet 1", "go to desk", "move mug to desk"])
      const env = {
        ...fakeEnv("put a mug in desk.", ["go to cabinet 1", "go to desk 1", "look"]),
        reset: () => ({ observation: "", info: {} }),
        step: () => ({ observation: "", reward: 0, terminated: false, truncated: false, info: {} }),
        stateKey: () => ""
      } as unknown as TextHousehold.TextHousehold
      const lib = yield* SkillLibrary.SkillLibrary.make()
      const w = new SkillOptions.SkillOptionsEnv(env, lib, [opt])
      expect(w.describeAction("skill fetch cabinet 1 mug desk")).toBeUndefined() // not offered yet
      const adm = w.admissibleActions()
      // {0}: the two `go to` instances; {1} = mug, {2} = desk (their training types, named in the task); desk 1 first
      expect(adm).toEqual(["go to cabinet 1", "go to desk 1", "look", "skill fetch desk 1 mug desk", "skill fetch cabinet 1 mug desk"])
      expect(w.describeAction("skill fetch cabinet 1 mug desk")).toEqual(["go to cabinet 1", "take mug from cabinet 1", "go to desk", "move mug to desk"])
      expect(w.describeAction("skill fetch desk 1 mug desk")).toEqual(["go to desk 1", "take mug from desk 1", "go to desk", "move mug to desk"])
      expect(w.describeAction("go to desk 1")).toBeUndefined()
      expect(w.describeAction("look")).toBeUndefined()
      // an option without `expand` (a hand-written skill) is not described
      const hand = new SkillOptions.SkillOptionsEnv(env, lib, [{ name: "h", params: ["r"], ground: () => [["desk 1"]] }])
      expect(hand.admissibleActions()).toContain("skill h desk 1")
      expect(hand.describeAction("skill h desk 1")).toBeUndefined()
    }).pipe(Effect.provide(layer)))
})

import { describe, expect, it } from "@effect/vitest"
import { TextHousehold } from "@autodidact/envs"
import { Embedder } from "@autodidact/memory"
import { Effect, Layer } from "effect"
import { Sandbox, SkillLibrary, SkillOptions } from "../src/index.js"

const layer = Layer.mergeAll(Sandbox.layer({ timeoutMs: 10_000, poolSize: 2 }), Embedder.layerHashed())

const householdLibrary = Effect.gen(function*() {
  const lib = yield* SkillLibrary.SkillLibrary.make()
  for (const s of SkillOptions.householdSkills) yield* lib.admit(s)
  return lib
})

const parseTask = (task: string) => /^put (?:a|some) (\S+) (?:in|on) (\S+)\.$/.exec(task)

describe("SkillOptions", () => {
  it.effect("admits the example TextHousehold skills with their scripted tests", () =>
    Effect.gen(function*() {
      const lib = yield* householdLibrary
      expect(lib.names()).toEqual(["clean-object", "cool-object", "find-and-take", "heat-object", "put-in"])
      const broken = yield* Effect.flip(lib.admit({ ...SkillOptions.findAndTake, source: SkillOptions.findAndTake.source.replace("slice(5)", "slice(4)") }))
      expect((broken as SkillLibrary.AdmissionError).stage).toBe("test")
    }).pipe(Effect.provide(layer)), 60_000)

  it.effect("find-and-take then put-in solves easy pick_and_place tasks", () =>
    Effect.gen(function*() {
      const lib = yield* householdLibrary
      const env = new TextHousehold.TextHousehold({ difficulty: "easy", taskTypes: ["pick_and_place_simple"] })
      const wrapped = new SkillOptions.SkillOptionsEnv(env, lib, SkillOptions.householdOptions())
      let solved = 0
      for (let k = 0; k < 5; k++) {
        wrapped.reset({ seed: k, options: { taskIndex: k } })
        const m = parseTask(env.task)
        expect(m).not.toBeNull()
        expect(wrapped.admissibleActions()).toContain(`skill find-and-take ${m![1]}`)
        const a = yield* wrapped.step(`skill find-and-take ${m![1]}`)
        expect(a.info["skillResult"]).toMatchObject({ ok: true })
        expect(a.info["primitiveSteps"]).toBeGreaterThan(0)
        expect(wrapped.admissibleActions()).toContain(`skill put-in ${m![1]} ${m![2]}`)
        const b = yield* wrapped.step(`skill put-in ${m![1]} ${m![2]}`)
        if (b.terminated && b.reward === 1) solved++
      }
      expect(solved).toBe(5)
    }).pipe(Effect.provide(layer)), 60_000)

  it.effect("heat-object works on the real env; inadmissible act is a HostCallError; primitives pass through", () =>
    Effect.gen(function*() {
      const lib = yield* householdLibrary
      const env = new TextHousehold.TextHousehold({ difficulty: "easy", taskTypes: ["pick_heat_then_place_in_recep"] })
      const wrapped = new SkillOptions.SkillOptionsEnv(env, lib, SkillOptions.householdOptions())
      wrapped.reset({ seed: 1, options: { taskIndex: 1 } })
      const m = /^(?:put a hot|heat some) (\S+)/.exec(env.task)!
      const a = yield* wrapped.step(`skill find-and-take ${m[1]}`)
      expect(a.info["skillResult"]).toMatchObject({ ok: true })
      const h = yield* wrapped.step(`skill heat-object ${m[1]}`)
      expect(h.info["skillResult"]).toEqual({ ok: true })
      expect(env.render()).toContain("hot")
      const p = yield* wrapped.step("look")
      expect(p.info["primitiveSteps"]).toBe(1)
      yield* lib.admit({
        ...SkillOptions.putIn,
        name: "bad-act",
        source: "function main() { return act('fly to the moon') }",
        tests: [{ input: {}, expected: 1, host: { act: [1] } }]
      })
      const bad = new SkillOptions.SkillOptionsEnv(env, lib, [{ name: "bad-act", params: [], ground: () => [[]] }])
      const r = yield* bad.step("skill bad-act")
      expect(r.info["primitiveSteps"]).toBe(0)
      expect(String(r.info["skillError"])).toContain("HostCallError")
    }).pipe(Effect.provide(layer)), 60_000)
})

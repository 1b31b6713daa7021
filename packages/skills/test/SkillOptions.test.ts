import { describe, expect, it } from "@effect/vitest"
import { TextHousehold } from "@autodidact/envs"
import { Embedder } from "@autodidact/memory"
import { Effect, Layer } from "effect"
import { Discovery, Sandbox, SkillLibrary, SkillOptions, SyncSandbox } from "../src/index.js"

const layer = Layer.mergeAll(Sandbox.layer({ timeoutMs: 10_000, poolSize: 3 }), Embedder.layerHashed())

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

  it.effect("SyncSkillOptionsEnv: synchronous skill steps, primitive-step counts, EpisodeEndedError after the end", () =>
    Effect.gen(function*() {
      const lib = yield* householdLibrary
      const runner = yield* SyncSandbox.make({ timeoutMs: 5000 })
      const env = new TextHousehold.TextHousehold({ difficulty: "easy", taskTypes: ["pick_and_place_simple"] })
      const wrapped = new SkillOptions.SyncSkillOptionsEnv(env, lib, SkillOptions.householdOptions(), runner)
      let prims = 0
      for (let k = 0; k < 3; k++) {
        wrapped.reset({ seed: k, options: { taskIndex: k } })
        const m = parseTask(env.task)!
        const a = wrapped.step(`skill find-and-take ${m[1]}`)
        const b = wrapped.step(`skill put-in ${m[1]} ${m[2]}`)
        expect(b.terminated).toBe(true)
        expect(b.info["won"]).toBe(true)
        prims += Number(a.info["primitiveSteps"]) + Number(b.info["primitiveSteps"])
        // the env counted the same primitive steps
        expect(env.render()).toContain(`steps: ${Number(a.info["primitiveSteps"]) + Number(b.info["primitiveSteps"])}`)
        expect(() => wrapped.step("look")).toThrow(SkillOptions.EpisodeEndedError)
      }
      expect(wrapped.counters).toEqual({ decisions: 6, skillDecisions: 6, primitiveSteps: prims, failedSkillCalls: 0 })
      expect(prims).toBeGreaterThanOrEqual(6 * 2)
      // the Effect wrapper fails with the same typed error
      const asyncEnv = new SkillOptions.SkillOptionsEnv(env, lib, SkillOptions.householdOptions())
      asyncEnv.reset({ seed: 0, options: { taskIndex: 0 } })
      const m = parseTask(env.task)!
      yield* asyncEnv.step(`skill find-and-take ${m[1]}`)
      yield* asyncEnv.step(`skill put-in ${m[1]} ${m[2]}`)
      const err = yield* Effect.flip(asyncEnv.step("look"))
      expect(err._tag).toBe("EpisodeEndedError")
    }).pipe(Effect.provide(layer)), 60_000)

  it.effect("offers skill commands round-robin up to maxSkillActions, without duplicates or primitive look-alikes", () =>
    Effect.gen(function*() {
      const lib = yield* SkillLibrary.SkillLibrary.make()
      const env = new TextHousehold.TextHousehold({ difficulty: "easy" })
      const opts: Array<SkillOptions.SkillOption> = [
        { name: "a", params: ["p"], ground: () => [["x"], ["x"], ["y"], ["z"]] },
        { name: "b", params: ["p", "q"], ground: () => [["cabinet 1", "mug"]] }
      ]
      const w = new SkillOptions.SkillOptionsEnv(env, lib, opts, { maxSkillActions: 3 })
      w.reset({ seed: 0 })
      expect(w.skillActions()).toEqual(["skill a x", "skill b cabinet 1 mug", "skill a y"])
      expect(w.admissibleActions().slice(0, -3)).toEqual(env.admissibleActions())
      // an offered command with a spaced argument parses by lookup, not by words
      expect(w.parse("skill b cabinet 1 mug")).toEqual({ name: "b", args: { p: "cabinet 1", q: "mug" } })
      expect(new SkillOptions.SkillOptionsEnv(env, lib, opts).skillActions()).toEqual(["skill a x", "skill b cabinet 1 mug", "skill a y", "skill a z"])
    }).pipe(Effect.provide(layer)), 60_000)

  it.effect("a composite skill calls its parts by name and solves a task in one decision", () =>
    Effect.gen(function*() {
      const lib = yield* householdLibrary
      const composite = Discovery.composeSkills("fetch-and-place", ["find-and-take", "put-in"])
      yield* lib.admit(composite)
      // a composite whose part is missing fails its admission test
      const missing = yield* Effect.flip(lib.admit(Discovery.composeSkills("broken", ["no-such-skill", "put-in"])))
      expect(missing).toBeInstanceOf(SkillLibrary.AdmissionError)
      expect((missing as SkillLibrary.AdmissionError).stage).toBe("test")
      const runner = yield* SyncSandbox.make({ timeoutMs: 5000 })
      const env = new TextHousehold.TextHousehold({ difficulty: "easy", taskTypes: ["pick_and_place_simple"] })
      const option: SkillOptions.SkillOption = { name: "fetch-and-place", params: ["object", "receptacle"], ground: () => [] }
      const w = new SkillOptions.SyncSkillOptionsEnv(env, lib, [option], runner)
      let solved = 0
      for (let k = 0; k < 3; k++) {
        w.reset({ seed: k, options: { taskIndex: k } })
        const m = parseTask(env.task)!
        const r = w.step(`skill fetch-and-place ${m[1]} ${m[2]}`)
        expect(r.info["skillResult"]).toMatchObject({ ok: true, parts: 2 })
        if (r.terminated && r.info["won"] === true) solved++
      }
      expect(solved).toBe(3)
      expect(w.counters.decisions).toBe(3)
    }).pipe(Effect.provide(layer)), 60_000)
})

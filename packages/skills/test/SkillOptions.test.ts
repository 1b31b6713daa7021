import { describe, expect, it } from "@effect/vitest"
import { TextHousehold } from "@autodidact/envs"
import { Embedder } from "@autodidact/memory"
import { Effect, Layer } from "effect"
import { Discovery, HouseholdSkills, Sandbox, SkillLibrary, SkillOptions, SyncSandbox } from "../src/index.js"

const layer = Layer.mergeAll(Sandbox.layer({ timeoutMs: 10_000, poolSize: 3 }), Embedder.layerHashed())

const householdLibrary = Effect.gen(function*() {
  const lib = yield* SkillLibrary.SkillLibrary.make()
  for (const s of HouseholdSkills.householdSkills) yield* lib.admit(s)
  return lib
})

const parseTask = (task: string) => /^put (?:a|some) (\S+) (?:in|on) (\S+)\.$/.exec(task)

describe("SkillOptions", () => {
  it("keeps the moved household names as aliases of HouseholdSkills' (same objects)", () => {
    expect(SkillOptions.householdSkills).toBe(HouseholdSkills.householdSkills)
    expect(SkillOptions.householdOptions).toBe(HouseholdSkills.householdOptions)
    expect(SkillOptions.findAndTake).toBe(HouseholdSkills.findAndTake)
    expect(SkillOptions.putIn).toBe(HouseholdSkills.putIn)
  })

  it.effect("admits the example TextHousehold skills with their scripted tests", () =>
    Effect.gen(function*() {
      const lib = yield* householdLibrary
      expect(lib.names()).toEqual(["clean-object", "cool-object", "find-and-take", "heat-object", "put-in"])
      const broken = yield* Effect.flip(lib.admit({ ...HouseholdSkills.findAndTake, source: HouseholdSkills.findAndTake.source.replace("slice(5)", "slice(4)") }))
      expect((broken as SkillLibrary.AdmissionError).stage).toBe("test")
    }).pipe(Effect.provide(layer)), 60_000)

  it.effect("find-and-take then put-in solves easy pick_and_place tasks", () =>
    Effect.gen(function*() {
      const lib = yield* householdLibrary
      const env = new TextHousehold.TextHousehold({ difficulty: "easy", taskTypes: ["pick_and_place_simple"] })
      const wrapped = new SkillOptions.SkillOptionsEnv(env, lib, HouseholdSkills.householdOptions())
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
      const wrapped = new SkillOptions.SkillOptionsEnv(env, lib, HouseholdSkills.householdOptions())
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
        ...HouseholdSkills.putIn,
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
      const wrapped = new SkillOptions.SyncSkillOptionsEnv(env, lib, HouseholdSkills.householdOptions(), runner)
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
      const asyncEnv = new SkillOptions.SkillOptionsEnv(env, lib, HouseholdSkills.householdOptions())
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
      // addOption: offered from the next state on, after the others; the constructor's list is copied, not changed
      const grown = new SkillOptions.SkillOptionsEnv(env, lib, opts.slice(0, 1))
      grown.reset({ seed: 0 })
      expect(grown.skillActions()).toEqual(["skill a x", "skill a y", "skill a z"])
      grown.addOption(opts[1]!)
      expect(grown.skillActions()).toEqual(["skill a x", "skill b cabinet 1 mug", "skill a y", "skill a z"])
      expect(grown.options.map((o) => o.name)).toEqual(["a", "b"])
      expect(opts.length).toBe(2)
      expect(grown.parse("skill b cabinet 1 mug")).toEqual({ name: "b", args: { p: "cabinet 1", q: "mug" } })
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

  it.effect("maskFailedSkills: a skill command that failed in a state is not offered there again this episode", () =>
    Effect.gen(function*() {
      const lib = yield* SkillLibrary.SkillLibrary.make()
      const spec = (name: string, source: string) => ({
        name,
        description: name,
        parameters: { type: "object" },
        result: { type: "object" },
        source,
        tests: [{ input: {}, expected: { ok: false }, host: { act: [{}], observe: [{ admissible: ["look"] }] } }],
        provenance: { author: "test" }
      })
      // fails without a step; fails after one step (a macro whose second step had no fitting command); never fails
      yield* lib.admit(spec("idle", "function main() { return { ok: false } }"))
      yield* lib.admit(spec("step-then-fail", "function main() { var o = observe(); act(o.admissible.filter(function (a) { return a.indexOf('go to ') === 0 })[0] || 'look'); return { ok: false } }"))
      yield* lib.admit({ ...spec("fine", "function main() { observe(); return { ok: true } }"), tests: [{ input: {}, expected: { ok: true }, host: { observe: [{}] } }] })
      const runner = yield* SyncSandbox.make({ timeoutMs: 5000 })
      const opts: Array<SkillOptions.SkillOption> = ["idle", "step-then-fail", "fine"].map((name) => ({ name, params: [], ground: () => [[]] }))
      const env = new TextHousehold.TextHousehold({ difficulty: "easy" })
      const masked = new SkillOptions.SyncSkillOptionsEnv(env, lib, opts, runner, { maskFailedSkills: true })
      masked.reset({ seed: 3, options: { taskIndex: 3 } })
      const s0 = env.stateKey()
      expect(masked.skillActions()).toEqual(["skill idle", "skill step-then-fail", "skill fine"])

      // no step, so the state is unchanged: `idle` is masked here; a call that succeeds (`fine`, 0 steps but ok) is not
      masked.step("skill idle")
      expect(env.stateKey()).toBe(s0)
      expect(masked.skillActions()).toEqual(["skill step-then-fail", "skill fine"])
      expect(masked.admissibleActions().slice(0, -2)).toEqual(env.admissibleActions())

      // one primitive step and `ok: false`, repeated: the skill walks to the first `go to` target each time, so the
      // agent bounces between two receptacles; it stays offered exactly while the current state is not one it failed
      // from, and the bounce is cut as soon as a state repeats
      const failedFrom: Array<string> = []
      for (let i = 0; i < 10 && masked.skillActions().includes("skill step-then-fail"); i++) {
        expect(failedFrom).not.toContain(env.stateKey())
        failedFrom.push(env.stateKey())
        const r = masked.step("skill step-then-fail")
        expect(r.info["primitiveSteps"]).toBe(1)
      }
      expect(failedFrom.length).toBeGreaterThanOrEqual(2)
      expect(failedFrom.length).toBeLessThanOrEqual(3)
      expect(failedFrom).toContain(env.stateKey())
      expect(masked.skillActions()).toContain("skill fine")

      // a text command still runs even when masked; reset clears the mask
      const forced = masked.step("skill idle")
      expect(forced.info["skillResult"]).toEqual({ ok: false })
      masked.reset({ seed: 3, options: { taskIndex: 3 } })
      expect(masked.skillActions()).toEqual(["skill idle", "skill step-then-fail", "skill fine"])

      // without the option nothing is masked
      const plain = new SkillOptions.SyncSkillOptionsEnv(env, lib, opts, runner)
      plain.reset({ seed: 3, options: { taskIndex: 3 } })
      plain.step("skill idle")
      expect(plain.skillActions()).toEqual(["skill idle", "skill step-then-fail", "skill fine"])
      expect(plain.counters.failedSkillCalls).toBe(1)
    }).pipe(Effect.provide(layer)), 60_000)
})

describe("SkillOptions.describeAny", () => {
  it("asks each wrapper in order, the first that knows the command answers; wrappers added later are consulted", () => {
    const a = { describeAction: (c: string) => (c === "skill a" ? ["go to x 1", "take y 1 from x 1"] : undefined) }
    const b = { describeAction: (c: string) => (c.startsWith("skill") ? ["look"] : undefined) }
    const wrappers: Array<typeof a> = [a]
    const describe = SkillOptions.describeAny(wrappers)
    expect(describe("skill a")).toEqual(["go to x 1", "take y 1 from x 1"])
    expect(describe("skill b")).toBeUndefined()
    wrappers.push(b)
    expect(describe("skill b")).toEqual(["look"])
    expect(describe("skill a")).toEqual(["go to x 1", "take y 1 from x 1"])
    expect(describe("look")).toBeUndefined()
  })
})

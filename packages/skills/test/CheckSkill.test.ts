import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SokobanLevel, type TextEnv, TextHousehold, TextSokoban } from "@autodidact/envs"
import { Effect, Schema } from "effect"
import * as Skills from "../src/index.js"
import { CheckSkill, HouseholdSkills, type Sandbox, Skill, SkillLibrary, SokobanSkills, SyncSandbox } from "../src/index.js"

/** Every built-in skill: each SkillSpec (or array of them) exported by any module of the package, by name. */
const builtIns = (): Array<Skill.SkillSpec> => {
  const isSpec = Schema.is(Skill.SkillSpec)
  const out = new Map<string, Skill.SkillSpec>()
  for (const mod of Object.values(Skills) as Array<Record<string, unknown>>) {
    for (const v of Object.values(mod)) {
      for (const s of Array.isArray(v) ? v : [v]) if (isSpec(s)) out.set(s.name, s)
    }
  }
  return [...out.values()]
}

/** A small valid skill to break one property at a time. */
const good: Skill.SkillSpec = {
  name: "double",
  description: "double a number",
  parameters: { type: "object", properties: { x: { type: "number" } }, required: ["x"] },
  result: { type: "object", properties: { y: { type: "number" } }, required: ["y"] },
  source: "function main(a) { if (a === null || typeof a !== 'object' || typeof a.x !== 'number') throw new TypeError('x must be a number'); return { y: 2 * a.x } }",
  tests: [{ input: { x: 2 }, expected: { y: 4 } }, { name: "negative", input: { x: -3 }, expected: { y: -6 } }],
  provenance: { author: "test" }
}

let runner: SyncSandbox.SyncSandbox
let fast: SyncSandbox.SyncSandbox
let library: SkillLibrary.OpenLibrary

beforeAll(async () => {
  runner = await Effect.runPromise(SyncSandbox.make({ timeoutMs: 5000 }))
  fast = await Effect.runPromise(SyncSandbox.make({ timeoutMs: 100 }))
  library = await SkillLibrary.SkillLibrary.open({
    sandbox: { poolSize: 1, timeoutMs: 5000 },
    verifier: (spec) => Effect.succeed(spec.name !== "rejected-by-verifier")
  })
}, 60_000)
afterAll(async () => {
  await library?.close()
})

/** The findings of a check that must fail. */
const findingsOf = async (spec: Skill.SkillSpec, options: CheckSkill.CheckSkillOptions = { runner }): Promise<ReadonlyArray<string>> => {
  const e = await CheckSkill.checkSkill(spec, options).then(() => undefined, (e: unknown) => e)
  expect(e).toBeInstanceOf(CheckSkill.SkillCheckError)
  const err = e as CheckSkill.SkillCheckError
  expect(err.skill).toBe(spec.name)
  expect(err.message).toContain(err.findings[0])
  return err.findings
}
const expectFinding = (findings: ReadonlyArray<string>, property: CheckSkill.Property, fragment: string) =>
  expect(findings.filter((f) => f.startsWith(`${property}: `)).join("\n"), findings.join("\n")).toContain(fragment)

describe("checkSkill", () => {
  it("passes every built-in skill, admitted by the library, with its groundings as options", async () => {
    const specs = builtIns()
    // the two skill families the package ships are all found
    expect(specs.map((s) => s.name)).toEqual(expect.arrayContaining(["find-and-take", "heat-object", "cool-object", "clean-object", "put-in", "walk-to", "push-box-along-path"]))
    const household = new TextHousehold.TextHousehold({ difficulty: "easy", taskTypes: ["pick_and_place_simple"] })
    household.reset({ seed: 0, options: { taskIndex: 0 } })
    const sokoban = new TextSokoban.TextSokoban({ size: 6 })
    sokoban.reset({ options: { level: SokobanLevel.fromRows(["######", "#@   #", "# $  #", "#    #", "#   .#", "######"]) } })
    const groundings: ReadonlyArray<{ tag: string; env: TextEnv.TextEnv; options: ReadonlyArray<Skill.SkillOption> }> = [
      { tag: "TextHousehold-v0", env: household, options: HouseholdSkills.householdOptions() },
      { tag: "Sokoban", env: sokoban, options: SokobanSkills.sokobanOptions({ walkTo: true }) }
    ]
    let grounded = 0
    for (const spec of specs) {
      const g = groundings.find((x) => spec.tags?.includes(x.tag))
      const asOptions = g?.options.filter((o) => o.name === spec.name)
      const report = await CheckSkill.checkSkill(spec, { runner, library, ...(g !== undefined ? { asOptions, env: g.env } : {}) })
      expect(report.skill).toBe(spec.name)
      if (g !== undefined) grounded += asOptions!.length
      expect(report.checked).toEqual(CheckSkill.properties.filter((p) => p !== "option" || g !== undefined))
      expect(report.tests).toBe(spec.tests.length)
      // compile (2) + three runs per test + the probes
      expect(report.calls).toBe(2 + 3 * spec.tests.length + report.probes)
    }
    // every grounding the two option families offer was checked (household: 5, sokoban with walk-to: 3)
    expect(grounded).toBe(8)
  }, 60_000)

  it("passes a small valid skill with its own runner and without a library", async () => {
    const report = await CheckSkill.checkSkill(good)
    expect(report.checked).not.toContain("admission")
    expect(report.probes).toBe(6 + 2)
  }, 30_000)

  it("in a process where no effect has run yet (Effect's own fiber global is not the skill's doing)", async () => {
    // what a generated skill test sees when it is the only file: Effect adds `~effect/Fiber/currentFiber` to
    // globalThis the first time a fiber runs asynchronously
    const key = "~effect/Fiber/currentFiber"
    const g = globalThis as Record<string, unknown>
    const saved = g[key]
    delete g[key]
    try {
      await expect(CheckSkill.checkSkill(good)).resolves.toMatchObject({ skill: good.name })
    } finally {
      g[key] = saved
    }
  }, 30_000)

  it("metadata: a bad name, a non-object parameters schema, a required name that is no property, no tests", async () => {
    const f = await findingsOf({
      ...good,
      name: "bad name!",
      parameters: { type: "array", properties: { x: { type: "number" } }, required: ["x", "z"] }
    })
    expectFinding(f, "metadata", `invalid skill name "bad name!"`)
    expectFinding(f, "metadata", `parameters.type is "array"`)
    expectFinding(f, "metadata", `parameters.required names "z"`)
    expectFinding(await findingsOf({ ...good, tests: [] }), "metadata", "no tests")
    expectFinding(await findingsOf({ ...good, description: 42 } as unknown as Skill.SkillSpec), "metadata", "does not decode as a SkillSpec")
  })

  it("compile: a syntax error, and a source without the entry function", async () => {
    expectFinding(await findingsOf({ ...good, source: "function main(a { return 1 }" }), "compile", "SkillCompileError")
    expectFinding(await findingsOf({ ...good, source: "function other(a) { return { y: 2 * a.x } }" }), "compile", `entry function "main"`)
  })

  it("tests: a test whose expected value the skill does not return", async () => {
    const f = await findingsOf({ ...good, tests: [{ input: { x: 2 }, expected: { y: 5 } }] })
    expectFinding(f, "tests", `expected {"y":5}, got {"y":4}`)
  })

  it("parameters: no test input conforms to the parameters schema", async () => {
    const f = await findingsOf({ ...good, tests: [{ input: { x: "2" }, expected: { y: 4 } }], source: "function main(a) { return { y: 2 * a.x } }" })
    expectFinding(f, "parameters", `$.x: "2" is not of type number`)
  })

  it("result: a test result outside the result schema", async () => {
    const f = await findingsOf({ ...good, result: { type: "object", properties: { y: { type: "integer", minimum: 0 } }, required: ["y"] } })
    expectFinding(f, "result", "test \"negative\" returned {\"y\":-6}")
    expectFinding(f, "result", "-6 < minimum 0")
  })

  it("limits: a test that loops past the time limit", async () => {
    const f = await findingsOf({ ...good, source: "function main(a) { while (a.x > 0) {} return { y: 2 * a.x } }" }, { runner: fast })
    expectFinding(f, "limits", "SkillTimeoutError")
  })

  it("determinism: host calls that depend on Math.random", async () => {
    const f = await findingsOf({
      ...good,
      source: "function main(a) { for (var i = 0; i < 24; i++) if (Math.random() < 0.5) observe(i); return { y: 2 * a.x } }",
      tests: [{ input: { x: 2 }, expected: { y: 4 }, host: { observe: Array.from({ length: 24 }, () => null) } }]
    })
    expect(f.some((x) => x.startsWith("tests: ")), f.join("\n")).toBe(false)
    expectFinding(f, "determinism", "ran twice")
  })

  it("bad-arguments: a wrong-typed argument answered with a value outside the result schema, or a hang", async () => {
    const f = await findingsOf({ ...good, source: "function main(a) { if (typeof a.x !== 'number') return 'oops'; return { y: 2 * a.x } }" })
    expectFinding(f, "bad-arguments", `bad arguments {} returned "oops"`)
    const hang = await findingsOf({ ...good, source: "function main(a) { while (a.x === null) {} return { y: 2 * a.x } }" }, { runner: fast })
    expectFinding(hang, "bad-arguments", `bad arguments {"x":null}: SkillTimeoutError`)
  })

  it("isolation: a result that depends on state a reused runner carries between calls", async () => {
    // a runner that keeps one global across calls (as a reused QuickJS context would) and a skill that counts in it
    let previous = 0
    const leaky: CheckSkill.Runner = {
      run: (request: Sandbox.RunRequest) =>
        request.compileOnly === true ? runner.run(request) : runner.run({ ...request, source: `var seen = ${previous++};\n${request.source}` })
    }
    const f = await findingsOf({
      ...good,
      source: "function main(a) { return { y: 2 * a.x + (seen > 3 ? 1 : 0) } }"
    }, { runner: leaky })
    expectFinding(f, "isolation", "run after the later tests")
  })

  it("isolation: a host global added during the check", async () => {
    const sneaky: CheckSkill.Runner = {
      run: (request: Sandbox.RunRequest) => {
        ;(globalThis as Record<string, unknown>)["__checkSkillLeak"] = 1
        return runner.run(request)
      }
    }
    try {
      expectFinding(await findingsOf(good, { runner: sneaky }), "isolation", `added ["__checkSkillLeak"]`)
    } finally {
      delete (globalThis as Record<string, unknown>)["__checkSkillLeak"]
    }
  })

  it("option: a grounding with another name, an unknown parameter, tuples of the wrong shape, or one that steps the env", async () => {
    const env = new TextHousehold.TextHousehold({ difficulty: "easy", taskTypes: ["pick_and_place_simple"] })
    env.reset({ seed: 1, options: { taskIndex: 1 } })
    const f = await findingsOf(good, {
      runner,
      env,
      asOptions: [
        { name: "triple", params: ["x"], ground: () => [["1"]] },
        { name: "double", params: ["x", "colour"], ground: () => [["1", "red"]] },
        { name: "double", params: ["x"], ground: () => [[1 as unknown as string]] },
        { name: "double", params: ["x"], ground: (e) => (e.step(e.admissibleActions()[0]!), [["2"]]), expand: () => [7 as unknown as string] }
      ]
    })
    expectFinding(f, "option", `option 0 ("triple") is named "triple", not "double"`)
    expectFinding(f, "option", `option 1 ("double") has parameter "colour"`)
    expectFinding(f, "option", `option 2 ("double"): ground(env) returned [1], not a tuple of 1 strings`)
    expectFinding(f, "option", `option 3 ("double"): expand(["2"]) returned [7]`)
    expectFinding(f, "isolation", `option 3 ("double"): grounding changed the environment`)
    expect(f.some((x) => x.startsWith("isolation: option 2")), f.join("\n")).toBe(false)
  })

  it("admission: the library's verifier refuses it", async () => {
    const f = await findingsOf({ ...good, name: "rejected-by-verifier" }, { runner, library })
    expectFinding(f, "admission", "verifier")
    expect(f.every((x) => x.startsWith("admission: ")), f.join("\n")).toBe(true)
  })
})

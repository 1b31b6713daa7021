import { describe, expect, it } from "@effect/vitest"
import { TextHousehold } from "@autodidact/envs"
import { Embedder } from "@autodidact/memory"
import { Effect, Layer, Stream } from "effect"
import { AiError, LanguageModel, type Prompt, type Response } from "effect/ai"
import { Discovery, HouseholdSkills, Sandbox, type Skill, SkillLibrary, SkillOptions, SkillWriter, SyncSandbox } from "../src/index.js"

const layer = Layer.mergeAll(Sandbox.layer({ timeoutMs: 5000, poolSize: 2 }), Embedder.layerHashed())

// ---------------------------------------------------------------------------------------------------------------------
// A scripted `LanguageModel`: each answer is computed from the prompt text (and the call number).

const messageText = (m: Prompt.Message): string =>
  typeof m.content === "string"
    ? m.content
    : (m.content as ReadonlyArray<{ readonly type: string; readonly text?: string }>).map((p) => (p.type === "text" ? p.text ?? "" : "")).join("")

type Answer = string | { readonly fail: AiError.AiErrorReason }

const scripted = (answer: (prompt: string, call: number) => Answer) => {
  const prompts: Array<string> = []
  const layer = Layer.effect(
    LanguageModel.LanguageModel,
    LanguageModel.make({
      generateText: (opts) =>
        Effect.gen(function*() {
          const text = opts.prompt.content.map((m) => `[${m.role}]\n${messageText(m)}`).join("\n")
          prompts.push(text)
          const a = answer(text, prompts.length)
          if (typeof a !== "string") return yield* AiError.make({ module: "Scripted", method: "generateText", reason: a.fail })
          return [
            { type: "text", text: a },
            {
              type: "finish",
              reason: "stop",
              usage: {
                inputTokens: { total: Math.ceil(text.length / 4), uncached: undefined, cacheRead: undefined, cacheWrite: undefined },
                outputTokens: { total: Math.ceil(a.length / 4), text: undefined, reasoning: undefined }
              }
            }
          ] satisfies Array<Response.PartEncoded>
        }),
      streamText: () => Stream.empty
    })
  )
  return { layer, prompts }
}

// ---------------------------------------------------------------------------------------------------------------------
// Skills the scripted model proposes

const PICK = `function pick(list, prefix) { for (var i = 0; i < list.length; i++) if (list[i].indexOf(prefix) === 0) return list[i]; return null; }\n`

/** Does not compile. */
const BROKEN = `function main(a) {\n  var o = observe();\n  return act("take " + ;\n}`

/** Walks and takes, but returns the whole command instead of the object (its own test catches it). */
const OFF_BY_WORD = PICK + `function main(a) {
  var o = observe();
  var t = pick(o.admissible, "take " + a.object + " ");
  if (!t) return { ok: false, reason: "not here" };
  act(t);
  return { ok: true, taken: t.split(" from ")[0] };
}`

/** Correct: visit receptacles (opening closed ones) until an object of the type can be taken. */
const CORRECT = PICK + `function main(a) {
  var o = observe();
  if (o.done) return { ok: false, reason: "done" };
  var t = pick(o.admissible, "take " + a.object + " ");
  if (!t) {
    var targets = o.admissible.filter(function (s) { return s.indexOf("go to ") === 0; }).map(function (s) { return s.slice(6); });
    for (var i = 0; i < targets.length && !t; i++) {
      var r = act("go to " + targets[i]);
      if (r.done) return { ok: false, reason: "done" };
      if (r.admissible.indexOf("open " + targets[i]) >= 0) r = act("open " + targets[i]);
      t = pick(r.admissible, "take " + a.object + " ");
    }
  }
  if (!t) return { ok: false, reason: "not found" };
  act(t);
  return { ok: true, taken: t.slice(5).split(" from ")[0] };
}`

/** Passes its own (happy-path) test but claims success without taking anything when nothing is at hand. */
const LIAR = PICK + `function main(a) {
  var o = observe();
  var t = pick(o.admissible, "take " + a.object + " ");
  if (t) { act(t); return { ok: true, taken: t.slice(5).split(" from ")[0] }; }
  return { ok: true, taken: a.object + " 1" };
}`

const tests: Skill.SkillSpec["tests"] = [
  {
    name: "takes it where it stands",
    input: { object: "apple" },
    expected: { ok: true, taken: "apple 1" },
    host: {
      observe: [{ observation: "", admissible: ["go to fridge 1", "take apple 1 from countertop 1"], task: "", done: false }],
      act: [{ observation: "You pick up the apple 1.", reward: 0, admissible: [], done: false, won: false }]
    }
  }
]
const walkTest: Skill.SkillSpec["tests"][number] = {
  name: "opens the fridge on the way",
  input: { object: "egg" },
  expected: { ok: true, taken: "egg 2" },
  host: {
    observe: [{ observation: "", admissible: ["go to countertop 1", "go to fridge 1", "look"], task: "", done: false }],
    act: [
      { admissible: ["go to fridge 1", "look"], done: false },
      { admissible: ["go to countertop 1", "open fridge 1"], done: false },
      { admissible: ["close fridge 1", "take egg 2 from fridge 1"], done: false },
      { admissible: [], done: false }
    ]
  }
}

const proposal = (source: string, extra: Record<string, unknown> = {}) => ({
  name: "fetch-object",
  description: "find an object of a type by visiting receptacles, opening closed ones, and take it",
  parameters: { type: "object", properties: { object: { type: "string" } }, required: ["object"] },
  result: { type: "object" },
  source,
  tests: source === CORRECT ? [...tests, walkTest] : tests,
  ...extra
})
const fenced = (source: string, extra: Record<string, unknown> = {}) =>
  `Here is the skill.\n\`\`\`json\n${JSON.stringify(proposal(source, extra), null, 2)}\n\`\`\`\nIt should work.`

const parseTask = (task: string) => /^put (?:a|some) (\S+) (?:in|on) (\S+)\.$/.exec(task)
const easyPick = () => new TextHousehold.TextHousehold({ difficulty: "easy", taskTypes: ["pick_and_place_simple"] })
const holding = (env: TextHousehold.TextHousehold) => /holding: ([^;]+);/.exec(env.render() ?? "")?.[1]

// ---------------------------------------------------------------------------------------------------------------------

describe("SkillWriter.write", () => {
  it.effect("feeds a compile error, then a failing test, back to the model; the third version is admitted and works on TextHousehold", () =>
    Effect.gen(function*() {
      const lib = yield* SkillLibrary.SkillLibrary.make()
      yield* lib.admit(HouseholdSkills.findAndTake)
      const env = easyPick()
      const trajectories = [0, 1].map((k) => Discovery.rollout(env, { seed: k, options: { taskIndex: k } }, () => env.expertAction()))
      expect(trajectories.every((t) => t.won)).toBe(true)
      const m = scripted((prompt) =>
        prompt.includes(`rejected at stage "test"`) ? fenced(CORRECT) : prompt.includes(`rejected at stage "compile"`) ? fenced(OFF_BY_WORD) : fenced(BROKEN)
      )
      const out = yield* SkillWriter.write(lib, {
        task: "find an object of a given type and pick it up",
        environment: TextHousehold.SYSTEM_PROMPT,
        trajectories,
        tags: ["TextHousehold-v0"]
      }, { model: "scripted-test" }).pipe(Effect.provide(m.layer))

      // three prompts, three attempts; the first two failed at compile, then test
      expect(m.prompts).toHaveLength(3)
      expect(out.attempts.map((a) => a.error?.stage)).toEqual(["compile", "test", undefined])
      // the first prompt: task, guest API, env rules, the retrieved example skill's source, the expert trajectories
      const first = m.prompts[0]!
      expect(first).toContain("find an object of a given type and pick it up")
      expect(first).toContain("act(command)")
      expect(first).toContain(TextHousehold.SYSTEM_PROMPT)
      expect(first).toContain("### find-and-take")
      expect(first).toContain(`function main(a) {\n  var x = a.object;`)
      expect(first).toContain(`### Trajectory seed-0/task-0 (success)`)
      expect(first).toContain(`1. > ${trajectories[0]!.actions[0]}`)
      expect(first).not.toContain("rejected at stage")
      // the compile error text and the broken code reach the second prompt
      const compileError = out.attempts[0]!.error!.message
      expect(compileError.length).toBeGreaterThan(0)
      expect(m.prompts[1]).toContain(compileError)
      expect(m.prompts[1]).toContain(BROKEN)
      // the failing test's expected vs actual reach the third prompt, with the code and the earlier failure
      expect(out.attempts[1]!.error!.message).toBe(`takes it where it stands: expected {"ok":true,"taken":"apple 1"}, got {"ok":true,"taken":"take apple 1"}`)
      expect(m.prompts[2]).toContain(`expected {"ok":true,"taken":"apple 1"}, got {"ok":true,"taken":"take apple 1"}`)
      expect(m.prompts[2]).toContain(OFF_BY_WORD)
      expect(m.prompts[2]).toContain("Earlier failures:\n- compile:")
      // admitted with the writer's provenance, tokens recorded
      expect(out.admitted.version).toBe(1)
      expect(out.admitted.spec.source).toBe(CORRECT)
      expect(out.admitted.spec.provenance).toEqual({
        author: "llm:scripted-test",
        episodeId: "seed-0/task-0,seed-1/task-1",
        note: "SkillWriter attempt 3: find an object of a given type and pick it up"
      })
      expect(out.admitted.spec.tags).toEqual(["TextHousehold-v0"])
      expect(out.attempts[2]!.inputTokens).toBe(Math.ceil(m.prompts[2]!.length / 4))
      expect(out.attempts.every((a) => a.modelCalls === 1 && a.promptChars > 1000)).toBe(true)
      expect(lib.names()).toEqual(["fetch-object", "find-and-take"])

      // the admitted skill runs through the library on real TextHousehold-v0 episodes
      const runner = yield* SyncSandbox.make({ timeoutMs: 5000 })
      const wrapped = new SkillOptions.SyncSkillOptionsEnv(env, lib, [{
        name: "fetch-object",
        params: ["object"],
        ground: (e) => HouseholdSkills.householdVocabulary(e).objects.map((o) => [o])
      }], runner)
      for (let k = 0; k < 3; k++) {
        wrapped.reset({ seed: k, options: { taskIndex: k } })
        const object = parseTask(env.task)![1]!
        expect(holding(env)).toBe("nothing")
        expect(wrapped.admissibleActions()).toContain(`skill fetch-object ${object}`)
        const r = wrapped.step(`skill fetch-object ${object}`)
        const result = r.info["skillResult"] as { ok: boolean; taken: string }
        expect(result.ok).toBe(true)
        expect(result.taken).toMatch(new RegExp(`^${object} \\d+$`))
        expect(holding(env)).toBe(result.taken)
        expect(r.info["primitiveSteps"]).toBeGreaterThanOrEqual(2)
      }
    }).pipe(Effect.provide(layer)), 60_000)

  it.effect("a model that never succeeds: typed failure after maxAttempts with every error; the working version stays", () =>
    Effect.gen(function*() {
      const lib = yield* SkillLibrary.SkillLibrary.make()
      const working = yield* lib.admit({ ...proposal(CORRECT), provenance: { author: "me" } } as Skill.SkillSpec)
      const m = scripted(() => fenced(OFF_BY_WORD))
      const e = yield* Effect.flip(SkillWriter.write(lib, { task: "take an object" }, { maxAttempts: 3, examples: 0 }).pipe(Effect.provide(m.layer)))
      expect(e._tag).toBe("SkillWriterError")
      if (e._tag !== "SkillWriterError") return
      expect(e.reason).toBe("exhausted")
      expect(e.attempt).toBe(3)
      expect(m.prompts).toHaveLength(3)
      expect(e.attempts).toHaveLength(3)
      expect(e.errors).toHaveLength(3)
      e.errors.forEach((line, i) => expect(line).toBe(`attempt ${i + 1} (test): takes it where it stands: expected {"ok":true,"taken":"apple 1"}, got {"ok":true,"taken":"take apple 1"}`))
      expect(e.message).toContain("no skill admitted after 3 attempt(s)")
      // every attempt decoded a spec; none replaced the working version
      expect(e.attempts.every((a) => a.spec?.source === OFF_BY_WORD)).toBe(true)
      expect(lib.names()).toEqual(["fetch-object"])
      expect(lib.get("fetch-object")!.versions).toHaveLength(1)
      expect(lib.active("fetch-object")).toEqual(working.spec)
      // examples: 0 → no retrieval section
      expect(m.prompts[0]).not.toContain("Existing skills")
    }).pipe(Effect.provide(layer)), 60_000)

  it.effect("garbage and non-JSON answers are parse/decode errors fed back; a JSON object with a separate js block works", () =>
    Effect.gen(function*() {
      const lib = yield* SkillLibrary.SkillLibrary.make()
      const { source: _source, ...noSource } = proposal(CORRECT)
      const m = scripted((_prompt, call) =>
        call === 1
          ? "Sorry, I cannot write code today."
          : call === 2
          ? "```json\n{ name: fetch-object, source: function main() {} }\n```"
          : call === 3
          ? JSON.stringify({ ...proposal(CORRECT), tests: "none" })
          : `${JSON.stringify({ ...noSource, name: "whatever" })}\n\n\`\`\`js\n${CORRECT}\n\`\`\``
      )
      const out = yield* SkillWriter.write(lib, { task: "take an object", name: "grab" }).pipe(Effect.provide(m.layer))
      expect(out.attempts.map((a) => a.error?.stage)).toEqual(["parse", "parse", "decode", undefined])
      expect(out.attempts[0]!.error!.message).toBe("the answer contains no JSON object")
      expect(out.attempts[1]!.error!.message).toMatch(/^invalid JSON: /)
      expect(m.prompts[1]).toContain("the answer contains no JSON object")
      expect(m.prompts[1]).toContain("Sorry, I cannot write code today.")
      expect(m.prompts[2]).toContain(out.attempts[1]!.error!.message)
      expect(out.attempts[2]!.error!.message).toContain("tests")
      expect(m.prompts[3]).toContain(out.attempts[2]!.error!.message)
      // the forced name wins; the source came from the js fence; no model id → llm:writer
      expect(out.admitted.spec.name).toBe("grab")
      expect(out.admitted.spec.source).toBe(CORRECT)
      expect(out.admitted.spec.provenance.author).toBe("llm:writer")
      expect(out.admitted.spec.provenance.episodeId).toBeUndefined()
      expect(lib.names()).toEqual(["grab"])
      const got = yield* lib.call("grab", { object: "egg" }, {
        observe: () => ({ admissible: ["take egg 3 from table 1"], done: false }),
        act: () => ({ admissible: [], done: false })
      })
      expect(got).toEqual({ ok: true, taken: "egg 3" })
    }).pipe(Effect.provide(layer)), 60_000)

  it.live("retries retryable AiErrors with backoff, then surfaces a typed error naming the attempt", () =>
    Effect.gen(function*() {
      const lib = yield* SkillLibrary.SkillLibrary.make()
      const fast = { baseDelayMs: 1, maxDelayMs: 5, examples: 0 }
      // two rate limits, then an answer: one attempt of three calls
      const flaky = scripted((_p, call) => (call <= 2 ? { fail: new AiError.RateLimitError({}) } : fenced(CORRECT)))
      const ok = yield* SkillWriter.write(lib, { task: "take an object" }, { ...fast, modelRetries: 2 }).pipe(Effect.provide(flaky.layer))
      expect(ok.attempts).toHaveLength(1)
      expect(ok.attempts[0]!.modelCalls).toBe(3)
      expect(ok.admitted.version).toBe(1)
      // always rate-limited: 1 + 1 retries, then SkillWriterError "model" at attempt 1
      const down = scripted(() => ({ fail: new AiError.RateLimitError({}) }))
      const e1 = yield* Effect.flip(SkillWriter.write(lib, { task: "take an object" }, { ...fast, modelRetries: 1 }).pipe(Effect.provide(down.layer)))
      expect(down.prompts).toHaveLength(2)
      expect(e1._tag).toBe("SkillWriterError")
      if (e1._tag !== "SkillWriterError") return
      expect(e1.reason).toBe("model")
      expect(e1.attempt).toBe(1)
      expect(AiError.isAiError(e1.cause)).toBe(true)
      expect(e1.errors).toHaveLength(1)
      expect(e1.errors[0]).toMatch(/^attempt 1 \(model, 2 call\(s\), retryable\): /)
      // a non-retryable error in attempt 2 (after a compile error in attempt 1) fails at once, naming attempt 2
      const auth = scripted((_p, call) => (call === 1 ? fenced(BROKEN) : { fail: new AiError.AuthenticationError({ kind: "InvalidKey" }) }))
      const e2 = yield* Effect.flip(SkillWriter.write(lib, { task: "take an object" }, { ...fast, modelRetries: 3 }).pipe(Effect.provide(auth.layer)))
      expect(auth.prompts).toHaveLength(2)
      if (e2._tag !== "SkillWriterError") return expect.unreachable()
      expect(e2.reason).toBe("model")
      expect(e2.attempt).toBe(2)
      expect(e2.errors[0]).toMatch(/^attempt 1 \(compile\): /)
      expect(e2.errors[1]).toMatch(/^attempt 2 \(model, 1 call\(s\)\): /)
      expect(e2.attempts.map((a) => a.modelCalls)).toEqual([1, 1])
      // the library only holds the version of the successful write
      expect(lib.get("fetch-object")!.versions).toHaveLength(1)
    }).pipe(Effect.provide(layer)), 60_000)

  it.effect("self-verification: an execution check on real episodes rejects a skill that passes its own tests", () =>
    Effect.gen(function*() {
      const lib = yield* SkillLibrary.SkillLibrary.make()
      const env = easyPick()
      const cases: Array<SkillWriter.EpisodeCase> = [0, 1].map((k) => {
        env.reset({ seed: k, options: { taskIndex: k } })
        const object = parseTask(env.task)![1]!
        return {
          id: `task-${k}`,
          reset: { seed: k, options: { taskIndex: k } },
          args: { object },
          expect: ({ env: e, result }) => {
            const held = holding(e as TextHousehold.TextHousehold)
            return held !== undefined && held.startsWith(`${object} `) && (result as { taken?: string }).taken === held ? true : `not holding a ${object} (holding ${held})`
          }
        }
      })
      const check = SkillWriter.episodeCheck(env, cases)
      let verified = 0
      const verify: SkillWriter.Verify = (spec, library) => {
        verified++
        // self-verification happens before anything is stored
        expect(library.get(spec.name)).toBeUndefined()
        return check(spec, library)
      }
      const m = scripted((prompt) => (prompt.includes(`rejected at stage "check"`) ? fenced(CORRECT) : fenced(LIAR)))
      const out = yield* SkillWriter.write(lib, { task: "take an object", verify }).pipe(Effect.provide(m.layer))
      expect(verified).toBe(2)
      expect(out.attempts.map((a) => a.error?.stage)).toEqual(["check", undefined])
      const reason = out.attempts[0]!.error!.message
      const object0 = (cases[0]!.args as { object: string }).object
      expect(reason).toContain(`task-0: not holding a ${object0} (holding nothing)`)
      expect(reason).toContain("commands: (none)")
      expect(m.prompts[1]).toContain(reason)
      expect(out.admitted.spec.source).toBe(CORRECT)
      expect(lib.get("fetch-object")!.versions).toHaveLength(1)

      // a critic that fails, throws, or says no counts as a rejection with its reason fed back
      let calls = 0
      const critic: SkillWriter.Verify = () => {
        calls++
        if (calls === 1) return Effect.fail("the critic says: too vague")
        if (calls === 2) throw new Error("the critic crashed")
        if (calls === 3) return Effect.succeed({ ok: false, reason: "the description does not say what is returned" })
        return Effect.succeed({ ok: true })
      }
      const m2 = scripted(() => fenced(CORRECT, { name: "fetch-object-2" }))
      const out2 = yield* SkillWriter.write(lib, { task: "take an object", verify: critic }).pipe(Effect.provide(m2.layer))
      expect(out2.attempts.map((a) => a.error)).toEqual([
        { stage: "check", message: "the check failed: the critic says: too vague" },
        { stage: "check", message: "the check failed: the critic crashed" },
        { stage: "check", message: "the description does not say what is returned" },
        undefined
      ])
      expect(m2.prompts[1]).toContain("the critic says: too vague")
      expect(m2.prompts[3]).toContain("the description does not say what is returned")
      expect(out2.admitted.spec.name).toBe("fetch-object-2")
    }).pipe(Effect.provide(layer)), 60_000)

  it.effect("rejects bad options with a typed error", () =>
    Effect.gen(function*() {
      const lib = yield* SkillLibrary.SkillLibrary.make()
      const m = scripted(() => fenced(CORRECT))
      const e = yield* Effect.flip(SkillWriter.write(lib, { task: "x" }, { maxAttempts: 0 }).pipe(Effect.provide(m.layer)))
      expect(e).toMatchObject({ _tag: "WriterOptionError", option: "maxAttempts", value: 0 })
      const e2 = yield* Effect.flip(SkillWriter.write(lib, { task: "x" }, { limits: { maxPromptChars: Number.NaN } }).pipe(Effect.provide(m.layer)))
      expect(e2).toMatchObject({ _tag: "WriterOptionError", option: "limits.maxPromptChars" })
      expect(m.prompts).toHaveLength(0)
    }).pipe(Effect.provide(layer)))
})

describe("SkillWriter prompts and parsing", () => {
  it("parses a ```json fence, a bare object, and reports what is wrong otherwise", () => {
    expect(SkillWriter.parseAnswer("text\n```json\n{\"a\": 1}\n```\nmore")).toEqual({ ok: true, value: { a: 1 } })
    expect(SkillWriter.parseAnswer("```\n{\"a\": 2}\n```")).toEqual({ ok: true, value: { a: 2 } })
    expect(SkillWriter.parseAnswer("Sure: {\"a\": {\"b\": 3}} done")).toEqual({ ok: true, value: { a: { b: 3 } } })
    expect(SkillWriter.parseAnswer("{\"a\": 1}\n```javascript\nfunction main() {}\n```")).toEqual({ ok: true, value: { a: 1 }, code: "function main() {}" })
    expect(SkillWriter.parseAnswer("")).toEqual({ ok: false, reason: "the answer is empty" })
    expect(SkillWriter.parseAnswer("[1, 2]")).toEqual({ ok: false, reason: "the answer contains no JSON object" })
    expect(SkillWriter.parseAnswer("```json\n[1]\n```")).toEqual({ ok: false, reason: "the JSON value is not an object" })
    const bad = SkillWriter.parseAnswer("{ a: 1 }")
    expect(bad.ok).toBe(false)
    if (!bad.ok) expect(bad.reason).toMatch(/^invalid JSON: /)
  })

  it("clips long trajectories (first and last steps, observations) and caps the user message", () => {
    const steps = Array.from({ length: 100 }, (_, i) => ({ action: `go to shelf ${i + 1}`, observation: `You see ${"a thing, ".repeat(50)}END${i}` }))
    const text = SkillWriter.renderTrajectory({ id: "long", won: false, task: "find a cd", steps }, 0)
    const lines = text.split("\n")
    expect(lines[0]).toBe("### Trajectory long (failure)")
    expect(lines[1]).toBe("Task: find a cd")
    // steps 1..10, the marker, steps 91..100: 20 steps of 2 lines each
    expect(lines.filter((l) => /^\d+\. > /.test(l)).map((l) => Number(l.split(".")[0]))).toEqual([...Array.from({ length: 10 }, (_, i) => i + 1), ...Array.from({ length: 10 }, (_, i) => i + 91)])
    expect(text).toContain("... (80 steps omitted) ...")
    const obs = lines.filter((l) => l.startsWith("   "))
    expect(obs).toHaveLength(20)
    for (const o of obs) expect(o.length).toBeLessThanOrEqual(3 + SkillWriter.defaultLimits.maxObservationChars)
    expect(text).not.toContain("END5")

    const many = Array.from({ length: 10 }, (_, i) => ({ id: `t${i}`, steps }))
    const section = SkillWriter.trajectoriesSection(many)
    expect(section).toContain("### Trajectory t2 ")
    expect(section).not.toContain("### Trajectory t3 ")
    expect(section).toContain("(7 more trajectories not shown)")

    const spec = (i: number): Skill.SkillSpec => ({
      name: `s${i}`,
      description: "d",
      parameters: {},
      result: {},
      source: `function main() { return ${"1 + ".repeat(2000)}1 }`,
      tests: [],
      provenance: { author: "t" }
    })
    const examples = [spec(1), spec(2), spec(3)]
    const input = { task: "t".repeat(5000), examples, trajectories: many, errors: Array.from({ length: 20 }, (_, i) => `error ${i} ${"x".repeat(3000)}`) }
    const full = SkillWriter.userPrompt(input)
    expect(full.length).toBeLessThanOrEqual(SkillWriter.defaultLimits.maxPromptChars)
    expect(full).toContain("… [3040 more chars]") // the task clipped to 2000 chars
    expect(full).toContain("error 19 ")
    expect(full).not.toContain("error 13 ")
    expect(full).toContain("### Trajectory t2 ")
    // a tighter cap drops trajectories first, then examples
    const noTrajectories = SkillWriter.userPrompt({ ...input, trajectories: [] }).length
    const cap = (maxPromptChars: number) => SkillWriter.userPrompt(input, { ...SkillWriter.defaultLimits, maxPromptChars })
    const a = cap(noTrajectories + 100)
    expect(a.length).toBeLessThanOrEqual(noTrajectories + 100)
    expect(a).not.toContain("### Trajectory")
    expect(a).toContain("### s3")
    const b = cap(noTrajectories - 100)
    expect(b.length).toBeLessThanOrEqual(noTrajectories - 100)
    expect(b).not.toContain("### Trajectory")
    expect(b).toContain("### s2")
    expect(b).not.toContain("### s3")
    // the hard cap holds even when nothing is left to drop
    expect(cap(1000).length).toBeLessThanOrEqual(1000)
    // the system message: environment clipped, bounded as documented
    const system = SkillWriter.systemPrompt("rules ".repeat(5000))
    expect(system.length).toBeLessThanOrEqual(7000)
    expect(system).toContain(SkillWriter.GUEST_API)
    expect(system).toContain("more chars]")
    // an Episode's id comes from its reset
    expect(SkillWriter.trajectoryId({ reset: { seed: 4, options: { taskIndex: 9 } }, actions: [], admissible: [], stateKeys: [], won: true }, 0)).toBe("seed-4/task-9")
  })
})

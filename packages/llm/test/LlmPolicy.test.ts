import { Rng } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { AiError } from "effect/ai"
import * as LlmPolicy from "../src/LlmPolicy.js"
import { messageText, scripted } from "./fixtures/ScriptedModel.js"

const admissible = ["go to countertop 1", "go to sinkbasin 1", "take mug 1 from countertop 1", "look"]
const input: LlmPolicy.Input = { task: "put a clean mug in the coffeemachine", observation: "You are in the kitchen.", admissible }
const cfg = (o: Partial<LlmPolicy.Config> = {}) => LlmPolicy.config({ baseDelayMs: 1, maxDelayMs: 5, ...o })
const rng = () => Rng.make(3)

describe("LlmPolicy.parseAction", () => {
  const parse = (s: string) => LlmPolicy.parseAction(s, admissible)
  it("matches exactly, ignoring case/punctuation, by substring and fuzzily", () => {
    expect(parse("Thought: the mug is there\nAction: go to countertop 1")).toMatchObject({ ok: true, index: 0, match: "exact", thought: "the mug is there" })
    expect(parse("Action: Go To Sinkbasin 1.")).toMatchObject({ ok: true, index: 1, match: "case-insensitive" })
    expect(parse('**Action:** "look"')).toMatchObject({ ok: true, index: 3, match: "exact" })
    expect(parse("Action: I will take mug 1 from countertop 1 now")).toMatchObject({ ok: true, index: 2, match: "substring" })
    expect(parse("Action: sinkbasin")).toMatchObject({ ok: true, index: 1, match: "substring" })
    expect(parse("Action: go to contertop 1")).toMatchObject({ ok: true, index: 0, match: "fuzzy" })
    expect(parse("go to sinkbasin 1")).toMatchObject({ ok: true, index: 1, match: "exact" })
    // the last Action line wins
    expect(parse("Action: look\nOn second thought...\nAction: go to sinkbasin 1")).toMatchObject({ ok: true, index: 1 })
    expect(parse("Action:\ngo to countertop 1")).toMatchObject({ ok: true, index: 0 })
  })

  it("fails with a reason on unusable answers", () => {
    expect(parse("")).toMatchObject({ ok: false, reason: "empty answer" })
    expect(parse("I think\nwe should go")).toMatchObject({ ok: false, reason: 'no "Action:" line' })
    expect(parse("Action: fly to the moon")).toMatchObject({ ok: false, candidate: "fly to the moon" })
    expect(parse("Action: go to")).toMatchObject({ ok: false })
    expect(LlmPolicy.parseAction("Action: anything", [])).toMatchObject({ ok: true, action: "anything", match: "free" })
  })

  it("edit distance", () => {
    expect(LlmPolicy.editDistance("kitten", "sitting")).toBe(3)
    expect(LlmPolicy.editDistance("", "abc")).toBe(3)
    expect(LlmPolicy.editDistance("same", "same")).toBe(0)
  })
})

describe("LlmPolicy.buildPrompt", () => {
  it("has the instruction, task, experiences, windowed history and admissible actions", () => {
    const history = Array.from({ length: 4 }, (_, i) => ({ observation: `obs ${i}`, action: `act ${i}`, thought: `why ${i}` }))
    const msgs = LlmPolicy.buildPrompt(cfg({ instruction: "Be a robot.", experiences: "Experiences:\n[G0] look first", historyWindow: 2 }), { ...input, history })
    expect(msgs[0]!.role).toBe("system")
    const system = msgs[0]!.content as string
    expect(system).toContain("Be a robot.")
    expect(system).toContain(`Your task: ${input.task}`)
    expect(system).toContain("[G0] look first")
    expect(msgs[1]!.content).toBe("(2 earlier steps omitted)")
    expect(msgs.slice(3, 7).map((m) => m.content)).toEqual(["Observation:\nobs 2", "Thought: why 2\nAction: act 2", "Observation:\nobs 3", "Thought: why 3\nAction: act 3"])
    expect(msgs.at(-1)!.content).toBe(`Observation:\nYou are in the kitchen.\n\nAdmissible actions:\n${admissible.map((a) => `- ${a}`).join("\n")}`)
    expect(LlmPolicy.buildPrompt(cfg(), input)[0]!.content).not.toContain("Experiences")
    // env rules that already state the task replace the task line
    const withRules = LlmPolicy.buildPrompt(cfg({ instruction: "I." }), { ...input, rules: `Rules.\nYour task is to: ${input.task}` })[0]!.content as string
    expect(withRules.startsWith(`I.\n\nRules.\nYour task is to: ${input.task}\n\nThink briefly`)).toBe(true)
  })
})

describe("LlmPolicy.decide", () => {
  it.effect("records usage, latency and the thought", () =>
    Effect.gen(function* () {
      const m = scripted(["Thought: wash it later\nAction: go to countertop 1"])
      const d = yield* LlmPolicy.decide(cfg(), input, rng()).pipe(Effect.provide(m.layer))
      expect(d.action).toBe("go to countertop 1")
      expect(d.index).toBe(0)
      expect(d.record.thought).toBe("wash it later")
      expect(d.record.calls).toBe(1)
      expect(d.record.attempts).toBe(1)
      expect(d.record.reasked).toBe(false)
      expect(d.record.inputTokens).toBeGreaterThan(10)
      expect(d.record.outputTokens).toBe(Math.ceil("Thought: wash it later\nAction: go to countertop 1".length / 4))
      expect(d.record.latencyMs).toBeGreaterThanOrEqual(0)
    }))

  it.live("latency covers the model's time", () =>
    Effect.gen(function* () {
      const m = scripted(["Action: look"], { delayMs: 30 })
      const d = yield* LlmPolicy.decide(cfg(), input, rng()).pipe(Effect.provide(m.layer))
      expect(d.record.latencyMs).toBeGreaterThanOrEqual(25)
    }))

  it.effect("re-asks once with the parse error, then succeeds", () =>
    Effect.gen(function* () {
      const m = scripted(["I am not sure.\nMaybe the sink.", "Action: go to sinkbasin 1"])
      const d = yield* LlmPolicy.decide(cfg(), input, rng()).pipe(Effect.provide(m.layer))
      expect(d.action).toBe("go to sinkbasin 1")
      expect(d.record).toMatchObject({ reasked: true, calls: 2, attempts: 2, parseError: 'no "Action:" line', match: "exact" })
      const second = m.prompts[1]!.content
      expect(messageText(second.at(-2)!)).toBe("I am not sure.\nMaybe the sink.")
      expect(messageText(second.at(-1)!)).toContain('Your answer could not be used: no "Action:" line')
    }))

  it.effect("falls back after the re-ask: first, random, invalid; fails under fail", () =>
    Effect.gen(function* () {
      const bad = ["Action: fly", "Action: fly away"]
      const first = yield* LlmPolicy.decide(cfg(), input, rng()).pipe(Effect.provide(scripted(bad).layer))
      expect(first).toMatchObject({ action: admissible[0], index: 0, record: { match: "fallback", fallback: "first", reasked: true } })
      const expectedIndex = Rng.make(3).integers(admissible.length)
      const random = yield* LlmPolicy.decide(cfg({ fallback: "random" }), input, rng()).pipe(Effect.provide(scripted(bad).layer))
      expect(random).toMatchObject({ action: admissible[expectedIndex], index: expectedIndex, record: { fallback: "random" } })
      const invalid = yield* LlmPolicy.decide(cfg({ fallback: "invalid" }), input, rng()).pipe(Effect.provide(scripted(bad).layer))
      expect(invalid).toMatchObject({ action: "fly away", index: -1, record: { fallback: "invalid" } })
      const noReask = yield* LlmPolicy.decide(cfg({ reask: false }), input, rng()).pipe(Effect.provide(scripted(bad).layer))
      expect(noReask.record).toMatchObject({ calls: 1, reasked: false, fallback: "first" })
      const err = yield* Effect.flip(LlmPolicy.decide(cfg({ fallback: "fail" }), input, rng()).pipe(Effect.provide(scripted(bad).layer)))
      expect(err._tag).toBe("UnknownActionError")
      if (err._tag === "UnknownActionError") {
        expect(err.output).toBe("Action: fly away")
        expect(err.admissible).toEqual(admissible)
      }
    }))

  it.live("retries transient errors with backoff, then succeeds", () =>
    Effect.gen(function* () {
      const m = scripted([
        { fail: new AiError.RateLimitError({}) },
        { fail: new AiError.NetworkError({ reason: "TransportError", method: "POST", url: "http://x" }) },
        "Action: look"
      ])
      const d = yield* LlmPolicy.decide(cfg(), input, rng()).pipe(Effect.provide(m.layer))
      expect(d.action).toBe("look")
      expect(d.record.attempts).toBe(3)
      expect(m.calls()).toBe(3)
    }))

  it.live("gives up after the retries with ModelCallError; does not retry non-retryable errors", () =>
    Effect.gen(function* () {
      const m = scripted([{ fail: new AiError.RateLimitError({}) }])
      const e = yield* Effect.flip(LlmPolicy.decide(cfg({ retries: 2 }), input, rng()).pipe(Effect.provide(m.layer)))
      expect(e).toMatchObject({ _tag: "ModelCallError", attempts: 3, retryable: true })
      expect(m.calls()).toBe(3)
      const auth = scripted([{ fail: new AiError.AuthenticationError({ kind: "InvalidKey" }) }, "Action: look"])
      const e2 = yield* Effect.flip(LlmPolicy.decide(cfg(), input, rng()).pipe(Effect.provide(auth.layer)))
      expect(e2).toMatchObject({ _tag: "ModelCallError", attempts: 1, retryable: false })
      expect(auth.calls()).toBe(1)
    }))

  it.effect("tool-calling mode reads the act call and sends the act tool", () =>
    Effect.gen(function* () {
      const m = scripted([{ tool: "take mug 1 from countertop 1" }])
      const d = yield* LlmPolicy.decide(cfg({ toolCalling: true }), input, rng()).pipe(Effect.provide(m.layer))
      expect(d).toMatchObject({ action: "take mug 1 from countertop 1", index: 2, record: { match: "tool" } })
      expect(m.tools).toEqual([[LlmPolicy.ACT_TOOL]])
      // an inadmissible tool argument goes through the same parse / re-ask path
      const m2 = scripted([{ tool: "dance" }, { tool: "LOOK" }])
      const d2 = yield* LlmPolicy.decide(cfg({ toolCalling: true }), input, rng()).pipe(Effect.provide(m2.layer))
      expect(d2).toMatchObject({ action: "look", record: { reasked: true, match: "case-insensitive" } })
      // a text answer in tool mode is parsed as text
      const m3 = scripted(["Action: look"])
      const d3 = yield* LlmPolicy.decide(cfg({ toolCalling: true }), input, rng()).pipe(Effect.provide(m3.layer))
      expect(d3.action).toBe("look")
    }))

  it.effect("sets the Temperature reference and the sampling hook around calls", () =>
    Effect.gen(function* () {
      const seen: Array<unknown> = []
      const m = scripted(["Action: look"])
      yield* LlmPolicy.decide(
        cfg({
          temperature: 0.3,
          sampling: ({ purpose, temperature }) => (self) =>
            Effect.flatMap(Effect.service(LlmPolicy.Temperature), (t) => {
              seen.push([purpose, temperature, t])
              return self
            })
        }),
        input,
        rng()
      ).pipe(Effect.provide(m.layer))
      expect(seen).toEqual([["act", 0.3, 0.3]])
    }))
})

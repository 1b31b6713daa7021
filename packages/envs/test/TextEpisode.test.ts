import { InvalidOptionError, ResetNeededError } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import { TextEpisode, textEpisodeSettings } from "../src/text/TextEpisode.js"
import { TextFrozenLake } from "../src/text/TextFrozenLake.js"
import { TextHousehold } from "../src/text/TextHousehold.js"
import { TextSokoban } from "../src/text/TextSokoban.js"

const makers = {
  TextHousehold: (o: object) => new TextHousehold(o),
  TextSokoban: (o: object) => new TextSokoban(o),
  TextFrozenLake: (o: object) => new TextFrozenLake(o)
}

describe("TextEpisode", () => {
  it("fills the defaults and rejects bad options with InvalidOptionError naming the option", () => {
    expect(textEpisodeSettings({}, { maxSteps: 50, invalidActionPenalty: -0.1 })).toEqual({
      maxSteps: 50,
      invalidActionPolicy: "penalize",
      invalidActionPenalty: -0.1
    })
    expect(textEpisodeSettings({ maxSteps: Infinity, invalidActionPolicy: "error" }, { maxSteps: 5, invalidActionPenalty: 0 }).maxSteps).toBe(Infinity)
    const bad: Array<[object, string]> = [
      [{ maxSteps: 0 }, "maxSteps"],
      [{ maxSteps: 2.5 }, "maxSteps"],
      [{ invalidActionPolicy: "ignore" }, "invalidActionPolicy"],
      [{ invalidActionPenalty: Number.NaN }, "invalidActionPenalty"]
    ]
    for (const [options, option] of bad) {
      // every text env enforces the same rule with the same error
      for (const make of Object.values(makers)) {
        try {
          make(options)
          expect.unreachable()
        } catch (e) {
          expect(e).toBeInstanceOf(InvalidOptionError)
          expect((e as InvalidOptionError).option).toBe(option)
        }
      }
    }
  })

  it("counts valid and invalid steps alike, truncates at maxSteps and then needs a reset", () => {
    for (const [name, make] of Object.entries(makers)) {
      const env = make({ maxSteps: 3 })
      expect(() => env.step("look")).toThrow(ResetNeededError)
      env.reset({ seed: 1 })
      const flags = [env.step("not a command"), env.step("still not one"), env.step("nope")].map((r) => [r.truncated, r.info["invalidAction"]])
      expect(flags, name).toEqual([[false, true], [false, true], [true, true]])
      expect(() => env.step("look"), name).toThrow(/the episode has ended/)
      env.reset({ seed: 1 })
      expect(env.step("nope").truncated).toBe(false)
      env.close()
      expect(() => env.step("nope"), name).toThrow(ResetNeededError)
    }
  })

  it("the bookkeeping by hand", () => {
    const ep = new TextEpisode("X-v0", 2)
    expect(() => ep.assertRunning()).toThrow(/step before reset/)
    ep.begin()
    expect(ep.advance(false)).toBe(false)
    expect(ep.running).toBe(true)
    expect(ep.advance(false)).toBe(true)
    expect(ep.running).toBe(false)
    ep.begin()
    expect(ep.steps).toBe(0)
    expect(ep.advance(true)).toBe(false) // terminated, not truncated
    expect(() => ep.assertRunning()).toThrow(/the episode has ended/)
  })
})

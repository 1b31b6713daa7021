import { InvalidActionError } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import { checkEnv } from "../src/checks/CheckEnv.js"
import * as FrozenLake from "../src/toytext/FrozenLake.js"
import * as Registry from "../src/Registry.js"
import * as TextFrozenLake from "../src/text/TextFrozenLake.js"

describe("TextFrozenLake (TextFrozenLake-v1)", () => {
  it("has FrozenLake-v1's dynamics: the same seed and actions give the same cells, rewards and ends", () => {
    const text = new TextFrozenLake.TextFrozenLake()
    const base = new FrozenLake.FrozenLakeEnv()
    for (let s = 0; s < 50; s++) {
      text.reset({ seed: s })
      base.reset({ seed: s })
      for (let t = 0; t < 100; t++) {
        const a = (s * 7 + t * 3) % 4
        const rt = text.step(TextFrozenLake.ACTION_NAMES[a]!)
        const rb = base.step(a)
        expect(rt.info["cell"]).toBe(rb.observation)
        expect(text.stateKey()).toBe(String(rb.observation))
        expect(rt.reward).toBe(rb.reward)
        expect(rt.terminated).toBe(rb.terminated)
        if (rb.terminated) break
      }
    }
  })

  it("renders RAGEN's symbols", () => {
    const env = new TextFrozenLake.TextFrozenLake({ isSlippery: false })
    expect(env.reset({ seed: 0 }).observation).toBe(`${TextFrozenLake.LEGEND}\nP___\n_O_O\n___O\nO__G`)
    env.step("Down")
    env.step("Down")
    env.step("Right")
    env.step("Right")
    expect(env.step("Down").observation).toBe("____\n_O_O\n___O\nO_PG")
    const r = env.step("Right")
    expect(r.observation).toBe("____\n_O_O\n___O\nO__√")
    expect(r.reward).toBe(1)
    expect(r.terminated).toBe(true)
    const h = new TextFrozenLake.TextFrozenLake({ isSlippery: false })
    h.reset({ seed: 0 })
    expect(h.step("Right").observation).toBe("_P__\n_O_O\n___O\nO__G")
    expect(h.step("Down").observation).toBe("____\n_X_O\n___O\nO__G")
  })

  it("invalid actions and random maps", () => {
    const env = new TextFrozenLake.TextFrozenLake({ invalidActionPenalty: -0.5 })
    env.reset({ seed: 0 })
    const r = env.step("fly")
    expect(r.reward).toBe(-0.5)
    expect(r.info["invalidAction"]).toBe(true)
    expect(env.stateKey()).toBe("0")
    const strict = new TextFrozenLake.TextFrozenLake({ invalidActionPolicy: "error" })
    strict.reset({ seed: 0 })
    expect(() => strict.step("fly")).toThrow(InvalidActionError)
    const rm = new TextFrozenLake.TextFrozenLake({ randomMap: { size: 4, p: 0.8 } })
    const o1 = rm.reset({ seed: 5 }).observation
    const rm2 = new TextFrozenLake.TextFrozenLake({ randomMap: { size: 4, p: 0.8 } })
    expect(rm2.reset({ seed: 5 }).observation).toBe(o1)
    const maps = new Set<string>()
    for (let s = 0; s < 20; s++) maps.add(rm.reset({ seed: s }).observation)
    expect(maps.size).toBeGreaterThan(5)
  })

  it("works through make and passes checkEnv", () => {
    expect(checkEnv(Registry.make("TextFrozenLake-v1"))).toEqual([])
  })
})

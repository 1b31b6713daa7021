import { InvalidActionError, ResetNeededError } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import { checkEnv } from "../src/checks/CheckEnv.js"
import * as Registry from "../src/Registry.js"
import * as SokobanSolver from "../src/sokoban/SokobanSolver.js"
import * as TextSokoban from "../src/text/TextSokoban.js"

const replaySolution = (env: TextSokoban.TextSokoban) => {
  const level = env.inner.currentLevel!
  const sol = SokobanSolver.solve(level)
  expect(sol.status).toBe("solved")
  let last = { reward: 0, terminated: false, truncated: false, info: {} as Record<string, unknown> }
  let ret = 0
  for (const a of sol.actions) {
    last = env.step(TextSokoban.ACTION_NAMES[(a - 1) % 4]!)
    ret += last.reward
    expect(last.info["invalidAction"]).toBe(false)
  }
  return { last, ret, length: sol.actions.length }
}

describe("TextSokoban (Sokoban-6x6-1box-v0)", () => {
  it("replaying the solver's plan with named actions reaches success (reward 10.9 on the last push)", () => {
    const env = new TextSokoban.TextSokoban()
    let total = 0
    for (let s = 0; s < 50; s++) {
      env.reset({ seed: s })
      const { last, ret, length } = replaySolution(env)
      expect(last.terminated).toBe(true)
      expect(last.info["won"]).toBe(true)
      expect(last.reward).toBeCloseTo(10.9, 10)
      expect(ret).toBeCloseTo(-0.1 * length + 11, 8)
      total += length
    }
    console.log(`Sokoban-6x6-1box: solver plans average ${(total / 50).toFixed(2)} steps`)
  })

  it("renders RAGEN's symbols, 6x6, one box, legend on reset", () => {
    const env = new TextSokoban.TextSokoban()
    const { observation, info } = env.reset({ seed: 1 })
    const [legend, ...rows] = observation.split("\n")
    expect(legend).toBe(TextSokoban.LEGEND)
    expect(rows.length).toBe(6)
    for (const row of rows) expect(row).toMatch(/^[#_OX√PS]{6}$/)
    const grid = rows.join("")
    expect((grid.match(/[X√]/g) ?? []).length).toBe(1)
    expect((grid.match(/[PS]/g) ?? []).length).toBe(1)
    expect(info["grid"]).toEqual(env.gridObservation())
    const codes = env.gridObservation()
    expect([...codes].map((c) => TextSokoban.SYMBOLS[c]).join("")).toBe(grid)
    expect(env.admissibleActions()).toEqual(["Up", "Down", "Left", "Right"])
    expect(env.render()).toBe(rows.join("\n"))
  })

  it("reproducible resets; stateKey equal across paths (step away and back)", () => {
    const a = new TextSokoban.TextSokoban()
    const b = new TextSokoban.TextSokoban()
    for (let s = 0; s < 20; s++) {
      expect(b.reset({ seed: s }).observation).toBe(a.reset({ seed: s }).observation)
      expect(b.stateKey()).toBe(a.stateKey())
      const k0 = a.stateKey()
      // find a direction that moves without pushing, then go back
      for (const [d, back] of [["Up", "Down"], ["Down", "Up"], ["Left", "Right"], ["Right", "Left"]] as const) {
        const r = a.step(d)
        if (r.terminated || r.info["movedBox"] === true) break
        if (r.info["movedPlayer"] === true) {
          expect(a.stateKey()).not.toBe(k0)
          a.step(back)
          expect(a.stateKey()).toBe(k0)
          break
        }
      }
    }
  })

  it("invalid actions: penalize -0.1 without moving, or error; truncation at 100", () => {
    const env = new TextSokoban.TextSokoban()
    env.reset({ seed: 0 })
    const k = env.stateKey()
    const r = env.step("push the box")
    expect(r.reward).toBe(-0.1)
    expect(r.info["invalidAction"]).toBe(true)
    expect(env.stateKey()).toBe(k)
    expect(env.step(" up ").info["invalidAction"]).toBe(false)
    let last = r
    for (let i = 2; i < 100; i++) last = env.step("nope")
    expect(last.truncated).toBe(true)
    expect(() => env.step("Up")).toThrow(ResetNeededError)
    const strict = new TextSokoban.TextSokoban({ invalidActionPolicy: "error" })
    strict.reset({ seed: 0 })
    expect(() => strict.step("jump")).toThrow(InvalidActionError)
  })

  it("works through make and passes checkEnv", () => {
    const env = Registry.make<string, string>("Sokoban-6x6-1box-v0")
    expect(checkEnv(env)).toEqual([])
    env.reset({ seed: 3 })
    const inner = env.unwrapped as TextSokoban.TextSokoban
    const msgs = inner.toMessages({ envId: "Sokoban-6x6-1box-v0", steps: [], return: 0, length: 0 })
    expect(msgs[0]!.content).toContain("Your task is to: push the box onto the target.")
  })
})

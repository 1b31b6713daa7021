import { InvalidActionError, InvalidOptionError, ResetNeededError } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import { existsSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import * as FrozenLake from "../src/toytext/FrozenLake.js"
import * as Registry from "../src/Registry.js"

const dataPath = fileURLToPath(new URL("../../../../shared/data/gymnasium/frozenlake_P.json", import.meta.url))
const hasData = existsSync(dataPath)
if (!hasData) console.warn(`FrozenLake table comparison skipped: reference data not found at ${dataPath}`)

type RefTable = { map: Array<string>; P: Record<string, Record<string, Array<[number, number, number, boolean]>>> }

describe("FrozenLake", () => {
  it.skipIf(!hasData)("builds Gymnasium 1.4's transition tables exactly (4x4/8x8, slippery/deterministic)", () => {
    const data = JSON.parse(readFileSync(dataPath, "utf8")) as { tables: Record<string, RefTable> }
    const names = ["4x4/slippery", "4x4/deterministic", "8x8/slippery", "8x8/deterministic"]
    expect(Object.keys(data.tables).sort()).toEqual([...names].sort())
    for (const name of names) {
      const ref = data.tables[name]!
      const [mapName, kind] = name.split("/") as ["4x4" | "8x8", string]
      const env = new FrozenLake.FrozenLakeEnv({ mapName, isSlippery: kind === "slippery" })
      expect(env.desc).toEqual(ref.map)
      expect(env.P.length).toBe(Object.keys(ref.P).length)
      for (const [s, actions] of Object.entries(ref.P)) {
        for (const [a, entries] of Object.entries(actions)) {
          const mine = env.P[Number(s)]![Number(a)]!
          expect(mine.length).toBe(entries.length)
          entries.forEach(([p, next, reward, terminated], k) => {
            const [mp, mnext, mreward, mterminated] = mine[k]!
            expect(Math.abs(mp - p)).toBeLessThanOrEqual(1e-12)
            expect(mnext).toBe(next)
            expect(mreward).toBe(reward)
            expect(mterminated).toBe(terminated)
          })
        }
      }
    }
  })

  it("a seeded slippery episode matches NumPy's draws on Gymnasium's table", () => {
    // python3: rng = np.random.default_rng(123); s = argmax(cumsum(init) > rng.random()); then per action
    // i = argmax(cumsum(probs of P[s][a]) > rng.random()) on the 4x4/slippery table of frozenlake_P.json
    const env = Registry.make<number, number>("FrozenLake-v1")
    expect(env.reset({ seed: 123 })).toEqual({ observation: 0, info: { prob: 1 } })
    const actions = [1, 2, 2, 1, 1, 2]
    const states = actions.map((a) => env.step(a))
    expect(states.map((r) => r.observation)).toEqual([0, 4, 8, 8, 9, 5])
    expect(states.map((r) => r.terminated)).toEqual([false, false, false, false, false, true])
    expect(states.every((r) => r.reward === 0)).toBe(true)
    expect(states[0]!.info["prob"]).toBeCloseTo(1 / 3, 15)
    expect(() => env.step(0)).toThrow(ResetNeededError)
  })

  it("deterministic ice follows the arrows; the goal pays 1 and terminates", () => {
    const env = new FrozenLake.FrozenLakeEnv({ isSlippery: false })
    env.reset({ seed: 0 })
    const path = [FrozenLake.DOWN, FrozenLake.DOWN, FrozenLake.RIGHT, FrozenLake.RIGHT, FrozenLake.DOWN, FrozenLake.RIGHT]
    const rs = path.map((a) => env.step(a))
    expect(rs.map((r) => r.observation)).toEqual([4, 8, 9, 10, 14, 15])
    expect(rs.map((r) => r.reward)).toEqual([0, 0, 0, 0, 0, 1])
    expect(rs[5]!.terminated).toBe(true)
    expect(() => env.step(9)).toThrow(InvalidActionError)
  })

  it("successRate and rewardSchedule shape the table", () => {
    const env = new FrozenLake.FrozenLakeEnv({ successRate: 0.8, rewardSchedule: [10, -5, -1] })
    // state 14 (row 3, col 2), action RIGHT: entries for UP(3)?? no: (a-1)%4 = DOWN, a = RIGHT, (a+1)%4 = UP
    expect(env.P[14]![FrozenLake.RIGHT]).toEqual([
      [0.09999999999999998, 14, -1, false], // down: stays on row 3 (frozen)
      [0.8, 15, 10, true], // right: goal
      [0.09999999999999998, 10, -1, false] // up: frozen
    ])
    expect(env.P[4]![FrozenLake.RIGHT]![1]).toEqual([0.8, 5, -5, true]) // into the hole at 5
    expect(() => new FrozenLake.FrozenLakeEnv({ successRate: 1.5 })).toThrow(InvalidOptionError)
  })

  it("validates custom maps, naming the row and column", () => {
    const fail = (desc: Array<string>) => {
      try {
        new FrozenLake.FrozenLakeEnv({ desc })
      } catch (e) {
        expect(e).toBeInstanceOf(FrozenLake.InvalidMapError)
        return e as FrozenLake.InvalidMapError
      }
      throw new Error("expected InvalidMapError")
    }
    expect(fail(["SFF", "FXG"])).toMatchObject({ row: 1, column: 1 })
    expect(fail(["SFF", "FG"])).toMatchObject({ row: 1, column: -1 })
    expect(fail(["SFF", "FFS", "FFG"]).reason).toContain("exactly one S")
    expect(fail(["SFF", "FFF"]).reason).toContain("G")
    expect(fail([]).row).toBe(-1)
    const custom = new FrozenLake.FrozenLakeEnv({ desc: ["SHG"], isSlippery: false })
    expect(custom.observationSpace.n).toBe(3)
    expect(() => new FrozenLake.FrozenLakeEnv({ mapName: "5x5" as never })).toThrow(InvalidOptionError)
  })

  it("generateRandomMap matches Gymnasium's generate_random_map for a seed", () => {
    // python3, numpy 2.4: rng = np.random.default_rng(seed); board = rng.choice(["F","H"], (size,size), p=[p,1-p]);
    // corners S/G; redraw until the DFS of gymnasium's is_valid reaches G
    expect(FrozenLake.generateRandomMap(8, 0.8, 42)).toEqual([
      "SFHFFHFF", "FFFHFHFF", "FFHFFFHH", "FFFFFFFH", "FFFFFFFF", "FHFFHHFF", "FFFFFFFF", "FFFFFFFG"
    ])
    expect(FrozenLake.generateRandomMap(4, 0.5, 7)).toEqual(["SFFH", "FFFH", "HFFH", "FFFG"])
    expect(FrozenLake.generateRandomMap(6, 0.3, 1)).toEqual(["SHHFHH", "FFHHHH", "FFHFHH", "FFFFHF", "HHFFFH", "HFHHFG"])
    const m = FrozenLake.generateRandomMap(5, 0.6)
    expect(FrozenLake.isValid(m, 5)).toBe(true)
    expect(FrozenLake.isValid(["SH", "HG"], 2)).toBe(false)
    expect(() => FrozenLake.generateRandomMap(1)).toThrow(InvalidOptionError)
  })

  it("renders like Gymnasium's ansi mode", () => {
    const env = new FrozenLake.FrozenLakeEnv({ isSlippery: false })
    env.reset({ seed: 0 })
    expect(env.render()).toBe("\n\x1b[41mS\x1b[0mFFF\nFHFH\nFFFH\nHFFG\n")
    env.step(FrozenLake.RIGHT)
    expect(env.render()).toBe("  (Right)\nS\x1b[41mF\x1b[0mFF\nFHFH\nFFFH\nHFFG\n")
  })
})

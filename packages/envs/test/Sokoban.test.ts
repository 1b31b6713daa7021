import { describe, expect, it } from "@effect/vitest"
import { InvalidActionError, InvalidOptionError, ResetNeededError, Rng, Space } from "@autodidact/core"
import { ACTIONS, CELL, Sokoban } from "../src/sokoban/Sokoban.js"
import * as SokobanGenerator from "../src/sokoban/SokobanGenerator.js"
import * as SokobanLevel from "../src/sokoban/SokobanLevel.js"

const NOOP = 0
const PUSH_RIGHT = 4
const MOVE_LEFT = 7
const MOVE_RIGHT = 8

const envOf = (rows: ReadonlyArray<string>, options: { maxSteps?: number; observationMode?: "grid" | "onehot" } = {}) => {
  const env = new Sokoban({ level: SokobanLevel.fromRows(rows), ...options })
  env.reset({ seed: 0 })
  return env
}

describe("Sokoban rules", () => {
  it("uses gym-sokoban's nine actions", () => {
    const env = envOf(["#####", "#@$.#", "#####"])
    expect(env.actionSpace).toEqual(Space.discrete(9))
    expect(ACTIONS[0]).toBe("no operation")
    expect(ACTIONS[4]).toBe("push right")
    expect(ACTIONS[8]).toBe("move right")
  })

  it("cannot push two boxes", () => {
    const env = envOf(["#######", "#@$$..#", "#######"])
    const r = env.step(PUSH_RIGHT)
    expect(r.info["movedPlayer"]).toBe(false)
    expect(r.info["movedBox"]).toBe(false)
    expect(env.render()).toBe("#######\n#@$$..#\n#######")
  })

  it("cannot push a box into a wall", () => {
    const env = envOf(["#####", "#.@$#", "#####"])
    env.step(PUSH_RIGHT)
    expect(env.render()).toBe("#####\n#.@$#\n#####")
  })

  it("cannot pull: walking away leaves the box", () => {
    const env = envOf(["######", "#. @$#", "######"])
    const r = env.step(MOVE_LEFT)
    expect(r.info["movedPlayer"]).toBe(true)
    expect(env.render()).toBe("######\n#.@ $#\n######")
  })

  it("a move action never pushes; a push action without a box just moves", () => {
    const env = envOf(["######", "#@$ .#", "######"])
    expect(env.step(MOVE_RIGHT).info["movedPlayer"]).toBe(false)
    expect(env.render()).toBe("######\n#@$ .#\n######")
    const env2 = envOf(["######", "#@ $.#", "######"])
    const r = env2.step(PUSH_RIGHT)
    expect([r.info["movedPlayer"], r.info["movedBox"]]).toEqual([true, false])
    expect(env2.render()).toBe("######\n# @$.#\n######")
  })

  it("treats the grid's edge as a wall", () => {
    // no wall border: stepping off the grid or pushing a box off it does nothing
    const env = envOf(["@$.", "   "])
    expect(env.step(MOVE_LEFT).info["movedPlayer"]).toBe(false)
    const env2 = envOf([".@$", "   "])
    expect(env2.step(PUSH_RIGHT).info["movedPlayer"]).toBe(false)
  })
})

describe("Sokoban rewards and episode end", () => {
  it("gives -0.1 per step, +1 for a box onto a goal, -1 for a box off a goal", () => {
    const env = envOf(["#########", "#@$. $. #", "#########"])
    expect(env.step(NOOP).reward).toBeCloseTo(-0.1, 12)
    const on = env.step(PUSH_RIGHT)
    expect(on.reward).toBeCloseTo(0.9, 12)
    expect([on.terminated, on.info["boxesOnTarget"]]).toEqual([false, 1])
    const off = env.step(PUSH_RIGHT)
    expect(off.reward).toBeCloseTo(-1.1, 12)
    expect([off.terminated, off.info["boxesOnTarget"]]).toEqual([false, 0])
  })

  it("adds +10 and terminates when every box is on a goal", () => {
    const env = envOf(["#####", "#@$.#", "#####"])
    const r = env.step(PUSH_RIGHT)
    expect(r.reward).toBeCloseTo(-0.1 + 1 + 10, 12)
    expect([r.terminated, r.truncated, r.info["allBoxesOnTarget"]]).toEqual([true, false, true])
    expect(() => env.step(NOOP)).toThrow(ResetNeededError)
  })

  it("truncates at maxSteps (default 120) and then needs a reset", () => {
    const env = envOf(["#####", "#@$.#", "#####"], { maxSteps: 3 })
    expect(env.step(NOOP).truncated).toBe(false)
    expect(env.step(NOOP).truncated).toBe(false)
    const last = env.step(NOOP)
    expect([last.terminated, last.truncated, last.info["maxStepsUsed"]]).toEqual([false, true, true])
    expect(() => env.step(NOOP)).toThrow(ResetNeededError)
    const long = envOf(["#####", "#@$.#", "#####"])
    for (let i = 0; i < 119; i++) expect(long.step(NOOP).truncated).toBe(false)
    expect(long.step(NOOP).truncated).toBe(true)
  })

  it("throws before reset and on actions outside Discrete(9)", () => {
    const env = new Sokoban({ level: SokobanLevel.fromRows(["#####", "#@$.#", "#####"]) })
    expect(() => env.step(NOOP)).toThrow(ResetNeededError)
    env.reset({ seed: 1 })
    for (const a of [9, -1, 1.5, Number.NaN]) expect(() => env.step(a)).toThrow(InvalidActionError)
  })

  it("rejects invalid options", () => {
    const a = SokobanLevel.fromRows(["#####", "#@$.#", "#####"])
    const b = SokobanLevel.fromRows(["######", "#@$ .#", "######"])
    expect(() => new Sokoban({ levels: [a, b] })).toThrow(InvalidOptionError)
    expect(() => new Sokoban({ levels: [] })).toThrow(InvalidOptionError)
    expect(() => new Sokoban({ level: a, generate: {} })).toThrow(InvalidOptionError)
    expect(() => new Sokoban({ level: a, maxSteps: 0 })).toThrow(InvalidOptionError)
  })
})

describe("Sokoban observations", () => {
  const rows = ["#######", "#+ $*.#", "# $   #", "#######"]
  const expectedGrid = [
    [0, 0, 0, 0, 0, 0, 0],
    [0, 6, 1, 4, 3, 2, 0],
    [0, 1, 4, 1, 1, 1, 0],
    [0, 0, 0, 0, 0, 0, 0]
  ].flat()

  it("grid: gym-sokoban room codes, Box(0, 6, [h, w], uint8)", () => {
    const env = new Sokoban({ level: SokobanLevel.fromRows(rows) })
    expect(env.observationSpace).toEqual(Space.box(0, 6, [4, 7], "uint8"))
    const { observation } = env.reset({ seed: 0 })
    expect(observation).toBeInstanceOf(Uint8Array)
    expect(Array.from(observation)).toEqual(expectedGrid)
    expect(Space.contains(env.observationSpace, observation)).toBe(true)
    const r = env.step(MOVE_RIGHT)
    const after = [...expectedGrid]
    after[8] = CELL.goal
    after[9] = CELL.player
    expect(Array.from(r.observation)).toEqual(after)
  })

  it("onehot: 7 channels-first Float32 planes of the grid codes", () => {
    const env = new Sokoban({ level: SokobanLevel.fromRows(rows), observationMode: "onehot" })
    expect(env.observationSpace).toEqual(Space.box(0, 1, [7, 4, 7], "float32"))
    const { observation } = env.reset({ seed: 0 })
    expect(observation).toBeInstanceOf(Float32Array)
    expect(observation).toHaveLength(7 * 28)
    const n = 28
    for (let c = 0; c < 7; c++) {
      for (let i = 0; i < n; i++) expect(observation[c * n + i]).toBe(expectedGrid[i] === c ? 1 : 0)
    }
    expect(Space.contains(env.observationSpace, observation)).toBe(true)
  })

  it("renders the state in the level format", () => {
    const env = new Sokoban({ level: SokobanLevel.fromRows(rows) })
    expect(env.render()).toBeUndefined()
    env.reset({ seed: 0 })
    expect(env.render()).toBe(rows.join("\n"))
    env.step(MOVE_RIGHT)
    expect(env.render()).toBe(["#######", "#.@$*.#", "# $   #", "#######"].join("\n"))
  })
})

describe("Sokoban level selection and seeding", () => {
  // five 9x3 corridors told apart by where the player starts
  const levels = Array.from({ length: 5 }, (_, i) =>
    SokobanLevel.fromRows(["#########", `#${" ".repeat(i)}@$.${" ".repeat(4 - i)}#`, "#########"], String(i)))

  it("picks levels[npRandom.integers(n)] at each reset, reproducibly from the seed", () => {
    const env = new Sokoban({ levels })
    const ids = [env.reset({ seed: 42 }), env.reset(), env.reset(), env.reset()].map((r) => r.info["levelId"])
    const rng = Rng.make(42)
    const expected = ids.map(() => String(rng.integers(5)))
    expect(ids).toEqual(expected)
    const again = new Sokoban({ levels })
    expect([again.reset({ seed: 42 }), again.reset(), again.reset(), again.reset()].map((r) => r.info["levelId"])).toEqual(ids)
  })

  it("generates a level per reset from npRandom (same seed, same level)", () => {
    const options = { width: 7, height: 7, numBoxes: 2 }
    const a = new Sokoban({ generate: options })
    const b = new Sokoban({ generate: options })
    const oa = a.reset({ seed: 5 }).observation
    expect(Array.from(b.reset({ seed: 5 }).observation)).toEqual(Array.from(oa))
    const level = SokobanGenerator.generate(Rng.make(5), options)
    expect(a.render()).toBe(SokobanLevel.renderLevel(level))
    expect(a.observationSpace.shape).toEqual([7, 7])
  })

  it("plays reset({ options: { level } }) once", () => {
    const env = new Sokoban({ levels })
    env.reset({ seed: 0, options: { level: levels[3] } })
    expect(env.currentLevel).toBe(levels[3])
  })
})

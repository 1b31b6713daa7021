import { describe, expect, it } from "@effect/vitest"
import { Rng } from "@autodidact/core"
import { Effect } from "effect"
import { Sokoban } from "../src/sokoban/Sokoban.js"
import * as SokobanGenerator from "../src/sokoban/SokobanGenerator.js"
import * as SokobanLevel from "../src/sokoban/SokobanLevel.js"
import * as SokobanSolver from "../src/sokoban/SokobanSolver.js"

describe("SokobanGenerator.generate", () => {
  it("is reproducible from the seed and varies with it", () => {
    const a = SokobanGenerator.generate(Rng.make(3))
    const b = SokobanGenerator.generate(Rng.make(3))
    const c = SokobanGenerator.generate(Rng.make(4))
    expect(SokobanLevel.renderLevel(b)).toBe(SokobanLevel.renderLevel(a))
    expect(SokobanLevel.renderLevel(c)).not.toBe(SokobanLevel.renderLevel(a))
  })

  it("produces walled 10x10 levels with 4 boxes off their goals that re-parse as valid levels", () => {
    const rng = Rng.make(0)
    for (let i = 0; i < 20; i++) {
      const level = SokobanGenerator.generate(rng, { width: 10, height: 10, numBoxes: 4 })
      expect([level.width, level.height, level.boxes.length, level.goals.length]).toEqual([10, 10, 4, 4])
      for (let x = 0; x < 10; x++) {
        expect([level.walls[x], level.walls[90 + x], level.walls[x * 10], level.walls[x * 10 + 9]]).toEqual([1, 1, 1, 1])
      }
      const goals = new Set(level.goals)
      for (const b of level.boxes) {
        expect(goals.has(b)).toBe(false)
        expect(level.walls[b]).toBe(0)
      }
      expect(level.walls[level.player]).toBe(0)
      expect(Array.from(level.boxes)).not.toContain(level.player)
      const [again] = SokobanLevel.parseLevelsSync(SokobanLevel.formatLevels([level]))
      expect(Array.from(again!.boxes)).toEqual(Array.from(level.boxes))
    }
  })

  it("every generated level is solvable: the solver solves 30 and the plans replay to termination", () => {
    const rng = Rng.make(2024)
    for (let i = 0; i < 30; i++) {
      const level = SokobanGenerator.generate(rng, { numBoxes: 1 + (i % 4) })
      const s = SokobanSolver.solve(level, { maxNodes: 500_000 })
      expect(s.status).toBe("solved")
      expect(s.pushes).toBeGreaterThan(0)
      const env = new Sokoban({ level, maxSteps: Infinity })
      env.reset({ seed: 0 })
      let last = env.step(s.actions[0]!)
      for (const a of s.actions.slice(1)) last = env.step(a)
      expect(last.terminated).toBe(true)
      expect(last.reward).toBeCloseTo(10.9, 10)
    }
  })

  it("fails with GenerationError after maxAttempts when the room cannot hold the boxes", () => {
    // a 5x5 room has at most 9 floor cells: 9 boxes and a player never fit
    try {
      SokobanGenerator.generate(Rng.make(0), { width: 5, height: 5, numBoxes: 9, maxAttempts: 3 })
      expect.unreachable()
    } catch (e) {
      expect(e).toBeInstanceOf(SokobanGenerator.GenerationError)
      expect((e as SokobanGenerator.GenerationError).attempts).toBe(3)
    }
    expect(() => SokobanGenerator.generate(Rng.make(0), { width: 3 })).toThrow(SokobanGenerator.GenerationError)
  })

  it.effect("generateEffect fails in the error channel", () =>
    Effect.gen(function*() {
      const e = yield* Effect.flip(SokobanGenerator.generateEffect(Rng.make(0), { numBoxes: 0 }))
      expect(e._tag).toBe("GenerationError")
      expect(e.attempts).toBe(0)
      const level = yield* SokobanGenerator.generateEffect(Rng.make(1), { width: 6, height: 6, numBoxes: 1 })
      expect(level.boxes).toHaveLength(1)
    }))
})

import { describe, expect, it } from "@effect/vitest"
import { Rng } from "@autodidact/core"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { Sokoban } from "../src/sokoban/Sokoban.js"
import * as SokobanGenerator from "../src/sokoban/SokobanGenerator.js"
import * as SokobanLevel from "../src/sokoban/SokobanLevel.js"
import * as SokobanSolver from "../src/sokoban/SokobanSolver.js"

const here = path.dirname(fileURLToPath(import.meta.url))
const boxobanFile = path.resolve(here, "../../../../shared/data/boxoban/unfiltered/valid/000.txt")
const haveBoxoban = fs.existsSync(boxobanFile)

/** Replay a plan in the env; returns the rewards. Fails the test on any wasted or illegal action. */
const replay = (level: SokobanLevel.Level, actions: ReadonlyArray<number>): Array<number> => {
  const env = new Sokoban({ level, maxSteps: Infinity })
  env.reset({ seed: 0 })
  const rewards: Array<number> = []
  actions.forEach((a, i) => {
    const r = env.step(a)
    expect(r.info["movedPlayer"]).toBe(true)
    expect(r.info["movedBox"]).toBe(a >= 1 && a <= 4)
    expect(r.terminated).toBe(i === actions.length - 1)
    rewards.push(r.reward)
  })
  return rewards
}

/**
 * Independent reference: breadth-first search over (boxes, player) with one push per level of the search, the
 * player's walk recomputed by flood fill. Exponential, for tiny levels only. Returns the minimum push count or -1.
 */
const bfsPushes = (level: SokobanLevel.Level): number => {
  const { width, height, walls } = level
  const goals = new Set(level.goals)
  const free = (cell: number, r: number, c: number, boxes: Set<number>) =>
    r >= 0 && r < height && c >= 0 && c < width && walls[cell] === 0 && !boxes.has(cell)
  const dirs = [[-1, 0], [1, 0], [0, -1], [0, 1]] as const
  const region = (player: number, boxes: Set<number>): Set<number> => {
    const seen = new Set([player])
    const stack = [player]
    while (stack.length > 0) {
      const x = stack.pop()!
      for (const [dr, dc] of dirs) {
        const r = Math.floor(x / width) + dr
        const c = (x % width) + dc
        const y = r * width + c
        if (free(y, r, c, boxes) && !seen.has(y)) {
          seen.add(y)
          stack.push(y)
        }
      }
    }
    return seen
  }
  const key = (boxes: ReadonlyArray<number>, reach: Set<number>) => `${[...boxes].sort((a, b) => a - b)}|${Math.min(...reach)}`
  let frontier: Array<{ boxes: Array<number>; player: number }> = [{ boxes: [...level.boxes], player: level.player }]
  const seen = new Set([key(frontier[0]!.boxes, region(level.player, new Set(level.boxes)))])
  for (let depth = 0; frontier.length > 0; depth++) {
    const next: typeof frontier = []
    for (const s of frontier) {
      if (s.boxes.every((b) => goals.has(b))) return depth
      const boxSet = new Set(s.boxes)
      const reach = region(s.player, boxSet)
      for (const b of s.boxes) {
        for (const [dr, dc] of dirs) {
          const br = Math.floor(b / width)
          const bc = b % width
          const from = (br - dr) * width + (bc - dc)
          const tr = br + dr
          const tc = bc + dc
          const to = tr * width + tc
          if (!reach.has(from) || !free(to, tr, tc, boxSet)) continue
          const boxes = s.boxes.map((x) => (x === b ? to : x))
          const k = key(boxes, region(b, new Set(boxes)))
          if (!seen.has(k)) {
            seen.add(k)
            next.push({ boxes, player: b })
          }
        }
      }
    }
    frontier = next
  }
  return -1
}

describe("SokobanSolver.solve", () => {
  it("solves a one-push level", () => {
    const level = SokobanLevel.fromRows(["#####", "#@$.#", "#####"])
    const s = SokobanSolver.solve(level)
    expect(s.status).toBe("solved")
    expect([s.pushes, s.moves, s.actions]).toEqual([1, "R", [4]])
  })

  it("finds hand-counted optimal push counts", () => {
    // corridor: three pushes right
    const corridor = SokobanSolver.solve(SokobanLevel.fromRows(["#######", "#@$  .#", "#######"]))
    expect([corridor.pushes, corridor.moves]).toEqual([3, "RRR"])
    // open room: the box needs 1 push up and 2 pushes left (Manhattan distance 3 is a lower bound)
    const room = SokobanSolver.solve(SokobanLevel.fromRows(["######", "#.   #", "#  $ #", "#@   #", "######"]))
    expect(room.pushes).toBe(3)
    // two boxes, one each way: push the right one right, walk back two cells, push the left one left
    const two = SokobanSolver.solve(SokobanLevel.fromRows(["########", "#.$ @$.#", "########"]))
    expect(two.pushes).toBe(2)
    expect(["RllL", "lLrrR"]).toContain(two.moves) // either box first
    // gym-sokoban ids: push U/D/L/R = 1..4, move u/d/l/r = 5..8
    const ids: Record<string, number> = { U: 1, D: 2, L: 3, R: 4, u: 5, d: 6, l: 7, r: 8 }
    expect(two.actions).toEqual([...two.moves].map((ch) => ids[ch]))
    // box beside a pillar: 1 push up, then 3 pushes right along the top row = 4 (its Manhattan distance)
    const detour = SokobanLevel.fromRows(["#######", "#    .#", "# $#  #", "#@    #", "#     #", "#######"])
    const d = SokobanSolver.solve(detour)
    expect(d.pushes).toBe(bfsPushes(detour))
    expect(d.pushes).toBe(4)
  })

  it("reports a box in a corner (and a frozen pair on a wall) as unsolvable", () => {
    const corner = SokobanSolver.solve(SokobanLevel.fromRows(["#####", "#$ .#", "# @ #", "#####"]))
    expect(corner.status).toBe("unsolvable")
    expect([corner.pushes, corner.moves, corner.actions]).toEqual([0, "", []])
    const frozen = SokobanSolver.solve(SokobanLevel.fromRows(["#######", "#.$$. #", "#  @  #", "#######"]))
    expect(frozen.status).toBe("unsolvable")
    expect(bfsPushes(SokobanLevel.fromRows(["#######", "#.$$. #", "#  @  #", "#######"]))).toBe(-1)
  })

  it("proves unsolvable by exhausting the search when no deadlock rule applies up front", () => {
    // the box is on a live square and not frozen, but once pushed down the player is shut in above it
    const level = SokobanLevel.fromRows(["#######", "##@####", "##$####", "#.   ##", "#######"])
    expect(bfsPushes(level)).toBe(-1)
    const s = SokobanSolver.solve(level)
    expect(s.status).toBe("unsolvable")
    expect(s.nodesExpanded).toBe(2)
  })

  it("reports budget-exceeded for a tiny node budget", () => {
    const level = SokobanLevel.fromRows(["########", "#.$ @$.#", "########"])
    const s = SokobanSolver.solve(level, { maxNodes: 1 })
    expect(s.status).toBe("budget-exceeded")
    expect(s.nodesExpanded).toBe(1)
    expect(s.actions).toEqual([])
  })

  it("matches breadth-first search on generated 7x7 levels and its plans replay to the +10 reward", () => {
    const rng = Rng.make(11)
    for (let i = 0; i < 12; i++) {
      const level = SokobanGenerator.generate(rng, { width: 7, height: 7, numBoxes: 2 })
      const s = SokobanSolver.solve(level)
      expect(s.status).toBe("solved")
      expect(s.pushes).toBe(bfsPushes(level))
      expect(s.moves.replace(/[a-z]/g, "")).toHaveLength(s.pushes)
      const rewards = replay(level, s.actions)
      expect(rewards[rewards.length - 1]).toBeCloseTo(10.9, 10)
    }
  })
})

describe("SokobanSolver on Boxoban", () => {
  it.skipIf(!haveBoxoban)(`solves the first 20 unfiltered/valid levels (skipped if ${boxobanFile} is absent)`, () => {
    const levels = SokobanLevel.parseLevelsSync(fs.readFileSync(boxobanFile, "utf8")).slice(0, 20)
    const summary = SokobanSolver.solveLevels(levels, { maxNodes: 200_000 })
    expect([summary.solved, summary.total]).toEqual([20, 20])
    summary.results.forEach((s, i) => {
      const rewards = replay(levels[i]!, s.actions)
      expect(rewards[rewards.length - 1]).toBeCloseTo(10.9, 10)
      expect(s.actions).toHaveLength(s.moves.length)
    })
    expect(summary.meanPlanLength).toBeCloseTo(summary.results.reduce((a, s) => a + s.actions.length, 0) / 20, 10)
  })
})

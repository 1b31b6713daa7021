import { describe, expect, it } from "@effect/vitest"
import * as ConnectFour from "../src/multiagent/ConnectFour.js"
import { IllegalActionError, TERMINAL } from "../src/multiagent/Game.js"
import * as GameRegistry from "../src/multiagent/GameRegistry.js"
import { validateGame } from "../src/multiagent/ValidateGame.js"
import { checkUndo, play } from "./gameTestUtil.js"

// Boards and outcomes below were worked out by hand and cross-checked with an independent Python simulation.
const board = (rows: ReadonlyArray<string>) => rows.map((r) => `${r}\n`).join("")

describe("ConnectFour", () => {
  const game = ConnectFour.make()

  it("is registered as connect_four with OpenSpiel's facts", () => {
    const g = GameRegistry.loadGame("connect_four")
    expect(g.info).toMatchObject({ name: "connect_four", numPlayers: 2, numDistinctActions: 7, maxGameLength: 42, utility: "zero-sum", perfectInformation: true })
    expect(GameRegistry.gameNames()).toContain("connect_four")
  })

  it("writes OpenSpiel's strings and player-relative tensor", () => {
    const s = play(game, [3, 3, 4]) as ConnectFour.ConnectFourState
    expect(s.informationStateString(0)).toBe("3, 3, 4")
    expect(s.informationStateString(1)).toBe("3, 3, 4")
    expect(s.observationString(1)).toBe(board([".......", ".......", ".......", ".......", "...o...", "...xx.."]))
    expect(s.actionToString(0, 5)).toBe("x5")
    expect(s.actionToString(1, 0)).toBe("o0")
    expect(s.currentPlayer()).toBe(1)
    expect(s.cellAt(0, 3)).toBe(2) // CROSS at the bottom of column 3
    expect(s.cellAt(1, 3)).toBe(1) // NOUGHT above it
    const t0 = s.observationTensor(0)
    // plane 0 = opponent, plane 1 = own, plane 2 = empty; cell = row * 7 + col, row 0 at the bottom
    expect(t0[0 * 42 + 1 * 7 + 3]).toBe(1) // o (opponent of player 0) at row 1, col 3
    expect(t0[1 * 42 + 0 * 7 + 3]).toBe(1) // own x at row 0, col 3
    expect(t0[1 * 42 + 0 * 7 + 4]).toBe(1)
    expect(t0[2 * 42 + 5 * 7 + 6]).toBe(1) // top-right corner empty
    expect(Array.from(t0).reduce((a, b) => a + b, 0)).toBe(42)
    const t1 = s.observationTensor(1)
    expect(t1[1 * 42 + 1 * 7 + 3]).toBe(1) // player 1's own o
    expect(t1[0 * 42 + 0 * 7 + 3]).toBe(1) // its opponent's x
  })

  it("scores horizontal, vertical and both diagonal lines", () => {
    const h = play(game, [0, 6, 1, 6, 2, 6, 3])
    expect(h.toString()).toBe(board([".......", ".......", ".......", "......o", "......o", "xxxx..o"]))
    expect(h.isTerminal()).toBe(true)
    expect(h.currentPlayer()).toBe(TERMINAL)
    expect(h.returns()).toEqual([1, -1])
    expect(h.legalActions()).toEqual([])

    const v = play(game, [0, 1, 0, 1, 0, 1, 2, 1])
    expect(v.toString()).toBe(board([".......", ".......", ".o.....", "xo.....", "xo.....", "xox...."]))
    expect(v.returns()).toEqual([-1, 1])

    const up = play(game, [0, 1, 1, 2, 2, 3, 2, 3, 3, 6, 3])
    expect(up.toString()).toBe(board([".......", ".......", "...x...", "..xx...", ".xxo...", "xooo..o"]))
    expect(up.returns()).toEqual([1, -1])

    const down = play(game, [6, 5, 5, 4, 4, 3, 4, 3, 3, 0, 3])
    expect(down.toString()).toBe(board([".......", ".......", "...x...", "...xx..", "...oxx.", "o..ooox"]))
    expect(down.returns()).toEqual([1, -1])

    // one move short of each line: not terminal
    expect(play(game, [0, 6, 1, 6, 2, 6]).isTerminal()).toBe(false)
    expect(play(game, [6, 5, 5, 4, 4, 3, 4, 3, 3, 0]).returns()).toEqual([0, 0])
  })

  it("ends a full board without a line in a draw", () => {
    const moves = [0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 4, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5, 6, 6, 6, 6, 6, 6]
    const before = play(game, moves.slice(0, 41))
    expect(before.isTerminal()).toBe(false)
    expect(before.legalActions()).toEqual([6])
    const s = play(game, moves)
    expect(s.toString()).toBe(board(["oooxooo", "xxxoxxx", "oooxooo", "xxxoxxx", "oooxooo", "xxxoxxx"]))
    expect(s.isTerminal()).toBe(true)
    expect(s.returns()).toEqual([0, 0])
  })

  it("rejects a full column with IllegalActionError naming the column", () => {
    const s = play(game, [2, 2, 2, 2, 2, 2])
    expect(s.legalActions()).toEqual([0, 1, 3, 4, 5, 6])
    try {
      s.applyAction(2)
      expect.unreachable()
    } catch (e) {
      expect(e).toBeInstanceOf(IllegalActionError)
      const err = e as IllegalActionError
      expect(err.action).toBe(2)
      expect(err.legal).toEqual([0, 1, 3, 4, 5, 6])
      expect(err.message).toMatch(/connect_four: action 2 is not legal/)
    }
    expect(() => s.applyAction(7)).toThrow(IllegalActionError)
    expect(() => s.applyAction(-1)).toThrow(IllegalActionError)
    expect(() => play(game, [0, 6, 1, 6, 2, 6, 3]).applyAction(4)).toThrow(IllegalActionError)
  })

  it("passes validateGame and undo restores every state", () => {
    const report = validateGame(game, { maxNodes: 5_000 })
    expect(report.complete).toBe(false)
    expect(report.maxDepth).toBeGreaterThanOrEqual(7)
    expect(checkUndo(game, 30, 3)).toBeGreaterThan(200)
  })
})

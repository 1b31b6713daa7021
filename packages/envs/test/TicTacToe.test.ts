import { describe, expect, it } from "@effect/vitest"
import { IllegalActionError, TERMINAL } from "../src/multiagent/Game.js"
import * as TicTacToe from "../src/multiagent/TicTacToe.js"
import { checkUndo, play } from "./gameTestUtil.js"

describe("TicTacToe", () => {
  const game = TicTacToe.make()

  it("writes OpenSpiel's strings", () => {
    const s = play(game, [4, 0])
    expect(s.informationStateString(0)).toBe("4, 0")
    expect(s.observationString(1)).toBe("o..\n.x.\n...")
    expect(s.actionToString(0, 5)).toBe("x(1,2)")
    expect(s.actionToString(1, 6)).toBe("o(2,0)")
    expect(s.legalActions()).toEqual([1, 2, 3, 5, 6, 7, 8])
    const t = (s as TicTacToe.TicTacToeState).observationTensor()
    expect(t[2 * 9 + 4]).toBe(1) // x at the centre
    expect(t[1 * 9 + 0]).toBe(1) // o in the corner
    expect(t[0 * 9 + 8]).toBe(1) // empty
    expect(Array.from(t).reduce((a, b) => a + b, 0)).toBe(9)
  })

  it("scores wins, losses and draws", () => {
    const x = play(game, [0, 3, 1, 4, 2])
    expect(x.isTerminal()).toBe(true)
    expect(x.currentPlayer()).toBe(TERMINAL)
    expect(x.returns()).toEqual([1, -1])
    expect(play(game, [0, 2, 1, 4, 8, 6]).returns()).toEqual([-1, 1]) // o on the anti-diagonal
    const draw = play(game, [0, 4, 8, 1, 7, 6, 2, 5, 3])
    expect(draw.toString()).toBe("xox\nxoo\noxx")
    expect(draw.isTerminal()).toBe(true)
    expect(draw.returns()).toEqual([0, 0])
    expect(() => x.applyAction(8)).toThrow(IllegalActionError)
    expect(() => play(game, [4, 4])).toThrow(IllegalActionError)
  })

  it("reaches exactly 5478 distinct positions", () => {
    const seen = new Set<string>()
    const go = (s: TicTacToe.TicTacToeState) => {
      const key = s.toString()
      if (seen.has(key)) return
      seen.add(key)
      if (s.isTerminal()) return
      for (const a of [...s.legalActions()]) {
        s.applyAction(a)
        go(s)
        s.undoAction(1 - s.currentPlayer(), a)
      }
    }
    go(game.newInitialState())
    expect(seen.size).toBe(5478)
  })

  it("undo restores every state exactly", () => {
    expect(checkUndo(game, 200, 6)).toBeGreaterThan(1000)
  })
})

import { describe, expect, it } from "@effect/vitest"
import { InvalidGameError, TERMINAL } from "../src/multiagent/Game.js"
import * as NormalFormGame from "../src/multiagent/NormalFormGame.js"
import { checkUndo, play, walk } from "./gameTestUtil.js"

describe("NormalFormGame", () => {
  it("indexes joint actions row-major with the last player fastest", () => {
    const shape = [2, 3, 4]
    const size = 24
    const payoffs = [0, 1, 2].map((p) => Array.from({ length: size }, (_, k) => 100 * p + k))
    const g = NormalFormGame.fromPayoffs("t3", shape, payoffs)
    expect(NormalFormGame.strides(shape)).toEqual([12, 4, 1])
    expect(g.payoff(2, [1, 2, 3])).toBe(200 + 23)
    expect(play(g, [1, 0, 2]).returns()).toEqual([14, 114, 214])
    expect(g.payoffs[0]).toBeInstanceOf(Float64Array)
    expect(g.info.utility).toBe("general-sum")
  })

  it("uses OpenSpiel's payoffs for the classic games", () => {
    const rps = NormalFormGame.rockPaperScissors()
    expect(play(rps, [1, 0]).returns()).toEqual([1, -1]) // paper covers rock
    expect(play(rps, [0, 1]).returns()).toEqual([-1, 1])
    expect(play(rps, [2, 2]).returns()).toEqual([0, 0])
    expect(rps.info.utility).toBe("zero-sum")
    const pd = NormalFormGame.prisonersDilemma()
    expect([[0, 0], [0, 1], [1, 0], [1, 1]].map((a) => play(pd, a).returns())).toEqual([[5, 5], [0, 10], [10, 0], [1, 1]])
    const cd = NormalFormGame.chicken()
    expect([[0, 0], [0, 1], [1, 0], [1, 1]].map((a) => play(cd, a).returns())).toEqual([[0, 0], [4, 1], [1, 4], [3, 3]])
    const mp = NormalFormGame.matchingPennies()
    expect(play(mp, [0, 0]).returns()).toEqual([1, -1])
    const sh = NormalFormGame.shapleysGame()
    expect(play(sh, [0, 2]).returns()).toEqual([1, 0]) // rock beats scissors
    expect(play(sh, [0, 0]).returns()).toEqual([0, 0])
    expect(sh.info.utility).toBe("general-sum")
    expect(NormalFormGame.coordination().info.utility).toBe("identical")
  })

  it("hides earlier players' choices in the information states (turn-based conversion)", () => {
    const rps = NormalFormGame.rockPaperScissors()
    const a = play(rps, [0])
    const b = play(rps, [2])
    expect(a.currentPlayer()).toBe(1)
    expect(a.informationStateString(1)).toBe("Current player: 1\n")
    expect(b.informationStateString(1)).toBe(a.informationStateString(1))
    expect(a.informationStateString(0)).toBe("Current player: 1\nObserver's action this turn: 0\n")
    const t = play(rps, [0, 2])
    expect(t.currentPlayer()).toBe(TERMINAL)
    expect(t.informationStateString(0)).toBe("Current player: -4\n0, 2")
    expect(walk(rps)).toEqual({ nodes: 13, terminals: 9, infoStates: 2 })
    expect(t.actionToString(1, 2)).toBe("Scissors")
  })

  it("validates shape, tensor count, lengths and finiteness", () => {
    const bad = (f: () => unknown, re: RegExp) => {
      try {
        f()
        expect.unreachable()
      } catch (e) {
        expect(e).toBeInstanceOf(InvalidGameError)
        expect((e as InvalidGameError).reason).toMatch(re)
      }
    }
    bad(() => NormalFormGame.fromPayoffs("x", [2, 0], [[], []]), /shape\[1\] = 0/)
    bad(() => NormalFormGame.fromPayoffs("x", [2, 1.5], [[1, 2], [1, 2]]), /shape\[1\] = 1.5/)
    bad(() => NormalFormGame.fromPayoffs("x", [2, 2], [[1, 2, 3, 4]]), /expected 2 payoff tensors/)
    bad(() => NormalFormGame.fromPayoffs("x", [2, 2], [[1, 2, 3, 4], [1, 2, 3]]), /player 1 have length 3, expected 4/)
    bad(() => NormalFormGame.fromPayoffs("x", [2, 2], [[1, 2, 3, 4], [1, NaN, 3, 4]]), /player 1 at index 1 is NaN/)
    bad(() => NormalFormGame.fromPayoffs("x", [2, 2], [[1, 2, Infinity, 4], [1, 2, 3, 4]]), /player 0 at index 2 is Infinity/)
    bad(() => NormalFormGame.fromPayoffs("x", [], []), /shape/)
  })

  it("undo restores states", () => {
    expect(checkUndo(NormalFormGame.fromPayoffs("t", [3, 2, 2], [0, 1, 2].map(() => new Array(12).fill(0).map((_, k) => k))), 50, 5)).toBe(150)
  })
})

import { Rng } from "@autodidact/core"
import { GameRegistry } from "@autodidact/envs"
import { describe, expect, it } from "vitest"
import * as Minimax from "../src/search/Minimax.js"

const ttt = GameRegistry.loadGame("tic_tac_toe")
const after = (moves: ReadonlyArray<number>) => {
  const s = ttt.newInitialState()
  for (const a of moves) s.applyAction(a)
  return s
}

describe("Minimax (alpha-beta) on tic-tac-toe", () => {
  it("perfect play draws: the root is worth 0, and so is every opening move", () => {
    expect(Minimax.search(ttt, ttt.newInitialState()).value).toBe(0)
    expect(Array.from(Minimax.actionValues(ttt, ttt.newInitialState()).values)).toEqual(new Array(9).fill(0))
  })
  it("finds a win in one (x at 0, 1; o at 3, 4; x plays 2), also at depth 1", () => {
    expect(Minimax.search(ttt, after([0, 3, 1, 4]))).toEqual({ value: 1, action: 2 })
    expect(Minimax.search(ttt, after([0, 3, 1, 4]), { maxDepth: 1 })).toEqual({ value: 1, action: 2 })
  })
  it("blocks: o facing x at 0, 1 must take 2; every other move loses", () => {
    const { legal, values } = Minimax.actionValues(ttt, after([0, 4, 1]))
    legal.forEach((a, k) => expect(values[k]).toBe(a === 2 ? 0 : -1))
    const play = Minimax.player()
    expect(play(ttt, after([0, 4, 1]), 1, Rng.make(0))).toBe(2)
  })
  it("the tie-breaking player against itself always draws, and its games differ by seed", () => {
    const play = Minimax.player()
    const histories = new Set<string>()
    for (let seed = 0; seed < 6; seed++) {
      const rng = Rng.make(seed)
      const s = ttt.newInitialState()
      while (!s.isTerminal()) s.applyAction(play(ttt, s, s.currentPlayer(), rng))
      expect(s.returns()).toEqual([0, 0])
      histories.add(s.history().join(","))
    }
    expect(histories.size).toBeGreaterThan(1)
  })
  it("refuses imperfect-information games and a negative depth, naming them", () => {
    const kuhn = GameRegistry.loadGame("kuhn_poker")
    expect(() => Minimax.search(kuhn, kuhn.newInitialState())).toThrow(/needs perfect information/)
    expect(() => Minimax.search(ttt, ttt.newInitialState(), { maxDepth: -1 })).toThrow(/maxDepth .* got -1/)
  })
})

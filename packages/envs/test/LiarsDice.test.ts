import { describe, expect, it } from "@effect/vitest"
import { CHANCE, IllegalActionError } from "../src/multiagent/Game.js"
import * as LiarsDice from "../src/multiagent/LiarsDice.js"
import { checkUndo, play } from "./gameTestUtil.js"

describe("LiarsDice", () => {
  const game = LiarsDice.make()
  const LIAR = LiarsDice.liarAction()

  it("numbers bids as OpenSpiel (quantity-face, Liar = dice * sides)", () => {
    expect(LIAR).toBe(12)
    expect(game.info.numDistinctActions).toBe(13)
    const s = play(game, [2, 5])
    expect(s.currentPlayer()).toBe(0)
    expect(s.legalActions()).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11])
    expect(s.actionToString(0, 0)).toBe("1-1")
    expect(s.actionToString(0, 7)).toBe("2-2")
    expect(s.actionToString(0, 12)).toBe("Liar")
    expect(s.actionToString(CHANCE, 5)).toBe("Roll 6")
    s.applyAction(7)
    expect(s.legalActions()).toEqual([8, 9, 10, 11, 12])
    expect(() => s.applyAction(7)).toThrow(IllegalActionError)
  })

  it("rolls each die uniformly over six faces", () => {
    const s = game.newInitialState()
    expect(s.chanceOutcomes()).toEqual([0, 1, 2, 3, 4, 5].map((k) => [k, 1 / 6]))
    expect(s.informationStateString(0)).toBe("-1")
  })

  it("writes OpenSpiel's information-state strings", () => {
    const s = play(game, [2, 5, 1, 11, LIAR])
    expect(s.informationStateString(0)).toBe("3 1-2 2-6 Liar")
    expect(s.informationStateString(1)).toBe("6 1-2 2-6 Liar")
    expect(s.toString()).toBe("3 6 1-2 2-6 Liar")
  })

  it("resolves Liar calls with sixes wild", () => {
    // p0 rolls 3, p1 rolls 6. p0 bids 1-2 (a 6 counts as a 2), p1 calls: the bidder wins.
    expect(play(game, [2, 5, 1, LIAR]).returns()).toEqual([1, -1])
    // p0 bids 2-3: only the 3 and the wild 6 -> two matches, bidder wins again.
    expect(play(game, [2, 5, 8, LIAR]).returns()).toEqual([1, -1])
    // p0 bids 1-1, p1 bids 2-4 (one 6 only), p0 calls: the caller (p0) wins.
    expect(play(game, [2, 5, 0, 9, LIAR]).returns()).toEqual([1, -1])
    // p0 bids 2-5 with a 3 and a 6: one match, p1 calls and wins.
    expect(play(game, [2, 5, 10, LIAR]).returns()).toEqual([-1, 1])
    expect(play(game, [2, 5]).returns()).toEqual([0, 0])
  })

  it("undo restores every state exactly (1 and 2 dice)", () => {
    expect(checkUndo(game, 200, 7)).toBeGreaterThan(600)
    expect(checkUndo(LiarsDice.make({ numdice: 2 }), 100, 8)).toBeGreaterThan(400)
  })
})

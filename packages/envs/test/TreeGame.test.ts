import { describe, expect, it } from "@effect/vitest"
import { CHANCE, InvalidGameError } from "../src/multiagent/Game.js"
import * as TreeGame from "../src/multiagent/TreeGame.js"
import { validateGame } from "../src/multiagent/ValidateGame.js"
import { checkUndo, play } from "./gameTestUtil.js"

const leaf = (u: number): TreeGame.TreeNode => ({ terminal: [u, -u] })
const pennies = (u = 1): TreeGame.TreeNode => ({
  player: 0,
  infoSet: "P0",
  actions: [
    { label: "H", child: { player: 1, infoSet: "P1", actions: [{ label: "H", child: leaf(u) }, { label: "T", child: leaf(-u) }] } },
    { label: "T", child: { player: 1, infoSet: "P1", actions: [{ label: "H", child: leaf(-u) }, { label: "T", child: leaf(u) }] } }
  ]
})

const fails = (f: () => unknown, re: RegExp) => {
  try {
    f()
    expect.unreachable()
  } catch (e) {
    expect(e).toBeInstanceOf(InvalidGameError)
    expect((e as InvalidGameError).reason).toMatch(re)
  }
}

describe("TreeGame", () => {
  it("builds a game from a nested description", () => {
    const g = TreeGame.fromTree("pennies", pennies())
    expect(g.info).toMatchObject({ numPlayers: 2, numDistinctActions: 2, utility: "zero-sum", maxGameLength: 2, minUtility: -1, maxUtility: 1 })
    const s = play(g, [1])
    expect(s.currentPlayer()).toBe(1)
    expect(s.informationStateString(1)).toBe("P1")
    expect(s.informationStateString(0)).toBe("P0|T")
    expect(s.actionToString(1, 0)).toBe("H")
    expect(play(g, [1, 1]).returns()).toEqual([1, -1])
    expect(play(g, [1, 0]).returns()).toEqual([-1, 1])
    expect(validateGame(g)).toMatchObject({ nodes: 7, terminals: 4, infoStates: 2, complete: true })
  })

  it("supports chance nodes and undo", () => {
    const g = TreeGame.fromTree("coin", { chance: [{ prob: 0.25, child: pennies(2) }, { prob: 0.75, child: pennies(1), label: "tails" }] })
    const s = g.newInitialState()
    expect(s.currentPlayer()).toBe(CHANCE)
    expect(s.chanceOutcomes()).toEqual([[0, 0.25], [1, 0.75]])
    expect(s.actionToString(CHANCE, 1)).toBe("tails")
    expect(play(g, [0, 0, 0]).returns()).toEqual([2, -2])
    expect(checkUndo(g, 30, 9)).toBe(90)
  })

  it("rejects broken trees on construction", () => {
    fails(() => TreeGame.fromTree("b", { chance: [{ prob: 0.5, child: leaf(1) }, { prob: 0.4, child: leaf(0) }] }), /chance probabilities sum to 0.9/)
    fails(() => TreeGame.fromTree("b", { player: 0, infoSet: "x", actions: [{ label: "a", child: { terminal: [NaN, 0] } }] }), /utility of player 0 is NaN.*history \[0\]/)
    fails(() => TreeGame.fromTree("b", { player: 0, infoSet: "x", actions: [{ label: "a", child: leaf(1) }, { label: "b", child: { terminal: [1, 2, 3] } }] }), /3 utilities, expected 2/)
    fails(() => TreeGame.fromTree("b", { player: 0, infoSet: "x", actions: [] }), /has no actions/)
    fails(
      () =>
        TreeGame.fromTree("b", {
          chance: [
            { prob: 0.5, child: { player: 0, infoSet: "same", actions: [{ label: "a", child: leaf(1) }] } },
            { prob: 0.5, child: { player: 0, infoSet: "same", actions: [{ label: "a", child: leaf(1) }, { label: "b", child: leaf(0) }] } }
          ]
        }),
      /information set "same" of player 0 has actions/
    )
    fails(() => TreeGame.fromTree("b", { player: 2, infoSet: "x", actions: [{ label: "a", child: leaf(1) }] }), /player 2 acts but terminals have only 2/)
  })
})

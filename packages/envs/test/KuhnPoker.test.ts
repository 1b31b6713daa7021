import { describe, expect, it } from "@effect/vitest"
import { CHANCE, IllegalActionError, InvalidGameError, TERMINAL } from "../src/multiagent/Game.js"
import * as KuhnPoker from "../src/multiagent/KuhnPoker.js"
import { checkUndo, play, walk } from "./gameTestUtil.js"

describe("KuhnPoker", () => {
  const game = KuhnPoker.make()

  it("deals by chance, one card per player, uniformly over the cards left", () => {
    const s = game.newInitialState()
    expect(s.currentPlayer()).toBe(CHANCE)
    expect(s.chanceOutcomes()).toEqual([[0, 1 / 3], [1, 1 / 3], [2, 1 / 3]])
    s.applyAction(1)
    expect(s.chanceOutcomes()).toEqual([[0, 0.5], [2, 0.5]])
    s.applyAction(2)
    expect(s.currentPlayer()).toBe(0)
    expect(s.legalActions()).toEqual([0, 1])
    expect(KuhnPoker.make({ players: 3 }).newInitialState().chanceOutcomes().map(([, p]) => p)).toEqual([0.25, 0.25, 0.25, 0.25])
  })

  it("writes OpenSpiel's information-state and observation strings", () => {
    // p0 holds K (2), p1 holds J (0); p0 passes, p1 bets.
    const s = play(game, [2, 0, 0, 1])
    expect(s.informationStateString(0)).toBe("2pb")
    expect(s.informationStateString(1)).toBe("0pb")
    expect(s.observationString(0)).toBe("212")
    expect(s.observationString(1)).toBe("012")
    expect(s.toString()).toBe("2 0 pb")
    expect(play(game, [2]).informationStateString(1)).toBe("")
    expect(play(game, [2, 0]).informationStateString(1)).toBe("0")
    expect(s.actionToString(CHANCE, 2)).toBe("Deal:2")
    expect(s.actionToString(0, 1)).toBe("Bet")
  })

  it("pays the hand-computed returns", () => {
    expect(play(game, [2, 0, 0, 0]).returns()).toEqual([1, -1]) // check-check, K beats J
    expect(play(game, [2, 0, 0, 1, 1]).returns()).toEqual([2, -2]) // check-bet-call, K wins the 4-chip pot
    expect(play(game, [2, 0, 0, 1, 0]).returns()).toEqual([-1, 1]) // check-bet-fold
    expect(play(game, [0, 2, 1, 0]).returns()).toEqual([1, -1]) // bet-fold
    expect(play(game, [0, 2, 1, 1]).returns()).toEqual([-2, 2]) // bet-call, J loses to K
    const t = play(game, [0, 2, 1, 1])
    expect(t.isTerminal()).toBe(true)
    expect(t.currentPlayer()).toBe(TERMINAL)
    expect(t.legalActions()).toEqual([])
  })

  it("plays three players: the bettor's highest card wins, folders lose their ante", () => {
    const g3 = KuhnPoker.make({ players: 3 })
    // cards p0=0, p1=1, p2=2; p0 bets, p1 folds, p2 calls: pot 5, p2 wins 5 - 2.
    expect(play(g3, [0, 1, 2, 1, 0, 1]).returns()).toEqual([-2, -1, 3])
    // everyone checks: card 3 was not dealt, so card 2 (p2) wins the 3-chip pot.
    expect(play(g3, [0, 1, 2, 0, 0, 0]).returns()).toEqual([-1, -1, 2])
    // p1 bets after p0 checks; p2 folds, p0 calls: round ends after p0 (n + firstBettor = 4 actions)
    const s = play(g3, [3, 1, 2, 0, 1, 0, 1])
    expect(s.isTerminal()).toBe(true)
    expect(s.returns()).toEqual([3, -2, -1])
    expect(play(g3, [3, 1, 0, 0]).informationStateString(1)).toBe("1p")
  })

  it("has 12 information states for 2 players and 48 for 3", () => {
    expect(walk(game)).toEqual({ nodes: 58, terminals: 30, infoStates: 12 })
    expect(walk(KuhnPoker.make({ players: 3 })).infoStates).toBe(48)
  })

  it("undo restores every state exactly", () => {
    expect(checkUndo(game, 200, 1)).toBeGreaterThan(600)
    expect(checkUndo(KuhnPoker.make({ players: 3 }), 200, 2)).toBeGreaterThan(800)
  })

  it("rejects illegal actions and bad parameters with typed errors", () => {
    const s = play(game, [1])
    try {
      s.applyAction(1)
      expect.unreachable()
    } catch (e) {
      expect(e).toBeInstanceOf(IllegalActionError)
      expect((e as IllegalActionError).legal).toEqual([0, 2])
      expect((e as IllegalActionError).history).toEqual([1])
    }
    expect(() => play(game, [0, 1, 2])).toThrow(IllegalActionError)
    expect(() => play(game, [0, 1, 0, 0, 0])).toThrow(IllegalActionError) // terminal
    expect(() => KuhnPoker.make({ players: 1 })).toThrow(InvalidGameError)
  })
})

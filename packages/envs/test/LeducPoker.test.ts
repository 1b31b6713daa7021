import { describe, expect, it } from "@effect/vitest"
import { CHANCE, type Game, IllegalActionError, type State } from "../src/multiagent/Game.js"
import * as LeducPoker from "../src/multiagent/LeducPoker.js"
import { checkUndo, play, walk } from "./gameTestUtil.js"

/** NashConv of the uniform policy by plain best response (independent of the solvers package). */
const uniformNashConv = (game: Game): number => {
  let total = 0
  for (let br = 0; br < game.info.numPlayers; br++) {
    const infosets = new Map<string, Array<{ state: State; weight: number }>>()
    const collect = (s: State, w: number) => {
      if (s.isTerminal()) return
      const p = s.currentPlayer()
      if (p === CHANCE) {
        for (const [a, pr] of s.chanceOutcomes()) collect(s.child(a), w * pr)
        return
      }
      if (p === br) {
        const k = s.informationStateString(p)
        const list = infosets.get(k) ?? []
        list.push({ state: s.clone(), weight: w })
        infosets.set(k, list)
      }
      const legal = s.legalActions()
      for (const a of legal) collect(s.child(a), p === br ? w : w / legal.length)
    }
    collect(game.newInitialState(), 1)
    const best = new Map<string, number>()
    const value = (s: State): number => {
      if (s.isTerminal()) return s.returns()[br]!
      const p = s.currentPlayer()
      if (p === CHANCE) return s.chanceOutcomes().reduce((v, [a, pr]) => v + pr * value(s.child(a)), 0)
      const legal = s.legalActions()
      if (p !== br) return legal.reduce((v, a) => v + value(s.child(a)) / legal.length, 0)
      const k = s.informationStateString(p)
      let b = best.get(k)
      if (b === undefined) {
        let bv = -Infinity
        for (const a of legal) {
          const v = infosets.get(k)!.reduce((t, { state, weight }) => t + weight * value(state.child(a)), 0)
          if (v > bv) {
            bv = v
            b = a
          }
        }
        best.set(k, b!)
      }
      return value(s.child(b!))
    }
    total += value(game.newInitialState())
  }
  return total
}

describe("LeducPoker", () => {
  const game = LeducPoker.make()

  it("deals private cards, then the public card, uniformly from the cards left", () => {
    const s = game.newInitialState()
    expect(s.chanceOutcomes()).toEqual([0, 1, 2, 3, 4, 5].map((c) => [c, 1 / 6]))
    s.applyAction(0)
    s.applyAction(2)
    expect(s.currentPlayer()).toBe(0)
    s.applyAction(LeducPoker.CALL)
    s.applyAction(LeducPoker.CALL)
    expect(s.currentPlayer()).toBe(CHANCE)
    expect(s.chanceOutcomes()).toEqual([1, 3, 4, 5].map((c) => [c, 0.25]))
  })

  it("offers fold only under pressure and at most two raises per round", () => {
    const s = play(game, [0, 2])
    expect(s.legalActions()).toEqual([1, 2])
    s.applyAction(LeducPoker.RAISE)
    expect(s.legalActions()).toEqual([0, 1, 2])
    s.applyAction(LeducPoker.RAISE)
    expect(s.legalActions()).toEqual([0, 1])
    expect(() => s.applyAction(LeducPoker.RAISE)).toThrow(IllegalActionError)
  })

  it("writes OpenSpiel's information-state and observation strings", () => {
    // p0 holds J1 (0), p1 holds Q1 (2).
    const s = play(game, [0, 2])
    expect(s.informationStateString(0)).toBe("[Observer: 0][Private: 0][Round 1][Player: 0][Pot: 2][Money: 99 99][Round1: ][Round2: ]")
    s.applyAction(LeducPoker.RAISE)
    expect(s.informationStateString(1)).toBe("[Observer: 1][Private: 2][Round 1][Player: 1][Pot: 4][Money: 97 99][Round1: 2][Round2: ]")
    s.applyAction(LeducPoker.CALL)
    s.applyAction(4) // public K1
    expect(s.informationStateString(0)).toBe(
      "[Observer: 0][Private: 0][Round 2][Player: 0][Pot: 6][Money: 97 97][Public: 4][Round1: 2 1][Round2: ]"
    )
    expect(s.observationString(0)).toBe("[Observer: 0][Private: 0][Round 2][Player: 0][Pot: 6][Money: 97 97][Public: 4][Ante: 3 3]")
    expect(play(game, [3]).informationStateString(1)).toBe("[Observer: 1][Private: -10000][Round 1][Player: -1][Pot: 2][Money: 99 99][Round1: ][Round2: ]")
    expect(s.actionToString(CHANCE, 4)).toBe("Chance outcome:4")
    expect(s.actionToString(0, 0)).toBe("Fold")
  })

  it("pays the hand-computed returns", () => {
    // raise, call; K public; check, raise 4, call: p1's Q beats p0's J, pot 14.
    expect(play(game, [0, 2, 2, 1, 4, 1, 2, 1]).returns()).toEqual([-7, 7])
    // check, check; J2 public pairs p0's J1.
    expect(play(game, [0, 2, 1, 1, 1, 1, 1]).returns()).toEqual([1, -1])
    // J1 vs J2 with a Q public: tie, pot split.
    expect(play(game, [0, 1, 1, 1, 2, 1, 1]).returns()).toEqual([0, 0])
    // raise, fold.
    const f = play(game, [0, 2, 2, 0])
    expect(f.isTerminal()).toBe(true)
    expect(f.returns()).toEqual([1, -1])
    // raise, re-raise, call (5 chips each); round two: p0 raises 4, p1 folds and loses its 5.
    expect(play(game, [5, 0, 2, 2, 1, 3, 2, 0]).returns()).toEqual([5, -5])
    expect(game.info.minUtility).toBe(-13)
    expect(game.info.maxUtility).toBe(13)
  })

  it("has exactly OpenSpiel's 936 information states and 9457 histories (2 players)", () => {
    expect(walk(game)).toEqual({ nodes: 9457, terminals: 5520, infoStates: 936 })
  })

  it("gives OpenSpiel's uniform-policy NashConv 4.747222222222222", () => {
    expect(uniformNashConv(game)).toBeCloseTo(4.747222222222222, 12)
  })

  it("undo restores every state exactly (2 and 3 players)", () => {
    expect(checkUndo(game, 300, 3)).toBeGreaterThan(1500)
    expect(checkUndo(LeducPoker.make({ players: 3 }), 200, 4)).toBeGreaterThan(1000)
  })
})

import { describe, expect, it } from "@effect/vitest"
import { CHANCE, type Game, type State } from "../src/multiagent/Game.js"
import * as KuhnPoker from "../src/multiagent/KuhnPoker.js"
import * as LeducPoker from "../src/multiagent/LeducPoker.js"
import * as LiarsDice from "../src/multiagent/LiarsDice.js"

const after = (game: Game, actions: ReadonlyArray<number>): State => {
  const s = game.newInitialState()
  for (const a of actions) s.applyAction(a)
  return s
}

const tensor = (s: State, p: number): Array<number> => Array.from(s.informationStateTensor!(p))

/** Every decision node's tensor for the acting player must name its information state one-to-one. */
const checkOneToOne = (game: Game) => {
  const byKey = new Map<string, string>()
  const byTensor = new Map<string, string>()
  const walk = (s: State) => {
    if (s.isTerminal()) return
    const p = s.currentPlayer()
    if (p !== CHANCE) {
      const k = s.informationStateString(p)
      const t = tensor(s, p).join(",")
      expect(t.split(",").length).toBe(game.informationStateTensorSize)
      if (byKey.has(k)) expect(byKey.get(k)).toBe(t)
      else byKey.set(k, t)
      if (byTensor.has(t)) expect(byTensor.get(t)).toBe(k)
      else byTensor.set(t, k)
    }
    for (const a of s.legalActions()) {
      s.applyAction(a)
      walk(s)
      s.undoAction(p, a)
    }
  }
  walk(game.newInitialState())
  return byKey.size
}

describe("informationStateTensor (OpenSpiel layouts)", () => {
  it("Kuhn: size 11; [player(2) | card(3) | 3 actions x (pass, bet)] by hand", () => {
    const g = KuhnPoker.make()
    expect(g.informationStateTensorSize).toBe(11)
    expect(tensor(after(g, []), 1)).toEqual([0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0])
    // K to p0, J to p1; p0 passes, p1 bets
    expect(tensor(after(g, [2, 0, 0, 1]), 0)).toEqual([1, 0, 0, 0, 1, 1, 0, 0, 1, 0, 0])
    expect(tensor(after(g, [2, 0, 0, 1]), 1)).toEqual([0, 1, 1, 0, 0, 1, 0, 0, 1, 0, 0])
    expect(KuhnPoker.make({ players: 3 }).informationStateTensorSize).toBe(3 + 4 + 10)
    expect(checkOneToOne(g)).toBe(12)
  })

  it("Leduc: size 30; [player(2) | private(6) | public(6) | round1 4x(call, raise) | round2 4x(call, raise)] by hand", () => {
    const g = LeducPoker.make()
    expect(g.informationStateTensorSize).toBe(30)
    // J1 to p0, Q2 to p1; p0 raises, p1 calls; public K1; p0 checks (call), p1 raises
    const s = after(g, [0, 3, 2, 1, 4, 1, 2])
    const want0 = new Array<number>(30).fill(0)
    want0[0] = 1
    want0[2 + 0] = 1 // private J1
    want0[8 + 4] = 1 // public K1
    want0[14 + 1] = 1 // round 1: raise
    want0[14 + 2] = 1 // round 1: call
    want0[22 + 0] = 1 // round 2: call (check)
    want0[22 + 3] = 1 // round 2: raise
    expect(tensor(s, 0)).toEqual(want0)
    const want1 = [...want0]
    want1[0] = 0
    want1[1] = 1
    want1[2] = 0
    want1[2 + 3] = 1 // private Q2
    expect(tensor(s, 1)).toEqual(want1)
    // writes into a given buffer and zero-fills it first
    const out = new Float64Array(30).fill(7)
    expect(after(g, [5]).informationStateTensor!(0, out)).toBe(out)
    expect(Array.from(out)).toEqual([1, 0, 0, 0, 0, 0, 0, 1, ...new Array<number>(22).fill(0)])
    expect(checkOneToOne(g)).toBe(936)
  })

  it("Liar's dice: size 2 + dice·sides + total·sides + 1; dice sorted once rolled, one bit per bid", () => {
    const g = LiarsDice.make()
    expect(g.informationStateTensorSize).toBe(2 + 6 + 12 + 1)
    // p0 rolls 3, p1 rolls 6; p0 bids 1-2 (action 1); p1 bids 2-6 (action 11)
    const s = after(g, [2, 5, 1, 11])
    const want = new Array<number>(21).fill(0)
    want[1] = 1
    want[2 + 5] = 1
    want[8 + 1] = 1
    want[8 + 11] = 1
    expect(tensor(s, 1)).toEqual(want)
    const g2 = LiarsDice.make({ numdice: 2, diceSides: 3 })
    expect(g2.informationStateTensorSize).toBe(2 + 6 + 12 + 1)
    // p0 rolls 3 then 1 (sorted: 1, 3); p1 rolls 2, 2; p0 bids action 0; p1 calls Liar (12)
    const t = after(g2, [2, 0, 1, 1, 0, 12])
    expect(tensor(t, 0)).toEqual([1, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1])
    // while rolling: roll order, zeros for dice not rolled
    expect(tensor(after(g2, [2]), 0)).toEqual([1, 0, 0, 0, 1, 0, 0, 0, ...new Array<number>(13).fill(0)])
    expect(checkOneToOne(LiarsDice.make({ diceSides: 3 }))).toBe(3 * 2 ** 6) // 3 faces x 64 bid subsets, half of them at each player
    expect(() => s.informationStateTensor!(2)).toThrow(/player 2/)
  })
})

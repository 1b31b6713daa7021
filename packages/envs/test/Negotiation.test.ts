import { describe, expect, it } from "@effect/vitest"
import { CHANCE, IllegalActionError, InvalidGameError, TERMINAL } from "../src/multiagent/Game.js"
import * as GameRegistry from "../src/multiagent/GameRegistry.js"
import * as Negotiation from "../src/multiagent/Negotiation.js"
import { validateGame } from "../src/multiagent/ValidateGame.js"
import { checkUndo } from "./gameTestUtil.js"

/** Two resources (Wheat 5..6, Wood 8..12), quantities 1..2, 2 turns: the docstring's example game. */
const small = () => Negotiation.make({ numResources: 2, minQuantity: 1, maxQuantity: 2, maxTurns: 4, maxOffer: 2 })
/** p0 quantities [2, 1] values [5, 9]; p1 quantities [1, 2] values [6, 8]. */
const DEAL = [2, 1, 5, 9, 1, 2, 6, 8]

const dealt = (g: Negotiation.NegotiationGame, deal: ReadonlyArray<number>) => {
  const s = g.newInitialState()
  for (const d of deal) s.applyAction(d)
  return s
}

describe("Negotiation", () => {
  it("has TextArena's value ranges and deals from uniform chance nodes", () => {
    const g = Negotiation.make()
    expect(g.resourceNames).toEqual(["Wheat", "Wood", "Sheep", "Brick", "Ore"])
    // base b, variation floor(0.2 b), clipped to [5, 40]
    expect(Negotiation.valueRanges()).toEqual([[5, 6], [8, 12], [12, 18], [20, 30], [32, 40]])
    expect(g.info).toMatchObject({ name: "negotiation", numPlayers: 2, numDistinctActions: 3 + 20 * 9, maxChanceOutcomes: 41, maxGameLength: 30, utility: "zero-sum" })
    const s = g.newInitialState()
    expect(s.currentPlayer()).toBe(CHANCE)
    expect(s.chanceOutcomes()).toHaveLength(21) // quantities 5..25
    expect(s.chanceOutcomes()[0]).toEqual([5, 1 / 21])
    for (let k = 0; k < 5; k++) s.applyAction(10 + k)
    expect(s.chanceOutcomes().map(([a]) => a)).toEqual([5, 6]) // Wheat's value
    s.applyAction(6)
    expect(s.chanceOutcomes().map(([a]) => a)).toEqual([8, 9, 10, 11, 12]) // Wood's value
  })

  it("encodes offers densely and decodes them back", () => {
    const g = Negotiation.make()
    const seen = new Set<number>()
    for (let give = 0; give < 5; give++) {
      for (let get = 0; get < 5; get++) {
        if (give === get) continue
        for (let a = 1; a <= 3; a++) {
          for (let b = 1; b <= 3; b++) {
            const id = g.offerAction(give, a, get, b)
            expect(g.decodeOffer(id)).toEqual({ give, giveQty: a, get, getQty: b })
            seen.add(id)
          }
        }
      }
    }
    expect(Math.min(...seen)).toBe(3)
    expect(Math.max(...seen)).toBe(182)
    expect(seen.size).toBe(180)
    expect(g.offerAction(0, 2, 1, 1)).toBe(3 + 3) // pair (Wheat, Wood) = 0, (a-1) * 3 + (b-1) = 3
    expect(() => g.offerAction(1, 1, 1, 1)).toThrow(InvalidGameError)
    expect(() => g.offerAction(0, 4, 1, 1)).toThrow(InvalidGameError)
  })

  it("plays the hand-computed example: an accepted trade and its returns", () => {
    const g = small()
    const s = dealt(g, DEAL)
    expect(s.currentPlayer()).toBe(0)
    expect(s.informationStateString(0)).toBe("[Player: 0][Quantities: 2 1][Values: 5 9][Turn: 0/4][Moves: ]")
    expect(s.informationStateString(1)).toBe("[Player: 1][Quantities: 1 2][Values: 6 8][Turn: 0/4][Moves: ]")
    // player 0 holds 2 Wheat, 1 Wood: it can offer 1-2 Wheat or 1 Wood; no accept (no offer yet)
    const legal0 = s.legalActions()
    expect(legal0).toEqual([Negotiation.PASS, g.offerAction(0, 1, 1, 1), g.offerAction(0, 1, 1, 2), g.offerAction(0, 2, 1, 1), g.offerAction(0, 2, 1, 2), g.offerAction(1, 1, 0, 1), g.offerAction(1, 1, 0, 2)])
    const offer = g.offerAction(0, 1, 1, 1)
    s.applyAction(offer)
    expect(s.actionToString(0, offer)).toBe("Offer(1 Wheat -> 1 Wood)")
    expect(s.pendingOffer()).toEqual({ give: 0, giveQty: 1, get: 1, getQty: 1, from: 0 })
    expect(s.legalActions().slice(0, 2)).toEqual([Negotiation.ACCEPT, Negotiation.DENY]) // no pass while facing an offer
    expect(() => s.clone().applyAction(Negotiation.PASS)).toThrow(IllegalActionError)
    expect(s.observationString(1)).toBe("[Player: 1][Inventory: 1 2][Values: 6 8][Change: 0][Turn: 1/4][Offer to you: 1 Wheat -> 1 Wood]")
    s.applyAction(Negotiation.ACCEPT)
    expect([s.quantity(0, 0), s.quantity(0, 1), s.quantity(1, 0), s.quantity(1, 1)]).toEqual([1, 2, 2, 1])
    expect(s.valueChange(0)).toBe(-5 + 9)
    expect(s.valueChange(1)).toBe(6 - 8)
    expect(s.pendingOffer()).toBeUndefined() // an accept is not an offer
    s.applyAction(Negotiation.PASS)
    s.applyAction(Negotiation.PASS)
    expect(s.isTerminal()).toBe(true)
    expect(s.currentPlayer()).toBe(TERMINAL)
    expect(s.returns()).toEqual([1, -1])
    expect(s.informationStateString(1)).toBe("[Player: 1][Quantities: 1 2][Values: 6 8][Turn: 4/4][Moves: Offer(1 Wheat -> 1 Wood) Accept Pass Pass]")
    // undo the accept restores the inventories
    s.undoAction(1, Negotiation.PASS)
    s.undoAction(0, Negotiation.PASS)
    s.undoAction(1, Negotiation.ACCEPT)
    expect([s.quantity(0, 0), s.quantity(0, 1), s.quantity(1, 0), s.quantity(1, 1)]).toEqual([2, 1, 1, 2])
  })

  it("runs the module docstring's example", () => {
    const g = Negotiation.make({ numResources: 2, minQuantity: 1, maxQuantity: 2, maxTurns: 2 })
    const s = dealt(g, DEAL)
    s.applyAction(g.offerAction(0, 1, 1, 1))
    s.applyAction(Negotiation.ACCEPT)
    expect(s.isTerminal()).toBe(true)
    expect(s.returns()).toEqual([1, -1])
  })

  it("draws on equal gains, rejects offers not accepted at once, and refuses uncovered moves", () => {
    const g = small()
    const none = dealt(g, DEAL)
    for (let k = 0; k < 4; k++) none.applyAction(Negotiation.PASS)
    expect(none.returns()).toEqual([0, 0])
    // player 0 offers 2 Wood (it has 1): illegal
    const s = dealt(g, DEAL)
    expect(() => s.applyAction(g.offerAction(1, 2, 0, 1))).toThrow(IllegalActionError)
    expect(() => s.applyAction(Negotiation.ACCEPT)).toThrow(IllegalActionError) // nothing to accept
    // player 0 asks 2 Wheat for 1 Wood; player 1 holds only 1 Wheat: it cannot accept
    s.applyAction(g.offerAction(1, 1, 0, 2))
    expect(s.legalActions()).not.toContain(Negotiation.ACCEPT)
    expect(() => s.applyAction(Negotiation.ACCEPT)).toThrow(IllegalActionError)
    // player 1 counter-offers; player 0 denies; nothing stands on player 1's turn
    s.applyAction(g.offerAction(1, 1, 0, 1))
    expect(s.legalActions()).toContain(Negotiation.ACCEPT)
    s.applyAction(Negotiation.DENY)
    expect(s.pendingOffer()).toBeUndefined()
    expect(s.legalActions()).not.toContain(Negotiation.ACCEPT)
    expect(s.legalActions()).not.toContain(Negotiation.DENY)
    expect(s.informationStateString(1)).toBe("[Player: 1][Quantities: 1 2][Values: 6 8][Turn: 3/4][Moves: Offer(1 Wood -> 2 Wheat) Offer(1 Wood -> 1 Wheat) Deny]")
  })

  it("plays SPIRAL's SimpleNegotiation-v1 deal and standing offers", () => {
    const g = Negotiation.make({ variant: "spiral" })
    expect(g.resourceNames).toEqual(["Wood", "Gold"])
    const s = g.newInitialState()
    const deal: Array<number> = []
    while (s.isChanceNode()) {
      expect(s.chanceOutcomes()).toHaveLength(1) // the deal is fixed
      deal.push(s.chanceOutcomes()[0]![0])
      s.applyAction(s.chanceOutcomes()[0]![0])
    }
    expect(deal).toEqual([10, 10, 5, 15, 10, 10, 15, 5]) // 10 Wood, 10 Gold each; values (5, 15) and (15, 5)
    s.applyAction(g.offerAction(0, 3, 1, 1)) // player 0 offers 3 Wood for 1 Gold
    expect(s.legalActions().slice(0, 3)).toEqual([Negotiation.ACCEPT, Negotiation.DENY, Negotiation.PASS])
    s.applyAction(Negotiation.PASS) // player 1 leaves it open
    expect(s.pendingOffer()).toEqual({ give: 0, giveQty: 3, get: 1, getQty: 1, from: 0 })
    expect(s.legalActions()).not.toContain(Negotiation.ACCEPT) // player 0 cannot accept its own offer
    s.applyAction(Negotiation.PASS)
    s.applyAction(Negotiation.ACCEPT) // player 1 accepts two turns later
    // player 0: Wood 7, Gold 11: -3 * 5 + 1 * 15 = 0; player 1: Wood 13, Gold 9: +3 * 15 - 1 * 5 = +40
    expect([s.valueChange(0), s.valueChange(1)]).toEqual([0, 40])
    for (let t = 4; t < 10; t++) s.applyAction(Negotiation.PASS)
    expect(s.returns()).toEqual([-1, 1])
    // a new offer replaces the standing one
    const r = g.newInitialState()
    for (const d of deal) r.applyAction(d)
    r.applyAction(g.offerAction(0, 1, 1, 1))
    r.applyAction(Negotiation.PASS)
    r.applyAction(g.offerAction(1, 1, 0, 2))
    expect(r.pendingOffer()).toEqual({ give: 1, giveQty: 1, get: 0, getQty: 2, from: 0 })
    const whole = validateGame(Negotiation.make({ variant: "spiral", maxTurns: 3, maxOffer: 1 }))
    expect(whole).toMatchObject({ complete: true, chanceNodes: 8 })
    expect(() => Negotiation.make({ variant: "spiral", numResources: 2 })).toThrow(/num_resources does not apply/)
  })

  it("validates parameters with typed errors naming the parameter", () => {
    expect(() => Negotiation.make({ maxTurns: 0 })).toThrow(/max_turns must be an integer in \[1, 100\], got 0/)
    expect(() => Negotiation.make({ numResources: 6 })).toThrow(/num_resources/)
    expect(() => Negotiation.make({ minQuantity: 30 })).toThrow(/min_quantity must be an integer in \[0, 25\], got 30/)
    expect(() => Negotiation.make({ maxOffer: 1.5 })).toThrow(InvalidGameError)
    expect(() => GameRegistry.loadGame("negotiation(max_offer=0)")).toThrow(/max_offer must be an integer in \[1, 10\], got 0/)
    expect(() => GameRegistry.loadGame("negotiation(max_turns=abc)")).toThrow(GameRegistry.UnknownGameError)
    expect(() => GameRegistry.loadGame("negotiation(rounds=3)")).toThrow(/no parameter "rounds"/)
    const g = GameRegistry.loadGame("negotiation(num_resources=2,max_turns=6)")
    expect(g.info.parameters).toEqual({ variant: "textarena", max_turns: 6, num_resources: 2, min_quantity: 5, max_quantity: 25, max_offer: 3 })
    expect(GameRegistry.loadGame("negotiation(variant=spiral)").info.parameters).toEqual({ variant: "spiral", max_turns: 10, max_offer: 3 })
    expect(() => GameRegistry.loadGame("negotiation(variant=spiral,num_resources=3)")).toThrow(/num_resources does not apply to variant "spiral"/)
    expect(() => GameRegistry.loadGame("negotiation(variant=chess)")).toThrow(/variant must be "textarena" or "spiral", got "chess"/)
  })

  it("passes validateGame on a whole small tree; undo restores states", () => {
    const g = Negotiation.make({ numResources: 2, minQuantity: 1, maxQuantity: 1, maxTurns: 3, maxOffer: 1 })
    const report = validateGame(g)
    expect(report.complete).toBe(true)
    expect(report.terminals).toBeGreaterThan(100)
    expect(validateGame(Negotiation.make(), { maxNodes: 3000 }).maxDepth).toBe(30)
    expect(checkUndo(small(), 40, 5)).toBeGreaterThan(300)
  })
})

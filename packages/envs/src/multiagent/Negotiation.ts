/**
 * SPIRAL's Simple Negotiation as a finite two-player zero-sum extensive-form game: TextArena's `SimpleNegotiation`,
 * the environment SPIRAL trains on (Liu et al. 2025, arXiv:2506.24119), with free-text offers restricted to a
 * finite, parameterised set of one-for-one trades. Two rule sets (`variant`):
 *
 * **`variant: "textarena"` (default) — TextArena's `textarena/envs/SimpleNegotiation/env.py`**
 * - Resources Wheat, Wood, Sheep, Brick, Ore with base values 5, 10, 15, 25, 40 (the first `num_resources` of them).
 * - Each player starts with a quantity uniform in `[min_quantity, max_quantity]` (TextArena: 5..25) of every resource,
 *   and a private value per resource uniform in `[max(b - floor(0.2 b), 5), min(b + floor(0.2 b), 40)]` for base
 *   value `b` (TextArena's "±20% of the base value, capped at 5 and 40"): Wheat 5..6, Wood 8..12, Sheep 12..18,
 *   Brick 20..30, Ore 32..40.
 * - An offer not accepted on the recipient's next turn is rejected (TextArena: "Deny ... also happens by default";
 *   "an offer you receive is rejected automatically unless you Accept it on your next turn, and making a
 *   counteroffer also rejects it"), so facing an offer the choices are accept, deny or a counter-offer.
 *
 * **`variant: "spiral"` — SPIRAL's `SimpleNegotiation-v1` (`spiral/envs/SimpleNegotiation/env.py`)**
 * - Two resources, Wood and Gold; both players start with 10 of each; player 0 values Wood 5 and Gold 15, player 1
 *   Wood 15 and Gold 5 (fixed, "opposite preferences"; each player is told only its own). The deal is still a
 *   sequence of chance nodes, each with a single outcome; `num_resources`, `min_quantity` and `max_quantity` do not
 *   apply (the registry rejects values other than their defaults).
 * - An offer stands until its recipient accepts or denies it or either player makes a new offer: the recipient may
 *   also pass (SPIRAL's message without `[Accept]`/`[Deny]` leaves the offer open) and accept on a later turn.
 *
 * **Common rules**
 * - Players alternate, player 0 first, for `max_turns` turns in total (default 10, both players counted; SPIRAL and
 *   TextArena register `max_turns=10`). A turn is one command: an offer, accept, deny, or pass.
 * - An offer must be covered by the proposer's inventory; accepting needs the acceptor to hold what is requested.
 *   Accepting executes the trade at once.
 * - When the turns run out, each inventory is valued at its owner's prices; the player whose value increased more
 *   wins (+1, the other -1), equal increases draw (0, 0): SPIRAL's zero-sum win/loss/draw reward.
 *
 * **Choices left open by the references (documented here)**
 * - Offers: TextArena parses free text `[Offer: 3 Sheep, 2 Ore -> 5 Brick]` (any bundles). Here an offer gives `a`
 *   units of one resource for `b` units of another, `1 <= a, b <= max_offer` (default 3): a finite action set, so
 *   the game is a proper extensive-form game. Bundles and free chat are out.
 * - One command per turn (TextArena's current rule, "at most one structured command per turn"): accepting ends the
 *   turn; it cannot be combined with a new offer. Invalid moves do not exist (only legal commands are offered), so
 *   TextArena's invalid-move penalties never apply.
 * - The deal is a sequence of chance nodes (player 0's quantities, then its values, then player 1's); the chance
 *   outcome id is the number dealt (a quantity or a value), so `maxChanceOutcomes = max(max_quantity, 40) + 1`.
 *   Seed the AEC env (`reset({ seed })`) for a reproducible deal.
 *
 * **Details**
 * - Actions: {@link ACCEPT} (0), {@link DENY} (1), {@link PASS} (2), then offers
 *   `3 + ((pair * max_offer) + (a - 1)) * max_offer + (b - 1)` for the ordered pair `pair` of distinct resources
 *   (give, get), see {@link NegotiationGame.offerAction} / {@link NegotiationGame.decodeOffer}. ACCEPT and DENY are
 *   legal only facing an offer; under `"textarena"` PASS is legal only when not facing one (not accepting denies).
 * - `informationStateString(p)`: `p`'s own deal and the public moves, e.g.
 *   `"[Player: 0][Quantities: 12 18][Values: 6 9][Turn: 2/10][Moves: Offer(2 Wheat -> 1 Wood) Deny]"`.
 * - `observationString(p)`: `p`'s current inventory, values, value change and the standing offer.
 * - `actionToString`: `"Deal:<n>"` for chance, `"Accept"`, `"Deny"`, `"Pass"`, `"Offer(2 Wheat -> 1 Wood)"`.
 *
 * **Gotchas**
 * - The `"textarena"` tree is huge (the deal alone has 21^10 x ... leaves): use it with sampling, not exact solvers.
 * - Bad parameters throw {@link InvalidGameError} naming the parameter (`max_turns must be ...`).
 *
 * @example
 * ```ts
 * import { Negotiation } from "@autodidact/envs"
 * const g = Negotiation.make({ numResources: 2, minQuantity: 1, maxQuantity: 2, maxTurns: 2 })
 * const s = g.newInitialState()
 * for (const d of [2, 1, 5, 9, 1, 2, 6, 8]) s.applyAction(d) // quantities and values of both players
 * s.applyAction(g.offerAction(0, 1, 1, 1)) // player 0 offers 1 Wheat for 1 Wood
 * s.applyAction(Negotiation.ACCEPT)        // player 1 accepts; the game ends after 2 turns
 * s.returns() // [1, -1]: player 0 gained 9 - 5 = 4, player 1 gained 6 - 8 = -2
 * ```
 * @see https://github.com/LeonGuertler/TextArena/blob/main/textarena/envs/SimpleNegotiation/env.py
 * @see https://github.com/spiral-rl/spiral (`spiral/envs/__init__.py` registers `SimpleNegotiation-v1`,
 *   `spiral/envs/SimpleNegotiation/env.py`)
 * @see Liu et al. 2025, "SPIRAL: Self-Play on Zero-Sum Games Incentivizes Reasoning via Multi-Agent Multi-Turn
 *   Reinforcement Learning", arXiv:2506.24119
 * @since 0.3.0
 */
import { CHANCE, type Game, type GameInfo, IllegalActionError, InvalidGameError, type State, TERMINAL } from "./Game.js"

/** Accept the standing offer made to you. */
export const ACCEPT = 0
/** Reject the standing offer made to you. */
export const DENY = 1
/** Make no offer (under `"spiral"`, a standing offer to you stays open). */
export const PASS = 2
/** First offer action id. */
export const FIRST_OFFER = 3

/** The rule set: TextArena's current `SimpleNegotiation` or SPIRAL's `SimpleNegotiation-v1`. */
export type Variant = "textarena" | "spiral"

/** TextArena's resources, in order. */
export const RESOURCE_NAMES: ReadonlyArray<string> = Object.freeze(["Wheat", "Wood", "Sheep", "Brick", "Ore"])
/** TextArena's base values of {@link RESOURCE_NAMES}. */
export const BASE_VALUES: ReadonlyArray<number> = Object.freeze([5, 10, 15, 25, 40])

/** Options of {@link make} (registry parameters in brackets). */
export interface Options {
  /** `"textarena"` (default) or `"spiral"` (`variant`; see the module docs). */
  readonly variant?: Variant | undefined
  /** Turns in the whole game, both players counted (`max_turns`, default 10, 1..100). */
  readonly maxTurns?: number | undefined
  /** Resources in the pool: the first N of Wheat, Wood, Sheep, Brick, Ore (`num_resources`, default 5, 2..5); not with `"spiral"`. */
  readonly numResources?: number | undefined
  /** Smallest starting quantity of each resource (`min_quantity`, default 5, 0..max_quantity); not with `"spiral"`. */
  readonly minQuantity?: number | undefined
  /** Largest starting quantity of each resource (`max_quantity`, default 25, 1..60); not with `"spiral"`. */
  readonly maxQuantity?: number | undefined
  /** Most units on either side of one offer (`max_offer`, default 3, 1..10). */
  readonly maxOffer?: number | undefined
}

/** A decoded offer: give `giveQty` of resource `give`, get `getQty` of resource `get`. */
export interface Offer {
  readonly give: number
  readonly giveQty: number
  readonly get: number
  readonly getQty: number
}

/** The standing offer of a state and who made it. */
export interface StandingOffer extends Offer {
  /** The proposer (0 or 1); the other player may accept or deny it. */
  readonly from: number
}

/** SPIRAL's `SimpleNegotiation-v1` deal: resources, starting quantity, values of player 0 and of player 1. */
export const SPIRAL_DEAL = Object.freeze({
  resources: Object.freeze(["Wood", "Gold"]),
  quantity: 10,
  values: Object.freeze([Object.freeze([5, 15]), Object.freeze([15, 5])])
})

const EMPTY: ReadonlyArray<never> = Object.freeze([])

const intParam = (name: string, value: number, lo: number, hi: number): number => {
  if (!Number.isInteger(value) || value < lo || value > hi) {
    throw new InvalidGameError({ game: "negotiation", reason: `${name} must be an integer in [${lo}, ${hi}], got ${value}` })
  }
  return value
}

/**
 * TextArena's value range `[max(b - floor(0.2 b), 5), min(b + floor(0.2 b), 40)]` of each of the first
 * `numResources` resources (base value `b` from {@link BASE_VALUES}).
 */
export const valueRanges = (numResources: number = RESOURCE_NAMES.length): ReadonlyArray<readonly [number, number]> =>
  BASE_VALUES.slice(0, numResources).map((b) => {
    const v = Math.floor(0.2 * b)
    return [Math.max(b - v, 5), Math.min(b + v, 40)] as const
  })

/** The Simple Negotiation game (immutable; states come from `newInitialState`). */
export class NegotiationGame implements Game {
  readonly info: GameInfo
  /** The rule set. */
  readonly variant: Variant
  /** Turns in the game. */
  readonly maxTurns: number
  /** Resources in the pool. */
  readonly numResources: number
  readonly minQuantity: number
  readonly maxQuantity: number
  readonly maxOffer: number
  /** Names of the resources in play. */
  readonly resourceNames: ReadonlyArray<string>
  /** Chance outcomes of each deal node, in deal order (player 0 quantities, values, player 1 ...). @internal */
  readonly dealOutcomes: ReadonlyArray<ReadonlyArray<readonly [number, number]>>
  /** Chance nodes of the deal: 2 players x (quantities + values). */
  readonly dealLength: number
  /** The offer of each action id from {@link FIRST_OFFER} on (index `action - FIRST_OFFER`). @internal */
  readonly offers: ReadonlyArray<Offer>

  /** @throws InvalidGameError naming the first parameter out of range (or given where the variant fixes it). */
  constructor(options: Options = {}) {
    const variant = options.variant ?? "textarena"
    if (variant !== "textarena" && variant !== "spiral") {
      throw new InvalidGameError({ game: "negotiation", reason: `variant must be "textarena" or "spiral", got ${JSON.stringify(variant)}` })
    }
    this.variant = variant
    this.maxTurns = intParam("max_turns", options.maxTurns ?? 10, 1, 100)
    this.maxOffer = intParam("max_offer", options.maxOffer ?? 3, 1, 10)
    const uniform = (lo: number, hi: number) =>
      Object.freeze(Array.from({ length: hi - lo + 1 }, (_, i) => Object.freeze([lo + i, 1 / (hi - lo + 1)] as const)))
    const deal: Array<ReadonlyArray<readonly [number, number]>> = []
    if (variant === "spiral") {
      for (const [name, v] of [["num_resources", options.numResources], ["min_quantity", options.minQuantity], ["max_quantity", options.maxQuantity]] as const) {
        if (v !== undefined) throw new InvalidGameError({ game: "negotiation", reason: `${name} does not apply to variant "spiral" (its deal is fixed), got ${v}` })
      }
      this.numResources = SPIRAL_DEAL.resources.length
      this.minQuantity = this.maxQuantity = SPIRAL_DEAL.quantity
      this.resourceNames = SPIRAL_DEAL.resources
      for (let p = 0; p < 2; p++) {
        for (let k = 0; k < this.numResources; k++) deal.push(uniform(SPIRAL_DEAL.quantity, SPIRAL_DEAL.quantity))
        for (let k = 0; k < this.numResources; k++) deal.push(uniform(SPIRAL_DEAL.values[p]![k]!, SPIRAL_DEAL.values[p]![k]!))
      }
    } else {
      this.numResources = intParam("num_resources", options.numResources ?? 5, 2, RESOURCE_NAMES.length)
      this.maxQuantity = intParam("max_quantity", options.maxQuantity ?? 25, 1, 60)
      this.minQuantity = intParam("min_quantity", options.minQuantity ?? 5, 0, this.maxQuantity)
      this.resourceNames = RESOURCE_NAMES.slice(0, this.numResources)
      const quantities = uniform(this.minQuantity, this.maxQuantity)
      const values = valueRanges(this.numResources).map(([lo, hi]) => uniform(lo, hi))
      for (let p = 0; p < 2; p++) deal.push(...Array.from({ length: this.numResources }, () => quantities), ...values)
    }
    this.dealOutcomes = Object.freeze(deal)
    const r = this.numResources
    this.dealLength = 4 * r
    const m = this.maxOffer
    const numActions = FIRST_OFFER + r * (r - 1) * m * m
    const offers: Array<Offer> = []
    for (let k = 0; k < numActions - FIRST_OFFER; k++) {
      const getQty = (k % m) + 1
      const giveQty = (Math.floor(k / m) % m) + 1
      const pair = Math.floor(k / (m * m))
      const give = Math.floor(pair / (r - 1))
      const j = pair % (r - 1)
      offers.push(Object.freeze({ give, giveQty, get: j < give ? j : j + 1, getQty }))
    }
    this.offers = Object.freeze(offers)
    let maxOutcome = 0
    for (const node of deal) for (const [a] of node) maxOutcome = Math.max(maxOutcome, a)
    this.info = {
      name: "negotiation",
      numPlayers: 2,
      numDistinctActions: numActions,
      maxChanceOutcomes: Math.max(this.maxQuantity, 40, maxOutcome) + 1,
      minUtility: -1,
      maxUtility: 1,
      utility: "zero-sum",
      utilitySum: 0,
      maxGameLength: this.dealLength + this.maxTurns,
      perfectInformation: false,
      parameters: variant === "spiral"
        ? { variant, max_turns: this.maxTurns, max_offer: m }
        : {
          variant,
          max_turns: this.maxTurns,
          num_resources: r,
          min_quantity: this.minQuantity,
          max_quantity: this.maxQuantity,
          max_offer: m
        }
    }
  }

  /**
   * The action offering `giveQty` of resource `give` for `getQty` of resource `get`.
   * @throws InvalidGameError when the resources are equal or out of range, or a quantity is not in `[1, maxOffer]`.
   */
  offerAction(give: number, giveQty: number, get: number, getQty: number): number {
    const r = this.numResources
    const m = this.maxOffer
    const ok = (x: number, lo: number, hi: number) => Number.isInteger(x) && x >= lo && x <= hi
    if (!ok(give, 0, r - 1) || !ok(get, 0, r - 1) || give === get || !ok(giveQty, 1, m) || !ok(getQty, 1, m)) {
      throw new InvalidGameError({ game: "negotiation", reason: `no offer of ${giveQty} of resource ${give} for ${getQty} of resource ${get} (resources 0..${r - 1}, distinct; quantities 1..${m})` })
    }
    const pair = give * (r - 1) + (get < give ? get : get - 1)
    return FIRST_OFFER + (pair * m + (giveQty - 1)) * m + (getQty - 1)
  }

  /** The offer of action `action` (undefined for ACCEPT, PASS or ids out of range). */
  decodeOffer(action: number): Offer | undefined {
    if (!Number.isInteger(action) || action < FIRST_OFFER || action >= this.info.numDistinctActions) return undefined
    return this.offers[action - FIRST_OFFER]
  }

  /** `"2 Wheat -> 1 Wood"` for an offer. */
  offerText(offer: Offer): string {
    return `${offer.giveQty} ${this.resourceNames[offer.give]} -> ${offer.getQty} ${this.resourceNames[offer.get]}`
  }

  newInitialState(): NegotiationState {
    return new NegotiationState(this)
  }
}

/** A Simple Negotiation state. */
export class NegotiationState implements State {
  /** Dealt numbers in deal order (player 0 quantities, player 0 values, player 1 quantities, player 1 values). */
  private readonly dealt: Int32Array
  private nDealt = 0
  /** Current quantities `[player * R + resource]`. */
  private readonly qty: Int32Array
  /** Player moves. */
  private readonly moves: Int32Array
  private nMoves = 0

  /** The root (chance deals first); prefer `game.newInitialState()`. */
  constructor(readonly game: NegotiationGame) {
    this.dealt = new Int32Array(game.dealLength)
    this.qty = new Int32Array(2 * game.numResources)
    this.moves = new Int32Array(game.maxTurns)
  }

  private dealDone(): boolean {
    return this.nDealt === this.game.dealLength
  }

  currentPlayer(): number {
    if (!this.dealDone()) return CHANCE
    if (this.nMoves >= this.game.maxTurns) return TERMINAL
    return this.nMoves % 2
  }

  isTerminal(): boolean {
    return this.dealDone() && this.nMoves >= this.game.maxTurns
  }

  isChanceNode(): boolean {
    return !this.dealDone()
  }

  /** Turns played so far (player moves). */
  turn(): number {
    return this.nMoves
  }

  /** Whether everything has been dealt to `player` (its quantities and values). */
  dealtTo(player: number): boolean {
    return this.nDealt >= (player + 1) * 2 * this.game.numResources
  }

  /** Current quantity of `resource` held by `player` (its dealt quantity before any trade; -1 before the deal). */
  quantity(player: number, resource: number): number {
    const r = this.game.numResources
    if (this.nDealt < player * 2 * r + resource + 1) return -1
    return this.qty[player * r + resource]!
  }

  /** Dealt quantity of `resource` of `player` (-1 before it is dealt). */
  initialQuantity(player: number, resource: number): number {
    const i = player * 2 * this.game.numResources + resource
    return i < this.nDealt ? this.dealt[i]! : -1
  }

  /** Private value of `resource` to `player` (-1 before it is dealt). */
  value(player: number, resource: number): number {
    const r = this.game.numResources
    const i = player * 2 * r + r + resource
    return i < this.nDealt ? this.dealt[i]! : -1
  }

  /** Value of `player`'s inventory at its own prices now, minus at the start (0 before the deal is complete). */
  valueChange(player: number): number {
    if (!this.dealtTo(player)) return 0
    let d = 0
    for (let k = 0; k < this.game.numResources; k++) d += this.value(player, k) * (this.quantity(player, k) - this.initialQuantity(player, k))
    return d
  }

  /**
   * The standing offer, if any: under `"textarena"` an offer made on the previous turn; under `"spiral"` the last
   * offer not yet accepted, denied or replaced. Its recipient (`1 - from`) may accept or deny it.
   */
  pendingOffer(): StandingOffer | undefined {
    if (this.isTerminal()) return undefined
    const g = this.game
    for (let t = this.nMoves - 1; t >= 0; t--) {
      const a = this.moves[t]!
      if (a >= FIRST_OFFER) {
        return this.nMoves - 1 - t > 0 && g.variant === "textarena" ? undefined : { ...g.offers[a - FIRST_OFFER]!, from: t % 2 }
      }
      if (a !== PASS || g.variant === "textarena") return undefined
    }
    return undefined
  }

  /** The player moves so far (ACCEPT, DENY, PASS or offer ids). */
  moveHistory(): ReadonlyArray<number> {
    return Array.from(this.moves.subarray(0, this.nMoves))
  }

  private covers(player: number, resource: number, amount: number): boolean {
    return this.qty[player * this.game.numResources + resource]! >= amount
  }

  legalActions(): ReadonlyArray<number> {
    if (this.isTerminal()) return EMPTY
    const g = this.game
    if (!this.dealDone()) return this.chanceOutcomes().map(([a]) => a)
    const p = this.nMoves % 2
    const out: Array<number> = []
    const pending = this.pendingOffer()
    const facing = pending !== undefined && pending.from !== p
    if (facing && this.covers(p, pending.get, pending.getQty)) out.push(ACCEPT)
    if (facing) out.push(DENY)
    if (!facing || g.variant === "spiral") out.push(PASS)
    const offers = g.offers
    for (let k = 0; k < offers.length; k++) {
      const o = offers[k]!
      if (this.covers(p, o.give, o.giveQty)) out.push(FIRST_OFFER + k)
    }
    return out
  }

  chanceOutcomes(): ReadonlyArray<readonly [number, number]> {
    if (this.dealDone()) return EMPTY
    return this.game.dealOutcomes[this.nDealt]!
  }

  private illegal(action: number): IllegalActionError {
    return new IllegalActionError({ game: "negotiation", action, legal: [...this.legalActions()], history: this.history() })
  }

  /** Move `amount` of `resource` from player `from` to the other player (negative amounts move it back). */
  private transfer(from: number, resource: number, amount: number): void {
    const r = this.game.numResources
    this.qty[from * r + resource]! -= amount
    this.qty[(1 - from) * r + resource]! += amount
  }

  /** Execute (sign 1) or revert (sign -1) the pending offer, accepted by `acceptor`. */
  private trade(offer: Offer, acceptor: number, sign: number): void {
    const proposer = 1 - acceptor
    this.transfer(proposer, offer.give, sign * offer.giveQty)
    this.transfer(acceptor, offer.get, sign * offer.getQty)
  }

  applyAction(action: number): void {
    if (this.isTerminal() || !Number.isInteger(action)) throw this.illegal(action)
    const g = this.game
    const r = g.numResources
    if (!this.dealDone()) {
      if (!this.chanceOutcomes().some(([a]) => a === action)) throw this.illegal(action)
      const i = this.nDealt
      const player = Math.floor(i / (2 * r))
      const k = i % (2 * r)
      if (k < r) this.qty[player * r + k] = action
      this.dealt[this.nDealt++] = action
      return
    }
    const p = this.nMoves % 2
    const pending = this.pendingOffer()
    const facing = pending !== undefined && pending.from !== p
    if (action === ACCEPT) {
      if (!facing || !this.covers(p, pending.get, pending.getQty)) throw this.illegal(action)
      this.trade(pending, p, 1)
    } else if (action === DENY) {
      if (!facing) throw this.illegal(action)
    } else if (action === PASS) {
      if (facing && g.variant === "textarena") throw this.illegal(action)
    } else {
      const o = g.decodeOffer(action)
      if (o === undefined || !this.covers(p, o.give, o.giveQty)) throw this.illegal(action)
    }
    this.moves[this.nMoves++] = action
  }

  undoAction(_player: number, action: number): void {
    if (this.nMoves > 0) {
      this.nMoves--
      if (action === ACCEPT) this.trade(this.pendingOffer()!, this.nMoves % 2, -1)
      return
    }
    if (this.nDealt === 0) throw new InvalidGameError({ game: "negotiation", reason: "undoAction at the initial state" })
    this.nDealt--
    const r = this.game.numResources
    const player = Math.floor(this.nDealt / (2 * r))
    const k = this.nDealt % (2 * r)
    if (k < r) this.qty[player * r + k] = 0
  }

  returns(): ReadonlyArray<number> {
    if (!this.isTerminal()) return [0, 0]
    const d0 = this.valueChange(0)
    const d1 = this.valueChange(1)
    return d0 === d1 ? [0, 0] : d0 > d1 ? [1, -1] : [-1, 1]
  }

  private checkPlayer(player: number): void {
    if (player !== 0 && player !== 1) throw new InvalidGameError({ game: "negotiation", reason: `player ${player} is not in [0, 2)` })
  }

  private dealOf(player: number, from: number): string {
    const r = this.game.numResources
    const xs: Array<string> = []
    for (let k = 0; k < r; k++) {
      const i = player * 2 * r + from + k
      xs.push(i < this.nDealt ? String(this.dealt[i]) : "?")
    }
    return xs.join(" ")
  }

  actionToString(player: number, action: number): string {
    if (player === CHANCE) return `Deal:${action}`
    if (action === ACCEPT) return "Accept"
    if (action === DENY) return "Deny"
    if (action === PASS) return "Pass"
    const o = this.game.decodeOffer(action)
    return o === undefined ? `Unknown(${action})` : `Offer(${this.game.offerText(o)})`
  }

  informationStateString(player: number): string {
    this.checkPlayer(player)
    const r = this.game.numResources
    const moves = Array.from(this.moves.subarray(0, this.nMoves), (a) => this.actionToString(0, a)).join(" ")
    return `[Player: ${player}][Quantities: ${this.dealOf(player, 0)}][Values: ${this.dealOf(player, r)}]` +
      `[Turn: ${this.nMoves}/${this.game.maxTurns}][Moves: ${moves}]`
  }

  observationString(player: number): string {
    this.checkPlayer(player)
    const r = this.game.numResources
    const inv: Array<string> = []
    for (let k = 0; k < r; k++) inv.push(String(this.quantity(player, k) < 0 ? "?" : this.quantity(player, k)))
    const pending = this.pendingOffer()
    const offer = pending === undefined ? "none" : `${pending.from === player ? "from" : "to"} you: ${this.game.offerText(pending)}`
    return `[Player: ${player}][Inventory: ${inv.join(" ")}][Values: ${this.dealOf(player, r)}][Change: ${this.valueChange(player)}]` +
      `[Turn: ${this.nMoves}/${this.game.maxTurns}][Offer ${offer}]`
  }

  history(): ReadonlyArray<number> {
    return [...this.dealt.subarray(0, this.nDealt), ...this.moves.subarray(0, this.nMoves)]
  }

  clone(): NegotiationState {
    const c = new NegotiationState(this.game)
    c.dealt.set(this.dealt)
    c.nDealt = this.nDealt
    c.qty.set(this.qty)
    c.moves.set(this.moves)
    c.nMoves = this.nMoves
    return c
  }

  child(action: number): NegotiationState {
    const c = this.clone()
    c.applyAction(action)
    return c
  }

  /** Both players' deals and inventories, then the moves. */
  toString(): string {
    const r = this.game.numResources
    const lines: Array<string> = []
    for (let p = 0; p < 2; p++) {
      const inv: Array<string> = []
      for (let k = 0; k < r; k++) inv.push(this.quantity(p, k) < 0 ? "?" : String(this.quantity(p, k)))
      lines.push(`Player ${p}: dealt [${this.dealOf(p, 0)}] values [${this.dealOf(p, r)}] inventory [${inv.join(" ")}] change ${this.valueChange(p)}`)
    }
    lines.push(`Moves: ${Array.from(this.moves.subarray(0, this.nMoves), (a) => this.actionToString(0, a)).join(", ")}`)
    return lines.join("\n")
  }
}

/**
 * Simple Negotiation (TextArena's or SPIRAL's rules, one-for-one offers).
 * @throws InvalidGameError naming a parameter out of range.
 */
export const make = (options: Options = {}): NegotiationGame => new NegotiationGame(options)

/**
 * Liar's dice for two players, exactly as OpenSpiel's `liars_dice` with the default `reset-face` bidding rule.
 *
 * **Details**
 * - Chance rolls each player's dice in turn (player 0's first): outcome `k` in `0..sides-1` is face `k + 1`, each
 *   with probability `1 / sides`. Once all dice are rolled, each player's dice are sorted.
 * - Then players alternate from player 0. With `D` dice in total, bid `b` in `[0, D * sides)` claims at least
 *   `floor(b / sides) + 1` dice showing face `b % sides + 1`; each bid must exceed the previous one. Action
 *   `D * sides` ({@link liarAction}) calls "Liar" (only after a bid) and ends the game.
 * - Showdown: faces equal to the bid face or to `sides` (the highest face is wild) match; if at least the bid
 *   quantity match, the bidder wins (+1) and the caller loses (-1), else the reverse.
 * - `informationStateString(p)`: `p`'s dice as digits (`-1` for a die not rolled yet), then `" q-f"` per bid and
 *   `" Liar"` for the call, e.g. `"3 1-2 2-6 Liar"`. OpenSpiel provides no observation string; `observationString`
 *   returns the same string.
 * - `actionToString`: `"Roll <face>"` for chance, `"q-f"` or `"Liar"` for players.
 * - `informationStateTensor(p)` (OpenSpiel's `LiarsDiceState::InformationStateTensor`), length
 *   `2 + numdice·sides + totalDice·sides + 1` (21 for 1 die each): one-hot `p`, then per die of `p` (in the order of
 *   `dice(p)`) a one-hot face (zeros while not rolled), then one bit per bid made so far and one for "Liar".
 *
 * **Gotchas**
 * - `legalActions()` at player nodes allocates a fresh array; chance outcomes are cached.
 *
 * @example
 * ```ts
 * import { LiarsDice } from "@autodidact/envs"
 * const s = LiarsDice.make().newInitialState()
 * for (const a of [2, 5, 1, 12]) s.applyAction(a) // p0 rolls 3, p1 rolls 6; p0 bids 1-2; p1 calls Liar
 * s.returns() // [1, -1]: the 6 is wild, so there is one 2
 * ```
 * @see https://github.com/google-deepmind/open_spiel/blob/master/open_spiel/games/liars_dice/liars_dice.cc
 * @see Lanctot et al. 2019, "OpenSpiel: A Framework for Reinforcement Learning in Games", arXiv:1908.09453
 * @since 0.1.0
 */
import { CHANCE, type Game, type GameInfo, IllegalActionError, InvalidGameError, type State, TERMINAL } from "./Game.js"

/** Options of {@link make}. */
export interface Options {
  /** Dice per player (default 1). */
  readonly numdice?: number | undefined
  /** Faces per die (default 6); the highest face is wild. */
  readonly diceSides?: number | undefined
}

const EMPTY: ReadonlyArray<never> = Object.freeze([])

/** The liar's dice game. */
export class LiarsDiceGame implements Game {
  /** OpenSpiel's `liars_dice` facts: `totalDice * sides + 1` actions (bids and "Liar"), zero-sum. */
  readonly info: GameInfo
  /** Dice per player (OpenSpiel's `numdice`). */
  readonly numDice: number
  /** Faces per die (OpenSpiel's `dice_sides`, default 6). */
  readonly sides: number
  /** Dice of both players together. */
  readonly totalDice: number
  /** The "Liar" action id, `totalDice * sides`. */
  readonly liar: number
  /** @internal */
  readonly outcomes: ReadonlyArray<readonly [number, number]>
  /** @internal */
  readonly rolls: ReadonlyArray<number>

  /** @throws InvalidGameError when `numdice` is not an integer in [1, 5] or `diceSides` not one in [2, 20]. */
  constructor(options: Options = {}) {
    const numDice = options.numdice ?? 1
    const sides = options.diceSides ?? 6
    if (!Number.isInteger(numDice) || numDice < 1 || numDice > 5) {
      throw new InvalidGameError({ game: "liars_dice", reason: `numdice must be an integer in [1, 5], got ${numDice}` })
    }
    if (!Number.isInteger(sides) || sides < 2 || sides > 20) {
      throw new InvalidGameError({ game: "liars_dice", reason: `dice_sides must be an integer in [2, 20], got ${sides}` })
    }
    this.numDice = numDice
    this.sides = sides
    this.totalDice = 2 * numDice
    this.liar = this.totalDice * sides
    this.rolls = Object.freeze(Array.from({ length: sides }, (_, k) => k))
    this.outcomes = Object.freeze(this.rolls.map((k) => Object.freeze([k, 1 / sides] as const)))
    this.info = {
      name: "liars_dice",
      numPlayers: 2,
      numDistinctActions: this.liar + 1,
      maxChanceOutcomes: sides,
      minUtility: -1,
      maxUtility: 1,
      utility: "zero-sum",
      utilitySum: 0,
      maxGameLength: this.liar + 1 + this.totalDice,
      perfectInformation: false,
      parameters: { players: 2, numdice: numDice, dice_sides: sides }
    }
  }

  newInitialState(): LiarsDiceState {
    return new LiarsDiceState(this)
  }

  /** OpenSpiel's `InformationStateTensorSize()`: `2 + numdice·sides + totalDice·sides + 1`. */
  get informationStateTensorSize(): number {
    return 2 + this.numDice * this.sides + this.liar + 1
  }
}

/** The "Liar" action id of a game with `totalDice` dice of `sides` faces. */
export const liarAction = (totalDice = 2, sides = 6): number => totalDice * sides

/** A liar's dice state. */
export class LiarsDiceState implements State {
  /** Roll outcomes (faces 1..sides) in roll order: player 0's dice, then player 1's. */
  private readonly rolled: Int32Array
  private nRolled = 0
  private readonly bids: Int32Array
  private nBids = 0
  private readonly scratch: Int32Array

  /** The root (chance nodes: the rolls); prefer `game.newInitialState()`. */
  constructor(readonly game: LiarsDiceGame) {
    this.rolled = new Int32Array(game.totalDice)
    this.bids = new Int32Array(game.liar + 1)
    this.scratch = new Int32Array(game.numDice)
  }

  isTerminal(): boolean {
    return this.nBids > 0 && this.bids[this.nBids - 1] === this.game.liar
  }

  isChanceNode(): boolean {
    return this.nRolled < this.game.totalDice
  }

  currentPlayer(): number {
    if (this.isTerminal()) return TERMINAL
    if (this.isChanceNode()) return CHANCE
    return this.nBids % 2
  }

  private currentBid(): number {
    for (let i = this.nBids - 1; i >= 0; i--) if (this.bids[i] !== this.game.liar) return this.bids[i]!
    return -1
  }

  legalActions(): ReadonlyArray<number> {
    if (this.isTerminal()) return EMPTY
    if (this.isChanceNode()) return this.game.rolls
    const out: Array<number> = []
    for (let b = this.currentBid() + 1; b < this.game.liar; b++) out.push(b)
    if (this.nBids > 0) out.push(this.game.liar)
    return out
  }

  chanceOutcomes(): ReadonlyArray<readonly [number, number]> {
    return this.isChanceNode() ? this.game.outcomes : EMPTY
  }

  applyAction(action: number): void {
    const g = this.game
    const ok = Number.isInteger(action) && !this.isTerminal() &&
      (this.isChanceNode()
        ? action >= 0 && action < g.sides
        : (action > this.currentBid() && action < g.liar) || (action === g.liar && this.nBids > 0))
    if (!ok) {
      throw new IllegalActionError({ game: "liars_dice", action, legal: [...this.legalActions()], history: this.history() })
    }
    if (this.isChanceNode()) this.rolled[this.nRolled++] = action + 1
    else this.bids[this.nBids++] = action
  }

  undoAction(_player: number, _action: number): void {
    if (this.nBids > 0) this.nBids--
    else if (this.nRolled > 0) this.nRolled--
    else throw new InvalidGameError({ game: "liars_dice", reason: "undoAction at the initial state" })
  }

  /** The dice of `player`: sorted once all dice are rolled, else in roll order with -1 for dice not yet rolled. */
  dice(player: number): Array<number> {
    const k = this.game.numDice
    const out: Array<number> = []
    for (let d = 0; d < k; d++) {
      const i = player * k + d
      out.push(i < this.nRolled ? this.rolled[i]! : -1)
    }
    return this.isChanceNode() ? out : out.sort((a, b) => a - b)
  }

  returns(): ReadonlyArray<number> {
    if (!this.isTerminal()) return [0, 0]
    const g = this.game
    const bid = this.currentBid()
    const quantity = Math.floor(bid / g.sides) + 1
    const face = (bid % g.sides) + 1
    let matches = 0
    for (let i = 0; i < g.totalDice; i++) if (this.rolled[i] === face || this.rolled[i] === g.sides) matches++
    const bidder = (this.nBids - 2) % 2
    const caller = (this.nBids - 1) % 2
    const out = [0, 0]
    const winner = matches >= quantity ? bidder : caller
    out[winner] = 1
    out[1 - winner] = -1
    return out
  }

  private bidString(): string {
    let s = ""
    for (let i = 0; i < this.nBids; i++) s += " " + this.actionToString(0, this.bids[i]!)
    return s
  }

  informationStateTensor(player: number, out?: Float32Array | Float64Array): Float32Array | Float64Array {
    if (player !== 0 && player !== 1) throw new InvalidGameError({ game: "liars_dice", reason: `player ${player} is not in [0, 2)` })
    const g = this.game
    const v = out ?? new Float32Array(g.informationStateTensorSize)
    v.fill(0)
    v[player] = 1
    const k = g.numDice
    const sorted = !this.isChanceNode()
    // Faces of the player's dice; sorted (insertion sort, no allocation) once all dice are rolled, as `dice(p)`.
    const scratch = this.scratch
    for (let d = 0; d < k; d++) {
      const i = player * k + d
      const f = i < this.nRolled ? this.rolled[i]! : -1
      let j = d
      if (sorted) {
        while (j > 0 && scratch[j - 1]! > f) {
          scratch[j] = scratch[j - 1]!
          j--
        }
      }
      scratch[j] = f
    }
    for (let d = 0; d < k; d++) {
      const f = scratch[d]!
      if (f > 0) v[2 + d * g.sides + f - 1] = 1
    }
    const at = 2 + k * g.sides
    for (let b = 0; b < this.nBids; b++) v[at + this.bids[b]!] = 1
    return v
  }

  informationStateString(player: number): string {
    if (player !== 0 && player !== 1) throw new InvalidGameError({ game: "liars_dice", reason: `player ${player} is not in [0, 2)` })
    return this.dice(player).join("") + this.bidString()
  }

  observationString(player: number): string {
    return this.informationStateString(player)
  }

  actionToString(player: number, action: number): string {
    if (player === CHANCE) return `Roll ${action + 1}`
    if (action === this.game.liar) return "Liar"
    return `${Math.floor(action / this.game.sides) + 1}-${(action % this.game.sides) + 1}`
  }

  history(): ReadonlyArray<number> {
    return [...Array.from(this.rolled.subarray(0, this.nRolled), (f) => f - 1), ...this.bids.subarray(0, this.nBids)]
  }

  clone(): LiarsDiceState {
    const c = new LiarsDiceState(this.game)
    c.rolled.set(this.rolled)
    c.bids.set(this.bids)
    c.nRolled = this.nRolled
    c.nBids = this.nBids
    return c
  }

  child(action: number): LiarsDiceState {
    const c = this.clone()
    c.applyAction(action)
    return c
  }

  /** OpenSpiel's `ToString`: both players' dice, then the bids. */
  toString(): string {
    const dice = `${this.dice(0).join("")} ${this.dice(1).join("")}`
    if (this.isChanceNode()) return `${dice} - chance node, current roller is player ${Math.floor(this.nRolled / this.game.numDice)}`
    return dice + this.bidString()
  }
}

/**
 * Two-player liar's dice (default 1 die each, 6 sides).
 * @throws InvalidGameError when `numdice` or `diceSides` is out of range.
 */
export const make = (options: Options = {}): LiarsDiceGame => new LiarsDiceGame(options)

/**
 * Leduc hold'em for 2 to 10 players, exactly as OpenSpiel's `leduc_poker` (default parameters: no action mapping,
 * no suit isomorphism, starting player 0).
 *
 * **Details**
 * - Deck of `2 * (N + 1)` cards; chance outcome `c` is card `c`, ordered lowest rank first suit, lowest rank second
 *   suit, ... (2 players: 0 J1, 1 J2, 2 Q1, 3 Q2, 4 K1, 5 K2), each remaining card with probability
 *   `1 / cardsLeft`, listed ascending. Chance deals one private card to players `0, 1, ...`; everyone antes 1 (of
 *   100 starting chips).
 * - Two betting rounds; actions {@link FOLD} (0, only when facing a bet), {@link CALL} (1, call or check) and
 *   {@link RAISE} (2, at most 2 raises per round) with raise size 2 in round 1 and 4 in round 2. A round ends when
 *   everyone still in has checked, or all but the last raiser have called. Then chance deals the public card and
 *   player 0 (or the next player not folded) opens round 2.
 * - Showdown: a pair with the public card beats any non-pair; otherwise the higher rank (then the higher second
 *   card's rank) wins; ties split the pot. Returns are chips at the end minus 100.
 * - `informationStateString(p)` (OpenSpiel's perfect-recall observer):
 *   `[Observer: p][Private: c][Round r][Player: cur][Pot: pot][Money: m0 m1][Public: c][Round1: a a][Round2: a]`
 *   (the `[Public: c]` part only once it is dealt; `[Private: -10000]` before `p` has a card; actions by id).
 * - `observationString(p)`: the same up to `[Public: c]`, then `[Ante: a0 a1]` instead of the betting sequences.
 * - `actionToString`: `"Chance outcome:<c>"` for chance, `"Fold"` / `"Call"` / `"Raise"` for players.
 * - `informationStateTensor(p)` (OpenSpiel's perfect-recall `LeducObserver::WriteTensor`), length
 *   `N + 2·deck + 2·2·(3N − 2)` (30 for 2 players): one-hot `p`, one-hot private card of `p`, one-hot public card
 *   (zeros until dealt), then per round and per betting action of that round two bits, `[1, 0]` for call, `[0, 1]`
 *   for raise (a fold ends the game and leaves `[0, 0]`).
 *
 * **Gotchas**
 * - `legalActions()` returns shared, cached arrays: callers must not mutate them.
 * - OpenSpiel's Leduc has no `UndoAction`; here `undoAction` restores a per-move snapshot (no allocation).
 * - `[Player: ...]` at a terminal state shows the last player to act, as in OpenSpiel.
 *
 * @example
 * ```ts
 * import { LeducPoker } from "@autodidact/envs"
 * const s = LeducPoker.make().newInitialState()
 * for (const a of [0, 2, 1, 1]) s.applyAction(a) // J1 to p0, Q1 to p1, check, check
 * s.currentPlayer() // -1: chance deals the public card
 * ```
 * @see https://github.com/google-deepmind/open_spiel/blob/master/open_spiel/games/leduc_poker/leduc_poker.cc
 * @see Southey et al., "Bayes' Bluff: Opponent Modelling in Poker", UAI 2005, arXiv:1207.1411
 * @see Lanctot et al. 2019, "OpenSpiel: A Framework for Reinforcement Learning in Games", arXiv:1908.09453
 * @since 0.1.0
 */
import { DealCache } from "./Deck.js"
import { CHANCE, type Game, type GameInfo, IllegalActionError, InvalidGameError, type State, TERMINAL } from "./Game.js"

/** Fold (only legal when facing a bet). */
export const FOLD = 0
/** Call, or check when not facing a bet. */
export const CALL = 1
/** Raise by 2 (round 1) or 4 (round 2); at most 2 raises per round. */
export const RAISE = 2

/** OpenSpiel's `kInvalidCard`. */
export const INVALID_CARD = -10000
const STARTING_MONEY = 100
const FIRST_RAISE = 2
const SECOND_RAISE = 4
const MAX_RAISES = 2

/** Options of {@link make}. */
export interface Options {
  /** Number of players, 2..10 (default 2). */
  readonly players?: number | undefined
}

const ACTIONS_FCR: ReadonlyArray<number> = Object.freeze([FOLD, CALL, RAISE])
const ACTIONS_CR: ReadonlyArray<number> = Object.freeze([CALL, RAISE])
const ACTIONS_FC: ReadonlyArray<number> = Object.freeze([FOLD, CALL])
const ACTIONS_C: ReadonlyArray<number> = Object.freeze([CALL])
const EMPTY: ReadonlyArray<never> = Object.freeze([])

// Layout of the state vector (scalars, then per-player and per-card blocks).
const CUR = 0
const NUM_CALLS = 1
const NUM_RAISES = 2
const ROUND = 3
const STAKES = 4
const NUM_WINNERS = 5
const POT = 6
const PUBLIC = 7
const DECK_SIZE = 8
const DEALT = 9
const REMAINING = 10
const R1_LEN = 11
const R2_LEN = 12
const SCALARS = 13

/** The Leduc poker game (immutable; states are created by `newInitialState`). */
export class LeducPokerGame implements Game {
  /** OpenSpiel's `leduc_poker` facts: 3 actions (fold, call, raise), zero-sum. */
  readonly info: GameInfo
  /** Players, 2..10 (OpenSpiel's `players`). */
  readonly numPlayers: number
  /** Cards in the deck: `2 * (numPlayers + 1)` (two suits of `numPlayers + 1` ranks). */
  readonly numCards: number
  /** `3N - 2`: the longest betting round. */
  readonly maxBetsPerRound: number
  /** Offsets of the blocks in the state vector. */
  readonly off: {
    readonly winner: number
    readonly priv: number
    readonly money: number
    readonly ante: number
    readonly folded: number
    readonly deck: number
    readonly r1: number
    readonly r2: number
    readonly size: number
  }
  private readonly deals: DealCache

  /** @throws InvalidGameError for bad parameters (e.g. `players` outside [2, 10]). */
  constructor(options: Options = {}) {
    const n = options.players ?? 2
    if (!Number.isInteger(n) || n < 2 || n > 10) {
      throw new InvalidGameError({ game: "leduc_poker", reason: `players must be an integer in [2, 10], got ${n}` })
    }
    this.numPlayers = n
    this.numCards = 2 * (n + 1)
    this.deals = new DealCache(this.numCards)
    this.maxBetsPerRound = 3 * n - 2
    const winner = SCALARS
    const priv = winner + n
    const money = priv + n
    const ante = money + n
    const folded = ante + n
    const deck = folded + n
    const r1 = deck + this.numCards
    const r2 = r1 + this.maxBetsPerRound
    this.off = { winner, priv, money, ante, folded, deck, r1, r2, size: r2 + this.maxBetsPerRound }
    const perRound = MAX_RAISES * FIRST_RAISE + MAX_RAISES * SECOND_RAISE + 1
    this.info = {
      name: "leduc_poker",
      numPlayers: n,
      numDistinctActions: 3,
      maxChanceOutcomes: this.numCards,
      minUtility: -perRound,
      maxUtility: (n - 1) * perRound,
      utility: "zero-sum",
      utilitySum: 0,
      maxGameLength: 2 * this.maxBetsPerRound + n + 1,
      perfectInformation: false,
      parameters: { players: n }
    }
  }

  newInitialState(): LeducPokerState {
    return new LeducPokerState(this)
  }

  /** OpenSpiel's `InformationStateTensorSize()`: `N + 2·deck + 4·(3N − 2)`. */
  get informationStateTensorSize(): number {
    return this.numPlayers + 2 * this.numCards + 4 * this.maxBetsPerRound
  }

  /** @internal chance actions when the cards in `mask` have left the deck. */
  chanceLegal(mask: number): ReadonlyArray<number> {
    return this.deals.legal(mask)
  }

  /** @internal */
  chanceOutcomes(mask: number): ReadonlyArray<readonly [number, number]> {
    return this.deals.outcomes(mask)
  }
}

/** absl's `StrCat` of a double (`%.6g`, trailing zeros dropped). */
const fmt = (x: number): string => (Number.isInteger(x) && Math.abs(x) < 1e6 ? String(x) : String(Number(x.toPrecision(6))))

/** A Leduc poker state (mutable; see `Game.State`). */
export class LeducPokerState implements State {
  private readonly n: number
  /** The whole state (see the layout constants). */
  private readonly s: Float64Array
  /** One snapshot of `s` per move, for `undoAction`. */
  private readonly stack: Float64Array
  private readonly hist: Int32Array
  private len = 0
  private deckMask = 0

  /** The root (a chance node: the private cards); prefer `game.newInitialState()`. */
  constructor(readonly game: LeducPokerGame) {
    const n = game.numPlayers
    this.n = n
    const size = game.off.size
    const maxMoves = game.info.maxGameLength
    this.s = new Float64Array(size)
    this.stack = new Float64Array(size * (maxMoves + 1))
    this.hist = new Int32Array(maxMoves + 1)
    const s = this.s
    const o = game.off
    s[CUR] = CHANCE
    s[ROUND] = 1
    s[STAKES] = 1
    s[NUM_WINNERS] = -1
    s[POT] = n
    s[PUBLIC] = INVALID_CARD
    s[DECK_SIZE] = game.numCards
    s[REMAINING] = n
    for (let p = 0; p < n; p++) {
      s[o.priv + p] = INVALID_CARD
      s[o.money + p] = STARTING_MONEY - 1
      s[o.ante + p] = 1
    }
    for (let c = 0; c < game.numCards; c++) s[o.deck + c] = c
  }

  private terminal(): boolean {
    const s = this.s
    return s[REMAINING] === 1 || (s[ROUND] === 2 && this.readyForNextRound())
  }

  private readyForNextRound(): boolean {
    const s = this.s
    const raises = s[NUM_RAISES]!
    const calls = s[NUM_CALLS]!
    const remaining = s[REMAINING]!
    return (raises === 0 && calls === remaining) || (raises > 0 && calls === remaining - 1)
  }

  currentPlayer(): number {
    return this.terminal() ? TERMINAL : this.s[CUR]!
  }

  isTerminal(): boolean {
    return this.terminal()
  }

  isChanceNode(): boolean {
    return this.s[CUR] === CHANCE && !this.terminal()
  }

  legalActions(): ReadonlyArray<number> {
    if (this.terminal()) return EMPTY
    const s = this.s
    const cur = s[CUR]!
    if (cur === CHANCE) return this.game.chanceLegal(this.deckMask)
    const canFold = s[STAKES]! > s[this.game.off.ante + cur]!
    const canRaise = s[NUM_RAISES]! < MAX_RAISES
    return canFold ? (canRaise ? ACTIONS_FCR : ACTIONS_FC) : canRaise ? ACTIONS_CR : ACTIONS_C
  }

  chanceOutcomes(): ReadonlyArray<readonly [number, number]> {
    return this.isChanceNode() ? this.game.chanceOutcomes(this.deckMask) : EMPTY
  }

  /** The private card of `player` (INVALID_CARD before it is dealt). */
  privateCard(player: number): number {
    return this.s[this.game.off.priv + player]!
  }

  /** The public card (INVALID_CARD before it is dealt). */
  publicCard(): number {
    return this.s[PUBLIC]!
  }

  private nextPlayer(): number {
    const s = this.s
    const n = this.n
    const cur = s[CUR]!
    const from = cur === CHANCE ? n - 1 : cur
    for (let i = 1; i <= n; i++) {
      const p = (from + i) % n
      if (s[this.game.off.folded + p] === 0) return p
    }
    return cur
  }

  private anteUp(player: number, amount: number): void {
    const s = this.s
    const o = this.game.off
    s[POT]! += amount
    s[o.ante + player]! += amount
    s[o.money + player]! -= amount
  }

  private appendMove(move: number): void {
    const s = this.s
    const o = this.game.off
    if (s[ROUND] === 1) s[o.r1 + s[R1_LEN]!++] = move
    else s[o.r2 + s[R2_LEN]!++] = move
  }

  private rankHand(player: number): number {
    const s = this.s
    let lo = s[PUBLIC]!
    let hi = s[this.game.off.priv + player]!
    if (lo > hi) {
      const t = lo
      lo = hi
      hi = t
    }
    const numCards = this.game.numCards
    if (lo % 2 === 0 && hi === lo + 1) return numCards * numCards + lo
    return Math.floor(hi / 2) * numCards + Math.floor(lo / 2)
  }

  private resolveWinner(): void {
    const s = this.s
    const o = this.game.off
    const n = this.n
    if (s[REMAINING] === 1) {
      for (let p = 0; p < n; p++) {
        if (s[o.folded + p] === 0) {
          s[NUM_WINNERS] = 1
          s[o.winner + p] = 1
          s[o.money + p]! += s[POT]!
          s[POT] = 0
          return
        }
      }
      return
    }
    let best = -1
    let winners = 0
    for (let p = 0; p < n; p++) s[o.winner + p] = 0
    for (let p = 0; p < n; p++) {
      if (s[o.folded + p] !== 0) continue
      const rank = this.rankHand(p)
      if (rank > best) {
        best = rank
        for (let q = 0; q < n; q++) s[o.winner + q] = 0
        s[o.winner + p] = 1
        winners = 1
      } else if (rank === best) {
        s[o.winner + p] = 1
        winners++
      }
    }
    s[NUM_WINNERS] = winners
    for (let p = 0; p < n; p++) if (s[o.winner + p] !== 0) s[o.money + p]! += s[POT]! / winners
    s[POT] = 0
  }

  private afterBet(): void {
    const s = this.s
    if (this.terminal()) this.resolveWinner()
    else if (this.readyForNextRound()) {
      s[ROUND] = 2
      s[NUM_RAISES] = 0
      s[NUM_CALLS] = 0
      s[CUR] = CHANCE
    } else s[CUR] = this.nextPlayer()
  }

  applyAction(action: number): void {
    const s = this.s
    const o = this.game.off
    const n = this.n
    if (this.terminal()) throw this.illegal(action)
    const cur = s[CUR]!
    if (cur === CHANCE) {
      if (!Number.isInteger(action) || action < 0 || action >= this.game.numCards || (this.deckMask & (1 << action)) !== 0) {
        throw this.illegal(action)
      }
    } else {
      const legal = this.legalActions()
      if (legal.indexOf(action) < 0) throw this.illegal(action)
    }
    // Snapshot for undo.
    const size = o.size
    const base = this.len * size
    const stack = this.stack
    for (let i = 0; i < size; i++) stack[base + i] = s[i]!
    this.hist[this.len++] = action

    if (cur === CHANCE) {
      this.deckMask |= 1 << action
      s[o.deck + action] = INVALID_CARD
      s[DECK_SIZE]! -= 1
      const dealt = s[DEALT]!
      if (dealt < n) {
        s[o.priv + dealt] = action
        s[DEALT] = dealt + 1
        if (dealt + 1 === n) s[CUR] = 0
      } else {
        s[PUBLIC] = action
        s[CUR] = this.nextPlayer()
      }
      return
    }
    if (action === FOLD) {
      this.appendMove(FOLD)
      s[o.folded + cur] = 1
      s[REMAINING]! -= 1
      this.afterBet()
    } else if (action === CALL) {
      this.anteUp(cur, s[STAKES]! - s[o.ante + cur]!)
      s[NUM_CALLS]! += 1
      this.appendMove(CALL)
      this.afterBet()
    } else {
      const callAmount = s[STAKES]! - s[o.ante + cur]!
      if (callAmount > 0) this.anteUp(cur, callAmount)
      const raise = s[ROUND] === 1 ? FIRST_RAISE : SECOND_RAISE
      s[STAKES]! += raise
      this.anteUp(cur, raise)
      s[NUM_RAISES]! += 1
      s[NUM_CALLS] = 0
      this.appendMove(RAISE)
      if (this.terminal()) this.resolveWinner()
      else s[CUR] = this.nextPlayer()
    }
  }

  undoAction(_player: number, action: number): void {
    if (this.len === 0) {
      throw new InvalidGameError({ game: "leduc_poker", reason: "undoAction at the initial state" })
    }
    this.len--
    const size = this.game.off.size
    const base = this.len * size
    const s = this.s
    const stack = this.stack
    for (let i = 0; i < size; i++) s[i] = stack[base + i]!
    if (s[CUR] === CHANCE) this.deckMask &= ~(1 << action)
  }

  returns(): ReadonlyArray<number> {
    const out = new Array<number>(this.n).fill(0)
    if (!this.terminal()) return out
    const o = this.game.off
    for (let p = 0; p < this.n; p++) out[p] = this.s[o.money + p]! - STARTING_MONEY
    return out
  }

  private checkPlayer(player: number): void {
    if (!Number.isInteger(player) || player < 0 || player >= this.n) {
      throw new InvalidGameError({ game: "leduc_poker", reason: `player ${player} is not in [0, ${this.n})` })
    }
  }

  private header(player: number): string {
    const s = this.s
    const o = this.game.off
    let money = ""
    for (let p = 0; p < this.n; p++) money += (p > 0 ? " " : "") + fmt(s[o.money + p]!)
    let out = `[Observer: ${player}][Private: ${s[o.priv + player]}][Round ${s[ROUND]}][Player: ${s[CUR]}][Pot: ${s[POT]}][Money: ${money}]`
    if (s[PUBLIC] !== INVALID_CARD) out += `[Public: ${s[PUBLIC]}]`
    return out
  }

  private sequence(offset: number, length: number): string {
    let out = ""
    for (let i = 0; i < length; i++) out += (i > 0 ? " " : "") + String(this.s[offset + i])
    return out
  }

  informationStateTensor(player: number, out?: Float32Array | Float64Array): Float32Array | Float64Array {
    this.checkPlayer(player)
    const g = this.game
    const s = this.s
    const o = g.off
    const v = out ?? new Float32Array(g.informationStateTensorSize)
    v.fill(0)
    v[player] = 1
    let at = this.n
    const priv = s[o.priv + player]!
    if (priv >= 0) v[at + priv] = 1
    at += g.numCards
    const pub = s[PUBLIC]!
    if (pub >= 0) v[at + pub] = 1
    at += g.numCards
    const m = g.maxBetsPerRound
    for (let r = 0; r < 2; r++) {
      const seq = r === 0 ? o.r1 : o.r2
      const len = s[r === 0 ? R1_LEN : R2_LEN]!
      for (let i = 0; i < len; i++) {
        const a = s[seq + i]!
        if (a === CALL) v[at + (r * m + i) * 2] = 1
        else if (a === RAISE) v[at + (r * m + i) * 2 + 1] = 1
      }
    }
    return v
  }

  informationStateString(player: number): string {
    this.checkPlayer(player)
    const s = this.s
    const o = this.game.off
    return `${this.header(player)}[Round1: ${this.sequence(o.r1, s[R1_LEN]!)}][Round2: ${this.sequence(o.r2, s[R2_LEN]!)}]`
  }

  observationString(player: number): string {
    this.checkPlayer(player)
    return `${this.header(player)}[Ante: ${this.sequence(this.game.off.ante, this.n)}]`
  }

  actionToString(player: number, action: number): string {
    if (player === CHANCE) return `Chance outcome:${action}`
    return action === FOLD ? "Fold" : action === CALL ? "Call" : action === RAISE ? "Raise" : `Unknown(${action})`
  }

  history(): ReadonlyArray<number> {
    return Array.from(this.hist.subarray(0, this.len))
  }

  clone(): LeducPokerState {
    const c = new LeducPokerState(this.game)
    c.s.set(this.s)
    c.stack.set(this.stack)
    c.hist.set(this.hist)
    c.len = this.len
    c.deckMask = this.deckMask
    return c
  }

  child(action: number): LeducPokerState {
    const c = this.clone()
    c.applyAction(action)
    return c
  }

  /** OpenSpiel's `ToString` (round, player, pot, money, cards, both betting sequences). */
  toString(): string {
    const s = this.s
    const o = this.game.off
    const names = (offset: number, length: number) => {
      const xs: Array<string> = []
      for (let i = 0; i < length; i++) xs.push(this.actionToString(0, s[offset + i]!))
      return xs.join(", ")
    }
    let money = ""
    let cards = ""
    for (let p = 0; p < this.n; p++) {
      money += ` ${fmt(s[o.money + p]!)}`
      cards += `${s[o.priv + p]} `
    }
    const more = this.n > 2 ? " [...]" : ""
    return `Round: ${s[ROUND]}\nPlayer: ${s[CUR]}\nPot: ${s[POT]}\nMoney (player_0 player_1${more}):${money}\n` +
      `Cards (public player_0 player_1${more}): ${s[PUBLIC]} ${cards}\n` +
      `Round 1 sequence: ${names(o.r1, s[R1_LEN]!)}\nRound 2 sequence: ${names(o.r2, s[R2_LEN]!)}\n`
  }

  private illegal(action: number): IllegalActionError {
    return new IllegalActionError({
      game: "leduc_poker",
      action,
      legal: [...this.legalActions()],
      history: this.history()
    })
  }
}

/**
 * Leduc poker with `players` players (default 2).
 * @throws InvalidGameError when `players` is not an integer in [2, 10].
 */
export const make = (options: Options = {}): LeducPokerGame => new LeducPokerGame(options)

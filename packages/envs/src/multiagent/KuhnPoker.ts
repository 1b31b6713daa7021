/**
 * Kuhn poker for 2 to 10 players, exactly as OpenSpiel's `kuhn_poker`: a deck of `N + 1` cards, one card each,
 * one betting round.
 *
 * **Details**
 * - Every player antes 1. Chance first deals one card to each player in turn (players `0, 1, ...`); the outcome id
 *   is the card `0..N` (higher wins), uniform over the cards not yet dealt, listed in ascending order.
 * - Then players act in turn `0, 1, ..., N-1` with {@link PASS} (0, check/fold) or {@link BET} (1, bet/call). If
 *   nobody bets after one pass each, the highest card wins the pot. Once someone bets, every later player (wrapping
 *   around) passes or calls once more; among those who bet or called, the highest card wins.
 * - Returns: the winner gets `pot - ownContribution`, the others lose their contribution (1, or 2 if they bet).
 * - `informationStateString(p)` = `String(card of p)` followed by one `p`/`b` per betting action so far (OpenSpiel's
 *   perfect-recall `KuhnObserver`), e.g. `"2pb"`; the empty string before `p` has a card.
 * - `observationString(p)` = card followed by each player's pot contribution, e.g. `"211"` (OpenSpiel's default
 *   observer); empty before `p` has a card.
 * - `actionToString`: `"Deal:<card>"` for chance, `"Pass"` / `"Bet"` for players.
 * - `informationStateTensor(p)` (OpenSpiel's `KuhnObserver` with perfect recall), length `N + (N + 1) + 2(2N − 1)`
 *   (11 for 2 players): one-hot `p` (`N`), one-hot card of `p` (`N + 1`, zeros before the deal), then per betting
 *   action so far two bits, `[1, 0]` for pass and `[0, 1]` for bet.
 *
 * **Gotchas**
 * - `legalActions()` returns a shared, cached array: callers must not mutate it.
 * - Unlike OpenSpiel's `UndoAction` (which leaves `ante_` raised), `undoAction` restores the state exactly.
 *
 * @example
 * ```ts
 * import { KuhnPoker } from "@autodidact/envs"
 * const s = KuhnPoker.make().newInitialState()
 * for (const a of [2, 0, 0, 1]) s.applyAction(a) // deal K to p0, J to p1; p0 passes, p1 bets
 * s.informationStateString(0) // "2pb"
 * ```
 * @see https://github.com/google-deepmind/open_spiel/blob/master/open_spiel/games/kuhn_poker/kuhn_poker.cc
 * @see H. W. Kuhn, "A simplified two-person poker", Contributions to the Theory of Games I (1950)
 * @see Lanctot et al. 2019, "OpenSpiel: A Framework for Reinforcement Learning in Games", arXiv:1908.09453
 * @since 0.1.0
 */
import { DealCache } from "./Deck.js"
import { CHANCE, type Game, type GameInfo, IllegalActionError, INVALID_PLAYER, InvalidGameError, type State, TERMINAL } from "./Game.js"

/** Check (when nobody has bet) or fold. */
export const PASS = 0
/** Bet (when nobody has bet) or call. */
export const BET = 1

/** Options of {@link make}. */
export interface Options {
  /** Number of players, 2..10 (default 2). */
  readonly players?: number | undefined
}

const PLAYER_ACTIONS: ReadonlyArray<number> = Object.freeze([PASS, BET])
const EMPTY: ReadonlyArray<never> = Object.freeze([])

/** The Kuhn poker game (immutable; states are created by `newInitialState`). */
export class KuhnPokerGame implements Game {
  /** OpenSpiel's `kuhn_poker` facts: 2 actions (pass, bet), `N + 1` cards, zero-sum. */
  readonly info: GameInfo
  /** Players, 2..10 (OpenSpiel's `players`). */
  readonly numPlayers: number
  /** Chance legal actions / outcomes cached by the bitmask of dealt cards. */
  private readonly deals: DealCache

  /** @throws InvalidGameError when `players` is not an integer in [2, 10]. */
  constructor(options: Options = {}) {
    const n = options.players ?? 2
    if (!Number.isInteger(n) || n < 2 || n > 10) {
      throw new InvalidGameError({ game: "kuhn_poker", reason: `players must be an integer in [2, 10], got ${n}` })
    }
    this.numPlayers = n
    this.deals = new DealCache(n + 1)
    this.info = {
      name: "kuhn_poker",
      numPlayers: n,
      numDistinctActions: 2,
      maxChanceOutcomes: n + 1,
      minUtility: -2,
      maxUtility: (n - 1) * 2,
      utility: "zero-sum",
      utilitySum: 0,
      maxGameLength: 3 * n - 1,
      perfectInformation: false,
      parameters: { players: n }
    }
  }

  newInitialState(): KuhnPokerState {
    return new KuhnPokerState(this)
  }

  /** OpenSpiel's `InformationStateTensorSize()`: `N + (N + 1) + 2(2N − 1)`. */
  get informationStateTensorSize(): number {
    const n = this.numPlayers
    return n + (n + 1) + 2 * (2 * n - 1)
  }

  /** @internal */
  chanceLegal(mask: number): ReadonlyArray<number> {
    return this.deals.legal(mask)
  }

  /** @internal */
  chanceOutcomes(mask: number): ReadonlyArray<readonly [number, number]> {
    return this.deals.outcomes(mask)
  }
}

/** A Kuhn poker state (mutable; see `Game.State`). */
export class KuhnPokerState implements State {
  private readonly n: number
  /** Player holding each card, or INVALID_PLAYER. */
  private readonly cardDealt: Int32Array
  private readonly hist: Int32Array
  private readonly ante: Float64Array
  private len = 0
  private dealtMask = 0
  private firstBettor = INVALID_PLAYER
  private winner = INVALID_PLAYER
  private pot: number

  /** The root (a chance node: the deal); prefer `game.newInitialState()`. */
  constructor(readonly game: KuhnPokerGame) {
    const n = game.numPlayers
    this.n = n
    this.cardDealt = new Int32Array(n + 1).fill(INVALID_PLAYER)
    this.hist = new Int32Array(3 * n)
    this.ante = new Float64Array(n).fill(1)
    this.pot = n
  }

  currentPlayer(): number {
    if (this.winner !== INVALID_PLAYER) return TERMINAL
    return this.len < this.n ? CHANCE : this.len % this.n
  }

  isTerminal(): boolean {
    return this.winner !== INVALID_PLAYER
  }

  isChanceNode(): boolean {
    return this.winner === INVALID_PLAYER && this.len < this.n
  }

  legalActions(): ReadonlyArray<number> {
    if (this.winner !== INVALID_PLAYER) return EMPTY
    return this.len < this.n ? this.game.chanceLegal(this.dealtMask) : PLAYER_ACTIONS
  }

  chanceOutcomes(): ReadonlyArray<readonly [number, number]> {
    return this.isChanceNode() ? this.game.chanceOutcomes(this.dealtMask) : EMPTY
  }

  /** The card of `player`, or -1 when not dealt yet. */
  card(player: number): number {
    return player < this.len ? this.hist[player]! : -1
  }

  private didBet(player: number): boolean {
    const fb = this.firstBettor
    if (fb === INVALID_PLAYER) return false
    if (player === fb) return true
    if (player > fb) return this.hist[this.n + player] === BET
    return this.hist[2 * this.n + player] === BET
  }

  applyAction(action: number): void {
    const n = this.n
    if (this.winner !== INVALID_PLAYER) throw this.illegal(action)
    if (this.len < n) {
      if (!Number.isInteger(action) || action < 0 || action > n || this.cardDealt[action] !== INVALID_PLAYER) {
        throw this.illegal(action)
      }
      this.cardDealt[action] = this.len
      this.dealtMask |= 1 << action
    } else {
      if (action !== PASS && action !== BET) throw this.illegal(action)
      if (action === BET) {
        const p = this.len % n
        if (this.firstBettor === INVALID_PLAYER) this.firstBettor = p
        this.pot += 1
        this.ante[p]! += 1
      }
    }
    this.hist[this.len++] = action
    const numActions = this.len - n
    if (this.firstBettor === INVALID_PLAYER && numActions === n) {
      let w = this.cardDealt[n]!
      if (w === INVALID_PLAYER) w = this.cardDealt[n - 1]!
      this.winner = w
    } else if (this.firstBettor !== INVALID_PLAYER && numActions === n + this.firstBettor) {
      for (let c = n; c >= 0; c--) {
        const p = this.cardDealt[c]!
        if (p !== INVALID_PLAYER && this.didBet(p)) {
          this.winner = p
          break
        }
      }
    }
  }

  undoAction(player: number, action: number): void {
    if (this.len === 0) {
      throw new InvalidGameError({ game: "kuhn_poker", reason: "undoAction at the initial state" })
    }
    this.len--
    if (this.len < this.n) {
      this.cardDealt[action] = INVALID_PLAYER
      this.dealtMask &= ~(1 << action)
    } else {
      if (action === BET) {
        this.pot -= 1
        this.ante[player]! -= 1
        if (player === this.firstBettor) this.firstBettor = INVALID_PLAYER
      }
      this.winner = INVALID_PLAYER
    }
  }

  returns(): ReadonlyArray<number> {
    const out = new Array<number>(this.n).fill(0)
    if (this.winner === INVALID_PLAYER) return out
    for (let p = 0; p < this.n; p++) {
      const bet = this.didBet(p) ? 2 : 1
      out[p] = p === this.winner ? this.pot - bet : -bet
    }
    return out
  }

  private checkPlayer(player: number): void {
    if (!Number.isInteger(player) || player < 0 || player >= this.n) {
      throw new InvalidGameError({ game: "kuhn_poker", reason: `player ${player} is not in [0, ${this.n})` })
    }
  }

  informationStateTensor(player: number, out?: Float32Array | Float64Array): Float32Array | Float64Array {
    this.checkPlayer(player)
    const n = this.n
    const v = out ?? new Float32Array(this.game.informationStateTensorSize)
    v.fill(0)
    v[player] = 1
    if (this.len > player) v[n + this.hist[player]!] = 1
    const base = 2 * n + 1
    for (let i = n; i < this.len; i++) v[base + 2 * (i - n) + this.hist[i]!] = 1
    return v
  }

  informationStateString(player: number): string {
    this.checkPlayer(player)
    let s = this.len > player ? String(this.hist[player]) : ""
    for (let i = this.n; i < this.len; i++) s += this.hist[i] === BET ? "b" : "p"
    return s
  }

  observationString(player: number): string {
    this.checkPlayer(player)
    if (this.len <= player) return ""
    let s = String(this.hist[player])
    for (let p = 0; p < this.n; p++) s += String(this.ante[p])
    return s
  }

  actionToString(player: number, action: number): string {
    if (player === CHANCE) return `Deal:${action}`
    return action === PASS ? "Pass" : "Bet"
  }

  history(): ReadonlyArray<number> {
    return Array.from(this.hist.subarray(0, this.len))
  }

  clone(): KuhnPokerState {
    const c = new KuhnPokerState(this.game)
    c.cardDealt.set(this.cardDealt)
    c.hist.set(this.hist)
    c.ante.set(this.ante)
    c.len = this.len
    c.dealtMask = this.dealtMask
    c.firstBettor = this.firstBettor
    c.winner = this.winner
    c.pot = this.pot
    return c
  }

  child(action: number): KuhnPokerState {
    const c = this.clone()
    c.applyAction(action)
    return c
  }

  /** OpenSpiel's `ToString`: the cards dealt, space separated, then the betting as `p`/`b`, e.g. `"2 0 pb"`. */
  toString(): string {
    const cards: Array<string> = []
    for (let i = 0; i < this.len && i < this.n; i++) cards.push(String(this.hist[i]))
    let s = cards.join(" ")
    if (this.len > this.n) s += " "
    for (let i = this.n; i < this.len; i++) s += this.hist[i] === BET ? "b" : "p"
    return s
  }

  private illegal(action: number): IllegalActionError {
    return new IllegalActionError({
      game: "kuhn_poker",
      action,
      legal: [...this.legalActions()],
      history: this.history()
    })
  }
}

/**
 * Kuhn poker with `players` players (default 2).
 * @throws InvalidGameError when `players` is not an integer in [2, 10].
 */
export const make = (options: Options = {}): KuhnPokerGame => new KuhnPokerGame(options)

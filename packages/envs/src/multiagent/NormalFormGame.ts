/**
 * Normal-form (matrix / tensor) games given by one payoff tensor per player, played as a turn-based
 * extensive-form game (OpenSpiel's `convert_to_turn_based` of a one-shot simultaneous game), plus the classic
 * matrix games with the payoffs of OpenSpiel's `matrix_games.cc`.
 *
 * **Details**
 * - Payoffs are a {@link PayoffTensor}: `shape[i]` actions for player `i`, and for each player a `Float64Array`
 *   over joint actions in row-major order, `index = sum_i a_i * stride_i` with the last player fastest (for two
 *   players: `row * shape[1] + column`, player 0 picks the row, as OpenSpiel's `MatrixGame`).
 * - As a {@link Game}: players `0, 1, ..., N-1` choose in turn, then the state is terminal with returns
 *   `payoffs[p][index]`. A player's information state does not reveal earlier players' choices:
 *   `informationStateString(p)` is `"Current player: <cur>\n"`, then `"Observer's action this turn: <a_p>\n"` once
 *   `p` has chosen, then (at the terminal) the joint action `"a0, a1"` (OpenSpiel's `TurnBasedSimultaneousState`
 *   over a `NormalFormState`). `observationString` is the same.
 * - `utility` is derived from the payoffs: `identical` when all players always get the same payoff, else
 *   `zero-sum` / `constant-sum` when every joint action's payoffs sum to 0 / the same constant, else `general-sum`.
 *
 * **Gotchas**
 * - `legalActions()` returns a shared, cached array per player: callers must not mutate it.
 * - OpenSpiel names Chicken `matrix_cd` ("Chicken-Dare", actions Dare/Chicken); {@link chicken} is that game.
 *
 * @example
 * ```ts
 * import { NormalFormGame } from "@autodidact/envs"
 * const g = NormalFormGame.fromPayoffs("battle", [2, 2], [[3, 0, 0, 2], [2, 0, 0, 3]])
 * const s = g.newInitialState()
 * s.applyAction(0); s.applyAction(0)
 * s.returns() // [3, 2]
 * ```
 * @see https://github.com/google-deepmind/open_spiel/blob/master/open_spiel/games/matrix_games/matrix_games.cc
 * @see https://github.com/google-deepmind/open_spiel/blob/master/open_spiel/game_transforms/turn_based_simultaneous_game.cc
 * @see https://github.com/google-deepmind/open_spiel/blob/master/open_spiel/normal_form_game.h
 * @see Lanctot et al. 2019, "OpenSpiel: A Framework for Reinforcement Learning in Games", arXiv:1908.09453
 * @since 0.1.0
 */
import { type Game, type GameInfo, IllegalActionError, InvalidGameError, type State, TERMINAL, type Utility } from "./Game.js"

/**
 * Payoffs of a normal-form game: the structural shape the equilibrium solvers consume.
 * `payoffs[p][index]` is player `p`'s payoff for the joint action with `index = sum_i a_i * stride_i`, where
 * `stride_{N-1} = 1` and `stride_i = stride_{i+1} * shape[i+1]` (last player fastest).
 */
export interface PayoffTensor {
  /** Number of actions of each player (positive integers); its length is the number of players. */
  readonly shape: ReadonlyArray<number>
  /** One tensor per player, each of length `prod(shape)`, row-major over joint actions. */
  readonly payoffs: ReadonlyArray<Float64Array>
}

/** Options of {@link fromPayoffs}. */
export interface NormalFormOptions {
  /** Action names per player (default: the action ids as strings). */
  readonly actionNames?: ReadonlyArray<ReadonlyArray<string>> | undefined
  /** Override the derived utility type (e.g. to declare a game general-sum). */
  readonly utility?: Utility | undefined
}

const EMPTY: ReadonlyArray<never> = Object.freeze([])

/** Row-major strides of `shape`, last index fastest. */
export const strides = (shape: ReadonlyArray<number>): Array<number> => {
  const out = new Array<number>(shape.length).fill(1)
  for (let i = shape.length - 2; i >= 0; i--) out[i] = out[i + 1]! * shape[i + 1]!
  return out
}

/** Flat index of a joint action. */
export const jointIndex = (shape: ReadonlyArray<number>, actions: ArrayLike<number>): number => {
  let index = 0
  for (let i = 0; i < shape.length; i++) index = index * shape[i]! + actions[i]!
  return index
}

const deriveUtility = (size: number, payoffs: ReadonlyArray<Float64Array>): { utility: Utility; sum?: number } => {
  const n = payoffs.length
  let identical = true
  let constant = true
  let sum0 = 0
  for (let k = 0; k < size; k++) {
    let sum = 0
    for (let p = 0; p < n; p++) {
      sum += payoffs[p]![k]!
      if (payoffs[p]![k] !== payoffs[0]![k]) identical = false
    }
    if (k === 0) sum0 = sum
    else if (Math.abs(sum - sum0) > 1e-12) constant = false
  }
  if (identical && n > 1) return { utility: "identical" }
  if (constant) return Math.abs(sum0) <= 1e-12 ? { utility: "zero-sum", sum: 0 } : { utility: "constant-sum", sum: sum0 }
  return { utility: "general-sum" }
}

/** A normal-form game, as a turn-based extensive-form {@link Game} and as a {@link PayoffTensor}. */
export class NormalFormGame implements Game, PayoffTensor {
  /** Facts of the game (`maxGameLength = numPlayers`: players move in turn, none sees the others' moves). */
  readonly info: GameInfo
  /** Actions per player, `[A_0, ..., A_{N-1}]`. */
  readonly shape: ReadonlyArray<number>
  /** Per player, the payoff of every joint action, row-major over `shape` (`Float64Array(size)`). */
  readonly payoffs: ReadonlyArray<Float64Array>
  /** Players, `shape.length`. */
  readonly numPlayers: number
  /** Joint actions, the product of `shape`. */
  readonly size: number
  /** Per player, the name of each action. */
  readonly actionNames: ReadonlyArray<ReadonlyArray<string>>
  /** @internal cached legal actions per player. */
  readonly legal: ReadonlyArray<ReadonlyArray<number>>

  /** Use {@link fromPayoffs}, which validates. */
  constructor(name: string, shape: ReadonlyArray<number>, payoffs: ReadonlyArray<Float64Array>, options: NormalFormOptions) {
    this.shape = Object.freeze([...shape])
    this.payoffs = Object.freeze([...payoffs])
    this.numPlayers = shape.length
    this.size = payoffs[0]!.length
    this.actionNames = options.actionNames ?? shape.map((k) => Array.from({ length: k }, (_, a) => String(a)))
    this.legal = Object.freeze(shape.map((k) => Object.freeze(Array.from({ length: k }, (_, a) => a))))
    let min = Infinity
    let max = -Infinity
    for (const t of payoffs) {
      for (let k = 0; k < t.length; k++) {
        if (t[k]! < min) min = t[k]!
        if (t[k]! > max) max = t[k]!
      }
    }
    const derived = deriveUtility(this.size, payoffs)
    const utility = options.utility ?? derived.utility
    this.info = {
      name,
      numPlayers: shape.length,
      numDistinctActions: Math.max(...shape),
      maxChanceOutcomes: 0,
      minUtility: min,
      maxUtility: max,
      utility,
      utilitySum: utility === "zero-sum" ? 0 : utility === "constant-sum" ? derived.sum : undefined,
      maxGameLength: shape.length,
      perfectInformation: false,
      parameters: {}
    }
  }

  newInitialState(): NormalFormState {
    return new NormalFormState(this)
  }

  /** Player `player`'s payoff for the joint action `actions`. */
  payoff(player: number, actions: ArrayLike<number>): number {
    return this.payoffs[player]![jointIndex(this.shape, actions)]!
  }
}

/** A state of the turn-based normal-form game: the actions chosen so far. */
export class NormalFormState implements State {
  private readonly actions: Int32Array
  private len = 0

  /** The root, player 0 to move; prefer `game.newInitialState()`. */
  constructor(readonly game: NormalFormGame) {
    this.actions = new Int32Array(game.numPlayers)
  }

  currentPlayer(): number {
    return this.len === this.game.numPlayers ? TERMINAL : this.len
  }

  isTerminal(): boolean {
    return this.len === this.game.numPlayers
  }

  isChanceNode(): boolean {
    return false
  }

  legalActions(): ReadonlyArray<number> {
    return this.len === this.game.numPlayers ? EMPTY : this.game.legal[this.len]!
  }

  chanceOutcomes(): ReadonlyArray<readonly [number, number]> {
    return EMPTY
  }

  applyAction(action: number): void {
    const g = this.game
    if (this.len === g.numPlayers || !Number.isInteger(action) || action < 0 || action >= g.shape[this.len]!) {
      throw new IllegalActionError({ game: g.info.name, action, legal: [...this.legalActions()], history: this.history() })
    }
    this.actions[this.len++] = action
  }

  undoAction(_player: number, _action: number): void {
    if (this.len === 0) throw new InvalidGameError({ game: this.game.info.name, reason: "undoAction at the initial state" })
    this.len--
  }

  returns(): ReadonlyArray<number> {
    const g = this.game
    if (this.len !== g.numPlayers) return new Array<number>(g.numPlayers).fill(0)
    const index = jointIndex(g.shape, this.actions)
    return g.payoffs.map((t) => t[index]!)
  }

  informationStateString(player: number): string {
    const g = this.game
    if (!Number.isInteger(player) || player < 0 || player >= g.numPlayers) {
      throw new InvalidGameError({ game: g.info.name, reason: `player ${player} is not in [0, ${g.numPlayers})` })
    }
    let s = `Current player: ${this.currentPlayer()}\n`
    if (this.isTerminal()) return s + Array.from(this.actions).join(", ")
    if (player < this.len) s += `Observer's action this turn: ${this.actions[player]}\n`
    return s
  }

  observationString(player: number): string {
    return this.informationStateString(player)
  }

  actionToString(player: number, action: number): string {
    return this.game.actionNames[player]?.[action] ?? String(action)
  }

  history(): ReadonlyArray<number> {
    return Array.from(this.actions.subarray(0, this.len))
  }

  clone(): NormalFormState {
    const c = new NormalFormState(this.game)
    c.actions.set(this.actions)
    c.len = this.len
    return c
  }

  child(action: number): NormalFormState {
    const c = this.clone()
    c.applyAction(action)
    return c
  }

  toString(): string {
    const partial = Array.from(this.actions.subarray(0, this.len)).map((a, p) => this.actionToString(p, a))
    return this.isTerminal() ? `Terminal. History string: ${partial.join(", ")}` : `Partial joint action: ${partial.join(" ")}`
  }
}

/**
 * A normal-form game from per-player payoff tensors (row-major over joint actions, last player fastest).
 * @throws InvalidGameError when `shape` is empty or has an entry that is not a positive integer, when there is not
 *   exactly one tensor per player, when a tensor's length is not `prod(shape)`, or when a payoff is not finite
 *   (the reason names the player, index and value).
 */
export const fromPayoffs = (
  name: string,
  shape: ReadonlyArray<number>,
  payoffs: ReadonlyArray<ArrayLike<number>>,
  options: NormalFormOptions = {}
): NormalFormGame => {
  const fail = (reason: string): never => {
    throw new InvalidGameError({ game: name, reason })
  }
  if (shape.length === 0) fail("shape must have one entry per player, got []")
  shape.forEach((k, i) => {
    if (!Number.isInteger(k) || k <= 0) fail(`shape[${i}] = ${k} is not a positive integer`)
  })
  if (payoffs.length !== shape.length) fail(`expected ${shape.length} payoff tensors (one per player), got ${payoffs.length}`)
  const size = shape.reduce((a, b) => a * b, 1)
  const tensors = payoffs.map((t, p) => {
    if (t.length !== size) fail(`payoffs of player ${p} have length ${t.length}, expected ${size} = ${shape.join("x")}`)
    const out = new Float64Array(size)
    for (let k = 0; k < size; k++) {
      const v = t[k]!
      if (typeof v !== "number" || !Number.isFinite(v)) fail(`payoff of player ${p} at index ${k} is ${v}, not finite`)
      out[k] = v
    }
    return out
  })
  const names = options.actionNames
  if (names !== undefined) {
    if (names.length !== shape.length) fail(`expected ${shape.length} action-name lists, got ${names.length}`)
    names.forEach((ns, p) => {
      if (ns.length !== shape[p]) fail(`player ${p} has ${shape[p]} actions but ${ns.length} action names`)
    })
  }
  return new NormalFormGame(name, shape, tensors, options)
}

/** A two-player matrix game from the row player's and column player's payoff matrices (row-major). */
export const matrix = (
  name: string,
  rowNames: ReadonlyArray<string>,
  colNames: ReadonlyArray<string>,
  rowPayoffs: ReadonlyArray<number>,
  colPayoffs: ReadonlyArray<number>
): NormalFormGame =>
  fromPayoffs(name, [rowNames.length, colNames.length], [rowPayoffs, colPayoffs], { actionNames: [rowNames, colNames] })

/** `matrix_mp`: matching pennies (Heads, Tails); the row player wins on a match. */
export const matchingPennies = (): NormalFormGame =>
  matrix("matrix_mp", ["Heads", "Tails"], ["Heads", "Tails"], [1, -1, -1, 1], [-1, 1, 1, -1])

/** `matrix_rps`: rock, paper, scissors, payoffs in {-1, 0, 1}. */
export const rockPaperScissors = (): NormalFormGame =>
  matrix("matrix_rps", ["Rock", "Paper", "Scissors"], ["Rock", "Paper", "Scissors"], [0, -1, 1, 1, 0, -1, -1, 1, 0], [0, 1, -1, -1, 0, 1, 1, -1, 0])

/** `matrix_brps`: biased rock, paper, scissors (Bošanský et al. 2016, Fig. 7); equilibrium (1/16, 10/16, 5/16). */
export const biasedRockPaperScissors = (): NormalFormGame =>
  matrix("matrix_brps", ["Rock", "Paper", "Scissors"], ["Rock", "Paper", "Scissors"], [0, -25, 50, 25, 0, -5, -50, 5, 0], [0, 25, -50, -25, 0, 5, 50, -5, 0])

/** `matrix_pd`: prisoner's dilemma (Cooperate, Defect): CC 5/5, CD 0/10, DC 10/0, DD 1/1. */
export const prisonersDilemma = (): NormalFormGame =>
  matrix("matrix_pd", ["Cooperate", "Defect"], ["Cooperate", "Defect"], [5, 0, 10, 1], [5, 10, 0, 1])

/** `matrix_cd`: chicken-dare (Dare, Chicken): DD 0/0, DC 4/1, CD 1/4, CC 3/3. */
export const chicken = (): NormalFormGame =>
  matrix("matrix_cd", ["Dare", "Chicken"], ["Dare", "Chicken"], [0, 4, 1, 3], [0, 1, 4, 3])

/** `matrix_shapleys_game`: Shapley's general-sum rock-paper-scissors (the winner gets 1, the loser and ties 0). */
export const shapleysGame = (): NormalFormGame =>
  matrix("matrix_shapleys_game", ["Rock", "Paper", "Scissors"], ["Rock", "Paper", "Scissors"], [0, 0, 1, 1, 0, 0, 0, 1, 0], [0, 1, 0, 0, 0, 1, 1, 0, 0])

/** `matrix_sh`: stag hunt (Stag, Hare). */
export const stagHunt = (): NormalFormGame =>
  matrix("matrix_sh", ["Stag", "Hare"], ["Stag", "Hare"], [2, 0, 1, 1], [2, 1, 0, 1])

/** `matrix_coordination`: pure coordination (Left, Right), identical payoffs. */
export const coordination = (): NormalFormGame =>
  matrix("matrix_coordination", ["Left", "Right"], ["Left", "Right"], [1, 0, 0, 1], [1, 0, 0, 1])

/** `matrix_bos`: Bach or Stravinsky. */
export const bachOrStravinsky = (): NormalFormGame =>
  matrix("matrix_bos", ["Bach", "Stravinsky"], ["Bach", "Stravinsky"], [3, 0, 0, 2], [2, 0, 0, 3])

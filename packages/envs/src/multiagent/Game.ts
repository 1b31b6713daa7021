/**
 * The extensive-form game interface that equilibrium solvers walk, with OpenSpiel's semantics.
 *
 * A game is a tree of states. At each non-terminal state exactly one of: a player `p >= 0` acts (choosing one of
 * `legalActions()`), or chance acts (`currentPlayer() === CHANCE`, outcomes with explicit probabilities in
 * `chanceOutcomes()`). Terminal states carry `returns()`, one utility per player. What a player knows at a state is
 * its information state, named by `informationStateString(player)`; states with the same string are
 * indistinguishable to that player and must have the same legal actions.
 *
 * **Details**
 * - Player ids follow OpenSpiel: players `0..numPlayers-1`, {@link CHANCE} = -1, {@link SIMULTANEOUS} = -2,
 *   {@link TERMINAL} = -4.
 * - States are mutable so that solvers can walk a tree without allocating a state per node: `applyAction(a)` moves
 *   down, `undoAction(player, a)` moves back up (OpenSpiel's `UndoAction`). `child(a)` (clone + apply) exists for
 *   callers that want persistence.
 * - Actions are integers in `[0, numDistinctActions)` for players and `[0, maxChanceOutcomes)` for chance.
 * - Information-state and observation strings follow OpenSpiel's definitions for each game (so that policies and
 *   published numbers transfer); each game module cites the OpenSpiel source it follows.
 *
 * @see https://github.com/google-deepmind/open_spiel/blob/master/open_spiel/spiel.h (`Game`, `State`)
 * @see Lanctot et al., "OpenSpiel: A Framework for Reinforcement Learning in Games", arXiv:1908.09453
 * @since 0.1.0
 */
import { Schema } from "effect"

/** OpenSpiel's `kChancePlayerId`. */
export const CHANCE = -1
/** OpenSpiel's `kSimultaneousPlayerId`. */
export const SIMULTANEOUS = -2
/** OpenSpiel's `kInvalidPlayer`. */
export const INVALID_PLAYER = -3
/** OpenSpiel's `kTerminalPlayerId`. */
export const TERMINAL = -4

/** OpenSpiel's `GameType::Utility`. */
export type Utility = "zero-sum" | "constant-sum" | "general-sum" | "identical"

/** Static facts of a game (OpenSpiel's `GameType` and `Game` accessors in one record). */
export interface GameInfo {
  /** Short name as registered, e.g. `kuhn_poker`. */
  readonly name: string
  /** Number of players (>= 1), numbered 0..numPlayers-1. */
  readonly numPlayers: number
  /** Number of distinct player actions; every player action is in `[0, numDistinctActions)`. */
  readonly numDistinctActions: number
  /** Largest number of chance outcomes at any chance node (0 when there is no chance). */
  readonly maxChanceOutcomes: number
  /** Smallest return any player can get at a terminal state. */
  readonly minUtility: number
  /** Largest return any player can get at a terminal state. */
  readonly maxUtility: number
  /** How the players' returns relate (zero-sum, ...). */
  readonly utility: Utility
  /** Sum of the players' returns for zero-sum/constant-sum games. */
  readonly utilitySum?: number | undefined
  /** Most player and chance moves in one play of the game. */
  readonly maxGameLength: number
  /** Whether players see everything (tic-tac-toe) or not (poker). */
  readonly perfectInformation: boolean
  /** Parameters the game was built with (e.g. `{ players: 3 }`). */
  readonly parameters: { readonly [key: string]: unknown }
}

/** One node of the game tree: mutable, walked with `applyAction`/`undoAction`. */
export interface State {
  /** The player to act: `>= 0`, or {@link CHANCE}, or {@link TERMINAL}. */
  currentPlayer(): number
  /** Whether the game is over (`currentPlayer()` is {@link TERMINAL}). */
  isTerminal(): boolean
  /** Whether chance moves next (`currentPlayer()` is {@link CHANCE}). */
  isChanceNode(): boolean
  /** Legal actions of the player to act (sorted ascending), chance outcomes at chance nodes, empty at terminals. */
  legalActions(): ReadonlyArray<number>
  /** At a chance node: `[outcome, probability]` pairs, probabilities summing to 1. Empty elsewhere. */
  chanceOutcomes(): ReadonlyArray<readonly [number, number]>
  /**
   * Apply `action` for the player to act (or the chance outcome).
   * @throws IllegalActionError when `action` is not legal here.
   */
  applyAction(action: number): void
  /** Undo the last action, which `player` took (OpenSpiel's `UndoAction`). */
  undoAction(player: number, action: number): void
  /** Utilities of the players at a terminal state (zeros elsewhere), length `numPlayers`. */
  returns(): ReadonlyArray<number>
  /** What `player` knows here, as OpenSpiel's `InformationStateString(player)`. */
  informationStateString(player: number): string
  /** What `player` observes now, as OpenSpiel's `ObservationString(player)`. */
  observationString(player: number): string
  /**
   * Optional: OpenSpiel's `InformationStateTensor(player)` (the perfect-recall encoding function approximators such as
   * Deep CFR read), written into `out` (length `game.informationStateTensorSize`, zero-filled first; a fresh
   * `Float32Array` when omitted) and returned. Present exactly when the game has `informationStateTensorSize`.
   */
  informationStateTensor?(player: number, out?: Float32Array | Float64Array): Float32Array | Float64Array
  /** OpenSpiel's `ActionToString(player, action)`. */
  actionToString(player: number, action: number): string
  /** The actions taken so far, chance outcomes included. */
  history(): ReadonlyArray<number>
  /** A deep copy. */
  clone(): State
  /** `clone()` then `applyAction(action)`. */
  child(action: number): State
  /** A human-readable view of the full state (OpenSpiel's `ToString`). */
  toString(): string
}

/** A game: facts and a factory of initial states. */
export interface Game {
  /** Static facts of the game. */
  readonly info: GameInfo
  /** A fresh root state (a chance node for card games). */
  newInitialState(): State
  /** Optional: length of `State.informationStateTensor` (OpenSpiel's `InformationStateTensorSize()`). */
  readonly informationStateTensorSize?: number | undefined
}

/** An action that is not legal in the state it was applied to. */
export class IllegalActionError extends Schema.TaggedError<IllegalActionError>()("IllegalActionError", {
  game: Schema.String,
  action: Schema.Number,
  legal: Schema.Array(Schema.Number),
  history: Schema.Array(Schema.Number)
}) {
  override get message() {
    return `${this.game}: action ${this.action} is not legal after history [${this.history.join(", ")}]; legal: [${this.legal.join(", ")}]`
  }
}

/** A game definition that is malformed: chance probabilities not summing to 1, payoff tensor of the wrong shape, NaN. */
export class InvalidGameError extends Schema.TaggedError<InvalidGameError>()("InvalidGameError", {
  game: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `${this.game}: ${this.reason}`
  }
}

/**
 * A move by a seat that is not to move (a text command or an action attributed to `player` while `toMove` acts;
 * `toMove` is {@link CHANCE} or {@link TERMINAL} when no player is to move).
 * @since 0.3.0
 */
export class NotToMoveError extends Schema.TaggedError<NotToMoveError>()("NotToMoveError", {
  game: Schema.String,
  player: Schema.Number,
  toMove: Schema.Number
}) {
  override get message() {
    const who = this.toMove >= 0 ? `player ${this.toMove} is` : this.toMove === TERMINAL ? "the game is over; no player is" : "chance is"
    return `${this.game}: player ${this.player} is not to move (${who} to move)`
  }
}

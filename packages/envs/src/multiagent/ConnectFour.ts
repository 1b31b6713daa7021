/**
 * Connect Four on a 6x7 board, exactly as OpenSpiel's `connect_four` (default parameters).
 *
 * **Details**
 * - Action `c` in `0..6` drops a disc into column `c`; legal actions are the columns whose top cell is empty,
 *   ascending. Player 0 plays `x` (OpenSpiel's `kCross`) and moves first, player 1 plays `o` (`kNought`).
 * - Cells are `row * 7 + col` with row 0 the **bottom** row (OpenSpiel's `CellAt(row, col)`).
 * - Four of one's discs in a row (horizontal, vertical or either diagonal) win: returns `[1, -1]` / `[-1, 1]`; a
 *   full board without a line is a draw `[0, 0]`. Terminal rewards only.
 * - `informationStateString(p)` is OpenSpiel's `HistoryString()`: the columns played joined by `", "` (e.g. `"3, 3"`).
 * - `observationString(p)` is OpenSpiel's `ToString()`: six rows of `.`/`x`/`o`, **top row first**, each followed by
 *   `"\n"` (so the string ends with a newline).
 * - `observationTensor(p)` is OpenSpiel's player-relative `[3, 6, 7]` planes flattened (plane, row, col) with row 0
 *   the bottom: plane 0 the opponent's discs, plane 1 `p`'s own discs, plane 2 the empty cells (OpenSpiel's
 *   `PlayerRelative`).
 *   OpenSpiel provides no information-state tensor for `connect_four`; neither does this module.
 * - `actionToString(p, c)`: `"x3"` / `"o3"` (mark then column).
 * - `maxGameLength` is 42; `numDistinctActions` 7; no chance.
 *
 * **Gotchas**
 * - `applyAction` of a full column (or of a column outside `0..6`, or after the end) throws `IllegalActionError`, whose
 *   message names the column (`action 3 is not legal ...`) and lists the legal columns.
 * - `legalActions()` allocates a fresh array.
 *
 * @example
 * ```ts
 * import { ConnectFour } from "@autodidact/envs"
 * const s = ConnectFour.make().newInitialState()
 * for (const c of [0, 6, 1, 6, 2, 6, 3]) s.applyAction(c) // x completes the bottom row 0..3
 * s.returns() // [1, -1]
 * ```
 * @see https://github.com/google-deepmind/open_spiel/blob/master/open_spiel/games/connect_four/connect_four.cc
 * @see Lanctot et al. 2019, "OpenSpiel: A Framework for Reinforcement Learning in Games", arXiv:1908.09453
 * @since 0.3.0
 */
import { type Game, type GameInfo, IllegalActionError, INVALID_PLAYER, InvalidGameError, type State, TERMINAL } from "./Game.js"
import { CROSS, EMPTY_CELL, NOUGHT } from "./TicTacToe.js"

/** Board rows (OpenSpiel's `kRows`). */
export const ROWS = 6
/** Board columns = distinct actions (OpenSpiel's `kCols`). */
export const COLS = 7
/** Cells on the board. */
export const CELLS = ROWS * COLS
/** Length of {@link ConnectFourState.observationTensor}: 3 planes x 6 rows x 7 columns. */
export const OBSERVATION_SIZE = 3 * CELLS

const EMPTY: ReadonlyArray<never> = Object.freeze([])
const DRAW = 2

/** The Connect Four game. */
export class ConnectFourGame implements Game {
  /** OpenSpiel's `connect_four` facts: 7 actions, zero-sum, at most 42 moves, perfect information. */
  readonly info: GameInfo = {
    name: "connect_four",
    numPlayers: 2,
    numDistinctActions: COLS,
    maxChanceOutcomes: 0,
    minUtility: -1,
    maxUtility: 1,
    utility: "zero-sum",
    utilitySum: 0,
    maxGameLength: CELLS,
    perfectInformation: true,
    parameters: {}
  }

  newInitialState(): ConnectFourState {
    return new ConnectFourState(this)
  }
}

/** A Connect Four position plus its move history. */
export class ConnectFourState implements State {
  private readonly board = new Uint8Array(CELLS)
  /** Discs per column. */
  private readonly heights = new Uint8Array(COLS)
  private readonly hist = new Int32Array(CELLS)
  private len = 0
  /** INVALID_PLAYER while running, else the winner (0/1) or DRAW. */
  private outcome = INVALID_PLAYER

  /** The empty board, player 0 to move; prefer `game.newInitialState()`. */
  constructor(readonly game: ConnectFourGame) {}

  /** Contents of the cell at `row` (0 = bottom) and `col`: {@link EMPTY_CELL}, {@link NOUGHT} or {@link CROSS}. */
  cellAt(row: number, col: number): number {
    return this.board[row * COLS + col]!
  }

  /** Discs in column `col` (0..6). */
  height(col: number): number {
    return this.heights[col]!
  }

  /** Whether the disc just placed at (row, col) completes four in a row of `mark`. */
  private lineThrough(row: number, col: number, mark: number): boolean {
    const b = this.board
    const count = (dr: number, dc: number): number => {
      let n = 0
      let r = row + dr
      let c = col + dc
      while (r >= 0 && r < ROWS && c >= 0 && c < COLS && b[r * COLS + c] === mark) {
        n++
        r += dr
        c += dc
      }
      return n
    }
    return count(0, 1) + count(0, -1) >= 3 || count(1, 0) + count(-1, 0) >= 3 ||
      count(1, 1) + count(-1, -1) >= 3 || count(1, -1) + count(-1, 1) >= 3
  }

  currentPlayer(): number {
    return this.isTerminal() ? TERMINAL : this.len % 2
  }

  isTerminal(): boolean {
    return this.outcome !== INVALID_PLAYER
  }

  isChanceNode(): boolean {
    return false
  }

  legalActions(): ReadonlyArray<number> {
    if (this.isTerminal()) return EMPTY
    const out: Array<number> = []
    for (let c = 0; c < COLS; c++) if (this.heights[c]! < ROWS) out.push(c)
    return out
  }

  chanceOutcomes(): ReadonlyArray<readonly [number, number]> {
    return EMPTY
  }

  applyAction(action: number): void {
    if (this.isTerminal() || !Number.isInteger(action) || action < 0 || action >= COLS || this.heights[action]! >= ROWS) {
      throw new IllegalActionError({ game: "connect_four", action, legal: [...this.legalActions()], history: this.history() })
    }
    const player = this.len % 2
    const mark = player === 0 ? CROSS : NOUGHT
    const row = this.heights[action]!
    this.board[row * COLS + action] = mark
    this.heights[action] = row + 1
    this.hist[this.len++] = action
    if (this.lineThrough(row, action, mark)) this.outcome = player
    else if (this.len === CELLS) this.outcome = DRAW
  }

  undoAction(_player: number, action: number): void {
    if (this.len === 0) throw new InvalidGameError({ game: "connect_four", reason: "undoAction at the initial state" })
    if (this.hist[this.len - 1] !== action) {
      throw new InvalidGameError({ game: "connect_four", reason: `undoAction(${action}) but the last move was column ${this.hist[this.len - 1]}` })
    }
    const row = this.heights[action]! - 1
    this.board[row * COLS + action] = EMPTY_CELL
    this.heights[action] = row
    this.len--
    this.outcome = INVALID_PLAYER
  }

  returns(): ReadonlyArray<number> {
    if (this.outcome === 0) return [1, -1]
    if (this.outcome === 1) return [-1, 1]
    return [0, 0]
  }

  /** `player` itself. @throws InvalidGameError when it is not 0 or 1. */
  private seat(player: number): number {
    if (player === 0 || player === 1) return player
    throw new InvalidGameError({ game: "connect_four", reason: `player ${player} is not in [0, 2)` })
  }

  /** OpenSpiel's `HistoryString()`, the same for both players (perfect information). */
  informationStateString(player: number): string {
    this.seat(player)
    return this.history().join(", ")
  }

  /** OpenSpiel's `ToString()`, the same for both players. */
  observationString(player: number): string {
    this.seat(player)
    return this.toString()
  }

  /**
   * OpenSpiel's observation tensor for `player`: planes (opponent's discs, own discs, empty) x 42 cells (row 0 the
   * bottom), flattened, into `out` (length {@link OBSERVATION_SIZE} = 126).
   */
  observationTensor(player: number, out: Float32Array | Float64Array = new Float32Array(OBSERVATION_SIZE)): Float32Array | Float64Array {
    const own = this.seat(player) === 0 ? CROSS : NOUGHT
    out.fill(0)
    for (let cell = 0; cell < CELLS; cell++) {
      const v = this.board[cell]!
      const plane = v === EMPTY_CELL ? 2 : v === own ? 1 : 0
      out[plane * CELLS + cell] = 1
    }
    return out
  }

  actionToString(player: number, action: number): string {
    return `${player === 0 ? "x" : "o"}${action}`
  }

  history(): ReadonlyArray<number> {
    return Array.from(this.hist.subarray(0, this.len))
  }

  clone(): ConnectFourState {
    const c = new ConnectFourState(this.game)
    c.board.set(this.board)
    c.heights.set(this.heights)
    c.hist.set(this.hist)
    c.len = this.len
    c.outcome = this.outcome
    return c
  }

  child(action: number): ConnectFourState {
    const c = this.clone()
    c.applyAction(action)
    return c
  }

  /** Six rows of `.`/`x`/`o`, top row first, each ending in a newline (OpenSpiel's `ToString`). */
  toString(): string {
    let s = ""
    for (let r = ROWS - 1; r >= 0; r--) {
      for (let c = 0; c < COLS; c++) {
        const v = this.board[r * COLS + c]!
        s += v === CROSS ? "x" : v === NOUGHT ? "o" : "."
      }
      s += "\n"
    }
    return s
  }
}

/** Connect Four (6x7, four in a row). */
export const make = (): ConnectFourGame => new ConnectFourGame()

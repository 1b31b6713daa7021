/**
 * Tic-tac-toe, exactly as OpenSpiel's `tic_tac_toe`.
 *
 * **Details**
 * - Cells `0..8` row-major (`action = 3 * row + col`); player 0 plays `x` and moves first, player 1 plays `o`.
 *   Legal actions are the empty cells, ascending. Three in a row wins: returns `[1, -1]` / `[-1, 1]`; a full board
 *   without a line is a draw `[0, 0]`.
 * - `informationStateString(p)` is OpenSpiel's `HistoryString()`: the moves so far joined by `", "` (e.g. `"4, 0"`).
 * - `observationString(p)` is the board, three rows of `.`/`x`/`o` joined by `"\n"` (OpenSpiel's `ToString`).
 * - `observationTensor()` is OpenSpiel's `[3, 9]` one-hot planes (empty, `o`, `x`), flattened row-major.
 * - `actionToString(p, a)`: `"x(r,c)"` / `"o(r,c)"`.
 * - 5478 distinct boards are reachable from the empty board (terminal ones included).
 *
 * **Gotchas**
 * - `legalActions()` allocates a fresh array (it depends on the board); it is not on the solvers' hot path here.
 *
 * @example
 * ```ts
 * import { TicTacToe } from "@autodidact/envs"
 * const s = TicTacToe.make().newInitialState()
 * for (const a of [0, 3, 1, 4, 2]) s.applyAction(a)
 * s.returns() // [1, -1]
 * ```
 * @see https://github.com/google-deepmind/open_spiel/blob/master/open_spiel/games/tic_tac_toe/tic_tac_toe.cc
 * @see Lanctot et al. 2019, "OpenSpiel: A Framework for Reinforcement Learning in Games", arXiv:1908.09453
 * @since 0.1.0
 */
import { type Game, type GameInfo, IllegalActionError, INVALID_PLAYER, InvalidGameError, type State, TERMINAL } from "./Game.js"

/** Cell contents (OpenSpiel's `CellState`). */
export const EMPTY_CELL = 0
/** A nought (player 1's mark, OpenSpiel's `kNought`). */
export const NOUGHT = 1
/** A cross (player 0's mark, OpenSpiel's `kCross`). */
export const CROSS = 2

const LINES: ReadonlyArray<readonly [number, number, number]> = [
  [0, 1, 2],
  [3, 4, 5],
  [6, 7, 8],
  [0, 3, 6],
  [1, 4, 7],
  [2, 5, 8],
  [0, 4, 8],
  [2, 4, 6]
]
const EMPTY: ReadonlyArray<never> = Object.freeze([])

/** The tic-tac-toe game. */
export class TicTacToeGame implements Game {
  readonly info: GameInfo = {
    name: "tic_tac_toe",
    numPlayers: 2,
    numDistinctActions: 9,
    maxChanceOutcomes: 0,
    minUtility: -1,
    maxUtility: 1,
    utility: "zero-sum",
    utilitySum: 0,
    maxGameLength: 9,
    perfectInformation: true,
    parameters: {}
  }

  newInitialState(): TicTacToeState {
    return new TicTacToeState(this)
  }
}

/** A tic-tac-toe position plus its move history. */
export class TicTacToeState implements State {
  private readonly board = new Uint8Array(9)
  private readonly hist = new Int32Array(9)
  private len = 0
  private outcome = INVALID_PLAYER

  /** The empty board, player 0 to move; prefer `game.newInitialState()`. */
  constructor(readonly game: TicTacToeGame) {}

  private hasLine(cell: number): boolean {
    const b = this.board
    for (const [i, j, k] of LINES) if (b[i] === cell && b[j] === cell && b[k] === cell) return true
    return false
  }

  currentPlayer(): number {
    return this.isTerminal() ? TERMINAL : this.len % 2
  }

  isTerminal(): boolean {
    return this.outcome !== INVALID_PLAYER || this.len === 9
  }

  isChanceNode(): boolean {
    return false
  }

  legalActions(): ReadonlyArray<number> {
    if (this.isTerminal()) return EMPTY
    const out: Array<number> = []
    for (let c = 0; c < 9; c++) if (this.board[c] === EMPTY_CELL) out.push(c)
    return out
  }

  chanceOutcomes(): ReadonlyArray<readonly [number, number]> {
    return EMPTY
  }

  /** Contents of cell `c` ({@link EMPTY_CELL}, {@link NOUGHT} or {@link CROSS}). */
  cell(c: number): number {
    return this.board[c]!
  }

  applyAction(action: number): void {
    if (this.isTerminal() || !Number.isInteger(action) || action < 0 || action > 8 || this.board[action] !== EMPTY_CELL) {
      throw new IllegalActionError({ game: "tic_tac_toe", action, legal: [...this.legalActions()], history: this.history() })
    }
    const player = this.len % 2
    const mark = player === 0 ? CROSS : NOUGHT
    this.board[action] = mark
    this.hist[this.len++] = action
    if (this.hasLine(mark)) this.outcome = player
  }

  undoAction(_player: number, action: number): void {
    if (this.len === 0) throw new InvalidGameError({ game: "tic_tac_toe", reason: "undoAction at the initial state" })
    this.board[action] = EMPTY_CELL
    this.len--
    this.outcome = INVALID_PLAYER
  }

  returns(): ReadonlyArray<number> {
    if (this.hasLine(CROSS)) return [1, -1]
    if (this.hasLine(NOUGHT)) return [-1, 1]
    return [0, 0]
  }

  private checkPlayer(player: number): void {
    if (player !== 0 && player !== 1) throw new InvalidGameError({ game: "tic_tac_toe", reason: `player ${player} is not in [0, 2)` })
  }

  informationStateString(player: number): string {
    this.checkPlayer(player)
    return Array.from(this.hist.subarray(0, this.len)).join(", ")
  }

  observationString(player: number): string {
    this.checkPlayer(player)
    return this.toString()
  }

  /** OpenSpiel's observation tensor: planes (empty, `o`, `x`) x 9 cells, flattened, into `out` (length 27). */
  observationTensor(out: Float32Array | Float64Array = new Float32Array(27)): Float32Array | Float64Array {
    out.fill(0)
    for (let c = 0; c < 9; c++) out[this.board[c]! * 9 + c] = 1
    return out
  }

  actionToString(player: number, action: number): string {
    return `${player === 0 ? "x" : "o"}(${Math.floor(action / 3)},${action % 3})`
  }

  history(): ReadonlyArray<number> {
    return Array.from(this.hist.subarray(0, this.len))
  }

  clone(): TicTacToeState {
    const c = new TicTacToeState(this.game)
    c.board.set(this.board)
    c.hist.set(this.hist)
    c.len = this.len
    c.outcome = this.outcome
    return c
  }

  child(action: number): TicTacToeState {
    const c = this.clone()
    c.applyAction(action)
    return c
  }

  /** Three rows of `.`/`x`/`o` joined by newlines. */
  toString(): string {
    const ch = (v: number) => (v === CROSS ? "x" : v === NOUGHT ? "o" : ".")
    const rows: Array<string> = []
    for (let r = 0; r < 3; r++) rows.push(ch(this.board[3 * r]!) + ch(this.board[3 * r + 1]!) + ch(this.board[3 * r + 2]!))
    return rows.join("\n")
  }
}

/** Tic-tac-toe. */
export const make = (): TicTacToeGame => new TicTacToeGame()

/**
 * Minimax with alpha-beta pruning for two-player zero-sum games of perfect information (tic-tac-toe, Connect Four),
 * depth-limited with an optional heuristic, and a player that picks uniformly among the best moves.
 *
 * **Details** (as OpenSpiel's `open_spiel/python/algorithms/minimax.py`, `alpha_beta_search`)
 * - {@link search} returns the value of `state` for `maximizingPlayer` (default: the player to move) and the first
 *   best action, searching at most `maxDepth` plies; a non-terminal state at the depth limit is valued by
 *   `heuristic(state, maximizingPlayer)` (default 0). Terminal states are valued by their returns.
 * - Chance nodes are valued by their expectation (expectiminimax, OpenSpiel's `expectiminimax.py`), without pruning.
 * - {@link actionValues} searches each legal action's child with a full window, so equal values are exact ties;
 *   with no depth limit (`maxDepth >= game.info.maxGameLength`) values are exact game-theoretic values and are
 *   memoized by the position (`observationString(0)`, which names the position in a perfect-information game).
 * - {@link player} plays a best action, breaking ties uniformly with the caller's generator (so repeated games
 *   against it differ).
 *
 * **Errors**: {@link MinimaxGameError} for a game that is not two-player zero-sum with perfect information, or a
 * `maxDepth` that is not a non-negative integer (naming the value).
 *
 * @example
 * ```ts
 * import { GameRegistry } from "@autodidact/envs"
 * import { Minimax } from "@autodidact/solvers"
 * const game = GameRegistry.loadGame("tic_tac_toe")
 * Minimax.search(game, game.newInitialState()).value // 0: perfect play draws
 * ```
 * @see https://github.com/google-deepmind/open_spiel/blob/master/open_spiel/python/algorithms/minimax.py
 * @see Knuth & Moore, "An Analysis of Alpha-Beta Pruning", Artificial Intelligence 6 (1975)
 * @category search
 * @since 0.2.0
 */
import { Schema } from "effect"
import type { Game, State } from "../internal/GameLike.js"

/**
 * The game or the options do not suit minimax: not two-player, not zero-sum, not perfect information, or a bad
 * `maxDepth`.
 * @category errors
 */
export class MinimaxGameError extends Schema.TaggedError<MinimaxGameError>()("MinimaxGameError", {
  game: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `minimax on ${this.game}: ${this.reason}`
  }
}

/** Options of the search. */
export interface Options {
  /** Most plies searched (chance moves count). Default: the whole game (`game.info.maxGameLength`). */
  readonly maxDepth?: number | undefined
  /** Value of a non-terminal state at the depth limit for `player` (default 0). */
  readonly heuristic?: ((state: State, player: number) => number) | undefined
}

const check = (game: Game, o: Options): number => {
  const info = game.info
  if (info.numPlayers !== 2) throw new MinimaxGameError({ game: info.name, reason: `needs 2 players, the game has ${info.numPlayers}` })
  if (info.utility !== "zero-sum") throw new MinimaxGameError({ game: info.name, reason: `needs a zero-sum game, the game is ${info.utility}` })
  if (!info.perfectInformation) throw new MinimaxGameError({ game: info.name, reason: "needs perfect information" })
  const d = o.maxDepth ?? info.maxGameLength
  if (!Number.isSafeInteger(d) || d < 0) throw new MinimaxGameError({ game: info.name, reason: `maxDepth must be a non-negative integer, got ${d}` })
  return d
}

const alphaBeta = (state: State, depth: number, alpha: number, beta: number, player: number, h: Options["heuristic"]): number => {
  if (state.isTerminal()) return state.returns()[player]!
  if (depth === 0) return h === undefined ? 0 : h(state, player)
  if (state.isChanceNode()) {
    let v = 0
    for (const [a, p] of state.chanceOutcomes()) {
      state.applyAction(a)
      v += p * alphaBeta(state, depth - 1, -Infinity, Infinity, player, h)
      state.undoAction(-1, a)
    }
    return v
  }
  const mover = state.currentPlayer()
  const legal = state.legalActions()
  if (mover === player) {
    let v = -Infinity
    for (const a of legal) {
      state.applyAction(a)
      const c = alphaBeta(state, depth - 1, alpha, beta, player, h)
      state.undoAction(mover, a)
      if (c > v) v = c
      if (v > alpha) alpha = v
      if (alpha >= beta) break
    }
    return v
  }
  let v = Infinity
  for (const a of legal) {
    state.applyAction(a)
    const c = alphaBeta(state, depth - 1, alpha, beta, player, h)
    state.undoAction(mover, a)
    if (c < v) v = c
    if (v < beta) beta = v
    if (alpha >= beta) break
  }
  return v
}

/**
 * Alpha-beta search from `state` (not modified: searched on a clone): the value for `maximizingPlayer` (default the
 * player to move; required at a terminal or chance state) and the first best action (`-1` at a terminal or chance
 * state). Throws {@link MinimaxGameError}.
 */
export const search = (
  game: Game,
  state: State,
  options: Options & { readonly maximizingPlayer?: number | undefined } = {}
): { readonly value: number; readonly action: number } => {
  const depth = check(game, options)
  const s = state.clone()
  const player = options.maximizingPlayer ?? s.currentPlayer()
  if (player !== 0 && player !== 1) throw new MinimaxGameError({ game: game.info.name, reason: `maximizingPlayer must be 0 or 1, got ${player}` })
  if (s.isTerminal() || s.isChanceNode() || s.currentPlayer() !== player || depth === 0) {
    return { value: alphaBeta(s, depth, -Infinity, Infinity, player, options.heuristic), action: -1 }
  }
  let best = -Infinity
  let action = -1
  let alpha = -Infinity
  for (const a of s.legalActions()) {
    s.applyAction(a)
    const v = alphaBeta(s, depth - 1, alpha, Infinity, player, options.heuristic)
    s.undoAction(player, a)
    if (v > best) {
      best = v
      action = a
    }
    if (best > alpha) alpha = best
  }
  return { value: best, action }
}

/** Exact values (player 0's) of positions, memoized by `observationString(0)`. */
export type Memo = Map<string, number>

const exactValue = (state: State, memo: Memo): number => {
  if (state.isTerminal()) return state.returns()[0]!
  const key = state.observationString(0)
  const hit = memo.get(key)
  if (hit !== undefined) return hit
  let v: number
  if (state.isChanceNode()) {
    v = 0
    for (const [a, p] of state.chanceOutcomes()) {
      state.applyAction(a)
      v += p * exactValue(state, memo)
      state.undoAction(-1, a)
    }
  } else {
    const mover = state.currentPlayer()
    v = mover === 0 ? -Infinity : Infinity
    for (const a of state.legalActions()) {
      state.applyAction(a)
      const c = exactValue(state, memo)
      state.undoAction(mover, a)
      v = mover === 0 ? Math.max(v, c) : Math.min(v, c)
    }
  }
  memo.set(key, v)
  return v
}

/**
 * The value of every legal action at `state` for the player to move (`values[k]` for `legal[k]`), each child
 * searched with a full window (ties are exact). With no depth limit the values are exact and memoized in `memo`.
 * Throws {@link MinimaxGameError}; at a terminal or chance state returns no actions.
 */
export const actionValues = (
  game: Game,
  state: State,
  options: Options = {},
  memo: Memo = new Map()
): { readonly legal: ReadonlyArray<number>; readonly values: Float64Array } => {
  const depth = check(game, options)
  if (state.isTerminal() || state.isChanceNode()) return { legal: [], values: new Float64Array(0) }
  const s = state.clone()
  const mover = s.currentPlayer()
  const legal = s.legalActions()
  const values = new Float64Array(legal.length)
  const exact = depth >= game.info.maxGameLength
  legal.forEach((a, k) => {
    s.applyAction(a)
    values[k] = exact
      ? (mover === 0 ? exactValue(s, memo) : 0 - exactValue(s, memo))
      : alphaBeta(s, Math.max(0, depth - 1), -Infinity, Infinity, mover, options.heuristic)
    s.undoAction(mover, a)
  })
  return { legal, values }
}

/**
 * A player (the signature of optim's `SelfPlay.Player`) that plays a best action by {@link actionValues}, ties
 * broken uniformly by `rng.integers`. One memo is shared by the player's calls. Throws {@link MinimaxGameError} on
 * its first call for an unsuitable game.
 */
export const player = (options: Options = {}) => {
  const memo: Memo = new Map()
  return (game: Game, state: State, _seat: number, rng: { integers(n: number): number }): number => {
    const { legal, values } = actionValues(game, state, options, memo)
    let best = -Infinity
    for (let k = 0; k < values.length; k++) if (values[k]! > best) best = values[k]!
    const ties: Array<number> = []
    for (let k = 0; k < values.length; k++) if (values[k]! >= best - 1e-9) ties.push(legal[k]!)
    return ties[ties.length === 1 ? 0 : rng.integers(ties.length)]!
  }
}

/**
 * `validateGame`: a conformance walk over an extensive-form {@link Game}'s tree, the game counterpart of
 * `CheckEnv` (OpenSpiel's `test_utils` random-sim and `testing.check_*` checks, done exhaustively).
 *
 * **Details**
 * Walking the tree depth first with `applyAction` / `undoAction`, it checks at every node:
 * - chance nodes: outcomes non-empty, probabilities finite, in `[0, 1]`, summing to 1 (within 1e-9), outcome ids
 *   integers in `[0, maxChanceOutcomes)`, equal to `legalActions()`;
 * - decision nodes: `currentPlayer()` in `[0, numPlayers)`, legal actions non-empty, sorted, distinct, integers in
 *   `[0, numDistinctActions)`; states with the same `informationStateString(player)` have the same legal actions;
 * - terminals: `returns()` has length `numPlayers`, finite entries within `[minUtility, maxUtility]`, summing to 0
 *   (zero-sum) or `utilitySum` (constant-sum), or all equal (identical);
 * - `undoAction` brings back the same player and history length.
 *
 * **Gotchas**
 * - The walk stops after `maxNodes` nodes (default 1e6); the report then says `complete: false`.
 * - A failure is an {@link InvalidGameError} whose reason names the history (`after history [..]`).
 *
 * @example
 * ```ts
 * import { GameRegistry, ValidateGame } from "@autodidact/envs"
 * ValidateGame.validateGame(GameRegistry.loadGame("kuhn_poker")) // { nodes: 58, terminals: 30, ... }
 * ```
 * @see https://github.com/google-deepmind/open_spiel/blob/master/open_spiel/tests/basic_tests.cc
 * @see Lanctot et al. 2019, "OpenSpiel: A Framework for Reinforcement Learning in Games", arXiv:1908.09453
 * @since 0.1.0
 */
import { CHANCE, type Game, InvalidGameError, type State } from "./Game.js"

/** Options of {@link validateGame}. */
export interface ValidateOptions {
  /** Stop after this many nodes (default 1_000_000). */
  readonly maxNodes?: number | undefined
  /** Tolerance of probability sums and utility sums (default 1e-9). */
  readonly tolerance?: number | undefined
}

/** What the walk saw. */
export interface ValidationReport {
  /** States visited (every node of the tree). */
  readonly nodes: number
  /** Terminal states among them. */
  readonly terminals: number
  /** Chance nodes among them. */
  readonly chanceNodes: number
  /** Distinct `(player, informationStateString)` pairs at decision nodes. */
  readonly infoStates: number
  /** Longest history seen. */
  readonly maxDepth: number
  /** Whether the whole tree was walked (false when `maxNodes` stopped it). */
  readonly complete: boolean
}

/**
 * Walk `game`'s tree and check its contracts (see the module docs).
 * @throws InvalidGameError naming the first violation and the history where it occurred.
 */
export const validateGame = (game: Game, options: ValidateOptions = {}): ValidationReport => {
  const info = game.info
  const maxNodes = options.maxNodes ?? 1_000_000
  const tol = options.tolerance ?? 1e-9
  const n = info.numPlayers
  const infoLegal = new Map<string, string>()
  let nodes = 0
  let terminals = 0
  let chanceNodes = 0
  let maxDepth = 0
  let complete = true
  const fail = (state: State, reason: string): never => {
    throw new InvalidGameError({ game: info.name, reason: `${reason} after history [${state.history().join(", ")}]` })
  }
  if (!Number.isInteger(n) || n < 1) throw new InvalidGameError({ game: info.name, reason: `numPlayers ${n} is not a positive integer` })

  const walk = (state: State, depth: number): void => {
    if (nodes >= maxNodes) {
      complete = false
      return
    }
    nodes++
    if (depth > maxDepth) maxDepth = depth
    if (state.isTerminal()) {
      terminals++
      const r = state.returns()
      if (r.length !== n) fail(state, `returns have length ${r.length}, expected ${n}`)
      let sum = 0
      for (let p = 0; p < n; p++) {
        const v = r[p]!
        if (typeof v !== "number" || !Number.isFinite(v)) fail(state, `return of player ${p} is ${v}, not finite`)
        if (v < info.minUtility - tol || v > info.maxUtility + tol) {
          fail(state, `return of player ${p} is ${v}, outside [${info.minUtility}, ${info.maxUtility}]`)
        }
        sum += v
      }
      if (info.utility === "zero-sum" && Math.abs(sum) > tol * Math.max(1, n)) fail(state, `returns [${r.join(", ")}] of a zero-sum game sum to ${sum}`)
      if (info.utility === "constant-sum" && info.utilitySum !== undefined && Math.abs(sum - info.utilitySum) > tol * Math.max(1, n)) {
        fail(state, `returns [${r.join(", ")}] of a constant-sum game sum to ${sum}, expected ${info.utilitySum}`)
      }
      if (info.utility === "identical" && r.some((v) => v !== r[0])) fail(state, `returns [${r.join(", ")}] of an identical-interest game differ`)
      if (state.legalActions().length !== 0) fail(state, "a terminal state has legal actions")
      return
    }
    const player = state.currentPlayer()
    const legal = state.legalActions()
    if (legal.length === 0) fail(state, `no legal actions at a non-terminal state (player ${player})`)
    if (player === CHANCE || state.isChanceNode()) {
      if (player !== CHANCE || !state.isChanceNode()) fail(state, `isChanceNode() and currentPlayer() ${player} disagree`)
      chanceNodes++
      const outcomes = state.chanceOutcomes()
      if (outcomes.length === 0) fail(state, "a chance node has no outcomes")
      let total = 0
      for (const [a, prob] of outcomes) {
        if (!Number.isInteger(a) || a < 0 || a >= info.maxChanceOutcomes) {
          fail(state, `chance outcome ${a} is not an integer in [0, ${info.maxChanceOutcomes})`)
        }
        if (!Number.isFinite(prob) || prob < 0 || prob > 1 + tol) fail(state, `chance outcome ${a} has probability ${prob}`)
        total += prob
      }
      if (Math.abs(total - 1) > tol) fail(state, `chance probabilities sum to ${total}, not 1`)
      if (outcomes.length !== legal.length || outcomes.some(([a], i) => legal[i] !== a)) {
        fail(state, `chance outcomes [${outcomes.map(([a]) => a).join(", ")}] differ from legalActions [${legal.join(", ")}]`)
      }
    } else {
      if (!Number.isInteger(player) || player < 0 || player >= n) fail(state, `currentPlayer() ${player} is not in [0, ${n})`)
      for (let i = 0; i < legal.length; i++) {
        const a = legal[i]!
        if (!Number.isInteger(a) || a < 0 || a >= info.numDistinctActions) {
          fail(state, `legal action ${a} of player ${player} is not an integer in [0, ${info.numDistinctActions})`)
        }
        if (i > 0 && a <= legal[i - 1]!) fail(state, `legal actions [${legal.join(", ")}] are not sorted and distinct`)
      }
      const key = `${player}\u0000${state.informationStateString(player)}`
      const legalKey = legal.join(",")
      const seen = infoLegal.get(key)
      if (seen === undefined) infoLegal.set(key, legalKey)
      else if (seen !== legalKey) {
        fail(state, `information state ${JSON.stringify(state.informationStateString(player))} of player ${player} has legal actions [${legalKey}] here but [${seen}] elsewhere`)
      }
    }
    const copy = [...legal]
    for (const a of copy) {
      if (nodes >= maxNodes) {
        complete = false
        return
      }
      state.applyAction(a)
      walk(state, depth + 1)
      state.undoAction(player, a)
      if (state.currentPlayer() !== player || state.history().length !== depth) {
        fail(state, `undoAction(${player}, ${a}) did not restore the state`)
      }
    }
  }
  const root = game.newInitialState()
  walk(root, root.history().length)
  return { nodes, terminals, chanceNodes, infoStates: infoLegal.size, maxDepth, complete }
}

/**
 * A user-defined extensive-form game from a small nested tree description, validated on construction, so that a
 * game written by hand works with every solver (CFR, best response, exploitability) and with `gameToAec`.
 *
 * **Details**
 * - A node is one of:
 *   - `{ player, infoSet, actions: [{ label, child }, ...] }`: player `player` (0-based) acts; action ids are the
 *     indices into `actions` (`0..k-1`); `infoSet` names what the player knows (nodes with the same `player` and
 *     `infoSet` must have the same action labels);
 *   - `{ chance: [{ prob, child, label? }, ...] }`: chance picks outcome `i` with probability `prob`;
 *   - `{ terminal: [u0, u1, ...] }`: the game ends with these utilities.
 * - `informationStateString(p)` is `infoSet` when `p` acts; for a player not to act it is the `infoSet` of that
 *   player's last decision on the path followed by `|<label>` of the action taken there (empty before any).
 *   `observationString` is the same.
 * - `numPlayers` is the number of utilities at terminals; `utility` is derived from the terminals (`identical`,
 *   `zero-sum`, `constant-sum`, else `general-sum`) unless given.
 *
 * **Gotchas**
 * - Construction runs {@link validateGame}, so probabilities not summing to 1, a NaN payoff, inconsistent
 *   information sets or ragged utilities fail with {@link InvalidGameError} naming the history.
 * - Trees are limited to 1e6 nodes (a cyclic description fails instead of recursing forever).
 *
 * @example
 * ```ts
 * import { TreeGame } from "@autodidact/envs"
 * // Matching pennies as a tree: player 1 does not see player 0's coin.
 * const leaf = (u: number) => ({ terminal: [u, -u] })
 * const p1 = { player: 1, infoSet: "P2", actions: [] as Array<never> }
 * const game = TreeGame.fromTree("pennies", {
 *   player: 0, infoSet: "P1", actions: [
 *     { label: "H", child: { ...p1, actions: [{ label: "H", child: leaf(1) }, { label: "T", child: leaf(-1) }] } },
 *     { label: "T", child: { ...p1, actions: [{ label: "H", child: leaf(-1) }, { label: "T", child: leaf(1) }] } }
 *   ]
 * })
 * ```
 * @see https://github.com/google-deepmind/open_spiel/blob/master/open_spiel/python/games/ (Python-defined games)
 * @see Lanctot et al. 2019, "OpenSpiel: A Framework for Reinforcement Learning in Games", arXiv:1908.09453
 * @since 0.1.0
 */
import { CHANCE, type Game, type GameInfo, IllegalActionError, InvalidGameError, type State, TERMINAL, type Utility } from "./Game.js"
import { validateGame } from "./ValidateGame.js"

/** A decision node of the description. */
export interface DecisionNode {
  /** The player to act, `0..numPlayers-1`. */
  readonly player: number
  /** Its information set: nodes with the same `infoSet` must offer the same action labels. */
  readonly infoSet: string
  /** The actions (action i of the state is `actions[i]`) and the subtree each leads to. */
  readonly actions: ReadonlyArray<{ readonly label: string; readonly child: TreeNode }>
}
/** A chance node of the description. */
export interface ChanceNode {
  /** Outcomes with probabilities summing to 1 (checked by `validateGame`). */
  readonly chance: ReadonlyArray<{ readonly prob: number; readonly child: TreeNode; readonly label?: string | undefined }>
}
/** A terminal node of the description. */
export interface TerminalNode {
  /** The players' utilities, length `numPlayers`. */
  readonly terminal: ReadonlyArray<number>
}
/** A node of the description. */
export type TreeNode = DecisionNode | ChanceNode | TerminalNode

/** Options of {@link fromTree}. */
export interface TreeOptions {
  /** Override the derived utility type. */
  readonly utility?: Utility | undefined
}

interface Compiled {
  readonly kind: 0 | 1 | 2 // 0 decision, 1 chance, 2 terminal
  readonly player: number
  readonly infoSet: string
  readonly labels: ReadonlyArray<string>
  readonly children: ReadonlyArray<Compiled>
  readonly legal: ReadonlyArray<number>
  readonly outcomes: ReadonlyArray<readonly [number, number]>
  readonly returns: ReadonlyArray<number>
}

const MAX_NODES = 1_000_000
const EMPTY: ReadonlyArray<never> = Object.freeze([])

/** A game defined by a tree description. */
export class TreeGame implements Game {
  readonly info: GameInfo
  /** @internal */
  readonly root: Compiled

  /** Use {@link fromTree}, which validates. */
  constructor(name: string, root: Compiled, info: Omit<GameInfo, "name">) {
    this.root = root
    this.info = { name, ...info }
  }

  newInitialState(): TreeState {
    return new TreeState(this)
  }
}

/** A position in a {@link TreeGame}. */
export class TreeState implements State {
  private readonly path: Array<Compiled>
  private readonly actions: Array<number>
  private len = 0
  private node: Compiled

  /** The root of the tree; prefer `game.newInitialState()`. */
  constructor(readonly game: TreeGame) {
    this.node = game.root
    this.path = new Array<Compiled>(game.info.maxGameLength + 1).fill(game.root)
    this.actions = new Array<number>(game.info.maxGameLength + 1).fill(0)
  }

  currentPlayer(): number {
    const k = this.node.kind
    return k === 0 ? this.node.player : k === 1 ? CHANCE : TERMINAL
  }
  isTerminal(): boolean {
    return this.node.kind === 2
  }
  isChanceNode(): boolean {
    return this.node.kind === 1
  }
  legalActions(): ReadonlyArray<number> {
    return this.node.legal
  }
  chanceOutcomes(): ReadonlyArray<readonly [number, number]> {
    return this.node.outcomes
  }
  applyAction(action: number): void {
    const child = this.node.children[action]
    if (child === undefined || !Number.isInteger(action)) {
      throw new IllegalActionError({ game: this.game.info.name, action, legal: [...this.node.legal], history: this.history() })
    }
    this.path[this.len] = this.node
    this.actions[this.len++] = action
    this.node = child
  }
  undoAction(_player: number, _action: number): void {
    if (this.len === 0) throw new InvalidGameError({ game: this.game.info.name, reason: "undoAction at the initial state" })
    this.node = this.path[--this.len]!
  }
  returns(): ReadonlyArray<number> {
    return this.node.kind === 2 ? this.node.returns : new Array<number>(this.game.info.numPlayers).fill(0)
  }
  informationStateString(player: number): string {
    if (this.node.kind === 0 && this.node.player === player) return this.node.infoSet
    for (let i = this.len - 1; i >= 0; i--) {
      const n = this.path[i]!
      if (n.kind === 0 && n.player === player) return `${n.infoSet}|${n.labels[this.actions[i]!]}`
    }
    return ""
  }
  observationString(player: number): string {
    return this.informationStateString(player)
  }
  actionToString(_player: number, action: number): string {
    return this.node.labels[action] ?? String(action)
  }
  history(): ReadonlyArray<number> {
    return this.actions.slice(0, this.len)
  }
  clone(): TreeState {
    const c = new TreeState(this.game)
    for (let i = 0; i < this.len; i++) {
      c.path[i] = this.path[i]!
      c.actions[i] = this.actions[i]!
    }
    c.len = this.len
    c.node = this.node
    return c
  }
  child(action: number): TreeState {
    const c = this.clone()
    c.applyAction(action)
    return c
  }
  toString(): string {
    return `[${this.history().join(", ")}]`
  }
}

/**
 * Build and validate a game from a tree description.
 * @throws InvalidGameError when a node is malformed (unknown shape, negative or fractional player, no actions or
 *   outcomes, a non-finite utility, ragged utilities), the tree exceeds 1e6 nodes, or {@link validateGame} fails.
 */
export const fromTree = (name: string, root: TreeNode, options: TreeOptions = {}): TreeGame => {
  let count = 0
  let numPlayers = -1
  let maxPlayer = -1
  let maxActions = 1
  let maxOutcomes = 0
  let depthMax = 0
  let min = Infinity
  let max = -Infinity
  const terminals: Array<ReadonlyArray<number>> = []
  const fail = (path: ReadonlyArray<number>, reason: string): never => {
    throw new InvalidGameError({ game: name, reason: `${reason} after history [${path.join(", ")}]` })
  }
  const compile = (node: TreeNode, path: Array<number>): Compiled => {
    if (++count > MAX_NODES) fail(path, `more than ${MAX_NODES} nodes (a cyclic description?)`)
    if (path.length > depthMax) depthMax = path.length
    if (node === null || typeof node !== "object") return fail(path, `node ${String(node)} is not an object`)
    if ("terminal" in node) {
      const u = node.terminal
      if (!Array.isArray(u) || u.length === 0) return fail(path, "terminal utilities must be a non-empty array")
      if (numPlayers === -1) numPlayers = u.length
      else if (u.length !== numPlayers) fail(path, `terminal has ${u.length} utilities, expected ${numPlayers}`)
      u.forEach((v, p) => {
        if (typeof v !== "number" || !Number.isFinite(v)) fail(path, `utility of player ${p} is ${v}, not finite`)
        if (v < min) min = v
        if (v > max) max = v
      })
      terminals.push(u)
      return { kind: 2, player: TERMINAL, infoSet: "", labels: EMPTY, children: EMPTY, legal: EMPTY, outcomes: EMPTY, returns: Object.freeze([...u]) }
    }
    if ("chance" in node) {
      const cs = node.chance
      if (!Array.isArray(cs) || cs.length === 0) return fail(path, "a chance node needs at least one outcome")
      maxOutcomes = Math.max(maxOutcomes, cs.length)
      const children = cs.map((c, i) => compile(c.child, [...path, i]))
      return {
        kind: 1,
        player: CHANCE,
        infoSet: "",
        labels: Object.freeze(cs.map((c, i) => c.label ?? `chance:${i}`)),
        children,
        legal: Object.freeze(cs.map((_, i) => i)),
        outcomes: Object.freeze(cs.map((c, i) => Object.freeze([i, c.prob] as const))),
        returns: EMPTY
      }
    }
    if ("player" in node) {
      const { player, infoSet, actions } = node
      if (!Number.isInteger(player) || player < 0) return fail(path, `player ${player} is not a non-negative integer`)
      if (typeof infoSet !== "string") return fail(path, `infoSet of player ${player} is not a string`)
      if (!Array.isArray(actions) || actions.length === 0) return fail(path, `player ${player} at "${infoSet}" has no actions`)
      maxPlayer = Math.max(maxPlayer, player)
      maxActions = Math.max(maxActions, actions.length)
      const labels = actions.map((a) => a.label)
      const children = actions.map((a, i) => compile(a.child, [...path, i]))
      return {
        kind: 0,
        player,
        infoSet,
        labels: Object.freeze(labels),
        children,
        legal: Object.freeze(actions.map((_, i) => i)),
        outcomes: EMPTY,
        returns: EMPTY
      }
    }
    return fail(path, "a node must have `terminal`, `chance` or `player`")
  }
  const compiled = compile(root, [])
  if (maxPlayer >= numPlayers) fail([], `player ${maxPlayer} acts but terminals have only ${numPlayers} utilities`)
  // Derive the utility type from the terminals.
  let identical = numPlayers > 1
  let constant = true
  let sum0 = 0
  terminals.forEach((u, k) => {
    const s = u.reduce((a, b) => a + b, 0)
    if (u.some((v) => v !== u[0])) identical = false
    if (k === 0) sum0 = s
    else if (Math.abs(s - sum0) > 1e-9) constant = false
  })
  const derived: Utility = identical ? "identical" : constant ? (Math.abs(sum0) <= 1e-9 ? "zero-sum" : "constant-sum") : "general-sum"
  const utility = options.utility ?? derived
  // Check that equal (player, infoSet) pairs have equal labels.
  const labelsOf = new Map<string, string>()
  const checkLabels = (n: Compiled, path: Array<number>): void => {
    if (n.kind === 0) {
      const key = `${n.player}\u0000${n.infoSet}`
      const ls = JSON.stringify(n.labels)
      const seen = labelsOf.get(key)
      if (seen === undefined) labelsOf.set(key, ls)
      else if (seen !== ls) fail(path, `information set "${n.infoSet}" of player ${n.player} has actions ${ls} here but ${seen} elsewhere`)
    }
    n.children.forEach((c, i) => {
      path.push(i)
      checkLabels(c, path)
      path.pop()
    })
  }
  checkLabels(compiled, [])
  const game = new TreeGame(name, compiled, {
    numPlayers,
    numDistinctActions: maxActions,
    maxChanceOutcomes: maxOutcomes,
    minUtility: min,
    maxUtility: max,
    utility,
    utilitySum: utility === "zero-sum" ? 0 : utility === "constant-sum" ? sum0 : undefined,
    maxGameLength: depthMax,
    perfectInformation: false,
    parameters: {}
  })
  validateGame(game, { maxNodes: MAX_NODES })
  return game
}

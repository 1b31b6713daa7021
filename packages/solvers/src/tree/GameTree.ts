/**
 * A game compiled once into flat typed arrays, so that solver iterations touch no strings, no objects and
 * allocate nothing.
 *
 * **When to use**: every solver in this package ({@link compile} is called by `Cfr`, `Mccfr`, `BestResponse`,
 * `Solver`); call it yourself to share one compiled tree between several solvers or to read tree statistics.
 *
 * **Details**
 * - Nodes are numbered in depth-first preorder from the root (node 0), so a parent's id is always smaller than its
 *   children's: a forward loop visits parents first, a backward loop children first.
 * - Node `n` has kind {@link TERMINAL_NODE} / {@link CHANCE_NODE} / {@link DECISION_NODE}; its outgoing edges are
 *   the slots `edgeStart[n] .. edgeStart[n + 1] - 1` of `edgeChild` (child node id), `edgeAction` (the action id)
 *   and `edgeProb` (the chance probability at chance nodes, 0 elsewhere).
 * - Information states are indexed `0..K-1` across players in order of discovery (preorder) and named by
 *   `informationStateString(player)`; information state `i` belongs to `infoPlayer[i]`, has `infoNumActions[i]`
 *   legal actions whose ids are `actions[infoOffset[i] .. infoOffset[i + 1] - 1]`. A per-(info state, action) value
 *   (regret, policy probability) lives at the same "slot" index in a `Float64Array(numSlots)`.
 *   `playerInfoStates[p]` lists player `p`'s info states (its local index `0..K_p-1` is the position there).
 * - The nodes of information state `i` are `infoNodes[infoNodeStart[i] .. infoNodeStart[i + 1] - 1]`, in preorder.
 * - Terminal utilities are `utilities[n * numPlayers + p]` (zero at non-terminal nodes).
 *
 * **Gotchas**
 * - The whole tree is materialized: fine for Kuhn (58 nodes), Leduc (9,457 nodes) or tic-tac-toe (549,946 nodes);
 *   not for Liar's Dice with many dice. Use `Mccfr` on the tree only when the tree fits.
 * - Two states with the same information-state string must belong to the same player and have the same legal
 *   actions (perfect recall and a well-formed game); {@link compile} throws an `InvalidGameError` otherwise.
 *
 * @see Zinkevich et al., "Regret Minimization in Games with Incomplete Information", NIPS 2007 (information sets)
 * @see https://github.com/google-deepmind/open_spiel/blob/master/open_spiel/python/policy.py (`TabularPolicy`
 *   state indexing, which this mirrors)
 * @category compile
 * @since 0.1.0
 */
import { InvalidGameError } from "../Errors.js"
import type { Game, State } from "../internal/GameLike.js"

/** Node kinds in {@link GameTree.nodeKind}. */
export const TERMINAL_NODE = 0
/** A chance node: its edges carry probabilities (`edgeProb`). */
export const CHANCE_NODE = 1
/** A decision node of player `nodePlayer[n]` at information state `nodeInfo[n]`. */
export const DECISION_NODE = 2

/** A compiled game tree (all arrays are owned by the tree: treat them as read-only). */
export interface GameTree {
  readonly gameName: string
  readonly numPlayers: number
  readonly numNodes: number
  /** Kind of each node ({@link TERMINAL_NODE}, {@link CHANCE_NODE}, {@link DECISION_NODE}). */
  readonly nodeKind: Uint8Array
  /** Acting player at decision nodes, -1 at chance nodes, -4 at terminals. */
  readonly nodePlayer: Int32Array
  /** Information state at decision nodes, -1 elsewhere. */
  readonly nodeInfo: Int32Array
  /** Depth (number of actions from the root, chance included). */
  readonly nodeDepth: Int32Array
  /** Edges of node `n`: `edgeStart[n] .. edgeStart[n + 1] - 1` (length `numNodes + 1`). */
  readonly edgeStart: Int32Array
  readonly edgeChild: Int32Array
  readonly edgeAction: Int32Array
  readonly edgeProb: Float64Array
  /** Terminal utilities, `numNodes * numPlayers`. */
  readonly utilities: Float64Array
  readonly maxDepth: number

  readonly numInfoStates: number
  readonly infoKeys: ReadonlyArray<string>
  readonly infoPlayer: Int32Array
  readonly infoNumActions: Int32Array
  /** Slot range of info state `i`: `infoOffset[i] .. infoOffset[i + 1] - 1` (length `numInfoStates + 1`). */
  readonly infoOffset: Int32Array
  /** Legal action ids, one per slot. */
  readonly actions: Int32Array
  readonly numSlots: number
  readonly infoIndex: ReadonlyMap<string, number>
  readonly playerInfoStates: ReadonlyArray<Int32Array>
  readonly infoNodeStart: Int32Array
  readonly infoNodes: Int32Array
  /** Largest number of legal actions at any decision or chance node. */
  readonly maxActions: number
}

/**
 * Whether `game`'s tree has at most `maxNodes` nodes (chance and terminal nodes included), by a depth-first walk that
 * stops as soon as the count passes `maxNodes`: whether {@link compile} (and exact best responses) is affordable
 * before trying it. Costs at most `maxNodes + 1` node visits.
 */
export const sizeAtMost = (game: Game, maxNodes: number): boolean => {
  let count = 0
  const walk = (s: ReturnType<Game["newInitialState"]>): boolean => {
    if (++count > maxNodes) return false
    if (s.isTerminal()) return true
    const q = s.currentPlayer()
    for (const a of s.legalActions().slice()) {
      s.applyAction(a)
      const ok = walk(s)
      s.undoAction(q, a)
      if (!ok) return false
    }
    return true
  }
  return walk(game.newInitialState())
}

/**
 * Walk `game` once (depth first, with `applyAction`/`undoAction`) and compile it into a {@link GameTree}.
 * @throws InvalidGameError when two states share an information-state string but not the player or legal actions,
 *   when chance probabilities do not sum to 1, or when a terminal return is not finite.
 */
export const compile = (game: Game): GameTree => {
  const np = game.info.numPlayers
  const name = game.info.name
  const kind: Array<number> = []
  const player: Array<number> = []
  const info: Array<number> = []
  const depthArr: Array<number> = []
  const firstEdge: Array<number> = []
  const edgeChild: Array<number> = []
  const edgeAction: Array<number> = []
  const edgeProb: Array<number> = []
  const utils: Array<number> = []
  const infoKeys: Array<string> = []
  const infoPlayer: Array<number> = []
  const infoActions: Array<ReadonlyArray<number>> = []
  const infoIndex = new Map<string, number>()
  const infoNodeLists: Array<Array<number>> = []
  let maxDepth = 0
  let maxActions = 0

  const visit = (state: State, depth: number): number => {
    const id = kind.length
    if (depth > maxDepth) maxDepth = depth
    depthArr.push(depth)
    if (state.isTerminal()) {
      kind.push(TERMINAL_NODE)
      player.push(-4)
      info.push(-1)
      firstEdge.push(edgeChild.length)
      const r = state.returns()
      for (let p = 0; p < np; p++) {
        const u = r[p]!
        if (!Number.isFinite(u)) throw new InvalidGameError({ game: name, reason: `non-finite return ${u} for player ${p} after [${state.history().join(", ")}]` })
        utils.push(u)
      }
      return id
    }
    for (let p = 0; p < np; p++) utils.push(0)
    if (state.isChanceNode()) {
      const outcomes = state.chanceOutcomes()
      kind.push(CHANCE_NODE)
      player.push(-1)
      info.push(-1)
      const start = edgeChild.length
      firstEdge.push(start)
      let total = 0
      for (const [a, pr] of outcomes) {
        edgeChild.push(-1)
        edgeAction.push(a)
        edgeProb.push(pr)
        total += pr
      }
      if (Math.abs(total - 1) > 1e-9) throw new InvalidGameError({ game: name, reason: `chance probabilities sum to ${total} after [${state.history().join(", ")}]` })
      if (outcomes.length > maxActions) maxActions = outcomes.length
      for (let k = 0; k < outcomes.length; k++) {
        const a = outcomes[k]![0]
        state.applyAction(a)
        edgeChild[start + k] = visit(state, depth + 1)
        state.undoAction(-1, a)
      }
      return id
    }
    const p = state.currentPlayer()
    const legal = state.legalActions()
    const key = state.informationStateString(p)
    let i = infoIndex.get(key)
    if (i === undefined) {
      i = infoKeys.length
      infoIndex.set(key, i)
      infoKeys.push(key)
      infoPlayer.push(p)
      infoActions.push(legal.slice())
      infoNodeLists.push([])
    } else {
      const known = infoActions[i]!
      if (infoPlayer[i] !== p || known.length !== legal.length || known.some((a, k) => a !== legal[k])) {
        throw new InvalidGameError({
          game: name,
          reason: `information state ${JSON.stringify(key)} is shared by states with different players or legal actions`
        })
      }
    }
    infoNodeLists[i]!.push(id)
    kind.push(DECISION_NODE)
    player.push(p)
    info.push(i)
    const start = edgeChild.length
    firstEdge.push(start)
    if (legal.length > maxActions) maxActions = legal.length
    const acts = legal.slice()
    for (const a of acts) {
      edgeChild.push(-1)
      edgeAction.push(a)
      edgeProb.push(0)
    }
    for (let k = 0; k < acts.length; k++) {
      const a = acts[k]!
      state.applyAction(a)
      edgeChild[start + k] = visit(state, depth + 1)
      state.undoAction(p, a)
    }
    return id
  }
  visit(game.newInitialState(), 0)

  const numNodes = kind.length
  const edgeStart = new Int32Array(numNodes + 1)
  for (let n = 0; n < numNodes; n++) edgeStart[n] = firstEdge[n]!
  edgeStart[numNodes] = edgeChild.length
  const K = infoKeys.length
  const infoOffset = new Int32Array(K + 1)
  const infoNumActions = new Int32Array(K)
  for (let i = 0; i < K; i++) {
    infoNumActions[i] = infoActions[i]!.length
    infoOffset[i + 1] = infoOffset[i]! + infoActions[i]!.length
  }
  const numSlots = infoOffset[K]!
  const actions = new Int32Array(numSlots)
  for (let i = 0; i < K; i++) actions.set(infoActions[i]!, infoOffset[i]!)
  const playerInfoStates: Array<Int32Array> = []
  for (let p = 0; p < np; p++) {
    const mine: Array<number> = []
    for (let i = 0; i < K; i++) if (infoPlayer[i] === p) mine.push(i)
    playerInfoStates.push(Int32Array.from(mine))
  }
  const infoNodeStart = new Int32Array(K + 1)
  for (let i = 0; i < K; i++) infoNodeStart[i + 1] = infoNodeStart[i]! + infoNodeLists[i]!.length
  const infoNodes = new Int32Array(infoNodeStart[K]!)
  for (let i = 0; i < K; i++) infoNodes.set(infoNodeLists[i]!, infoNodeStart[i]!)

  return {
    gameName: name,
    numPlayers: np,
    numNodes,
    nodeKind: Uint8Array.from(kind),
    nodePlayer: Int32Array.from(player),
    nodeInfo: Int32Array.from(info),
    nodeDepth: Int32Array.from(depthArr),
    edgeStart,
    edgeChild: Int32Array.from(edgeChild),
    edgeAction: Int32Array.from(edgeAction),
    edgeProb: Float64Array.from(edgeProb),
    utilities: Float64Array.from(utils),
    maxDepth,
    numInfoStates: K,
    infoKeys,
    infoPlayer: Int32Array.from(infoPlayer),
    infoNumActions,
    infoOffset,
    actions,
    numSlots,
    infoIndex,
    playerInfoStates,
    infoNodeStart,
    infoNodes,
    maxActions
  }
}

/** Byte sizes of a compiled tree: typed arrays only (`infoKeys` strings and the key index are counted apart). */
export const memoryStats = (tree: GameTree): {
  readonly treeBytes: number
  readonly keyBytes: number
  readonly bytesPerInfoState: number
} => {
  const arrays = [
    tree.nodeKind, tree.nodePlayer, tree.nodeInfo, tree.nodeDepth, tree.edgeStart, tree.edgeChild, tree.edgeAction,
    tree.edgeProb, tree.utilities, tree.infoPlayer, tree.infoNumActions, tree.infoOffset, tree.actions,
    tree.infoNodeStart, tree.infoNodes, ...tree.playerInfoStates
  ]
  const treeBytes = arrays.reduce((s, a) => s + a.byteLength, 0)
  // UTF-16 characters plus a rough per-entry overhead for the string and the Map entry.
  const keyBytes = tree.infoKeys.reduce((s, k) => s + 2 * k.length + 48, 0)
  return { treeBytes, keyBytes, bytesPerInfoState: (treeBytes + keyBytes) / Math.max(1, tree.numInfoStates) }
}

/**
 * Exact best responses in n-player extensive-form games against a fixed policy profile.
 *
 * **When to use**: to measure how exploitable a profile is (`Exploitability.nashConv`), or to get the best-response
 * policy itself (e.g. for PSRO oracles on small games).
 *
 * **Details** (as OpenSpiel's `open_spiel/python/algorithms/best_response.py`)
 * - For the responding player `p`, every history `h` carries its counterfactual reach: the product of the chance
 *   probabilities and of the other players' action probabilities on the way to `h`.
 * - At `p`'s information state `I` the best response picks
 *   `argmax_a Σ_{h ∈ I} reach_{-p}(h) · v(h·a)` (the first maximal action in ascending action order), where `v` is
 *   `p`'s value when `p` plays the best response below and everyone else plays the profile.
 * - The best-response value is `v(root)`. Values and argmaxes are memoized per node and per information state, so a
 *   best response costs one pass over the tree.
 *
 * **Gotchas**: the whole game tree is compiled (see `GameTree`); for repeated evaluations on the same game compile
 * once and use {@link valueOnTree}.
 *
 * @see Johanson et al., "Accelerating Best Response Calculation in Large Extensive Games", IJCAI 2011
 * @see Lanctot et al., "OpenSpiel: A Framework for Reinforcement Learning in Games", arXiv:1908.09453 (2019)
 * @see https://github.com/google-deepmind/open_spiel/blob/master/open_spiel/python/algorithms/best_response.py
 * @category evaluation
 * @since 0.1.0
 */
import { Effect } from "effect"
import type { PolicyMissingInfoStateError } from "../Errors.js"
import type { Game } from "../internal/GameLike.js"
import { CHANCE_NODE, compile, DECISION_NODE, type GameTree, TERMINAL_NODE } from "../tree/GameTree.js"
import * as TabularPolicy from "../tree/TabularPolicy.js"

/** Scratch buffers of a best-response computation (reusable across calls on one tree). */
export interface Workspace {
  readonly reach: Float64Array
  readonly value: Float64Array
  readonly done: Uint8Array
  readonly brAction: Int32Array
}

/** Allocate the scratch buffers for `tree`. */
export const workspace = (tree: GameTree): Workspace => ({
  reach: new Float64Array(tree.numNodes),
  value: new Float64Array(tree.numNodes),
  done: new Uint8Array(tree.numNodes),
  brAction: new Int32Array(tree.numInfoStates)
})

/**
 * Best-response value of `player` (0-based) against `probs` (per-slot probabilities on `tree`, length
 * `tree.numSlots`; only the other players' slots are read), in the game's utility units, computed in one pass with
 * the buffers of `ws`: afterwards `ws.brAction[i]` is the chosen slot offset (0-based action position, the first
 * maximal action) at each of `player`'s information states that the computation visited (-1 elsewhere); write it as
 * a policy with {@link policyOnTree}. With `complete`, every one of `player`'s information states gets its action,
 * as OpenSpiel's `best_response` defines it: the argmax of the counterfactual-reach-weighted action values also below
 * the player's own unchosen actions, and the first action where no other player reaches (all values 0). No
 * validation (rows of `probs` are assumed to be distributions); allocates nothing when `ws` is given.
 */
export const valueOnTree = (tree: GameTree, probs: Float64Array, player: number, ws: Workspace = workspace(tree), complete = false): number => {
  const { nodeKind, nodePlayer, nodeInfo, edgeStart, edgeChild, edgeProb, infoOffset, infoNodeStart, infoNodes, utilities } = tree
  const np = tree.numPlayers
  const { reach, value, done, brAction } = ws
  done.fill(0)
  brAction.fill(-1)
  // Counterfactual reach of the other players and chance, in preorder (parents first).
  reach[0] = 1
  for (let n = 0; n < tree.numNodes; n++) {
    const k = nodeKind[n]!
    if (k === TERMINAL_NODE) continue
    const r = reach[n]!
    const e0 = edgeStart[n]!
    const e1 = edgeStart[n + 1]!
    if (k === CHANCE_NODE) {
      for (let e = e0; e < e1; e++) reach[edgeChild[e]!] = r * edgeProb[e]!
    } else if (nodePlayer[n] === player) {
      for (let e = e0; e < e1; e++) reach[edgeChild[e]!] = r
    } else {
      const off = infoOffset[nodeInfo[n]!]! - e0
      for (let e = e0; e < e1; e++) reach[edgeChild[e]!] = r * probs[off + e]!
    }
  }
  const bestAction = (info: number): number => {
    let a = brAction[info]!
    if (a >= 0) return a
    const nActions = infoOffset[info + 1]! - infoOffset[info]!
    let best = -Infinity
    a = 0
    for (let k = 0; k < nActions; k++) {
      let q = 0
      for (let j = infoNodeStart[info]!; j < infoNodeStart[info + 1]!; j++) {
        const h = infoNodes[j]!
        q += reach[h]! * nodeValue(edgeChild[edgeStart[h]! + k]!)
      }
      if (q > best) {
        best = q
        a = k
      }
    }
    brAction[info] = a
    return a
  }
  const nodeValue = (n: number): number => {
    if (done[n] === 1) return value[n]!
    const k = nodeKind[n]!
    let v = 0
    if (k === TERMINAL_NODE) v = utilities[n * np + player]!
    else {
      const e0 = edgeStart[n]!
      const e1 = edgeStart[n + 1]!
      if (k === CHANCE_NODE) {
        for (let e = e0; e < e1; e++) v += edgeProb[e]! * nodeValue(edgeChild[e]!)
      } else if (nodePlayer[n] === player) {
        v = nodeValue(edgeChild[e0 + bestAction(nodeInfo[n]!)]!)
      } else {
        const off = infoOffset[nodeInfo[n]!]! - e0
        for (let e = e0; e < e1; e++) {
          const p = probs[off + e]!
          if (p > 0) v += p * nodeValue(edgeChild[e]!)
        }
      }
    }
    value[n] = v
    done[n] = 1
    return v
  }
  const root = nodeValue(0)
  if (complete) for (const i of tree.playerInfoStates[player] ?? []) bestAction(i)
  return root
}

/**
 * Expected returns of every player when everyone plays `probs` (per-slot probabilities on `tree`, length
 * `tree.numSlots`): one backward pass over the tree. Returns a view of length `tree.numPlayers` (utility units)
 * into `out` (length `tree.numNodes × tree.numPlayers`, which holds every node's values afterwards); allocates
 * nothing when `out` is given. No validation.
 */
export const expectedReturnsOnTree = (tree: GameTree, probs: Float64Array, out: Float64Array = new Float64Array(tree.numNodes * tree.numPlayers)): Float64Array => {
  const { nodeKind, nodeInfo, edgeStart, edgeChild, edgeProb, infoOffset, utilities } = tree
  const np = tree.numPlayers
  for (let n = tree.numNodes - 1; n >= 0; n--) {
    const k = nodeKind[n]!
    const base = n * np
    if (k === TERMINAL_NODE) {
      for (let p = 0; p < np; p++) out[base + p] = utilities[base + p]!
      continue
    }
    for (let p = 0; p < np; p++) out[base + p] = 0
    const e0 = edgeStart[n]!
    const e1 = edgeStart[n + 1]!
    const off = k === DECISION_NODE ? infoOffset[nodeInfo[n]!]! - e0 : 0
    for (let e = e0; e < e1; e++) {
      const w = k === CHANCE_NODE ? edgeProb[e]! : probs[off + e]!
      if (w === 0) continue
      const c = edgeChild[e]! * np
      for (let p = 0; p < np; p++) out[base + p] += w * out[c + p]!
    }
  }
  return out.subarray(0, np)
}

/** A best response and its value. */
export interface BestResponse {
  readonly player: number
  /** Expected return of `player` playing the best response against the profile. */
  readonly value: number
  /**
   * Deterministic best-response policy: probability 1 on the chosen action at each of `player`'s information states
   * (uniform at the player's states the computation did not need, which lie below the player's own zero-probability
   * choices). Other players' states keep the profile's probabilities.
   */
  readonly policy: TabularPolicy.TabularPolicy
}

/**
 * Write the deterministic best response found by the last {@link valueOnTree} call for `player` (with workspace
 * `ws`) onto `player`'s slots of `out` (per-slot probabilities on `tree`, length `tree.numSlots`): probability 1 on
 * the chosen action at every information state the computation visited, uniform at the others (they lie below the
 * player's own zero-probability choices, so any choice there is a best response). Other players' slots are left as
 * they are. Returns `out`.
 */
export const policyOnTree = (tree: GameTree, player: number, ws: Workspace, out: Float64Array): Float64Array => {
  for (const i of tree.playerInfoStates[player] ?? []) {
    const a = ws.brAction[i]!
    const n = tree.infoNumActions[i]!
    for (let k = 0; k < n; k++) out[tree.infoOffset[i]! + k] = a < 0 ? 1 / n : k === a ? 1 : 0
  }
  return out
}

/**
 * The exact best response of `player` (0-based) to `policy` in `game`, and its value: the deterministic policy that
 * maximizes `player`'s expected return while every other player follows `policy` (OpenSpiel's `BestResponsePolicy`;
 * Lanctot et al. 2019, "OpenSpiel: A Framework for Reinforcement Learning in Games", arXiv:1908.09453).
 *
 * **Shapes and units**: `value` is `player`'s expected return in the game's utility units; `policy` covers every
 * information state of the game (see {@link BestResponse}). `policy` may omit `player`'s own states (they are not
 * read). Compiles the game tree on every call; for repeated calls compile once and use {@link valueOnTree} and
 * {@link policyOnTree}.
 *
 * **Errors**: fails with `PolicyMissingInfoStateError` when `policy` lacks an information state of another player;
 * throws `InvalidGameError` (from `GameTree.compile`) for a malformed game.
 */
export const bestResponse = (
  game: Game,
  policy: TabularPolicy.TabularPolicy,
  player: number
): Effect.Effect<BestResponse, PolicyMissingInfoStateError> =>
  Effect.gen(function*() {
    const tree = compile(game)
    const probs = yield* TabularPolicy.toTreeProbabilities(tree, policyOrUniform(tree, policy, player))
    const ws = workspace(tree)
    const value = valueOnTree(tree, probs, player, ws)
    return { player, value, policy: TabularPolicy.fromTree(tree, policyOnTree(tree, player, ws, probs)) }
  })

/** `policy`, with `player`'s own missing states (unused by a best response) filled uniformly. */
const policyOrUniform = (tree: GameTree, policy: TabularPolicy.TabularPolicy, player: number): TabularPolicy.TabularPolicy => {
  let missing = false
  for (const i of tree.playerInfoStates[player] ?? []) if (!policy.has(tree.infoKeys[i]!)) missing = true
  if (!missing) return policy
  const uniform = TabularPolicy.uniformFromTree(tree)
  const probs = Float64Array.from(uniform.probabilities)
  for (let i = 0; i < tree.numInfoStates; i++) {
    const row = policy.index.get(tree.infoKeys[i]!)
    if (row === undefined) continue
    const n = tree.infoNumActions[i]!
    if (policy.offsets[row + 1]! - policy.offsets[row]! !== n) continue
    for (let k = 0; k < n; k++) probs[tree.infoOffset[i]! + k] = policy.probabilities[policy.offsets[row]! + k]!
  }
  // States of other players that the policy lacks must still be reported: keep them missing.
  const keep: Array<number> = []
  for (let i = 0; i < tree.numInfoStates; i++) {
    if (tree.infoPlayer[i] === player || policy.has(tree.infoKeys[i]!)) keep.push(i)
  }
  if (keep.length === tree.numInfoStates) return TabularPolicy.fromTree(tree, probs)
  return policy
}

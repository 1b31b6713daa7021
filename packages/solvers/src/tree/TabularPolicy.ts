/**
 * Tabular policies of extensive-form games: for every information state of every player, a probability vector over
 * its legal actions, looked up by the information-state string.
 *
 * **When to use**: the output of every solver here (`Cfr`, `Mccfr`, `BestResponse`) and the input of
 * `Exploitability`; save and load with {@link toJson} / {@link fromJson} (an Effect `Schema`).
 *
 * **Details**
 * - Layout follows OpenSpiel's `TabularPolicy` (`open_spiel/python/policy.py`): states indexed in order of discovery,
 *   one row per state. Here rows are ragged: state `i` owns `probabilities[offsets[i] .. offsets[i + 1] - 1]`, one
 *   entry per legal action `actions[...]` (ascending action ids), so a row sums to 1.
 * - {@link uniform} gives every legal action the same probability (OpenSpiel's default policy).
 * - Policies are immutable values; {@link withProbabilities} copies.
 *
 * @example
 * ```ts
 * import { TabularPolicy } from "@autodidact/solvers"
 * import { KuhnPoker } from "@autodidact/envs"
 * const policy = TabularPolicy.uniform(KuhnPoker.make())
 * policy.actionProbabilities("0") // [[0, 0.5], [1, 0.5]]
 * ```
 * @see https://github.com/google-deepmind/open_spiel/blob/master/open_spiel/python/policy.py
 * @category policies
 * @since 0.1.0
 */
import { Effect, Schema } from "effect"
import { PolicyMissingInfoStateError } from "../Errors.js"
import type { Game } from "../internal/GameLike.js"
import { compile, type GameTree } from "./GameTree.js"

/** The JSON form of a {@link TabularPolicy}. */
export const TabularPolicyJson = Schema.Struct({
  format: Schema.Literal("autodidact.tabular-policy"),
  version: Schema.Literal(1),
  game: Schema.String,
  numPlayers: Schema.Number,
  states: Schema.Array(
    Schema.Struct({
      infoState: Schema.String,
      player: Schema.Number,
      actions: Schema.Array(Schema.Number),
      probabilities: Schema.Array(Schema.Number)
    })
  )
})
/** The decoded JSON form of a policy. */
export type TabularPolicyJson = typeof TabularPolicyJson.Type

/** A policy for every player, tabulated by information state. */
export class TabularPolicy {
  /** Row of each information-state string. */
  readonly index: ReadonlyMap<string, number>

  constructor(
    readonly game: string,
    readonly numPlayers: number,
    readonly infoStates: ReadonlyArray<string>,
    readonly players: Int32Array,
    readonly offsets: Int32Array,
    readonly actions: Int32Array,
    readonly probabilities: Float64Array,
    index?: ReadonlyMap<string, number>
  ) {
    if (index !== undefined) this.index = index
    else {
      const m = new Map<string, number>()
      infoStates.forEach((k, i) => m.set(k, i))
      this.index = m
    }
  }

  get size(): number {
    return this.infoStates.length
  }

  has(infoState: string): boolean {
    return this.index.has(infoState)
  }

  /** `[action, probability]` pairs at `infoState` (ascending actions), or `undefined` when the state is unknown. */
  actionProbabilities(infoState: string): ReadonlyArray<readonly [number, number]> | undefined {
    const i = this.index.get(infoState)
    if (i === undefined) return undefined
    const out: Array<readonly [number, number]> = []
    for (let s = this.offsets[i]!; s < this.offsets[i + 1]!; s++) out.push([this.actions[s]!, this.probabilities[s]!])
    return out
  }

  /** Probability of `action` at `infoState` (0 for an illegal action), or `undefined` when the state is unknown. */
  probability(infoState: string, action: number): number | undefined {
    const i = this.index.get(infoState)
    if (i === undefined) return undefined
    for (let s = this.offsets[i]!; s < this.offsets[i + 1]!; s++) if (this.actions[s] === action) return this.probabilities[s]!
    return 0
  }

  /** The same states with other probabilities (one per slot, copied). */
  withProbabilities(probabilities: ArrayLike<number>): TabularPolicy {
    return new TabularPolicy(this.game, this.numPlayers, this.infoStates, this.players, this.offsets, this.actions,
      Float64Array.from(probabilities), this.index)
  }
}

/** A policy over the information states of a compiled tree, with the given per-slot probabilities (copied). */
export const fromTree = (tree: GameTree, probabilities: ArrayLike<number>): TabularPolicy =>
  new TabularPolicy(tree.gameName, tree.numPlayers, tree.infoKeys, tree.infoPlayer, tree.infoOffset, tree.actions,
    Float64Array.from(probabilities), tree.infoIndex)

/** The uniform policy of a compiled tree. */
export const uniformFromTree = (tree: GameTree): TabularPolicy => {
  const probs = new Float64Array(tree.numSlots)
  for (let i = 0; i < tree.numInfoStates; i++) {
    const n = tree.infoNumActions[i]!
    for (let s = tree.infoOffset[i]!; s < tree.infoOffset[i + 1]!; s++) probs[s] = 1 / n
  }
  return fromTree(tree, probs)
}

/** The uniform policy of `game` (every legal action equally likely at every information state). */
export const uniform = (game: Game): TabularPolicy => uniformFromTree(compile(game))

/**
 * The probabilities of `policy` laid out on `tree`'s slots (for the flat solvers).
 * Fails when the policy lacks one of the tree's information states or has other legal actions there.
 */
export const toTreeProbabilities = (
  tree: GameTree,
  policy: TabularPolicy
): Effect.Effect<Float64Array, PolicyMissingInfoStateError> =>
  Effect.suspend(() => {
    const out = new Float64Array(tree.numSlots)
    if (policy.infoStates === tree.infoKeys && policy.offsets === tree.infoOffset) {
      out.set(policy.probabilities)
      return Effect.succeed(out)
    }
    for (let i = 0; i < tree.numInfoStates; i++) {
      const key = tree.infoKeys[i]!
      const row = policy.index.get(key)
      const fail = (reason: string) =>
        Effect.fail(new PolicyMissingInfoStateError({ game: tree.gameName, infoState: key, player: tree.infoPlayer[i]!, reason }))
      if (row === undefined) return fail("has no")
      const start = policy.offsets[row]!
      const n = policy.offsets[row + 1]! - start
      if (n !== tree.infoNumActions[i]) return fail("has other legal actions at")
      for (let k = 0; k < n; k++) {
        if (policy.actions[start + k] !== tree.actions[tree.infoOffset[i]! + k]) return fail("has other legal actions at")
        out[tree.infoOffset[i]! + k] = policy.probabilities[start + k]!
      }
    }
    return Effect.succeed(out)
  })

/** The JSON form of `policy` (see {@link TabularPolicyJson}). */
export const toJson = (policy: TabularPolicy): TabularPolicyJson => ({
  format: "autodidact.tabular-policy",
  version: 1,
  game: policy.game,
  numPlayers: policy.numPlayers,
  states: policy.infoStates.map((infoState, i) => ({
    infoState,
    player: policy.players[i]!,
    actions: Array.from(policy.actions.subarray(policy.offsets[i]!, policy.offsets[i + 1]!)),
    probabilities: Array.from(policy.probabilities.subarray(policy.offsets[i]!, policy.offsets[i + 1]!))
  }))
})

/** Decode a policy from its JSON form (validated with {@link TabularPolicyJson}). */
export const fromJson = (json: unknown): Effect.Effect<TabularPolicy, Schema.SchemaError> =>
  Effect.map(Schema.decodeUnknownEffect(TabularPolicyJson)(json), (doc) => {
    const offsets = new Int32Array(doc.states.length + 1)
    doc.states.forEach((s, i) => {
      offsets[i + 1] = offsets[i]! + s.actions.length
    })
    const actions = new Int32Array(offsets[doc.states.length]!)
    const probabilities = new Float64Array(actions.length)
    doc.states.forEach((s, i) => {
      actions.set(s.actions, offsets[i]!)
      probabilities.set(s.probabilities.slice(0, s.actions.length), offsets[i]!)
    })
    return new TabularPolicy(doc.game, doc.numPlayers, doc.states.map((s) => s.infoState),
      Int32Array.from(doc.states.map((s) => s.player)), offsets, actions, probabilities)
  })

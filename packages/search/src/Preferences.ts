/**
 * Step-level preference pairs from a search tree, as Agent Q builds them (Putta et al., "Agent Q: Advanced Reasoning
 * and Learning for Autonomous AI Agents", arXiv:2408.07199, §4: MCTS over the environment, then off-policy DPO on
 * the tree's sibling actions ranked by value): at every node with at least two sufficiently visited edges, the edge
 * with the highest Q is preferred to each sibling whose Q is lower by at least `margin`. The pairs feed
 * `Dpo.fit` of `@autodidact/optim` (the DRRN policy) or, as JSON lines ({@link toJsonLines}), an LLM's DPO.
 *
 * **Choices the paper leaves open or that differ here, made here**
 * - Q(s, a) is the MCTS edge mean (discounted return through the edge, `valueSum / visits`). Agent Q blends it with
 *   an LLM critic's ranking of the candidate actions (its α); there is no critic in this path, so the blend is the
 *   MCTS value alone.
 * - Pairs are best-versus-rest per node (`pairing: "best-vs-rest"`, default; `"all"` gives every ordered pair whose
 *   gap is at least `margin`), each with weight 1 or, with `weightByGap`, its Q gap.
 * - A node's input carries the task, the node's observation and admissible commands, and the history along the
 *   tree's first path to it (`NodeStore.stepsTo`: the real episode's steps before the root when the search was given
 *   them, then each earlier observation and the command taken), as the multi-turn trainer encodes states.
 *
 * - `maxDepth` keeps only the nodes near the root (0: the root alone, the real decision; its edges have the most
 *   visits and so the least noisy Q).
 *
 * **Errors**: `InvalidOptionError` for a negative or non-finite `margin`, a `minVisits` that is not a positive
 * integer, a `maxDepth` that is not a non-negative integer.
 * @since 0.1.0
 */
import { InvalidOptionError } from "@autodidact/core"
import { Dpo } from "@autodidact/optim"
import { Schema } from "effect"
import type { NodeStore } from "./NodeStore.js"

/** Options of {@link fromTree}. */
export interface Options {
  /** The task text of the searched episode (the inputs' `task`). */
  readonly task: string
  /** Smallest Q gap (best minus other) for a pair (default 0.05; ≥ 0). */
  readonly margin?: number | undefined
  /** Visits an edge needs to take part (default 2). */
  readonly minVisits?: number | undefined
  /** `"best-vs-rest"` (default) or `"all"` (every ordered pair whose gap is at least `margin`). */
  readonly pairing?: "best-vs-rest" | "all" | undefined
  /** Weight each pair by its Q gap instead of 1 (default false). */
  readonly weightByGap?: boolean | undefined
  /**
   * Only nodes at most this deep on their first path (0: the root alone, i.e. the real decision the search was run
   * for, whose edges have the most visits; default: every node). A non-negative integer.
   */
  readonly maxDepth?: number | undefined
}

/** One pair with its provenance (the node's state key and the two Q-values). */
export interface TreePair extends Dpo.PreferencePair {
  readonly stateKey: string
  readonly chosenQ: number
  readonly rejectedQ: number
}

/**
 * The preference pairs of a search's tree (`Mcts.search(...).store`), node by node in id order (see the module
 * docs).
 * @throws InvalidOptionError for a bad `margin`, `minVisits` or `maxDepth`.
 */
export const fromTree = (store: NodeStore, options: Options): Array<TreePair> => {
  const margin = options.margin ?? 0.05
  if (!(margin >= 0 && Number.isFinite(margin))) throw new InvalidOptionError({ option: "margin", value: margin, reason: "must be a non-negative finite number" })
  const minVisits = options.minVisits ?? 2
  if (!(Number.isSafeInteger(minVisits) && minVisits >= 1)) throw new InvalidOptionError({ option: "minVisits", value: minVisits, reason: "must be a positive integer" })
  const maxDepth = options.maxDepth ?? Number.MAX_SAFE_INTEGER
  if (!(Number.isSafeInteger(maxDepth) && maxDepth >= 0)) throw new InvalidOptionError({ option: "maxDepth", value: maxDepth, reason: "must be a non-negative integer" })
  const all = options.pairing === "all"
  const out: Array<TreePair> = []
  for (const node of store.nodes) {
    if (node.depth > maxDepth) continue
    const ranked = node.edges
      .filter((e) => e.visits >= minVisits)
      .map((e) => ({ action: e.action, q: e.valueSum / e.visits }))
      .sort((a, b) => b.q - a.q)
    if (ranked.length < 2) continue
    const input = { task: options.task, observation: node.observation, admissible: node.admissible, history: store.stepsTo(node) }
    const emit = (w: { action: string; q: number }, l: { action: string; q: number }) => {
      const gap = w.q - l.q
      if (gap < margin || gap <= 0) return
      out.push({ input, chosen: w.action, rejected: l.action, weight: options.weightByGap === true ? gap : 1, stateKey: node.key, chosenQ: w.q, rejectedQ: l.q })
    }
    if (all) for (let i = 0; i < ranked.length; i++) for (let j = i + 1; j < ranked.length; j++) emit(ranked[i]!, ranked[j]!)
    else for (let j = 1; j < ranked.length; j++) emit(ranked[0]!, ranked[j]!)
  }
  return out
}

/** A pair as one JSON line (the shape {@link toJsonLines} writes and {@link fromJsonLines} reads). */
export const PairRow = Schema.Struct({
  task: Schema.String,
  observation: Schema.String,
  admissible: Schema.Array(Schema.String),
  history: Schema.Array(Schema.Struct({ observation: Schema.String, action: Schema.String })),
  chosen: Schema.String,
  rejected: Schema.String,
  weight: Schema.Number,
  stateKey: Schema.String,
  chosenQ: Schema.Number,
  rejectedQ: Schema.Number
})

/** The pairs as JSON lines (one {@link PairRow} per line, newline-terminated). */
export const toJsonLines = (pairs: ReadonlyArray<TreePair>): string =>
  pairs
    .map((p) =>
      JSON.stringify(
        PairRow.make({
          task: p.input.task,
          observation: p.input.observation,
          admissible: p.input.admissible,
          history: p.input.history ?? [],
          chosen: p.chosen,
          rejected: p.rejected,
          weight: p.weight ?? 1,
          stateKey: p.stateKey,
          chosenQ: p.chosenQ,
          rejectedQ: p.rejectedQ
        })
      ) + "\n"
    )
    .join("")

/**
 * Pairs read back from {@link toJsonLines}' text (empty lines skipped).
 * @throws SchemaError (Effect `Schema`) naming the line's offending field.
 */
export const fromJsonLines = (text: string): Array<TreePair> =>
  text
    .split("\n")
    .filter((l) => l.trim().length > 0)
    .map((line) => {
      const r = Schema.decodeUnknownSync(PairRow)(JSON.parse(line))
      return {
        input: { task: r.task, observation: r.observation, admissible: r.admissible, history: r.history },
        chosen: r.chosen,
        rejected: r.rejected,
        weight: r.weight,
        stateKey: r.stateKey,
        chosenQ: r.chosenQ,
        rejectedQ: r.rejectedQ
      }
    })

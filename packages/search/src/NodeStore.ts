/**
 * The node store every search of this package shares: one node per distinct `stateKey()` (transpositions: two paths
 * to one state share one node), each holding the env snapshot it can be restored from, and one edge per admissible
 * action with the edge's step outcome and visit statistics. MCTS, best-first and beam search all read and grow it,
 * so their statistics ({@link Stats}) mean the same thing.
 *
 * **Details**
 * - A node is created the first time a step reaches its state key; its snapshot, observation, admissible actions,
 *   depth and parent are those of that first path. Later paths to the same key link to it
 *   ({@link NodeStore.transpositions} counts them). Steps that end the episode (`terminated` or `truncated`) create
 *   no node: the edge records the reward and `done`.
 * - Edges carry the statistics (`visits`, `valueSum`: sums of discounted returns from the edge's parent), as in MCTS
 *   with transpositions on a DAG (Childs, Brodeur & Kocsis 2008, "Transpositions and move groups in Monte Carlo
 *   tree search", CIG 2008).
 * - {@link Simulator} is the only way the searches touch the env: `goTo(node)` restores the node's snapshot unless the
 *   env is already there, `step` counts against the budget. No search ever replays from the episode start.
 * @since 0.1.0
 */
import type { Snapshot, TextEnv } from "@autodidact/envs"
import type { Search as RewardSearch } from "@autodidact/rewards"
import type { Meter, StopReason } from "./Budget.js"

/** What a policy, prior or value function sees of a state (`@autodidact/rewards`' `Search.PolicyInput`). */
export type PolicyInput = RewardSearch.PolicyInput
/** A text policy: picks one admissible action (`@autodidact/rewards`' `Search.Policy`). */
export type Policy = RewardSearch.Policy
/** A text environment with `snapshot()`/`restore()` (`TextHousehold`, `TextSokoban`, `TextFrozenLake`). */
export type SearchEnv = TextEnv.RestorableTextEnv

/** One admissible action of a node and what taking it did. */
export interface Edge {
  readonly action: string
  /** Prior probability (PUCT; uniform when no prior is given). */
  prior: number
  /** The child node's id; -1 until expanded, and for steps that ended the episode. */
  child: number
  /** Whether the edge has been stepped. */
  expanded: boolean
  /** Reward of the step (valid once expanded). */
  reward: number
  /** The step ended the episode (`terminated` or `truncated`). */
  done: boolean
  /** The step reached the goal (see the searches' `isGoal`). */
  goal: boolean
  /** Backups through this edge (MCTS). */
  visits: number
  /** Sum of the discounted returns backed up through this edge (MCTS); mean = `valueSum / visits`. */
  valueSum: number
}

/** One distinct state. */
export interface Node {
  readonly id: number
  readonly key: string
  readonly snapshot: Snapshot.EnvSnapshot
  /** The observation the first path saw on arriving here. */
  readonly observation: string
  readonly admissible: ReadonlyArray<string>
  /** Depth on the first path (root 0). */
  readonly depth: number
  /** Parent on the first path (-1 for the root) and the edge index taken there. */
  readonly parent: number
  readonly parentEdge: number
  /** One edge per admissible action, in the order the search expands them (by prior when it has one). */
  edges: Array<Edge>
  /** Backups through this node as a parent (MCTS's N(s)). */
  visits: number
  /** The value source's estimate, NaN until evaluated. */
  value: number
  /** Internal: the simulation that last passed through (cycle detection). */
  stamp: number
}

/** Counters of a search. */
export interface Stats {
  /** Nodes in the store (root included). */
  readonly nodes: number
  /** `env.step` calls. */
  readonly envSteps: number
  /** `env.restore` calls. */
  readonly restores: number
  /** Links to an existing node by state key. */
  readonly transpositions: number
  /** MCTS simulations, or best-first/beam node expansions. */
  readonly iterations: number
  /** Deepest node (first-path depth). */
  readonly maxDepth: number
  readonly wallMs: number
  readonly stoppedBy: StopReason
}

/** The store: nodes by id and by state key. */
export class NodeStore {
  readonly nodes: Array<Node> = []
  private readonly byKey = new Map<string, number>()
  /** Links of an edge to an already stored node. */
  transpositions = 0
  maxDepth = 0

  /** Number of nodes. */
  get size(): number {
    return this.nodes.length
  }

  /** The root (node 0). */
  get root(): Node {
    return this.nodes[0]!
  }

  /** The node with this state key, or undefined. */
  get(key: string): Node | undefined {
    const id = this.byKey.get(key)
    return id === undefined ? undefined : this.nodes[id]
  }

  /** Add a node (its key must be new) with one unexpanded edge per admissible action, priors uniform. */
  add(key: string, snapshot: Snapshot.EnvSnapshot, observation: string, admissible: ReadonlyArray<string>, parent: number, parentEdge: number): Node {
    const id = this.nodes.length
    const depth = parent < 0 ? 0 : this.nodes[parent]!.depth + 1
    const p = admissible.length === 0 ? 0 : 1 / admissible.length
    const edges: Array<Edge> = new Array(admissible.length)
    for (let i = 0; i < admissible.length; i++) {
      edges[i] = { action: admissible[i]!, prior: p, child: -1, expanded: false, reward: 0, done: false, goal: false, visits: 0, valueSum: 0 }
    }
    const node: Node = { id, key, snapshot, observation, admissible, depth, parent, parentEdge, edges, visits: 0, value: Number.NaN, stamp: -1 }
    this.nodes.push(node)
    this.byKey.set(key, id)
    if (depth > this.maxDepth) this.maxDepth = depth
    return node
  }

  /** The actions of the first path from the root to `node`. */
  pathTo(node: Node): Array<string> {
    const out: Array<string> = []
    let n = node
    while (n.parent >= 0) {
      const parent = this.nodes[n.parent]!
      out.push(parent.edges[n.parentEdge]!.action)
      n = parent
    }
    return out.reverse()
  }
}

/** Whether a step reached the goal: `terminated` and `info.won` / `info.success` when the env reports one, else a positive reward. */
export type GoalTest = (reward: number, terminated: boolean, info: { readonly [key: string]: unknown }) => boolean

/** The default {@link GoalTest}. */
export const defaultGoal: GoalTest = (reward, terminated, info) => {
  if (!terminated) return false
  const flag = info["won"] ?? info["success"]
  return typeof flag === "boolean" ? flag : reward > 0
}

/**
 * The env as the searches use it: restores a node's snapshot only when the env is elsewhere, counts steps on the
 * meter, and builds the {@link PolicyInput} of a node (task, observation, admissible actions, the real history
 * followed by the first path's actions).
 * @category models
 */
export class Simulator {
  /** The node whose state the env holds now, or -1. */
  at = -1
  restores = 0

  constructor(
    readonly env: SearchEnv,
    readonly store: NodeStore,
    readonly meter: Meter,
    readonly history: ReadonlyArray<string> = [],
    readonly isGoal: GoalTest = defaultGoal
  ) {}

  /** Put the env in `node`'s state (a `restore` unless it is there already). */
  goTo(node: Node): void {
    if (this.at !== node.id) {
      this.env.restore(node.snapshot)
      this.restores++
      this.at = node.id
    }
  }

  /** One counted env step (the caller checked the budget); the env is then at no stored node. */
  step(action: string): ReturnType<SearchEnv["step"]> {
    this.meter.envSteps++
    this.at = -1
    return this.env.step(action)
  }

  /** The view of a node for policies, priors and value functions. */
  input(node: Node): PolicyInput {
    const path = this.store.pathTo(node)
    return { task: this.env.task, observation: node.observation, admissible: node.admissible, history: path.length === 0 ? this.history : [...this.history, ...path] }
  }

  /**
   * Take edge `index` of `parent` (restore + one step): records reward/done/goal on the edge and links or creates
   * the child. Returns the child node (undefined when the step ended the episode) and whether it is new.
   */
  expand(parent: Node, index: number): { readonly node: Node | undefined; readonly created: boolean } {
    const edge = parent.edges[index]!
    this.goTo(parent)
    const r = this.step(edge.action)
    edge.expanded = true
    edge.reward = r.reward
    if (r.terminated || r.truncated) {
      edge.done = true
      edge.goal = this.isGoal(r.reward, r.terminated, r.info)
      return { node: undefined, created: false }
    }
    const key = this.env.stateKey()
    const existing = this.store.get(key)
    if (existing !== undefined) {
      edge.child = existing.id
      this.store.transpositions++
      return { node: existing, created: false }
    }
    const node = this.store.add(key, this.env.snapshot(), r.observation, this.env.admissibleActions(), parent.id, index)
    edge.child = node.id
    this.at = node.id
    return { node, created: true }
  }

  /** The root node from the env's current state (`observation`: what the agent sees now). */
  addRoot(observation: string): Node {
    const node = this.store.add(this.env.stateKey(), this.env.snapshot(), observation, this.env.admissibleActions(), -1, -1)
    this.at = node.id
    return node
  }

  /** Counters for a result. */
  stats(iterations: number, stoppedBy: StopReason): Stats {
    return {
      nodes: this.store.size,
      envSteps: this.meter.envSteps,
      restores: this.restores,
      transpositions: this.store.transpositions,
      iterations,
      maxDepth: this.store.maxDepth,
      wallMs: this.meter.elapsedMs(),
      stoppedBy
    }
  }
}

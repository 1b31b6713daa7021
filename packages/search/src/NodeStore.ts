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
import { InvalidOptionError, type Rng } from "@autodidact/core"
import type { Snapshot, TextEnv } from "@autodidact/envs"
import type { Search as RewardSearch } from "@autodidact/rewards"
import type { Meter, StopReason } from "./Budget.js"

/** One earlier step of an episode: the observation the agent saw and the action it took on it. */
export interface Step {
  readonly observation: string
  readonly action: string
}

/**
 * What a policy, prior or value function sees of a state: `@autodidact/rewards`' `Search.PolicyInput` (`history`:
 * the episode's actions so far, oldest first) and `steps`, the same history with the observation each action was
 * taken on (the shape `@autodidact/optim`'s DRRN and multi-turn rollouts encode). The searches always fill in
 * `steps`; a caller that builds an input itself may leave it out (readers then pair each action with `""`, see
 * {@link stepsOf}).
 */
export interface PolicyInput extends RewardSearch.PolicyInput {
  readonly steps?: ReadonlyArray<Step> | undefined
}

/**
 * A text policy: picks one admissible action. Any `@autodidact/rewards` `Search.Policy` is one (it reads only the
 * fields it knows).
 */
export type Policy = (input: PolicyInput, rng: Rng) => string

/** The `(observation, action)` history of an input: `input.steps`, or else each action of `history` with observation `""`. */
export const stepsOf = (input: PolicyInput): ReadonlyArray<Step> =>
  input.steps ?? input.history.map((action) => ({ observation: "", action }))
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

/**
 * The real history before a search's root, from the search's `history` (actions) and `steps` (observation and
 * action pairs) options: `steps` when given (`history` is then its actions), else each action of `history` with
 * observation `""`.
 * @throws InvalidOptionError (option `steps`) when both are given and their actions differ.
 */
export const rootHistory = (
  history: ReadonlyArray<string> | undefined,
  steps: ReadonlyArray<Step> | undefined
): { readonly history: ReadonlyArray<string>; readonly steps: ReadonlyArray<Step> } => {
  if (steps === undefined) return { history: history ?? [], steps: (history ?? []).map((action) => ({ observation: "", action })) }
  const actions = steps.map((s) => s.action)
  if (history !== undefined && (history.length !== actions.length || history.some((a, i) => a !== actions[i]))) {
    throw new InvalidOptionError({ option: "steps", value: actions, reason: `its actions must equal history (${JSON.stringify(history)})` })
  }
  return { history: actions, steps }
}

/**
 * The store: nodes by id and by state key. `prefix` is the real episode's history before the root (each earlier
 * observation and action; default none): {@link stepsTo} starts with it.
 */
export class NodeStore {
  readonly nodes: Array<Node> = []
  private readonly byKey = new Map<string, number>()
  /** Links of an edge to an already stored node. */
  transpositions = 0
  maxDepth = 0

  constructor(readonly prefix: ReadonlyArray<Step> = []) {}

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

  /** The history of `node` along its first path: {@link prefix}, then each node's observation and the action taken on it. */
  stepsTo(node: Node): Array<Step> {
    const out: Array<Step> = []
    let n = node
    while (n.parent >= 0) {
      const parent = this.nodes[n.parent]!
      out.push({ observation: parent.observation, action: parent.edges[n.parentEdge]!.action })
      n = parent
    }
    out.reverse()
    return this.prefix.length === 0 ? out : [...this.prefix, ...out]
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
 * followed by the first path's actions, and the same with observations).
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

  /**
   * The view of a node for policies, priors and value functions: `history` is the real history's actions then the
   * first path's, `steps` the store's {@link NodeStore.stepsTo}.
   */
  input(node: Node): PolicyInput {
    const path = this.store.pathTo(node)
    return {
      task: this.env.task,
      observation: node.observation,
      admissible: node.admissible,
      history: path.length === 0 ? this.history : [...this.history, ...path],
      steps: this.store.stepsTo(node)
    }
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

/**
 * Best-first search and beam search over environment states, on the same node store, budgets and statistics as MCTS.
 *
 * **Details**
 * - Both look for a step that reaches the goal (`isGoal`, default: `info.won`/`info.success`, else a positive
 *   terminal reward) and return the plan (actions from the root) when they find one.
 * - Best-first (Koh et al. 2024, "Tree Search for Language Model Agents", arXiv:2407.01476: a frontier ordered by a
 *   value function): pop the stored node of highest priority, expand all its edges (one restore + one step each), push
 *   every new child with priority `value(child)` (or `return-to-child + γ^depth value(child)` with
 *   `priority: "return+value"`). Each state is expanded at most once (transpositions are closed by key). Ties pop
 *   in insertion order.
 * - Beam search: keep the `width` best states of each depth, scored as above; expand every edge of every beam
 *   state, then keep the `width` best distinct children (ties in expansion order). Revisiting a stored state is
 *   allowed (its stored edges are reused without stepping), so width 1 is exactly greedy one-step lookahead on the
 *   value. Stops at `maxDepth` (default 100).
 * - No goal within the budget (`solved: false`): best-first's plan leads to the stored node of highest priority,
 *   beam's to the best state of the last beam (for width 1, the whole greedy path).
 * - The env is restored to the root state at the end.
 * @see Koh, Salakhutdinov et al. 2024, "Tree Search for Language Model Agents", arXiv:2407.01476
 * @see Russell & Norvig, "Artificial Intelligence: A Modern Approach", 4th ed., Sec. 3.5 (greedy best-first) and
 *   Sec. 4.1 (local beam search)
 * @since 0.1.0
 */
import { InvalidOptionError } from "@autodidact/core"
import { type Budget, Meter, type StopReason } from "./Budget.js"
import { defaultGoal, type GoalTest, type Node, NodeStore, rootHistory, type SearchEnv, Simulator, type Stats, type Step } from "./NodeStore.js"
import type { ValueFunction } from "./Value.js"

/** Options of {@link bestFirst} and {@link beam}. */
export interface Options {
  readonly budget: Budget
  /** The priority of a state (a critic, a reward model's score); finite. */
  readonly value: ValueFunction
  /** `"value"` (default) or `"return+value"` (reward so far on the first path plus the discounted value). */
  readonly priority?: "value" | "return+value" | undefined
  /** Discount in (0, 1] for `"return+value"` (default 1). */
  readonly gamma?: number | undefined
  readonly isGoal?: GoalTest | undefined
  /** Actions taken before the root, for the views given to the value function (default []). */
  readonly history?: ReadonlyArray<string> | undefined
  /** The same history with the observation of each action (see `NodeStore.rootHistory`; default: `history` with `""` observations). */
  readonly steps?: ReadonlyArray<Step> | undefined
  readonly clock?: (() => number) | undefined
}

/** Beam options. */
export interface BeamOptions extends Options {
  /** States kept per depth, a positive integer. */
  readonly width: number
  /** Depth limit (default 100). */
  readonly maxDepth?: number | undefined
}

/** What best-first and beam search return. */
export interface Result {
  /** Whether a goal step was found. */
  readonly solved: boolean
  /** Actions from the root: to the goal when solved, else to the best-priority state. */
  readonly plan: ReadonlyArray<string>
  /** The plan's first action (undefined when the plan is empty). */
  readonly action: string | undefined
  readonly stats: Stats
  readonly store: NodeStore
}

/** A max-priority queue of node ids (binary heap; ties pop in insertion order). */
class Frontier {
  private ids = new Int32Array(64)
  private keys = new Float64Array(64)
  private order = new Float64Array(64)
  private n = 0
  private count = 0

  get size(): number {
    return this.n
  }

  private above(i: number, j: number): boolean {
    return this.keys[i]! > this.keys[j]! || (this.keys[i] === this.keys[j] && this.order[i]! < this.order[j]!)
  }

  private swap(i: number, j: number): void {
    const id = this.ids[i]!
    const k = this.keys[i]!
    const o = this.order[i]!
    this.ids[i] = this.ids[j]!
    this.keys[i] = this.keys[j]!
    this.order[i] = this.order[j]!
    this.ids[j] = id
    this.keys[j] = k
    this.order[j] = o
  }

  push(id: number, key: number): void {
    if (this.n === this.ids.length) {
      const ids = new Int32Array(this.n * 2)
      ids.set(this.ids)
      this.ids = ids
      const keys = new Float64Array(this.n * 2)
      keys.set(this.keys)
      this.keys = keys
      const order = new Float64Array(this.n * 2)
      order.set(this.order)
      this.order = order
    }
    let i = this.n++
    this.ids[i] = id
    this.keys[i] = key
    this.order[i] = this.count++
    while (i > 0) {
      const up = (i - 1) >> 1
      if (!this.above(i, up)) break
      this.swap(i, up)
      i = up
    }
  }

  pop(): number {
    const top = this.ids[0]!
    this.n--
    if (this.n > 0) {
      this.swap(0, this.n)
      let i = 0
      for (;;) {
        const l = 2 * i + 1
        const r = l + 1
        let m = i
        if (l < this.n && this.above(l, m)) m = l
        if (r < this.n && this.above(r, m)) m = r
        if (m === i) break
        this.swap(i, m)
        i = m
      }
    }
    return top
  }
}

interface Setup {
  readonly sim: Simulator
  readonly meter: Meter
  readonly store: NodeStore
  readonly root: Node
  readonly score: (node: Node, g: number) => number
}

const setup = (env: SearchEnv, observation: string, options: Options): Setup => {
  if (typeof options.value !== "function") throw new InvalidOptionError({ option: "value", value: options.value, reason: "expected a function (input, stateKey) => number" })
  const priority = options.priority ?? "value"
  if (priority !== "value" && priority !== "return+value") {
    throw new InvalidOptionError({ option: "priority", value: priority, reason: 'expected "value" or "return+value"' })
  }
  const gamma = options.gamma ?? 1
  if (!(gamma > 0 && gamma <= 1)) throw new InvalidOptionError({ option: "gamma", value: gamma, reason: "expected a number in (0, 1]" })
  const before = rootHistory(options.history, options.steps)
  const meter = new Meter(options.budget, options.clock)
  const store = new NodeStore(before.steps)
  const sim = new Simulator(env, store, meter, before.history, options.isGoal ?? defaultGoal)
  const root = sim.addRoot(observation)
  const fn = options.value
  const score = (node: Node, g: number): number => {
    if (Number.isNaN(node.value)) {
      const v = fn(sim.input(node), node.key)
      if (!Number.isFinite(v)) throw new InvalidOptionError({ option: "value function result", value: v, reason: `expected a finite number (state ${node.key})` })
      node.value = v
    }
    return priority === "value" ? node.value : g + Math.pow(gamma, node.depth) * node.value
  }
  return { sim, meter, store, root, score }
}

const finish = (s: Setup, solved: boolean, plan: Array<string>, iterations: number, stoppedBy: StopReason): Result => {
  s.sim.goTo(s.root)
  return { solved, plan, action: plan[0], stats: s.sim.stats(iterations, stoppedBy), store: s.store }
}

/**
 * Best-first search from the env's current state (see the module docs).
 * @throws InvalidOptionError for a bad budget (naming the field), option, or a non-finite value.
 */
export const bestFirst = (env: SearchEnv, observation: string, options: Options): Result => {
  const s = setup(env, observation, options)
  const { sim, meter, store, root, score } = s
  // return along the first path, for "return+value"
  const g = [0]
  const frontier = new Frontier()
  frontier.push(root.id, score(root, 0))
  let best = root
  let bestScore = -Infinity
  let expanded = 0
  while (frontier.size > 0) {
    const node = store.nodes[frontier.pop()!]!
    for (let i = 0; i < node.edges.length; i++) {
      const stop = meter.exhausted(store.size, 1)
      if (stop !== undefined) return finish(s, false, store.pathTo(best), expanded, stop)
      const edge = node.edges[i]!
      const r = sim.expand(node, i)
      if (edge.goal) return finish(s, true, [...store.pathTo(node), edge.action], expanded + 1, "solved")
      if (r.created) {
        const child = r.node!
        g[child.id] = g[node.id]! + Math.pow(options.gamma ?? 1, node.depth) * edge.reward
        const p = score(child, g[child.id]!)
        if (p > bestScore) {
          bestScore = p
          best = child
        }
        frontier.push(child.id, p)
      }
    }
    expanded++
  }
  return finish(s, false, store.pathTo(best), expanded, "exhausted")
}

/**
 * Beam search from the env's current state (see the module docs); width 1 is greedy one-step lookahead.
 * @throws InvalidOptionError for a bad budget (naming the field), width, option, or a non-finite value.
 */
export const beam = (env: SearchEnv, observation: string, options: BeamOptions): Result => {
  const width = options.width
  if (!(Number.isInteger(width) && width >= 1)) throw new InvalidOptionError({ option: "width", value: width, reason: "expected a positive integer" })
  const maxDepth = options.maxDepth ?? 100
  if (!(Number.isInteger(maxDepth) && maxDepth >= 1)) throw new InvalidOptionError({ option: "maxDepth", value: maxDepth, reason: "expected an integer >= 1" })
  const s = setup(env, observation, options)
  const { sim, meter, store, root, score } = s
  const gamma = options.gamma ?? 1
  interface Entry {
    readonly node: Node
    readonly g: number
    readonly plan: Array<string>
    readonly score: number
  }
  let beamStates: Array<Entry> = [{ node: root, g: 0, plan: [], score: score(root, 0) }]
  let expanded = 0
  for (let depth = 0; depth < maxDepth; depth++) {
    const children: Array<Entry> = []
    const seen = new Map<number, number>()
    for (const entry of beamStates) {
      const node = entry.node
      for (let i = 0; i < node.edges.length; i++) {
        const edge = node.edges[i]!
        let child: Node | undefined
        if (edge.expanded) child = edge.done ? undefined : store.nodes[edge.child]
        else {
          const stop = meter.exhausted(store.size, 1)
          if (stop !== undefined) return finish(s, false, beamStates[0]!.plan, expanded, stop)
          child = sim.expand(node, i).node
        }
        if (edge.goal) return finish(s, true, [...entry.plan, edge.action], expanded + 1, "solved")
        if (child === undefined) continue
        const g = entry.g + Math.pow(gamma, depth) * edge.reward
        const e: Entry = { node: child, g, plan: [...entry.plan, edge.action], score: score(child, g) }
        const at = seen.get(child.id)
        if (at === undefined) {
          seen.set(child.id, children.length)
          children.push(e)
        } else if (e.score > children[at]!.score) children[at] = e
      }
      expanded++
    }
    if (children.length === 0) return finish(s, false, beamStates[0]!.plan, expanded, "exhausted")
    // stable sort: ties keep expansion order
    beamStates = children.map((e, k) => [e, k] as const).sort((a, b) => b[0].score - a[0].score || a[1] - b[1]).slice(0, width).map((x) => x[0])
  }
  return finish(s, false, beamStates[0]!.plan, expanded, "exhausted")
}

/**
 * Monte Carlo tree search over environment states, with UCT or PUCT selection, transpositions by `stateKey()`,
 * progressive widening, and values from rollouts or a value function.
 *
 * **Details**
 * - One simulation: from the root, select an edge at each node, follow expanded edges through the store, expand the
 *   first unexpanded one (restore its parent's snapshot, one env step), value the new state with the value source,
 *   and back the discounted return up the path: each edge on it gets `visits += 1` and `valueSum += G`, where
 *   `G = reward + γ G'` from the leaf up. A step that ends the episode is a leaf of value 0 (its reward is on the
 *   edge). Selection skips edges into nodes already on the current path (cycles through transpositions); a node
 *   whose edges all do so, a node reached again by a transposition link, or a node at `maxDepth` is a leaf valued by
 *   its own estimate.
 * - UCT (Kocsis & Szepesvári 2006): unvisited edges first (in edge order), then
 *   `argmax Q̂(s,a) + c √(ln N(s) / N(s,a))`, `c` default √2.
 * - PUCT (Silver et al. 2017, AlphaZero): `argmax Q̂(s,a) + c P(s,a) √max(1, N(s)) / (1 + N(s,a))`, `c` default
 *   1.25, `Q̂` of an unvisited edge `fpu` (default 0, AlphaZero's pseudocode); `P` from `prior(input)`, a
 *   probability per admissible action (normalized; negative or non-finite entries are an `InvalidOptionError`).
 *   Without a prior, `P` is uniform.
 * - `Q̂` is the edge mean normalized to [0, 1] by the minimum and maximum mean seen in the tree (MuZero's
 *   normalization, Schrittwieser et al. 2020, arXiv:1911.08265; 0 while all means are equal), so `c` needs no
 *   reward scale; `normalize: false` uses raw means.
 * - Progressive widening (Coulom 2007; Couëtoux et al. 2011): with `widening: { c, alpha }` a node with N visits
 *   considers only its first `max(1, floor(c · max(1, N)^alpha))` edges, edges ordered by prior (descending, stable).
 * - The action returned is the root edge with the most visits (ties: higher mean, then edge order). The env is
 *   restored to the root state at the end.
 * - Goal plans (single-player MCTS keeps the best sequence found, Schadd et al. 2008, "Single-Player Monte-Carlo Tree
 *   Search", CG 2008): the shortest simulation (tree path plus rollout) that reached the goal is returned as `plan`
 *   with the state key before each action (`planKeys`), so a caller on a deterministic env can follow it
 *   (`SearchPolicy`'s `followPlan`); `stopAtGoal` ends the search at the first one. When the root's most visited
 *   action is not the plan's first one, `action` stays the most visited edge (the plan is a by-product).
 * - `horizon` (the real episode's steps left): a path of that length ends in a leaf of value 0 and rollouts are
 *   cut at it (`Value.evaluate`'s `depthLeft`). A node's estimate is cached on its first evaluation, also when a
 *   transposition reaches it at another depth.
 * - Budgets: see `Budget`; `iterations` caps the simulations too. A simulation that would need a step past the
 *   `envSteps` budget is dropped without a backup. After `maxIdle` consecutive simulations without an env step (the
 *   search converged on known outcomes, or the reachable tree is fully expanded) it ends with `"idle"`.
 * @see Kocsis & Szepesvári 2006, "Bandit based Monte-Carlo Planning", ECML 2006
 * @see Silver et al. 2017, "Mastering Chess and Shogi by Self-Play with a General Reinforcement Learning Algorithm",
 *   arXiv:1712.01815 (PUCT; pseudocode `ucb_score`)
 * @see Coulom 2007, "Computing Elo Ratings of Move Patterns in the Game of Go"; Couëtoux et al. 2011, "Continuous
 *   Upper Confidence Trees", LION 5 (progressive widening)
 * @since 0.1.0
 */
import { InvalidOptionError, Rng } from "@autodidact/core"
import { type Budget, Meter, type StopReason } from "./Budget.js"
import { defaultGoal, type GoalTest, type Node, NodeStore, type PolicyInput, rootHistory, type SearchEnv, Simulator, type Stats, type Step } from "./NodeStore.js"
import * as Value from "./Value.js"

/** A policy's action probabilities for PUCT: one non-negative number per `input.admissible` entry. */
export type Prior = (input: PolicyInput) => ArrayLike<number>

/** MCTS options. */
export interface Options {
  readonly budget: Budget
  /** `"uct"` (default) or `"puct"`. */
  readonly selection?: "uct" | "puct" | undefined
  /** Exploration constant (default √2 for UCT, 1.25 for PUCT); finite, ≥ 0. */
  readonly c?: number | undefined
  /** Action probabilities (PUCT's P; also orders edges for widening). */
  readonly prior?: Prior | undefined
  /** Value of a new state (default `Value.randomRollout(20)`). */
  readonly value?: Value.Source | undefined
  /** Discount in (0, 1] (default 1). */
  readonly gamma?: number | undefined
  /** Progressive widening: `max(1, floor(c · N^alpha))` edges considered at a node with N visits; c > 0, alpha in (0, 1). */
  readonly widening?: { readonly c: number; readonly alpha: number } | undefined
  /** PUCT's value of an unvisited edge in normalized units (default 0). */
  readonly fpu?: number | undefined
  /** Normalize edge means to [0, 1] by the tree's min/max (default true). */
  readonly normalize?: boolean | undefined
  /** Simulations at most (default unlimited; the budget decides). */
  readonly iterations?: number | undefined
  /** Depth below the root at which a node is a leaf (default 100). */
  readonly maxDepth?: number | undefined
  /**
   * Consecutive simulations that step the env zero times after which the search ends with `"idle"` (default 1000):
   * a search that has converged on a known outcome (e.g. a found goal step) or expanded every reachable edge would
   * otherwise spin without spending the budget.
   */
  readonly maxIdle?: number | undefined
  /**
   * End the search as soon as a simulation reaches the goal (an expanded goal step, or a rollout that ends in one),
   * with `stoppedBy: "solved"` (default false). For deterministic envs, where the found {@link Result.plan} is
   * certain to reach the goal again.
   */
  readonly stopAtGoal?: boolean | undefined
  /** Seed of the rollouts (default 0). */
  readonly seed?: number | undefined
  /** Goal test recorded on edges (default: `won`/`success`, else a positive terminal reward). */
  readonly isGoal?: GoalTest | undefined
  /** Actions taken before the root, for the views given to policies (default []). */
  readonly history?: ReadonlyArray<string> | undefined
  /**
   * The same history with the observation of each action, for policies that encode it (a DRRN's episode summary;
   * see `NodeStore.rootHistory`; default: `history` with `""` observations).
   */
  readonly steps?: ReadonlyArray<Step> | undefined
  /**
   * Steps the real episode has left at the root (its step limit minus the steps taken; default unlimited): the tree
   * goes no deeper and rollouts stop there, a state reached with no step left is a leaf of value 0 (the episode
   * would be truncated), so the search does not count on successes past the limit.
   */
  readonly horizon?: number | undefined
  /** The clock of the `wallMs` budget (default `performance.now`). */
  readonly clock?: (() => number) | undefined
}

/** One root action's statistics. */
export interface ActionStat {
  readonly action: string
  readonly visits: number
  /** Mean discounted return through the edge (NaN when unvisited). */
  readonly q: number
  readonly prior: number
}

/** What a search returns. */
export interface Result {
  /** The action to take (undefined when nothing was searched: no admissible action, or no budget for one step). */
  readonly action: string | undefined
  /** The root edges' statistics, in admissible order. */
  readonly actions: ReadonlyArray<ActionStat>
  readonly stats: Stats
  readonly store: NodeStore
  /** Whether some simulation reached the goal (an expanded goal step, or a rollout ending in one). */
  readonly solved: boolean
  /**
   * The shortest goal-reaching action sequence seen from the root (the simulation's tree path, then its rollout's
   * actions; empty when none): single-player MCTS's best sequence (Schadd et al. 2008), exact on deterministic envs.
   */
  readonly plan: ReadonlyArray<string>
  /** The state key before each action of {@link plan}. */
  readonly planKeys: ReadonlyArray<string>
}

const positive = (option: string, v: number, lo: number, hi: number, loOpen: boolean): number => {
  if (typeof v !== "number" || !(loOpen ? v > lo : v >= lo) || !(v <= hi)) {
    throw new InvalidOptionError({ option, value: v, reason: `expected a number in ${loOpen ? "(" : "["}${lo}, ${hi}]` })
  }
  return v
}

/** Set priors of a new node from `prior` and order its edges by prior (stable). */
export const applyPrior = (prior: Prior, sim: Simulator, node: Node, reorder: boolean): void => {
  const n = node.edges.length
  if (n === 0) return
  const p = prior(sim.input(node))
  if (p.length !== n) throw new InvalidOptionError({ option: "prior", value: p.length, reason: `expected ${n} probabilities (one per admissible action) at state ${node.key}` })
  let sum = 0
  for (let i = 0; i < n; i++) {
    const x = p[i]!
    if (!(x >= 0 && Number.isFinite(x))) throw new InvalidOptionError({ option: "prior", value: x, reason: `expected non-negative finite probabilities at state ${node.key}` })
    sum += x
  }
  for (let i = 0; i < n; i++) node.edges[i]!.prior = sum > 0 ? p[i]! / sum : 1 / n
  if (reorder) node.edges.sort((a, b) => b.prior - a.prior)
}

/**
 * Search from the env's current state and return the most visited root action (see the module docs).
 * @param observation what the agent sees now (the root's observation, given to priors, policies and value functions).
 * @throws InvalidOptionError for a bad budget (naming the field) or option; ResetNeededError when the env has not
 *   been reset; SnapshotMismatchError never (the search restores only its own snapshots).
 */
export const search = (env: SearchEnv, observation: string, options: Options): Result => {
  const selection = options.selection ?? "uct"
  if (selection !== "uct" && selection !== "puct") throw new InvalidOptionError({ option: "selection", value: selection, reason: 'expected "uct" or "puct"' })
  const c = positive("c", options.c ?? (selection === "uct" ? Math.SQRT2 : 1.25), 0, Infinity, false)
  const gamma = positive("gamma", options.gamma ?? 1, 0, 1, true)
  const fpu = options.fpu ?? 0
  if (!Number.isFinite(fpu)) throw new InvalidOptionError({ option: "fpu", value: fpu, reason: "expected a finite number" })
  const maxDepth = options.maxDepth ?? 100
  if (!(Number.isInteger(maxDepth) && maxDepth >= 1)) throw new InvalidOptionError({ option: "maxDepth", value: maxDepth, reason: "expected an integer >= 1" })
  const iterations = options.iterations ?? Infinity
  if (!(iterations === Infinity || (Number.isInteger(iterations) && iterations >= 1))) {
    throw new InvalidOptionError({ option: "iterations", value: iterations, reason: "expected a positive integer or Infinity" })
  }
  const horizon = options.horizon ?? Infinity
  if (!(horizon === Infinity || (Number.isInteger(horizon) && horizon >= 1))) {
    throw new InvalidOptionError({ option: "horizon", value: horizon, reason: "expected a positive integer or Infinity" })
  }
  const maxIdle = options.maxIdle ?? 1000
  if (!(Number.isInteger(maxIdle) && maxIdle >= 1)) throw new InvalidOptionError({ option: "maxIdle", value: maxIdle, reason: "expected a positive integer" })
  const widening = options.widening
  if (widening !== undefined) {
    positive("widening.c", widening.c, 0, Infinity, true)
    positive("widening.alpha", widening.alpha, 0, 1, true)
  }
  const normalize = options.normalize ?? true
  const source = options.value ?? Value.randomRollout(20)
  const prior = options.prior
  const before = rootHistory(options.history, options.steps)
  const meter = new Meter(options.budget, options.clock)
  const store = new NodeStore(before.steps)
  const sim = new Simulator(env, store, meter, before.history, options.isGoal ?? defaultGoal)
  const rng = Rng.make(options.seed ?? 0)
  const root = sim.addRoot(observation)
  if (prior !== undefined) applyPrior(prior, sim, root, widening !== undefined)
  let qMin = Infinity
  let qMax = -Infinity
  const pathNodes: Array<Node> = []
  const pathEdges: Array<number> = []

  // the best edge of `node`, skipping edges into a node already on this simulation's path (stamp); -1 when none is left
  const select = (node: Node, stamp: number): number => {
    const nodes = store.nodes
    const edges = node.edges
    let limit = edges.length
    if (widening !== undefined) limit = Math.min(limit, Math.max(1, Math.floor(widening.c * Math.pow(Math.max(1, node.visits), widening.alpha))))
    const span = qMax - qMin
    let best = -1
    let bestScore = -Infinity
    if (selection === "uct") {
      const logN = Math.log(Math.max(1, node.visits))
      for (let i = 0; i < limit; i++) {
        const e = edges[i]!
        if (e.child >= 0 && nodes[e.child]!.stamp === stamp) continue
        if (e.visits === 0) return i
        let q = e.valueSum / e.visits
        if (normalize) q = span > 0 ? (q - qMin) / span : 0
        const score = q + c * Math.sqrt(logN / e.visits)
        if (score > bestScore) {
          bestScore = score
          best = i
        }
      }
      return best
    }
    const sqrtN = Math.sqrt(Math.max(1, node.visits))
    for (let i = 0; i < limit; i++) {
      const e = edges[i]!
      if (e.child >= 0 && nodes[e.child]!.stamp === stamp) continue
      let q = fpu
      if (e.visits > 0) {
        q = e.valueSum / e.visits
        if (normalize) q = span > 0 ? (q - qMin) / span : 0
      }
      const score = q + (c * e.prior * sqrtN) / (1 + e.visits)
      if (score > bestScore) {
        bestScore = score
        best = i
      }
    }
    return best
  }

  // `depth`: the path length at which the node is reached (a node with no step left is worth 0)
  const stopAtGoal = options.stopAtGoal ?? false
  const trace = Value.makeTrace()
  let plan: Array<string> = []
  let planKeys: Array<string> = []
  let solved = false
  // a goal reached by the current path (its edges), then `tail` (rollout actions and the keys before them)
  const foundGoal = (tailActions: ReadonlyArray<string>, tailKeys: ReadonlyArray<string>): void => {
    const length = pathEdges.length + tailActions.length
    if (solved && length >= plan.length) return
    solved = true
    plan = []
    planKeys = []
    for (let k = 0; k < pathEdges.length; k++) {
      const n = pathNodes[k]!
      plan.push(n.edges[pathEdges[k]!]!.action)
      planKeys.push(n.key)
    }
    plan.push(...tailActions)
    planKeys.push(...tailKeys)
  }
  const estimate = (node: Node, depth: number): number => {
    if (depth >= horizon) return 0
    if (Number.isNaN(node.value)) {
      node.value = Value.evaluate(source, sim, node, gamma, rng, horizon - depth, trace)
      if (trace.goal) foundGoal(trace.actions, trace.keys)
    }
    return node.value
  }

  let sims = 0
  let idle = 0
  let stoppedBy: StopReason = "iterations"
  for (;;) {
    if (sims >= iterations) break
    if (idle >= maxIdle) {
      stoppedBy = "idle"
      break
    }
    const stepsBefore = meter.envSteps
    const stop = meter.exhausted(store.size, 1)
    if (stop !== undefined) {
      stoppedBy = stop
      break
    }
    // one simulation
    pathNodes.length = 0
    pathEdges.length = 0
    let node = root
    node.stamp = sims
    let leaf = 0
    let dropped = false
    for (;;) {
      if (node.edges.length === 0) break
      const i = select(node, sims)
      if (i < 0) {
        // every edge leads back onto the path: a leaf valued by its own estimate
        leaf = node.visits > 0 ? meanValue(node) : estimate(node, pathNodes.length)
        break
      }
      const edge = node.edges[i]!
      pathNodes.push(node)
      pathEdges.push(i)
      if (edge.expanded && edge.done) {
        if (edge.goal) foundGoal([], [])
        break
      }
      let child: Node | undefined
      if (!edge.expanded) {
        if (meter.exhausted(store.size, 1) !== undefined) {
          dropped = true
          break
        }
        const r = sim.expand(node, i)
        if (r.node === undefined) {
          if (edge.goal) foundGoal([], [])
          break
        }
        child = r.node
        if (r.created) {
          if (prior !== undefined) applyPrior(prior, sim, child, widening !== undefined)
          leaf = estimate(child, pathNodes.length)
          break
        }
      } else child = store.nodes[edge.child]!
      if (pathNodes.length >= horizon) {
        leaf = 0
        break
      }
      if (child.stamp === sims || pathNodes.length >= maxDepth) {
        leaf = child.visits > 0 ? meanValue(child) : estimate(child, pathNodes.length)
        break
      }
      child.stamp = sims
      node = child
    }
    if (dropped) {
      stoppedBy = meter.exhausted(store.size, 1) ?? "envSteps"
      break
    }
    let g = leaf
    for (let k = pathNodes.length - 1; k >= 0; k--) {
      const n = pathNodes[k]!
      const e = n.edges[pathEdges[k]!]!
      g = e.reward + gamma * g
      e.visits++
      e.valueSum += g
      n.visits++
      const q = e.valueSum / e.visits
      if (q < qMin) qMin = q
      if (q > qMax) qMax = q
    }
    sims++
    idle = meter.envSteps === stepsBefore ? idle + 1 : 0
    if (stopAtGoal && solved) {
      stoppedBy = "solved"
      break
    }
  }
  sim.goTo(root)
  return { action: bestAction(root), actions: actionStats(root), stats: sim.stats(sims, stoppedBy), store, solved, plan, planKeys }
}

/** Mean backed-up value of a node: the visit-weighted mean of its edges' means. */
const meanValue = (node: Node): number => {
  let s = 0
  let n = 0
  for (const e of node.edges) {
    s += e.valueSum
    n += e.visits
  }
  return n === 0 ? 0 : s / n
}

/** The most visited root edge (ties: higher mean, then edge order); undefined when none was visited. */
const bestAction = (root: Node): string | undefined => {
  let best: string | undefined
  let bestN = 0
  let bestQ = -Infinity
  for (const e of root.edges) {
    if (e.visits === 0) continue
    const q = e.valueSum / e.visits
    if (e.visits > bestN || (e.visits === bestN && q > bestQ)) {
      best = e.action
      bestN = e.visits
      bestQ = q
    }
  }
  return best
}

const actionStats = (root: Node): Array<ActionStat> =>
  root.admissible.map((action) => {
    const e = root.edges.find((x) => x.action === action)!
    return { action, visits: e.visits, q: e.visits === 0 ? Number.NaN : e.valueSum / e.visits, prior: e.prior }
  })

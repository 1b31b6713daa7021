/**
 * Archive search over agent configurations: an open-ended tree of configurations (any JSON-serializable value:
 * feature sets, skill sets, hyper-parameters, prompt text), grown by a user-supplied mutation and judged by an
 * evaluation on task batches, with the parent selection of the Darwin Gödel Machine (DGM), of the Huxley-Gödel
 * Machine (HGM) or uniformly at random, and promotion of a new best through the release gate (`ReleaseGate.compare`
 * of `@autodidact/optim`: accepted only if it fixes more tasks than it breaks).
 *
 * **Selection policies**
 * - `"dgm"` — Zhang et al., "Darwin Gödel Machine: Open-Ended Evolution of Self-Improving Agents", arXiv:2505.22954
 *   (§3, parent selection): every node of the archive may be a parent, with probability proportional to
 *   `s_i · h_i`, `s_i = 1 / (1 + exp(−λ (α_i − α_0)))` (λ = 10, α_0 = 0.5; α_i the node's success rate) and
 *   `h_i = 1 / (1 + n_i)` (n_i its valid children): score- and novelty-weighted. Each child is evaluated on
 *   `evaluationSize` tasks when created.
 * - `"hgm"` — Wang et al., "Huxley-Gödel Machine: Human-Level Coding Agent Development by an Approximation of the
 *   Optimal Self-Improving Machine", arXiv:2510.21614: a node's clade-metaproductivity (CMP) is estimated from the
 *   successes and failures of every evaluation in its clade (the node and all its descendants); expansion picks the
 *   parent by Thompson sampling over clades (`θ ~ Beta(1 + S_clade, 1 + F_clade)`, the largest wins); expansion and
 *   evaluation are decoupled: each step either expands (a new child, evaluated on one batch) or evaluates (one more
 *   batch of the node chosen by Thompson sampling over its own results `Beta(1 + s, 1 + f)` among nodes with tasks
 *   left), expanding while `nodes < c · steps^α` (c = 1, α = 0.5 by default: the choice the paper leaves to a
 *   schedule, made here as progressive widening).
 * - `"random"` — the parent uniformly from the archive (the baseline).
 *
 * **Best and promotion**: every node is scored by the Wilson 95% lower bound of its success rate (core
 * `Statistics.wilsonInterval`). When a node's bound exceeds the current best's, the two are compared on the tasks both
 * were evaluated on with the release gate; the node becomes the best only if the gate accepts (fixed − broken ≥
 * `gate.margin`), and each decision is recorded.
 *
 * **Resume**: {@link run} reports the whole state after every step (`onStep`); passing a saved {@link State} as
 * `resume` continues exactly (generator state included), so an interrupted search picks up from its archive file
 * (`ArchiveFile` in `@autodidact/search/node` writes it atomically).
 *
 * **Errors**: `InvalidOptionError` for a bad option (naming it); {@link InvalidConfigError} when the initial
 * configuration fails `validate`; a mutation whose child fails `validate` (or throws) is not added: it is recorded in
 * `state.rejected` with the `InvalidConfigError` message, and the search goes on. Evaluation results must cover
 * exactly the tasks asked for (`InvalidOptionError` naming the missing or extra task id).
 * @since 0.1.0
 */
import { InvalidOptionError, Rng, type RngState, Statistics } from "@autodidact/core"
import { ReleaseGate } from "@autodidact/optim"
import { Cause, Effect, Exit, Schema } from "effect"

/** One task's outcome (`ReleaseGate.TaskResult`). */
export type TaskResult = ReleaseGate.TaskResult

/** A configuration that fails validation. */
export class InvalidConfigError extends Schema.TaggedError<InvalidConfigError>()("InvalidConfigError", {
  /** Where it came from: `"initial"` or `"mutation of node N"`. */
  origin: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `invalid configuration (${this.origin}): ${this.reason}`
  }
}

/** One configuration in the archive. */
export interface ArchiveNode<C> {
  readonly id: number
  /** The parent's id (-1 for the initial configuration). */
  readonly parent: number
  readonly config: C
  /** Results on the first `results.length` tasks of `tasks`, in task order. */
  readonly results: Array<TaskResult>
  readonly children: Array<number>
  /** The step that created it. */
  readonly createdAt: number
}

/** A promotion decision of the release gate. */
export interface Promotion {
  readonly step: number
  readonly candidate: number
  readonly incumbent: number
  readonly accepted: boolean
  readonly reason: string
}

/** The whole search state (JSON-serializable when configurations are). */
export interface State<C> {
  readonly nodes: Array<ArchiveNode<C>>
  best: number
  step: number
  evaluations: number
  readonly promotions: Array<Promotion>
  readonly rejected: Array<{ readonly step: number; readonly parent: number; readonly reason: string }>
  rng: RngState
}

/** Options of {@link run}. */
export interface Options<C> {
  readonly initial: C
  /** A child of `parent` (may be async, e.g. an LLM proposer). */
  readonly mutate: (parent: C, rng: Rng) => C | Promise<C>
  /** Results of `config` on exactly the task ids given (may be async: training runs). */
  readonly evaluate: (config: C, taskIds: ReadonlyArray<string>) => ReadonlyArray<TaskResult> | Promise<ReadonlyArray<TaskResult>>
  /** The evaluation task ids, in the order nodes are evaluated on them. */
  readonly tasks: ReadonlyArray<string>
  /** Throws when a configuration is invalid (its message becomes the reason). */
  readonly validate?: ((config: C) => void) | undefined
  readonly selection: "dgm" | "hgm" | "random"
  /** Steps (DGM/random: expansions; HGM: expansions plus evaluations). */
  readonly steps: number
  /** Tasks per evaluation batch (HGM; default 4). */
  readonly batchSize?: number | undefined
  /** Tasks a new node is evaluated on under DGM and random (default all). */
  readonly evaluationSize?: number | undefined
  /** HGM expansion schedule: expand while `nodes < c · steps^alpha` (default c 1, alpha 0.5). */
  readonly widening?: { readonly c: number; readonly alpha: number } | undefined
  /** Release-gate options (`ReleaseGate.Options`). */
  readonly gate?: Partial<ReleaseGate.Options> | undefined
  readonly seed?: number | undefined
  /** Continue a saved search. */
  readonly resume?: State<C> | undefined
  /** Called with the state after every step (save it to resume). */
  readonly onStep?: ((state: State<C>) => void | Promise<void>) | undefined
  /**
   * Asked before every step with the state and what the step would do (`"expand"`: a new child, evaluated on its
   * first batch; `"evaluate"`: HGM's one more batch of an existing node); `true` ends the search there, before
   * `steps` (e.g. when the env-step budget left cannot pay for that step).
   */
  readonly shouldStop?: ((state: State<C>, next: "expand" | "evaluate") => boolean) | undefined
}

const bad = (option: string, value: unknown, reason: string) => new InvalidOptionError({ option, value, reason })

/** A node's success count and evaluated count. */
const tally = (n: ArchiveNode<unknown>): [number, number] => {
  let s = 0
  for (const r of n.results) if (r.success) s++
  return [s, n.results.length]
}

/** The Wilson 95% lower bound of a node's success rate (0 before any evaluation). */
export const lowerBound = (n: ArchiveNode<unknown>): number => {
  const [s, k] = tally(n)
  return k === 0 ? 0 : Statistics.wilsonInterval(s, k).low
}

/** DGM's parent weights `s_i · h_i` (λ = 10, α_0 = 0.5), one per node, unnormalized. */
export const dgmWeights = (nodes: ReadonlyArray<ArchiveNode<unknown>>): Array<number> =>
  nodes.map((n) => {
    const [s, k] = tally(n)
    const alpha = k === 0 ? 0 : s / k
    return (1 / (1 + Math.exp(-10 * (alpha - 0.5)))) * (1 / (1 + n.children.length))
  })

/** HGM's clade counts: per node, [successes, failures] over the node and all its descendants. */
export const cladeCounts = (nodes: ReadonlyArray<ArchiveNode<unknown>>): Array<[number, number]> => {
  const out = nodes.map((n) => {
    const [s, k] = tally(n)
    return [s, k - s] as [number, number]
  })
  // children always have larger ids than their parents: accumulate from the last node up
  for (let i = nodes.length - 1; i > 0; i--) {
    const p = nodes[i]!.parent
    out[p]![0] += out[i]![0]
    out[p]![1] += out[i]![1]
  }
  return out
}

/** A draw from Beta(a, b) (integers a, b ≥ 1) as the a-th smallest of a + b − 1 uniforms' order statistic via gamma sums. */
const betaSample = (rng: Rng, a: number, b: number): number => {
  const gamma = (k: number) => {
    let x = 0
    for (let i = 0; i < k; i++) x -= Math.log(1 - rng.random())
    return x
  }
  const x = gamma(a)
  return x / (x + gamma(b))
}

const weightedIndex = (rng: Rng, weights: ReadonlyArray<number>): number => {
  let total = 0
  for (const w of weights) total += w
  let u = rng.random() * total
  for (let i = 0; i < weights.length; i++) {
    u -= weights[i]!
    if (u < 0) return i
  }
  return weights.length - 1
}

/**
 * Run the archive search (see the module docs); resolves with the final state (`state.nodes[state.best]` is the
 * promoted best configuration).
 * @throws InvalidOptionError, InvalidConfigError (see the module docs).
 */
export const run = async <C>(options: Options<C>): Promise<State<C>> => {
  const tasks = options.tasks
  if (tasks.length === 0) throw bad("tasks", 0, "need at least one evaluation task")
  if (new Set(tasks).size !== tasks.length) throw bad("tasks", tasks, "task ids must be distinct")
  if (!(Number.isSafeInteger(options.steps) && options.steps >= 1)) throw bad("steps", options.steps, "must be a positive integer")
  const batchSize = options.batchSize ?? 4
  if (!(Number.isSafeInteger(batchSize) && batchSize >= 1)) throw bad("batchSize", batchSize, "must be a positive integer")
  const evaluationSize = options.evaluationSize ?? tasks.length
  if (!(Number.isSafeInteger(evaluationSize) && evaluationSize >= 1 && evaluationSize <= tasks.length)) {
    throw bad("evaluationSize", evaluationSize, `must be an integer in [1, ${tasks.length}]`)
  }
  const widening = options.widening ?? { c: 1, alpha: 0.5 }
  if (!(widening.c > 0 && Number.isFinite(widening.c) && widening.alpha > 0 && widening.alpha < 1)) throw bad("widening", widening, "expected c > 0 and alpha in (0, 1)")
  if (!["dgm", "hgm", "random"].includes(options.selection)) throw bad("selection", options.selection, 'must be "dgm", "hgm" or "random"')
  {
    // the gate's options, checked before anything runs
    const exit = Effect.runSyncExit(ReleaseGate.compare([{ taskId: "t", success: true }], [{ taskId: "t", success: true }], options.gate ?? {}))
    if (Exit.isFailure(exit)) throw Cause.squash(exit.cause)
  }
  const check = (config: C, origin: string): InvalidConfigError | undefined => {
    try {
      options.validate?.(config)
      return undefined
    } catch (e) {
      return new InvalidConfigError({ origin, reason: e instanceof Error ? e.message : String(e) })
    }
  }
  const evaluateOn = async (node: ArchiveNode<C>, count: number): Promise<void> => {
    const ids = tasks.slice(node.results.length, node.results.length + count)
    if (ids.length === 0) return
    const got = await options.evaluate(node.config, ids)
    const byId = new Map<string, boolean>()
    for (const r of got) {
      if (!ids.includes(r.taskId)) throw bad("evaluate", r.taskId, `returned a result for a task it was not asked for (asked: ${ids.join(", ")})`)
      byId.set(r.taskId, r.success)
    }
    for (const id of ids) {
      const s = byId.get(id)
      if (s === undefined) throw bad("evaluate", id, "returned no result for this task")
      node.results.push({ taskId: id, success: s })
    }
    state.evaluations++
  }
  let state: State<C>
  let rng: Rng
  if (options.resume !== undefined) {
    state = options.resume
    rng = Rng.fromState(state.rng)
  } else {
    const invalid = check(options.initial, "initial")
    if (invalid !== undefined) throw invalid
    rng = Rng.make(options.seed ?? 0)
    state = { nodes: [{ id: 0, parent: -1, config: options.initial, results: [], children: [], createdAt: 0 }], best: 0, step: 0, evaluations: 0, promotions: [], rejected: [], rng: rng.getState() }
    await evaluateOn(state.nodes[0]!, options.selection === "hgm" ? batchSize : evaluationSize)
  }
  const gateOptions = options.gate ?? {}
  const considerPromotion = (id: number) => {
    if (id === state.best) return
    const node = state.nodes[id]!
    const best = state.nodes[state.best]!
    if (!(lowerBound(node) > lowerBound(best))) return
    const common = Math.min(node.results.length, best.results.length)
    const exit = Effect.runSyncExit(ReleaseGate.compare(best.results.slice(0, common), node.results.slice(0, common), gateOptions))
    if (Exit.isFailure(exit)) throw Cause.squash(exit.cause)
    const decision = exit.value
    state.promotions.push({ step: state.step, candidate: id, incumbent: state.best, accepted: decision.accepted, reason: decision.reason })
    if (decision.accepted) state.best = id
  }
  const expand = async (parentId: number): Promise<void> => {
    const parent = state.nodes[parentId]!
    let child: C
    try {
      child = await options.mutate(parent.config, rng)
    } catch (e) {
      state.rejected.push({ step: state.step, parent: parentId, reason: new InvalidConfigError({ origin: `mutation of node ${parentId}`, reason: e instanceof Error ? e.message : String(e) }).message })
      return
    }
    const invalid = check(child, `mutation of node ${parentId}`)
    if (invalid !== undefined) {
      state.rejected.push({ step: state.step, parent: parentId, reason: invalid.message })
      return
    }
    const node: ArchiveNode<C> = { id: state.nodes.length, parent: parentId, config: child, results: [], children: [], createdAt: state.step }
    state.nodes.push(node)
    parent.children.push(node.id)
    await evaluateOn(node, options.selection === "hgm" ? batchSize : evaluationSize)
    considerPromotion(node.id)
  }
  while (state.step < options.steps) {
    const open = options.selection === "hgm" ? state.nodes.filter((n) => n.results.length < tasks.length) : []
    const next = options.selection !== "hgm" || open.length === 0 || state.nodes.length < widening.c * Math.pow(state.step + 1, widening.alpha)
      ? "expand"
      : "evaluate"
    if (options.shouldStop?.(state, next) === true) break
    state.step++
    if (options.selection === "random") await expand(rng.integers(state.nodes.length))
    else if (options.selection === "dgm") await expand(weightedIndex(rng, dgmWeights(state.nodes)))
    else {
      if (next === "expand") {
        const clades = cladeCounts(state.nodes)
        let pick = 0
        let top = -1
        clades.forEach(([s, f], i) => {
          const theta = betaSample(rng, 1 + s, 1 + f)
          if (theta > top) {
            top = theta
            pick = i
          }
        })
        await expand(pick)
      } else {
        let pick = open[0]!
        let top = -1
        for (const n of open) {
          const [s, k] = tally(n)
          const theta = betaSample(rng, 1 + s, 1 + k - s)
          if (theta > top) {
            top = theta
            pick = n
          }
        }
        await evaluateOn(pick, batchSize)
        considerPromotion(pick.id)
      }
    }
    state.rng = rng.getState()
    await options.onStep?.(state)
  }
  return state
}

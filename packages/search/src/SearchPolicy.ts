/**
 * A policy that searches before every real step: it wraps a text policy (the fallback, and the rollout policy /
 * prior source when the search is configured so), snapshots the env, searches with a fixed budget per decision, puts
 * the env back, and returns the action the search chose.
 *
 * **Details**
 * - `act(env, input)`: the env must be a `RestorableTextEnv` in the state `input` describes (the real episode's
 *   env, not a `make` wrapper: pass `env.unwrapped`). The search starts from a fresh node store each call (trees are
 *   not reused across real steps) and leaves the env exactly as it found it.
 * - `search`: `{ kind: "mcts", ...Mcts.Options }`, `{ kind: "best-first", ...BestFirst.Options }` or
 *   `{ kind: "beam", ...BestFirst.BeamOptions }`, each with its `budget` per decision.
 * - When a search finds a goal, its plan is followed on this and the next real steps without searching again
 *   (`followPlan`) as long as the env's state keys match the ones seen during the search: by default for best-first
 *   and beam search; for MCTS only with `followPlan: true` (its plan may end in a rollout: exact on deterministic
 *   envs; the key check stops following on a stochastic one).
 * - When the search returns no action (no budget for one step), the wrapped policy acts.
 * - The input's `history` and `steps` (when given) are passed to the search as the real history before the root;
 *   `act`'s `stepsLeft` (the real episode's steps left) becomes MCTS's `horizon` (the smaller of the two when the
 *   spec sets one too).
 * - {@link runEpisode} plays a whole episode with it and counts the search's env steps; {@link evaluate} plays a
 *   list of tasks and reports the success rate (Wilson interval) and the env steps the searches spent.
 * @since 0.1.0
 */
import type { Rng } from "@autodidact/core"
import { InvalidOptionError, Rng as RngClass, Statistics } from "@autodidact/core"
import type { Env } from "@autodidact/envs"
import * as BestFirst from "./BestFirst.js"
import * as Mcts from "./Mcts.js"
import type { Policy, PolicyInput, SearchEnv, Stats, Step } from "./NodeStore.js"

/** Which search, with its options (budget per decision). */
export type SearchSpec =
  | ({ readonly kind: "mcts" } & Mcts.Options)
  | ({ readonly kind: "best-first" } & BestFirst.Options)
  | ({ readonly kind: "beam" } & BestFirst.BeamOptions)

/** Options of {@link SearchPolicy}. */
export interface Options {
  readonly search: SearchSpec
  /** The wrapped policy: acts when the search returns nothing. */
  readonly policy: Policy
  /** Follow a found goal plan without searching again (default true for best-first and beam, false for MCTS). */
  readonly followPlan?: boolean | undefined
  /**
   * Called after every search with its result (tree included) and the input it searched from — e.g. to collect
   * Agent Q's preference pairs with `Preferences.fromTree(result.store, { task: input.task })`.
   */
  readonly onSearch?: ((result: Mcts.Result | BestFirst.Result, input: PolicyInput) => void) | undefined
}

/** A search-then-act policy (see the module docs). */
export class SearchPolicy {
  /** Stats of every search made, in order. */
  readonly searches: Array<Stats> = []
  private plan: Array<{ readonly key: string; readonly action: string }> = []

  constructor(readonly options: Options) {}

  /** Forget a followed plan (call between episodes). */
  resetEpisode(): void {
    this.plan = []
  }

  /**
   * The action for the env's current state.
   * @throws InvalidOptionError for bad search options; ResetNeededError when the env has no running episode.
   */
  act(env: SearchEnv, input: PolicyInput, rng: Rng, stepsLeft = Infinity): string {
    const spec = this.options.search
    const follow = this.options.followPlan ?? spec.kind !== "mcts"
    const next = this.plan.shift()
    if (next !== undefined && follow && next.key === env.stateKey()) return next.action
    this.plan = []
    const history = input.history
    const steps = input.steps
    let action: string | undefined
    if (spec.kind === "mcts") {
      const horizon = Math.min(spec.horizon ?? Infinity, stepsLeft)
      const r = Mcts.search(env, input.observation, { ...spec, history, steps, horizon })
      this.searches.push(r.stats)
      this.options.onSearch?.(r, input)
      action = r.action
      if (follow && r.solved && r.plan.length > 0) {
        action = r.plan[0]
        this.plan = r.plan.slice(1).map((a, i) => ({ key: r.planKeys[i + 1]!, action: a }))
      }
    } else {
      const r = spec.kind === "beam"
        ? BestFirst.beam(env, input.observation, { ...spec, history, steps })
        : BestFirst.bestFirst(env, input.observation, { ...spec, history, steps })
      this.searches.push(r.stats)
      this.options.onSearch?.(r, input)
      action = r.action
      if (r.solved && r.plan.length > 1) this.plan = planKeys(r.store, r.plan).slice(1)
    }
    return action ?? this.options.policy(input, rng)
  }
}

/** The state key before each action of `plan` (following the store's edges from the root). */
const planKeys = (store: BestFirst.Result["store"], plan: ReadonlyArray<string>): Array<{ key: string; action: string }> => {
  const out: Array<{ key: string; action: string }> = []
  let node = store.root
  for (const action of plan) {
    out.push({ key: node.key, action })
    const edge = node.edges.find((e) => e.action === action)
    if (edge === undefined || edge.child < 0) break
    node = store.nodes[edge.child]!
  }
  return out
}

/** One real episode played by a {@link SearchPolicy}. */
export interface Episode {
  readonly actions: ReadonlyArray<string>
  readonly return: number
  /** The last step was `terminated` with `info.won`/`info.success` (else a positive reward). */
  readonly success: boolean
  /** Real env steps. */
  readonly steps: number
  /** Env steps spent by the searches. */
  readonly searchSteps: number
}

/**
 * Play one episode: `env.reset(reset)`, then `policy.act` until the episode ends or `maxSteps` real steps (each
 * decision told the steps left, its input the actions and observations so far). An episode cut by `maxSteps` is
 * not a success.
 * @throws whatever the env or the search throws.
 */
export const runEpisode = (env: SearchEnv, policy: SearchPolicy, reset: Env.ResetOptions, maxSteps = 1000, rngSeed = 0): Episode => {
  const rng = RngClass.make(rngSeed)
  policy.resetEpisode()
  const before = policy.searches.length
  let { observation } = env.reset(reset)
  const actions: Array<string> = []
  const steps: Array<Step> = []
  let ret = 0
  let success = false
  for (let t = 0; t < maxSteps; t++) {
    const action = policy.act(env, { task: env.task, observation, admissible: env.admissibleActions(), history: actions.slice(), steps: steps.slice() }, rng, maxSteps - t)
    const r = env.step(action)
    actions.push(action)
    steps.push({ observation, action })
    ret += r.reward
    observation = r.observation
    if (r.terminated || r.truncated) {
      const flag = r.info["won"] ?? r.info["success"]
      success = r.terminated && (typeof flag === "boolean" ? flag : r.reward > 0)
      break
    }
  }
  const searchSteps = policy.searches.slice(before).reduce((s, x) => s + x.envSteps, 0)
  return { actions, return: ret, success, steps: actions.length, searchSteps }
}

/** What {@link evaluate} reports. */
export interface Evaluation {
  readonly episodes: number
  readonly successes: number
  /** successes / episodes, with Wilson's 95% score interval (core `Statistics.wilsonInterval`). */
  readonly successRate: number
  readonly successLow: number
  readonly successHigh: number
  readonly meanReturn: number
  /** Mean real steps per episode. */
  readonly meanLength: number
  /** Searches made over all episodes (one per real step, except steps that followed a found plan). */
  readonly decisions: number
  /** Env steps spent by the searches over all episodes (not counting the real steps). */
  readonly searchEnvSteps: number
  /** searchEnvSteps / decisions. */
  readonly searchStepsPerDecision: number
  /** Searches that found a goal (`stats.stoppedBy === "solved"`). */
  readonly solvedSearches: number
}

/**
 * Play one episode per task with {@link runEpisode} (task k: `reset(tasks[k])`, episode seed `seed + k` for the
 * wrapped policy's generator) and count successes and the search's env steps; `onEpisode` sees each episode.
 * @throws InvalidOptionError (option `tasks`) for an empty task list; whatever the env or the search throws.
 */
export const evaluate = (
  env: SearchEnv,
  policy: SearchPolicy,
  tasks: ReadonlyArray<Env.ResetOptions>,
  options: { readonly maxSteps?: number | undefined; readonly seed?: number | undefined; readonly onEpisode?: ((k: number, episode: Episode) => void) | undefined } = {}
): Evaluation => {
  if (tasks.length === 0) throw new InvalidOptionError({ option: "tasks", value: 0, reason: "expected at least one task" })
  let successes = 0
  let ret = 0
  let length = 0
  let searchEnvSteps = 0
  let decisions = 0
  let solvedSearches = 0
  tasks.forEach((task, k) => {
    const before = policy.searches.length
    const ep = runEpisode(env, policy, task, options.maxSteps ?? 1000, (options.seed ?? 0) + k)
    for (let i = before; i < policy.searches.length; i++) if (policy.searches[i]!.stoppedBy === "solved") solvedSearches++
    if (ep.success) successes++
    ret += ep.return
    length += ep.steps
    searchEnvSteps += ep.searchSteps
    decisions += policy.searches.length - before
    options.onEpisode?.(k, ep)
  })
  const n = tasks.length
  const ci = Statistics.wilsonInterval(successes, n)
  return {
    episodes: n,
    successes,
    successRate: successes / n,
    successLow: ci.low,
    successHigh: ci.high,
    meanReturn: ret / n,
    meanLength: length / n,
    decisions,
    searchEnvSteps,
    searchStepsPerDecision: decisions === 0 ? 0 : searchEnvSteps / decisions,
    solvedSearches
  }
}

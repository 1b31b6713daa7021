/**
 * The Effect face of the searches: each search as an `Effect` that fails with a typed error instead of throwing, and
 * a `Searcher` service (with default budgets) for programs that take the search as a dependency.
 *
 * **Details**
 * - `mcts`, `bestFirst`, `beam` run the plain searches (`Mcts.search`, `BestFirst.bestFirst`, `BestFirst.beam`)
 *   synchronously inside `Effect.try`; the loops themselves contain no Effect.
 * - Errors: `InvalidOptionError` (a bad budget names its field, e.g. `budget.envSteps`), `ResetNeededError` (the
 *   env has no episode), `SnapshotMismatchError` (cannot happen with the built-in envs: a search restores only its
 *   own snapshots). Anything else (a throwing policy or value function) is a defect.
 * - `layer(defaults)` provides a `Searcher` whose calls fill in `defaults.budget` when the options give none.
 * @since 0.1.0
 */
import { InvalidOptionError, ResetNeededError } from "@autodidact/core"
import { SnapshotMismatchError } from "@autodidact/envs"
import { Context, Effect, Layer } from "effect"
import * as BestFirst from "./BestFirst.js"
import type { Budget } from "./Budget.js"
import * as Mcts from "./Mcts.js"
import type { SearchEnv } from "./NodeStore.js"

/** What a search can fail with. */
export type SearchError = InvalidOptionError | ResetNeededError | SnapshotMismatchError

const run = <A>(f: () => A): Effect.Effect<A, SearchError> =>
  Effect.try({
    try: f,
    catch: (e) => {
      if (e instanceof InvalidOptionError || e instanceof ResetNeededError || e instanceof SnapshotMismatchError) return e
      throw e
    }
  })

/** {@link Mcts.search} as an Effect. */
export const mcts = (env: SearchEnv, observation: string, options: Mcts.Options): Effect.Effect<Mcts.Result, SearchError> =>
  run(() => Mcts.search(env, observation, options))

/** {@link BestFirst.bestFirst} as an Effect. */
export const bestFirst = (env: SearchEnv, observation: string, options: BestFirst.Options): Effect.Effect<BestFirst.Result, SearchError> =>
  run(() => BestFirst.bestFirst(env, observation, options))

/** {@link BestFirst.beam} as an Effect. */
export const beam = (env: SearchEnv, observation: string, options: BestFirst.BeamOptions): Effect.Effect<BestFirst.Result, SearchError> =>
  run(() => BestFirst.beam(env, observation, options))

type WithBudget<O> = Omit<O, "budget"> & { readonly budget?: Budget | undefined }

/**
 * The searches as a service, with a default budget.
 * @category services
 */
export class Searcher extends Context.Service<Searcher, {
  readonly budget: Budget
  readonly mcts: (env: SearchEnv, observation: string, options: WithBudget<Mcts.Options>) => Effect.Effect<Mcts.Result, SearchError>
  readonly bestFirst: (env: SearchEnv, observation: string, options: WithBudget<BestFirst.Options>) => Effect.Effect<BestFirst.Result, SearchError>
  readonly beam: (env: SearchEnv, observation: string, options: WithBudget<BestFirst.BeamOptions>) => Effect.Effect<BestFirst.Result, SearchError>
}>()("@autodidact/search/Searcher") {}

/** A {@link Searcher} whose calls use `defaults.budget` unless they give one (default `{ envSteps: 1000 }`). */
export const layer = (defaults: { readonly budget?: Budget | undefined } = {}): Layer.Layer<Searcher> => {
  const budget = defaults.budget ?? { envSteps: 1000 }
  return Layer.succeed(Searcher, {
    budget,
    mcts: (env, observation, options) => mcts(env, observation, { ...options, budget: options.budget ?? budget }),
    bestFirst: (env, observation, options) => bestFirst(env, observation, { ...options, budget: options.budget ?? budget }),
    beam: (env, observation, options) => beam(env, observation, { ...options, budget: options.budget ?? budget })
  })
}

/**
 * Policy-Space Response Oracles (PSRO) on normal-form games, with an exact best-response oracle.
 *
 * Lanctot, Zambaldi, Gruslys, Lazaridou, Tuyls, Pérolat, Silver, Graepel, "A Unified Game-Theoretic Approach to
 * Multiagent Reinforcement Learning", NeurIPS 2017 (arXiv:1711.00832); with the Nash meta-solver it is the double
 * oracle algorithm of McMahan, Gordon and Blum, ICML 2003.
 *
 * **The loop** (one iteration of `PsroLoop.run`, the outer loop shared with `PsroExtensive` and `Jpsro`, with the
 * pieces {@link run} gives it):
 * 1. meta-game: the payoff tensor restricted to each player's population of strategies (pure actions here);
 * 2. meta-strategy: a meta-solver's mixture over each population (`"uniform"`, `"nash"`: the maximin LP for
 *    two-player zero-sum games, `"prd"`: projected replicator dynamics, or any {@link MetaSolver});
 * 3. report: the meta-strategy lifted to the full game and its NashConv there;
 * 4. oracle: each player's exact best response to the others' lifted meta-strategies joins its population.
 * PSRO stops when no best response is new (with the Nash meta-solver the lifted meta-strategy is then a Nash
 * equilibrium of the full game), when NashConv falls to `tolerance`, or after `iterations`.
 *
 * **Details**
 * - Best responses break ties toward strategies already in the population (a new strategy is added only when it
 *   beats every population member by more than `1e-12 × max |payoff|`), so convergence is detected exactly.
 * - Between iterations the loop yields to the Effect runtime (interruptible); `onIteration` receives each report
 *   (return an Effect to do effectful work, e.g. logging, in the loop).
 *
 * @example
 * ```ts
 * import { PayoffTensor, Psro } from "@autodidact/solvers"
 * import { Highs } from "@autodidact/solvers/lp"
 * import { Effect } from "effect"
 * const rps = PayoffTensor.zeroSum([[0, -1, 1], [1, 0, -1], [-1, 1, 0]])
 * const result = await Effect.runPromise(
 *   Psro.run(rps, { metaSolver: "nash", onIteration: (r) => console.log(r.iteration, r.populationSizes, r.nashConv) })
 *     .pipe(Effect.provide(Highs.layer))
 * )
 * result.stopReason // "converged"; result.final.nashConv ~ 0
 * ```
 * @see https://github.com/google-deepmind/open_spiel/blob/master/open_spiel/python/algorithms/psro_v2/psro_v2.py
 * @since 0.1.0
 */
import type { InvalidOptionError } from "@autodidact/core"
import { Effect } from "effect"
import * as Equilibrium from "../normalform/Equilibrium.js"
import type { Highs, LpSolveError } from "../normalform/Highs.js"
import * as MetaSolvers from "../normalform/MetaSolvers.js"
import { check, InvalidPayoffTensorError, restrict, scale } from "../normalform/PayoffTensor.js"
import type { PayoffTensor } from "../normalform/PayoffTensor.js"
import * as PsroLoop from "./PsroLoop.js"

/** One PSRO iteration, as reported to `onIteration` and kept in the history. */
export interface IterationReport extends PsroLoop.BaseReport {
  /** Each player's population (actions of the full game, in order of addition). */
  readonly populations: ReadonlyArray<ReadonlyArray<number>>
  /** The meta-solver's mixture over each population. */
  readonly metaStrategies: ReadonlyArray<Float64Array>
  /** The meta-strategies lifted to full-game mixed strategies. */
  readonly strategies: ReadonlyArray<Float64Array>
  /** NashConv of `strategies` in the full game. */
  readonly nashConv: number
  /** Best responses added to the populations after this iteration (one entry per player, -1 for none). */
  readonly added: ReadonlyArray<number>
}

/** Why a run ended (see `PsroLoop.StopReason`). */
export type StopReason = PsroLoop.StopReason

/** Options of {@link run}. */
export interface Options extends PsroLoop.RunOptions<IterationReport>, MetaSolvers.ChoiceOptions {
  /** Initial population of each player (default `[0]` each). */
  readonly initialPopulations?: ReadonlyArray<ReadonlyArray<number>> | undefined
}

/** The outcome of {@link run}: why it stopped, the last iteration's report and every iteration's report. */
export type Result = PsroLoop.Result<IterationReport>

/**
 * Lift mixtures over populations to full-game mixed strategies: `out[p][populations[p][i]] += meta[p][i]` (one
 * `Float64Array` of length `shape[p]` per player; actions outside the population get 0). No validation.
 */
export const lift = (shape: ReadonlyArray<number>, populations: ReadonlyArray<ReadonlyArray<number>>, meta: ReadonlyArray<ArrayLike<number>>): Array<Float64Array> =>
  shape.map((k, p) => {
    const x = new Float64Array(k)
    populations[p]!.forEach((a, i) => (x[a] += meta[p]![i]!))
    return x
  })

/**
 * The new best response among `values` (a player's value of each of its actions against the others, e.g.
 * `Equilibrium.actionValues`), preferring population members on ties: the first maximal action when it beats every
 * member of `population` by more than `tol` (`PsroLoop.improves`), else -1.
 */
export const newBestResponse = (
  values: ArrayLike<number>,
  population: ReadonlyArray<number>,
  tol: number
): number => {
  let best = 0
  for (let a = 1; a < values.length; a++) if (values[a]! > values[best]!) best = a
  return PsroLoop.improves(values[best]!, population.map((a) => values[a]!), tol) ? best : -1
}

/**
 * Validate a normal-form game and the initial populations of PSRO/JPSRO on it, and return mutable copies of the
 * populations (default `[0]` for every player). The populations must be one non-empty list per player of distinct
 * integer actions in `[0, shape[p])`.
 *
 * Fails with {@link InvalidPayoffTensorError} for a tensor with wrong lengths or non-finite payoffs, or for the first
 * bad population entry (naming the player, the index in its list and the value).
 */
export const initialPopulations = (
  tensor: PayoffTensor,
  initial: ReadonlyArray<ReadonlyArray<number>> | undefined
): Effect.Effect<Array<Array<number>>, InvalidPayoffTensorError> =>
  Effect.suspend(() => {
    const err = check(tensor.shape, tensor.payoffs)
    if (err !== undefined) return Effect.fail(err)
    const pops = (initial ?? tensor.shape.map(() => [0])).map((p) => [...p])
    if (pops.length !== tensor.shape.length) return Effect.fail(new InvalidPayoffTensorError({ reason: `expected ${tensor.shape.length} initial populations, got ${pops.length}` }))
    for (let p = 0; p < pops.length; p++) {
      if (pops[p]!.length === 0) return Effect.fail(new InvalidPayoffTensorError({ reason: "empty initial population (strategy set)", player: p }))
      for (const [i, a] of pops[p]!.entries()) {
        if (!Number.isInteger(a) || a < 0 || a >= tensor.shape[p]!) {
          return Effect.fail(new InvalidPayoffTensorError({ reason: `initial strategy out of range [0, ${tensor.shape[p]})`, player: p, index: i, value: a }))
        }
        if (pops[p]!.indexOf(a) !== i) return Effect.fail(new InvalidPayoffTensorError({ reason: "duplicate strategy in initial population", player: p, index: i, value: a }))
      }
    }
    return Effect.succeed(pops)
  })

/**
 * Run PSRO (Lanctot et al. 2017, arXiv:1711.00832) on a normal-form game with an exact best-response oracle; with the
 * `"nash"` meta-solver on a two-player zero-sum game this is the double oracle algorithm.
 *
 * **When to use**: to find an equilibrium of a large normal-form game through a small support, or to study how
 * meta-solvers behave; the loop itself is `PsroLoop.run` (see the module docs for one iteration).
 *
 * **Shapes and units**: `tensor` has `shape[p]` actions for player `p` and payoffs in any (finite) units; the
 * populations are lists of full-game action indices. Each {@link IterationReport} carries the meta-game (shape = the
 * population sizes), the meta-strategies (one distribution per population), their lift to full-game mixed
 * strategies (`strategies[p].length === shape[p]`) and the full game's NashConv of that profile
 * (`Σ_p max_a u_p(a, x_-p) − u_p(x)`, ≥ 0, in payoff units), and `added[p]`, the action added to player `p`'s
 * population after the iteration (`-1` for none).
 *
 * **Options**: `metaSolver` (required), `prd` (its options), `iterations` (default 100), `tolerance` (default 0),
 * `initialPopulations` (default `[0]` for every player), `onIteration`.
 *
 * **Stops** with `"converged"` when no player has a best response outside its population (with `"nash"` the lifted
 * profile is then a Nash equilibrium of the full game), `"tolerance"` when NashConv ≤ `tolerance`, or
 * `"iterations"`.
 *
 * **Errors**: `InvalidPayoffTensorError` for a tensor with wrong lengths or non-finite payoffs, or initial populations
 * that are empty, out of range, duplicated or not one per player; `InvalidOptionError` for an unknown `metaSolver`,
 * `iterations` that is not a positive integer or a negative `tolerance`; `LpSolveError` when HiGHS fails (the
 * `"nash"` meta-solver, which also fails with `InvalidPayoffTensorError` on a game that is not two-player).
 * Requires the {@link Highs} service (`Highs.layer` of `@autodidact/solvers/lp`).
 *
 * @example
 * ```ts
 * import { PayoffTensor, Psro } from "@autodidact/solvers"
 * import { Highs } from "@autodidact/solvers/lp"
 * import { Effect } from "effect"
 * const rps = PayoffTensor.zeroSum([[0, -1, 1], [1, 0, -1], [-1, 1, 0]])
 * const result = await Effect.runPromise(Psro.run(rps, { metaSolver: "nash" }).pipe(Effect.provide(Highs.layer)))
 * result.history.map((r) => r.populationSizes) // [[1, 1], [2, 2], [3, 3]]
 * result.final.populations // [[0, 1, 2], [0, 1, 2]]: Rock, then Paper, then Scissors
 * ```
 * @see Lanctot et al., "A Unified Game-Theoretic Approach to Multiagent Reinforcement Learning", arXiv:1711.00832
 * @see McMahan, Gordon, Blum, "Planning in the Presence of Cost Functions Controlled by an Adversary", ICML 2003
 * @category PSRO
 * @since 0.1.0
 */
export const run = (tensor: PayoffTensor, options: Options): Effect.Effect<Result, InvalidPayoffTensorError | InvalidOptionError | LpSolveError, Highs> =>
  Effect.gen(function*() {
    const pops = yield* initialPopulations(tensor, options.initialPopulations)
    const metaSolver = yield* MetaSolvers.choose(options.metaSolver, options.prd ?? {}, options.alphaRank)
    const tieTol = 1e-12 * scale(tensor)
    return yield* PsroLoop.run({
      iterations: options.iterations ?? 100,
      tolerance: options.tolerance ?? 0,
      metaGame: () => restrict(tensor, pops),
      metaSolver,
      oracle: (_metaGame, metaStrategies) =>
        Effect.sync(() => {
          const strategies = lift(tensor.shape, pops, metaStrategies)
          const added = tensor.shape.map((_, p) => newBestResponse(Equilibrium.actionValues(tensor, p, strategies), pops[p]!, tieTol))
          return { gap: Equilibrium.nashConv(tensor, strategies), responses: added.map((a) => (a < 0 ? [] : [a])), strategies, added }
        }),
      add: (p, action) => pops[p]!.push(action),
      report: ({ elapsedSeconds, iteration, meta, metaGame, populationSizes }, oracle): IterationReport => ({
        iteration,
        populationSizes,
        populations: pops.map((p) => [...p]),
        metaGame,
        metaStrategies: meta,
        strategies: oracle.strategies,
        nashConv: oracle.gap,
        added: oracle.added,
        elapsedSeconds
      }),
      onIteration: options.onIteration
    })
  })

/**
 * Policy-Space Response Oracles (PSRO) on normal-form games, with an exact best-response oracle.
 *
 * Lanctot, Zambaldi, Gruslys, Lazaridou, Tuyls, Pérolat, Silver, Graepel, "A Unified Game-Theoretic Approach to
 * Multiagent Reinforcement Learning", NeurIPS 2017 (arXiv:1711.00832); with the Nash meta-solver it is the double
 * oracle algorithm of McMahan, Gordon and Blum, ICML 2003.
 *
 * **The loop** (one iteration, top to bottom in {@link run}):
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
 * import { Highs, PayoffTensor, Psro } from "@autodidact/solvers"
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
import { InvalidOptionError } from "@autodidact/core"
import { Effect } from "effect"
import * as Equilibrium from "./Equilibrium.js"
import type { Highs, LpSolveError } from "./Highs.js"
import * as MetaSolvers from "./MetaSolvers.js"
import { check, InvalidPayoffTensorError, restrict, scale } from "./PayoffTensor.js"
import type { PayoffTensor } from "./PayoffTensor.js"

/** One PSRO iteration, as reported to `onIteration` and kept in the history. */
export interface IterationReport {
  /** 0-based iteration. */
  readonly iteration: number
  /** Population size of each player. */
  readonly populationSizes: ReadonlyArray<number>
  /** Each player's population (actions of the full game, in order of addition). */
  readonly populations: ReadonlyArray<ReadonlyArray<number>>
  /** The meta-game (the full game restricted to the populations). */
  readonly metaGame: PayoffTensor
  /** The meta-solver's mixture over each population. */
  readonly metaStrategies: ReadonlyArray<Float64Array>
  /** The meta-strategies lifted to full-game mixed strategies. */
  readonly strategies: ReadonlyArray<Float64Array>
  /** NashConv of `strategies` in the full game. */
  readonly nashConv: number
  /** Best responses added to the populations after this iteration (one entry per player, -1 for none). */
  readonly added: ReadonlyArray<number>
  /** Seconds since the run started. */
  readonly elapsedSeconds: number
}

/** Why a run ended. */
export type StopReason = "converged" | "tolerance" | "iterations"

/** Options of {@link run}. */
export interface Options {
  /** `"uniform"`, `"nash"` (two-player constant-sum LP), `"prd"` (projected replicator dynamics) or a custom solver. */
  readonly metaSolver: "uniform" | "nash" | "prd" | MetaSolvers.MetaSolver
  /** Options of the `"prd"` meta-solver (OpenSpiel's defaults). */
  readonly prd?: MetaSolvers.ReplicatorOptions | undefined
  /** Maximum number of iterations (default 100). */
  readonly iterations?: number | undefined
  /** Stop once NashConv <= tolerance (default 0: run until converged or out of iterations). */
  readonly tolerance?: number | undefined
  /** Initial population of each player (default `[0]` each). */
  readonly initialPopulations?: ReadonlyArray<ReadonlyArray<number>> | undefined
  /** Called with each iteration's report; may return an Effect. */
  readonly onIteration?: ((report: IterationReport) => Effect.Effect<void> | void) | undefined
}

/** The outcome of {@link run}. */
export interface Result {
  readonly stopReason: StopReason
  /** The last iteration's report. */
  readonly final: IterationReport
  /** Every iteration's report. */
  readonly history: ReadonlyArray<IterationReport>
}

/** Lift mixtures over populations to full-game mixed strategies. */
export const lift = (shape: ReadonlyArray<number>, populations: ReadonlyArray<ReadonlyArray<number>>, meta: ReadonlyArray<ArrayLike<number>>): Array<Float64Array> =>
  shape.map((k, p) => {
    const x = new Float64Array(k)
    populations[p]!.forEach((a, i) => (x[a] += meta[p]![i]!))
    return x
  })

/**
 * Exact best response of `player` to the others' mixed strategies, preferring population members on ties:
 * returns an action not in `population` only when it beats all members by more than `tol`, else -1.
 */
export const newBestResponse = (
  values: ArrayLike<number>,
  population: ReadonlyArray<number>,
  tol: number
): number => {
  let best = 0
  for (let a = 1; a < values.length; a++) if (values[a]! > values[best]!) best = a
  let bestMember = -Infinity
  for (const a of population) bestMember = Math.max(bestMember, values[a]!)
  return values[best]! > bestMember + tol ? best : -1
}

const validatePopulations = (tensor: PayoffTensor, pops: ReadonlyArray<ReadonlyArray<number>>): InvalidPayoffTensorError | undefined => {
  if (pops.length !== tensor.shape.length) return new InvalidPayoffTensorError({ reason: `expected ${tensor.shape.length} initial populations, got ${pops.length}` })
  for (let p = 0; p < pops.length; p++) {
    if (pops[p]!.length === 0) return new InvalidPayoffTensorError({ reason: "empty initial population (strategy set)", player: p })
    for (const [i, a] of pops[p]!.entries()) {
      if (!Number.isInteger(a) || a < 0 || a >= tensor.shape[p]!) return new InvalidPayoffTensorError({ reason: `initial strategy out of range [0, ${tensor.shape[p]})`, player: p, index: i, value: a })
      if (pops[p]!.indexOf(a) !== i) return new InvalidPayoffTensorError({ reason: "duplicate strategy in initial population", player: p, index: i, value: a })
    }
  }
  return undefined
}

/** Run PSRO on a normal-form game (see the module docs for the loop). */
export const run = (tensor: PayoffTensor, options: Options): Effect.Effect<Result, InvalidPayoffTensorError | InvalidOptionError | LpSolveError, Highs> =>
  Effect.gen(function* () {
    const err = check(tensor.shape, tensor.payoffs)
    if (err !== undefined) return yield* err
    const pops = (options.initialPopulations ?? tensor.shape.map(() => [0])).map((p) => [...p])
    const popErr = validatePopulations(tensor, pops)
    if (popErr !== undefined) return yield* popErr
    const solver = typeof options.metaSolver === "function" ? options.metaSolver : MetaSolvers.named(options.metaSolver, options.prd ?? {})
    const maxIterations = options.iterations ?? 100
    if (!Number.isSafeInteger(maxIterations) || maxIterations < 1) {
      return yield* new InvalidOptionError({ option: "iterations", value: maxIterations, reason: "must be a positive integer" })
    }
    const tolerance = options.tolerance ?? 0
    const tieTol = 1e-12 * scale(tensor)
    const start = performance.now()
    const history: Array<IterationReport> = []
    let stopReason: StopReason = "iterations"
    for (let iteration = 0; iteration < maxIterations; iteration++) {
      const metaGame = restrict(tensor, pops)
      const metaStrategies = yield* solver(metaGame)
      const strategies = lift(tensor.shape, pops, metaStrategies)
      const nashConv = Equilibrium.nashConv(tensor, strategies)
      const added = tensor.shape.map((_, p) => newBestResponse(Equilibrium.actionValues(tensor, p, strategies), pops[p]!, tieTol))
      const report: IterationReport = {
        iteration,
        populationSizes: pops.map((p) => p.length),
        populations: pops.map((p) => [...p]),
        metaGame,
        metaStrategies,
        strategies,
        nashConv,
        added,
        elapsedSeconds: (performance.now() - start) / 1000
      }
      history.push(report)
      if (options.onIteration !== undefined) {
        const r = options.onIteration(report)
        if (Effect.isEffect(r)) yield* r
      }
      if (nashConv <= tolerance) {
        stopReason = "tolerance"
        break
      }
      if (added.every((a) => a < 0)) {
        stopReason = "converged"
        break
      }
      added.forEach((a, p) => a >= 0 && pops[p]!.push(a))
      yield* Effect.yieldNow
    }
    return { stopReason, final: history[history.length - 1]!, history }
  })

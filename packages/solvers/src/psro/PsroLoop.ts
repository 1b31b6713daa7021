/**
 * The PSRO outer loop, written once: `Psro` (normal-form games), `PsroExtensive` (extensive-form games) and `Jpsro`
 * (joint PSRO towards (C)CEs) are this loop with different pieces, and a new oracle (e.g. a reinforcement-learning
 * best response) plugs in the same way.
 *
 * Lanctot, Zambaldi, Gruslys, Lazaridou, Tuyls, Pérolat, Silver, Graepel, "A Unified Game-Theoretic Approach to
 * Multiagent Reinforcement Learning", NeurIPS 2017 (arXiv:1711.00832), Algorithm 1 (PSRO); Marris, Muller, Lanctot,
 * Tuyls, Graepel, "Multi-Agent Training beyond Zero-Sum with Correlated Equilibrium Meta-Solvers", ICML 2021
 * (arXiv:2106.09435), Algorithm 1 (JPSRO).
 *
 * **When to use**: to run PSRO with your own populations and oracle. For the built-in cases call `Psro.run`,
 * `PsroExtensive.run` or `Jpsro.run`, which build a {@link Spec} and call {@link run}.
 *
 * **The loop** (iteration `t = 0, 1, …`, top to bottom in {@link run}):
 * 1. `metaGame()`: the restricted game, the full game on the current populations (its `shape` is the population
 *    sizes);
 * 2. `metaSolver(metaGame)`: the meta-solution (a mixture per population for PSRO, a joint distribution over
 *    population profiles for JPSRO);
 * 3. `oracle(metaGame, meta)`: the meta-solution's gap in the full game (NashConv for PSRO, the (C)CE gap for
 *    JPSRO; ≥ 0 up to rounding, in payoff units) and each player's *new* responses (best responses that beat every
 *    member of the population, so that "no new response" is detected exactly);
 * 4. `report(context, oracle)`: the iteration's report, appended to the history and passed to `onIteration`;
 * 5. stop with `"tolerance"` when `gap <= tolerance`, with `"converged"` when no player has a new response (unless
 *    `continueWhenStalled`: a stateful meta-solver such as SHOR-PSRO's annealed one may answer the same meta-game
 *    differently next time, so the loop goes on with the same populations), otherwise `add` every new response to
 *    its player's population, yield to the Effect runtime and go on; after `iterations` iterations stop with
 *    `"iterations"`.
 *
 * **Details**
 * - The stopping tests come after the report, so the history always ends with the iteration that stopped the run;
 *   the responses of that iteration are added only when the loop goes on (so after `"iterations"` the populations
 *   hold the last iteration's responses too).
 * - The loop yields (`Effect.yieldNow`) between iterations, so it is interruptible there and fibers interleave; a
 *   meta-solver call (an LP/QP on HiGHS) or an oracle call runs to its end once started.
 * - `elapsedSeconds` is measured from the start of {@link run}, after the oracle of the iteration.
 *
 * **Errors**: `InvalidOptionError` for `iterations` that is not a positive safe integer (option `"iterations"`) or a
 * `tolerance` that is not a non-negative number (option `"tolerance"`), before any piece is called; otherwise the
 * pieces' own errors, unchanged.
 *
 * @example
 * ```ts
 * import { Equilibrium, MetaSolvers, PayoffTensor, Psro, PsroLoop } from "@autodidact/solvers"
 * import { Highs } from "@autodidact/solvers/lp"
 * import { Effect } from "effect"
 * // PSRO on rock-paper-scissors, written out: pure strategies as populations, exact best responses as oracle.
 * const rps = PayoffTensor.zeroSum([[0, -1, 1], [1, 0, -1], [-1, 1, 0]])
 * const pops = [[0], [0]]
 * const program = PsroLoop.run({
 *   iterations: 10,
 *   tolerance: 0,
 *   metaGame: () => PayoffTensor.restrict(rps, pops),
 *   metaSolver: MetaSolvers.named("nash"),
 *   oracle: (_metaGame, meta) => Effect.sync(() => {
 *     const strategies = Psro.lift(rps.shape, pops, meta)
 *     const responses = [0, 1].map((p) => {
 *       const br = Psro.newBestResponse(Equilibrium.actionValues(rps, p, strategies), pops[p]!, 1e-12)
 *       return br < 0 ? [] : [br]
 *     })
 *     return { gap: Equilibrium.nashConv(rps, strategies), responses }
 *   }),
 *   add: (p, action) => pops[p]!.push(action),
 *   report: (context, oracle) => ({ iteration: context.iteration, nashConv: oracle.gap })
 * })
 * const result = await Effect.runPromise(program.pipe(Effect.provide(Highs.layer)))
 * result.history.map((r) => r.nashConv) // ≈ [2, 2, 0]: R → P → S, then the uniform Nash equilibrium
 * ```
 * @see https://github.com/google-deepmind/open_spiel/blob/master/open_spiel/python/algorithms/psro_v2/psro_v2.py
 * @see https://github.com/google-deepmind/open_spiel/blob/master/open_spiel/python/algorithms/jpsro.py
 * @category PSRO
 * @since 0.1.0
 */
import { InvalidOptionError } from "@autodidact/core"
import { Effect } from "effect"
import type { PayoffTensor } from "../normalform/PayoffTensor.js"

/** Why a run ended: no new response (`"converged"`), gap at most `tolerance`, or the iteration budget spent. */
export type StopReason = "converged" | "tolerance" | "iterations"

/** What an oracle returns for one iteration (extend it with whatever your report needs). */
export interface OracleResult<Response> {
  /** The meta-solution's gap in the full game (NashConv, or the (C)CE gap), in payoff units; ≥ 0 up to rounding. */
  readonly gap: number
  /** Per player (index = player), the new responses to add to its population; all empty means converged. */
  readonly responses: ReadonlyArray<ReadonlyArray<Response>>
}

/** What the loop knows of an iteration when it asks for the report. */
export interface IterationContext<Meta> {
  /** 0-based iteration. */
  readonly iteration: number
  /** Each player's population size at this iteration (a copy of `metaGame.shape`). */
  readonly populationSizes: ReadonlyArray<number>
  /** The restricted game of this iteration. */
  readonly metaGame: PayoffTensor
  /** The meta-solver's solution of `metaGame`. */
  readonly meta: Meta
  /** Seconds since {@link run} started, measured after the oracle. */
  readonly elapsedSeconds: number
}

/** The response type of an oracle result type. */
export type ResponseOf<Oracle> = Oracle extends OracleResult<infer Response> ? Response : never

/** The pieces that make a PSRO variant (see the module docs for the order in which they are called). */
export interface Spec<Meta, Oracle extends OracleResult<unknown>, Report, E, R> {
  /** Maximum number of iterations (a positive safe integer). */
  readonly iterations: number
  /** Stop once the gap is at most this (a non-negative number; 0 runs until converged or out of iterations). */
  readonly tolerance: number
  /** The full game restricted to the current populations (`shape[p]` = player `p`'s population size). */
  readonly metaGame: () => PayoffTensor
  /** Solves the restricted game. */
  readonly metaSolver: (metaGame: PayoffTensor) => Effect.Effect<Meta, E, R>
  /** The meta-solution's gap in the full game and every player's new responses. */
  readonly oracle: (metaGame: PayoffTensor, meta: Meta) => Effect.Effect<Oracle, E, R>
  /** Adds `response` to `player`'s population (called in player order, then response order). */
  readonly add: (player: number, response: ResponseOf<Oracle>) => void
  /** Builds the iteration's report (called before the stopping tests, after the oracle). */
  readonly report: (context: IterationContext<Meta>, oracle: Oracle) => Report
  /** Called with each report, in order; may return an Effect, which the loop runs before going on. */
  readonly onIteration?: ((report: Report) => Effect.Effect<void> | void) | undefined
  /**
   * Go on when no player has a new response instead of stopping with `"converged"` (default false): for a stateful
   * meta-solver, whose next answer to the same meta-game may differ (SHOR-PSRO's annealed training solver).
   */
  readonly continueWhenStalled?: boolean | undefined
}

/** The fields every PSRO variant's iteration report starts with (`Psro`, `PsroExtensive`, `Jpsro` extend it). */
export interface BaseReport {
  /** 0-based iteration. */
  readonly iteration: number
  /** Population size of each player (= `metaGame.shape`). */
  readonly populationSizes: ReadonlyArray<number>
  /** The meta-game: the full game restricted to the populations (an empirical one for extensive-form games). */
  readonly metaGame: PayoffTensor
  /** Seconds since the run started. */
  readonly elapsedSeconds: number
}

/** The budget and progress options every PSRO variant takes (its `Options` extend it). */
export interface RunOptions<Report> {
  /** Maximum number of iterations, a positive integer (default 100; 20 for `PsroExtensive`). */
  readonly iterations?: number | undefined
  /** Stop once the gap (NashConv or (C)CE gap) is at most this, ≥ 0 (default 0: until converged or out of iterations). */
  readonly tolerance?: number | undefined
  /** Called with each iteration's report, in order; may return an Effect, which runs before the loop goes on. */
  readonly onIteration?: ((report: Report) => Effect.Effect<void> | void) | undefined
}

/** The outcome of {@link run}. */
export interface Result<Report> {
  readonly stopReason: StopReason
  /** The last iteration's report. */
  readonly final: Report
  /** Every iteration's report, in order (at least one). */
  readonly history: ReadonlyArray<Report>
}

/**
 * Whether a response worth `value` is new: it beats the best population member's value (`memberValues`, each
 * member's value against the same opponents) by more than `tolerance`. Ties go to the population, so a run whose
 * oracle finds nothing better stops with `"converged"` instead of adding copies. `-Infinity` members (none) make
 * any finite value new.
 */
export const improves = (value: number, memberValues: Iterable<number>, tolerance: number): boolean => {
  let bestMember = -Infinity
  for (const v of memberValues) bestMember = Math.max(bestMember, v)
  return value > bestMember + tolerance
}

/**
 * Run the PSRO outer loop described by `spec` (see the module docs for the loop, the stopping rules and the errors).
 *
 * Returns every iteration's report and why the run stopped. Fails with `InvalidOptionError` for a bad `iterations`
 * or `tolerance`, and with whatever `metaSolver` or `oracle` fails with.
 */
export const run = <Meta, Oracle extends OracleResult<unknown>, Report, E, R>(
  spec: Spec<Meta, Oracle, Report, E, R>
): Effect.Effect<Result<Report>, E | InvalidOptionError, R> =>
  Effect.gen(function*() {
    const maxIterations = spec.iterations
    if (!Number.isSafeInteger(maxIterations) || maxIterations < 1) {
      return yield* new InvalidOptionError({ option: "iterations", value: maxIterations, reason: "must be a positive integer" })
    }
    const tolerance = spec.tolerance
    if (typeof tolerance !== "number" || !(tolerance >= 0)) {
      return yield* new InvalidOptionError({ option: "tolerance", value: tolerance, reason: "must be a non-negative number" })
    }
    const start = performance.now()
    const history: Array<Report> = []
    let stopReason: StopReason = "iterations"
    for (let iteration = 0; iteration < maxIterations; iteration++) {
      const metaGame = spec.metaGame()
      const meta = yield* spec.metaSolver(metaGame)
      const oracle = yield* spec.oracle(metaGame, meta)
      const context: IterationContext<Meta> = {
        iteration,
        populationSizes: [...metaGame.shape],
        metaGame,
        meta,
        elapsedSeconds: (performance.now() - start) / 1000
      }
      const report = spec.report(context, oracle)
      history.push(report)
      if (spec.onIteration !== undefined) {
        const r = spec.onIteration(report)
        if (Effect.isEffect(r)) yield* r
      }
      if (oracle.gap <= tolerance) {
        stopReason = "tolerance"
        break
      }
      if (spec.continueWhenStalled !== true && oracle.responses.every((r) => r.length === 0)) {
        stopReason = "converged"
        break
      }
      oracle.responses.forEach((rs, p) => rs.forEach((r) => spec.add(p, r as ResponseOf<Oracle>)))
      yield* Effect.yieldNow
    }
    return { stopReason, final: history[history.length - 1]!, history }
  })

/**
 * Joint Policy-Space Response Oracles (JPSRO) for n-player general-sum normal-form games, converging to correlated
 * (CE) or coarse correlated (CCE) equilibria.
 *
 * Marris, Muller, Lanctot, Tuyls, Graepel, "Multi-Agent Training beyond Zero-Sum with Correlated Equilibrium
 * Meta-Solvers", ICML 2021 (arXiv:2106.09435). JPSRO keeps one population per player, solves the meta-game for a
 * *joint* distribution over population profiles with a (C)CE meta-solver (MG(C)CE by default), and adds best
 * responses:
 * - JPSRO(CCE): each player best-responds to the joint distribution's marginal over the others (what a player who
 *   ignores its recommendation faces);
 * - JPSRO(CE): each player best-responds to each conditional distribution `σ(a_-p | a_p = k)`, one best response
 *   per recommended population strategy `k` with positive probability.
 * With a (C)CE meta-solver, when no best response is new the meta-distribution is a (C)CE of the full game.
 *
 * **The loop** ({@link run}, an instance of `PsroLoop.run`, the outer loop shared with `Psro` and `PsroExtensive`):
 * meta-game -> meta-distribution -> report the (C)CE gap of the meta-distribution lifted to
 * the full game -> best responses join the populations. It stops when no best response is new (`"converged"`), when
 * the gap falls to `tolerance`, or after `iterations`; it yields between iterations (interruptible) and calls
 * `onIteration` with each report.
 *
 * @example
 * ```ts
 * import { Rng } from "@autodidact/core"
 * import { Jpsro, PayoffTensor } from "@autodidact/solvers"
 * import { Highs } from "@autodidact/solvers/lp"
 * import { Effect } from "effect"
 * const game = PayoffTensor.random([3, 3, 3], Rng.make(0))
 * const result = await Effect.runPromise(Jpsro.run(game, { kind: "cce" }).pipe(Effect.provide(Highs.layer)))
 * result.final.gap // <= 1e-7
 * ```
 * @see https://github.com/google-deepmind/open_spiel/blob/master/open_spiel/python/algorithms/jpsro.py
 * @since 0.1.0
 */
import type { InvalidOptionError } from "@autodidact/core"
import { Effect } from "effect"
import * as Equilibrium from "../normalform/Equilibrium.js"
import type { Highs, LpSolveError } from "../normalform/Highs.js"
import * as MetaSolvers from "../normalform/MetaSolvers.js"
import { type InvalidPayoffTensorError, restrict, scale, size, strides } from "../normalform/PayoffTensor.js"
import type { PayoffTensor } from "../normalform/PayoffTensor.js"
import { initialPopulations, newBestResponse } from "./Psro.js"
import * as PsroLoop from "./PsroLoop.js"

/** One JPSRO iteration. */
export interface IterationReport extends PsroLoop.BaseReport {
  /** Each player's population (full-game actions, in order of addition). */
  readonly populations: ReadonlyArray<ReadonlyArray<number>>
  /** The meta-solver's joint distribution over the meta-game's joint strategies. */
  readonly metaDistribution: Float64Array
  /** The meta-distribution lifted to a joint distribution of the full game. */
  readonly distribution: Float64Array
  /** CE gap (JPSRO(CE)) or CCE gap (JPSRO(CCE)) of `distribution` in the full game. */
  readonly gap: number
  /** Strategies added to each player's population after this iteration. */
  readonly added: ReadonlyArray<ReadonlyArray<number>>
}

/** Why a run ended (see `PsroLoop.StopReason`). */
export type StopReason = PsroLoop.StopReason

/** Options of {@link run}. */
export interface Options extends PsroLoop.RunOptions<IterationReport> {
  /** Target equilibrium: selects the best-response rule and the reported gap. */
  readonly kind: MetaSolvers.Kind
  /** Meta-solver (default MGCE for `"ce"`, MGCCE for `"cce"`). */
  readonly metaSolver?: "mgce" | "mgcce" | "maxWelfareCe" | "maxWelfareCce" | "uniform" | MetaSolvers.JointMetaSolver | undefined
  /** Initial population of each player (default `[0]` each). */
  readonly initialPopulations?: ReadonlyArray<ReadonlyArray<number>> | undefined
}

/** The outcome of {@link run}: why it stopped, the last iteration's report and every iteration's report. */
export type Result = PsroLoop.Result<IterationReport>

/**
 * Lift a joint distribution over population profiles (`meta`, row-major over the meta-game, last player fastest)
 * to the full game's joint actions (length `prod(tensor.shape)`, same order). No validation.
 */
export const lift = (tensor: PayoffTensor, populations: ReadonlyArray<ReadonlyArray<number>>, meta: ArrayLike<number>): Float64Array => {
  const shape = tensor.shape
  const st = strides(shape)
  const sub = populations.map((p) => p.length)
  const subSt = strides(sub)
  const out = new Float64Array(size(shape))
  for (let j = 0; j < meta.length; j++) {
    if (meta[j] === 0) continue
    let full = 0
    for (let p = 0; p < shape.length; p++) full += populations[p]![Math.floor(j / subSt[p]!) % sub[p]!]! * st[p]!
    out[full] += meta[j]!
  }
  return out
}

/**
 * Value of each full-game action of `player` when the others play according to `dist` restricted to the joint
 * actions where `player` was recommended `recommended` (or all of `dist` when `recommended` is -1: the CCE case).
 * Unnormalized (scaled by the probability of the recommendation), which leaves the argmax unchanged.
 */
export const deviationValues = (tensor: PayoffTensor, dist: ArrayLike<number>, player: number, recommended: number): Float64Array => {
  const k = tensor.shape[player]!
  const s = strides(tensor.shape)[player]!
  const u = tensor.payoffs[player]!
  const out = new Float64Array(k)
  for (let j = 0; j < dist.length; j++) {
    const w = dist[j]!
    if (w === 0) continue
    const a = Math.floor(j / s) % k
    if (recommended >= 0 && a !== recommended) continue
    const base = j - a * s
    for (let d = 0; d < k; d++) out[d] += w * u[base + d * s]!
  }
  return out
}

/**
 * Run JPSRO (Marris et al. 2021, arXiv:2106.09435) on an n-player general-sum normal-form game: the PSRO outer loop
 * (`PsroLoop.run`; Lanctot et al. 2017, arXiv:1711.00832) with a joint (C)CE meta-solver and (C)CE best responses.
 *
 * **When to use**: to find a correlated (`kind: "ce"`) or coarse correlated (`kind: "cce"`) equilibrium of a game
 * with more than two players or without zero-sum structure, through small populations; for Nash in two-player
 * zero-sum games use `Psro.run`.
 *
 * **Shapes and units**: `tensor` has `shape[p]` actions for player `p`; populations are lists of full-game action
 * indices. Each {@link IterationReport} carries the meta-game (shape = the population sizes), the meta-distribution
 * (a joint distribution over the meta-game's joint strategies, row-major, last player fastest), its lift to the full
 * game (`distribution.length === prod(shape)`, same order), the full game's CE or CCE gap of `distribution`
 * (`Equilibrium.ceGap` / `cceGap`: the largest gain any player gets from deviating, clipped at 0, in payoff units),
 * and `added[p]`, the actions added to player `p`'s population after the iteration (JPSRO(CE) can add several: one
 * best response per recommended population strategy with positive probability).
 *
 * **Options**: `kind` (required), `metaSolver` (default MGCE for `"ce"`, MGCCE for `"cce"`; also `"maxWelfareCe"`,
 * `"maxWelfareCce"`, `"uniform"` or a `MetaSolvers.JointMetaSolver`), `iterations` (default 100), `tolerance`
 * (default 0), `initialPopulations` (default `[0]` for every player), `onIteration`.
 *
 * **Stops** with `"converged"` when no player has a new best response (with a (C)CE meta-solver of the same kind
 * the distribution is then a (C)CE of the full game, as Marris et al. 2021 show), `"tolerance"` when the
 * gap ≤ `tolerance`, or `"iterations"`. A meta-solver that is not a (C)CE solver (e.g. `"uniform"`) can converge
 * with a positive gap.
 *
 * **Errors**: `InvalidPayoffTensorError` for a tensor with wrong lengths or non-finite payoffs, or initial populations
 * that are empty, out of range, duplicated or not one per player; `InvalidOptionError` for an unknown `metaSolver`,
 * `iterations` that is not a positive integer or a negative `tolerance`; `LpSolveError` when HiGHS fails or a
 * meta-solution does not verify. Requires the {@link Highs} service (`Highs.layer` of `@autodidact/solvers/lp`).
 *
 * @example
 * ```ts
 * import { Jpsro, PayoffTensor } from "@autodidact/solvers"
 * import { Highs } from "@autodidact/solvers/lp"
 * import { Effect } from "effect"
 * // Chicken: from (Dare, Dare) JPSRO adds Chicken for both players, then the MGCE of the full game.
 * const chicken = PayoffTensor.fromMatrices([[0, 7], [2, 6]], [[0, 2], [7, 6]])
 * const result = await Effect.runPromise(Jpsro.run(chicken, { kind: "ce" }).pipe(Effect.provide(Highs.layer)))
 * result.final.distribution // ≈ [5/34, 5/17, 5/17, 9/34]
 * ```
 * @see Marris et al., "Multi-Agent Training beyond Zero-Sum with Correlated Equilibrium Meta-Solvers", arXiv:2106.09435
 * @see https://github.com/google-deepmind/open_spiel/blob/master/open_spiel/python/algorithms/jpsro.py
 * @category PSRO
 * @since 0.1.0
 */
export const run = (tensor: PayoffTensor, options: Options): Effect.Effect<Result, InvalidPayoffTensorError | InvalidOptionError | LpSolveError, Highs> =>
  Effect.gen(function*() {
    const np = tensor.shape.length
    const pops = yield* initialPopulations(tensor, options.initialPopulations)
    const kind = options.kind
    const metaSolver = yield* MetaSolvers.chooseJoint(options.metaSolver ?? (kind === "ce" ? "mgce" : "mgcce"))
    const tieTol = 1e-12 * scale(tensor)
    return yield* PsroLoop.run({
      iterations: options.iterations ?? 100,
      tolerance: options.tolerance ?? 0,
      metaGame: () => restrict(tensor, pops),
      metaSolver,
      oracle: (_metaGame, metaDistribution) =>
        Effect.sync(() => {
          const distribution = lift(tensor, pops, metaDistribution)
          const gap = kind === "ce" ? Equilibrium.ceGap(tensor, distribution) : Equilibrium.cceGap(tensor, distribution)
          const responses: Array<Array<number>> = []
          for (let p = 0; p < np; p++) {
            const mine: Array<number> = []
            const recs = kind === "cce" ? [-1] : pops[p]!
            const marginal = Equilibrium.marginal(tensor.shape, distribution, p)
            for (const rec of recs) {
              if (rec >= 0 && !(marginal[rec]! > 0)) continue
              const br = newBestResponse(deviationValues(tensor, distribution, p, rec), pops[p]!, tieTol)
              if (br >= 0 && !mine.includes(br)) mine.push(br)
            }
            responses.push(mine)
          }
          return { gap, responses, distribution }
        }),
      add: (p, action) => pops[p]!.push(action),
      report: ({ elapsedSeconds, iteration, meta, metaGame, populationSizes }, oracle): IterationReport => ({
        iteration,
        populationSizes,
        populations: pops.map((p) => [...p]),
        metaGame,
        metaDistribution: meta,
        distribution: oracle.distribution,
        gap: oracle.gap,
        added: oracle.responses,
        elapsedSeconds
      }),
      onIteration: options.onIteration
    })
  })

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
 * **The loop** ({@link run}): meta-game -> meta-distribution -> report the (C)CE gap of the meta-distribution lifted to
 * the full game -> best responses join the populations. It stops when no best response is new (`"converged"`), when
 * the gap falls to `tolerance`, or after `iterations`; it yields between iterations (interruptible) and calls
 * `onIteration` with each report.
 *
 * @example
 * ```ts
 * import { Rng } from "@autodidact/core"
 * import { Highs, Jpsro, PayoffTensor } from "@autodidact/solvers"
 * import { Effect } from "effect"
 * const game = PayoffTensor.random([3, 3, 3], Rng.make(0))
 * const result = await Effect.runPromise(Jpsro.run(game, { kind: "cce" }).pipe(Effect.provide(Highs.layer)))
 * result.final.gap // <= 1e-7
 * ```
 * @see https://github.com/google-deepmind/open_spiel/blob/master/open_spiel/python/algorithms/jpsro.py
 * @since 0.1.0
 */
import { InvalidOptionError } from "@autodidact/core"
import { Effect } from "effect"
import * as Equilibrium from "./Equilibrium.js"
import type { Highs, LpSolveError } from "./Highs.js"
import * as MetaSolvers from "./MetaSolvers.js"
import { check, InvalidPayoffTensorError, restrict, scale, size, strides } from "./PayoffTensor.js"
import type { PayoffTensor } from "./PayoffTensor.js"
import { newBestResponse } from "./Psro.js"

/** One JPSRO iteration. */
export interface IterationReport {
  readonly iteration: number
  readonly populationSizes: ReadonlyArray<number>
  /** Each player's population (full-game actions, in order of addition). */
  readonly populations: ReadonlyArray<ReadonlyArray<number>>
  readonly metaGame: PayoffTensor
  /** The meta-solver's joint distribution over the meta-game's joint strategies. */
  readonly metaDistribution: Float64Array
  /** The meta-distribution lifted to a joint distribution of the full game. */
  readonly distribution: Float64Array
  /** CE gap (JPSRO(CE)) or CCE gap (JPSRO(CCE)) of `distribution` in the full game. */
  readonly gap: number
  /** Strategies added to each player's population after this iteration. */
  readonly added: ReadonlyArray<ReadonlyArray<number>>
  readonly elapsedSeconds: number
}

/** Why a run ended. */
export type StopReason = "converged" | "tolerance" | "iterations"

/** Options of {@link run}. */
export interface Options {
  /** Target equilibrium: selects the best-response rule and the reported gap. */
  readonly kind: MetaSolvers.Kind
  /** Meta-solver (default MGCE for `"ce"`, MGCCE for `"cce"`). */
  readonly metaSolver?: "mgce" | "mgcce" | "maxWelfareCe" | "maxWelfareCce" | "uniform" | MetaSolvers.JointMetaSolver | undefined
  /** Maximum iterations (default 100). */
  readonly iterations?: number | undefined
  /** Stop once the gap <= tolerance (default 0). */
  readonly tolerance?: number | undefined
  /** Initial population of each player (default `[0]` each). */
  readonly initialPopulations?: ReadonlyArray<ReadonlyArray<number>> | undefined
  /** Called with each iteration's report; may return an Effect. */
  readonly onIteration?: ((report: IterationReport) => Effect.Effect<void> | void) | undefined
}

/** The outcome of {@link run}. */
export interface Result {
  readonly stopReason: StopReason
  readonly final: IterationReport
  readonly history: ReadonlyArray<IterationReport>
}

/** Lift a joint distribution over population profiles to the full game's joint actions. */
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

/** Run JPSRO on an n-player normal-form game (see the module docs). */
export const run = (tensor: PayoffTensor, options: Options): Effect.Effect<Result, InvalidPayoffTensorError | InvalidOptionError | LpSolveError, Highs> =>
  Effect.gen(function* () {
    const err = check(tensor.shape, tensor.payoffs)
    if (err !== undefined) return yield* err
    const np = tensor.shape.length
    const pops = (options.initialPopulations ?? tensor.shape.map(() => [0])).map((p) => [...p])
    if (pops.length !== np) return yield* new InvalidPayoffTensorError({ reason: `expected ${np} initial populations, got ${pops.length}` })
    for (let p = 0; p < np; p++) {
      if (pops[p]!.length === 0) return yield* new InvalidPayoffTensorError({ reason: "empty initial population (strategy set)", player: p })
      for (const [i, a] of pops[p]!.entries()) {
        if (!Number.isInteger(a) || a < 0 || a >= tensor.shape[p]! || pops[p]!.indexOf(a) !== i) {
          return yield* new InvalidPayoffTensorError({ reason: `initial strategy out of range [0, ${tensor.shape[p]}) or duplicated`, player: p, index: i, value: a })
        }
      }
    }
    const maxIterations = options.iterations ?? 100
    if (!Number.isSafeInteger(maxIterations) || maxIterations < 1) {
      return yield* new InvalidOptionError({ option: "iterations", value: maxIterations, reason: "must be a positive integer" })
    }
    const kind = options.kind
    const choice = options.metaSolver ?? (kind === "ce" ? "mgce" : "mgcce")
    const solver = typeof choice === "function" ? choice : MetaSolvers.namedJoint(choice)
    const tolerance = options.tolerance ?? 0
    const tieTol = 1e-12 * scale(tensor)
    const start = performance.now()
    const history: Array<IterationReport> = []
    let stopReason: StopReason = "iterations"
    for (let iteration = 0; iteration < maxIterations; iteration++) {
      const metaGame = restrict(tensor, pops)
      const metaDistribution = yield* solver(metaGame)
      const distribution = lift(tensor, pops, metaDistribution)
      const gap = kind === "ce" ? Equilibrium.ceGap(tensor, distribution) : Equilibrium.cceGap(tensor, distribution)
      const added: Array<Array<number>> = []
      for (let p = 0; p < np; p++) {
        const mine: Array<number> = []
        const recs = kind === "cce" ? [-1] : pops[p]!
        const marginal = Equilibrium.marginal(tensor.shape, distribution, p)
        for (const rec of recs) {
          if (rec >= 0 && !(marginal[rec]! > 0)) continue
          const br = newBestResponse(deviationValues(tensor, distribution, p, rec), pops[p]!, tieTol)
          if (br >= 0 && !mine.includes(br)) mine.push(br)
        }
        added.push(mine)
      }
      const report: IterationReport = {
        iteration,
        populationSizes: pops.map((p) => p.length),
        populations: pops.map((p) => [...p]),
        metaGame,
        metaDistribution,
        distribution,
        gap,
        added,
        elapsedSeconds: (performance.now() - start) / 1000
      }
      history.push(report)
      if (options.onIteration !== undefined) {
        const r = options.onIteration(report)
        if (Effect.isEffect(r)) yield* r
      }
      if (gap <= tolerance) {
        stopReason = "tolerance"
        break
      }
      if (added.every((a) => a.length === 0)) {
        stopReason = "converged"
        break
      }
      added.forEach((a, p) => pops[p]!.push(...a))
      yield* Effect.yieldNow
    }
    return { stopReason, final: history[history.length - 1]!, history }
  })

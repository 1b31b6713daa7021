/**
 * Normal-form meta-solvers: the equilibrium solvers that PSRO and JPSRO run on their meta-games, usable on any
 * {@link PayoffTensor}.
 *
 * - {@link zeroSumNash}: two-player zero-sum (constant-sum) Nash equilibrium by linear programming, the maximin
 *   LP of von Neumann's minimax theorem (von Neumann 1928; Dantzig 1951), one LP per player; returns both
 *   strategies and the game value.
 * - {@link uniform}: every strategy equally likely (PSRO with it is fictitious self-play's population analogue).
 * - {@link replicatorDynamics}: projected replicator dynamics (Taylor and Jonker, "Evolutionary stable strategies
 *   and game dynamics", Mathematical Biosciences 40, 1978), discrete-time with a projection onto the
 *   γ-floored simplex and averaging, exactly as OpenSpiel's `projected_replicator_dynamics` (the PRD meta-solver
 *   of Lanctot et al. 2017, arXiv:1711.00832).
 * - {@link correlatedEquilibrium}: correlated (Aumann 1974) and coarse correlated (Hannan 1957) equilibria of
 *   n-player general-sum games as an LP (max welfare, or any linear objective) or a convex QP over joint
 *   distributions. `objective: "maxGini"` gives the Maximum Gini (C)CE, MG(C)CE, of Marris et al., "Multi-Agent
 *   Training beyond Zero-Sum with Correlated Equilibrium Meta-Solvers", ICML 2021 (arXiv:2106.09435):
 *   maximize `1 - sum σ²` (equivalently minimize `sum σ²`) subject to the (C)CE constraints; strictly convex, so
 *   unique, which makes it a well-defined meta-solver where the CE polytope has many points.
 *
 * **Details**
 * - The LP/QP solvers need the {@link Highs} service (`Effect.provide(Highs.layer)`, `Highs` of `@autodidact/solvers/lp`).
 * - Every LP/QP solution is cleaned (entries below 0 by rounding set to 0, renormalized) and then *verified*
 *   independently: the Nash gap of a zero-sum solution, the (C)CE gap of a correlated one, must be at most
 *   `epsilon + tolerance` (default tolerance `1e-7 × max(1, max |payoff|)`); otherwise the solve fails with
 *   {@link LpSolveError} `status: "Verification failed"`, never returning a wrong equilibrium.
 * - `epsilon > 0` gives the ε-relaxed (C)CE: each deviation gain may be up to ε.
 *
 * @example
 * ```ts
 * import { MetaSolvers, PayoffTensor } from "@autodidact/solvers"
 * import { Highs } from "@autodidact/solvers/lp"
 * import { Effect } from "effect"
 * const chicken = PayoffTensor.fromMatrices([[0, 7], [2, 6]], [[0, 2], [7, 6]])
 * const mgce = await Effect.runPromise(MetaSolvers.mgce(chicken).pipe(Effect.provide(Highs.layer)))
 * mgce.distribution // [5/34, 5/17, 5/17, 9/34]
 * ```
 * @see https://github.com/google-deepmind/open_spiel/blob/master/open_spiel/python/algorithms/projected_replicator_dynamics.py
 * @see https://github.com/google-deepmind/open_spiel/blob/master/open_spiel/python/algorithms/jpsro.py
 * @since 0.1.0
 */
import { InvalidOptionError } from "@autodidact/core"
import { Effect } from "effect"
import * as AlphaRank from "./AlphaRank.js"
import * as Equilibrium from "./Equilibrium.js"
import * as ShorPsro from "./ShorPsro.js"
import { Highs, LpSolveError } from "./Highs.js"
import type { Options as HighsOptions, Row } from "./Highs.js"
import { check, InvalidPayoffTensorError, scale, size, strides } from "./PayoffTensor.js"
import type { PayoffTensor } from "./PayoffTensor.js"

/** A meta-solver producing one mixed strategy per player (PSRO). */
export type MetaSolver = (metaGame: PayoffTensor) => Effect.Effect<ReadonlyArray<Float64Array>, InvalidPayoffTensorError | InvalidOptionError | LpSolveError, Highs>

/** A meta-solver producing a joint distribution over joint actions (JPSRO). */
export type JointMetaSolver = (metaGame: PayoffTensor) => Effect.Effect<Float64Array, InvalidPayoffTensorError | InvalidOptionError | LpSolveError, Highs>

const validate = (tensor: PayoffTensor): Effect.Effect<void, InvalidPayoffTensorError> =>
  Effect.suspend(() => {
    const err = check(tensor.shape, tensor.payoffs)
    return err === undefined ? Effect.void : Effect.fail(err)
  })

/** Clip rounding negatives to 0 and renormalize; undefined when the vector is not (nearly) a distribution. */
const clean = (x: ArrayLike<number>): Float64Array | undefined => {
  const out = new Float64Array(x.length)
  let sum = 0
  for (let i = 0; i < x.length; i++) {
    if (!(x[i]! >= -1e-6)) return undefined
    out[i] = Math.max(0, x[i]!)
    sum += out[i]!
  }
  if (!(Math.abs(sum - 1) <= 1e-6)) return undefined
  for (let i = 0; i < out.length; i++) out[i] = out[i]! / sum
  return out
}

// ---------------------------------------------------------------------------------------------------------------
// Uniform
// ---------------------------------------------------------------------------------------------------------------

/**
 * The uniform profile: every player mixes its actions equally (`1 / shape[p]` each; one `Float64Array` per player).
 * PSRO with this meta-solver is fictitious self-play over the populations (Lanctot et al. 2017, arXiv:1711.00832);
 * not an equilibrium in general. Fails with {@link InvalidPayoffTensorError} for a malformed tensor.
 */
export const uniform = (tensor: PayoffTensor): Effect.Effect<ReadonlyArray<Float64Array>, InvalidPayoffTensorError> =>
  Effect.map(validate(tensor), () => tensor.shape.map((k) => new Float64Array(k).fill(1 / k)))

/**
 * The uniform joint distribution over the tensor's joint actions (length `prod(shape)`, each `1 / prod(shape)`): a
 * JPSRO meta-solver baseline, not an equilibrium in general. Fails with {@link InvalidPayoffTensorError} for a
 * malformed tensor.
 */
export const uniformJoint = (tensor: PayoffTensor): Effect.Effect<Float64Array, InvalidPayoffTensorError> =>
  Effect.map(validate(tensor), () => {
    const n = size(tensor.shape)
    return new Float64Array(n).fill(1 / n)
  })

// ---------------------------------------------------------------------------------------------------------------
// Two-player zero-sum Nash (maximin LP)
// ---------------------------------------------------------------------------------------------------------------

/** A Nash equilibrium of a two-player zero-sum game. */
export interface ZeroSumNash {
  /** Row player's and column player's equilibrium strategies. */
  readonly strategies: readonly [Float64Array, Float64Array]
  /** The game value for player 0 (`max_x min_y x'Ay`). */
  readonly value: number
  /** Nash gap of the returned profile (verified below the tolerance). */
  readonly gap: number
}

/** Options of {@link zeroSumNash}. */
export interface ZeroSumNashOptions {
  /** Largest accepted Nash gap and constant-sum deviation (default `1e-7 × max(1, max |payoff|)`). */
  readonly tolerance?: number | undefined
  /** HiGHS options (e.g. `time_limit`). */
  readonly highs?: HighsOptions | undefined
}

/**
 * Nash equilibrium of a two-player constant-sum game by the maximin LP: player 0 solves
 * `max v s.t. sum_i x_i A_ij >= v for all j, x in simplex` and player 1 the mirror LP on its own payoffs.
 *
 * Fails with {@link InvalidPayoffTensorError} when the game is not two-player or not constant-sum, and with
 * {@link LpSolveError} when an LP fails or the solution does not verify.
 */
export const zeroSumNash = (
  tensor: PayoffTensor,
  options: ZeroSumNashOptions = {}
): Effect.Effect<ZeroSumNash, InvalidPayoffTensorError | LpSolveError, Highs> =>
  Effect.gen(function* () {
    yield* validate(tensor)
    if (tensor.shape.length !== 2) {
      return yield* new InvalidPayoffTensorError({ reason: `zero-sum Nash needs a two-player game, got ${tensor.shape.length} players`, value: tensor.shape.length })
    }
    const tol = options.tolerance ?? 1e-7 * scale(tensor)
    const [m, n] = tensor.shape as readonly [number, number]
    const [u0, u1] = tensor.payoffs as readonly [Float64Array, Float64Array]
    const c = u0[0]! + u1[0]!
    for (let j = 0; j < u0.length; j++) {
      if (Math.abs(u0[j]! + u1[j]! - c) > tol) {
        return yield* new InvalidPayoffTensorError({ reason: `not constant-sum: payoff sum ${u0[j]! + u1[j]!} differs from ${c}`, index: j, value: u0[j]! + u1[j]! })
      }
    }
    const highs = yield* Highs
    // Player p's maximin LP on its own payoffs: variables (x_0..x_{k-1}, v), maximize v.
    const maximin = (p: 0 | 1) => {
      const k = p === 0 ? m : n
      const o = p === 0 ? n : m
      const u = p === 0 ? u0 : u1
      const rows: Array<Row> = []
      for (let j = 0; j < o; j++) {
        const terms: Array<readonly [number, number]> = []
        for (let i = 0; i < k; i++) terms.push([i, p === 0 ? u[i * n + j]! : u[j * n + i]!])
        terms.push([k, -1])
        rows.push({ terms, sense: ">=", rhs: 0 })
      }
      rows.push({ terms: Array.from({ length: k }, (_, i) => [i, 1] as const), sense: "=", rhs: 1 })
      const objective = new Float64Array(k + 1)
      objective[k] = 1
      const lower = new Float64Array(k + 1)
      lower[k] = -Infinity
      return highs.solve(
        { name: `zero-sum Nash (player ${p} maximin) of ${m}x${n} game`, sense: "maximize", numVariables: k + 1, objective, rows, lower },
        options.highs
      )
    }
    const s0 = yield* maximin(0)
    const s1 = yield* maximin(1)
    const x = clean(s0.primal.subarray(0, m))
    const y = clean(s1.primal.subarray(0, n))
    if (x === undefined || y === undefined) {
      return yield* new LpSolveError({ status: "Verification failed", problem: `zero-sum Nash of ${m}x${n} game`, reason: "LP solution is not a distribution" })
    }
    const gap = Equilibrium.nashGap(tensor, [x, y])
    if (!(gap <= tol)) {
      return yield* new LpSolveError({ status: "Verification failed", problem: `zero-sum Nash of ${m}x${n} game`, reason: `Nash gap ${gap} > tolerance ${tol}` })
    }
    const value = Equilibrium.expectedPayoffs(tensor, Equilibrium.productDistribution(tensor.shape, [x, y]))[0]!
    return { strategies: [x, y] as const, value, gap }
  })

// ---------------------------------------------------------------------------------------------------------------
// Projected replicator dynamics
// ---------------------------------------------------------------------------------------------------------------

/** Options of {@link replicatorDynamics} (OpenSpiel's `prd_*` parameters and defaults). */
export interface ReplicatorOptions {
  /** Number of Euler steps (`prd_iterations`, default 100000). */
  readonly iterations?: number | undefined
  /** Step size (`prd_dt`, default 1e-3). */
  readonly dt?: number | undefined
  /** Probability floor of the projection (`prd_gamma`, default 1e-6): entries below it are raised to it, then renormalized. */
  readonly gamma?: number | undefined
  /** Average the last this many iterates (`average_over_last_n_strategies`, default all). */
  readonly averageOverLast?: number | undefined
  /** Initial strategies (`prd_initial_strategies`, default uniform). */
  readonly initial?: ReadonlyArray<ArrayLike<number>> | undefined
  /** Yield to the Effect runtime (interruption point) every this many iterations (default 1000). */
  readonly yieldEvery?: number | undefined
}

/**
 * Projected replicator dynamics: for every player simultaneously,
 * `x_p <- project_γ(x_p + dt · x_p ⊙ (v_p - x_p·v_p))` with `v_p` the action values against the others, and the
 * average of the last `averageOverLast` iterates returned. Works for any number of players.
 *
 * Returns one mixed strategy per player (`Float64Array` of length `shape[p]`, summing to 1). The PSRO `"prd"`
 * meta-solver (Lanctot et al. 2017, arXiv:1711.00832; Taylor and Jonker 1978 for the replicator dynamics),
 * with OpenSpiel's defaults (`projected_replicator_dynamics.py`). Fails with {@link InvalidPayoffTensorError} for a
 * malformed tensor and `InvalidOptionError` for bad options.
 */
export const replicatorDynamics = (
  tensor: PayoffTensor,
  options: ReplicatorOptions = {}
): Effect.Effect<ReadonlyArray<Float64Array>, InvalidPayoffTensorError | InvalidOptionError> =>
  Effect.gen(function* () {
    yield* validate(tensor)
    const iterations = options.iterations ?? 100_000
    const dt = options.dt ?? 1e-3
    const gamma = options.gamma ?? 1e-6
    const window = Math.min(iterations, options.averageOverLast ?? iterations)
    const yieldEvery = Math.max(1, options.yieldEvery ?? 1000)
    const shape = tensor.shape
    const np = shape.length
    if (!Number.isSafeInteger(iterations) || iterations <= 0 || !(dt > 0) || !(gamma >= 0) || !Number.isSafeInteger(window) || window <= 0) {
      return yield* new InvalidOptionError({ option: "replicator", value: { iterations, dt, gamma, averageOverLast: window }, reason: "iterations and averageOverLast must be positive integers, dt > 0, gamma >= 0" })
    }
    let x: Array<Float64Array> = shape.map((k, p) => {
      const init = options.initial?.[p]
      return init === undefined ? new Float64Array(k).fill(1 / k) : Float64Array.from(init)
    })
    for (let p = 0; p < np; p++) {
      if (x[p]!.length !== shape[p]) return yield* new InvalidPayoffTensorError({ reason: `initial strategy has length ${x[p]!.length}, expected ${shape[p]}`, player: p })
    }
    const st = strides(shape)
    const n = size(shape)
    const avg = shape.map((k) => new Float64Array(k))
    const values = shape.map((k) => new Float64Array(k))
    for (let it = 0; it < iterations; it++) {
      for (let p = 0; p < np; p++) values[p]!.fill(0)
      for (let j = 0; j < n; j++) {
        for (let p = 0; p < np; p++) {
          let w = 1
          for (let q = 0; q < np; q++) if (q !== p) w *= x[q]![Math.floor(j / st[q]!) % shape[q]!]!
          values[p]![Math.floor(j / st[p]!) % shape[p]!] += w * tensor.payoffs[p]![j]!
        }
      }
      const next: Array<Float64Array> = []
      for (let p = 0; p < np; p++) {
        const xp = x[p]!
        const v = values[p]!
        let mean = 0
        for (let a = 0; a < xp.length; a++) mean += xp[a]! * v[a]!
        const y = new Float64Array(xp.length)
        let sum = 0
        for (let a = 0; a < xp.length; a++) {
          const z = xp[a]! + dt * xp[a]! * (v[a]! - mean)
          y[a] = z > gamma ? z : gamma
          sum += y[a]!
        }
        for (let a = 0; a < y.length; a++) y[a] = y[a]! / sum
        next.push(y)
      }
      x = next
      if (it >= iterations - window) for (let p = 0; p < np; p++) for (let a = 0; a < shape[p]!; a++) avg[p]![a] += x[p]![a]! / window
      if ((it + 1) % yieldEvery === 0) yield* Effect.yieldNow
    }
    return avg
  })

// ---------------------------------------------------------------------------------------------------------------
// (Coarse) correlated equilibria
// ---------------------------------------------------------------------------------------------------------------

/** Which equilibrium: correlated (`"ce"`) or coarse correlated (`"cce"`). */
export type Kind = "ce" | "cce"

/**
 * What to optimize over the (C)CE polytope: `"maxGini"` (MG(C)CE, a QP with a unique solution), `"maxWelfare"`
 * (sum of expected payoffs, an LP), or `{ linear: w }` (maximize `w·σ`, any LP vertex).
 */
export type Objective = "maxGini" | "maxWelfare" | { readonly linear: ArrayLike<number> }

/** Options of {@link correlatedEquilibrium}. */
export interface CorrelatedOptions {
  readonly kind: Kind
  /** Default `"maxGini"`. */
  readonly objective?: Objective | undefined
  /** ε-relaxation: each deviation gain may be up to ε (default 0). */
  readonly epsilon?: number | undefined
  /** Largest accepted excess of the verified gap over ε (default `1e-7 × max(1, max |payoff|)`). */
  readonly tolerance?: number | undefined
  /** HiGHS options (e.g. `time_limit`, `solver`). */
  readonly highs?: HighsOptions | undefined
}

/** A (C)CE found by {@link correlatedEquilibrium}. */
export interface CorrelatedSolution {
  readonly kind: Kind
  /** Joint distribution over joint actions (row-major, sums to 1, non-negative). */
  readonly distribution: Float64Array
  /** Verified (C)CE gap of `distribution` (at most ε + tolerance). */
  readonly gap: number
  /** Expected payoff of each player. */
  readonly expectedPayoffs: Float64Array
  /** The Gini impurity `1 - sum σ²` of the distribution. */
  readonly gini: number
}

/**
 * The (C)CE deviation constraints as LP rows `sum_j coef_j σ_j >= -ε`: for CE one row per player, recommended
 * action and deviation; for CCE one row per player and deviation. Rows whose coefficients are all zero are dropped.
 */
export const constraintRows = (tensor: PayoffTensor, kind: Kind, epsilon = 0): Array<Row> => {
  const shape = tensor.shape
  const st = strides(shape)
  const n = size(shape)
  const rows: Array<Row> = []
  for (let p = 0; p < shape.length; p++) {
    const k = shape[p]!
    const s = st[p]!
    const u = tensor.payoffs[p]!
    for (let d = 0; d < k; d++) {
      if (kind === "cce") {
        const terms: Array<readonly [number, number]> = []
        for (let j = 0; j < n; j++) {
          const a = Math.floor(j / s) % k
          const c = u[j]! - u[j - a * s + d * s]!
          if (c !== 0) terms.push([j, c])
        }
        if (terms.length > 0) rows.push({ terms, sense: ">=", rhs: -epsilon })
      } else {
        for (let a = 0; a < k; a++) {
          if (a === d) continue
          const terms: Array<readonly [number, number]> = []
          for (let j = 0; j < n; j++) {
            if (Math.floor(j / s) % k !== a) continue
            const c = u[j]! - u[j + (d - a) * s]!
            if (c !== 0) terms.push([j, c])
          }
          if (terms.length > 0) rows.push({ terms, sense: ">=", rhs: -epsilon })
        }
      }
    }
  }
  return rows
}

/**
 * A correlated (`kind: "ce"`) or coarse correlated (`kind: "cce"`) equilibrium of an n-player general-sum game,
 * optimizing `objective` over the (ε-)(C)CE polytope.
 *
 * Fails with {@link InvalidPayoffTensorError} for a malformed tensor or objective and {@link LpSolveError} when
 * HiGHS fails (e.g. `Infeasible` cannot happen for ε >= 0, since every game has a CE, but a time limit can) or the
 * solution does not verify.
 */
export const correlatedEquilibrium = (
  tensor: PayoffTensor,
  options: CorrelatedOptions
): Effect.Effect<CorrelatedSolution, InvalidPayoffTensorError | InvalidOptionError | LpSolveError, Highs> =>
  Effect.gen(function* () {
    yield* validate(tensor)
    const kind = options.kind
    const epsilon = options.epsilon ?? 0
    const objective = options.objective ?? "maxGini"
    const tol = options.tolerance ?? 1e-7 * scale(tensor)
    const n = size(tensor.shape)
    const label = `${objective === "maxGini" ? "MG" : typeof objective === "string" ? "max-welfare " : ""}${kind.toUpperCase()} of ${tensor.shape.join("x")} game`
    if (!(epsilon >= 0) || !Number.isFinite(epsilon)) {
      return yield* new InvalidOptionError({ option: "epsilon", value: epsilon, reason: "must be a finite non-negative number" })
    }
    const rows = constraintRows(tensor, kind, epsilon)
    rows.push({ terms: Array.from({ length: n }, (_, j) => [j, 1] as const), sense: "=", rhs: 1 })
    const highs = yield* Highs
    let solution
    if (objective === "maxGini") {
      // HiGHS's active-set QP solver occasionally stops with "claims optimality, but with primal infeasibilities"
      // (status "Solve error") on these degenerate problems; the same QP in scaled variables s = c·σ
      // (sum s = c, same minimizer) usually goes through. Try a few scalings; every result is verified below.
      let lastError: LpSolveError | undefined
      for (const c of [1, n, 10 * n, 0.1]) {
        const scaledRows = rows.map((r) => ({ ...r, rhs: r.rhs * c }))
        const attempt = yield* Effect.result(highs.solve(
          { name: label, sense: "minimize", numVariables: n, quadratic: Array.from({ length: n }, (_, j) => [j, j, 2] as const), rows: scaledRows },
          options.highs
        ))
        if (attempt._tag === "Success") {
          const primal = attempt.success.primal.map((x) => x / c)
          const candidate = clean(primal)
          const ok = candidate !== undefined &&
            (kind === "ce" ? Equilibrium.ceGap(tensor, candidate) : Equilibrium.cceGap(tensor, candidate)) <= epsilon + tol
          if (ok) {
            solution = { ...attempt.success, primal }
            break
          }
          lastError = new LpSolveError({ status: "Verification failed", problem: label, reason: `scaling ${c}: solution violates the constraints` })
        } else {
          lastError = attempt.failure
          if (lastError.status !== "Solve error") break
        }
      }
      if (solution === undefined) return yield* lastError!
    } else {
      let w: Float64Array
      if (objective === "maxWelfare") {
        w = new Float64Array(n)
        for (const u of tensor.payoffs) for (let j = 0; j < n; j++) w[j] += u[j]!
      } else {
        if (objective.linear.length !== n) {
          return yield* new InvalidPayoffTensorError({ reason: `linear objective has length ${objective.linear.length}, expected ${n}`, value: objective.linear.length })
        }
        w = Float64Array.from(objective.linear)
      }
      solution = yield* highs.solve({ name: label, sense: "maximize", numVariables: n, objective: w, rows }, options.highs)
    }
    const distribution = clean(solution.primal)
    if (distribution === undefined) {
      return yield* new LpSolveError({ status: "Verification failed", problem: label, reason: "solution is not a probability distribution" })
    }
    const gap = kind === "ce" ? Equilibrium.ceGap(tensor, distribution) : Equilibrium.cceGap(tensor, distribution)
    if (!(gap <= epsilon + tol)) {
      return yield* new LpSolveError({ status: "Verification failed", problem: label, reason: `${kind.toUpperCase()} gap ${gap} > epsilon ${epsilon} + tolerance ${tol}` })
    }
    let sq = 0
    for (let j = 0; j < n; j++) sq += distribution[j]! * distribution[j]!
    return { kind, distribution, gap, expectedPayoffs: Equilibrium.expectedPayoffs(tensor, distribution), gini: 1 - sq }
  })

/**
 * Maximum Gini correlated equilibrium (MGCE): the CE that maximizes the Gini impurity `1 − Σ σ²` (a strictly concave
 * QP, so unique), the default JPSRO(CE) meta-solver of Marris et al. 2021 (arXiv:2106.09435). Returns the
 * {@link CorrelatedSolution} (joint distribution of length `prod(shape)`, row-major); errors as
 * {@link correlatedEquilibrium}. Chicken `[[0, 7], [2, 6]]`: `[5/34, 5/17, 5/17, 9/34]`.
 */
export const mgce = (tensor: PayoffTensor, options: Omit<CorrelatedOptions, "kind" | "objective"> = {}) =>
  correlatedEquilibrium(tensor, { ...options, kind: "ce", objective: "maxGini" })

/**
 * Maximum Gini coarse correlated equilibrium (MGCCE), the default JPSRO(CCE) meta-solver of Marris et al. 2021
 * (arXiv:2106.09435): unique; errors as {@link correlatedEquilibrium}.
 */
export const mgcce = (tensor: PayoffTensor, options: Omit<CorrelatedOptions, "kind" | "objective"> = {}) =>
  correlatedEquilibrium(tensor, { ...options, kind: "cce", objective: "maxGini" })

/**
 * Maximum welfare correlated equilibrium: the CE maximizing the sum of expected payoffs (an LP; the vertex HiGHS
 * returns, not unique in general). Errors as {@link correlatedEquilibrium}.
 */
export const maxWelfareCe = (tensor: PayoffTensor, options: Omit<CorrelatedOptions, "kind" | "objective"> = {}) =>
  correlatedEquilibrium(tensor, { ...options, kind: "ce", objective: "maxWelfare" })

/**
 * Maximum welfare coarse correlated equilibrium: the CCE maximizing the sum of expected payoffs (an LP vertex, not
 * unique in general). Errors as {@link correlatedEquilibrium}.
 */
export const maxWelfareCce = (tensor: PayoffTensor, options: Omit<CorrelatedOptions, "kind" | "objective"> = {}) =>
  correlatedEquilibrium(tensor, { ...options, kind: "cce", objective: "maxWelfare" })

// ---------------------------------------------------------------------------------------------------------------
// Meta-solver adapters
// ---------------------------------------------------------------------------------------------------------------

/** What a meta-solver claims of its output, checked by `CheckMetaSolver.checkMetaSolver`. */
export type Claim = "nash" | "correlated" | "coarse-correlated" | "uniform" | "none"

/** What a meta-solver declares about itself: its output, its claim, and the games it accepts. */
export interface Declaration {
  /** `"profile"`: one strategy per player ({@link MetaSolver}); `"joint"`: a joint distribution ({@link JointMetaSolver}). Default `"profile"`. */
  readonly output?: "profile" | "joint" | undefined
  /** Default `"none"` (only a distribution is promised). */
  readonly claims?: Claim | undefined
  /** `"two-player-zero-sum"` (the maximin LP) or `"general"` (default). */
  readonly scope?: "general" | "two-player-zero-sum" | undefined
}

/** The names {@link named} knows. */
export const metaSolverNames = ["uniform", "nash", "prd", "alpharank", "shor", "shor-eval"] as const

/** A name of {@link named}. */
export type MetaSolverName = typeof metaSolverNames[number]

/**
 * What each named PSRO meta-solver claims: `uniform` is exactly uniform; `nash` (the maximin LP) a Nash equilibrium
 * of two-player zero-sum games; `prd` (projected replicator dynamics) only a distribution — its average approaches
 * an equilibrium in many games but its definition guarantees none; `alpharank` (the marginals of α-Rank's stationary
 * distribution, α-PSRO) ranks by evolutionary dynamics, not by an equilibrium condition, so it claims none either;
 * `shor` (SHOR-PSRO's annealed hybrid training solver, `ShorPsro.trainMetaSolver`) and `shor-eval` (its fixed
 * evaluation-time solver, `ShorPsro.evalMetaSolver`) promise only distributions.
 */
export const claims: { readonly [K in MetaSolverName]: Declaration } = {
  uniform: { output: "profile", claims: "uniform", scope: "general" },
  nash: { output: "profile", claims: "nash", scope: "two-player-zero-sum" },
  prd: { output: "profile", claims: "none", scope: "general" },
  alpharank: { output: "profile", claims: "none", scope: "general" },
  shor: { output: "profile", claims: "none", scope: "general" },
  "shor-eval": { output: "profile", claims: "none", scope: "general" }
}

/**
 * Whether a named meta-solver is stateful (its answer to the same meta-game changes from call to call): only `shor`,
 * whose blend, temperature and diversity bonus anneal at each call. PSRO with a stateful meta-solver goes on through
 * an iteration without a new response (`PsroLoop`'s `continueWhenStalled`).
 */
export const isStateful = (name: MetaSolverName): boolean => name === "shor"

/**
 * PSRO meta-solvers by name: `"uniform"`, `"nash"` (2-player zero-sum LP), `"prd"` (projected replicator dynamics,
 * options `prd`), `"alpharank"` (`AlphaRank.metaSolver`, options `alphaRank`, default the infinite-α limit),
 * `"shor"` (`ShorPsro.trainMetaSolver()`, SHOR-PSRO's training-time solver, Li et al. 2026, arXiv:2602.16928: stateful,
 * its annealing advances at each call, so every call of `named("shor")` makes a fresh one — `choose` does so once per
 * PSRO run), `"shor-eval"` (`ShorPsro.evalMetaSolver()`, its fixed evaluation-time solver).
 */
export const named = (name: MetaSolverName, prd: ReplicatorOptions = {}, alphaRank?: Omit<AlphaRank.Options, "populations">): MetaSolver => {
  switch (name) {
    case "uniform":
      return uniform
    case "nash":
      return (g) => Effect.map(zeroSumNash(g), (s) => s.strategies)
    case "prd":
      return (g) => replicatorDynamics(g, prd)
    case "alpharank":
      return AlphaRank.metaSolver(alphaRank)
    case "shor":
      return ShorPsro.trainMetaSolver()
    case "shor-eval":
      return ShorPsro.evalMetaSolver()
  }
}

/** The names {@link namedJoint} knows. */
export const jointMetaSolverNames = ["mgce", "mgcce", "maxWelfareCe", "maxWelfareCce", "uniform"] as const

/** A name of {@link namedJoint}. */
export type JointMetaSolverName = typeof jointMetaSolverNames[number]

/** What each named JPSRO meta-solver claims: a CE (`mgce`, `maxWelfareCe`), a CCE (`mgcce`, `maxWelfareCce`), uniform. */
export const jointClaims: { readonly [K in JointMetaSolverName]: Declaration } = {
  mgce: { output: "joint", claims: "correlated", scope: "general" },
  mgcce: { output: "joint", claims: "coarse-correlated", scope: "general" },
  maxWelfareCe: { output: "joint", claims: "correlated", scope: "general" },
  maxWelfareCce: { output: "joint", claims: "coarse-correlated", scope: "general" },
  uniform: { output: "joint", claims: "uniform", scope: "general" }
}

/** JPSRO meta-solvers by name: MG(C)CE, max-welfare (C)CE, uniform joint. */
export const namedJoint = (name: JointMetaSolverName, options: Omit<CorrelatedOptions, "kind" | "objective"> = {}): JointMetaSolver => {
  switch (name) {
    case "mgce":
      return (g) => Effect.map(mgce(g, options), (s) => s.distribution)
    case "mgcce":
      return (g) => Effect.map(mgcce(g, options), (s) => s.distribution)
    case "maxWelfareCe":
      return (g) => Effect.map(maxWelfareCe(g, options), (s) => s.distribution)
    case "maxWelfareCce":
      return (g) => Effect.map(maxWelfareCce(g, options), (s) => s.distribution)
    case "uniform":
      return uniformJoint
  }
}

/** The meta-solver options of `Psro.run` and `PsroExtensive.run` (see {@link choose}). */
export interface ChoiceOptions {
  /**
   * `"uniform"`, `"nash"` (two-player constant-sum LP), `"prd"` (projected replicator dynamics), `"alpharank"`,
   * `"shor"` (SHOR-PSRO's training solver, a fresh schedule per run) or a custom solver.
   */
  readonly metaSolver: MetaSolverName | MetaSolver
  /** Options of the `"prd"` meta-solver (OpenSpiel's defaults). */
  readonly prd?: ReplicatorOptions | undefined
  /** Options of the `"alpharank"` meta-solver (default: the infinite-α limit). */
  readonly alphaRank?: Omit<AlphaRank.Options, "populations"> | undefined
}

/**
 * The meta-solver a PSRO option names: a {@link MetaSolver} function is returned as it is, a name goes through
 * {@link named}.
 *
 * Fails with `InvalidOptionError` (option `"metaSolver"`) for anything else, e.g. a misspelt name from a config file.
 * Used by `Psro.run` and `PsroExtensive.run`.
 */
export const choose = (
  choice: MetaSolverName | MetaSolver,
  prd: ReplicatorOptions = {},
  alphaRank?: Omit<AlphaRank.Options, "populations">
): Effect.Effect<MetaSolver, InvalidOptionError> => {
  if (typeof choice === "function") return Effect.succeed(choice)
  if ((metaSolverNames as ReadonlyArray<unknown>).includes(choice)) return Effect.succeed(named(choice, prd, alphaRank))
  return Effect.fail(new InvalidOptionError({ option: "metaSolver", value: choice, reason: `must be one of ${metaSolverNames.map((n) => JSON.stringify(n)).join(", ")} or a function` }))
}

/**
 * The joint meta-solver a JPSRO option names: a {@link JointMetaSolver} function is returned as it is, a name goes
 * through {@link namedJoint}.
 *
 * Fails with `InvalidOptionError` (option `"metaSolver"`) for anything else. Used by `Jpsro.run`.
 */
export const chooseJoint = (
  choice: "mgce" | "mgcce" | "maxWelfareCe" | "maxWelfareCce" | "uniform" | JointMetaSolver
): Effect.Effect<JointMetaSolver, InvalidOptionError> => {
  if (typeof choice === "function") return Effect.succeed(choice)
  if (choice === "mgce" || choice === "mgcce" || choice === "maxWelfareCe" || choice === "maxWelfareCce" || choice === "uniform") {
    return Effect.succeed(namedJoint(choice))
  }
  return Effect.fail(
    new InvalidOptionError({ option: "metaSolver", value: choice, reason: "must be \"mgce\", \"mgcce\", \"maxWelfareCe\", \"maxWelfareCce\", \"uniform\" or a function" })
  )
}

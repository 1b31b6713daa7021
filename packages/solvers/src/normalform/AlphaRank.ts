/**
 * α-Rank: ranking the strategies (or strategy profiles) of a game by the stationary distribution of an evolutionary
 * Markov chain — Omidshafiei, Papadimitriou, Piliouras, Tuyls, Rowland, Lespiau, Czarnecki, Lanctot, Perolat and
 * Munos, "α-Rank: Multi-Agent Evaluation by Evolution", Scientific Reports 9, 2019 (arXiv:1903.01373). Follows the
 * paper's equations and OpenSpiel's `open_spiel/python/egt/alpharank.py` (`compute`, `sweep_pi_vs_epsilon`), whose
 * defaults it keeps (α = 100, m = 50, the local selection model).
 *
 * **The chain.** Each population plays one pure strategy (monomorphic); a mutant strategy of one population either
 * fixates (takes over that population) or dies out. States are the pure strategy profiles (one population per player,
 * `populations: "multi"`, the default), or, for a symmetric two-player game, the strategies of one population
 * (`populations: "single"`). From state `s`, every profile `r` that differs from `s` in one population `k` is reached
 * with probability `C[s][r] = η ρ_k(s → r)`, `η = 1 / Σ_k (|S_k| − 1)`; `C[s][s] = 1 − Σ_r C[s][r]`.
 * - Fixation probability of a mutant with fitness advantage `u = α (f_r − f_s)` in a population of `m` (Fermi
 *   selection): `ρ = (1 − e^{−u}) / (1 − e^{−m u})`, and the neutral `1/m` when `|u| < 1e-14`. Multi-population:
 *   `f_r`, `f_s` are population `k`'s payoffs at the two profiles. Single population with the local selection model:
 *   `f_r − f_s = M[r][s] − M[s][r]` (the mutant against the resident, and back).
 * - Single population without the local model (`localSelection: false`): the fitness of each strategy averages over
 *   the population's composition, `ρ = 1 / (1 + Σ_{l=1}^{m−1} Π_{p=1}^{l} e^{−α (f_r(p) − f_s(m−p))})` with
 *   `f_x(p) = ((p − 1) M[x][x] + (m − p) M[x][y]) / (m − 1)` for `p` players of `x` against `y` (the paper's eq. for
 *   finite populations; OpenSpiel's `_get_rho_sr`). A constant-sum game (`M[i][j] + M[j][i] = c`) has the closed form
 *   `u = α m / (m − 1) (M[r][s] − c/2)`, used when it applies (equal up to rounding, tested).
 * - Infinite α (`infiniteAlpha`): the α → ∞ limit through OpenSpiel's perturbed response graph: a move to a better
 *   profile for the deviating population has `η (1 − ε)`, to a worse one `η ε`, a tie `η / 2`. With
 *   `infiniteAlpha: true` the noise ε is swept down (0.5, halved each time, at least 10 times) until the stationary
 *   distribution stops changing (`rtol 1e-5, atol 1e-8`), as `sweep_pi_vs_epsilon`; `{ epsilon }` fixes it.
 *
 * The stationary distribution `π` (`π C = π`, `Σ π = 1`) is computed by Gaussian elimination with partial pivoting;
 * when the chain has more than one the call fails with {@link AlphaRankError} instead of returning one of them. That
 * happens when α is too large for the payoffs' scale: a fixation probability below ~e^{−745} is 0 in floating point,
 * so an escape with `α (m − 1) Δ > 745` (Δ the payoff gap) is lost and strict equilibria become absorbing (OpenSpiel
 * fails there too, finding several unit eigenvalues). Lower α, or use `infiniteAlpha`. Rankings sort profiles by `π`, ties
 * sharing a rank. As a PSRO meta-solver ({@link metaSolver}, α-PSRO of Muller et al., "A Generalized Training
 * Approach for Multiagent Learning", ICLR 2020, arXiv:1909.12823) each player's strategy is the marginal of `π` over
 * its population.
 *
 * **Shapes**: a {@link PayoffTensor} (`shape[k]` strategies of player `k`); profiles are flat row-major joint indices
 * as in `PayoffTensor.indexOf`. Work and memory are `O(P²)` for `P = Π shape[k]` profiles (Gaussian elimination
 * `O(P³)`): a few hundred profiles, as in the paper's evaluations, take milliseconds.
 *
 * @example
 * ```ts
 * import { AlphaRank, PayoffTensor } from "@autodidact/solvers"
 * const rps = PayoffTensor.fromMatrices([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], [[0, 1, -1], [-1, 0, 1], [1, -1, 0]])
 * AlphaRank.alphaRank(rps, { populations: "single" }).stationary // [1/3, 1/3, 1/3]
 * const bos = PayoffTensor.fromMatrices([[3, 0], [0, 2]], [[2, 0], [0, 3]])
 * AlphaRank.alphaRank(bos, { infiniteAlpha: true }).ranking // (0,0) and (1,1) share rank 1 with mass 1/2 each
 * ```
 * @see https://arxiv.org/abs/1903.01373
 * @see https://github.com/google-deepmind/open_spiel/blob/master/open_spiel/python/egt/alpharank.py
 * @since 0.2.0
 */
import { InvalidOptionError } from "@autodidact/core"
import { Effect, Schema } from "effect"
import { actionsOf, check, InvalidPayoffTensorError, size, strides } from "./PayoffTensor.js"
import type { PayoffTensor } from "./PayoffTensor.js"

/**
 * The chain has no unique stationary distribution (it is reducible: α too large for the payoffs' scale makes
 * some fixation probabilities underflow to 0). Lower `alpha`, or use `infiniteAlpha`.
 * @category errors
 */
export class AlphaRankError extends Schema.TaggedError<AlphaRankError>()("AlphaRankError", {
  reason: Schema.String,
  alpha: Schema.Number
}) {
  override get message() {
    return `α-Rank (alpha ${this.alpha}): ${this.reason}`
  }
}

/** Options of {@link alphaRank}. */
export interface Options {
  /** Selection intensity α (> 0, finite). Default 100 (OpenSpiel's `compute`). */
  readonly alpha?: number | undefined
  /** Population size m (integer ≥ 2). Default 50. */
  readonly populationSize?: number | undefined
  /** `"multi"` (one population per player, default) or `"single"` (a symmetric two-player game, one population). */
  readonly populations?: "multi" | "single" | undefined
  /** The local selection model (fitness against the current opponent only). Default true (OpenSpiel's default). */
  readonly localSelection?: boolean | undefined
  /** The α → ∞ limit: `true` sweeps the noise ε down until π converges; `{ epsilon }` (in (0, 0.5]) fixes it. */
  readonly infiniteAlpha?: boolean | { readonly epsilon: number } | undefined
}

/** One ranked profile. */
export interface Ranked {
  /** The profile's flat index (multi-population) or the strategy (single population). */
  readonly index: number
  /** The strategy of each population (one entry for a single population). */
  readonly profile: ReadonlyArray<number>
  /** Its stationary mass π. */
  readonly mass: number
  /** 1 for the largest mass; profiles whose masses agree to 1e-10 share a rank. */
  readonly rank: number
}

/** What {@link alphaRank} returns. */
export interface Result {
  /** Number of states `P` (profiles, or strategies of the single population). */
  readonly states: number
  /** π over the states, summing to 1. */
  readonly stationary: Float64Array
  /** The transition matrix `C`, `P × P` row-major (rows sum to 1). */
  readonly transition: Float64Array
  /** Fixation probabilities `ρ[s][r]`, `P × P` row-major (0 where `r` is not one deviation from `s`; unset at ∞ α). */
  readonly fixation: Float64Array
  /** The neutral fixation probability `1/m` (1 at infinite α). */
  readonly neutralFixation: number
  /** Every state, by decreasing mass. */
  readonly ranking: ReadonlyArray<Ranked>
  /** Per population, the marginal of π over its strategies (single population: π itself). */
  readonly marginals: ReadonlyArray<Float64Array>
  /** The noise ε used at infinite α (the last of the sweep); undefined otherwise. */
  readonly epsilon?: number | undefined
}

interface Resolved {
  readonly alpha: number
  readonly m: number
  readonly single: boolean
  readonly local: boolean
  readonly infinite: false | "sweep" | number
}

const resolve = (tensor: PayoffTensor, options: Options): Resolved => {
  const invalid = check(tensor.shape, tensor.payoffs)
  if (invalid !== undefined) throw invalid
  const alpha = options.alpha ?? 100
  if (typeof alpha !== "number" || !Number.isFinite(alpha) || alpha <= 0) throw new InvalidOptionError({ option: "alpha", value: alpha, reason: "expected a finite number > 0" })
  const m = options.populationSize ?? 50
  if (!Number.isSafeInteger(m) || m < 2) throw new InvalidOptionError({ option: "populationSize", value: m, reason: "expected an integer >= 2" })
  const populations = options.populations ?? "multi"
  if (populations !== "multi" && populations !== "single") throw new InvalidOptionError({ option: "populations", value: populations, reason: 'expected "multi" or "single"' })
  const single = populations === "single"
  if (single) {
    const [a, b] = tensor.shape
    if (tensor.shape.length !== 2 || a !== b) {
      throw new InvalidOptionError({ option: "populations", value: `single for shape [${tensor.shape.join(", ")}]`, reason: "a single population needs a two-player game with the same strategies for both" })
    }
    const n = a!
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        const mine = tensor.payoffs[0]![i * n + j]!
        const theirs = tensor.payoffs[1]![j * n + i]!
        if (Math.abs(mine - theirs) > 1e-12 * Math.max(1, Math.abs(mine))) {
          throw new InvalidOptionError({ option: "populations", value: `single, payoffs[0][${i},${j}] = ${mine} but payoffs[1][${j},${i}] = ${theirs}`, reason: "a single population needs a symmetric game" })
        }
      }
    }
  }
  const inf = options.infiniteAlpha
  let infinite: Resolved["infinite"] = false
  if (inf === true) infinite = "sweep"
  else if (typeof inf === "object" && inf !== null) {
    const e = inf.epsilon
    if (typeof e !== "number" || !(e > 0 && e <= 0.5)) throw new InvalidOptionError({ option: "infiniteAlpha.epsilon", value: e, reason: "expected a number in (0, 0.5]" })
    infinite = e
  } else if (inf !== undefined && inf !== false) throw new InvalidOptionError({ option: "infiniteAlpha", value: String(inf), reason: "expected a boolean or { epsilon }" })
  return { alpha, m, single, local: options.localSelection ?? true, infinite }
}

/**
 * Fixation probability of a mutant with advantage `u` in a population of `m`: `(1 − e^{−u}) / (1 − e^{−m u})`,
 * written with `expm1` so neither a large positive nor a large negative `u` overflows; `1/m` at `|u| < 1e-14`.
 */
export const fixation = (u: number, m: number): number => {
  if (Math.abs(u) < 1e-14) return 1 / m
  if (u > 0) return -Math.expm1(-u) / -Math.expm1(-m * u)
  // u < 0: (e^{v} − 1) / (e^{m v} − 1) with v = −u, = e^{−(m−1) v} (1 − e^{−v}) / (1 − e^{−m v})
  const v = -u
  return Math.exp(-(m - 1) * v) * (-Math.expm1(-v) / -Math.expm1(-m * v))
}

/** log(Σ exp(x_i)) of a non-empty list, without overflow. */
const logSumExp = (xs: ReadonlyArray<number>): number => {
  let max = -Infinity
  for (const x of xs) if (x > max) max = x
  if (max === -Infinity) return -Infinity
  let s = 0
  for (const x of xs) s += Math.exp(x - max)
  return max + Math.log(s)
}

/** Single population, general (non-local) fitness: the finite-population fixation probability of `r` among `s`. */
const singleFixation = (M: Float64Array, n: number, r: number, s: number, alpha: number, m: number): number => {
  const fit = (popsize: number, mine: number, other: number) =>
    ((popsize - 1) / (m - 1)) * M[mine * n + mine]! + ((m - popsize) / (m - 1)) * M[mine * n + other]!
  const logs: Array<number> = []
  let log = 0
  for (let l = 1; l < m; l++) {
    log += -alpha * (fit(l, r, s) - fit(m - l, s, r))
    logs.push(log)
  }
  // 1 / (1 + Σ e^{log_l}) = e^{−log(1 + Σ e^{log_l})}
  return Math.exp(-logSumExp([0, ...logs]))
}

/** `M[i][j] + M[j][i]` when it is the same for all i, j (a constant-sum symmetric game), else undefined. */
const constantSum = (M: Float64Array, n: number): number | undefined => {
  const c = M[0]! + M[0]!
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) if (Math.abs(M[i * n + j]! + M[j * n + i]! - c) > 1e-12 * Math.max(1, Math.abs(c))) return undefined
  return c
}

/**
 * The stationary distribution of a row-stochastic `n × n` matrix `C` (row-major): solves `π (C − I) = 0`, `Σ π = 1`
 * by Gaussian elimination with partial pivoting, on the generator's off-diagonal rates (so escape probabilities far
 * below machine epsilon still count). Returns undefined when the solution is not unique (a pivot below
 * `1e-12` relative to the matrix: a reducible chain) or not a distribution.
 */
export const stationaryDistribution = (C: Float64Array, n: number): Float64Array | undefined => {
  // A x = b with A = (C − I)^T, the last equation replaced by Σ x = 1
  const A = new Float64Array(n * n)
  const b = new Float64Array(n)
  // A = (C − I)^T, with each diagonal entry C[i][i] − 1 taken as −Σ_{r≠i} C[i][r]: the same number, without the
  // cancellation that loses an escape rate below 1e-16 (C[i][i] rounds to 1 there)
  for (let i = 0; i < n; i++) {
    let out = 0
    for (let j = 0; j < n; j++) {
      if (j === i) continue
      A[i * n + j] = C[j * n + i]!
      out += C[i * n + j]!
    }
    A[i * n + i] = -out
  }
  for (let j = 0; j < n; j++) A[(n - 1) * n + j] = 1
  b[n - 1] = 1
  for (let col = 0; col < n; col++) {
    let pivot = col
    for (let r = col + 1; r < n; r++) if (Math.abs(A[r * n + col]!) > Math.abs(A[pivot * n + col]!)) pivot = r
    // the chain's rates can be tiny but never 0 in an irreducible chain; an exact-singular pivot means reducible
    if (Math.abs(A[pivot * n + col]!) < 1e-300) return undefined
    if (pivot !== col) {
      for (let j = 0; j < n; j++) {
        const t = A[col * n + j]!
        A[col * n + j] = A[pivot * n + j]!
        A[pivot * n + j] = t
      }
      const t = b[col]!
      b[col] = b[pivot]!
      b[pivot] = t
    }
    const p = A[col * n + col]!
    for (let r = col + 1; r < n; r++) {
      const f = A[r * n + col]! / p
      if (f === 0) continue
      for (let j = col; j < n; j++) A[r * n + j]! -= f * A[col * n + j]!
      b[r]! -= f * b[col]!
    }
  }
  const x = new Float64Array(n)
  for (let i = n - 1; i >= 0; i--) {
    let s = b[i]!
    for (let j = i + 1; j < n; j++) s -= A[i * n + j]! * x[j]!
    x[i] = s / A[i * n + i]!
  }
  // clean rounding below 0 and check that x really is stationary
  let sum = 0
  for (let i = 0; i < n; i++) {
    if (!Number.isFinite(x[i]!) || x[i]! < -1e-9) return undefined
    if (x[i]! < 0) x[i] = 0
    sum += x[i]!
  }
  for (let i = 0; i < n; i++) x[i]! /= sum
  for (let j = 0; j < n; j++) {
    let s = 0
    for (let i = 0; i < n; i++) s += x[i]! * C[i * n + j]!
    if (Math.abs(s - x[j]!) > 1e-9) return undefined
  }
  return x
}

/** A tie of two payoffs in the perturbed response graph: NumPy's `isclose(a, b, atol=1e-14)` (rtol 1e-5), as OpenSpiel. */
const tie = (a: number, b: number) => Math.abs(a - b) <= 1e-14 + 1e-5 * Math.abs(b)

/** The chain's transition and fixation matrices (finite α) or the perturbed response graph (`epsilon`). */
const chain = (tensor: PayoffTensor, o: Resolved, epsilon: number | undefined): { C: Float64Array; rho: Float64Array; P: number } => {
  const { alpha, m } = o
  if (o.single) {
    const n = tensor.shape[0]!
    const M = tensor.payoffs[0]!
    const C = new Float64Array(n * n)
    const rho = new Float64Array(n * n)
    const eta = 1 / (n - 1)
    const c = o.local ? undefined : constantSum(M, n)
    for (let s = 0; s < n; s++) {
      let out = 0
      for (let r = 0; r < n; r++) {
        if (r === s) continue
        let p: number
        if (epsilon !== undefined) {
          const rs = M[r * n + s]!
          const sr = M[s * n + r]!
          p = tie(rs, sr) ? 0.5 : rs > sr ? 1 - epsilon : epsilon
        } else {
          const f = o.local
            ? fixation(alpha * (M[r * n + s]! - M[s * n + r]!), m)
            : c !== undefined
            ? fixation(((alpha * m) / (m - 1)) * (M[r * n + s]! - c / 2), m)
            : singleFixation(M, n, r, s, alpha, m)
          rho[s * n + r] = f
          p = f
        }
        C[s * n + r] = eta * p
        out += eta * p
      }
      C[s * n + s] = 1 - out
    }
    return { C, rho, P: n }
  }
  const shape = tensor.shape
  const P = size(shape)
  const st = strides(shape)
  let deviations = 0
  for (const k of shape) deviations += k - 1
  const eta = 1 / deviations
  const C = new Float64Array(P * P)
  const rho = new Float64Array(P * P)
  for (let s = 0; s < P; s++) {
    const profile = actionsOf(shape, s)
    let out = 0
    for (let k = 0; k < shape.length; k++) {
      const u = tensor.payoffs[k]!
      for (let a = 0; a < shape[k]!; a++) {
        if (a === profile[k]) continue
        const r = s + (a - profile[k]!) * st[k]!
        let p: number
        if (epsilon !== undefined) {
          const fr = u[r]!
          const fs = u[s]!
          p = tie(fr, fs) ? 0.5 : fr > fs ? 1 - epsilon : epsilon
        } else {
          p = fixation(alpha * (u[r]! - u[s]!), m)
          rho[s * P + r] = p
        }
        C[s * P + r] = eta * p
        out += eta * p
      }
    }
    C[s * P + s] = 1 - out
  }
  return { C, rho, P }
}

const solve = (tensor: PayoffTensor, o: Resolved, epsilon: number | undefined) => {
  const { C, rho, P } = chain(tensor, o, epsilon)
  const pi = P === 1 ? Float64Array.of(1) : stationaryDistribution(C, P)
  return { C, rho, P, pi }
}

const allClose = (a: Float64Array, b: Float64Array) => a.every((x, i) => Math.abs(x - b[i]!) <= 1e-8 + 1e-5 * Math.abs(b[i]!))

/**
 * α-Rank of a game: the stationary distribution of the evolutionary chain over its pure profiles, the ranking it
 * induces, and each population's marginal (see the module docs).
 * @throws InvalidPayoffTensorError for a malformed tensor; InvalidOptionError naming a bad option (`alpha`,
 *   `populationSize`, `populations` for an asymmetric game, `infiniteAlpha.epsilon`); AlphaRankError when the chain
 *   has no unique stationary distribution.
 */
export const alphaRank = (tensor: PayoffTensor, options: Options = {}): Result => {
  const o = resolve(tensor, options)
  let result: ReturnType<typeof solve>
  let epsilon: number | undefined
  if (o.infinite === false) result = solve(tensor, o, undefined)
  else if (typeof o.infinite === "number") {
    epsilon = o.infinite
    result = solve(tensor, o, epsilon)
  } else {
    // sweep_pi_vs_epsilon: halve ε from 0.5 until π stops changing (after at least 10 halvings), at most 100 times
    epsilon = 0.5
    let previous: Float64Array | undefined
    let last: ReturnType<typeof solve> | undefined
    let lastEpsilon = epsilon
    for (let i = 0; i < 100; i++) {
      const r = solve(tensor, o, epsilon)
      if (r.pi === undefined) break // ε so small that rounding made the chain reducible: keep the last good one
      last = r
      lastEpsilon = epsilon
      if (i > 10 && previous !== undefined && allClose(r.pi, previous)) break
      previous = r.pi
      epsilon *= 0.5
    }
    if (last === undefined) throw new AlphaRankError({ reason: "no stationary distribution at ε = 0.5", alpha: Infinity })
    result = last
    epsilon = lastEpsilon
  }
  const { C, rho, P, pi } = result
  if (pi === undefined) {
    throw new AlphaRankError({
      reason: `the Markov chain over ${P} states has no unique stationary distribution (reducible in floating point): lower alpha or use infiniteAlpha`,
      alpha: o.infinite === false ? o.alpha : Infinity
    })
  }
  const profileOf = (i: number) => (o.single ? [i] : actionsOf(tensor.shape, i))
  const order = Array.from({ length: P }, (_, i) => i).sort((a, b) => pi[b]! - pi[a]! || a - b)
  const ranking: Array<Ranked> = []
  for (const [pos, i] of order.entries()) {
    const prev = ranking[pos - 1]
    const rank = prev !== undefined && Math.abs(prev.mass - pi[i]!) <= 1e-10 ? prev.rank : pos + 1
    ranking.push({ index: i, profile: profileOf(i), mass: pi[i]!, rank })
  }
  const marginals = o.single
    ? [Float64Array.from(pi)]
    : tensor.shape.map((n, k) => {
      const out = new Float64Array(n)
      for (let i = 0; i < P; i++) out[actionsOf(tensor.shape, i)[k]!]! += pi[i]!
      return out
    })
  return {
    states: P,
    stationary: pi,
    transition: C,
    fixation: rho,
    neutralFixation: o.infinite === false ? 1 / o.m : 1,
    ranking,
    marginals,
    ...(epsilon === undefined ? {} : { epsilon })
  }
}

/**
 * α-Rank as a PSRO meta-solver (α-PSRO; a `MetaSolvers.MetaSolver`, whose type is not imported here so that
 * `MetaSolvers` can import this module): each player's strategy is the marginal of π over its population
 * (multi-population chain). `options` as {@link alphaRank} (`populations` is always `"multi"` here); the default is
 * the infinite-α limit (`{ infiniteAlpha: true }`), since a finite α large enough to rank well makes the chain
 * reducible in floating point once payoff gaps reach `~745 / (α (m − 1))` (0.15 at α 100, m 50).
 * Fails with InvalidPayoffTensorError, or InvalidOptionError naming a bad option — `alpha` also when the chain at that
 * α has no unique stationary distribution (choose a smaller `alpha`, or `infiniteAlpha`).
 */
export const metaSolver = (
  options: Omit<Options, "populations"> = { infiniteAlpha: true }
): (metaGame: PayoffTensor) => Effect.Effect<ReadonlyArray<Float64Array>, InvalidPayoffTensorError | InvalidOptionError> => (metaGame) =>
  Effect.suspend((): Effect.Effect<ReadonlyArray<Float64Array>, InvalidPayoffTensorError | InvalidOptionError> => {
    try {
      return Effect.succeed(alphaRank(metaGame, { ...options, populations: "multi" }).marginals)
    } catch (e) {
      if (e instanceof AlphaRankError) return Effect.fail(new InvalidOptionError({ option: "alpha", value: e.alpha, reason: e.reason }))
      if (e instanceof InvalidOptionError || e instanceof InvalidPayoffTensorError) return Effect.fail(e)
      return Effect.die(e)
    }
  })

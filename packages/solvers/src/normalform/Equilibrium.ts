/**
 * Equilibrium measures of normal-form games: Nash gap and NashConv of mixed profiles, and the (coarse) correlated
 * equilibrium gaps of joint distributions.
 *
 * - Correlated equilibrium (CE): Aumann, "Subjectivity and correlation in randomized strategies", Journal of
 *   Mathematical Economics 1(1), 1974. A joint distribution σ is a CE when no player gains by deviating from a
 *   recommended action `a` to `a'`: `sum_{a_-p} σ(a, a_-p) [u_p(a', a_-p) - u_p(a, a_-p)] <= 0` for all p, a, a'.
 * - Coarse correlated equilibrium (CCE): Hannan, "Approximation to Bayes risk in repeated play", 1957 (the
 *   no-external-regret condition); Moulin and Vial 1978. No player gains by committing to `a'` before seeing the
 *   recommendation: `sum_a σ(a) [u_p(a', a_-p) - u_p(a)] <= 0` for all p, a'.
 * - NashConv: Lanctot et al. 2017 (arXiv:1711.00832), `sum_p [max_{a'} u_p(a', x_-p) - u_p(x)]`.
 *
 * **Details**: every gap is the largest incentive to deviate, clipped at 0 (so exactly 0 at an equilibrium and
 * positive elsewhere), in the game's payoff units. Distributions are flat `Float64Array`s over joint actions in the
 * tensor's row-major order; mixed profiles are one strategy per player.
 *
 * **Errors**: these are synchronous and throw {@link InvalidPayoffTensorError} for a distribution or strategy of the
 * wrong length.
 *
 * @example
 * ```ts
 * import { Equilibrium, PayoffTensor } from "@autodidact/solvers"
 * const rps = PayoffTensor.zeroSum([[0, -1, 1], [1, 0, -1], [-1, 1, 0]])
 * Equilibrium.nashConv(rps, [[1 / 3, 1 / 3, 1 / 3], [1 / 3, 1 / 3, 1 / 3]]) // 0
 * Equilibrium.nashConv(rps, [[1, 0, 0], [1, 0, 0]]) // 2
 * ```
 * @since 0.1.0
 */
import { InvalidPayoffTensorError, size, strides } from "./PayoffTensor.js"
import type { PayoffTensor } from "./PayoffTensor.js"

const checkDist = (tensor: PayoffTensor, dist: ArrayLike<number>): void => {
  const n = size(tensor.shape)
  if (dist.length !== n) throw new InvalidPayoffTensorError({ reason: `joint distribution has length ${dist.length}, expected ${n}`, value: dist.length })
}

const checkProfile = (tensor: PayoffTensor, strategies: ReadonlyArray<ArrayLike<number>>): void => {
  if (strategies.length !== tensor.shape.length) {
    throw new InvalidPayoffTensorError({ reason: `expected ${tensor.shape.length} strategies, got ${strategies.length}`, value: strategies.length })
  }
  for (let p = 0; p < strategies.length; p++) {
    if (strategies[p]!.length !== tensor.shape[p]) {
      throw new InvalidPayoffTensorError({ reason: `strategy has length ${strategies[p]!.length}, expected ${tensor.shape[p]}`, player: p })
    }
  }
}

/** The product distribution `σ(a) = prod_p x_p(a_p)` of a mixed profile. */
export const productDistribution = (shape: ReadonlyArray<number>, strategies: ReadonlyArray<ArrayLike<number>>): Float64Array => {
  const n = size(shape)
  const st = strides(shape)
  const out = new Float64Array(n)
  for (let j = 0; j < n; j++) {
    let w = 1
    for (let p = 0; p < shape.length; p++) w *= strategies[p]![Math.floor(j / st[p]!) % shape[p]!]!
    out[j] = w
  }
  return out
}

/** Player `player`'s marginal of a joint distribution. */
export const marginal = (shape: ReadonlyArray<number>, dist: ArrayLike<number>, player: number): Float64Array => {
  const st = strides(shape)[player]!
  const k = shape[player]!
  const out = new Float64Array(k)
  for (let j = 0; j < dist.length; j++) out[Math.floor(j / st) % k] += dist[j]!
  return out
}

/** Expected payoff of every player under a joint distribution. */
export const expectedPayoffs = (tensor: PayoffTensor, dist: ArrayLike<number>): Float64Array => {
  checkDist(tensor, dist)
  const out = new Float64Array(tensor.shape.length)
  for (let p = 0; p < out.length; p++) {
    const u = tensor.payoffs[p]!
    let v = 0
    for (let j = 0; j < dist.length; j++) v += dist[j]! * u[j]!
    out[p] = v
  }
  return out
}

/** Payoff of each action of `player` against the other players' mixed strategies (`strategies[player]` is ignored). */
export const actionValues = (tensor: PayoffTensor, player: number, strategies: ReadonlyArray<ArrayLike<number>>): Float64Array => {
  checkProfile(tensor, strategies)
  const shape = tensor.shape
  const st = strides(shape)
  const u = tensor.payoffs[player]!
  const out = new Float64Array(shape[player]!)
  for (let j = 0; j < u.length; j++) {
    let w = 1
    for (let q = 0; q < shape.length; q++) if (q !== player) w *= strategies[q]![Math.floor(j / st[q]!) % shape[q]!]!
    if (w !== 0) out[Math.floor(j / st[player]!) % shape[player]!] += w * u[j]!
  }
  return out
}

/** Each player's best-response gain `max_{a'} u_p(a', x_-p) - u_p(x)` under a mixed profile. */
export const deviationGains = (tensor: PayoffTensor, strategies: ReadonlyArray<ArrayLike<number>>): Float64Array => {
  checkProfile(tensor, strategies)
  const out = new Float64Array(tensor.shape.length)
  for (let p = 0; p < out.length; p++) {
    const v = actionValues(tensor, p, strategies)
    let best = -Infinity
    let mean = 0
    for (let a = 0; a < v.length; a++) {
      best = Math.max(best, v[a]!)
      mean += strategies[p]![a]! * v[a]!
    }
    out[p] = Math.max(0, best - mean)
  }
  return out
}

/** NashConv: the sum over players of the best-response gains (0 exactly at a Nash equilibrium). */
export const nashConv = (tensor: PayoffTensor, strategies: ReadonlyArray<ArrayLike<number>>): number =>
  deviationGains(tensor, strategies).reduce((s, g) => s + g, 0)

/** Nash gap: the largest best-response gain of any player (0 exactly at a Nash equilibrium). */
export const nashGap = (tensor: PayoffTensor, strategies: ReadonlyArray<ArrayLike<number>>): number =>
  deviationGains(tensor, strategies).reduce((m, g) => Math.max(m, g), 0)

/**
 * The CE deviation gains of player `player`: entry `a * k + a'` is `sum_{a_-p} σ(a, a_-p) [u_p(a', a_-p) - u_p(a, a_-p)]`
 * (k = number of actions; the diagonal is 0). A CE has every entry <= 0.
 */
export const ceDeviationGains = (tensor: PayoffTensor, dist: ArrayLike<number>, player: number): Float64Array => {
  checkDist(tensor, dist)
  const k = tensor.shape[player]!
  const s = strides(tensor.shape)[player]!
  const u = tensor.payoffs[player]!
  const gains = new Float64Array(k * k)
  for (let j = 0; j < dist.length; j++) {
    const w = dist[j]!
    if (w === 0) continue
    const a = Math.floor(j / s) % k
    const base = j - a * s
    const uj = u[j]!
    for (let d = 0; d < k; d++) if (d !== a) gains[a * k + d] += w * (u[base + d * s]! - uj)
  }
  return gains
}

/** The CCE deviation gains of player `player`: entry `a'` is `sum_a σ(a) [u_p(a', a_-p) - u_p(a)]`. */
export const cceDeviationGains = (tensor: PayoffTensor, dist: ArrayLike<number>, player: number): Float64Array => {
  checkDist(tensor, dist)
  const k = tensor.shape[player]!
  const s = strides(tensor.shape)[player]!
  const u = tensor.payoffs[player]!
  const gains = new Float64Array(k)
  for (let j = 0; j < dist.length; j++) {
    const w = dist[j]!
    if (w === 0) continue
    const a = Math.floor(j / s) % k
    const base = j - a * s
    const uj = u[j]!
    for (let d = 0; d < k; d++) gains[d] += w * (u[base + d * s]! - uj)
  }
  return gains
}

const maxOf = (xs: Float64Array, init: number): number => {
  let m = init
  for (let i = 0; i < xs.length; i++) m = Math.max(m, xs[i]!)
  return m
}

/** CE gap: the largest gain any player gets by deviating from any recommended action (0 at a CE). */
export const ceGap = (tensor: PayoffTensor, dist: ArrayLike<number>): number => {
  let m = 0
  for (let p = 0; p < tensor.shape.length; p++) m = maxOf(ceDeviationGains(tensor, dist, p), m)
  return m
}

/** CCE gap: the largest gain any player gets by ignoring the recommendation for a fixed action (0 at a CCE). */
export const cceGap = (tensor: PayoffTensor, dist: ArrayLike<number>): number => {
  let m = 0
  for (let p = 0; p < tensor.shape.length; p++) m = maxOf(cceDeviationGains(tensor, dist, p), m)
  return m
}

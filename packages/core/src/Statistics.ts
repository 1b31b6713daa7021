/**
 * Summary statistics of measured samples, shared by every benchmark and evaluation: the median and quantiles of
 * timings, the mean with a normal-approximation confidence interval of payoffs, and the Wilson score interval of a
 * success (win) rate.
 *
 * - `quantile` follows NumPy's default (`numpy.quantile(..., method="linear")`, Hyndman & Fan 1996 definition 7), so a
 *   figure printed beside a NumPy baseline is computed the same way on both sides; `median` is `quantile(xs, 0.5)`
 *   (the mean of the middle two for an even count).
 * - `wilsonInterval` is Wilson's score interval (E. B. Wilson, "Probable inference, the law of succession, and
 *   statistical inference", JASA 22(158), 1927): well behaved at 0 and n successes, where the normal interval
 *   collapses to a point.
 * - `meanInterval` is the mean ± z·s/√n with the sample standard deviation (n − 1).
 *
 * Inputs are plain arrays or typed arrays and are never modified. An empty sample, a NaN / ±Infinity value, a
 * probability outside [0, 1] or counts that are not integers with 0 ≤ successes ≤ trials throw
 * {@link InvalidOptionError} naming the value: a summary that silently printed NaN would hide the bad measurement.
 * @since 0.1.0
 */
import { InvalidOptionError } from "./Errors.js"

/** The two-sided 95% standard normal quantile (z for 1 − 0.05/2). */
export const z95 = 1.959963984540054

const sortedCopy = (where: string, xs: ArrayLike<number>): Float64Array => {
  if (xs.length === 0) throw new InvalidOptionError({ option: where, value: [], reason: "needs at least one value" })
  const s = Float64Array.from(xs)
  for (let i = 0; i < s.length; i++) {
    if (!Number.isFinite(s[i])) {
      throw new InvalidOptionError({ option: `${where}[${i}]`, value: s[i], reason: "must be a finite number" })
    }
  }
  return s.sort()
}

/**
 * The `p`-quantile of `xs` (p in [0, 1]) by linear interpolation between order statistics, as NumPy's default:
 * with `s` sorted, `h = (n − 1)·p`, the result is `s[⌊h⌋] + (h − ⌊h⌋)·(s[⌊h⌋+1] − s[⌊h⌋])`.
 * @throws InvalidOptionError for an empty sample, a non-finite value, or `p` outside [0, 1].
 */
export const quantile = (xs: ArrayLike<number>, p: number): number => {
  if (!(p >= 0 && p <= 1)) throw new InvalidOptionError({ option: "quantile p", value: p, reason: "must be in [0, 1]" })
  const s = sortedCopy("quantile sample", xs)
  const h = (s.length - 1) * p
  const lo = Math.floor(h)
  const hi = Math.min(lo + 1, s.length - 1)
  return s[lo]! + (h - lo) * (s[hi]! - s[lo]!)
}

/**
 * The median of `xs`: the middle value, or the mean of the middle two for an even count.
 * @throws InvalidOptionError for an empty sample or a non-finite value.
 */
export const median = (xs: ArrayLike<number>): number => quantile(xs, 0.5)

/** A point estimate with a two-sided confidence interval `[low, high]` (same units as the samples). */
export interface Interval {
  readonly estimate: number
  readonly low: number
  readonly high: number
}

/**
 * The mean of `xs` with the normal-approximation interval `mean ± z·s/√n` (`s` the sample standard deviation with
 * n − 1; for n = 1 the interval is the point). `z` defaults to {@link z95} (95%).
 * @throws InvalidOptionError for an empty sample, a non-finite value, or `z` not positive and finite.
 */
export const meanInterval = (xs: ArrayLike<number>, z: number = z95): Interval => {
  if (!(z > 0 && Number.isFinite(z))) throw new InvalidOptionError({ option: "meanInterval z", value: z, reason: "must be positive and finite" })
  const s = sortedCopy("meanInterval sample", xs)
  const n = s.length
  let sum = 0
  for (let i = 0; i < n; i++) sum += s[i]!
  const mean = sum / n
  if (n === 1) return { estimate: mean, low: mean, high: mean }
  let ss = 0
  for (let i = 0; i < n; i++) ss += (s[i]! - mean) ** 2
  const half = z * Math.sqrt(ss / (n - 1) / n)
  return { estimate: mean, low: mean - half, high: mean + half }
}

/**
 * The Wilson score interval of a proportion: `successes` out of `trials` (integers, 0 ≤ successes ≤ trials,
 * trials ≥ 1), at `z` (default {@link z95}). The estimate is the observed rate `successes / trials`; the bounds
 * are in [0, 1].
 * @throws InvalidOptionError for counts that are not such integers, or `z` not positive and finite.
 */
export const wilsonInterval = (successes: number, trials: number, z: number = z95): Interval => {
  if (!(Number.isInteger(trials) && trials >= 1)) {
    throw new InvalidOptionError({ option: "wilsonInterval trials", value: trials, reason: "must be an integer ≥ 1" })
  }
  if (!(Number.isInteger(successes) && successes >= 0 && successes <= trials)) {
    throw new InvalidOptionError({ option: "wilsonInterval successes", value: successes, reason: `must be an integer in [0, ${trials}]` })
  }
  if (!(z > 0 && Number.isFinite(z))) throw new InvalidOptionError({ option: "wilsonInterval z", value: z, reason: "must be positive and finite" })
  const p = successes / trials
  const z2 = z * z
  const denom = 1 + z2 / trials
  const centre = (p + z2 / (2 * trials)) / denom
  const half = (z / denom) * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials))
  return { estimate: p, low: Math.max(0, centre - half), high: Math.min(1, centre + half) }
}

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
 * - `meanInterval` is the mean ± z·s/√n with the sample standard deviation (n − 1); `tInterval` is the same with
 *   Student's t quantile for n − 1 degrees of freedom (`studentTQuantile`), the interval to use over a few seeds
 *   (with 3 seeds the 95% half-width is 4.30·s/√n, not 1.96·s/√n).
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

/** ln Γ(x) for x > 0 (Lanczos approximation, g = 7, 9 terms; relative error < 1e-14 on the range used here). */
const logGamma = (x: number): number => {
  const c = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7]
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x)
  const y = x - 1
  let a = c[0]!
  const t = y + 7.5
  for (let i = 1; i < 9; i++) a += c[i]! / (y + i)
  return 0.5 * Math.log(2 * Math.PI) + (y + 0.5) * Math.log(t) - t + Math.log(a)
}

/** The continued fraction of the regularized incomplete beta function (modified Lentz; Numerical Recipes §6.4). */
const betaFraction = (a: number, b: number, x: number): number => {
  const tiny = 1e-300
  let c = 1
  let d = 1 - ((a + b) * x) / (a + 1)
  if (Math.abs(d) < tiny) d = tiny
  d = 1 / d
  let h = d
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2))
    d = 1 + aa * d
    if (Math.abs(d) < tiny) d = tiny
    c = 1 + aa / c
    if (Math.abs(c) < tiny) c = tiny
    d = 1 / d
    h *= d * c
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1))
    d = 1 + aa * d
    if (Math.abs(d) < tiny) d = tiny
    c = 1 + aa / c
    if (Math.abs(c) < tiny) c = tiny
    d = 1 / d
    const del = d * c
    h *= del
    if (Math.abs(del - 1) < 1e-15) break
  }
  return h
}

/** The regularized incomplete beta function I_x(a, b), x in [0, 1]. */
const incompleteBeta = (a: number, b: number, x: number): number => {
  if (x <= 0) return 0
  if (x >= 1) return 1
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x))
  return x < (a + 1) / (a + b + 2) ? (front * betaFraction(a, b, x)) / a : 1 - (front * betaFraction(b, a, 1 - x)) / b
}

/** Student's t cumulative distribution function with `df` degrees of freedom. */
const studentTCdf = (t: number, df: number): number => {
  const tail = 0.5 * incompleteBeta(df / 2, 0.5, df / (df + t * t))
  return t >= 0 ? 1 - tail : tail
}

/**
 * The `p`-quantile of Student's t distribution with `df` degrees of freedom (p in (0, 1), df > 0, not necessarily an
 * integer): the `t` with `P(T ≤ t) = p`, found by bisection on the CDF `1 − ½·I_{df/(df+t²)}(df/2, ½)` (the
 * regularized incomplete beta function, Numerical Recipes §6.4) to ~1e-12. E.g. `studentTQuantile(0.975, 2)` =
 * 4.3027, `(0.975, 10)` = 2.2281; it tends to the normal quantile as df grows.
 * @throws InvalidOptionError for p outside (0, 1) or df not positive and finite.
 */
export const studentTQuantile = (p: number, df: number): number => {
  if (!(p > 0 && p < 1)) throw new InvalidOptionError({ option: "studentTQuantile p", value: p, reason: "must be in (0, 1)" })
  if (!(df > 0 && Number.isFinite(df))) throw new InvalidOptionError({ option: "studentTQuantile df", value: df, reason: "must be positive and finite" })
  if (p === 0.5) return 0
  if (p < 0.5) return -studentTQuantile(1 - p, df)
  let lo = 0
  let hi = 1
  while (studentTCdf(hi, df) < p) hi *= 2
  for (let i = 0; i < 200 && hi - lo > 1e-12 * Math.max(1, hi); i++) {
    const mid = 0.5 * (lo + hi)
    if (studentTCdf(mid, df) < p) lo = mid
    else hi = mid
  }
  return 0.5 * (lo + hi)
}

/**
 * The mean of `xs` with Student's t interval `mean ± t·s/√n`, `t` the `(1 + level)/2` quantile with n − 1 degrees of
 * freedom (`level` in (0, 1), default 0.95): the interval of a mean over a few seeds. For n = 1 the interval is the
 * point (no spread can be estimated).
 * @throws InvalidOptionError for an empty sample, a non-finite value, or `level` outside (0, 1).
 */
export const tInterval = (xs: ArrayLike<number>, level: number = 0.95): Interval => {
  if (!(level > 0 && level < 1)) throw new InvalidOptionError({ option: "tInterval level", value: level, reason: "must be in (0, 1)" })
  if (xs.length <= 1) return meanInterval(xs)
  return meanInterval(xs, studentTQuantile((1 + level) / 2, xs.length - 1))
}

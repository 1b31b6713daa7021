/**
 * Evaluation of reward models: pairwise accuracy, Kendall's tau, and calibration (Brier score and expected
 * calibration error) of predicted probabilities.
 *
 * **Details**
 * - `kendallTau(a, b)` is tau-b (ties in either ranking count as neither concordant nor discordant and shrink the
 *   denominator), O(n²).
 * - `ece(p, y, bins)` bins predictions into `bins` equal-width bins on [0, 1] and averages |accuracy − confidence|
 *   weighted by bin size (Guo et al. 2017); `brier(p, y)` is the mean squared error of probabilities.
 * - For a Bradley-Terry model the probability that the chosen item wins is `σ(r_c − r_r)`: {@link pairProbabilities}.
 * @see Guo et al., "On Calibration of Modern Neural Networks", ICML 2017
 * @since 0.1.0
 */

/**
 * Fraction of pairs where the chosen item scores strictly higher: `mean_i [chosen_i > rejected_i]`, in `[0, 1]`
 * (a tie counts as wrong). `chosen`, `rejected`: `[n]` scores of the two items of each pair; NaN for `n = 0`.
 */
export const pairwiseAccuracy = (chosen: ArrayLike<number>, rejected: ArrayLike<number>): number => {
  let ok = 0
  for (let i = 0; i < chosen.length; i++) if (chosen[i]! > rejected[i]!) ok++
  return ok / chosen.length
}

/**
 * The Bradley-Terry probability that the chosen item wins, `σ(r_c − r_r)` per pair (Bradley & Terry 1952; the reward
 * model of Ouyang et al. 2022, arXiv:2203.02155), `[n]` in `(0, 1)`.
 */
export const pairProbabilities = (chosen: ArrayLike<number>, rejected: ArrayLike<number>): Float64Array => {
  const p = new Float64Array(chosen.length)
  for (let i = 0; i < p.length; i++) p[i] = 1 / (1 + Math.exp(-(chosen[i]! - rejected[i]!)))
  return p
}

/**
 * Kendall's tau-b between two score lists `a`, `b` of equal length `n`, in `[−1, 1]` (Kendall 1945): pairs tied in
 * both are skipped, ties in one shrink the denominator; 0 when either list is constant. O(n²).
 */
export const kendallTau = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  let concordant = 0, discordant = 0, tiesA = 0, tiesB = 0
  for (let i = 0; i < a.length; i++) {
    for (let j = i + 1; j < a.length; j++) {
      const da = Math.sign(a[i]! - a[j]!), db = Math.sign(b[i]! - b[j]!)
      if (da === 0 && db === 0) continue
      if (da === 0) tiesA++
      else if (db === 0) tiesB++
      else if (da === db) concordant++
      else discordant++
    }
  }
  const denom = Math.sqrt((concordant + discordant + tiesA) * (concordant + discordant + tiesB))
  return denom === 0 ? 0 : (concordant - discordant) / denom
}

/**
 * Brier score (Brier 1950): `mean_i (p_i − y_i)²` for probabilities `p` `[n]` in `[0, 1]` and outcomes `y` `[n]`
 * in `{0, 1}` (or soft labels); 0 is perfect, 0.25 is a constant 0.5.
 */
export const brier = (p: ArrayLike<number>, y: ArrayLike<number>): number => {
  let s = 0
  for (let i = 0; i < p.length; i++) s += (p[i]! - y[i]!) ** 2
  return s / p.length
}

/**
 * Expected calibration error (Guo et al. 2017, arXiv:1706.04599): predictions `p` `[n]` in `[0, 1]` go to `bins`
 * (default 10) equal-width bins; `ECE = Σ_k (|B_k| / n) · |mean_{B_k} y − mean_{B_k} p|`, in `[0, 1]`.
 */
export const ece = (p: ArrayLike<number>, y: ArrayLike<number>, bins = 10): number => {
  const count = new Float64Array(bins), conf = new Float64Array(bins), acc = new Float64Array(bins)
  for (let i = 0; i < p.length; i++) {
    const k = Math.min(bins - 1, Math.floor(p[i]! * bins))
    count[k]!++
    conf[k]! += p[i]!
    acc[k]! += y[i]!
  }
  let e = 0
  for (let k = 0; k < bins; k++) if (count[k]! > 0) e += Math.abs(acc[k]! - conf[k]!) / p.length
  return e
}

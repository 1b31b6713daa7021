/**
 * Pure numeric helpers behind every chart: TensorBoard's debiased EMA smoothing, LTTB and min/max downsampling,
 * and mean ± std / min–max bands over seeds on a shared x grid.
 *
 * *When to use*: turn a run's raw metric column into what a browser can draw quickly (a few thousand points) and
 * what a reader can compare (smoothed curves, a band per configuration).
 *
 * *Gotchas*: smooth on the full-resolution data first, then downsample; smoothing a downsampled series changes
 * the curve with the zoom level.
 * @since 0.0.0
 */

/** A series as parallel columns; `x` is non-decreasing. */
export interface XY {
  readonly x: ReadonlyArray<number>
  readonly y: ReadonlyArray<number>
}

/**
 * Exponential moving average with TensorBoard's debiasing ("classic" smoothing in
 * `tensorboard/webapp/widgets/line_chart_v2/data_transformer.ts`): `last = w * last + (1 - w) * y`, shown as
 * `last / (1 - w^n)` where `n` counts the finite values seen. Non-finite values pass through unchanged and a
 * constant series is returned as is.
 *
 * @example
 * smooth([1, 2], 0.5) // [1, 1.6666…]: (0.25 + 0.5 * 2) / 0.75
 * @category smoothing
 */
export const smooth = (y: ReadonlyArray<number>, weight: number): Array<number> => {
  const w = Math.min(Math.max(weight, 0), 1)
  const out = new Array<number>(y.length)
  if (w === 0 || y.length === 0) {
    for (let i = 0; i < y.length; i++) out[i] = y[i]!
    return out
  }
  let constant = true
  for (let i = 1; i < y.length; i++) if (y[i] !== y[0]) { constant = false; break }
  let last = 0
  let n = 0
  for (let i = 0; i < y.length; i++) {
    const v = y[i]!
    if (constant || !Number.isFinite(v)) {
      out[i] = v
      continue
    }
    last = last * w + (1 - w) * v
    n++
    const debias = w === 1 ? 1 : 1 - Math.pow(w, n)
    out[i] = last / debias
  }
  return out
}

/**
 * Largest-Triangle-Three-Buckets downsampling (S. Steinarsson, *Downsampling Time Series for Visual
 * Representation*, MSc thesis, University of Iceland, 2013, §4.2): keeps the first and last points and, per
 * bucket, the point forming the largest triangle with the previously kept point and the next bucket's mean.
 * The result is a subsequence of the input (same x order) of exactly `threshold` points when the input is longer.
 * @category downsampling
 */
export const lttb = (data: XY, threshold: number): { x: Array<number>; y: Array<number> } => {
  const n = data.x.length
  if (threshold >= n || threshold < 3) {
    if (threshold >= n || n <= 2) return { x: [...data.x], y: [...data.y] }
    return { x: [data.x[0]!, data.x[n - 1]!], y: [data.y[0]!, data.y[n - 1]!] }
  }
  const xs = data.x
  const ys = data.y
  const ox = new Array<number>(threshold)
  const oy = new Array<number>(threshold)
  const every = (n - 2) / (threshold - 2)
  let a = 0
  ox[0] = xs[0]!
  oy[0] = ys[0]!
  for (let i = 0; i < threshold - 2; i++) {
    const avgStart = Math.floor((i + 1) * every) + 1
    const avgEnd = Math.min(Math.floor((i + 2) * every) + 1, n)
    let avgX = 0
    let avgY = 0
    for (let j = avgStart; j < avgEnd; j++) {
      avgX += xs[j]!
      avgY += ys[j]!
    }
    const len = avgEnd - avgStart
    avgX /= len
    avgY /= len
    const start = Math.floor(i * every) + 1
    const end = Math.floor((i + 1) * every) + 1
    const ax = xs[a]!
    const ay = ys[a]!
    let maxArea = -1
    let next = start
    for (let j = start; j < end; j++) {
      const area = Math.abs((ax - avgX) * (ys[j]! - ay) - (ax - xs[j]!) * (avgY - ay))
      if (area > maxArea) {
        maxArea = area
        next = j
      }
    }
    ox[i + 1] = xs[next]!
    oy[i + 1] = ys[next]!
    a = next
  }
  ox[threshold - 1] = xs[n - 1]!
  oy[threshold - 1] = ys[n - 1]!
  return { x: ox, y: oy }
}

/**
 * Min/max per bucket (the M4 family of Jugel et al., *M4: A Visualization-Oriented Time Series Data Aggregation*,
 * VLDB 2014, reduced to two points per bucket): for each of `buckets` equal-count buckets, keep its minimum and
 * maximum in x order, so spikes survive. Output length ≤ 2 × buckets.
 * @category downsampling
 */
export const minMax = (data: XY, buckets: number): { x: Array<number>; y: Array<number> } => {
  const n = data.x.length
  if (n <= 2 * buckets) return { x: [...data.x], y: [...data.y] }
  const ox: Array<number> = []
  const oy: Array<number> = []
  for (let b = 0; b < buckets; b++) {
    const start = Math.floor((b * n) / buckets)
    const end = Math.floor(((b + 1) * n) / buckets)
    let lo = start
    let hi = start
    for (let j = start; j < end; j++) {
      if (data.y[j]! < data.y[lo]!) lo = j
      if (data.y[j]! > data.y[hi]!) hi = j
    }
    const first = Math.min(lo, hi)
    const second = Math.max(lo, hi)
    ox.push(data.x[first]!)
    oy.push(data.y[first]!)
    if (second !== first) {
      ox.push(data.x[second]!)
      oy.push(data.y[second]!)
    }
  }
  return { x: ox, y: oy }
}

/** Linear interpolation of a series (non-decreasing x) at `at`; clamps outside the range. */
export const interpolate = (data: XY, at: number): number => {
  const xs = data.x
  const n = xs.length
  if (n === 0) return NaN
  if (at <= xs[0]!) return data.y[0]!
  if (at >= xs[n - 1]!) return data.y[n - 1]!
  let lo = 0
  let hi = n - 1
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1
    if (xs[mid]! <= at) lo = mid
    else hi = mid
  }
  const x0 = xs[lo]!
  const x1 = xs[hi]!
  if (x1 === x0) return data.y[hi]!
  return data.y[lo]! + ((data.y[hi]! - data.y[lo]!) * (at - x0)) / (x1 - x0)
}

/** A band over several runs on a common x grid. */
export interface Band {
  readonly x: Array<number>
  readonly mean: Array<number>
  readonly std: Array<number>
  readonly min: Array<number>
  readonly max: Array<number>
  readonly n: number
}

/**
 * Mean, (population) standard deviation, min and max over runs, on `points` evenly spaced x values spanning the
 * range every run covers (from the largest first x to the smallest last x), each run linearly interpolated.
 * Returns `undefined` when the runs share no range.
 * @category bands
 */
export const band = (runs: ReadonlyArray<XY>, points: number): Band | undefined => {
  const live = runs.filter((r) => r.x.length > 0)
  if (live.length === 0) return undefined
  let from = -Infinity
  let to = Infinity
  for (const r of live) {
    from = Math.max(from, r.x[0]!)
    to = Math.min(to, r.x[r.x.length - 1]!)
  }
  if (!(to >= from)) return undefined
  const m = to === from ? 1 : Math.max(2, points)
  const x: Array<number> = []
  const mean: Array<number> = []
  const std: Array<number> = []
  const min: Array<number> = []
  const max: Array<number> = []
  for (let i = 0; i < m; i++) {
    const at = m === 1 ? from : from + ((to - from) * i) / (m - 1)
    let sum = 0
    let sq = 0
    let lo = Infinity
    let hi = -Infinity
    for (const r of live) {
      const v = interpolate(r, at)
      sum += v
      sq += v * v
      lo = Math.min(lo, v)
      hi = Math.max(hi, v)
    }
    const mu = sum / live.length
    x.push(at)
    mean.push(mu)
    std.push(Math.sqrt(Math.max(0, sq / live.length - mu * mu)))
    min.push(lo)
    max.push(hi)
  }
  return { x, mean, std, min, max, n: live.length }
}

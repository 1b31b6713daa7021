// Pure helpers of the dashboard's views (no DOM), imported by app.js and by the unit tests (test/Views.test.ts):
// grouping runs by environment for the chart grid, and the metrics each group's grid shows.

/** The environment (or game) of a runs-table row; "" when its config names none. */
export function envOf(run) {
  return typeof run.env === "string" ? run.env : ""
}

/**
 * Runs grouped by environment/game, so that runs of unlike environments never share axes: one group per distinct
 * `env` (the runs table's env column: config `env`, else `game`), in order of env name ("" last, shown as
 * "(no env)"), each group's run names in the order given. `only` (a Set of names) restricts the runs considered.
 */
export function groupByEnv(runs, only) {
  const groups = new Map()
  for (const r of runs) {
    if (only !== undefined && !only.has(r.name)) continue
    const env = envOf(r)
    if (!groups.has(env)) groups.set(env, [])
    groups.get(env).push(r.name)
  }
  return [...groups.keys()]
    .sort((a, b) => (a === "" ? 1 : b === "" ? -1 : a.localeCompare(b)))
    .map((env) => ({ env, label: env === "" ? "(no env)" : env, runs: groups.get(env) }))
}

/** Metrics drawn first in a grid (the standard names), in this order; the rest follow alphabetically. */
export const metricOrder = [
  "episodeReturn", "episodeLength", "successRate", "meanReturn", "nashConv", "epoch.successRate", "policyLoss", "valueLoss", "entropy",
  "approxKl", "clipFraction", "explainedVariance", "learningRate", "system.stepsPerSecond", "system.cpuPercent", "system.rssMB", "system.heapUsedMB"
]

/**
 * The metrics a grid of small charts shows for some runs: the union of their metrics, standard names first
 * ({@link metricOrder}), then alphabetically; `choose` (a string of comma- or space-separated parts, "" = all)
 * keeps the metrics containing any part (case-insensitive).
 */
export function gridMetrics(runs, choose) {
  const all = new Set()
  for (const r of runs) for (const m of r.metrics) all.add(m)
  const ordered = metricOrder.filter((m) => all.has(m)).concat([...all].filter((m) => !metricOrder.includes(m)).sort())
  const parts = String(choose || "").toLowerCase().split(/[\s,]+/).filter((p) => p !== "")
  return parts.length === 0 ? ordered : ordered.filter((m) => parts.some((p) => m.toLowerCase().includes(p)))
}

/**
 * The environment the single large chart shows: `current` when it is one of the groups, else the group with the
 * most runs (the first such in group order); "" when there are no groups.
 */
export function chartEnv(groups, current) {
  if (groups.some((g) => g.env === current)) return current
  let best
  for (const g of groups) if (best === undefined || g.runs.length > best.runs.length) best = g
  return best === undefined ? "" : best.env
}

// ---------- filter and sort by any config value or final metric ----------

/** Runs-table fields a filter or sort key may name directly. */
const summaryKeys = new Set(["name", "env", "algo", "seed", "steps", "episodes", "bestReturn", "lastReturn", "meanReturnLast100", "evalMeanReturn", "wallSeconds", "status", "evalSuccess", "stepsPerSecond"])

/**
 * The value of `key` for a runs-table row: a table field (`steps`, `evalSuccess`, …), `config.<dotted key>`,
 * `final.<metric>` (the metric's last value), or a bare key looked up in the config, then the final metrics.
 * `undefined` when the run has none.
 */
export function runValue(run, key) {
  if (summaryKeys.has(key)) return run[key] == null ? undefined : run[key]
  const config = run.config || {}
  const finals = run.finals || {}
  if (key.startsWith("config.")) return config[key.slice(7)]
  if (key.startsWith("final.")) return finals[key.slice(6)]
  if (Object.prototype.hasOwnProperty.call(config, key)) return config[key]
  return finals[key]
}

const termPattern = /^([A-Za-z_][\w.-]*)(>=|<=|!=|=|>|<|~)(.*)$/

/**
 * Parse a runs filter: whitespace-separated terms, all of which must hold. `key OP value` (no spaces; OP one of
 * `=`, `!=`, `>`, `>=`, `<`, `<=`, `~` for "contains") compares {@link runValue}`(run, key)`: as numbers when both
 * sides are numbers, else as case-insensitive text; a run without the key fails the term. Any other term is a
 * case-insensitive substring of the name, env, algo, status or seed.
 * @example parseFilter("ppo.learningRate>=0.001 final.episodeReturn>400 cart")
 */
export function parseFilter(query) {
  return String(query || "").trim().split(/\s+/).filter((t) => t !== "").map((t) => {
    const m = termPattern.exec(t)
    return m === null ? { text: t.toLowerCase() } : { key: m[1], op: m[2], value: m[3] }
  })
}

function compare(v, op, want) {
  const n = Number(want)
  const numeric = typeof v === "number" && want.trim() !== "" && Number.isFinite(n)
  const a = numeric ? v : String(v).toLowerCase()
  const b = numeric ? n : want.toLowerCase()
  switch (op) {
    case "=": return a === b
    case "!=": return a !== b
    case ">": return a > b
    case ">=": return a >= b
    case "<": return a < b
    case "<=": return a <= b
    default: return String(v).toLowerCase().includes(want.toLowerCase())
  }
}

/** Whether a runs-table row passes a filter (see {@link parseFilter}). */
export function matchesFilter(run, query) {
  return parseFilter(query).every((t) => {
    if (t.text !== undefined) return [run.name, run.env, run.algo, run.status, String(run.seed)].some((s) => String(s).toLowerCase().includes(t.text))
    const v = runValue(run, t.key)
    return v !== undefined && v !== null && compare(v, t.op, t.value)
  })
}

/**
 * Order two values for sorting: missing values last (whatever the direction), numbers numerically, the rest as
 * text; `dir` is 1 (ascending) or -1.
 */
export function compareValues(x, y, dir) {
  const missX = x === undefined || x === null
  const missY = y === undefined || y === null
  if (missX || missY) return missX && missY ? 0 : missX ? 1 : -1
  return (typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y))) * dir
}

// ---------- parallel coordinates ----------

/**
 * The geometry of a parallel-coordinates view (as W&B's and TensorBoard's HParams show): one vertical axis per
 * hyper-parameter in `keys` (values from {@link runValue}, so `ppo.learningRate` or `config.ppo.learningRate`)
 * on which the drawn runs do not all agree (at most `maxKeys`), then one for `metric`; one polyline per run that has the metric. A numeric axis spans its values' [min, max]
 * (a single value sits in the middle); a text axis spaces its distinct values evenly in sorted order. `ys` are in
 * [0, 1] from the bottom (the smallest value, the first category), null where the run lacks the key; `t` is the
 * run's place on the metric axis (colour). Runs without the metric are listed in `missing`.
 */
export function parallelCoords(runs, keys, metric, maxKeys = 12) {
  const withMetric = runs.filter((r) => typeof runValue(r, metric) === "number")
  // a key on which the runs drawn all agree (or all lack) tells nothing: no axis
  const telling = keys.filter((k) => new Set(withMetric.map((r) => JSON.stringify(runValue(r, k)) ?? "-")).size > 1).slice(0, maxKeys)
  const axes = telling.concat([metric]).map((key) => {
    const vals = withMetric.map((r) => runValue(r, key)).filter((v) => v !== undefined && v !== null)
    if (vals.length > 0 && vals.every((v) => typeof v === "number")) {
      return { key, kind: "number", min: Math.min(...vals), max: Math.max(...vals) }
    }
    return { key, kind: "category", categories: [...new Set(vals.map(String))].sort() }
  })
  const place = (axis, v) => {
    if (v === undefined || v === null) return null
    if (axis.kind === "number") return axis.max === axis.min ? 0.5 : (v - axis.min) / (axis.max - axis.min)
    const i = axis.categories.indexOf(String(v))
    return axis.categories.length === 1 ? 0.5 : i / (axis.categories.length - 1)
  }
  const lines = withMetric.map((r) => {
    const ys = axes.map((a) => place(a, runValue(r, a.key)))
    return { run: r.name, value: runValue(r, metric), ys, t: ys[ys.length - 1] }
  })
  return { axes, lines, missing: runs.filter((r) => !withMetric.includes(r)).map((r) => r.name) }
}

const escapeXml = (s) => String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")

/** A short label of a number for axes. */
export function shortNumber(v) {
  if (typeof v !== "number" || !Number.isFinite(v)) return String(v)
  const a = Math.abs(v)
  if (a !== 0 && (a >= 1e5 || a < 1e-3)) return v.toExponential(2)
  return Number.isInteger(v) ? String(v) : v.toPrecision(3)
}

/** Blue (t = 0) to orange (t = 1) through grey, the colour of a line by its metric. */
export function ramp(t) {
  const lo = [31, 119, 180]
  const hi = [255, 127, 14]
  const mix = (i) => Math.round(lo[i] + (hi[i] - lo[i]) * Math.max(0, Math.min(1, t)))
  return "rgb(" + mix(0) + "," + mix(1) + "," + mix(2) + ")"
}

/**
 * The parallel-coordinates view as a standalone SVG document (plain SVG, no dependency): axes with their key and
 * end labels, one `<path data-run>` per run coloured by its metric (blue: low, orange: high), gaps where a run lacks
 * a key.
 */
export function parallelSvg(pc, width, height) {
  const padX = 70
  const top = 34
  const bottom = 30
  const n = pc.axes.length
  const xOf = (i) => (n === 1 ? width / 2 : padX + ((width - 2 * padX) * i) / (n - 1))
  const yOf = (y) => top + (1 - y) * (height - top - bottom)
  const out = ['<svg xmlns="http://www.w3.org/2000/svg" width="' + width + '" height="' + height + '" viewBox="0 0 ' + width + " " + height + '" font-family="sans-serif" font-size="11">']
  out.push('<rect width="100%" height="100%" fill="#fff"/>')
  for (const line of pc.lines) {
    let d = ""
    let pen = false
    line.ys.forEach((y, i) => {
      if (y === null) {
        pen = false
        return
      }
      d += (pen ? "L" : "M") + xOf(i).toFixed(1) + " " + yOf(y).toFixed(1)
      pen = true
    })
    out.push('<path class="pc-line" data-run="' + escapeXml(line.run) + '" d="' + d + '" fill="none" stroke="' + ramp(line.t) + '" stroke-width="2" opacity="0.85"><title>' + escapeXml(line.run + ": " + shortNumber(line.value)) + "</title></path>")
  }
  pc.axes.forEach((a, i) => {
    const x = xOf(i).toFixed(1)
    const metric = i === n - 1
    out.push('<g class="pc-axis" data-key="' + escapeXml(a.key) + '">')
    out.push('<line x1="' + x + '" y1="' + yOf(1) + '" x2="' + x + '" y2="' + yOf(0) + '" stroke="#444"/>')
    out.push('<text x="' + x + '" y="' + (top - 18) + '" text-anchor="middle" font-weight="' + (metric ? "bold" : "normal") + '">' + escapeXml(a.key) + "</text>")
    const ticks = a.kind === "number" ? (a.max === a.min ? [[0.5, a.min]] : [[0, a.min], [1, a.max]]) : a.categories.map((c, j) => [a.categories.length === 1 ? 0.5 : j / (a.categories.length - 1), c])
    for (const [y, label] of ticks) out.push('<text x="' + (Number(x) + 4) + '" y="' + (yOf(y) + 4).toFixed(1) + '" fill="#555">' + escapeXml(typeof label === "number" ? shortNumber(label) : label) + "</text>")
    out.push("</g>")
  })
  out.push("</svg>")
  return out.join("")
}

// ---------- export ----------

/** `count` evenly spaced values from `lo` to `hi` (one value when they are equal). */
function ticks(lo, hi, count) {
  if (hi === lo) return [lo]
  return Array.from({ length: count }, (_, i) => lo + ((hi - lo) * i) / (count - 1))
}

/**
 * A chart (a SeriesResult of /api/series) as a standalone SVG document, for export: title, axes with 5 evenly
 * spaced ticks, a grid, one `<path class="series" data-run>` per run (broken where a value is missing or, on a
 * log scale, not positive) and a legend. `opts`: `width`, `height` (px, default 640 × 360), `title` (default the
 * metric), `logY` (log10 y axis), `color(i)` (stroke of series i, default "#333").
 */
export function chartSvg(result, opts = {}) {
  const width = opts.width || 640
  const height = opts.height || 360
  const color = opts.color || (() => "#333")
  const logY = !!opts.logY
  const ty = (v) => (logY ? Math.log10(v) : v)
  const ok = (v) => typeof v === "number" && Number.isFinite(v) && (!logY || v > 0)
  const series = result.series
  const legendRows = Math.ceil(series.length / 3)
  const left = 64
  const right = 16
  const top = 30
  const bottom = 42 + 16 * legendRows
  let x0 = Infinity
  let x1 = -Infinity
  let y0 = Infinity
  let y1 = -Infinity
  for (const s of series) {
    s.x.forEach((x, i) => {
      if (!ok(s.y[i]) || !Number.isFinite(x)) return
      x0 = Math.min(x0, x)
      x1 = Math.max(x1, x)
      y0 = Math.min(y0, ty(s.y[i]))
      y1 = Math.max(y1, ty(s.y[i]))
    })
  }
  if (x0 > x1) {
    x0 = 0
    x1 = 1
    y0 = 0
    y1 = 1
  }
  const px = (x) => left + (x1 === x0 ? 0.5 : (x - x0) / (x1 - x0)) * (width - left - right)
  const py = (y) => top + (1 - (y1 === y0 ? 0.5 : (y - y0) / (y1 - y0))) * (height - top - bottom)
  const xName = result.xAxis === "wall" ? "wall seconds" : opts.xLabel || "step"
  const out = ['<svg xmlns="http://www.w3.org/2000/svg" width="' + width + '" height="' + height + '" viewBox="0 0 ' + width + " " + height + '" font-family="sans-serif" font-size="11">']
  out.push('<rect width="100%" height="100%" fill="#fff"/>')
  out.push('<text x="' + width / 2 + '" y="18" text-anchor="middle" font-size="13" font-weight="bold">' + escapeXml(opts.title || result.metric) + "</text>")
  for (const t of ticks(x0, x1, 5)) {
    const x = px(t).toFixed(1)
    out.push('<line x1="' + x + '" y1="' + top + '" x2="' + x + '" y2="' + (height - bottom) + '" stroke="#eee"/>')
    out.push('<text x="' + x + '" y="' + (height - bottom + 14) + '" text-anchor="middle" fill="#444">' + escapeXml(shortNumber(t)) + "</text>")
  }
  for (const t of ticks(y0, y1, 5)) {
    const y = py(t).toFixed(1)
    out.push('<line x1="' + left + '" y1="' + y + '" x2="' + (width - right) + '" y2="' + y + '" stroke="#eee"/>')
    out.push('<text x="' + (left - 4) + '" y="' + (Number(y) + 4) + '" text-anchor="end" fill="#444">' + escapeXml(shortNumber(logY ? Math.pow(10, t) : t)) + "</text>")
  }
  out.push('<rect x="' + left + '" y="' + top + '" width="' + (width - left - right) + '" height="' + (height - top - bottom) + '" fill="none" stroke="#888"/>')
  out.push('<text x="' + (left + (width - left - right) / 2) + '" y="' + (height - bottom + 28) + '" text-anchor="middle" fill="#444">' + escapeXml(xName) + "</text>")
  series.forEach((s, i) => {
    let d = ""
    let pen = false
    s.x.forEach((x, j) => {
      if (!ok(s.y[j]) || !Number.isFinite(x)) {
        pen = false
        return
      }
      d += (pen ? "L" : "M") + px(x).toFixed(1) + " " + py(ty(s.y[j])).toFixed(1)
      pen = true
    })
    out.push('<path class="series" data-run="' + escapeXml(s.run) + '" d="' + d + '" fill="none" stroke="' + color(i) + '" stroke-width="1.5"/>')
    const lx = left + (i % 3) * ((width - left - right) / 3)
    const ly = height - 16 * legendRows + 16 * Math.floor(i / 3) - 4
    out.push('<rect x="' + lx + '" y="' + (ly - 9) + '" width="10" height="10" fill="' + color(i) + '"/><text x="' + (lx + 14) + '" y="' + ly + '">' + escapeXml(s.run) + "</text>")
  })
  out.push("</svg>")
  return out.join("")
}

/** A file name for an exported chart: `<env>-<metric>.<ext>` with characters other than letters, digits, `.`, `_`, `-` as `_`. */
export function exportName(env, metric, ext) {
  return [env, metric].filter((s) => s !== undefined && s !== "").join("-").replace(/[^A-Za-z0-9._-]/g, "_") + "." + ext
}

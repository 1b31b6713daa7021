/* global uPlot */
// Chart helpers shared by the live dashboard (app.js) and the static report: a classic script (no build step, no
// modules) that defines globalThis.AutodidactCharts. It turns a SeriesResult from /api/series into a uPlot chart:
// curves per run, or mean lines with a shaded band per group of seeds; log scales for NashConv.
;(function (root) {
  "use strict"

  const palette = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]

  function color(i) {
    return palette[i % palette.length]
  }

  function fmt(v) {
    if (v == null || !Number.isFinite(v)) return "–"
    const a = Math.abs(v)
    if (a !== 0 && (a >= 1e5 || a < 1e-3)) return v.toExponential(2)
    return a >= 100 ? v.toFixed(0) : v.toFixed(3)
  }

  // The x axis' name: opts.xLabel (e.g. "iteration" for NashConv), else "wall seconds" or "step".
  function xLabel(result, opts) {
    if (opts && opts.xLabel) return opts.xLabel
    return result.xAxis === "wall" ? "wall seconds" : "step"
  }

  // Remove the band edges ("<group> hi" / "<group> lo") from the legend; the series stay, so the fill is drawn.
  function hideBandEdges(u) {
    const rows = u.root.querySelectorAll(".u-legend .u-series")
    u.series.forEach(function (s, i) {
      if (s.bandEdge && rows[i]) rows[i].remove()
    })
  }

  function positive(ys) {
    return ys.map(function (v) {
      return v != null && v > 0 ? v : null
    })
  }

  // Turn a SeriesResult into uPlot's aligned data, series options and bands.
  // mode: "runs" (one curve per run) or "bands" (mean ± std or min/max per group); spread: "std" | "minmax".
  function build(result, options) {
    const mode = options.mode || "runs"
    const log = !!options.logY
    const tables = []
    const series = [{ label: xLabel(result, options) }]
    const bands = []
    if (mode === "bands" && result.bands.length > 0) {
      result.bands.forEach(function (b, i) {
        const hi = b.mean.map(function (m, j) {
          return options.spread === "minmax" ? b.max[j] : m + b.std[j]
        })
        const lo = b.mean.map(function (m, j) {
          return options.spread === "minmax" ? b.min[j] : m - b.std[j]
        })
        tables.push([b.x, log ? positive(b.mean) : b.mean, log ? positive(hi) : hi, log ? positive(lo) : lo])
        const c = color(i)
        const base = series.length
        series.push({ label: b.label + " (n=" + b.n + ")", stroke: c, width: 2, spanGaps: true, value: function (_u, v) { return fmt(v) } })
        // the band's edges: drawn (uPlot fills between them) but kept out of the legend, see hideBandEdges
        series.push({ label: b.label + " hi", stroke: c + "55", width: 0, spanGaps: true, points: { show: false }, bandEdge: true, value: function (_u, v) { return fmt(v) } })
        series.push({ label: b.label + " lo", stroke: c + "55", width: 0, spanGaps: true, points: { show: false }, bandEdge: true, value: function (_u, v) { return fmt(v) } })
        bands.push({ series: [base + 1, base + 2], fill: c + "33" })
      })
    } else {
      result.series.forEach(function (s, i) {
        tables.push([s.x, log ? positive(s.y) : s.y])
        // a series of one or two points (an evaluation row) has no line to speak of: draw its points
        series.push({ label: s.run, stroke: color(i), fill: undefined, width: 1.5, spanGaps: true, points: { show: s.x.length <= 2, size: 7, fill: color(i) }, value: function (_u, v) { return fmt(v) } })
      })
    }
    let data
    if (tables.length === 0) data = [[], []]
    else if (tables.length === 1) data = tables[0].map(function (c) { return c.slice() })
    else data = uPlot.join(tables)
    return { data: data, series: series, bands: bands }
  }

  function options(result, built, opts) {
    const logY = !!opts.logY
    const logX = !!opts.logX
    return {
      title: opts.title || result.metric,
      width: opts.width || 800,
      height: opts.height || 360,
      scales: {
        x: { time: false, distr: logX ? 3 : 1 },
        y: { distr: logY ? 3 : 1 }
      },
      axes: [
        { label: xLabel(result, opts), stroke: "#444", grid: { stroke: "#eee" } },
        { label: result.metric, stroke: "#444", grid: { stroke: "#eee" }, size: 60 }
      ],
      series: built.series,
      bands: built.bands,
      legend: { live: true },
      cursor: { drag: { x: true, y: false } }
    }
  }

  // Render (or re-render) a chart into `el`; returns the uPlot instance.
  function render(el, result, opts) {
    opts = opts || {}
    const built = build(result, opts)
    if (opts.previous && opts.previous.series.length === built.series.length && opts.previous.__key === opts.key) {
      // new data (a live update, another smoothing): re-range the axes to it, so that values beyond the old range
      // are not clipped; an x range the user zoomed into is kept
      const u = opts.previous
      const oldX = u.data[0]
      const xMin = u.scales.x.min
      const xMax = u.scales.x.max
      const zoomed = oldX.length > 0 && xMin != null && xMax != null && (xMin > oldX[0] || xMax < oldX[oldX.length - 1])
      u.setData(built.data, true)
      if (zoomed) u.setScale("x", { min: xMin, max: xMax })
      return u
    }
    if (opts.previous) opts.previous.destroy()
    el.innerHTML = ""
    const u = new uPlot(options(result, built, opts), built.data, el)
    u.__key = opts.key
    hideBandEdges(u)
    el.setAttribute("data-series", String(result.series.length))
    return u
  }

  root.AutodidactCharts = { render: render, build: build, color: color, fmt: fmt }
})(globalThis)

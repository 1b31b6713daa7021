/* global document, window, fetch, EventSource, URLSearchParams, Blob, setTimeout, clearTimeout, AutodidactCharts */
// The live dashboard: runs table (filter, sort, selection), learning curves (uPlot via charts.js), live updates
// over server-sent events, a NashConv chart for game solvers, per-runner tables of cluster runs, memory & skills panels
// and an episode viewer. Plain ES module, no build step.

import { isTextEpisode, textTurns } from "./episode.js"
import { chartEnv, chartSvg, compareValues, exportName, groupByEnv, gridMetrics, matchesFilter, parallelCoords, parallelSvg, runValue } from "./views.js"

const $ = (id) => document.getElementById(id)

const state = {
  runs: [],
  selected: new Set(),
  touched: false,
  sort: { key: "name", dir: 1 },
  filter: "",
  chart: undefined,
  nashChart: undefined,
  updates: 0,
  episode: undefined,
  step: 0,
  // the grid of small charts: one entry per (environment, metric) card
  grid: [],
  gridStructure: "",
  // an extra runs-table column: any config key (config.<key>) or final metric (final.<metric>)
  extraCol: "",
  configDiff: undefined,
  parallel: undefined,
  // request counters: a response older than the latest request of its view is dropped (selection changes race)
  gridSeq: 0,
  configSeq: 0
}

// Exposed for tests and for poking at from the devtools console.
window.autodidact = state

const numberCols = new Set(["seed", "steps", "episodes", "bestReturn", "lastReturn", "meanReturnLast100", "wallSeconds", "stepsPerSecond", "evalSuccess"])
const tableCols = ["name", "env", "algo", "seed", "steps", "episodes", "bestReturn", "lastReturn", "meanReturnLast100", "wallSeconds", "stepsPerSecond", "evalSuccess", "status"]

async function getJson(url) {
  const res = await fetch(url)
  if (!res.ok) throw new Error(url + ": " + res.status)
  return res.json()
}

function fmtCell(key, v) {
  if (v == null) return ""
  if (key === "wallSeconds") return v.toFixed(1)
  if (key === "stepsPerSecond") return v.toFixed(0)
  if (key === "evalSuccess") return (100 * v).toFixed(0) + "%"
  // the extra column (a config value or final metric): numbers to 4 significant digits, so 0.00025 stays legible
  if (key === state.extraCol) return typeof v === "number" ? String(Number(v.toPrecision(4))) : String(v)
  if (typeof v === "number" && !Number.isInteger(v)) return v.toFixed(2)
  return String(v)
}

function visibleRuns() {
  // terms: plain text, or key OP value over any table field, config key or final metric (views.js parseFilter)
  const rows = state.runs.filter((r) => matchesFilter(r, state.filter))
  const { key, dir } = state.sort
  const value = (r) => (key === "selected" ? Number(state.selected.has(r.name)) : runValue(r, key))
  rows.sort((a, b) => compareValues(value(a), value(b), dir))
  return rows
}

function renderTable() {
  const tbody = $("runs").querySelector("tbody")
  tbody.innerHTML = ""
  const rows = visibleRuns()
  // a run's colour in the charts: its place among the selected runs of its environment
  const colorOf = new Map(groupByEnv(state.runs, state.selected).flatMap((g) => g.runs.map((n, i) => [n, AutodidactCharts.color(i)])))
  for (const r of rows) {
    const tr = document.createElement("tr")
    tr.dataset.run = r.name
    if (r.warnings.length > 0) {
      tr.classList.add("warn")
      tr.title = r.warnings.join("; ")
    }
    const cb = document.createElement("input")
    cb.type = "checkbox"
    cb.checked = state.selected.has(r.name)
    cb.addEventListener("change", () => {
      state.touched = true
      if (cb.checked) state.selected.add(r.name)
      else state.selected.delete(r.name)
      renderTable()
      refreshCharts()
    })
    const td0 = document.createElement("td")
    td0.appendChild(cb)
    tr.appendChild(td0)
    for (const key of state.extraCol === "" ? tableCols : tableCols.concat([state.extraCol])) {
      const td = document.createElement("td")
      const v = key === state.extraCol ? runValue(r, key) : r[key]
      td.className = (key === state.extraCol ? "extra" : key) + (numberCols.has(key) || typeof v === "number" ? " num" : "") + (key === "status" ? " status-" + r.status : "")
      if (key === "name" && colorOf.has(r.name)) {
        const sw = document.createElement("span")
        sw.className = "swatch"
        sw.style.background = colorOf.get(r.name)
        td.appendChild(sw)
      }
      td.appendChild(document.createTextNode(fmtCell(key, v)))
      tr.appendChild(td)
    }
    tbody.appendChild(tr)
  }
  renderExtraHeader()
  for (const th of $("runs").querySelectorAll("th")) {
    th.classList.toggle("sorted-asc", th.dataset.key === state.sort.key && state.sort.dir === 1)
    th.classList.toggle("sorted-desc", th.dataset.key === state.sort.key && state.sort.dir === -1)
  }
  $("run-count").textContent = rows.length + " of " + state.runs.length + " runs, " + state.selected.size + " selected"
  renderWarnings(rows)
}

// The extra column's header (sortable like the others) and the choices of #extra-col: every config key and final metric.
function renderExtraHeader() {
  const head = $("runs").querySelector("thead tr")
  let th = head.querySelector("th.extra")
  if (state.extraCol === "") {
    if (th) th.remove()
  } else {
    if (!th) {
      th = document.createElement("th")
      th.className = "extra"
      th.addEventListener("click", () => sortBy(th.dataset.key))
      head.appendChild(th)
    }
    th.dataset.key = state.extraCol
    th.textContent = state.extraCol
  }
  const sel = $("extra-col")
  const keys = new Set()
  for (const r of state.runs) {
    for (const k of Object.keys(r.config || {})) keys.add("config." + k)
    for (const k of Object.keys(r.finals || {})) keys.add("final." + k)
  }
  const list = [""].concat([...keys].sort())
  if (!setOptions(sel, list.map((k) => ({ value: k, label: k === "" ? "(none)" : k })))) return
  sel.value = state.extraCol
}

function sortBy(key) {
  state.sort = { key, dir: state.sort.key === key ? -state.sort.dir : 1 }
  renderTable()
}

// Each shown run's warnings (malformed metrics lines with their line numbers, unreadable config, ...) as text below
// the table, so they are seen without hovering a row.
function renderWarnings(rows) {
  const list = $("run-warnings")
  list.innerHTML = ""
  for (const r of rows) {
    for (const w of r.warnings) {
      if (w === "no metrics yet") continue
      const li = document.createElement("li")
      li.dataset.run = r.name
      li.textContent = r.name + ": " + w
      list.appendChild(li)
    }
  }
  list.hidden = list.children.length === 0
}

/**
 * Replace `sel`'s options with `items` (`{ value, label? }`, label defaulting to the value) unless it already lists
 * exactly those values in that order; true when it replaced them (the caller then restores a selection).
 */
function setOptions(sel, items) {
  if (sel.options.length === items.length && items.every((it, i) => sel.options[i].value === it.value)) return false
  sel.innerHTML = ""
  for (const it of items) {
    const o = document.createElement("option")
    o.value = it.value
    o.textContent = it.label ?? it.value
    sel.appendChild(o)
  }
  return true
}

function updateMetricOptions() {
  const sel = $("metric")
  const metrics = new Set()
  for (const r of state.runs) for (const m of r.metrics) metrics.add(m)
  const list = [...metrics].sort()
  // episode returns by default; for LLM-agent runs (epoch rows only), the epochs' success rate
  const preferred = ["episodeReturn", "epoch.successRate"].find((m) => metrics.has(m))
  const current = sel.value || preferred || list[0] || ""
  if (!setOptions(sel, list.map((m) => ({ value: m })))) return
  sel.value = metrics.has(current) ? current : list[0] || ""
}

async function loadRuns() {
  const body = await getJson("/api/runs")
  state.runs = body.runs
  $("root").textContent = body.root
  const names = new Set(body.runs.map((r) => r.name))
  for (const n of [...state.selected]) if (!names.has(n)) state.selected.delete(n)
  if (!state.touched) for (const r of body.runs.slice(0, 10)) state.selected.add(r.name)
  updateMetricOptions()
  renderTable()
  updateViewerRuns()
  updateLibrarySources(body.rootLibrary)
}

function seriesUrl(metric, smoothing, maxPoints, bands, runs) {
  const p = new URLSearchParams({ metric, x: $("xaxis").value, smoothing: String(smoothing), maxPoints: String(maxPoints), bands: bands ? "1" : "0" })
  for (const n of runs) p.append("run", n)
  return "/api/series?" + p.toString()
}

// The large chart shows one environment at a time (runs of unlike environments never share axes): the env select
// lists the environments of the selected runs.
function chartRuns() {
  const groups = groupByEnv(state.runs, state.selected)
  const sel = $("chart-env")
  const env = chartEnv(groups, sel.value)
  setOptions(sel, groups.map((g) => ({ value: g.env, label: g.label + " (" + g.runs.length + ")" })))
  sel.value = env
  $("chart-env-label").hidden = groups.length < 2
  const group = groups.find((g) => g.env === env)
  return group === undefined ? [] : group.runs
}

async function loadChart() {
  const el = $("chart")
  const metric = $("metric").value
  if (state.selected.size === 0 || metric === "") {
    if (state.chart) state.chart.destroy()
    state.chart = undefined
    el.innerHTML = '<p class="empty">Select runs in the table to plot them.</p>'
    return
  }
  const grouped = $("group").checked
  const runs = chartRuns()
  // Keep the joined table small: n series × points each.
  const maxPoints = Math.max(150, Math.min(2000, Math.floor(40000 / Math.max(1, runs.length))))
  const result = await getJson(seriesUrl(metric, Number($("smoothing").value), maxPoints, grouped, runs))
  const key = [metric, $("xaxis").value, grouped, $("spread").value, $("logy").checked, runs.join("|")].join("/")
  state.chart = AutodidactCharts.render(el, result, {
    mode: grouped ? "bands" : "runs",
    spread: $("spread").value,
    logY: $("logy").checked,
    width: Math.max(400, el.clientWidth || 800),
    height: 380,
    previous: state.chart,
    key
  })
  state.lastResult = result
  el.dataset.env = $("chart-env").value
  el.dataset.points = String(result.series.reduce((s, r) => s + r.x.length, 0))
}

async function loadNash() {
  const runs = state.runs.filter((r) => state.selected.has(r.name) && r.metrics.includes("nashConv"))
  $("nash-section").hidden = runs.length === 0
  if (runs.length === 0) return
  const p = new URLSearchParams({ metric: "nashConv", x: "step", smoothing: "0", maxPoints: "2000" })
  for (const r of runs) p.append("run", r.name)
  const result = await getJson("/api/series?" + p.toString())
  const xs = result.series.flatMap((s) => s.x)
  const el = $("nash-chart")
  state.nashChart = AutodidactCharts.render(el, result, {
    mode: "runs",
    logY: true,
    logX: xs.length > 0 && xs.every((x) => x > 0),
    title: "NashConv",
    xLabel: "iteration",
    width: Math.max(400, el.clientWidth || 800),
    height: 320,
    previous: state.nashChart,
    key: runs.map((r) => r.name).join("|")
  })
}

// ---------- grid of small charts ----------
// One small chart per metric (all, or those matching #grid-metrics), in one block per environment of the selected
// runs, with the smoothing and x axis of the controls above; NashConv on a log scale.
async function loadGrid() {
  const seq = ++state.gridSeq
  const host = $("grid")
  const groups = groupByEnv(state.runs, state.selected)
  const choose = $("grid-metrics").value
  const cards = []
  for (const g of groups) {
    const rows = state.runs.filter((r) => g.runs.includes(r.name))
    for (const metric of gridMetrics(rows, choose)) cards.push({ env: g.env, label: g.label, metric, runs: rows.filter((r) => r.metrics.includes(metric)).map((r) => r.name) })
  }
  const structure = cards.map((c) => c.env + "\u0001" + c.metric).join("\u0002")
  if (structure !== state.gridStructure || host.children.length === 0) {
    for (const c of state.grid) if (c.chart) c.chart.destroy()
    state.grid = []
    state.gridStructure = structure
    host.innerHTML = ""
    if (cards.length === 0) host.innerHTML = '<p class="empty">Select runs in the table to chart their metrics.</p>'
    let block
    for (const c of cards) {
      if (block === undefined || block.dataset.env !== c.env) {
        block = document.createElement("div")
        block.className = "env-group"
        block.dataset.env = c.env
        const h = document.createElement("h3")
        h.textContent = c.label + " · " + groups.find((g) => g.env === c.env).runs.length + " runs"
        block.appendChild(h)
        block.appendChild(document.createElement("div")).className = "grid"
        host.appendChild(block)
      }
      const fig = document.createElement("figure")
      fig.className = "mini"
      fig.dataset.env = c.env
      fig.dataset.metric = c.metric
      const box = document.createElement("div")
      box.className = "mini-chart"
      fig.appendChild(box)
      const card = { ...c, el: box, fig, chart: undefined, result: undefined, logY: false }
      fig.prepend(exportTools(() => card))
      block.querySelector(".grid").appendChild(fig)
      state.grid.push(card)
    }
  }
  const smoothing = Number($("smoothing").value)
  await Promise.all(
    state.grid.map(async (card, i) => {
      const c = cards[i]
      card.runs = c.runs
      const result = await getJson(seriesUrl(card.metric, smoothing, 400, false, card.runs))
      if (seq !== state.gridSeq) return
      const logY = card.metric === "nashConv" && result.series.every((s) => s.y.every((v) => v > 0))
      card.chart = AutodidactCharts.render(card.el, result, {
        mode: "runs",
        logY,
        title: card.metric,
        width: 360,
        height: 210,
        previous: card.chart,
        key: [$("xaxis").value, logY, card.runs.join("|")].join("/")
      })
      card.result = result
      card.logY = logY
    })
  )
  if (seq === state.gridSeq) host.dataset.charts = String(state.grid.length)
}

// ---------- configuration table and diff ----------
// The selected runs' config.json side by side (flattened keys), differing keys highlighted; "only differences"
// hides equal and volatile keys (startedAt, out, ...).
async function loadConfig() {
  const seq = ++state.configSeq
  const names = state.runs.map((r) => r.name).filter((n) => state.selected.has(n))
  $("config-section").hidden = names.length === 0
  if (names.length === 0) {
    state.configDiff = undefined
    return
  }
  const p = new URLSearchParams()
  for (const n of names) p.append("run", n)
  const diff = await getJson("/api/config?" + p.toString())
  if (seq !== state.configSeq) return
  state.configDiff = diff
  renderConfig()
  renderParallel()
}

function renderConfig() {
  const diff = state.configDiff
  if (!diff) return
  const only = $("config-only-diff").checked
  const t = $("config-table")
  t.innerHTML = ""
  const head = document.createElement("tr")
  for (const h of ["key"].concat(diff.runs)) {
    const th = document.createElement("th")
    th.textContent = h
    head.appendChild(th)
  }
  t.appendChild(document.createElement("thead")).appendChild(head)
  const body = document.createElement("tbody")
  for (const row of diff.rows) {
    if (only && (!row.differs || row.volatile)) continue
    const tr = document.createElement("tr")
    tr.dataset.key = row.key
    if (row.differs) tr.classList.add(row.volatile ? "volatile" : "differs")
    cell(tr, row.key, "key")
    for (const v of row.values) cell(tr, v === undefined || v === null ? "–" : String(v), typeof v === "number" ? "num" : "")
    body.appendChild(tr)
  }
  t.appendChild(body)
  $("config-count").textContent = diff.varying.length + " differing key" + (diff.varying.length === 1 ? "" : "s") + " (" + diff.varying.join(", ") + ")"
}

// ---------- parallel coordinates ----------
// Hyper-parameters (the config keys that differ among the selected runs) against a chosen metric, as plain SVG.
function renderParallel() {
  const diff = state.configDiff
  const runs = state.runs.filter((r) => state.selected.has(r.name))
  const metrics = ["evalSuccess", "meanReturnLast100", "bestReturn", "stepsPerSecond"].filter((k) => runs.some((r) => typeof r[k] === "number"))
  const finals = new Set()
  for (const r of runs) for (const k of Object.keys(r.finals || {})) finals.add("final." + k)
  const options = metrics.concat([...finals].sort())
  const sel = $("pc-metric")
  const current = sel.value
  if (setOptions(sel, options.map((k) => ({ value: k })))) sel.value = options.includes(current) ? current : options[0] || ""
  const keys = diff ? diff.varying : []
  const view = $("pc-view")
  if (!diff || sel.value === "" || keys.length === 0) {
    state.parallel = undefined
    view.innerHTML = '<p class="empty">Select runs whose configurations differ to compare their hyper-parameters.</p>'
    return
  }
  const pc = parallelCoords(runs, keys, sel.value)
  state.parallel = pc
  view.innerHTML = parallelSvg(pc, Math.max(600, Math.min(1200, 160 * pc.axes.length)), 320)
  if (pc.missing.length > 0) {
    const p = document.createElement("p")
    p.className = "empty"
    p.textContent = "without " + sel.value + ": " + pc.missing.join(", ")
    view.appendChild(p)
  }
}

// ---------- export ----------
// A chart as PNG (uPlot's canvas under its title, with a legend), as SVG (views.js chartSvg, from the data) or its
// series as CSV (/api/series.csv: full resolution, the smoothing shown). `card`: { env, metric, runs, chart, result, logY }.
function download(name, href) {
  const a = document.createElement("a")
  a.href = href
  a.download = name
  document.body.appendChild(a)
  a.click()
  a.remove()
}

function chartPng(card) {
  const src = card.chart.ctx.canvas
  const dpr = src.width / Math.max(1, card.chart.width)
  const runs = card.result.series.map((s) => s.run)
  const rows = Math.ceil(runs.length / 3)
  const head = Math.round(26 * dpr)
  const c = document.createElement("canvas")
  c.width = src.width
  c.height = src.height + head + Math.round((18 * rows + 6) * dpr)
  const ctx = c.getContext("2d")
  ctx.fillStyle = "#fff"
  ctx.fillRect(0, 0, c.width, c.height)
  ctx.fillStyle = "#222"
  ctx.font = "bold " + Math.round(13 * dpr) + "px sans-serif"
  ctx.textAlign = "center"
  ctx.fillText((card.env ? card.env + " · " : "") + card.metric, c.width / 2, Math.round(18 * dpr))
  ctx.drawImage(src, 0, head)
  ctx.textAlign = "left"
  ctx.font = Math.round(11 * dpr) + "px sans-serif"
  runs.forEach((r, i) => {
    const x = (i % 3) * (c.width / 3) + 8 * dpr
    const y = head + src.height + (18 * Math.floor(i / 3) + 14) * dpr
    ctx.fillStyle = AutodidactCharts.color(i)
    ctx.fillRect(x, y - 9 * dpr, 10 * dpr, 10 * dpr)
    ctx.fillStyle = "#222"
    ctx.fillText(r, x + 14 * dpr, y)
  })
  return c.toDataURL("image/png")
}

function exportChart(kind, card) {
  if (!card || !card.result) return
  if (kind === "png") return download(exportName(card.env, card.metric, "png"), chartPng(card))
  if (kind === "svg") {
    const svg = chartSvg(card.result, { title: (card.env ? card.env + " · " : "") + card.metric, logY: card.logY, color: AutodidactCharts.color, width: 640, height: 360 })
    return download(exportName(card.env, card.metric, "svg"), URL.createObjectURL(new Blob([svg], { type: "image/svg+xml" })))
  }
  const name = exportName(card.env, card.metric, "csv")
  const p = new URLSearchParams({ metric: card.metric, x: $("xaxis").value, smoothing: $("smoothing").value, name: name.slice(0, -4) })
  for (const r of card.runs) p.append("run", r)
  download(name, "/api/series.csv?" + p.toString())
}

function exportTools(getCard) {
  const tools = document.createElement("div")
  tools.className = "tools"
  for (const kind of ["png", "svg", "csv"]) {
    const b = document.createElement("button")
    b.type = "button"
    b.dataset.export = kind
    b.textContent = kind.toUpperCase()
    b.title = kind === "csv" ? "the series as CSV (full resolution)" : "the chart as " + kind.toUpperCase()
    b.addEventListener("click", () => exportChart(kind, getCard()))
    tools.appendChild(b)
  }
  return tools
}

// The large chart as an export card (curves of the runs, also when bands are shown).
function mainCard() {
  if (!state.chart || !state.lastResult) return undefined
  return { env: $("chart-env").value, metric: state.lastResult.metric, runs: state.lastResult.series.map((s) => s.run), chart: state.chart, result: state.lastResult, logY: $("logy").checked }
}

// ---------- cluster runners ----------
// One table per selected `train --cluster` run: the latest `runner` row of each runner (cumulative episodes and
// steps, throughput, policy-version lag, failures and storage retries), their total, and the run-wide retries.
async function loadRunners() {
  const runs = state.runs.filter((r) => state.selected.has(r.name) && r.runners > 0)
  $("runners-section").hidden = runs.length === 0
  const view = $("runners-view")
  if (runs.length === 0) {
    view.innerHTML = ""
    return
  }
  const views = await Promise.all(runs.map((r) => getJson("/api/runners?run=" + encodeURIComponent(r.name))))
  state.runners = views
  view.innerHTML = ""
  views.forEach((v, i) => {
    const box = document.createElement("div")
    box.className = "lib-panel"
    box.dataset.run = v.run
    const h = document.createElement("h3")
    h.textContent = v.run + " · " + v.runners.length + " runner" + (v.runners.length === 1 ? "" : "s") + " · step " + v.globalStep
    box.appendChild(h)
    const fixed = (x, d) => Number(x).toFixed(d)
    const rows = v.runners.map((r) => [
      r.runner,
      String(r.episodes),
      String(r.steps),
      fixed(r.episodesPerSecond, 2),
      fixed(r.stepsPerSecond, 1),
      fixed(r.meanPolicyLag, 2),
      String(r.maxPolicyLag),
      String(r.failures),
      String(r.storageRetries)
    ])
    rows.push(["total", String(v.total.episodes), String(v.total.steps), fixed(v.total.episodesPerSecond, 2), fixed(v.total.stepsPerSecond, 1), "", "", String(v.total.failures), ""])
    const t = table("runners-" + i, ["runner", "episodes", "steps", "episodes/s", "steps/s", "mean lag", "max lag", "failures", "storage retries"], rows)
    t.dataset.run = v.run
    box.appendChild(t)
    const p = document.createElement("p")
    p.className = "empty"
    p.textContent = "run-wide: " + v.sendRetries + " send retries, " + v.duplicatesDropped + " duplicate replies dropped"
    box.appendChild(p)
    view.appendChild(box)
  })
}

let chartTimer
function refreshCharts() {
  clearTimeout(chartTimer)
  chartTimer = setTimeout(() => {
    Promise.all([loadChart(), loadGrid(), loadNash(), loadRunners(), loadConfig()]).catch((e) => console.error(e))
  }, 30)
}

// ---------- live updates ----------
function connect() {
  const es = new EventSource("/api/events")
  es.addEventListener("open", () => {
    $("live").textContent = "live"
    $("live").classList.add("on")
  })
  es.addEventListener("error", () => {
    $("live").textContent = "reconnecting…"
    $("live").classList.remove("on")
  })
  let timer
  es.addEventListener("update", () => {
    clearTimeout(timer)
    timer = setTimeout(async () => {
      await loadRuns()
      await Promise.all([loadChart(), loadGrid(), loadNash(), loadRunners(), loadConfig(), $("library").hidden ? undefined : loadLibrary()])
      state.updates++
      document.body.dataset.updates = String(state.updates)
    }, 100)
  })
}

// ---------- episode viewer ----------
function updateViewerRuns() {
  const withTraj = state.runs.filter((r) => r.hasTrajectories)
  $("viewer").hidden = withTraj.length === 0
  const sel = $("traj-run")
  const current = sel.value
  if (!setOptions(sel, withTraj.map((r) => ({ value: r.name })))) return
  if (withTraj.length > 0) {
    sel.value = withTraj.some((r) => r.name === current) ? current : withTraj[0].name
    loadTrajectoryFiles().catch((e) => console.error(e))
  }
}

async function loadTrajectoryFiles() {
  const body = await getJson("/api/trajectories?run=" + encodeURIComponent($("traj-run").value))
  const sel = $("traj-file")
  sel.innerHTML = ""
  for (const f of body.files) {
    const o = document.createElement("option")
    o.value = f.file
    o.textContent = f.file + " (" + f.episodes + ")"
    o.dataset.episodes = String(f.episodes)
    sel.appendChild(o)
  }
  $("traj-episode").value = "0"
  await loadEpisode()
}

async function loadEpisode() {
  const file = $("traj-file").value
  if (!file) return
  const episodes = Number($("traj-file").selectedOptions[0]?.dataset.episodes ?? "1")
  $("traj-episode").max = String(Math.max(0, episodes - 1))
  const p = new URLSearchParams({ run: $("traj-run").value, file, index: $("traj-episode").value })
  const res = await fetch("/api/trajectory?" + p.toString())
  if (!res.ok) {
    // a malformed line: the server names the file and line (Runs.trajectory)
    state.episode = undefined
    const body = await res.json().catch(() => ({}))
    $("episode-meta").textContent = "cannot show this episode: " + (body.error || res.status)
    $("episode-view").innerHTML = ""
    return
  }
  state.episode = await res.json()
  state.step = 0
  const n = state.episode.steps.length
  $("step-slider").max = String(n)
  $("episode-meta").textContent =
    (state.episode.envId || "") +
    (typeof state.episode.seed === "number" ? " · seed " + state.episode.seed : "") +
    " · return " + state.episode.return + " · length " + state.episode.length + (state.episode.task ? " · task: " + state.episode.task : "")
  drawStep()
}

function observationAt(ep, i) {
  if (i < ep.steps.length) return ep.steps[i].observation
  return ep.finalObservation !== undefined ? ep.finalObservation : ep.steps.length > 0 ? ep.steps[ep.steps.length - 1].observation : undefined
}

const frozenLakeMap = ["SFFF", "FHFH", "FFFH", "HFFG"]
const gridChars = " #.$@*+"

function gridText(ep, obs, step) {
  const render = step && step.info && typeof step.info.render === "string" ? step.info.render : undefined
  if (render !== undefined) return render
  if (typeof obs === "string") return obs
  if (/FrozenLake/.test(ep.envId || "") && typeof obs === "number") {
    return frozenLakeMap.map((row, r) => [...row].map((c, col) => (r * 4 + col === obs ? "@" : c)).join("")).join("\n")
  }
  if (Array.isArray(obs) && Array.isArray(obs[0])) {
    return obs.map((row) => row.map((v) => (typeof v === "number" ? gridChars[v] || String(v) : String(v))).join("")).join("\n")
  }
  return JSON.stringify(obs)
}

function drawCartPole(canvas, obs) {
  const ctx = canvas.getContext("2d")
  const w = canvas.width
  const h = canvas.height
  ctx.clearRect(0, 0, w, h)
  const scale = w / 4.8
  const cx = w / 2 + obs[0] * scale
  const cy = h * 0.75
  ctx.strokeStyle = "#999"
  ctx.beginPath()
  ctx.moveTo(0, cy + 10)
  ctx.lineTo(w, cy + 10)
  ctx.stroke()
  ctx.fillStyle = "#333"
  ctx.fillRect(cx - 25, cy - 10, 50, 20)
  const len = scale * 1.0
  ctx.strokeStyle = "#c87533"
  ctx.lineWidth = 6
  ctx.beginPath()
  ctx.moveTo(cx, cy - 10)
  ctx.lineTo(cx + Math.sin(obs[2]) * len, cy - 10 - Math.cos(obs[2]) * len)
  ctx.stroke()
  ctx.lineWidth = 1
}

function drawStep() {
  const ep = state.episode
  if (!ep) return
  const n = ep.steps.length
  const i = Math.max(0, Math.min(state.step, n))
  state.step = i
  $("step-slider").value = String(i)
  const step = ep.steps[i]
  $("step-label").textContent = "step " + i + " / " + n + (step ? " · action " + JSON.stringify(step.action) + " · reward " + step.reward : " · end")
  const view = $("episode-view")
  const obs = observationAt(ep, i)
  const isText = isTextEpisode(ep) || (typeof obs === "string" && ep.task !== undefined)
  if (/CartPole/.test(ep.envId || "") && Array.isArray(obs) && obs.length === 4) {
    let canvas = view.querySelector("canvas")
    if (!canvas) {
      view.innerHTML = ""
      canvas = document.createElement("canvas")
      canvas.width = 480
      canvas.height = 200
      view.appendChild(canvas)
    }
    drawCartPole(canvas, obs)
  } else if (isText) {
    view.innerHTML = ""
    const box = document.createElement("div")
    box.className = "transcript"
    for (const t of textTurns(ep, i)) {
      const turn = document.createElement("div")
      turn.className = "turn" + (t.current ? " current" : "") + (t.flags !== "" ? " ended" : "")
      turn.dataset.step = String(t.step)
      const o = document.createElement("div")
      o.className = "observation"
      o.textContent = String(t.observation)
      turn.appendChild(o)
      if (t.action !== undefined) {
        const a = document.createElement("div")
        a.className = "action"
        a.textContent = "> " + (typeof t.action === "string" ? t.action : JSON.stringify(t.action))
        turn.appendChild(a)
      }
      for (const n of t.notes) {
        const d = document.createElement("div")
        d.className = "note " + n.kind
        d.textContent = n.text
        turn.appendChild(d)
      }
      const st = document.createElement("div")
      st.className = "status"
      st.textContent = t.status
      turn.appendChild(st)
      box.appendChild(turn)
    }
    view.appendChild(box)
  } else {
    view.innerHTML = ""
    const pre = document.createElement("div")
    pre.className = "frame"
    pre.textContent = gridText(ep, obs, step)
    view.appendChild(pre)
  }
}

// ---------- memory & skills ----------
function updateLibrarySources(rootLibrary) {
  const sources = (rootLibrary ? [{ value: "", label: "runs directory" }] : []).concat(
    state.runs.filter((r) => r.hasLibrary).map((r) => ({ value: r.name, label: r.name }))
  )
  $("library").hidden = sources.length === 0
  const sel = $("lib-source")
  const current = sel.value
  if (!setOptions(sel, sources)) return
  if (sources.length > 0) {
    sel.value = sources.some((s) => s.value === current) ? current : sources[0].value
    loadLibrary().catch((e) => console.error(e))
  }
}

function cell(tr, text, cls) {
  const td = document.createElement("td")
  td.textContent = text
  if (cls) td.className = cls
  tr.appendChild(td)
}

function table(id, head, rows) {
  const t = document.createElement("table")
  t.className = "runs lib"
  t.id = id
  const thead = document.createElement("tr")
  for (const h of head) {
    const th = document.createElement("th")
    th.textContent = h
    thead.appendChild(th)
  }
  t.appendChild(document.createElement("thead")).appendChild(thead)
  const tbody = document.createElement("tbody")
  for (const r of rows) {
    const tr = document.createElement("tr")
    r.forEach((v, i) => cell(tr, v, i > 0 ? "num" : ""))
    tbody.appendChild(tr)
  }
  t.appendChild(tbody)
  return t
}

function fmtNum(v, digits) {
  return v == null ? "–" : Number.isInteger(v) ? String(v) : v.toFixed(digits)
}

async function loadLibrary() {
  const run = $("lib-source").value
  const lib = await getJson("/api/library" + (run ? "?run=" + encodeURIComponent(run) : ""))
  state.library = lib
  const view = $("library-view")
  view.innerHTML = ""
  if (lib.skills) {
    const s = lib.skills
    const box = document.createElement("div")
    box.className = "lib-panel"
    box.id = "skills-panel"
    const h = document.createElement("h3")
    h.textContent = "Skills · " + s.path
    box.appendChild(h)
    const p = document.createElement("p")
    p.className = "lib-counts"
    p.id = "skills-counts"
    p.textContent = s.skills + " skills · " + s.versions + " versions · " + s.calls + " calls"
    box.appendChild(p)
    box.appendChild(
      table(
        "skills-top",
        ["most used", "calls", "success rate", "mean return", "active / versions"],
        s.top.map((u) => [u.name, String(u.calls), u.successRate == null ? "–" : (100 * u.successRate).toFixed(0) + "%", fmtNum(u.meanReturn, 2), (u.activeVersion ?? "–") + " / " + u.versions])
      )
    )
    if (s.warnings.length > 0) box.title = s.warnings.join("; ")
    view.appendChild(box)
  }
  if (lib.memory) {
    const m = lib.memory
    const box = document.createElement("div")
    box.className = "lib-panel"
    box.id = "memory-panel"
    const h = document.createElement("h3")
    h.textContent = "Memory · " + m.path
    box.appendChild(h)
    if (m.counts) {
      const rows = Object.keys(m.counts).sort().map((k) => [k, String(m.counts[k])])
      rows.push(["total", String(m.total)])
      box.appendChild(table("memory-counts", ["kind", "records"], rows))
      if (m.writtenAt) {
        const p = document.createElement("p")
        p.className = "empty"
        p.textContent = "as of " + m.writtenAt
        box.appendChild(p)
      }
    }
    for (const w of m.warnings) {
      const p = document.createElement("p")
      p.className = "empty"
      p.textContent = w
      box.appendChild(p)
    }
    view.appendChild(box)
  }
}

// ---------- wiring ----------
function wire() {
  $("filter").addEventListener("input", (e) => {
    state.filter = e.target.value
    renderTable()
  })
  $("select-all").addEventListener("change", (e) => {
    state.touched = true
    for (const r of visibleRuns()) {
      if (e.target.checked) state.selected.add(r.name)
      else state.selected.delete(r.name)
    }
    renderTable()
    refreshCharts()
  })
  for (const th of $("runs").querySelectorAll("th")) th.addEventListener("click", () => sortBy(th.dataset.key))
  $("extra-col").addEventListener("change", (e) => {
    state.extraCol = e.target.value
    renderTable()
  })
  $("config-only-diff").addEventListener("change", renderConfig)
  $("pc-metric").addEventListener("change", renderParallel)
  $("smoothing").addEventListener("input", (e) => {
    $("smoothing-value").textContent = Number(e.target.value).toFixed(2)
    refreshCharts()
  })
  for (const id of ["metric", "xaxis", "group", "spread", "logy", "chart-env"]) $(id).addEventListener("change", refreshCharts)
  $("grid-metrics").addEventListener("input", refreshCharts)
  $("chart-tools").appendChild(exportTools(mainCard))
  $("lib-source").addEventListener("change", () => loadLibrary().catch((e) => console.error(e)))
  $("traj-run").addEventListener("change", () => loadTrajectoryFiles().catch((e) => console.error(e)))
  $("traj-file").addEventListener("change", () => {
    $("traj-episode").value = "0"
    loadEpisode().catch((e) => console.error(e))
  })
  $("traj-episode").addEventListener("change", () => loadEpisode().catch((e) => console.error(e)))
  $("step-prev").addEventListener("click", () => {
    state.step--
    drawStep()
  })
  $("step-next").addEventListener("click", () => {
    state.step++
    drawStep()
  })
  $("step-slider").addEventListener("input", (e) => {
    state.step = Number(e.target.value)
    drawStep()
  })
}

wire()
loadRuns()
  .then(() => Promise.all([loadChart(), loadGrid(), loadNash(), loadRunners(), loadConfig()]))
  .then(() => {
    document.body.dataset.ready = "1"
  })
  .catch((e) => {
    console.error(e)
    document.body.dataset.error = String(e)
  })
connect()

/**
 * A self-contained report of a runs directory: one HTML file with the runs table and learning curves, its data,
 * uPlot's JS/CSS and the chart scripts inlined (it opens offline, from disk or as an attachment), or a PNG of
 * that page rendered by Chromium.
 *
 * *Details*: charts are the smoothed return per run, mean ± std bands per group of seeds (when a group has more
 * than one run), one chart per other metric, and NashConv on log axes for game solvers.
 *
 * *Gotchas*: `format: "png"` needs Chromium (`/usr/bin/chromium`, Debian package `chromium`) and the
 * `playwright-core` package; without them it fails with {@link ChromiumNotFoundError}.
 *
 * @example
 * import { writeReport } from "@autodidact/dashboard"
 * import { Effect } from "effect"
 * await Effect.runPromise(writeReport({ runsDir: "runs", out: "report.html" }))
 * @since 0.0.0
 */
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { uiDir, uplotDir } from "./Assets.js"
import { ChromiumNotFoundError, DashboardError } from "./Errors.js"
import * as Runs from "./Runs.js"

/** Options of {@link writeReport}. */
export interface ReportOptions {
  readonly runsDir: string
  readonly out: string
  readonly format?: "html" | "png"
  /** EMA weight of the curves (default 0.6). */
  readonly smoothing?: number
  /** Points per curve (default 1000). */
  readonly maxPoints?: number
  /** Chromium for PNG (default /usr/bin/chromium). */
  readonly chromiumPath?: string
  readonly title?: string
}

/** One chart of a report. */
export interface ReportChart {
  readonly title: string
  readonly mode: "runs" | "bands"
  readonly logY: boolean
  readonly logX: boolean
  /** The x axis' name when it is not the series' own ("step" / "wall seconds"), e.g. "iteration" for NashConv. */
  readonly xLabel?: string
  readonly result: Runs.SeriesResult
}

const metricOrder = ["episodeReturn", "episodeLength", "meanReturn", "successRate", "epoch.successRate", "epoch.librarySize", "epoch.tokens", "policyLoss", "valueLoss", "entropy", "approxKl", "clipFraction", "explainedVariance", "learningRate"]

/**
 * The charts a report holds for a loaded store: one per metric present in its runs (the standard metric names
 * first, then the rest alphabetically), each with one curve per run holding it (exponential moving average with
 * weight `smoothing`, default 0.6; `epoch.*` columns unsmoothed; at most `maxPoints` points, default 1000); an
 * `episodeReturn` mean ± std band chart when some runs differ only by seed; and a log-scale NashConv-vs-iterations
 * chart when runs report `nashConv`.
 */
export const charts = (store: Runs.RunStore, options: { readonly smoothing?: number; readonly maxPoints?: number } = {}): Array<ReportChart> => {
  const summaries = store.summaries()
  const names = summaries.map((s) => s.name)
  const smoothing = options.smoothing ?? 0.6
  const maxPoints = options.maxPoints ?? 1000
  const metrics = new Set(summaries.flatMap((s) => s.metrics))
  const ordered = [...metricOrder.filter((m) => metrics.has(m)), ...[...metrics].filter((m) => !metricOrder.includes(m) && m !== "nashConv").sort()]
  const out: Array<ReportChart> = []
  const groups = new Map<string, number>()
  for (const s of summaries) groups.set(s.groupKey, (groups.get(s.groupKey) ?? 0) + 1)
  for (const metric of ordered) {
    const perRun = names.filter((n) => summaries.find((s) => s.name === n)!.metrics.includes(metric))
    // epoch rows (LLM agent training) are few, one per epoch: drawn unsmoothed
    const s = metric.startsWith("epoch.") ? 0 : smoothing
    out.push({ title: s === 0 ? `${metric} by epoch` : `${metric} (EMA ${s})`, mode: "runs", logY: false, logX: false, result: store.series({ metric, runs: perRun, smoothing: s, maxPoints }) })
    if (metric === "episodeReturn" && [...groups.values()].some((n) => n > 1)) {
      out.push({
        title: "episodeReturn, mean ± std over seeds",
        mode: "bands",
        logY: false,
        logX: false,
        result: store.series({ metric, runs: perRun, smoothing, maxPoints, bands: true })
      })
    }
  }
  if (metrics.has("nashConv")) {
    const perRun = summaries.filter((s) => s.metrics.includes("nashConv")).map((s) => s.name)
    const result = store.series({ metric: "nashConv", runs: perRun, smoothing: 0, maxPoints })
    const logX = result.series.every((s) => s.x.every((x) => x > 0))
    out.push({ title: "NashConv vs iterations", mode: "runs", logY: true, logX, xLabel: "iteration", result })
  }
  return out
}

/** Text safe inside a `<script>` or `<style>` element. */
const scriptSafe = (s: string): string => s.replace(/<\/(script|style)/gi, "<\\/$1")

/**
 * The report's HTML for a loaded store: one self-contained page (uPlot, the dashboard's CSS and the chart data
 * inlined, no network access) with the runs table and the {@link charts}.
 */
export const html = (store: Runs.RunStore, options: Omit<ReportOptions, "runsDir" | "out"> = {}): string => {
  const read = (dir: string, f: string) => fs.readFileSync(path.join(dir, f), "utf8")
  const data = {
    root: path.resolve(store.root),
    generatedAt: new Date().toISOString(),
    runs: store.summaries(),
    charts: charts(store, options),
    runners: store.summaries().filter((r) => r.runners > 0).map((r) => store.runners(r.name)!)
  }
  const json = JSON.stringify(data).replace(/</g, "\\u003c")
  const title = options.title ?? "Autodidact report"
  const esc = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`)
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${esc(title)}</title>
<style>${scriptSafe(read(uplotDir(), "uPlot.min.css"))}</style>
<style>${scriptSafe(read(uiDir(), "style.css"))}</style>
</head>
<body>
<header><h1>${esc(title)}</h1><span class="report-meta" id="meta"></span></header>
<main>
<section><table class="runs" id="runs"><thead><tr><th>run</th><th>env</th><th>algo</th><th>seed</th><th>steps</th><th>episodes</th><th>best return</th><th>last return</th><th>mean (100)</th><th>wall s</th><th>status</th></tr></thead><tbody></tbody></table></section>
<div id="runners"></div>
<div id="charts"></div>
</main>
<script type="application/json" id="report-data">${json}</script>
<script>${scriptSafe(read(uplotDir(), "uPlot.iife.min.js"))}</script>
<script>${scriptSafe(read(uiDir(), "charts.js"))}</script>
<script>${scriptSafe(read(uiDir(), "report.js"))}</script>
</body>
</html>
`
}

/** The default Chromium (Debian's package). */
export const defaultChromium = "/usr/bin/chromium"

/** Chromium flags that work headless, as root, in containers. */
export const chromiumArgs = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run"
]

/**
 * Render HTML to a full-page PNG at `out` with Chromium (headless, via `playwright-core`). Fails with
 * `ChromiumNotFoundError` when Chromium is not at `chromiumPath` (default `/usr/bin/chromium`) or
 * `playwright-core` is not installed, and with `DashboardError` when the page cannot be rendered or written.
 */
export const renderPng = (
  page: string,
  out: string,
  chromiumPath: string = defaultChromium
): Effect.Effect<void, ChromiumNotFoundError | DashboardError> =>
  Effect.gen(function* () {
    if (!fs.existsSync(chromiumPath)) {
      return yield* new ChromiumNotFoundError({ executablePath: chromiumPath, reason: "no such file" })
    }
    const pw = yield* Effect.tryPromise({
      try: () => import("playwright-core"),
      catch: (e) => new ChromiumNotFoundError({ executablePath: chromiumPath, reason: `playwright-core is not installed (${String(e)})` })
    })
    yield* Effect.tryPromise({
      try: async () => {
        const browser = await pw.chromium.launch({ executablePath: chromiumPath, args: chromiumArgs })
        try {
          const p = await browser.newPage({ viewport: { width: 1000, height: 800 } })
          await p.setContent(page, { waitUntil: "load" })
          await p.waitForSelector("body[data-ready='1']", { timeout: 30_000 })
          await p.screenshot({ path: out, fullPage: true })
        } finally {
          await browser.close()
        }
      },
      catch: (e) => new DashboardError({ path: out, reason: `PNG rendering failed: ${String(e)}` })
    })
  })

/**
 * Write a report of `runsDir` to `out` (HTML, or PNG with `format: "png"`). Resolves to the absolute path written.
 * @category report
 */
export const writeReport = (options: ReportOptions): Effect.Effect<string, DashboardError | ChromiumNotFoundError> =>
  Effect.gen(function* () {
    const store = yield* Runs.load(options.runsDir)
    const page = yield* Effect.try({
      try: () => html(store, options),
      catch: (e) => new DashboardError({ path: options.out, reason: `cannot build the report: ${String(e)}` })
    })
    const out = path.resolve(options.out)
    yield* Effect.try({
      try: () => fs.mkdirSync(path.dirname(out), { recursive: true }),
      catch: (e) => new DashboardError({ path: out, reason: String(e) })
    })
    if (options.format === "png") {
      yield* renderPng(page, out, options.chromiumPath)
    } else {
      yield* Effect.try({
        try: () => fs.writeFileSync(out, page),
        catch: (e) => new DashboardError({ path: out, reason: `cannot write: ${String(e)}` })
      })
    }
    return out
  })

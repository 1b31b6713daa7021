/**
 * Benchmark: time from server start to first paint with many runs, and the page's JS heap.
 *
 * Generates RUNS runs of POINTS episode rows each (plus an update row every 10 episodes) in a temp directory,
 * starts the server (which parses every metrics.jsonl), opens the dashboard in Chromium and waits until the
 * runs table and the first chart are drawn (body[data-ready]); then selects all runs and times the redraw.
 * Heap: CDP Performance.getMetrics (JSHeapUsedSize). Run: `node --import tsx bench/firstPaint.ts [RUNS] [POINTS]`.
 */
import { Effect, Exit, Scope } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { chromium } from "playwright-core"
import { chromiumArgs, defaultChromium } from "../src/Report.js"
import { serve } from "../src/Server.js"
import { cartPoleConfig, learningRows, tempDir, writeRun } from "../test/fixtures.js"

const RUNS = Number(process.argv[2] ?? 100)
const POINTS = Number(process.argv[3] ?? 10_000)

const root = tempDir("dashboard-bench-")
let t = performance.now()
for (let i = 0; i < RUNS; i++) writeRun(root, { name: `run-${String(i).padStart(3, "0")}`, config: cartPoleConfig((i % 5) + 1, { env: `Env-${Math.floor(i / 5)}` }), rows: learningRows(POINTS, (i % 5) + 1) })
const bytes = fs.readdirSync(root).reduce((s, n) => s + fs.statSync(path.join(root, n, "metrics.jsonl")).size, 0)
console.log(`generated ${RUNS} runs x ${POINTS} episodes (${(bytes / 1e6).toFixed(1)} MB of metrics.jsonl) in ${(performance.now() - t).toFixed(0)} ms`)

const browser = await chromium.launch({ executablePath: defaultChromium, args: chromiumArgs })
const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } })
const cdp = await page.context().newCDPSession(page)
await cdp.send("Performance.enable")
const heap = async () => {
  await cdp.send("HeapProfiler.collectGarbage")
  const { metrics } = await cdp.send("Performance.getMetrics")
  return (metrics.find((m) => m.name === "JSHeapUsedSize")!.value / 1e6).toFixed(1) + " MB"
}

const scope = await Effect.runPromise(Scope.make())
const rssBefore = process.memoryUsage().rss
t = performance.now()
const d = await Effect.runPromise(Scope.provide(scope)(serve({ runsDir: root, port: 0 })))
const tServer = performance.now() - t
await page.goto(d.url)
await page.waitForSelector("body[data-ready='1']", { timeout: 120_000 })
await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(null))))
const tPaint = performance.now() - t
console.log(`server start (parse all runs): ${tServer.toFixed(0)} ms; server start -> first paint (table + chart of 10 runs): ${tPaint.toFixed(0)} ms; page JS heap ${await heap()}; server RSS +${((process.memoryUsage().rss - rssBefore) / 1e6).toFixed(0)} MB`)

t = performance.now()
await page.evaluate(() => {
  const el = document.getElementById("select-all") as HTMLInputElement
  el.checked = true
  el.dispatchEvent(new Event("change"))
})
await page.waitForFunction((n) => (window as any).autodidact.lastResult?.series.length === n, RUNS, { timeout: 120_000 })
await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(null))))
console.log(`select all ${RUNS} runs -> redrawn: ${(performance.now() - t).toFixed(0)} ms; page JS heap ${await heap()}`)

t = performance.now()
await page.check("#group")
await page.waitForFunction(() => (window as any).autodidact.lastResult?.bands?.length > 0, null, { timeout: 120_000 })
console.log(`group ${RUNS} runs into bands -> redrawn: ${(performance.now() - t).toFixed(0)} ms`)

await browser.close()
await Effect.runPromise(Scope.close(scope, Exit.void))
fs.rmSync(root, { recursive: true, force: true })

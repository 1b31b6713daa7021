/**
 * End to end in a real Chromium (as e2e.integration.test.ts): the cluster runners table of a `train --cluster` run
 * and the `epoch.*` series of an `autodidact agent train` run. Screenshots go to packages/dashboard/test-output/.
 *
 * Without /usr/bin/chromium this file is skipped with a message, except under CI=true, where it fails.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { defaultChromium } from "../src/Report.js"
import { type OpenDashboard, openDashboard } from "./openDashboard.js"
import { clusterRows, epochRows, tempDir, writeRun } from "./fixtures.js"

const chromium = process.env["CHROMIUM_PATH"] ?? defaultChromium
const hasChromium = fs.existsSync(chromium)
const inCi = process.env["CI"] === "true"
const shots = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "test-output")

if (!hasChromium && !inCi) {
  console.warn(`[dashboard e2e runners] SKIPPED: no Chromium at ${chromium} (apt-get install -y chromium, or set CHROMIUM_PATH). This fails under CI=true.`)
}

describe.runIf(!hasChromium && inCi)("e2e prerequisites (runners)", () => {
  it("has Chromium under CI", () => {
    expect.fail(`Chromium is required in CI for the dashboard e2e tests: none at ${chromium} (apt-get install -y chromium)`)
  })
})

describe.runIf(hasChromium)("dashboard in Chromium: cluster runners and agent epochs", () => {
  let opened: OpenDashboard | undefined
  let page: Page
  const errors: Array<string> = []

  beforeAll(async () => {
    fs.mkdirSync(shots, { recursive: true })
    const root = tempDir()
    writeRun(root, { name: "cluster", config: { command: "train", env: "CartPole-v1", algo: "ppo", seed: 1, cluster: "postgres://x@127.0.0.1:1/db" }, rows: clusterRows(["127.0.0.1:5001", "127.0.0.1:5002"], 3) })
    writeRun(root, { name: "agent", config: { command: "agent train", env: "TextFrozenLake-v1", method: "training-free-grpo", seed: 1 }, rows: epochRows([0.2, 0.4, 0.7], [0, 2, 3], [0.3]) })
    opened = await openDashboard(root, chromium, errors, { viewport: { width: 1280, height: 1100 } })
    page = opened.page
  })

  afterAll(async () => {
    await opened?.close()
  })

  it("shows one row per runner with its latest cumulative counts, and a total", async () => {
    await page.waitForSelector("#runners-section:not([hidden]) table[data-run='cluster']", { timeout: 10_000 })
    const rows = await page.$$eval("table[data-run='cluster'] tbody tr", (trs) => trs.map((tr) => Array.from(tr.querySelectorAll("td"), (td) => td.textContent)))
    // clusterRows: 3 updates of 8 episodes of 20 steps, 5 per batch from :5001 and 3 from :5002; wall 3 s at the end
    expect(rows).toEqual([
      ["127.0.0.1:5001", "15", "300", "5.00", "100.0", "0.00", "0", "0", "0"],
      ["127.0.0.1:5002", "9", "180", "3.00", "60.0", "0.00", "0", "0", "0"],
      ["total", "24", "480", "8.00", "160.0", "", "", "0", ""]
    ])
    expect(await page.textContent("#runners-view h3")).toBe("cluster · 2 runners · step 480")
    await page.screenshot({ path: path.join(shots, "20-cluster-runners.png"), fullPage: true })
  })

  it("plots the agent's epoch success rate by epoch, and hides the runners panel without a cluster run", async () => {
    await page.uncheck("#runs tbody tr[data-run='cluster'] input[type=checkbox]")
    await page.waitForSelector("#runners-section[hidden]", { state: "attached", timeout: 10_000 })
    const options = await page.$$eval("#metric option", (os) => os.map((o) => (o as HTMLOptionElement).value))
    expect(options).toEqual(expect.arrayContaining(["epoch.successRate", "epoch.librarySize", "epoch.tokens"]))
    await page.selectOption("#metric", "epoch.successRate")
    await page.fill("#smoothing", "0")
    await page.dispatchEvent("#smoothing", "input")
    await page.waitForFunction(() => (window as any).autodidact.lastResult?.metric === "epoch.successRate" && (window as any).autodidact.lastResult?.smoothing === 0, undefined, { timeout: 10_000 })
    const series = await page.evaluate(() => (window as any).autodidact.lastResult.series.map((s: any) => ({ run: s.run, x: s.x, y: s.y })))
    expect(series).toEqual([{ run: "agent", x: [0, 1, 2], y: [0.2, 0.4, 0.7] }])
    await page.screenshot({ path: path.join(shots, "21-agent-epochs.png"), fullPage: true })
  })

  it("logged no page errors", () => {
    expect(errors).toEqual([])
  })
})

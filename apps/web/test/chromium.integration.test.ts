/**
 * The browser builds in a real Chromium (Debian's `chromium` driven by playwright-core, launched with the dashboard's
 * flags): each page check of `src/checks/` is bundled with esbuild for `platform: "browser"` (failing on any Node
 * built-in) and run in a blank page; the same code runs here in Node for comparison. Then the PPO demo of
 * `docs/browser/` is built into a temporary directory, opened from `file://` with a tiny budget, and must train and
 * plot returns. Bundle sizes go to the output and to `test-output/page-bundles.md`.
 *
 * Without /usr/bin/chromium (or CHROMIUM_PATH) this file is skipped with a message, except under CI=true, where it fails.
 */
import { Report } from "@autodidact/dashboard"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { ReferenceEpisode } from "../src/checks/cartpole.js"
import { type Bundle, bundle } from "../tools/bundle.js"
import { buildDocs, docsDir } from "../tools/buildDocs.js"
import { type Check, checkEntry, checks, here, sizeTable } from "./browser.js"

const chromium = process.env["CHROMIUM_PATH"] ?? Report.defaultChromium
const hasChromium = fs.existsSync(chromium)
const inCi = process.env["CI"] === "true"
const referenceFile = path.resolve(here, "../../../../shared/data/gymnasium/cartpole_public.json")
const haveReference = fs.existsSync(referenceFile)

if (!hasChromium && !inCi) {
  console.warn(`[web chromium] SKIPPED: no Chromium at ${chromium} (apt-get install -y chromium, or set CHROMIUM_PATH). This fails under CI=true.`)
}

describe.runIf(!hasChromium && inCi)("chromium prerequisites", () => {
  it("has Chromium under CI", () => {
    expect.fail(`Chromium is required in CI for the browser tests: none at ${chromium} (apt-get install -y chromium)`)
  })
})

describe.runIf(hasChromium)("browser builds in Chromium", () => {
  let browser: Browser
  const sizes: Array<[string, Bundle | string]> = []

  beforeAll(async () => {
    const { chromium: pw } = await import("playwright-core")
    browser = await pw.launch({ executablePath: chromium, args: Report.chromiumArgs })
  })

  afterAll(async () => {
    await browser?.close()
    if (sizes.length > 0) console.log(sizeTable("Page bundles run in Chromium", sizes, "page-bundles.md"))
  })

  /** Bundle `check`, run it in a fresh page with `input`, return its value (page errors fail the test). */
  const inPage = async (check: Check, input: unknown): Promise<unknown> => {
    const b = await bundle({ contents: checkEntry(check), resolveDir: here })
    sizes.push([`${check.name} (${path.basename(check.module)})`, b])
    const page = await browser.newPage()
    const errors: Array<string> = []
    page.on("pageerror", (e) => errors.push(String(e)))
    try {
      await page.setContent("<!doctype html><title>autodidact check</title>")
      await page.evaluate((input) => {
        ;(window as unknown as { __input: unknown }).__input = input
      }, input)
      await page.addScriptTag({ content: b.code, type: "module" })
      await page.waitForFunction(() => (window as unknown as { __result?: unknown }).__result !== undefined, undefined, { timeout: 150_000 })
      const result = (await page.evaluate(() => (window as unknown as { __result: unknown }).__result)) as { value?: unknown; error?: string }
      expect(errors).toEqual([])
      if (result.error !== undefined) throw new Error(`in Chromium: ${result.error}`)
      return result.value
    } finally {
      await page.close()
    }
  }

  it(`${checks.cartpoleVector.name}: seeded trace equals the Node run of the same code`, async () => {
    const input = { seed: 42, numEnvs: 4, steps: 300 }
    const { vectorTrace } = await import("../src/checks/cartpole.js")
    const node = vectorTrace(input)
    const browserTrace = (await inPage(checks.cartpoleVector, input)) as ReturnType<typeof vectorTrace>
    expect(node.episodesEnded).toBeGreaterThan(4) // fixed alternating actions end episodes; autoreset is exercised
    expect(browserTrace.reset).toEqual(node.reset)
    expect(browserTrace.rewards[0]).toEqual([1, 1, 1, 1])
    expect(browserTrace).toEqual(node)
  })

  it.skipIf(!haveReference)(`${checks.cartpoleReference.name}: the first reference episode replays exactly (skipped without ${referenceFile})`, async () => {
    const { episodes } = JSON.parse(fs.readFileSync(referenceFile, "utf8")) as { episodes: Array<ReferenceEpisode> }
    const episode = episodes[0]!
    expect(await inPage(checks.cartpoleReference, episode)).toEqual({ steps: episode.steps.length, firstMismatch: null })
  })

  it(`${checks.kuhn.name}: game value -1/18 and NashConv near 0`, async () => {
    const r = (await inPage(checks.kuhn, 1000)) as { value0: number; nashConv: number; infoStates: number }
    expect(r.infoStates).toBe(12) // Kuhn poker: 6 information states per player
    expect(Math.abs(r.value0 + 1 / 18)).toBeLessThan(1e-3)
    expect(r.nashConv).toBeGreaterThanOrEqual(-1e-12)
    expect(r.nashConv).toBeLessThan(2e-3)
  })

  it(`${checks.gae.name}: the hand-computed case`, async () => {
    // γ = λ = 0.5 (γλ = 0.25); δ_t = r_t + γ·V(s_{t+1})·(1 − done_{t+1}) − V(s_t); A_t = δ_t + γλ·(1 − done_{t+1})·A_{t+1}
    // env 0: δ = [1 + 0.5·1 − 0, 0 + 0.5·0 − 1, 2 + 0.5·2 − 0] = [1.5, −1, 3]; A = [1.5 + 0.25·(−0.25), −1 + 0.25·3, 3]
    // env 1: step 2 starts an episode, so step 1 does not bootstrap: δ = [1 + 0.5 − 1, 1 − 1, 1 + 0.5·4 − 1] = [0.5, 0, 2]
    const expected = { advantages: [1.4375, 0.5, -0.25, 0, 3, 2], returns: [1.4375, 1.5, 0.75, 1, 3, 3] }
    expect(await inPage(checks.gae, null)).toEqual(expected)
  })

  it(`${checks.ppo.name}: loss finite, parameters changed, same as Node`, async () => {
    const { ppoUpdate } = await import("../src/checks/ppo.js")
    const r = (await inPage(checks.ppo, 7)) as Awaited<ReturnType<typeof ppoUpdate>>
    expect(r.updates).toHaveLength(1)
    const u = r.updates[0]!
    for (const v of [u.policyLoss, u.valueLoss, u.entropy]) expect(Number.isFinite(v)).toBe(true)
    expect(r.globalStep).toBe(128)
    expect(r.paramsChanged).toBeGreaterThan(r.numParams / 2)
    expect(r.maxParamDelta).toBeGreaterThan(0)
    expect(r.tfBackend).toBe("cpu")
    expect(r.tfMaxAbsDiff).toBeLessThan(1e-4)
    const node = await ppoUpdate(7)
    expect(r.paramSample).toEqual(node.paramSample)
  })

  it("the PPO demo of docs/browser trains and plots returns", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "web-docs-"))
    const built = await buildDocs(path.join(dir, "build"))
    sizes.push(["docs/browser demo.js (page + worker)", { code: "", bytes: built.pageBytes, gzipBytes: built.pageGzipBytes, largest: [] }])
    fs.copyFileSync(path.join(docsDir, "index.html"), path.join(dir, "index.html"))
    const page = await browser.newPage({ viewport: { width: 1000, height: 800 } })
    const errors: Array<string> = []
    page.on("pageerror", (e) => errors.push(String(e)))
    try {
      await page.goto(`${pathToFileURL(path.join(dir, "index.html")).href}?totalTimesteps=1536&numEnvs=4&seed=3&autostart=1`)
      await page.waitForFunction(() => ["done", "error"].includes((window as unknown as { demo: { status: string } }).demo.status), undefined, { timeout: 150_000 })
      const demo = await page.evaluate(() => {
        const d = (window as unknown as { demo: { status: string; updates: number; returns: Array<number>; chart: { data: Array<Array<number>> } } }).demo
        return { status: d.status, updates: d.updates, returns: d.returns.length, plotted: d.chart.data[1]!.length, status2: document.getElementById("status")!.textContent }
      })
      expect(errors).toEqual([])
      expect(demo.status, demo.status2 ?? "").toBe("done")
      expect(demo.updates).toBe(3) // 1536 steps / (4 envs × 128 steps)
      expect(demo.returns).toBeGreaterThan(0)
      expect(demo.plotted).toBe(demo.returns)
      fs.mkdirSync(path.join(here, "..", "test-output"), { recursive: true })
      await page.screenshot({ path: path.join(here, "..", "test-output", "docs-browser-demo.png") })
    } finally {
      await page.close()
    }
  })
})

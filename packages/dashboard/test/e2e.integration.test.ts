/**
 * End to end in a real Chromium (Debian's `chromium` driven by playwright-core): the server on a random
 * 127.0.0.1 port over a fixture runs directory written here, the runs table, a rendered chart (pixels on the
 * canvas and uPlot's data), smoothing, grouping, a live update over SSE, the NashConv chart and the episode viewer.
 * Screenshots go to packages/dashboard/test-output/.
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
import { TextEpisode } from "@autodidact/core"
import { cartPoleConfig, learningRows, skillRecord, tempDir, writeMemory, writeRun, writeSkills } from "./fixtures.js"

const chromium = process.env["CHROMIUM_PATH"] ?? defaultChromium
const hasChromium = fs.existsSync(chromium)
const inCi = process.env["CI"] === "true"
const shots = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "test-output")

if (!hasChromium && !inCi) {
  console.warn(`[dashboard e2e] SKIPPED: no Chromium at ${chromium} (apt-get install -y chromium, or set CHROMIUM_PATH). This fails under CI=true.`)
}

describe.runIf(!hasChromium && inCi)("e2e prerequisites", () => {
  it("has Chromium under CI", () => {
    expect.fail(`Chromium is required in CI for the dashboard e2e tests: none at ${chromium} (apt-get install -y chromium)`)
  })
})

const cartPoleEpisode = {
  envId: "CartPole-v1",
  steps: Array.from({ length: 20 }, (_, i) => ({ observation: [i * 0.05, 0, 0.01 * i, 0], action: i % 2, reward: 1, terminated: i === 19, truncated: false })),
  return: 20,
  length: 20
}
const frozenLakeEpisode = {
  envId: "FrozenLake-v1",
  steps: [0, 4, 8, 9, 13, 14].map((s, i) => ({ observation: s, action: [1, 1, 2, 1, 2, 2][i], reward: 0, terminated: false, truncated: false })),
  finalObservation: 15,
  return: 1,
  length: 6
}

/** A TextHousehold-v0 episode in the dashboard's TextEpisode row format (what `--save-trajectories` writes for text envs). */
const textEpisode = TextEpisode.make(
  "TextHousehold-v0",
  [
    { observation: "You are in the middle of a room. Your task is to: put a mug in cabinet.", action: "go to countertop 1", reward: 0, terminated: false, truncated: false },
    { observation: "On the countertop 1, you see a mug 1.", action: "take mug 1 from countertop 1", reward: 1, terminated: true, truncated: false }
  ],
  { seed: 5, finalObservation: "You pick up the mug 1 from the countertop 1." }
)

/**
 * Episodes as `autodidact train --save-trajectories` writes them: core `Trajectory` records with the observation
 * each action was taken on ([x, x_dot, theta, theta_dot]), the reset seed and the observation after the last step.
 */
const trainedCartPole = (seed: number, length: number) => {
  const obs = (i: number) => [0.02 * i, 0.1, -0.03 + 0.012 * i, 0.05 * Math.sin(i)]
  return {
    envId: "CartPole-v1",
    seed,
    finalObservation: obs(length),
    steps: Array.from({ length }, (_, i) => ({ observation: obs(i), action: i % 2, reward: 1, terminated: i === length - 1, truncated: false })),
    return: length,
    length
  }
}

describe.runIf(hasChromium)("dashboard in Chromium", () => {
  let root: string
  let opened: OpenDashboard | undefined
  let page: Page
  const errors: Array<string> = []

  beforeAll(async () => {
    fs.mkdirSync(shots, { recursive: true })
    root = tempDir()
    for (const s of [1, 2, 3]) writeRun(root, { name: `cartpole-s${s}`, config: cartPoleConfig(s), rows: learningRows(300, s) })
    fs.mkdirSync(path.join(root, "cartpole-s1", "trajectories"))
    fs.writeFileSync(path.join(root, "cartpole-s1", "trajectories", "eval.jsonl"), [trainedCartPole(1000, 30), trainedCartPole(1001, 12)].map((e) => JSON.stringify(e) + "\n").join(""))
    writeSkills(root, [
      skillRecord("push_box", 3, { calls: 40, successes: 30, meanReturn: 2.5 }, 2),
      skillRecord("walk_to", 1, { calls: 100, successes: 99, meanReturn: 0.5 }),
      skillRecord("unused", 1, { calls: 10, successes: 0, meanReturn: -1 })
    ])
    writeMemory(root, { trajectory: 12, insight: 4, reflection: 2, tip: 1 })
    writeMemory(path.join(root, "cartpole-s3"))
    writeRun(root, { name: "kuhn-cfr", config: { command: "games", game: "kuhn_poker", solver: "cfr+" }, rows: Array.from({ length: 100 }, (_, i) => ({ kind: "iteration", iteration: i + 1, nashConv: 0.5 / (i + 1) })) })
    // a malformed line (reported with its line number under the table) and a half-written last line
    const fl = writeRun(root, { name: "frozenlake", config: { command: "train", env: "FrozenLake-v1", algo: "ppo", seed: 1 }, rows: learningRows(40, 1), tail: 'not json\n{"kind":"epis' })
    fs.mkdirSync(path.join(fl, "trajectories"))
    fs.writeFileSync(path.join(fl, "trajectories", "a-frozenlake.jsonl"), JSON.stringify(frozenLakeEpisode) + "\n")
    fs.writeFileSync(path.join(fl, "trajectories", "b-cartpole.jsonl"), JSON.stringify(cartPoleEpisode) + "\n")
    fs.writeFileSync(path.join(fl, "trajectories", "c-text.jsonl"), TextEpisode.toJsonLine(textEpisode))
    opened = await openDashboard(root, chromium, errors, { viewport: { width: 1280, height: 1100 } })
    page = opened.page
  })

  afterAll(async () => {
    await opened?.close()
  })

  it("shows the runs table, filters and sorts it", async () => {
    const names = await page.$$eval("#runs tbody tr", (trs) => trs.map((tr) => (tr as HTMLElement).dataset["run"]))
    expect(names).toEqual(["cartpole-s1", "cartpole-s2", "cartpole-s3", "frozenlake", "kuhn-cfr"])
    const cells = await page.$$eval("#runs tbody tr[data-run='cartpole-s2'] td", (tds) => tds.map((td) => td.textContent))
    expect(cells.slice(1, 7)).toEqual(["cartpole-s2", "CartPole-v1", "ppo", "2", "6000", "300"])
    expect(await page.getAttribute("#runs tbody tr[data-run='frozenlake']", "title")).toContain("incomplete")
    // warnings are listed under the table, the malformed line with its line number
    const warned = await page.$$eval("#run-warnings li[data-run='frozenlake']", (lis) => lis.map((li) => li.textContent))
    expect(warned).toContain(`frozenlake: metrics.jsonl line ${learningRows(40, 1).length + 1} is not a JSON object; skipped`)
    expect(warned.some((w) => w?.includes("incomplete"))).toBe(true)
    await page.fill("#filter", "kuhn")
    expect(await page.$$eval("#runs tbody tr", (trs) => trs.length)).toBe(1)
    await page.fill("#filter", "")
    await page.click("th[data-key='bestReturn']")
    await page.click("th[data-key='bestReturn']")
    const best = await page.$$eval("#runs tbody td.bestReturn", (tds) => tds.map((td) => Number(td.textContent)).filter((v) => v > 0))
    expect(best).toEqual([...best].sort((a, b) => b - a))
    await page.screenshot({ path: path.join(shots, "01-table-and-chart.png"), fullPage: true })
  })

  it("draws the learning curves on the canvas", async () => {
    const legend = await page.$$eval("#chart .u-legend .u-series .u-label", (els) => els.map((e) => e.textContent))
    expect(legend).toEqual(expect.arrayContaining(["cartpole-s1", "cartpole-s2", "cartpole-s3"]))
    const inked = await page.evaluate(() => {
      const u = (window as any).autodidact.chart
      const canvas = document.querySelector("#chart canvas") as HTMLCanvasElement
      const ctx = canvas.getContext("2d")!
      const { left, top, width, height } = u.bbox
      const img = ctx.getImageData(left, top, width, height).data
      let n = 0
      for (let i = 0; i < img.length; i += 4) if (img[i + 3]! > 0 && img[i]! + img[i + 1]! + img[i + 2]! < 600) n++
      return n
    })
    expect(inked).toBeGreaterThan(500)
  })

  it("changes the curves with the smoothing slider", async () => {
    const setSmoothing = async (v: number) => {
      await page.evaluate((v) => {
        const el = document.getElementById("smoothing") as HTMLInputElement
        el.value = String(v)
        el.dispatchEvent(new Event("input"))
      }, v)
      await page.waitForFunction((v) => (window as any).autodidact.lastResult?.smoothing === v, v)
    }
    await setSmoothing(0)
    const raw = await page.evaluate(() => (window as any).autodidact.lastResult.series[0].y.slice(0, 3))
    // learningRows(300, 1): the first returns, unsmoothed
    const expected = learningRows(300, 1).filter((r) => r["kind"] === "episode").slice(0, 3).map((r) => r["episodeReturn"])
    expect(raw).toEqual(expected)
    await setSmoothing(0.9)
    const smoothed = await page.evaluate(() => (window as any).autodidact.lastResult.series[0].y.slice(0, 3))
    expect(smoothed[0]).toBe(expected[0])
    expect(smoothed[1]).toBeCloseTo((0.09 * (expected[0] as number) + 0.1 * (expected[1] as number)) / (1 - 0.81), 9)
    expect(await page.textContent("#smoothing-value")).toBe("0.90")
  })

  it("draws seed bands when grouped", async () => {
    await page.check("#group")
    await page.waitForFunction(() => (window as any).autodidact.lastResult?.bands?.length > 0)
    const labels = await page.$$eval("#chart .u-legend .u-series .u-label", (els) => els.map((e) => e.textContent))
    expect(labels).toContain("CartPole-v1 ppo (n=3)")
    // the band edges are drawn but not listed
    expect(labels.filter((l) => / (hi|lo)$/.test(l ?? ""))).toEqual([])
    await page.screenshot({ path: path.join(shots, "02-bands.png"), fullPage: true })
    await page.uncheck("#group")
  })

  it("shows NashConv on a log scale for game solvers", async () => {
    expect(await page.isVisible("#nash-section")).toBe(true)
    const distr = await page.evaluate(() => (window as any).autodidact.nashChart.scales.y.distr)
    expect(distr).toBe(3)
    const xLabels = await page.evaluate(() => {
      const u = (window as any).autodidact.nashChart
      return [u.axes[0].label, u.series[0].label]
    })
    expect(xLabels).toEqual(["iteration", "iteration"])
  })

  it("shows memory and skills of the runs directory and of a run", async () => {
    expect(await page.isVisible("#library")).toBe(true)
    expect(await page.$$eval("#lib-source option", (os) => os.map((o) => [(o as HTMLOptionElement).value, o.textContent]))).toEqual([
      ["", "runs directory"],
      ["cartpole-s3", "cartpole-s3"]
    ])
    await page.waitForSelector("#skills-panel")
    expect(await page.textContent("#skills-counts")).toBe("3 skills · 5 versions · 150 calls")
    const top = await page.$$eval("#skills-top tbody tr", (trs) => trs.map((tr) => Array.from(tr.querySelectorAll("td"), (td) => td.textContent)))
    expect(top).toEqual([
      ["walk_to", "100", "99%", "0.50", "1 / 1"],
      ["push_box", "40", "75%", "2.50", "2 / 3"],
      ["unused", "10", "0%", "-1", "1 / 1"]
    ])
    const memory = await page.$$eval("#memory-counts tbody tr", (trs) => trs.map((tr) => Array.from(tr.querySelectorAll("td"), (td) => td.textContent)))
    expect(memory).toEqual([
      ["insight", "4"],
      ["reflection", "2"],
      ["tip", "1"],
      ["trajectory", "12"],
      ["total", "19"]
    ])
    await page.locator("#library").screenshot({ path: path.join(shots, "05-memory-skills.png") })
    await page.selectOption("#lib-source", "cartpole-s3")
    await page.waitForFunction(() => document.querySelector("#skills-panel") === null && document.querySelector("#memory-panel") !== null)
    expect(await page.textContent("#memory-panel")).toContain("no memory-summary.json")
    await page.selectOption("#lib-source", "")
    await page.waitForSelector("#skills-panel")
  })

  it("renders CartPole episodes written by train --save-trajectories on a canvas", async () => {
    expect(await page.isVisible("#viewer")).toBe(true)
    await page.waitForSelector("#episode-view canvas")
    expect(await page.inputValue("#traj-run")).toBe("cartpole-s1")
    expect(await page.$$eval("#traj-file option", (os) => os.map((o) => o.textContent))).toEqual(["eval.jsonl (2)"])
    expect(await page.textContent("#episode-meta")).toContain("CartPole-v1 · seed 1000 · return 30 · length 30")
    const pixels = () =>
      page.evaluate(() => {
        const c = document.querySelector("#episode-view canvas") as HTMLCanvasElement
        const d = c.getContext("2d")!.getImageData(0, 0, c.width, c.height).data
        let n = 0
        let h = 0
        for (let i = 0; i < d.length; i += 4) {
          if (d[i + 3]! === 0) continue
          n++
          h = (h * 31 + i) % 1_000_000_007
        }
        return { n, h }
      })
    const first = await pixels()
    expect(first.n).toBeGreaterThan(1000)
    for (let i = 0; i < 20; i++) await page.click("#step-next")
    expect(await page.textContent("#step-label")).toContain("step 20 / 30")
    const later = await pixels()
    expect(later.h).not.toBe(first.h) // the cart moved and the pole tilted
    // the end: the final observation is drawn
    await page.evaluate(() => {
      const el = document.getElementById("step-slider") as HTMLInputElement
      el.value = "30"
      el.dispatchEvent(new Event("input"))
    })
    expect(await page.textContent("#step-label")).toContain("step 30 / 30 · end")
    expect(await page.$("#episode-view canvas")).not.toBeNull()
    await page.fill("#traj-episode", "1")
    await page.dispatchEvent("#traj-episode", "change")
    await page.waitForFunction(() => (document.getElementById("episode-meta")?.textContent ?? "").includes("length 12"))
    await page.locator("#viewer").screenshot({ path: path.join(shots, "06-cartpole-trained.png") })
  })

  it("updates live when rows are appended", async () => {
    const before = Number(await page.getAttribute("body", "data-updates") ?? "0")
    const rows = Array.from({ length: 50 }, (_, i) => JSON.stringify({ kind: "episode", globalStep: 7000 + i * 20, episodeReturn: 500, episodeLength: 500, wallSeconds: 8 }) + "\n").join("")
    fs.appendFileSync(path.join(root, "cartpole-s1", "metrics.jsonl"), rows)
    await page.waitForFunction((b) => Number(document.body.dataset["updates"] ?? "0") > b, before, { timeout: 10_000 })
    expect(await page.textContent("#runs tbody tr[data-run='cartpole-s1'] td.steps")).toBe("7980")
    const lastX = await page.evaluate(() => {
      const s = (window as any).autodidact.lastResult.series.find((s: any) => s.run === "cartpole-s1")
      return s.x[s.x.length - 1]
    })
    expect(lastX).toBe(7980)
    await page.screenshot({ path: path.join(shots, "03-live-update.png"), fullPage: true })
  })

  it("steps through episodes in the viewer", async () => {
    await page.selectOption("#traj-run", "frozenlake")
    await page.waitForSelector("#episode-view .frame")
    expect(await page.textContent("#episode-view .frame")).toBe("@FFF\nFHFH\nFFFH\nHFFG")
    await page.click("#step-next")
    expect(await page.textContent("#episode-view .frame")).toBe("SFFF\n@HFH\nFFFH\nHFFG")
    for (let i = 0; i < 5; i++) await page.click("#step-next")
    expect(await page.textContent("#step-label")).toContain("step 6 / 6")
    expect(await page.textContent("#episode-view .frame")).toBe("SFFF\nFHFH\nFFFH\nHFF@")
    await page.selectOption("#traj-file", "b-cartpole.jsonl")
    await page.waitForSelector("#episode-view canvas")
    await page.click("#step-next")
    expect(await page.textContent("#step-label")).toContain("step 1 / 20")
    const inked = await page.evaluate(() => {
      const c = document.querySelector("#episode-view canvas") as HTMLCanvasElement
      const d = c.getContext("2d")!.getImageData(0, 0, c.width, c.height).data
      let n = 0
      for (let i = 0; i < d.length; i += 4) if (d[i + 3]! > 0) n++
      return n
    })
    expect(inked).toBeGreaterThan(1000)
    await page.locator("#viewer").screenshot({ path: path.join(shots, "04-episode-viewer.png") })
  })

  it("shows a text episode as a transcript: observation, action, reward, terminated/truncated per step", async () => {
    await page.selectOption("#traj-run", "frozenlake")
    // selecting the run reloads its file list and shows the first file (a FrozenLake grid) before the text file is picked
    await page.waitForSelector("#episode-view .frame")
    await page.selectOption("#traj-file", "c-text.jsonl")
    await page.waitForFunction(() => document.querySelectorAll("#episode-view .transcript .turn").length === 3)
    expect(await page.textContent("#episode-meta")).toContain("TextHousehold-v0 · seed 5 · return 1 · length 2")
    const turns = () => page.$$eval("#episode-view .turn", (ts) => ts.map((t) => ({
      observation: t.querySelector(".observation")?.textContent,
      action: t.querySelector(".action")?.textContent ?? null,
      status: t.querySelector(".status")?.textContent,
      current: t.classList.contains("current")
    })))
    expect(await turns()).toEqual([
      { observation: textEpisode.steps[0]!.observation, action: "> go to countertop 1", status: "reward 0 · terminated false · truncated false", current: true },
      { observation: textEpisode.steps[1]!.observation, action: "> take mug 1 from countertop 1", status: "reward 1 · terminated true · truncated false", current: false },
      { observation: "You pick up the mug 1 from the countertop 1.", action: null, status: "end · return 1", current: false }
    ])
    await page.click("#step-next")
    expect((await turns()).map((t) => t.current)).toEqual([false, true, false])
    expect(await page.textContent("#step-label")).toContain("step 1 / 2")
    await page.locator("#viewer").screenshot({ path: path.join(shots, "07-text-episode.png") })
  })

  it("logged no page errors", () => {
    expect(errors).toEqual([])
  })
})

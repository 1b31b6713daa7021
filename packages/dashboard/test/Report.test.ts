import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { renderPng, writeReport } from "../src/Report.js"
import { cartPoleConfig, learningRows, tempDir, writeRun } from "./fixtures.js"

describe("writeReport", () => {
  it("writes one self-contained HTML file with the data and scripts inlined", async () => {
    const root = tempDir()
    for (const s of [1, 2]) writeRun(root, { name: `cp-${s}`, config: cartPoleConfig(s), rows: learningRows(100, s) })
    writeRun(root, { name: "kuhn", config: { game: "kuhn_poker", solver: "cfr" }, rows: [{ iteration: 1, nashConv: 0.5 }, { iteration: 2, nashConv: 0.25 }] })
    const out = await Effect.runPromise(writeReport({ runsDir: root, out: path.join(root, "out", "report.html") }))
    const page = fs.readFileSync(out, "utf8")
    expect(page).not.toMatch(/<script[^>]+src=/)
    expect(page).not.toMatch(/<link[^>]+href=/)
    expect(page).toContain("uPlot")
    const json = /<script type="application\/json" id="report-data">(.*?)<\/script>/s.exec(page)![1]!
    const data = JSON.parse(json) as { runs: Array<{ name: string }>; charts: Array<{ title: string; mode: string; logY: boolean }> }
    expect(data.runs.map((r) => r.name)).toEqual(["cp-1", "cp-2", "kuhn"])
    expect(data.charts.some((c) => c.mode === "bands")).toBe(true)
    expect(data.charts.find((c) => c.title.startsWith("NashConv"))!.logY).toBe(true)
  })

  it("fails with ChromiumNotFoundError when PNG is asked for without Chromium", async () => {
    const exit = await Effect.runPromiseExit(renderPng("<html></html>", "/tmp/never.png", "/nonexistent/chromium"))
    expect(exit._tag).toBe("Failure")
    expect(JSON.stringify(exit)).toContain("ChromiumNotFoundError")
  })
})

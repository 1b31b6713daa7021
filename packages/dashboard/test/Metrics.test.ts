import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { epochColumns, MetricsReader, runnerStat } from "../src/Metrics.js"
import { RunStore, runnersView } from "../src/Runs.js"
import { writeReport } from "../src/Report.js"
import { serve } from "../src/Server.js"
import { clusterRows, epochRows, tempDir, writeRun } from "./fixtures.js"

/** A `runner` row as `@autodidact/cluster`'s Trainer writes it (`RunnerRow`). */
const runnerRow = (runner: string, globalStep: number, over: Record<string, unknown> = {}) => ({
  kind: "runner",
  runner,
  globalStep,
  wallSeconds: 2,
  episodes: 8,
  steps: 160,
  episodesPerSecond: 4,
  stepsPerSecond: 80,
  meanPolicyLag: 0.5,
  maxPolicyLag: 1,
  failures: 0,
  storageRetries: 0,
  sendRetries: 0,
  duplicatesDropped: 0,
  ...over
})

describe("runnerStat", () => {
  it("keeps every field of a Trainer runner row", () => {
    expect(runnerStat(runnerRow("127.0.0.1:5001", 320, { failures: 2, storageRetries: 3, sendRetries: 4, duplicatesDropped: 1 }))).toEqual({
      runner: "127.0.0.1:5001",
      globalStep: 320,
      wallSeconds: 2,
      episodes: 8,
      steps: 160,
      episodesPerSecond: 4,
      stepsPerSecond: 80,
      meanPolicyLag: 0.5,
      maxPolicyLag: 1,
      failures: 2,
      storageRetries: 3,
      sendRetries: 4,
      duplicatesDropped: 1
    })
  })

  it("defaults the optional retry counters to 0 and refuses missing, non-finite or negative values, naming them", () => {
    const { storageRetries: _a, sendRetries: _b, duplicatesDropped: _c, ...bare } = runnerRow("r", 10)
    expect(runnerStat(bare)).toMatchObject({ storageRetries: 0, sendRetries: 0, duplicatesDropped: 0 })
    expect(runnerStat(runnerRow("", 10))).toEqual({ invalid: expect.stringContaining("runner must be") })
    expect(runnerStat({ ...runnerRow("r", 10), runner: 7 })).toEqual({ invalid: expect.stringContaining("7") })
    expect(runnerStat(runnerRow("r", 10, { failures: -1 }))).toEqual({ invalid: expect.stringMatching(/^failures .*-1 \(runner r\)$/) })
    expect(runnerStat(runnerRow("r", 10, { stepsPerSecond: null }))).toEqual({ invalid: expect.stringMatching(/^stepsPerSecond .*null/) })
    const { meanPolicyLag: _d, ...noLag } = runnerRow("r", 10)
    expect(runnerStat(noLag)).toEqual({ invalid: expect.stringMatching(/^meanPolicyLag /) })
  })
})

describe("epochColumns", () => {
  it("prefixes an epoch row's numbers with epoch., skips the axes and nested objects, adds epoch.tokens", () => {
    const cols = epochColumns({
      kind: "epoch",
      epoch: 2,
      successRate: 0.5,
      meanReward: 0.25,
      episodes: 9,
      operations: { add: 1, modify: 0, delete: 0, none: 0, skipped: 0, invalid: 0 },
      librarySize: 3,
      inputTokens: 1200,
      outputTokens: 34,
      wallSeconds: 7.5
    })
    expect(Object.fromEntries(cols)).toEqual({
      "epoch.successRate": 0.5,
      "epoch.meanReward": 0.25,
      "epoch.episodes": 9,
      "epoch.librarySize": 3,
      "epoch.inputTokens": 1200,
      "epoch.outputTokens": 34,
      "epoch.tokens": 1234
    })
    expect(epochColumns({ kind: "epoch", epoch: 0, inputTokens: 5 }).map(([k]) => k)).toEqual(["epoch.inputTokens"])
  })
})

describe("MetricsReader on cluster and agent runs", () => {
  it("keeps the latest row per runner out of the plotted columns, and counts invalid runner rows", async () => {
    const dir = tempDir()
    const file = path.join(dir, "metrics.jsonl")
    const rows = [
      { kind: "episode", globalStep: 20, episodeReturn: 20, episodeLength: 20, wallSeconds: 0.5, episodeId: 0, policyVersion: 0, runner: "127.0.0.1:5001" },
      runnerRow("127.0.0.1:5002", 160, { episodes: 3, steps: 60 }),
      runnerRow("127.0.0.1:5001", 160, { episodes: 5, steps: 100 }),
      runnerRow("127.0.0.1:5001", 320, { episodes: 9, steps: 190, maxPolicyLag: 2, sendRetries: 5 }),
      runnerRow("127.0.0.1:5002", 320, { episodes: 7, steps: 130, failures: 1, sendRetries: 5 }),
      runnerRow("127.0.0.1:5003", 320, { stepsPerSecond: "fast" })
    ]
    fs.writeFileSync(file, rows.map((r) => JSON.stringify(r) + "\n").join(""))
    const reader = new MetricsReader(file)
    await reader.refresh()
    expect([...reader.columns.keys()].sort()).toEqual(["episodeId", "episodeLength", "episodeReturn", "policyVersion"])
    expect([...reader.runners.keys()].sort()).toEqual(["127.0.0.1:5001", "127.0.0.1:5002"])
    expect(reader.runners.get("127.0.0.1:5001")).toMatchObject({ globalStep: 320, episodes: 9, steps: 190, maxPolicyLag: 2 })
    expect(reader.invalidRunnerRows).toBe(1)
    expect(reader.invalidRunnerReason).toContain("stepsPerSecond")
    expect(reader.lastStep).toBe(320)

    // the view: sums over the latest rows (9 + 7 episodes, 190 + 130 steps, 80 + 80 steps/s, 0 + 1 failures)
    const view = runnersView("r", reader.runners.values())
    expect(view.runners.map((r) => r.runner)).toEqual(["127.0.0.1:5001", "127.0.0.1:5002"])
    expect(view.total).toEqual({ episodes: 16, steps: 320, episodesPerSecond: 8, stepsPerSecond: 160, failures: 1 })
    expect(view).toMatchObject({ globalStep: 320, sendRetries: 5, duplicatesDropped: 0 })
    expect(runnersView("none", [])).toEqual({ run: "none", runners: [], total: { episodes: 0, steps: 0, episodesPerSecond: 0, stepsPerSecond: 0, failures: 0 }, globalStep: 0, sendRetries: 0, duplicatesDropped: 0 })
  })

  it("plots epoch rows by epoch as epoch.* series, apart from the evaluation rows' successRate", async () => {
    const root = tempDir()
    writeRun(root, { name: "agent", config: { command: "agent train", env: "TextFrozenLake-v1", method: "training-free-grpo", seed: 1 }, rows: epochRows([0.2, 0.4, 0.7], [0, 2, 3], [0.3, 0.6]) })
    const store = new RunStore(root)
    await store.refresh()
    const reader = store.reader("agent")!
    expect(reader.columns.get("epoch.successRate")).toEqual({ step: [0, 1, 2], wall: [10, 20, 30], value: [0.2, 0.4, 0.7] })
    expect(reader.columns.get("epoch.librarySize")!.value).toEqual([0, 2, 3])
    // tokens: epoch e used 1000 (e + 1) input and 100 (e + 1) output tokens
    expect(reader.columns.get("epoch.tokens")!.value).toEqual([1100, 2200, 3300])
    // the evaluation rows (after epochs 0 and 1) keep their own column, at their epoch
    expect(reader.columns.get("successRate")).toEqual({ step: [0, 1], wall: [11, 21], value: [0.3, 0.6] })
    expect(reader.columns.has("epoch")).toBe(false)
    const [summary] = store.summaries()
    expect(summary).toMatchObject({ epochs: 3, runners: 0, episodes: 0, steps: 2, status: "running" })
    expect(summary!.warnings).toEqual([])
    expect(store.series({ metric: "epoch.successRate", runs: ["agent"] }).series[0]).toMatchObject({ x: [0, 1, 2], y: [0.2, 0.4, 0.7], points: 3 })
  })

  it("serves the runners table at /api/runners (empty for a run without runners; 400 without a name, 404 for unknown or outside names)", async () => {
    const root = tempDir()
    writeRun(root, { name: "cluster", config: { command: "train", env: "CartPole-v1", algo: "ppo", seed: 1, cluster: "postgres://x@127.0.0.1:1/db" }, rows: clusterRows(["127.0.0.1:5001", "127.0.0.1:5002"], 3) })
    writeRun(root, { name: "agent", config: { command: "agent train", seed: 1 }, rows: epochRows([0.5], [1], []) })
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const d = yield* serve({ runsDir: root, port: 0, pollMs: 50 })
          const get = (q: string) => Effect.promise(async () => {
            const r = await fetch(d.url + q)
            return { status: r.status, body: (await r.json()) as any }
          })
          const runs = yield* get("api/runs")
          expect(runs.body.runs.map((r: any) => [r.name, r.runners, r.epochs])).toEqual([["agent", 0, 1], ["cluster", 2, 0]])
          const cluster = yield* get("api/runners?run=cluster")
          expect(cluster.status).toBe(200)
          // clusterRows: 3 updates of 8 episodes, runner i (0-based) got 4 + (i === 0 ? 1 : -1) episodes per update
          expect(cluster.body.runners.map((r: any) => [r.runner, r.episodes, r.globalStep])).toEqual([["127.0.0.1:5001", 15, 480], ["127.0.0.1:5002", 9, 480]])
          expect(cluster.body.total.episodes).toBe(24)
          expect((yield* get("api/runners?run=agent")).body.runners).toEqual([])
          expect((yield* get("api/runners?run=missing")).status).toBe(404)
          expect((yield* get("api/runners")).status).toBe(400)
          expect((yield* get("api/runners?run=..%2Fetc")).status).toBe(404) // outside the runs directory: 404 like a missing run
        })
      )
    )
  })

  it("puts the runners table and unsmoothed epoch charts in the report", async () => {
    const root = tempDir()
    writeRun(root, { name: "cluster", config: { command: "train", env: "CartPole-v1", algo: "ppo", seed: 1 }, rows: clusterRows(["127.0.0.1:5001"], 2) })
    writeRun(root, { name: "agent", config: { command: "agent train", seed: 1 }, rows: epochRows([0.2, 0.4, 0.7], [0, 2, 3], []) })
    const out = await Effect.runPromise(writeReport({ runsDir: root, out: path.join(root, "report.html") }))
    const json = /<script type="application\/json" id="report-data">(.*?)<\/script>/s.exec(fs.readFileSync(out, "utf8"))![1]!
    const data = JSON.parse(json) as { runners: Array<any>; charts: Array<{ title: string; result: { series: Array<{ run: string; y: Array<number> }> } }> }
    // one runner got all 2 × 8 episodes of 20 steps
    expect(data.runners.map((v) => [v.run, v.runners.map((r: any) => [r.runner, r.episodes, r.steps])])).toEqual([["cluster", [["127.0.0.1:5001", 16, 320]]]])
    const success = data.charts.find((c) => c.title === "epoch.successRate by epoch")!
    expect(success.result.series).toMatchObject([{ run: "agent", y: [0.2, 0.4, 0.7] }])
    expect(data.charts.map((c) => c.title)).not.toContain("stepsPerSecond (EMA 0.6)")
  })
})

import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import * as Runs from "../src/Runs.js"
import { serve } from "../src/Server.js"
import { cartPoleConfig, tempDir, viewsRuns, writeRun } from "./fixtures.js"

describe("Runs.flattenConfig", () => {
  it("walks nested objects into sorted dotted keys, arrays as JSON, versions left out", () => {
    expect(Object.entries(Runs.flattenConfig({ z: 1, ppo: { lr: 3e-4, sizes: [64, 64], opt: {} }, env: "CartPole-v1", on: true, none: null, versions: { core: "0.1.0" } }))).toEqual([
      ["env", "CartPole-v1"],
      ["none", null],
      ["on", true],
      ["ppo.lr", 3e-4],
      ["ppo.opt", "{}"],
      ["ppo.sizes", "[64,64]"],
      ["z", 1]
    ])
    expect(Runs.flattenConfig("not an object")).toEqual({})
  })
})

describe("Runs.configDiff", () => {
  it("puts configs side by side and marks differing, missing and volatile keys", () => {
    const d = Runs.configDiff([
      { name: "a", config: cartPoleConfig(1) },
      { name: "b", config: cartPoleConfig(2, { ppo: { learningRate: 0.001, seed: 2 } }) },
      { name: "c", config: { ...cartPoleConfig(1), gamma: 0.9 } }
    ])
    expect(d.runs).toEqual(["a", "b", "c"])
    const row = (k: string) => d.rows.find((r) => r.key === k)!
    expect(row("ppo.learningRate")).toEqual({ key: "ppo.learningRate", values: [0.00025, 0.001, 0.00025], differs: true, volatile: false })
    expect(row("env")).toEqual({ key: "env", values: ["CartPole-v1", "CartPole-v1", "CartPole-v1"], differs: false, volatile: false })
    expect(row("gamma")).toEqual({ key: "gamma", values: [undefined, undefined, 0.9], differs: true, volatile: false })
    expect(row("startedAt").differs).toBe(true)
    expect(row("startedAt").volatile).toBe(true)
    expect(d.rows.some((r) => r.key.startsWith("versions"))).toBe(false)
    expect(d.varying).toEqual(["gamma", "ppo.learningRate", "ppo.seed", "seed"])
  })
})

describe("Runs.seriesCsv", () => {
  it("writes run, x and metric columns, quoting run names with commas or quotes, numbers exact", () => {
    const csv = Runs.seriesCsv({
      metric: "episodeReturn",
      xAxis: "wall",
      smoothing: 0,
      bands: [],
      series: [
        { run: "a", group: "", x: [0.1, 0.2], y: [1 / 3, -2], points: 2 },
        { run: 'b,"x"', group: "", x: [5], y: [1e-7], points: 1 }
      ]
    })
    expect(csv).toBe('run,wallSeconds,episodeReturn\r\na,0.1,0.3333333333333333\r\na,0.2,-2\r\n"b,""x""",5,1e-7\r\n')
    expect(Number(csv.split("\r\n")[1]!.split(",")[2])).toBe(1 / 3)
  })
})

describe("runs table: final metrics, evaluation success, throughput", () => {
  it("reads them from the rows", async () => {
    const root = tempDir()
    viewsRuns(root)
    writeRun(root, { name: "plain", config: cartPoleConfig(9), rows: [{ kind: "episode", globalStep: 500, episodeReturn: 3, episodeLength: 3, wallSeconds: 2 }] })
    const rows = await Effect.runPromise(Runs.scan(root))
    const r = rows.find((x) => x.name === "cart-lr4-s1")!
    expect(r.evalSuccess).toBe(0.9)
    expect(r.finals["successRate"]).toBe(0.9)
    expect(r.finals["nashConv"]).toBeUndefined()
    expect(r.config["ppo.learningRate"]).toBe(0.001)
    // the last system row: steps 2400 at 2.41 s after 2200 at 2.21 s (withSystemRows)
    expect(r.stepsPerSecond).toBeCloseTo(200 / 0.2, 6)
    expect(rows.find((x) => x.name === "kuhn-cfr")!.finals["nashConv"]).toBe(0.01)
    expect(rows.find((x) => x.name === "kuhn-cfr")!.evalSuccess).toBeNull()
    const plain = rows.find((x) => x.name === "plain")!
    expect(plain.stepsPerSecond).toBe(250) // no system rows: 500 steps / 2 s
    expect(plain.evalSuccess).toBeNull()
  })

  it("serves the config diff and the series as CSV", async () => {
    const root = tempDir()
    viewsRuns(root)
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const d = yield* serve({ runsDir: root, port: 0 })
          const diff = yield* Effect.promise(async () => (await fetch(d.url + "api/config?run=frozen-g90&run=frozen-g99")).json() as Promise<Runs.ConfigDiff>)
          expect(diff.varying).toEqual(["dqn.gamma", "seed"])
          const res = yield* Effect.promise(() => fetch(d.url + "api/series.csv?metric=nashConv&run=kuhn-cfr"))
          expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8")
          expect(res.headers.get("content-disposition")).toBe('attachment; filename="nashConv.csv"')
          const lines = (yield* Effect.promise(() => res.text())).split("\r\n")
          expect(lines.slice(0, 3)).toEqual(["run,globalStep,nashConv", "kuhn-cfr,1,0.5", "kuhn-cfr,2,0.25"])
          expect(lines.length).toBe(52) // header, 50 rows, the empty string after the last line end
          expect((yield* Effect.promise(() => fetch(d.url + "api/config?run=../x"))).status).toBe(404)
          const named = yield* Effect.promise(() => fetch(d.url + "api/series.csv?metric=nashConv&run=kuhn-cfr&name=" + encodeURIComponent("kuhn/poker nash")))
          expect(named.headers.get("content-disposition")).toBe('attachment; filename="kuhn_poker_nash.csv"')
        })
      )
    )
  })
})

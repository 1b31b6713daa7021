import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { describe, expect, it } from "vitest"

interface RunRow { name: string; env: string; metrics: Array<string> }
/** The views' pure helpers (`ui/views.js`, plain JS served to the browser). */
const ui = (await import(pathToFileURL(path.join(import.meta.dirname, "..", "ui", "views.js")).href)) as {
  groupByEnv: (runs: ReadonlyArray<RunRow>, only?: ReadonlySet<string>) => Array<{ env: string; label: string; runs: Array<string> }>
  gridMetrics: (runs: ReadonlyArray<RunRow>, choose: string) => Array<string>
  chartEnv: (groups: ReadonlyArray<{ env: string; runs: Array<string> }>, current: string) => string
}

const runs: Array<RunRow> = [
  { name: "a", env: "FrozenLake-v1", metrics: ["episodeReturn", "zeta"] },
  { name: "b", env: "", metrics: ["nashConv"] },
  { name: "c", env: "CartPole-v1", metrics: ["policyLoss", "episodeReturn", "alpha"] },
  { name: "d", env: "FrozenLake-v1", metrics: ["episodeLength"] }
]

describe("views: grouping by environment", () => {
  it("groups runs by env, envs sorted, the env-less group last, runs in the order given", () => {
    expect(ui.groupByEnv(runs)).toEqual([
      { env: "CartPole-v1", label: "CartPole-v1", runs: ["c"] },
      { env: "FrozenLake-v1", label: "FrozenLake-v1", runs: ["a", "d"] },
      { env: "", label: "(no env)", runs: ["b"] }
    ])
  })

  it("considers only the given runs", () => {
    expect(ui.groupByEnv(runs, new Set(["d", "b"]))).toEqual([
      { env: "FrozenLake-v1", label: "FrozenLake-v1", runs: ["d"] },
      { env: "", label: "(no env)", runs: ["b"] }
    ])
  })

  it("lists a group's metrics standard names first, then alphabetically, and filters them", () => {
    expect(ui.gridMetrics(runs, "")).toEqual(["episodeReturn", "episodeLength", "nashConv", "policyLoss", "alpha", "zeta"])
    expect(ui.gridMetrics(runs, "EPISODE, zet")).toEqual(["episodeReturn", "episodeLength", "zeta"])
    expect(ui.gridMetrics([], "")).toEqual([])
  })

  it("keeps the large chart's env while it is selected, else picks the largest group", () => {
    const groups = ui.groupByEnv(runs)
    expect(ui.chartEnv(groups, "CartPole-v1")).toBe("CartPole-v1")
    expect(ui.chartEnv(groups, "gone")).toBe("FrozenLake-v1")
    expect(ui.chartEnv([], "x")).toBe("")
  })
})

interface Row { name: string; env: string; algo: string; status: string; seed: number | null; steps: number; evalSuccess: number | null; config: Record<string, unknown>; finals: Record<string, number> }
const views = ui as unknown as {
  runValue: (r: Row, key: string) => unknown
  matchesFilter: (r: Row, q: string) => boolean
  compareValues: (x: unknown, y: unknown, dir: number) => number
  parallelCoords: (runs: ReadonlyArray<Row>, keys: ReadonlyArray<string>, metric: string) => {
    axes: Array<{ key: string; kind: string; min?: number; max?: number; categories?: Array<string> }>
    lines: Array<{ run: string; value: number; ys: Array<number | null>; t: number }>
    missing: Array<string>
  }
  parallelSvg: (pc: unknown, w: number, h: number) => string
}
const row = (name: string, lr: number | undefined, opt: string, ret: number | undefined, evalSuccess: number | null): Row => ({
  name, env: "CartPole-v1", algo: "ppo", status: "finished", seed: 1, steps: 100, evalSuccess,
  config: { ...(lr === undefined ? {} : { "ppo.learningRate": lr }), "ppo.optimizer": opt, env: "CartPole-v1" },
  finals: ret === undefined ? {} : { episodeReturn: ret }
})
const rows = [row("a", 0.001, "adam", 400, 0.9), row("b", 0.0003, "sgd", 200, null), row("c", undefined, "adam", undefined, 0.5)]

describe("views: filter and sort by config values and final metrics", () => {
  it("looks values up in the table fields, the config and the final metrics", () => {
    expect(views.runValue(rows[0]!, "ppo.learningRate")).toBe(0.001)
    expect(views.runValue(rows[0]!, "config.ppo.learningRate")).toBe(0.001)
    expect(views.runValue(rows[0]!, "final.episodeReturn")).toBe(400)
    expect(views.runValue(rows[0]!, "episodeReturn")).toBe(400)
    expect(views.runValue(rows[1]!, "evalSuccess")).toBeUndefined()
    expect(views.runValue(rows[0]!, "steps")).toBe(100)
  })

  it("keeps the runs every term holds for", () => {
    const names = (q: string) => rows.filter((r) => views.matchesFilter(r, q)).map((r) => r.name)
    expect(names("ppo.learningRate>=0.0005")).toEqual(["a"])
    expect(names("ppo.learningRate<0.0005")).toEqual(["b"]) // c has no learning rate: fails the term
    expect(names("final.episodeReturn>100 ppo.optimizer=ADAM")).toEqual(["a"])
    expect(names("ppo.optimizer!=adam")).toEqual(["b"])
    expect(names("evalSuccess>=0.5")).toEqual(["a", "c"])
    expect(names("env~pole")).toEqual(["a", "b", "c"])
    expect(names("b")).toEqual(["b"]) // plain text: name, env, algo, status or seed
    expect(names("")).toEqual(["a", "b", "c"])
  })

  it("sorts numbers numerically, text as text, missing values last in both directions", () => {
    const vals = [3, undefined, 10, 2]
    expect([...vals].sort((x, y) => views.compareValues(x, y, 1))).toEqual([2, 3, 10, undefined])
    expect([...vals].sort((x, y) => views.compareValues(x, y, -1))).toEqual([10, 3, 2, undefined])
    expect(["b", "a"].sort((x, y) => views.compareValues(x, y, 1))).toEqual(["a", "b"])
  })
})

describe("views: parallel coordinates", () => {
  it("scales numeric axes to [min, max], spaces categories evenly, colours by the metric", () => {
    const pc = views.parallelCoords(rows, ["ppo.learningRate", "ppo.optimizer"], "final.episodeReturn")
    expect(pc.missing).toEqual(["c"])
    expect(pc.axes).toEqual([
      { key: "ppo.learningRate", kind: "number", min: 0.0003, max: 0.001 },
      { key: "ppo.optimizer", kind: "category", categories: ["adam", "sgd"] },
      { key: "final.episodeReturn", kind: "number", min: 200, max: 400 }
    ])
    expect(pc.lines).toEqual([
      { run: "a", value: 400, ys: [1, 0, 1], t: 1 },
      { run: "b", value: 200, ys: [0, 1, 0], t: 0 }
    ])
  })

  it("leaves a gap where a run lacks a key and draws one path per run", () => {
    const pc = views.parallelCoords(rows, ["ppo.learningRate"], "evalSuccess")
    // a is the only run with a learning rate: its value sits mid-axis
    expect(pc.lines.map((l) => [l.run, l.ys])).toEqual([["a", [0.5, 1]], ["c", [null, 0]]])
    const svg = views.parallelSvg(pc, 600, 300)
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true)
    expect(svg.match(/<path class="pc-line"/g)).toHaveLength(2)
    // c: no learning rate, so its path starts at the metric axis (a move, no line)
    expect(svg).toMatch(/data-run="c" d="M530\.0 \d+\.\d"/)
  })
})

describe("views: chart export", () => {
  const svgOf = ui as unknown as {
    chartSvg: (result: unknown, opts?: Record<string, unknown>) => string
    exportName: (env: string, metric: string, ext: string) => string
  }
  const result = {
    metric: "nashConv",
    xAxis: "step",
    smoothing: 0,
    bands: [],
    series: [
      { run: "a<b", group: "", x: [1, 2, 3], y: [1, 0.1, 0.01], points: 3 },
      { run: "c", group: "", x: [1, 2, 3], y: [0.5, NaN, 0.05], points: 3 }
    ]
  }

  it("draws one path per run inside the plot area, broken at missing values, runs escaped", () => {
    const svg = svgOf.chartSvg(result, { width: 400, height: 300, color: (i: number) => ["#111", "#222"][i] })
    const paths = [...svg.matchAll(/<path class="series" data-run="([^"]*)" d="([^"]*)" fill="none" stroke="([^"]*)"/g)].map((m) => [m[1], m[2], m[3]])
    expect(paths.map((p) => p[0])).toEqual(["a&lt;b", "c"])
    expect(paths.map((p) => p[2])).toEqual(["#111", "#222"])
    // 2 runs fit one legend row, so the plot spans y 30 .. 300 - 42 - 16 = 242 (212 px) and x 64 .. 384; y from 0.01 to 1:
    // 0.1 sits at 30 + 212 (1 - 0.09 / 0.99) = 222.7, 0.5 at 30 + 212 (1 - 0.49 / 0.99) = 137.1, 0.05 at 233.4
    expect(paths[0]![1]).toBe("M64.0 30.0L224.0 222.7L384.0 242.0")
    expect(paths[1]![1]).toBe("M64.0 137.1M384.0 233.4") // NaN breaks the line
    expect(svg).toContain(">nashConv</text>")
  })

  it("puts y on a log10 scale when asked, dropping values that are not positive", () => {
    const svg = svgOf.chartSvg({ ...result, series: [{ run: "a", group: "", x: [1, 2, 3], y: [1, 0.1, 0.01], points: 3 }] }, { width: 400, height: 300, logY: true })
    // evenly spaced decades: log10 1, 0.1, 0.01 = 0, -1, -2 map to the top, the middle and the bottom
    expect(svg).toContain('d="M64.0 30.0L224.0 136.0L384.0 242.0"')
    expect(svg).toContain(">0.0100</text>")
  })

  it("names exported files after the environment and metric", () => {
    expect(svgOf.exportName("CartPole-v1", "system.cpuPercent", "png")).toBe("CartPole-v1-system.cpuPercent.png")
    expect(svgOf.exportName("", "a/b c", "csv")).toBe("a_b_c.csv")
  })
})

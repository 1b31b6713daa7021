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

// Pure helpers of the dashboard's views (no DOM), imported by app.js and by the unit tests (test/Views.test.ts):
// grouping runs by environment for the chart grid, and the metrics each group's grid shows.

/** The environment (or game) of a runs-table row; "" when its config names none. */
export function envOf(run) {
  return typeof run.env === "string" ? run.env : ""
}

/**
 * Runs grouped by environment/game, so that runs of unlike environments never share axes: one group per distinct
 * `env` (the runs table's env column: config `env`, else `game`), in order of env name ("" last, shown as
 * "(no env)"), each group's run names in the order given. `only` (a Set of names) restricts the runs considered.
 */
export function groupByEnv(runs, only) {
  const groups = new Map()
  for (const r of runs) {
    if (only !== undefined && !only.has(r.name)) continue
    const env = envOf(r)
    if (!groups.has(env)) groups.set(env, [])
    groups.get(env).push(r.name)
  }
  return [...groups.keys()]
    .sort((a, b) => (a === "" ? 1 : b === "" ? -1 : a.localeCompare(b)))
    .map((env) => ({ env, label: env === "" ? "(no env)" : env, runs: groups.get(env) }))
}

/** Metrics drawn first in a grid (the standard names), in this order; the rest follow alphabetically. */
export const metricOrder = [
  "episodeReturn", "episodeLength", "successRate", "meanReturn", "nashConv", "epoch.successRate", "policyLoss", "valueLoss", "entropy",
  "approxKl", "clipFraction", "explainedVariance", "learningRate", "system.stepsPerSecond", "system.cpuPercent", "system.rssMB", "system.heapUsedMB"
]

/**
 * The metrics a grid of small charts shows for some runs: the union of their metrics, standard names first
 * ({@link metricOrder}), then alphabetically; `choose` (a string of comma- or space-separated parts, "" = all)
 * keeps the metrics containing any part (case-insensitive).
 */
export function gridMetrics(runs, choose) {
  const all = new Set()
  for (const r of runs) for (const m of r.metrics) all.add(m)
  const ordered = metricOrder.filter((m) => all.has(m)).concat([...all].filter((m) => !metricOrder.includes(m)).sort())
  const parts = String(choose || "").toLowerCase().split(/[\s,]+/).filter((p) => p !== "")
  return parts.length === 0 ? ordered : ordered.filter((m) => parts.some((p) => m.toLowerCase().includes(p)))
}

/**
 * The environment the single large chart shows: `current` when it is one of the groups, else the group with the
 * most runs (the first such in group order); "" when there are no groups.
 */
export function chartEnv(groups, current) {
  if (groups.some((g) => g.env === current)) return current
  let best
  for (const g of groups) if (best === undefined || g.runs.length > best.runs.length) best = g
  return best === undefined ? "" : best.env
}

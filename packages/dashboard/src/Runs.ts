/**
 * The runs directory as data: discovery of run directories, cached incremental loading of each run's
 * `config.json` and `metrics.jsonl`, one summary row per run, grouping by configuration minus seed, and chart
 * series (smoothed, downsampled, banded over seeds).
 *
 * *When to use*: {@link scan} for a one-off table; a {@link RunStore} when the same directory is read again and
 * again (the server, live updates), since it only reads bytes appended since the last read.
 *
 * *Gotchas*: a run is any directory (up to 3 levels below the runs directory) holding `config.json` or
 * `metrics.jsonl`; its name is its relative path with `/` separators. Names that are not discovered runs are
 * refused ({@link resolveRun}), which is what keeps `../` and absolute paths out of the server.
 *
 * @example
 * import { Runs } from "@autodidact/dashboard"
 * import { Cause, Effect, Schema } from "effect"
 * const table = await Effect.runPromise(Runs.scan("runs"))
 * @since 0.0.0
 */
import { Cause, Effect, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { DashboardError } from "./Errors.js"
import * as Library from "./Library.js"
import { realInside } from "./Paths.js"
import { MetricsReader, type RunnerStat } from "./Metrics.js"
import * as Series from "./Series.js"

/** One row of the runs table. */
export interface RunSummary {
  readonly name: string
  readonly env: string
  readonly algo: string
  readonly seed: number | null
  /** Configuration minus seeds, timestamps and versions, as stable JSON: runs with equal keys are seeds of one experiment. */
  readonly groupKey: string
  readonly groupLabel: string
  readonly steps: number
  readonly episodes: number
  readonly bestReturn: number | null
  readonly lastReturn: number | null
  readonly meanReturnLast100: number | null
  readonly evalMeanReturn: number | null
  readonly wallSeconds: number
  readonly status: "finished" | "running" | "stopped" | "empty"
  readonly metrics: ReadonlyArray<string>
  readonly warnings: ReadonlyArray<string>
  readonly hasTrajectories: boolean
  /** The run directory holds a `skills/` library, a `memory/` store or a `memory-summary.json` (see {@link Library}). */
  readonly hasLibrary: boolean
  readonly startedAt: string | null
  /** Cluster runners with a `runner` row (`train --cluster`); see {@link RunStore.runners}. */
  readonly runners: number
  /** `epoch` rows (`autodidact agent train`), plotted as the `epoch.*` metrics. */
  readonly epochs: number
  /** `config.json` flattened to dotted keys (`ppo.learningRate`), see {@link flattenConfig}. */
  readonly config: Readonly<Record<string, ConfigValue>>
  /** The last value of each metric (`final.<metric>` in the runs filter), e.g. `{ episodeReturn: 480, nashConv: 0.01 }`. */
  readonly finals: Readonly<Record<string, number>>
  /** `successRate` of the latest `evaluation` row, in [0, 1]; null without one. */
  readonly evalSuccess: number | null
  /** Throughput over the run: the latest `system` row's `stepsPerSecond`, else `steps / wallSeconds`; null when unknown. */
  readonly stepsPerSecond: number | null
}

/** A leaf of a flattened config: a string, number, boolean or null (arrays become their JSON text). */
export type ConfigValue = string | number | boolean | null

/**
 * A config as one level of dotted keys, sorted: nested objects are walked (`{ ppo: { learningRate: 3e-4 } }` →
 * `{ "ppo.learningRate": 3e-4 }`), arrays and other values become their JSON text, an empty object is `"{}"`.
 * `versions` (package versions) is left out: it differs between runs without changing what was run.
 */
export const flattenConfig = (config: unknown): Record<string, ConfigValue> => {
  const out: Record<string, ConfigValue> = {}
  const walk = (v: unknown, prefix: string): void => {
    if (typeof v === "object" && v !== null && !Array.isArray(v)) {
      const keys = Object.keys(v).sort()
      if (keys.length === 0 && prefix !== "") out[prefix] = "{}"
      for (const k of keys) {
        if (prefix === "" && k === "versions") continue
        walk((v as Record<string, unknown>)[k], prefix === "" ? k : `${prefix}.${k}`)
      }
    } else if (prefix !== "") {
      out[prefix] = v === null || typeof v === "string" || typeof v === "boolean" || (typeof v === "number" && Number.isFinite(v)) ? v : (JSON.stringify(v) ?? null)
    }
  }
  walk(config, "")
  return out
}

/**
 * The runners table of a `train --cluster` run: the latest row of each runner (sorted by name), their sums, and the
 * run-wide retry counters (from the latest row).
 */
export interface RunnersView {
  readonly run: string
  readonly runners: ReadonlyArray<RunnerStat>
  readonly total: {
    readonly episodes: number
    readonly steps: number
    readonly episodesPerSecond: number
    readonly stepsPerSecond: number
    readonly failures: number
  }
  /** Largest `globalStep` among the runners' latest rows. */
  readonly globalStep: number
  readonly sendRetries: number
  readonly duplicatesDropped: number
}

/**
 * Sum up the latest runner rows of `run` (see {@link RunnersView}): runners sorted by name; totals of episodes,
 * steps, rates (episodes/s and steps/s add across runners) and failures; `globalStep`, `sendRetries` and
 * `duplicatesDropped` from the runner row with the largest `globalStep` (0 when there are none).
 */
export const runnersView = (run: string, stats: Iterable<RunnerStat>): RunnersView => {
  const runners = [...stats].sort((a, b) => a.runner.localeCompare(b.runner))
  const total = { episodes: 0, steps: 0, episodesPerSecond: 0, stepsPerSecond: 0, failures: 0 }
  let latest: RunnerStat | undefined
  for (const r of runners) {
    total.episodes += r.episodes
    total.steps += r.steps
    total.episodesPerSecond += r.episodesPerSecond
    total.stepsPerSecond += r.stepsPerSecond
    total.failures += r.failures
    if (latest === undefined || r.globalStep > latest.globalStep) latest = r
  }
  return {
    run,
    runners,
    total,
    globalStep: latest?.globalStep ?? 0,
    sendRetries: latest?.sendRetries ?? 0,
    duplicatesDropped: latest?.duplicatesDropped ?? 0
  }
}

/** A chart request. */
export interface SeriesOptions {
  readonly metric: string
  readonly runs: ReadonlyArray<string>
  readonly xAxis?: "step" | "wall"
  /** TensorBoard-style EMA weight in [0, 1). */
  readonly smoothing?: number
  /** Points per series after downsampling (LTTB). */
  readonly maxPoints?: number
  /** Also return one band per group of runs that differ only by seed. */
  readonly bands?: boolean
}

/** One curve of a chart. */
export interface RunSeries {
  readonly run: string
  readonly group: string
  readonly x: Array<number>
  readonly y: Array<number>
  /** Points before downsampling. */
  readonly points: number
}

/** A seed band of a group. */
export interface GroupBand extends Series.Band {
  readonly group: string
  readonly label: string
  readonly runs: ReadonlyArray<string>
}

/** A chart's data. */
export interface SeriesResult {
  readonly metric: string
  readonly xAxis: "step" | "wall"
  readonly smoothing: number
  readonly series: ReadonlyArray<RunSeries>
  readonly bands: ReadonlyArray<GroupBand>
}

/** Config keys that differ between seeds of one experiment, removed (at any depth) before grouping. */
const ungroupedKeys = new Set(["seed", "startedAt", "finishedAt", "versions", "out", "run", "resume", "overwrite"])

/**
 * Stable JSON of a config without seeds, timestamps and versions: keys sorted at every depth, and `seed`,
 * `startedAt`, `finishedAt`, `versions`, `out`, `run`, `resume` and `overwrite` removed at any depth, so that two
 * runs of one experiment with different seeds get the same key.
 */
export const groupKey = (config: unknown): string => {
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip)
    if (typeof v === "object" && v !== null) {
      const out: Record<string, unknown> = {}
      for (const k of Object.keys(v).sort()) if (!ungroupedKeys.has(k)) out[k] = strip((v as Record<string, unknown>)[k])
      return out
    }
    return v
  }
  return JSON.stringify(strip(config))
}

/** One key of a {@link ConfigDiff}: each run's value (`undefined` where the run's config lacks the key). */
export interface ConfigDiffRow {
  readonly key: string
  readonly values: ReadonlyArray<ConfigValue | undefined>
  /** The runs hold more than one distinct value (a missing key counts as a value of its own). */
  readonly differs: boolean
  /** A key that differs between seeds of one experiment without changing what was run (`startedAt`, `out`, …): never a hyper-parameter. */
  readonly volatile: boolean
}

/** A side-by-side comparison of some runs' `config.json` (flattened, {@link flattenConfig}). */
export interface ConfigDiff {
  readonly runs: ReadonlyArray<string>
  readonly rows: ReadonlyArray<ConfigDiffRow>
  /** Keys that differ and are not volatile, in key order: the hyper-parameters that tell these runs apart (seed included). */
  readonly varying: ReadonlyArray<string>
}

/**
 * Compare configs side by side: one row per key of any of them (dotted, sorted), each run's value, whether the
 * values differ and whether the key is volatile (`startedAt`, `finishedAt`, `out`, `run`, `resume`, `overwrite`
 * at any depth: the keys {@link groupKey} ignores, except `seed`).
 *
 * @example
 * configDiff([{ name: "a", config: { lr: 1 } }, { name: "b", config: { lr: 2, gamma: 0.9 } }]).rows
 * // [{ key: "gamma", values: [undefined, 0.9], differs: true, volatile: false }, { key: "lr", values: [1, 2], differs: true, volatile: false }]
 */
export const configDiff = (runs: ReadonlyArray<{ readonly name: string; readonly config: unknown }>): ConfigDiff => {
  const flat = runs.map((r) => flattenConfig(r.config))
  const keys = [...new Set(flat.flatMap((f) => Object.keys(f)))].sort()
  const rows = keys.map((key) => {
    const values = flat.map((f) => (Object.hasOwn(f, key) ? f[key] : undefined))
    const distinct = new Set(values.map((v) => (v === undefined ? "\u0000missing" : JSON.stringify(v))))
    const volatile = key.split(".").some((part) => part !== "seed" && ungroupedKeys.has(part))
    return { key, values, differs: distinct.size > 1, volatile }
  })
  return { runs: runs.map((r) => r.name), rows, varying: rows.filter((r) => r.differs && !r.volatile).map((r) => r.key) }
}

/** Group runs (by name) that differ only by seed: run names by {@link groupKey}, in the order given. */
export const groupBySeed = (
  runs: ReadonlyArray<{ readonly name: string; readonly config: unknown }>
): Map<string, Array<string>> => {
  const groups = new Map<string, Array<string>>()
  for (const r of runs) {
    const k = groupKey(r.config)
    const g = groups.get(k)
    if (g === undefined) groups.set(k, [r.name])
    else g.push(r.name)
  }
  return groups
}

const skipDirs = new Set(["checkpoints", "trajectories", "node_modules", ".git"])

/** Relative names (posix) of run directories under `root`, depth ≤ 3, sorted. */
export const discover = async (root: string): Promise<Array<string>> => {
  const found: Array<string> = []
  const walk = async (rel: string, depth: number): Promise<void> => {
    const abs = path.join(root, rel)
    let entries: Array<fs.Dirent>
    try {
      entries = await fs.promises.readdir(abs, { withFileTypes: true })
    } catch {
      return
    }
    if (rel !== "" && entries.some((e) => e.isFile() && (e.name === "config.json" || e.name === "metrics.jsonl"))) {
      found.push(rel.split(path.sep).join("/"))
      return
    }
    // a PGlite (Postgres) data directory, e.g. an experience store: nothing to find inside
    if (depth >= 3 || entries.some((e) => e.isFile() && e.name === "PG_VERSION")) return
    for (const e of entries) if (e.isDirectory() && !skipDirs.has(e.name) && !e.name.startsWith(".")) await walk(path.join(rel, e.name), depth + 1)
  }
  await walk("", 0)
  return found.sort()
}

/**
 * Resolve a run name to its directory, or `undefined` when the name is not a discovered run inside `root`
 * (absolute paths, `..` segments, backslashes, NUL bytes and symlinks leading outside are all refused).
 */
export const resolveRun = (root: string, name: string, known: ReadonlySet<string>): string | undefined =>
  known.has(name) ? realInside(root, name) : undefined

interface Cached {
  readonly dir: string
  readonly reader: MetricsReader
  config: Record<string, unknown>
  configMtime: number
  configError: string | undefined
}

/** Seconds since the last write under which a run without a summary row counts as running. */
const liveSeconds = 60

/**
 * A cached view of a runs directory. Every call re-discovers runs and reads only what was appended since the
 * previous call.
 */
export class RunStore {
  private readonly cache = new Map<string, Cached>()
  private known = new Set<string>()

  constructor(readonly root: string) {}

  private pending: Promise<unknown> = Promise.resolve()

  /**
   * Discover runs and refresh every one; resolves to the names whose metrics changed (or that appeared).
   * Calls are serialized, so concurrent callers never read the same bytes twice.
   */
  refresh(): Promise<Array<string>> {
    const next = this.pending.then(() => this.refreshNow())
    this.pending = next.catch(() => undefined)
    return next
  }

  private async refreshNow(): Promise<Array<string>> {
    const names = await discover(this.root)
    this.known = new Set(names)
    for (const k of [...this.cache.keys()]) if (!this.known.has(k)) this.cache.delete(k)
    const changed: Array<string> = []
    for (const name of names) {
      const isNew = !this.cache.has(name)
      if ((await this.refreshRun(name)) || isNew) changed.push(name)
    }
    return changed
  }

  /** Bytes consumed per run (a version number for change detection). */
  versions(): Map<string, number> {
    return new Map([...this.cache].map(([name, c]) => [name, c.reader.offset]))
  }

  /** Names of the runs found by the last refresh. */
  names(): ReadonlySet<string> {
    return this.known
  }

  /** The directory of a discovered run, or undefined (see {@link resolveRun}). */
  resolve(name: string): string | undefined {
    return resolveRun(this.root, name, this.known)
  }

  private async refreshRun(name: string): Promise<boolean> {
    let c = this.cache.get(name)
    if (c === undefined) {
      const dir = path.join(this.root, name)
      c = { dir, reader: new MetricsReader(path.join(dir, "metrics.jsonl")), config: {}, configMtime: -1, configError: undefined }
      this.cache.set(name, c)
    }
    const cfgFile = path.join(c.dir, "config.json")
    try {
      const st = await fs.promises.stat(cfgFile)
      if (st.mtimeMs !== c.configMtime) {
        c.configMtime = st.mtimeMs
        try {
          const parsed: unknown = JSON.parse(await fs.promises.readFile(cfgFile, "utf8"))
          c.config = typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>) : {}
          c.configError = undefined
        } catch (e) {
          c.configError = `config.json unreadable: ${String(e)}`
        }
      }
    } catch {
      c.configError = "no config.json"
    }
    return c.reader.refresh()
  }

  /** The config of a run (empty when unreadable). */
  config(name: string): Record<string, unknown> | undefined {
    return this.cache.get(name)?.config
  }

  /** The reader of a run. */
  reader(name: string): MetricsReader | undefined {
    return this.cache.get(name)?.reader
  }

  /** The runners table of a run (empty `runners` when it has none), or undefined for an unknown run. */
  runners(name: string): RunnersView | undefined {
    const c = this.known.has(name) ? this.cache.get(name) : undefined
    return c === undefined ? undefined : runnersView(name, c.reader.runners.values())
  }

  /** The runs table. */
  summaries(now: number = Date.now()): Array<RunSummary> {
    const groups = groupBySeed([...this.cache.entries()].map(([name, c]) => ({ name, config: c.config })))
    const labels = groupLabels(groups, (n) => this.cache.get(n)!.config)
    const out: Array<RunSummary> = []
    for (const [name, c] of [...this.cache.entries()].sort(([a], [b]) => a.localeCompare(b))) {
      const r = c.reader
      const cfg = c.config
      const warnings: Array<string> = []
      if (c.configError !== undefined) warnings.push(c.configError)
      if (r.malformed > 0) warnings.push(malformedWarning(r))
      if (r.truncatedTail) warnings.push("last line incomplete (being written?)")
      if (r.invalidRunnerRows > 0) warnings.push(`${r.invalidRunnerRows} invalid runner row${r.invalidRunnerRows === 1 ? "" : "s"} skipped (${r.invalidRunnerReason})`)
      if (r.lines === 0) warnings.push("no metrics yet")
      else if (r.episodes === 0 && r.epochs === 0) warnings.push("no episode rows")
      const recent = r.recentReturns
      const key = groupKey(cfg)
      const status: RunSummary["status"] =
        r.summary !== undefined ? "finished" : r.lines === 0 && r.size === 0 ? "empty" : now - r.mtimeMs < liveSeconds * 1000 ? "running" : "stopped"
      const summaryWall = typeof r.summary?.["wallSeconds"] === "number" ? (r.summary["wallSeconds"] as number) : 0
      const evalMean = r.lastEvaluation?.["meanReturn"]
      const evalSuccess = r.lastEvaluation?.["successRate"]
      out.push({
        name,
        env: str(cfg["env"]) ?? str(cfg["game"]) ?? "",
        algo: str(cfg["algo"]) ?? str(cfg["solver"]) ?? str(cfg["command"]) ?? "",
        seed: typeof cfg["seed"] === "number" ? cfg["seed"] : null,
        groupKey: key,
        groupLabel: labels.get(key) ?? key,
        steps: r.lastStep,
        episodes: r.episodes,
        bestReturn: r.episodes > 0 ? r.bestReturn : null,
        lastReturn: r.episodes > 0 ? r.lastReturn : null,
        meanReturnLast100: recent.length > 0 ? recent.reduce((a, b) => a + b, 0) / recent.length : null,
        evalMeanReturn: typeof evalMean === "number" ? evalMean : null,
        wallSeconds: Math.max(r.lastWall, summaryWall),
        status,
        metrics: [...r.columns.keys()].sort(),
        warnings,
        hasTrajectories: fs.existsSync(path.join(c.dir, "trajectories")),
        hasLibrary: Library.present(c.dir),
        startedAt: str(cfg["startedAt"]) ?? null,
        runners: r.runners.size,
        epochs: r.epochs,
        config: flattenConfig(cfg),
        finals: Object.fromEntries([...r.columns].filter(([, col]) => col.value.length > 0).map(([k, col]) => [k, col.value[col.value.length - 1]!])),
        evalSuccess: typeof evalSuccess === "number" && Number.isFinite(evalSuccess) ? evalSuccess : null,
        stepsPerSecond: throughput(r)
      })
    }
    return out
  }

  /** Chart data for one metric over some runs (unknown runs and runs without the metric are left out). */
  series(options: SeriesOptions): SeriesResult {
    const xAxis = options.xAxis ?? "step"
    const smoothing = Math.min(Math.max(options.smoothing ?? 0, 0), 0.999)
    const maxPoints = Math.max(3, Math.floor(options.maxPoints ?? 2000))
    const full: Array<{ run: string; group: string; x: Array<number>; y: Array<number> }> = []
    for (const run of options.runs) {
      const c = this.known.has(run) ? this.cache.get(run) : undefined
      const col = c?.reader.columns.get(options.metric)
      if (c === undefined || col === undefined) continue
      const xs = xAxis === "wall" ? col.wall : col.step
      const x: Array<number> = []
      const y: Array<number> = []
      for (let i = 0; i < xs.length; i++) {
        if (!Number.isFinite(xs[i]!)) continue
        x.push(xs[i]!)
        y.push(col.value[i]!)
      }
      full.push({ run, group: groupKey(c.config), x, y: Series.smooth(y, smoothing) })
    }
    const series = full.map((s) => ({ run: s.run, group: s.group, points: s.x.length, ...Series.lttb(s, maxPoints) }))
    const bands: Array<GroupBand> = []
    if (options.bands === true) {
      const byGroup = new Map<string, Array<(typeof full)[number]>>()
      for (const s of full) byGroup.set(s.group, [...(byGroup.get(s.group) ?? []), s])
      const labels = groupLabels(new Map([...byGroup].map(([k, v]) => [k, v.map((s) => s.run)])), (n) => this.cache.get(n)!.config)
      for (const [group, members] of byGroup) {
        const b = Series.band(members, Math.min(maxPoints, 500))
        if (b !== undefined) bands.push({ ...b, group, label: labels.get(group) ?? group, runs: members.map((m) => m.run) })
      }
    }
    return { metric: options.metric, xAxis, smoothing, series, bands }
  }
}

/** A CSV field (RFC 4180): quoted when it holds a comma, quote, CR or LF, quotes doubled. */
const csvField = (v: string): string => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v)

/**
 * A chart's series as CSV (RFC 4180, `\r\n` line ends): a header `run,<x>,<metric>` where `<x>` is `globalStep`
 * or `wallSeconds`, then one line per point of each series, runs in the result's order. Numbers are written in
 * JavaScript's shortest round-trip form, so parsing a field gives back the plotted number exactly.
 *
 * @example
 * seriesCsv({ metric: "episodeReturn", xAxis: "step", smoothing: 0, bands: [], series: [{ run: "a", group: "", x: [20], y: [9.5], points: 1 }] })
 * // "run,globalStep,episodeReturn\r\na,20,9.5\r\n"
 */
export const seriesCsv = (result: SeriesResult): string => {
  const lines = [[ "run", result.xAxis === "wall" ? "wallSeconds" : "globalStep", result.metric ].map(csvField).join(",")]
  for (const s of result.series) {
    const run = csvField(s.run)
    for (let i = 0; i < s.x.length; i++) lines.push(`${run},${s.x[i]},${s.y[i]}`)
  }
  return lines.join("\r\n") + "\r\n"
}

/**
 * The warning for skipped `metrics.jsonl` lines, with their line numbers: `metrics.jsonl line 3 is not a JSON
 * object; skipped` or `metrics.jsonl: 4 malformed lines skipped (lines 3, 7, 9, 12)` (`, …` past the numbers kept).
 */
export const malformedWarning = (r: Pick<MetricsReader, "malformed" | "malformedLines">): string =>
  r.malformed === 1 && r.malformedLines.length === 1
    ? `metrics.jsonl line ${r.malformedLines[0]} is not a JSON object; skipped`
    : `metrics.jsonl: ${r.malformed} malformed lines skipped (line${r.malformedLines.length === 1 ? "" : "s"} ${r.malformedLines.join(", ")}${r.malformed > r.malformedLines.length ? ", …" : ""})`

/** Short labels for groups: "env algo", with the differing config keys when several groups share them. */
const groupLabels = (groups: Map<string, Array<string>>, config: (name: string) => Record<string, unknown>): Map<string, string> => {
  const base = new Map<string, string>()
  for (const [k, names] of groups) {
    const cfg = config(names[0]!)
    base.set(k, [str(cfg["env"]) ?? str(cfg["game"]), str(cfg["algo"]) ?? str(cfg["solver"]) ?? str(cfg["command"])].filter((s) => s !== undefined).join(" ") || "run")
  }
  const counts = new Map<string, number>()
  for (const v of base.values()) counts.set(v, (counts.get(v) ?? 0) + 1)
  const seen = new Map<string, number>()
  const out = new Map<string, string>()
  for (const [k, v] of base) {
    if ((counts.get(v) ?? 0) <= 1) out.set(k, v)
    else {
      const i = (seen.get(v) ?? 0) + 1
      seen.set(v, i)
      out.set(k, `${v} #${i}`)
    }
  }
  return out
}

/** The latest `system.stepsPerSecond`, else steps over wall seconds (null when either is 0). */
const throughput = (r: MetricsReader): number | null => {
  const sys = r.columns.get("system.stepsPerSecond")?.value
  if (sys !== undefined && sys.length > 0) return sys[sys.length - 1]!
  return r.lastStep > 0 && r.lastWall > 0 ? r.lastStep / r.lastWall : null
}

const str = (v: unknown): string | undefined => (typeof v === "string" && v.length > 0 ? v : undefined)

/**
 * Read every run under `root` once and return the runs table: one {@link RunSummary} per run directory (a folder
 * with a `config.json` or `metrics.jsonl`), with its config, last step, episodes, best and recent mean return and
 * warnings (malformed lines, invalid runner rows). Fails with `DashboardError` naming `root` when it cannot be read.
 * For a live view that re-reads only what was appended, use {@link load} and `RunStore.refresh`.
 * @category reading
 * @since 0.0.0
 */
export const scan = (root: string): Effect.Effect<Array<RunSummary>, DashboardError> =>
  Effect.tryPromise({
    try: async () => {
      await fs.promises.access(root)
      const store = new RunStore(root)
      await store.refresh()
      return store.summaries()
    },
    catch: (e) => new DashboardError({ path: root, reason: `cannot read runs directory: ${String(e)}` })
  })

/**
 * A loaded {@link RunStore} over `root`: every run read once; call `refresh()` to read what was appended since
 * (each metrics file is read incrementally from its last offset, see `Metrics.MetricsReader`). Fails with
 * `DashboardError` when `root` is missing or not a directory.
 * @category reading
 * @since 0.0.0
 */
export const load = (root: string): Effect.Effect<RunStore, DashboardError> =>
  Effect.tryPromise({
    try: async () => {
      const st = await fs.promises.stat(root)
      if (!st.isDirectory()) throw new Error("not a directory")
      const store = new RunStore(root)
      await store.refresh()
      return store
    },
    catch: (e) => new DashboardError({ path: root, reason: `cannot read runs directory: ${String(e)}` })
  })

/**
 * The trajectory files of a run (`trajectories/*.jsonl`, one episode per line) with their episode counts. A file
 * whose real path leaves the run directory (a symlink to elsewhere) is not listed (see `Paths.realInside`).
 */
export const trajectoryFiles = async (runDir: string): Promise<Array<{ file: string; episodes: number }>> => {
  const dir = path.join(runDir, "trajectories")
  let names: Array<string>
  try {
    names = (await fs.promises.readdir(dir)).filter((n) => n.endsWith(".jsonl") && !n.startsWith(".")).sort()
  } catch {
    return []
  }
  const out: Array<{ file: string; episodes: number }> = []
  for (const file of names) {
    const real = realInside(runDir, `trajectories/${file}`)
    if (real === undefined) continue
    let text: string
    try {
      text = await fs.promises.readFile(real, "utf8")
    } catch {
      continue
    }
    out.push({ file, episodes: text.split("\n").filter((l) => l.trim().length > 0).length })
  }
  return out
}

/**
 * The per-step extras of an agent that remembers and reuses (in a step's `info`), shown under the step in the
 * transcript view: every field optional, other `info` keys are free.
 * - `exemplar` / `exemplars` / `retrieved`: the past episode(s) retrieved from memory at this step, as strings (e.g.
 *   the reference app's exemplar plan) or objects with a `task`, `text` or `id`;
 * - `skill` / `skills`: the skill(s) called as an option at this step (strings); `primitiveSteps`: the env steps a
 *   skill call took (an integer ≥ 0);
 * - `notes`: free text line(s) to show under the step.
 */
export const StepExtras = Schema.Struct({
  exemplar: Schema.optional(Schema.String),
  exemplars: Schema.optional(Schema.Union([Schema.String, Schema.Array(Schema.Union([Schema.String, Schema.Record(Schema.String, Schema.Unknown)]))])),
  retrieved: Schema.optional(Schema.Union([Schema.String, Schema.Array(Schema.Union([Schema.String, Schema.Record(Schema.String, Schema.Unknown)]))])),
  skill: Schema.optional(Schema.String),
  skills: Schema.optional(Schema.Array(Schema.String)),
  primitiveSteps: Schema.optional(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))),
  notes: Schema.optional(Schema.Union([Schema.String, Schema.Array(Schema.String)]))
})

const decodeExtras = Schema.decodeUnknownExit(StepExtras)

/** A Schema failure as one line, its message and path without the stack: `Expected string | undefined at ["skill"]`. */
const schemaMessage = (cause: Cause.Cause<unknown>): string =>
  Cause.pretty(cause).split("\n").filter((l) => l.trim().length > 0 && (!/^\s+at /.test(l) || /^\s+at \[/.test(l))).slice(0, 2).join(" ").replace(/^\s*\w*Error: /, "").replace(/\s+/g, " ").trim()

/**
 * Check one parsed trajectory line: a JSON object whose `steps` (when present) is an array and whose steps' `info`
 * extras match {@link StepExtras}. Returns the reason it fails, or undefined when it passes.
 */
export const episodeProblem = (ep: unknown): string | undefined => {
  if (typeof ep !== "object" || ep === null || Array.isArray(ep)) return "not a JSON object"
  const steps = (ep as Record<string, unknown>)["steps"]
  if (steps === undefined) return undefined
  if (!Array.isArray(steps)) return "steps is not an array"
  for (let k = 0; k < steps.length; k++) {
    const info: unknown = (steps[k] as Record<string, unknown> | null)?.["info"]
    if (info === undefined || info === null) continue
    if (typeof info !== "object" || Array.isArray(info)) return `steps[${k}].info is not an object`
    const exit = decodeExtras(info)
    if (exit._tag === "Failure") return `steps[${k}].info: ${schemaMessage(exit.cause)}`
  }
  return undefined
}

/**
 * One episode (line `index`, counting non-blank lines from 0) of a run's trajectory file, parsed; undefined when
 * the file name is not a plain `*.jsonl` name, the file's real path leaves the run directory (a symlink to
 * elsewhere) or the line is missing.
 * @throws DashboardError naming the file and its line number (1-based, as in an editor) when the line is not JSON,
 * not an object, or a step's `info` extras do not match {@link StepExtras}.
 */
export const trajectory = async (runDir: string, file: string, index: number): Promise<unknown> => {
  if (!/^[A-Za-z0-9._-]+\.jsonl$/.test(file) || file.startsWith(".")) return undefined
  const real = realInside(runDir, `trajectories/${file}`)
  if (real === undefined) return undefined
  let text: string
  try {
    text = await fs.promises.readFile(real, "utf8")
  } catch {
    return undefined
  }
  const lines = text.split("\n")
  let seen = -1
  let lineNo = 0
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim().length === 0) continue
    if (++seen === index) {
      lineNo = i + 1
      break
    }
  }
  if (lineNo === 0) return undefined
  const where = `trajectories/${file}`
  let parsed: unknown
  try {
    parsed = JSON.parse(lines[lineNo - 1]!)
  } catch (e) {
    throw new DashboardError({ path: where, reason: `line ${lineNo} is not JSON: ${e instanceof Error ? e.message : String(e)}` })
  }
  const problem = episodeProblem(parsed)
  if (problem !== undefined) throw new DashboardError({ path: where, reason: `line ${lineNo}: ${problem}` })
  return parsed
}

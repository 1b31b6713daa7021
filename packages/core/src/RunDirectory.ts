/**
 * The run directory every learning command writes (see docs/architecture.md):
 *
 * ```
 * runs/<name>/
 *   config.json     resolved configuration, seeds and package versions
 *   metrics.jsonl   one JSON object per event (episode rows, update rows)
 *   checkpoints/    atomic checkpoint files (written by the trainer)
 * ```
 *
 * `config.json` is written atomically (`AtomicFile.write` of `@autodidact/core/node`: temp file, fsync, rename); `metrics.jsonl` is
 * appended line by line with synchronous writes, so a crash loses at most the line being written.
 *
 * **Resuming** (`open(dir, config, { resume: { step } })`): the rows a run wrote after its last checkpoint (at
 * `step`) are dropped before anything is appended, so that the resumed run's rows follow on without duplicates and
 * `globalStep` never goes back; the file is rewritten atomically (temp file + rename). The new config is compared
 * with the one in `config.json`: a key that changes the results (the seed, the env, ...) must be the same, or the
 * open fails with {@link ResumeConfigError} naming the keys, unless the caller passes `override` (the CLI's
 * `--resume-override`), which is recorded in `config.json` under `resumes` (with the differing keys).
 * @since 0.2.0
 */
import type * as Metrics from "./Metrics.js"
import * as AtomicFile from "./AtomicFile.js"
import { Effect, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"

/** Failure to create or write a run directory, with the path involved. */
export class RunDirectoryError extends Schema.TaggedError<RunDirectoryError>()("RunDirectoryError", {
  path: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `Run directory ${this.path}: ${this.reason}`
  }
}

/** One key whose value differs between a run's `config.json` and a resume request. */
export const ConfigDifference = Schema.Struct({ key: Schema.String, was: Schema.Unknown, now: Schema.Unknown })
export type ConfigDifference = typeof ConfigDifference.Type

/**
 * `--resume` with a configuration that would change the run's results (another seed, env, algorithm, number of
 * envs, ...): `keys` names each differing key, `differences` gives both values. Pass `--resume-override` to resume
 * anyway (the override is recorded in `config.json`).
 */
export class ResumeConfigError extends Schema.TaggedError<ResumeConfigError>()("ResumeConfigError", {
  path: Schema.String,
  keys: Schema.Array(Schema.String),
  differences: Schema.Array(ConfigDifference)
}) {
  override get message() {
    const list = this.differences.map((d) => `${d.key} (${JSON.stringify(d.was)} in config.json, ${JSON.stringify(d.now)} now)`).join(", ")
    return `cannot resume ${this.path}: the configuration differs in ${list}; rerun with the run's values, or pass --resume-override to resume anyway (recorded in config.json)`
  }
}

/** How {@link open} resumes a run. */
export interface ResumeOptions {
  /** `globalStep` of the checkpoint being resumed: rows with a larger `globalStep` are dropped from metrics.jsonl. */
  readonly step: number
  /** Top-level config keys that may change on resume (e.g. `totalSteps`: the budget); `startedAt`, `versions`, `resumes` always may. */
  readonly mayDiffer?: ReadonlyArray<string>
  /** Resume even when keys differ (recorded in config.json under `resumes`). */
  readonly override?: boolean
}

/**
 * `row` with every top-level string that names a path inside `dir` (absolute, or relative to the working directory)
 * rewritten relative to `dir` (`"."` for `dir` itself, `"checkpoints/latest.json"`), so that `metrics.jsonl` holds no
 * path of the machine it ran on and stays valid when the run directory is moved or shared. Other values are kept.
 */
export const relativeRow = <R extends object>(dir: string, row: R): R => {
  const root = path.resolve(dir)
  let out: Record<string, unknown> | undefined
  for (const [k, v] of Object.entries(row)) {
    if (typeof v !== "string" || v.length === 0 || !(path.isAbsolute(v) || v.startsWith(dir))) continue
    const rel = path.relative(root, path.resolve(v))
    if (rel.startsWith("..") || path.isAbsolute(rel)) continue
    const copy: Record<string, unknown> = out ?? { ...(row as Record<string, unknown>) }
    copy[k] = rel === "" ? "." : rel.split(path.sep).join("/")
    out = copy
  }
  return (out ?? row) as R
}

/** An open run directory. */
export interface RunDirectory {
  readonly dir: string
  readonly checkpointsDir: string
  readonly metricsFile: string
  /**
   * Append one row to metrics.jsonl (synchronous, so rows are never reordered or lost on exit); paths inside the run
   * directory are stored relative to it ({@link relativeRow}).
   */
  readonly append: (row: object) => void
}

/**
 * The fields every training summary starts with (the `summary` row of `metrics.jsonl` and the `--json` line): the
 * run directory and what was trained.
 */
export const summaryHead = (run: RunDirectory, request: { readonly env: string; readonly algo: string; readonly seed: number }) => ({
  run: run.dir,
  env: request.env,
  algo: request.algo,
  seed: request.seed
})

/**
 * The run id a `--cluster` run is stored under in the cluster's tables: the run directory's name (characters other
 * than letters, digits, `_`, `.` and `-` replaced by `_`), the seed and the start time in ms, so that a rerun into the
 * same directory never collides with the rows of an earlier one.
 */
export const clusterRunId = (out: string, seed: number): string =>
  `${path.basename(path.resolve(out)).replace(/[^A-Za-z0-9_.-]/g, "_")}-${seed}-${Date.now()}`

const alwaysMayDiffer = ["startedAt", "versions", "resumes"]

/** The top-level keys of `now` whose values differ from `was` (JSON equality), except `mayDiffer`. */
export const configDifferences = (
  was: Record<string, unknown>,
  now: Record<string, unknown>,
  mayDiffer: ReadonlyArray<string> = []
): Array<ConfigDifference> => {
  const skip = new Set([...alwaysMayDiffer, ...mayDiffer])
  const keys = [...new Set([...Object.keys(was), ...Object.keys(now)])].filter((k) => !skip.has(k))
  return keys.filter((k) => JSON.stringify(was[k]) !== JSON.stringify(now[k])).map((key) => ({ key, was: was[key] ?? null, now: now[key] ?? null }))
}

/**
 * Drop the rows of `metrics.jsonl` written after `step` (a numeric `globalStep` above it) and a torn last line
 * (no newline: a crash mid-write), rewriting the file atomically. Rows without a `globalStep` are kept. Returns how
 * many rows were kept and dropped (nothing is rewritten when none is dropped).
 */
export const truncateMetrics = (file: string, step: number): { readonly kept: number; readonly dropped: number } => {
  if (!fs.existsSync(file)) return { kept: 0, dropped: 0 }
  const text = fs.readFileSync(file, "utf8")
  const lines = text.split("\n")
  const torn = lines.pop() ?? "" // "" when the file ends in a newline
  const kept: Array<string> = []
  let dropped = torn.trim().length > 0 ? 1 : 0
  for (const line of lines) {
    if (line.trim().length === 0) continue
    let row: unknown
    try {
      row = JSON.parse(line)
    } catch {
      kept.push(line) // not ours to judge: the dashboard counts malformed lines
      continue
    }
    const g = typeof row === "object" && row !== null ? (row as Record<string, unknown>)["globalStep"] : undefined
    if (typeof g === "number" && g > step) dropped++
    else kept.push(line)
  }
  if (dropped > 0) AtomicFile.writeSync(file, kept.map((l) => l + "\n").join(""))
  return { kept: kept.length, dropped }
}

/** What {@link systemSampler} reads: a clock in ms, the process's CPU time in µs, its memory in bytes. */
export interface SystemProbe {
  readonly now: () => number
  readonly cpuMicros: () => number
  readonly rssBytes: () => number
  readonly heapUsedBytes: () => number
}

/** This process: `performance.now()`, `process.cpuUsage()` (user + system), `process.memoryUsage()`. */
export const processProbe: SystemProbe = {
  now: () => performance.now(),
  cpuMicros: () => {
    const u = process.cpuUsage()
    return u.user + u.system
  },
  rssBytes: () => process.memoryUsage.rss(),
  heapUsedBytes: () => process.memoryUsage().heapUsed
}

/** Seconds between two `system` rows unless `open`'s `systemEverySeconds` says otherwise. */
export const defaultSystemEverySeconds = 10

/**
 * A sampler of `system` rows (core `Metrics.SystemRow`): call it with each row appended; once `everySeconds` have
 * passed since the previous sample (or since it was made), it returns a row with the steps per second (increase of
 * the largest `globalStep` seen, over the seconds since the previous sample), CPU percent of one core over the same
 * interval, resident set size and used heap (MiB); else `undefined`. After a `summary` row it never samples again
 * (the summary stays the last row).
 */
export const systemSampler = (everySeconds: number, probe: SystemProbe = processProbe): ((row: object) => Metrics.SystemRow | undefined) => {
  const start = probe.now()
  let lastTime = start
  let lastCpu = probe.cpuMicros()
  let lastStep = 0
  let step = 0
  let done = false
  return (row) => {
    const r = row as Record<string, unknown>
    if (r["kind"] === "summary") done = true
    const g = r["globalStep"]
    if (typeof g === "number" && Number.isFinite(g) && g > step) step = g
    const now = probe.now()
    if (done || r["kind"] === "system" || now - lastTime < everySeconds * 1000) return undefined
    const seconds = (now - lastTime) / 1000
    const cpu = probe.cpuMicros()
    const mib = 1024 * 1024
    const out: Metrics.SystemRow = {
      kind: "system",
      globalStep: Math.floor(step),
      wallSeconds: (now - start) / 1000,
      stepsPerSecond: Math.max(0, step - lastStep) / seconds,
      cpuPercent: (Math.max(0, cpu - lastCpu) / 1e6 / seconds) * 100,
      rssMB: probe.rssBytes() / mib,
      heapUsedMB: probe.heapUsedBytes() / mib
    }
    lastTime = now
    lastCpu = cpu
    lastStep = step
    return out
  }
}

/**
 * Create (or reopen, with `resume`) a run directory and write `config.json`.
 * Fails with {@link RunDirectoryError} when the directory holds a previous run and `resume`/`overwrite` is not set,
 * and with {@link ResumeConfigError} when resuming with a config that differs in a key outside `resume.mayDiffer`
 * (unless `resume.override`). On resume, metrics.jsonl is first cut back to `resume.step` ({@link truncateMetrics})
 * and config.json keeps the run's history: `resumes` gains `{ step, startedAt, droppedRows, resumeOverride?, differences? }`.
 * Every `systemEverySeconds` (default {@link defaultSystemEverySeconds}; 0: never) a `system` row of throughput,
 * CPU and memory follows an appended row ({@link systemSampler}; `systemProbe` replaces the process's figures in tests).
 */
export const open = (
  dir: string,
  config: Record<string, unknown>,
  options: {
    readonly resume?: ResumeOptions | undefined
    readonly overwrite?: boolean
    readonly systemEverySeconds?: number
    readonly systemProbe?: SystemProbe
  } = {}
): Effect.Effect<RunDirectory & { readonly dropped: number }, RunDirectoryError | ResumeConfigError> =>
  Effect.gen(function* () {
    const resume = options.resume
    let written: Record<string, unknown> = config
    let dropped = 0
    if (resume !== undefined) {
      const was = yield* readConfig(dir)
      const differences = configDifferences(was, config, resume.mayDiffer)
      if (differences.length > 0 && resume.override !== true) {
        return yield* new ResumeConfigError({ path: dir, keys: differences.map((d) => d.key), differences })
      }
      const metricsFile = path.join(dir, "metrics.jsonl")
      dropped = yield* Effect.try({
        try: () => truncateMetrics(metricsFile, resume.step).dropped,
        catch: (e) => new RunDirectoryError({ path: metricsFile, reason: `cannot cut metrics.jsonl back to step ${resume.step}: ${String(e)}` })
      })
      const history = Array.isArray(was["resumes"]) ? (was["resumes"] as Array<unknown>) : []
      const entry = {
        step: resume.step,
        startedAt: config["startedAt"] ?? new Date().toISOString(),
        droppedRows: dropped,
        ...(resume.override === true ? { resumeOverride: true } : {}),
        ...(differences.length > 0 ? { differences } : {})
      }
      written = { ...config, startedAt: was["startedAt"] ?? config["startedAt"], resumes: [...history, entry] }
    }
    const prepared = yield* prepare(dir, { resume: resume !== undefined, overwrite: options.overwrite ?? false })
    const every = options.systemEverySeconds ?? defaultSystemEverySeconds
    const sample = every > 0 ? systemSampler(every, options.systemProbe) : undefined
    const configFile = path.join(dir, "config.json")
    yield* AtomicFile.write(configFile, new TextEncoder().encode(JSON.stringify(written, null, 2) + "\n")).pipe(
      Effect.mapError((e) => new RunDirectoryError({ path: configFile, reason: `cannot write: ${e.reason}` }))
    )
    if (sample === undefined) return { ...prepared, dropped }
    const append = (row: object): void => {
      prepared.append(row)
      const system = sample(row)
      if (system !== undefined) prepared.append(system)
    }
    return { ...prepared, append, dropped }
  })

const prepare = (
  dir: string,
  options: { readonly resume: boolean; readonly overwrite: boolean }
): Effect.Effect<RunDirectory, RunDirectoryError> =>
  Effect.try({
    try: () => {
      const metricsFile = path.join(dir, "metrics.jsonl")
      const exists = fs.existsSync(path.join(dir, "config.json"))
      if (exists && !options.resume && !options.overwrite) {
        throw new RunDirectoryError({
          path: dir,
          reason: "already holds a run (config.json exists); pass --resume to continue it or --overwrite to replace it"
        })
      }
      if (exists && options.overwrite && !options.resume) fs.rmSync(dir, { recursive: true, force: true })
      const checkpointsDir = path.join(dir, "checkpoints")
      fs.mkdirSync(checkpointsDir, { recursive: true })
      const fd = fs.openSync(metricsFile, "a")
      return {
        dir,
        checkpointsDir,
        metricsFile,
        append: (row: object) => {
          fs.writeSync(fd, JSON.stringify(relativeRow(dir, row)) + "\n")
        }
      }
    },
    catch: (e) => (e instanceof RunDirectoryError ? e : new RunDirectoryError({ path: dir, reason: String(e) }))
  })

/** Read `config.json` of a run directory. */
export const readConfig = (dir: string): Effect.Effect<Record<string, unknown>, RunDirectoryError> =>
  Effect.try({
    try: () => JSON.parse(fs.readFileSync(path.join(dir, "config.json"), "utf8")) as Record<string, unknown>,
    catch: (e) => new RunDirectoryError({ path: dir, reason: `cannot read config.json: ${String(e)}` })
  })

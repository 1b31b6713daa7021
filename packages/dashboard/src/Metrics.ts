/**
 * Incremental, streaming reader of a run's `metrics.jsonl`.
 *
 * *Details*: the file is read as a byte stream from the last consumed offset, so a 1M-line run is parsed once in
 * bounded memory (columns of numbers, not row objects) and a live run costs only its new bytes on each refresh.
 * Only complete lines (ending in `\n`) are consumed: a line still being written stays unread until it is finished,
 * and is reported as `truncatedTail`. Lines that are not JSON objects are skipped, counted in `malformed`, and their
 * 1-based line numbers kept in `malformedLines` (the first 20); the other rows load as usual.
 *
 * Two row kinds are read differently from the rest, because several rows of them share one x:
 * - `kind: "runner"` (`train --cluster`, one row per runner after each update, cumulative: `Metrics.RunnerRow` of
 *   `@autodidact/core`) are not plotted (they would interleave runners in one column); the latest row of
 *   each runner is kept in {@link MetricsReader.runners} for the runners table ({@link runnerStat} checks them).
 * - `kind: "epoch"` (`autodidact agent train`, Training-Free GRPO: `EpochRow` in `@autodidact/llm`) have no
 *   `globalStep`: their x is `epoch`, and their numbers become the columns `epoch.<field>` (`epoch.successRate`,
 *   `epoch.librarySize`, `epoch.inputTokens`, ...) plus `epoch.tokens` = input + output tokens ({@link epochColumns}),
 *   so they never mix with the `evaluation` rows' `successRate`.
 * - `kind: "system"` (throughput and resources, `Metrics.SystemRow` of `@autodidact/core`: `stepsPerSecond`,
 *   `cpuPercent`, `rssMB`, `heapUsedMB`) become the columns `system.<field>` (`system.stepsPerSecond`, ...), so that
 *   a trainer's own `stepsPerSecond` or a runner's never mixes with them.
 *
 * *Gotchas*: if the file shrinks (rewritten with `--overwrite`), the reader starts over.
 * @since 0.0.0
 */
import { Metrics } from "@autodidact/core"
import { Schema } from "effect"
import * as fs from "node:fs"

/** One metric column: x by step, x by wall time, and the value, row-aligned. */
export interface Column {
  readonly step: Array<number>
  readonly wall: Array<number>
  readonly value: Array<number>
}

/** Keys that are axes or bookkeeping, never plotted as a metric. */
const axisKeys = new Set(["globalStep", "wallSeconds", "iteration", "step", "seed", "epoch"])

/**
 * The latest `kind: "runner"` row of one cluster runner (`Metrics.RunnerRow` of `@autodidact/core`, without its
 * `kind`): its cumulative throughput and the staleness of what it produced, as of the update at `globalStep`.
 * @since 0.0.0
 */
export type RunnerStat = Omit<Metrics.RunnerRow, "kind">

/** Fields of a runner row that older runs lack (or that are bookkeeping): read as 0 when missing or invalid. */
/** The schema of the count fields (every count of the row shares it), to word the reason. */
const countSchema = Metrics.RunnerRow.fields.episodes

const defaultedRunnerFields: ReadonlySet<string> = new Set(["storageRetries", "sendRetries", "duplicatesDropped", "globalStep", "wallSeconds"])

/**
 * A `kind: "runner"` row as a {@link RunnerStat}, or the reason it is not one.
 *
 * *Details*: each field is checked against its schema in `Metrics.RunnerRow.fields` (`@autodidact/core`): `runner`
 * a non-empty string, counts integers ≥ 0, rates, means and durations finite numbers ≥ 0. `storageRetries`,
 * `sendRetries`, `duplicatesDropped`, `globalStep` and `wallSeconds` are read as 0 when absent or invalid (rows
 * of older runs); any other field that is missing or invalid makes the row invalid, and the reason names the field,
 * the value found and the runner (`"failures must be an integer ≥ 0, got -1 (runner r)"`).
 * @since 0.0.0
 */
export const runnerStat = (r: Readonly<Record<string, unknown>>): RunnerStat | { readonly invalid: string } => {
  const runner = r["runner"]
  if (!Schema.is(Metrics.RunnerRow.fields.runner)(runner)) return { invalid: `runner must be a non-empty string, got ${JSON.stringify(runner)}` }
  const out: Record<string, unknown> = { runner }
  for (const [key, field] of Object.entries(Metrics.RunnerRow.fields)) {
    if (key === "kind" || key === "runner") continue
    const v = r[key]
    if (Schema.is(field)(v)) out[key] = v
    else if (defaultedRunnerFields.has(key)) out[key] = 0
    else return { invalid: `${key} must be ${field === countSchema ? "an integer" : "a finite number"} ≥ 0, got ${JSON.stringify(v)} (runner ${runner})` }
  }
  return out as RunnerStat
}

/**
 * The plotted columns of a `kind: "epoch"` row: `epoch.<field>` for each finite number (nested objects such as
 * `operations` are left out), plus `epoch.tokens` = `inputTokens + outputTokens` when both are numbers.
 */
export const epochColumns = (r: Readonly<Record<string, unknown>>): Array<readonly [string, number]> => {
  const out: Array<readonly [string, number]> = []
  for (const key in r) {
    if (axisKeys.has(key)) continue
    const v = num(r[key])
    if (v !== undefined) out.push([`epoch.${key}`, v])
  }
  const input = num(r["inputTokens"])
  const output = num(r["outputTokens"])
  if (input !== undefined && output !== undefined) out.push(["epoch.tokens", input + output])
  return out
}

/** How many malformed line numbers a {@link MetricsReader} keeps (the count goes on). */
export const maxMalformedLines = 20

/** What has been read of one metrics file so far. */
export class MetricsReader {
  readonly columns = new Map<string, Column>()
  /** Lines skipped because they were not JSON objects. */
  malformed = 0
  /** 1-based line numbers in the file of the first {@link maxMalformedLines} malformed lines. */
  readonly malformedLines: Array<number> = []
  /** Complete lines consumed so far, blank ones included (the line number of the last one). */
  lineNumber = 0
  /** Whether the file currently ends in an incomplete line (a writer mid-line, or a crash). */
  truncatedTail = false
  lines = 0
  episodes = 0
  lastStep = 0
  lastWall = 0
  bestReturn = -Infinity
  lastReturn = NaN
  /** Returns of the last (up to) 100 episodes, oldest first. */
  readonly recentReturns: Array<number> = []
  summary: Record<string, unknown> | undefined = undefined
  /** The latest `runner` row of each cluster runner, by runner name. */
  readonly runners = new Map<string, RunnerStat>()
  /** `runner` rows skipped as invalid, and the first reason. */
  invalidRunnerRows = 0
  invalidRunnerReason: string | undefined = undefined
  /** `epoch` rows read (LLM agent training). */
  epochs = 0
  lastEpoch: Record<string, unknown> | undefined = undefined
  lastEvaluation: Record<string, unknown> | undefined = undefined
  /** Bytes consumed (complete lines only). */
  offset = 0
  size = 0
  mtimeMs = 0

  constructor(readonly file: string) {}

  /** Read whatever was appended since the last call. Resolves to whether anything new was consumed. */
  async refresh(): Promise<boolean> {
    let stat: fs.Stats
    try {
      stat = await fs.promises.stat(this.file)
    } catch {
      return false
    }
    this.mtimeMs = stat.mtimeMs
    if (stat.size < this.offset) this.reset()
    this.size = stat.size
    if (stat.size === this.offset) return false
    const before = this.offset
    await new Promise<void>((resolve, reject) => {
      const stream = fs.createReadStream(this.file, { start: this.offset, end: stat.size - 1, highWaterMark: 1 << 20 })
      let carry: Buffer | undefined
      stream.on("data", (chunk) => {
        const buf: Buffer = carry === undefined ? (chunk as Buffer) : Buffer.concat([carry, chunk as Buffer])
        const nl = buf.lastIndexOf(10)
        if (nl < 0) {
          carry = buf
          return
        }
        this.consume(buf.toString("utf8", 0, nl))
        this.offset += nl + 1
        carry = nl + 1 < buf.length ? buf.subarray(nl + 1) : undefined
      })
      stream.on("error", reject)
      stream.on("end", () => {
        this.truncatedTail = carry !== undefined && carry.length > 0
        resolve()
      })
    })
    return this.offset !== before
  }

  private reset(): void {
    this.columns.clear()
    this.malformed = 0
    this.malformedLines.length = 0
    this.lineNumber = 0
    this.truncatedTail = false
    this.lines = 0
    this.episodes = 0
    this.lastStep = 0
    this.lastWall = 0
    this.bestReturn = -Infinity
    this.lastReturn = NaN
    this.recentReturns.length = 0
    this.summary = undefined
    this.runners.clear()
    this.invalidRunnerRows = 0
    this.invalidRunnerReason = undefined
    this.epochs = 0
    this.lastEpoch = undefined
    this.lastEvaluation = undefined
    this.offset = 0
  }

  /** Parse complete lines (without their final newline). */
  private consume(text: string): void {
    let start = 0
    while (start <= text.length) {
      let end = text.indexOf("\n", start)
      if (end < 0) end = text.length
      const line = text.slice(start, end).trim()
      start = end + 1
      this.lineNumber++
      if (line.length > 0) this.row(line)
      if (end === text.length) break
    }
  }

  private skipMalformed(): void {
    this.malformed++
    if (this.malformedLines.length < maxMalformedLines) this.malformedLines.push(this.lineNumber)
  }

  private row(line: string): void {
    let row: unknown
    try {
      row = JSON.parse(line)
    } catch {
      this.skipMalformed()
      return
    }
    if (typeof row !== "object" || row === null || Array.isArray(row)) {
      this.skipMalformed()
      return
    }
    const r = row as Record<string, unknown>
    const index = this.lines++
    if (r["kind"] === "summary") {
      this.summary = r
      return
    }
    if (r["kind"] === "evaluation") this.lastEvaluation = r
    const step = num(r["globalStep"]) ?? num(r["iteration"]) ?? num(r["step"]) ?? num(r["epoch"]) ?? index
    const wall = num(r["wallSeconds"]) ?? NaN
    if (step > this.lastStep) this.lastStep = step
    if (Number.isFinite(wall) && wall > this.lastWall) this.lastWall = wall
    if (r["kind"] === "episode") {
      const ret = num(r["episodeReturn"])
      if (ret !== undefined) {
        this.episodes++
        this.lastReturn = ret
        if (ret > this.bestReturn) this.bestReturn = ret
        this.recentReturns.push(ret)
        if (this.recentReturns.length > 100) this.recentReturns.shift()
      }
    }
    if (r["kind"] === "runner") {
      const stat = runnerStat(r)
      if ("invalid" in stat) {
        this.invalidRunnerRows++
        this.invalidRunnerReason ??= stat.invalid
      } else this.runners.set(stat.runner, stat)
      return
    }
    if (r["kind"] === "epoch") {
      this.epochs++
      this.lastEpoch = r
      for (const [key, v] of epochColumns(r)) this.push(key, step, wall, v)
      return
    }
    // system rows (throughput, CPU, memory: core `Metrics.SystemRow`) are plotted as `system.<field>`
    const prefix = r["kind"] === "system" ? "system." : ""
    for (const key in r) {
      if (axisKeys.has(key)) continue
      const v = num(r[key])
      if (v !== undefined) this.push(prefix + key, step, wall, v)
    }
  }

  private push(key: string, step: number, wall: number, v: number): void {
    let col = this.columns.get(key)
    if (col === undefined) {
      col = { step: [], wall: [], value: [] }
      this.columns.set(key, col)
    }
    col.step.push(step)
    col.wall.push(wall)
    col.value.push(v)
  }
}

const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined)

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
 * `config.json` is written atomically (`Checkpoint.writeAtomic`: temp file, fsync, rename); `metrics.jsonl` is
 * appended line by line with synchronous writes, so a crash loses at most the line being written.
 * @since 0.1.0
 */
import { Checkpoint } from "@autodidact/optim/node"
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

/** An open run directory. */
export interface RunDirectory {
  readonly dir: string
  readonly checkpointsDir: string
  readonly metricsFile: string
  /** Append one row to metrics.jsonl (synchronous, so rows are never reordered or lost on exit). */
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

/**
 * Create (or reopen, with `resume`) a run directory and write `config.json`.
 * Fails with {@link RunDirectoryError} when the directory holds a previous run and `resume`/`overwrite` is not set.
 */
export const open = (
  dir: string,
  config: object,
  options: { readonly resume?: boolean; readonly overwrite?: boolean } = {}
): Effect.Effect<RunDirectory, RunDirectoryError | Checkpoint.CheckpointError> =>
  Effect.gen(function* () {
    const prepared = yield* prepare(dir, options)
    yield* Checkpoint.writeAtomic(path.join(dir, "config.json"), new TextEncoder().encode(JSON.stringify(config, null, 2) + "\n"))
    return prepared
  })

const prepare = (
  dir: string,
  options: { readonly resume?: boolean; readonly overwrite?: boolean }
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
          fs.writeSync(fd, JSON.stringify(row) + "\n")
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

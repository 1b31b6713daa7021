/**
 * `autodidact sokoban solve --levels FILE [--limit N] [--max-nodes N] [--json]`: solve Boxoban-format levels with
 * the push-optimal A* solver of `@autodidact/envs` and print solved count, total, mean plan length and seconds.
 * @since 0.1.0
 */
import { Rng } from "@autodidact/core"
import { SokobanGenerator, SokobanSolver } from "@autodidact/envs"
import { SokobanLevel } from "@autodidact/envs/node"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as Inputs from "../Inputs.js"
import * as Output from "../Output.js"
import type { Configs } from "../Commands.js"

/** Summary row of a solve run (what `--json` prints). */
export interface SolveSummaryRow {
  readonly levels: string
  readonly solved: number
  readonly total: number
  readonly unsolvable: number
  readonly budgetExceeded: number
  readonly meanPlanLength: number
  readonly meanPushes: number
  readonly seconds: number
}

/** Solve `levels` and print the summary table (or JSON). */
export const solveAndReport = (
  source: string,
  levels: ReadonlyArray<SokobanLevel.Level>,
  options: { readonly json: boolean; readonly maxNodes: number; readonly title?: string }
): Effect.Effect<SolveSummaryRow> =>
  Effect.sync(() => {
    const summary = SokobanSolver.solveLevels(levels, { maxNodes: options.maxNodes })
    const row: SolveSummaryRow = {
      levels: source,
      solved: summary.solved,
      total: summary.total,
      unsolvable: summary.unsolvable,
      budgetExceeded: summary.total - summary.solved - summary.unsolvable,
      meanPlanLength: round(summary.meanPlanLength, 2),
      meanPushes: round(summary.meanPushes, 2),
      seconds: round(summary.seconds, 3)
    }
    Output.printSummary(options.json, options.title ?? "Sokoban solver (A*, push-optimal)", { ...row })
    return row
  })

/**
 * Load the first `limit` levels of a Boxoban file, or, when `file` is absent, generate `limit` levels
 * (10x10, 4 boxes) from `seed` so the job still runs on a machine without the data set.
 */
export const loadOrGenerate = (
  file: string,
  limit: number,
  seed: number,
  json: boolean
): Effect.Effect<
  { source: string; levels: ReadonlyArray<SokobanLevel.Level> },
  SokobanLevel.LevelFileError | SokobanLevel.LevelParseError | SokobanGenerator.GenerationError | Inputs.InputFileError
> =>
  Effect.gen(function* () {
    if (fs.existsSync(file)) {
      yield* Inputs.requireNonEmptyFile("levels", file)
      const levels = yield* Inputs.requireSome("levels", file, yield* SokobanLevel.loadLevelFile(file), "levels (expected `; N` then 10 rows per level)")
      return { source: file, levels: levels.slice(0, limit) }
    }
    Output.note(json, `${file} not found: generating ${limit} levels (10x10, 4 boxes, seed ${seed}) instead`)
    const rng = Rng.make(seed)
    const levels: Array<SokobanLevel.Level> = []
    for (let i = 0; i < limit; i++) levels.push(yield* SokobanGenerator.generateEffect(rng, { id: String(i) }))
    return { source: `generated(seed=${seed}, n=${limit})`, levels }
  })

const round = (x: number, digits: number) => (Number.isFinite(x) ? Number(x.toFixed(digits)) : x)

/** `autodidact sokoban solve` */
export const handleSokobanSolve = (config: Configs["sokoban solve"]): Effect.Effect<void, unknown> =>
    Effect.gen(function* () {
      yield* Inputs.requireNonEmptyFile("levels", config.levels)
      const levels = yield* Inputs.requireSome("levels", config.levels, yield* SokobanLevel.loadLevelFile(config.levels), "levels (expected `; N` then 10 rows per level)")
      yield* solveAndReport(config.levels, levels.slice(0, config.limit), config)
    })

/** `autodidact sokoban ...` */

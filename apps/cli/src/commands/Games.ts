/**
 * `autodidact games solve --game leduc_poker --algo cfr+ --iterations 1000 [--report-every N] [--target-nashconv X]
 * [--save FILE] [--resume FILE] [--json]`: run an equilibrium solver of `@autodidact/solvers` on a game of
 * `@autodidact/envs`, printing NashConv at every report and, at the end, the average policy's game value for each
 * player. With `--target-nashconv X` the run stops at the first iteration whose NashConv is at or below X (the
 * summary's `reachedTarget` says whether it did within `--iterations`). With `--out DIR` it writes a run directory as
 * `train` does: `config.json`, and `metrics.jsonl` with a `kind: "solver"` row per report (`globalStep` = iteration,
 * `wallSeconds`, `nashConv`, `exploitability`: the core Metrics names) and the summary row, for the dashboard, and the
 * average policy as `policy.json` (`TabularPolicy` JSON, written atomically; `games rank` reads it).
 * @since 0.1.0
 */
import { GameRegistry } from "@autodidact/envs"
import { AtomicFile } from "@autodidact/core/node"
import { Exploitability, Solver, TabularPolicy } from "@autodidact/solvers"
import { SolverFiles } from "@autodidact/solvers/node"
import { Effect } from "effect"
import * as path from "node:path"
import * as Inputs from "../Inputs.js"
import * as Output from "../Output.js"
import * as RunDirectory from "../RunDirectory.js"
import { versions } from "../Versions.js"
import type { Configs } from "../Commands.js"

/** What `games solve` reports at the end. */
export interface GamesSolveSummary {
  readonly kind: "summary"
  readonly game: string
  readonly algo: string
  readonly iteration: number
  readonly nashConv: number
  readonly exploitability: number
  readonly gameValue: ReadonlyArray<number>
  readonly elapsedSeconds: number
  /** With `--target-nashconv`: whether NashConv reached it (false when the iterations ran out first). */
  readonly reachedTarget?: boolean
  /** With `--out`: the average policy's file, relative to the run directory. */
  readonly policy?: string
}

/** `autodidact games solve` */
export const handleGamesSolve = (config: Configs["games solve"]): Effect.Effect<void, unknown> =>
    config.algo === "deep-cfr" ? Effect.flatMap(Effect.promise(() => import("./GamesDeepCfr.js")), (m) => m.handleGamesDeepCfr(config)) : Effect.gen(function* () {
      const game = yield* Effect.try({ try: () => GameRegistry.loadGame(config.game), catch: (e) => e as GameRegistry.UnknownGameError })
      if (config.resume._tag === "Some") yield* Inputs.requireNonEmptyFile("resume", config.resume.value)
      const resume = config.resume._tag === "Some" ? yield* SolverFiles.loadState(config.resume.value) : undefined
      // --out: a run directory like `train --out`; each report becomes a metrics row whose globalStep is the iteration
      const run = config.out._tag === "None" ? undefined : yield* RunDirectory.open(config.out.value, {
        command: "games solve",
        game: config.game,
        algo: config.algo,
        iterations: config.iterations,
        reportEvery: config.reportEvery._tag === "Some" ? config.reportEvery.value : null,
        targetNashConv: config.targetNashConv._tag === "Some" ? config.targetNashConv.value : null,
        seed: config.seed,
        resumedFrom: config.resume._tag === "Some" ? config.resume.value : null,
        versions: versions(),
        startedAt: new Date().toISOString()
      })
      if (run !== undefined) Output.note(config.json, `Solving ${config.game} with ${config.algo} -> ${run.dir}`)
      const rows: Array<Record<string, number>> = []
      const result = yield* Solver.solve(
        game,
        {
          algo: config.algo,
          iterations: config.iterations,
          seed: config.seed,
          ...(config.reportEvery._tag === "Some" ? { reportEvery: config.reportEvery.value } : {}),
          ...(config.targetNashConv._tag === "Some" ? { targetNashConv: config.targetNashConv.value } : {}),
          ...(resume === undefined ? {} : { resume })
        },
        {
          onReport: (p) => {
            const row = { iteration: p.iteration, nashConv: p.nashConv, exploitability: p.exploitability, elapsedSeconds: Number(p.elapsedSeconds.toFixed(3)) }
            if (config.json) process.stdout.write(JSON.stringify({ kind: "report", ...row }) + "\n")
            else process.stderr.write(`  iteration ${p.iteration}: NashConv ${p.nashConv.toExponential(4)} (${p.elapsedSeconds.toFixed(2)} s)\n`)
            rows.push(row)
            run?.append({ kind: "solver", globalStep: p.iteration, wallSeconds: row.elapsedSeconds, nashConv: p.nashConv, exploitability: p.exploitability })
          }
        }
      )
      const gameValue = yield* Exploitability.expectedReturns(game, result.policy)
      if (config.save._tag === "Some") yield* SolverFiles.saveState(config.save.value, result.state)
      if (run !== undefined) {
        const file = path.join(run.dir, "policy.json")
        yield* Effect.try({
          try: () => AtomicFile.writeSync(file, JSON.stringify(TabularPolicy.toJson(result.policy)) + "\n"),
          catch: (e) => new RunDirectory.RunDirectoryError({ path: file, reason: `cannot write the policy: ${String(e)}` })
        })
      }
      const summary: GamesSolveSummary = {
        kind: "summary",
        game: config.game,
        algo: result.algo,
        iteration: result.iteration,
        nashConv: result.nashConv,
        exploitability: result.exploitability,
        gameValue: gameValue.map((v) => Number(v.toPrecision(12))),
        elapsedSeconds: Number(result.elapsedSeconds.toFixed(3)),
        ...(config.targetNashConv._tag === "Some" ? { reachedTarget: result.reachedTarget } : {}),
        ...(run === undefined ? {} : { policy: "policy.json" })
      }
      run?.append({ ...summary, globalStep: summary.iteration, wallSeconds: summary.elapsedSeconds })
      if (config.json) process.stdout.write(JSON.stringify(summary) + "\n")
      else {
        Output.printTable(false, `NashConv of the average policy (${result.algo} on ${config.game})`, rows)
        Output.printSummary(false, "Result", { ...summary, gameValue: summary.gameValue.join(", ") })
      }
    })

/** `autodidact games ...` */

/**
 * `autodidact games psro --game G [--meta-solver nash] [--eval-meta-solver M] [--iterations 20] [--out DIR] [--json]`: PSRO with an exact
 * best-response oracle (`PsroExtensive` of `@autodidact/solvers`, extensive-form and matrix games alike) and one of
 * its meta-solvers (`uniform`, `nash`: the maximin LP, two-player zero-sum; `prd`; `alpharank`; `shor`: SHOR-PSRO's annealed training meta-solver; `shor-eval`: its evaluation-time one), printing each
 * iteration's population sizes and the NashConv of the meta-strategy mixture in the full game. `--eval-meta-solver`
 * reports another meta-solver's meta-strategy while the best responses answer `--meta-solver`'s, as SHOR-PSRO
 * evaluates (default `shor-eval` with `--meta-solver shor`; the summary names it); `shor` goes on through an
 * iteration without a new best response (its annealing may change the next answer). With a JPSRO
 * meta-solver (`ce`, `cce`: max-welfare correlated / coarse correlated equilibrium; `mgce`, `mgcce`: Maximum Gini)
 * it runs `Jpsro` on a matrix game and prints the (C)CE gap instead; on a game that is not a matrix game that fails
 * with `InvalidOptionError` naming the meta-solver and the game. With `--out DIR` it writes a run directory as
 * `games solve` does: `config.json`, `metrics.jsonl` with a `kind: "psro"` row per iteration (`globalStep` = iteration
 * + 1, `nashConv` or `gap`), and for PSRO the final mixture policy as `policy.json` (`games rank` reads it).
 * @since 0.2.0
 */
import { InvalidOptionError } from "@autodidact/core"
import { GameRegistry } from "@autodidact/envs"
import { Jpsro, type MetaSolvers, PsroExtensive, TabularPolicy } from "@autodidact/solvers"
import { Highs } from "@autodidact/solvers/lp"
import { AtomicFile } from "@autodidact/core/node"
import { Effect, Option } from "effect"
import * as path from "node:path"
import * as Output from "../Output.js"
import * as RunDirectory from "../RunDirectory.js"
import { versions } from "../Versions.js"
import { type Configs, jointPsroMetaSolvers } from "../Commands.js"

/** What `games psro` reports at the end. */
export interface GamesPsroSummary {
  readonly kind: "summary"
  readonly game: string
  readonly metaSolver: string
  /** PSRO: the meta-solver whose meta-strategy is reported (absent: the training one). */
  readonly evalMetaSolver?: string
  readonly iterations: number
  readonly stopReason: string
  readonly populationSizes: ReadonlyArray<number>
  /** PSRO: NashConv of the final mixture in the full game. */
  readonly nashConv?: number
  /** JPSRO: the final (C)CE gap. */
  readonly gap?: number
  readonly elapsedSeconds: number
  /** With `--out`: the final mixture policy (PSRO), relative to the run directory. */
  readonly policy?: string
}

const joint = {
  ce: { kind: "ce", metaSolver: "maxWelfareCe" },
  cce: { kind: "cce", metaSolver: "maxWelfareCce" },
  mgce: { kind: "ce", metaSolver: "mgce" },
  mgcce: { kind: "cce", metaSolver: "mgcce" }
} as const

/** `autodidact games psro` */
export const handleGamesPsro = (config: Configs["games psro"]): Effect.Effect<void, unknown> =>
    Effect.gen(function* () {
      const game = yield* Effect.try({ try: () => GameRegistry.loadGame(config.game), catch: (e) => e as GameRegistry.UnknownGameError })
      const isJoint = (jointPsroMetaSolvers as ReadonlyArray<string>).includes(config.metaSolver)
      const tensor = "shape" in game && "payoffs" in game ? (game as unknown as { shape: ReadonlyArray<number>; payoffs: ReadonlyArray<Float64Array> }) : undefined
      const evalMetaSolver = Option.getOrUndefined(config.evalMetaSolver) ?? (config.metaSolver === "shor" ? "shor-eval" : undefined)
      if (isJoint && Option.isSome(config.evalMetaSolver)) {
        return yield* Effect.fail(new InvalidOptionError({
          option: "eval-meta-solver",
          value: config.evalMetaSolver.value,
          reason: `applies to PSRO meta-solvers, not to the JPSRO meta-solver ${config.metaSolver}`
        }))
      }
      if (isJoint && tensor === undefined) {
        return yield* Effect.fail(new InvalidOptionError({
          option: "meta-solver",
          value: config.metaSolver,
          reason: `a JPSRO meta-solver (ce, cce, mgce, mgcce) needs a normal-form game (matrix_*), not ${config.game}; use uniform, nash, prd, alpharank or shor`
        }))
      }
      const run = config.out._tag === "None" ? undefined : yield* RunDirectory.open(config.out.value, {
        command: "games psro",
        game: config.game,
        metaSolver: config.metaSolver,
        ...(evalMetaSolver === undefined ? {} : { evalMetaSolver }),
        iterations: config.iterations,
        versions: versions(),
        startedAt: new Date().toISOString()
      })
      if (run !== undefined) Output.note(config.json, `PSRO on ${config.game} with ${config.metaSolver} -> ${run.dir}`)
      const rows: Array<Record<string, string | number>> = []
      const report = (row: Record<string, string | number>, gapName: "nashConv" | "gap") => {
        if (config.json) process.stdout.write(JSON.stringify({ kind: "iteration", ...row }) + "\n")
        else process.stderr.write(`  iteration ${row["iteration"]}: populations ${row["populations"]}, ${gapName} ${Number(row[gapName]).toExponential(4)}\n`)
        rows.push(row)
        run?.append({ kind: "psro", globalStep: Number(row["iteration"]), wallSeconds: row["elapsedSeconds"], [gapName]: row[gapName] })
      }
      /** The summary of a finished run: its head, and the final gap under its name. */
      const summaryOf = (
        result: { readonly history: ReadonlyArray<unknown>; readonly stopReason: string; readonly final: { readonly populationSizes: ReadonlyArray<number>; readonly elapsedSeconds: number } },
        gap: { readonly nashConv: number } | { readonly gap: number }
      ): GamesPsroSummary => ({
        kind: "summary",
        game: config.game,
        metaSolver: config.metaSolver,
        ...(evalMetaSolver === undefined ? {} : { evalMetaSolver }),
        iterations: result.history.length,
        stopReason: result.stopReason,
        populationSizes: result.final.populationSizes,
        ...gap,
        elapsedSeconds: Number(result.final.elapsedSeconds.toFixed(3))
      })
      let summary: GamesPsroSummary
      if (isJoint) {
        const choice = joint[config.metaSolver as keyof typeof joint]
        const result = yield* Jpsro.run(tensor!, {
          kind: choice.kind,
          metaSolver: choice.metaSolver,
          iterations: config.iterations,
          onIteration: (r) =>
            report({ iteration: r.iteration + 1, populations: r.populationSizes.join("x"), gap: r.gap, elapsedSeconds: Number(r.elapsedSeconds.toFixed(3)) }, "gap")
        }).pipe(Effect.provide(Highs.layer))
        summary = summaryOf(result, { gap: result.final.gap })
      } else {
        const result = yield* PsroExtensive.run(game, {
          metaSolver: config.metaSolver as MetaSolvers.MetaSolverName,
          evalMetaSolver: evalMetaSolver as MetaSolvers.MetaSolverName | undefined,
          iterations: config.iterations,
          onIteration: (r) =>
            report({ iteration: r.iteration + 1, populations: r.populationSizes.join("x"), nashConv: r.nashConv, elapsedSeconds: Number(r.elapsedSeconds.toFixed(3)) }, "nashConv")
        }).pipe(Effect.provide(Highs.layer))
        let policy: string | undefined
        if (run !== undefined) {
          const file = path.join(run.dir, "policy.json")
          yield* Effect.try({
            try: () => AtomicFile.writeSync(file, JSON.stringify(TabularPolicy.toJson(result.final.mixture)) + "\n"),
            catch: (e) => new RunDirectory.RunDirectoryError({ path: file, reason: `cannot write the policy: ${String(e)}` })
          })
          policy = "policy.json"
        }
        summary = { ...summaryOf(result, { nashConv: result.final.nashConv }), ...(policy === undefined ? {} : { policy }) }
      }
      run?.append({ ...summary, globalStep: summary.iterations, wallSeconds: summary.elapsedSeconds })
      if (config.json) process.stdout.write(JSON.stringify(summary) + "\n")
      else {
        Output.printTable(false, `PSRO with ${config.metaSolver} on ${config.game}`, rows)
        Output.printSummary(false, "Result", { ...summary, populationSizes: summary.populationSizes.join("x") })
      }
    })

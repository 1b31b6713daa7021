/**
 * `autodidact games solve --game leduc_poker --algo cfr+ --iterations 1000 [--report-every N] [--save FILE]
 * [--resume FILE] [--json]`: run an equilibrium solver of `@autodidact/solvers` on a game of `@autodidact/envs`,
 * printing NashConv at every report and, at the end, the average policy's game value for each player.
 * @since 0.1.0
 */
import { GameRegistry } from "@autodidact/envs"
import { Exploitability, Solver } from "@autodidact/solvers"
import { Effect } from "effect"
import { Command, Flag } from "effect/cli"
import { jsonFlag } from "../Flags.js"
import * as Output from "../Output.js"

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
}

const solveCommand = Command.make(
  "solve",
  {
    game: Flag.String("game").pipe(Flag.withDescription("Game name as OpenSpiel spells it, e.g. kuhn_poker, leduc_poker, kuhn_poker(players=3)")),
    algo: Flag.Literals("algo", Solver.algorithms).pipe(Flag.withDefault("cfr+" as const), Flag.withDescription("Solver")),
    iterations: Flag.Int("iterations").pipe(Flag.withDefault(1000), Flag.withDescription("Iterations to run")),
    reportEvery: Flag.Int("report-every").pipe(Flag.optional, Flag.withDescription("Report NashConv every N iterations (default: iterations / 10)")),
    seed: Flag.Int("seed").pipe(Flag.withDefault(0), Flag.withDescription("Seed of the sampling (MCCFR) solvers")),
    save: Flag.String("save").pipe(Flag.optional, Flag.withDescription("Write the solver state here at the end (atomic)")),
    resume: Flag.String("resume").pipe(Flag.optional, Flag.withDescription("Continue from a saved solver state")),
    json: jsonFlag
  },
  (config) =>
    Effect.gen(function* () {
      const game = yield* Effect.try({ try: () => GameRegistry.loadGame(config.game), catch: (e) => e as GameRegistry.UnknownGameError })
      const resume = config.resume._tag === "Some" ? yield* Solver.loadState(config.resume.value) : undefined
      const rows: Array<Record<string, number>> = []
      const result = yield* Solver.solve(
        game,
        {
          algo: config.algo,
          iterations: config.iterations,
          seed: config.seed,
          ...(config.reportEvery._tag === "Some" ? { reportEvery: config.reportEvery.value } : {}),
          ...(resume === undefined ? {} : { resume })
        },
        {
          onReport: (p) => {
            const row = { iteration: p.iteration, nashConv: p.nashConv, exploitability: p.exploitability, elapsedSeconds: Number(p.elapsedSeconds.toFixed(3)) }
            if (config.json) process.stdout.write(JSON.stringify({ kind: "report", ...row }) + "\n")
            else process.stderr.write(`  iteration ${p.iteration}: NashConv ${p.nashConv.toExponential(4)} (${p.elapsedSeconds.toFixed(2)} s)\n`)
            rows.push(row)
          }
        }
      )
      const gameValue = yield* Exploitability.expectedReturns(game, result.policy)
      if (config.save._tag === "Some") yield* Solver.saveState(config.save.value, result.state)
      const summary: GamesSolveSummary = {
        kind: "summary",
        game: config.game,
        algo: result.algo,
        iteration: result.iteration,
        nashConv: result.nashConv,
        exploitability: result.exploitability,
        gameValue: gameValue.map((v) => Number(v.toPrecision(12))),
        elapsedSeconds: Number(result.elapsedSeconds.toFixed(3))
      }
      if (config.json) process.stdout.write(JSON.stringify(summary) + "\n")
      else {
        Output.printTable(false, `NashConv of the average policy (${result.algo} on ${config.game})`, rows)
        Output.printSummary(false, "Result", { ...summary, gameValue: summary.gameValue.join(", ") })
      }
    })
).pipe(Command.withDescription("Solve a game with CFR, CFR+, LCFR, DCFR or MCCFR; prints NashConv per report and the game value"))

/** `autodidact games ...` */
export const gamesCommand = Command.make("games").pipe(
  Command.withDescription("Games and equilibrium solvers"),
  Command.withSubcommands([solveCommand])
)

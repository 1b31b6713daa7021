/**
 * `autodidact bench solvers [--games "a;b"] [--algos cfr+,pdcfr+|all] [--iterations 10,100,1000,10000]
 * [--max-seconds 120] [--json]`: the convergence table of `Convergence` (`@autodidact/solvers`): per game and
 * algorithm, NashConv of the average policy after each checkpoint and the solver's seconds (NashConv evaluations not
 * counted). Rows print as they are measured (stderr, or JSON lines with `--json`), then the markdown table.
 * @since 0.2.0
 */
import { Convergence, type Solver } from "@autodidact/solvers"
import { Effect } from "effect"
import type { Configs } from "../Commands.js"

const list = (value: string, separator: string) => value.split(separator).map((s) => s.trim()).filter((s) => s.length > 0)

/** `autodidact bench solvers` */
export const handleBenchSolvers = (config: Configs["bench solvers"]): Effect.Effect<void, unknown> =>
  Effect.try({
    try: () => {
      const rows = Convergence.run(
        {
          games: list(config.games, ";"),
          ...(config.algos === "all" ? {} : { algorithms: list(config.algos, ",") as Array<Solver.Algorithm> }),
          checkpoints: list(config.iterations, ",").map(Number),
          maxSeconds: config.maxSeconds
        },
        (row) => {
          if (config.json) process.stdout.write(JSON.stringify({ kind: "row", ...row, nashConv: Number.isNaN(row.nashConv) ? null : row.nashConv }) + "\n")
          else process.stderr.write(`  ${row.game} ${row.algo} @${row.iteration}: ${row.skipped ?? `NashConv ${row.nashConv.toExponential(3)} (${row.seconds.toFixed(2)} s)`}\n`)
        }
      )
      if (!config.json) process.stdout.write(Convergence.markdown(rows) + "\n")
    },
    catch: (e) => e
  })

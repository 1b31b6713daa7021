/**
 * Convergence tables of the tabular solvers: for each game and algorithm, the NashConv of the average policy after a
 * list of iteration counts (default 10, 100, 1,000, 10,000) and the solver's own wall time to get there (the NashConv
 * evaluations are timed apart and not counted). What `autodidact bench solvers` prints.
 *
 * **Details**
 * - Games are `GameRegistry` names of `@autodidact/envs` (OpenSpiel syntax: `kuhn_poker(players=3)`); the default set
 *   is Kuhn, Leduc, Liar's dice (two players, one six-sided die each) and three-player Kuhn.
 * - An algorithm that does not apply to a game (CFR-BR on three players) gives one row with `skipped` set to the
 *   reason instead of failing the table.
 * - `maxSeconds` bounds each game × algorithm run: stepping stops once the budget is spent (checked every 16
 *   iterations) and the checkpoints not reached are left out (the rows say how far each run got), so a slow
 *   combination cannot stall the table.
 * - MCCFR rows depend on `seed` (default 0); every other row is deterministic.
 *
 * @example
 * ```ts
 * import { Convergence } from "@autodidact/solvers"
 * const rows = Convergence.run({ games: ["kuhn_poker"], algorithms: ["cfr+", "pdcfr+"], checkpoints: [10, 100] })
 * console.log(Convergence.markdown(rows))
 * ```
 * @since 0.2.0
 */
import { InvalidOptionError } from "@autodidact/core"
import { GameRegistry } from "@autodidact/envs"
import { Effect } from "effect"
import * as Exploitability from "../evaluation/Exploitability.js"
import * as Solver from "./Solver.js"

/** The default games of the table. */
export const defaultGames: ReadonlyArray<string> = ["kuhn_poker", "leduc_poker", "liars_dice(players=2,numdice=1,dice_sides=6)", "kuhn_poker(players=3)"]

/** The default checkpoints. */
export const defaultCheckpoints: ReadonlyArray<number> = [10, 100, 1_000, 10_000]

/** Options of {@link run}. */
export interface Options {
  /** `GameRegistry` names (default {@link defaultGames}). */
  readonly games?: ReadonlyArray<string> | undefined
  /** Algorithms (default every `Solver.algorithms`). */
  readonly algorithms?: ReadonlyArray<Solver.Algorithm> | undefined
  /** Iteration counts at which NashConv is measured, increasing positive integers (default {@link defaultCheckpoints}). */
  readonly checkpoints?: ReadonlyArray<number> | undefined
  /** Solver seconds allowed per game × algorithm (default 120). */
  readonly maxSeconds?: number | undefined
  /** Seed of the sampling solvers (default 0). */
  readonly seed?: number | undefined
}

/** One measurement: an algorithm on a game after `iteration` iterations (or why it was skipped). */
export interface Row {
  readonly game: string
  readonly algo: Solver.Algorithm
  readonly iteration: number
  /** NashConv of the average policy (utility units); NaN when skipped. */
  readonly nashConv: number
  /** The solver's wall-clock seconds for all iterations so far (NashConv evaluations excluded). */
  readonly seconds: number
  /** Why the algorithm did not run on this game. */
  readonly skipped?: string | undefined
}

/**
 * Measure the table (synchronous; seconds to minutes with the defaults). `onRow` sees each row as it is measured.
 * @throws InvalidOptionError for bad checkpoints or `maxSeconds`; UnknownGameError for an unknown game name;
 *   UnknownAlgorithmError for an unknown algorithm.
 */
export const run = (options: Options = {}, onRow?: (row: Row) => void): Array<Row> => {
  const checkpoints = options.checkpoints ?? defaultCheckpoints
  if (checkpoints.length === 0 || checkpoints.some((c, i) => !Number.isSafeInteger(c) || c <= 0 || (i > 0 && c <= checkpoints[i - 1]!))) {
    throw new InvalidOptionError({ option: "checkpoints", value: [...checkpoints], reason: "expected increasing positive integers" })
  }
  const maxSeconds = options.maxSeconds ?? 120
  if (!(maxSeconds > 0)) throw new InvalidOptionError({ option: "maxSeconds", value: maxSeconds, reason: "expected a positive number" })
  const rows: Array<Row> = []
  const emit = (row: Row) => {
    rows.push(row)
    onRow?.(row)
  }
  for (const name of options.games ?? defaultGames) {
    const game = GameRegistry.loadGame(name)
    for (const algo of options.algorithms ?? Solver.algorithms) {
      const made = Effect.runSync(Effect.result(Solver.make(game, { algo, iterations: checkpoints.at(-1)!, seed: options.seed ?? 0 })))
      if (made._tag === "Failure") {
        if (made.failure._tag === "UnknownAlgorithmError") throw made.failure
        emit({ game: name, algo, iteration: 0, nashConv: Number.NaN, seconds: 0, skipped: made.failure.message })
        continue
      }
      const session = made.success
      const ws = Exploitability.workspace(session.tree)
      const probs = new Float64Array(session.tree.numSlots)
      let seconds = 0
      for (const target of checkpoints) {
        const t0 = performance.now()
        let outOfTime = false
        while (session.iteration() < target) {
          session.step()
          // the budget is checked every 16 iterations: a checkpoint it does not reach is left out
          if ((session.iteration() & 15) === 0 && seconds + (performance.now() - t0) / 1000 > maxSeconds) {
            outOfTime = session.iteration() < target
            break
          }
        }
        seconds += (performance.now() - t0) / 1000
        if (outOfTime) break
        session.averageProbabilities(probs)
        emit({ game: name, algo, iteration: target, nashConv: Exploitability.nashConvOnTree(session.tree, probs, ws), seconds })
        if (seconds > maxSeconds) break
      }
    }
  }
  return rows
}

/** A markdown table of `rows`: one line per game × algorithm, NashConv per checkpoint, and the last one's seconds. */
export const markdown = (rows: ReadonlyArray<Row>): string => {
  const checkpoints = [...new Set(rows.filter((r) => r.skipped === undefined).map((r) => r.iteration))].sort((a, b) => a - b)
  const head = `| game | algorithm | ${checkpoints.map((c) => `NashConv @${c.toLocaleString("en-US")}`).join(" | ")} | seconds |`
  const lines = [head, `|---|---|${checkpoints.map(() => "---:").join("|")}|---:|`]
  const keys = [...new Set(rows.map((r) => `${r.game}\u0000${r.algo}`))]
  for (const key of keys) {
    const [game, algo] = key.split("\u0000") as [string, string]
    const mine = rows.filter((r) => r.game === game && r.algo === algo)
    const skipped = mine.find((r) => r.skipped !== undefined)
    if (skipped !== undefined) {
      lines.push(`| ${game} | ${algo} | ${checkpoints.map(() => "n/a").join(" | ")} | ${skipped.skipped} |`)
      continue
    }
    const at = (c: number) => mine.find((r) => r.iteration === c)
    const last = mine.at(-1)!
    lines.push(`| ${game} | ${algo} | ${checkpoints.map((c) => (at(c) === undefined ? "—" : at(c)!.nashConv.toExponential(2))).join(" | ")} | ${last.seconds.toFixed(2)} |`)
  }
  return lines.join("\n")
}

/**
 * Solver state files on disk (Node only; reached through `@autodidact/solvers/node`): save a run's
 * `Solver.SolverState` and load it back to resume bit for bit.
 *
 * **Details**
 * - Files are the JSON document of `Solver.toJson` (`format: "autodidact.solver-state"`, `version: 1`, arrays as
 *   base64 of little-endian float64, exact), written atomically (`AtomicFile` of `@autodidact/core/node`: temp file
 *   in the same directory, fsync, rename, fsync the directory) and validated with `Schema` on load.
 * - Two faces: Promises ({@link save}, {@link load}) that reject with the same tagged errors, and Effects
 *   ({@link saveState}, {@link loadState}).
 *
 * @example
 * ```ts
 * import { loadGame } from "@autodidact/envs"
 * import { Solver } from "@autodidact/solvers"
 * import { SolverFiles } from "@autodidact/solvers/node"
 * const game = loadGame("leduc_poker")
 * const first = Solver.run(game, { algo: "cfr+", iterations: 500 })
 * await SolverFiles.save("runs/leduc/solver.json", first.state)
 * const more = Solver.run(game, { algo: "cfr+", iterations: 500, resume: await SolverFiles.load("runs/leduc/solver.json") })
 * ```
 * @category solvers
 * @since 0.1.0
 */
import { AtomicFile } from "@autodidact/core/node"
import { Effect } from "effect"
import * as fs from "node:fs"
import { CorruptedSolverStateError, SolverStateWriteError } from "../Errors.js"
import { fromJson, type SolverState, toJson } from "./Solver.js"

/**
 * Write `state` to `path` as JSON (`Solver.toJson`), atomically: temp file in the same directory, fsync, rename,
 * fsync the directory. Fails with `SolverStateWriteError` (path and reason) when any step fails; the old file, if
 * any, is then intact.
 */
export const saveState = (path: string, state: SolverState): Effect.Effect<void, SolverStateWriteError> =>
  Effect.suspend(() => AtomicFile.write(path, JSON.stringify(toJson(state)))).pipe(
    Effect.mapError((e) => new SolverStateWriteError({ path, reason: e.reason }))
  )

/**
 * Read and validate (Effect `Schema`) a state file written by {@link saveState}. Fails with
 * `CorruptedSolverStateError` (path and reason) when the file cannot be read, is not JSON, has another format or
 * version, or has arrays of the wrong length or encoding. Whether it fits a game is checked by `Solver.make`'s
 * `resume`.
 */
export const loadState = (path: string): Effect.Effect<SolverState, CorruptedSolverStateError> =>
  Effect.gen(function*() {
    const text = yield* Effect.try({
      try: () => fs.readFileSync(path, "utf8"),
      catch: (e) => new CorruptedSolverStateError({ path, reason: `cannot read: ${e instanceof Error ? e.message : String(e)}` })
    })
    const json = yield* Effect.try({
      try: () => JSON.parse(text) as unknown,
      catch: (e) => new CorruptedSolverStateError({ path, reason: `not JSON: ${e instanceof Error ? e.message : String(e)}` })
    })
    return yield* fromJson(json, path)
  })

/** {@link saveState} as a Promise; rejects with `SolverStateWriteError`. */
export const save = (path: string, state: SolverState): Promise<void> => Effect.runPromise(saveState(path, state))

/** {@link loadState} as a Promise; rejects with `CorruptedSolverStateError`. */
export const load = (path: string): Promise<SolverState> => Effect.runPromise(loadState(path))

/**
 * Self-play checkpoints on disk (Node only): {@link save} writes a `SelfPlay.CheckpointJson` atomically (core's
 * `AtomicFile`: temp file, fsync, rename — an interrupted write leaves the previous file), {@link load} reads and
 * Schema-checks it.
 *
 * **Errors**: `CheckpointError` (I/O, naming the path), `CorruptCheckpointError` (not JSON, or not a self-play
 * checkpoint: the Schema's message names the offending field).
 * @since 0.3.0
 */
import { AtomicFile } from "@autodidact/core/node"
import { Effect } from "effect"
import * as fs from "node:fs"
import { CheckpointError, CorruptCheckpointError } from "../ppo/CheckpointError.js"
import * as SelfPlay from "../selfplay/SelfPlay.js"

/** Write `checkpoint` to `path` atomically (creates the directory). */
export const save = (path: string, checkpoint: SelfPlay.CheckpointJson): Effect.Effect<void, CheckpointError> =>
  AtomicFile.write(path, JSON.stringify(checkpoint) + "\n").pipe(Effect.mapError((e) => new CheckpointError({ path, reason: e.reason })))

/** {@link save}, synchronous: throws `CheckpointError`. */
export const saveSync = (path: string, checkpoint: SelfPlay.CheckpointJson): void => {
  try {
    AtomicFile.writeSync(path, JSON.stringify(checkpoint) + "\n")
  } catch (e) {
    throw new CheckpointError({ path, reason: e instanceof Error ? e.message : String(e) })
  }
}

/** Read and decode the checkpoint at `path`. */
export const load = (path: string): Effect.Effect<SelfPlay.CheckpointJson, CheckpointError | CorruptCheckpointError> =>
  Effect.gen(function* () {
    const text = yield* Effect.try({
      try: () => fs.readFileSync(path, "utf8"),
      catch: (e) => new CheckpointError({ path, reason: e instanceof Error ? e.message : String(e) })
    })
    const json = yield* Effect.try({ try: () => JSON.parse(text) as unknown, catch: (e) => new CorruptCheckpointError({ path, reason: `not JSON: ${String(e)}` }) })
    return yield* SelfPlay.decodeCheckpoint(json).pipe(
      Effect.mapError((e) => new CorruptCheckpointError({ path, reason: `not a self-play checkpoint: ${e.message}` }))
    )
  })

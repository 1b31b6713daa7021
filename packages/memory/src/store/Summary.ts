/**
 * The summary of an experience store that other tools read without opening the store: `memory-summary.json`,
 * `{ "counts": { "trajectory": 120, "insight": 14, "reflection": 9, "tip": 3 }, "total": 146, "writtenAt": "…" }` —
 * the format `@autodidact/dashboard`'s memory panel reads next to a run (`<run>/memory/memory-summary.json`).
 *
 * A store opened on a directory (`Store.layerPglite({ dir })`, `Store.open({ dir })`) writes it into that directory
 * when its scope closes; {@link write} writes it on demand (atomically: temp file, fsync, rename, as core's
 * `AtomicFile`).
 *
 * @since 0.1.0
 */
import { AtomicFile } from "@autodidact/core/node"
import { Effect, Schema } from "effect"
import * as nodePath from "node:path"
import { type Kind, kinds } from "./Records.js"
import type { Filters } from "./Retrieval.js"

/** The file name. */
export const fileName = "memory-summary.json"

/** What the file holds. */
export const Summary = Schema.Struct({
  /** Records per kind; every kind is present (0 when none). */
  counts: Schema.Record(Schema.String, Schema.Number),
  total: Schema.Number,
  /** ISO 8601 time of writing. */
  writtenAt: Schema.String
})
export type Summary = typeof Summary.Type

/**
 * The summary could not be written (the directory is missing or read-only, the disk is full).
 *
 * @category errors
 */
export class SummaryWriteError extends Schema.TaggedError<SummaryWriteError>()("SummaryWriteError", {
  path: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `Cannot write the memory summary ${this.path}: ${this.reason}`
  }
}

/** Anything that counts records by filter (the `ExperienceStore` service does). */
export interface Counter<E> {
  readonly count: (filters?: Filters) => Effect.Effect<number, E>
}

/**
 * Count the records of each kind (one `count` per kind, every kind present) with their total and the ISO 8601 time
 * of counting; fails with the store's own error (`StoreError`).
 */
export const summarize = <E>(store: Counter<E>): Effect.Effect<Summary, E> =>
  Effect.gen(function*() {
    const counts: Partial<Record<Kind, number>> = {}
    let total = 0
    for (const kind of kinds) {
      const n = yield* store.count({ kind })
      counts[kind] = n
      total += n
    }
    return { counts: counts as Record<Kind, number>, total, writtenAt: new Date().toISOString() }
  })

/**
 * Summarize `store` into `path` (a `.json` file, or a directory to hold {@link fileName}), atomically; returns what
 * was written. Fails with the store's error, or {@link SummaryWriteError} naming the file.
 */
export const write = <E>(store: Counter<E>, path: string): Effect.Effect<Summary, E | SummaryWriteError> =>
  Effect.gen(function*() {
    const summary = yield* summarize(store)
    const file = nodePath.extname(path) === ".json" ? path : nodePath.join(path, fileName)
    yield* Effect.try({
      try: () => AtomicFile.writeSync(file, JSON.stringify(summary, null, 2) + "\n"),
      catch: (e) => new SummaryWriteError({ path: file, reason: e instanceof Error ? e.message : String(e) })
    })
    return summary
  })

/**
 * The archive file of an archive search: `Archive.run`'s {@link Archive.State} as JSON, written atomically (core's
 * `AtomicFile`: a temporary file, then rename) so a search killed mid-write leaves the previous state, and read back
 * through a Schema (the envelope, and each configuration through the caller's schema) so a damaged or foreign file is
 * a typed error, not a half-loaded archive.
 *
 * ```ts
 * await Archive.run({ ...options, onStep: (s) => ArchiveFile.save("runs/archive.json", s) })
 * // after an interruption:
 * await Archive.run({ ...options, resume: ArchiveFile.load("runs/archive.json", ConfigSchema) })
 * ```
 * @since 0.1.0
 */
import { RngState } from "@autodidact/core"
import { AtomicFile } from "@autodidact/core/node"
import { Schema } from "effect"
import * as Fs from "node:fs"
import type * as Archive from "./Archive.js"

const Result = Schema.Struct({ taskId: Schema.String, success: Schema.Boolean })

/** The file's shape (configurations as unknown JSON, decoded with the caller's schema by {@link load}). */
export const FileSchema = Schema.Struct({
  format: Schema.Literal("autodidact-archive-v1"),
  nodes: Schema.Array(Schema.Struct({
    id: Schema.Number,
    parent: Schema.Number,
    config: Schema.Unknown,
    results: Schema.Array(Result),
    children: Schema.Array(Schema.Number),
    createdAt: Schema.Number
  })),
  best: Schema.Number,
  step: Schema.Number,
  evaluations: Schema.Number,
  promotions: Schema.Array(Schema.Struct({ step: Schema.Number, candidate: Schema.Number, incumbent: Schema.Number, accepted: Schema.Boolean, reason: Schema.String })),
  rejected: Schema.Array(Schema.Struct({ step: Schema.Number, parent: Schema.Number, reason: Schema.String })),
  rng: RngState
})

/** Write `state` to `path` atomically (JSON). */
export const save = <C>(path: string, state: Archive.State<C>): void =>
  AtomicFile.writeSync(path, JSON.stringify({ format: "autodidact-archive-v1", ...state }) + "\n")

/**
 * Read an archive file written by {@link save}; each configuration is decoded with `config` (a Schema of the
 * configuration type).
 * @throws SchemaError naming the offending field (a damaged or foreign file, or a configuration the schema refuses);
 *   the file system's error when it cannot be read.
 */
export const load = <C>(path: string, config: Schema.Codec<C, unknown>): Archive.State<C> => {
  const raw = Schema.decodeUnknownSync(FileSchema)(JSON.parse(Fs.readFileSync(path, "utf8")))
  const decodeConfig = Schema.decodeUnknownSync(config)
  return {
    nodes: raw.nodes.map((n) => ({ ...n, config: decodeConfig(n.config), results: n.results.map((r) => ({ ...r })), children: [...n.children] })),
    best: raw.best,
    step: raw.step,
    evaluations: raw.evaluations,
    promotions: raw.promotions.map((p) => ({ ...p })),
    rejected: raw.rejected.map((r) => ({ ...r })),
    rng: raw.rng
  }
}

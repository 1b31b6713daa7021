/**
 * The shape of a replay file, without any file I/O: what every buffer hands to the writer (`contents()`) and what it
 * gets back from the reader (`restore(decoded)`). Pure (no Node built-in), so the buffers stay browser-safe; the
 * byte layout, the checksum and the atomic write live in `ReplayFile` (`@autodidact/memory/replay/node`).
 *
 * @since 0.1.0
 */
import { RngState } from "@autodidact/core"
import { Schema } from "effect"

/** The `format` field of every replay file. */
export const FORMAT = "autodidact.replay"
/** The newest format version this build writes and reads. */
export const VERSION = 1

/** Column element types. */
export const ColumnDtype = Schema.Literals(["float32", "float64", "int32", "uint8"])
export type ColumnDtype = typeof ColumnDtype.Type

/** A typed array that can be a column. */
export type ColumnArray = Float32Array | Float64Array | Int32Array | Uint8Array

/** The JSON header of a replay file. */
export const Header = Schema.Struct({
  format: Schema.Literal(FORMAT),
  version: Schema.Int,
  kind: Schema.String,
  capacity: Schema.Int,
  size: Schema.Int,
  pointer: Schema.Int,
  shapes: Schema.Record(Schema.String, Schema.Array(Schema.Int)),
  options: Schema.Record(Schema.String, Schema.Unknown),
  counters: Schema.Record(Schema.String, Schema.Number),
  rng: Schema.optional(RngState),
  columns: Schema.Array(Schema.Struct({ name: Schema.String, dtype: ColumnDtype, length: Schema.Int })),
  payloadBytes: Schema.Int,
  sha256: Schema.String
})
export type Header = typeof Header.Type

/** What a buffer hands to the writer: the header fields it owns plus its columns. */
export type Contents = Omit<Header, "format" | "version" | "columns" | "payloadBytes" | "sha256"> & {
  readonly columns: ReadonlyArray<readonly [name: string, data: ColumnArray]>
}

/** A decoded file: its header and its columns (fresh, aligned copies). */
export interface Decoded {
  readonly path: string
  readonly header: Header
  /** The column `name` as a typed array of `dtype` with exactly `length` elements, else a corrupt-file error. */
  column(name: string, dtype: "float32", length: number): Float32Array
  column(name: string, dtype: "float64", length: number): Float64Array
  column(name: string, dtype: "int32", length: number): Int32Array
  column(name: string, dtype: "uint8", length: number): Uint8Array
  column(name: string, dtype: ColumnDtype, length: number): ColumnArray
  /** Throw a `CorruptReplayFileError` naming this file. */
  corrupt(reason: string): never
}

/** Anything that can be saved: every buffer and accumulator of `@autodidact/memory/replay`. */
export interface Saveable {
  /** The file contents (the columns may be views of the live buffer, not copies). */
  contents(): Contents
}

/**
 * What `ReplayFile.load` needs to rebuild a buffer: the file `kind` it reads and a `restore` from a decoded file.
 * Every buffer class is one (`ReplayBuffer.ReplayBuffer`, `PrioritizedReplay.PrioritizedReplay`, `NStep.NStep`,
 * `EpisodeBuffer.EpisodeBuffer`).
 */
export interface Restorer<A> {
  readonly kind: string
  restore(decoded: Decoded): A
}

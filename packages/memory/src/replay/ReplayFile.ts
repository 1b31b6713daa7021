/**
 * The on-disk format shared by every replay buffer's `save`/`load`, and the atomic writer they use.
 *
 * **Format** (`format: "autodidact.replay"`, `version: 1`), little-endian:
 *
 * | bytes            | content                                                                    |
 * |------------------|----------------------------------------------------------------------------|
 * | 0..8             | magic `ADREPLAY`                                                           |
 * | 8..12            | uint32 `H`: byte length of the JSON header                                 |
 * | 12..12+H         | UTF-8 JSON header, validated by the {@link Header} schema                  |
 * | padded to 8      | payload: the columns named in `header.columns`, in order, each padded to 8 |
 *
 * The header records the buffer `kind`, `capacity`, `size`, ring `pointer`, `shapes`, kind-specific `options`
 * and `counters`, the generator state (`Rng.getState()`), each column's dtype and element count, the payload's
 * byte length and its SHA-256. Only the filled rows are written (`size * dim` elements per column).
 *
 * **Atomic writes**: {@link writeAtomic} writes a temporary file in the target's directory, `fsync`s it, renames
 * it over the target and `fsync`s the directory (core's `AtomicFile`, shared with checkpoints and solver
 * states). A failed write removes the temporary file and leaves the
 * previous file untouched; the {@link Io} operations can be replaced to inject failures in tests.
 *
 * **Errors**: I/O failures are {@link ReplayIoError}; a file that is truncated, has a bad magic, a header that is
 * not JSON or fails the schema, a version newer than {@link VERSION}, another buffer kind, inconsistent column
 * lengths or a checksum mismatch is {@link CorruptReplayFileError}; both name the file and the problem.
 *
 * @since 0.1.0
 */
import { RngState } from "@autodidact/core"
import { AtomicFile } from "@autodidact/core/node"
import { Effect, Schema } from "effect"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import { CorruptReplayFileError, ReplayIoError } from "./ReplayErrors.js"

/** The `format` field of every replay file. */
export const FORMAT = "autodidact.replay"
/** The newest format version this build writes and reads. */
export const VERSION = 1
const MAGIC = Buffer.from("ADREPLAY", "ascii")

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

/** What a buffer hands to {@link encode}: the header fields it owns plus its columns. */
export type Contents = Omit<Header, "format" | "version" | "columns" | "payloadBytes" | "sha256"> & {
  readonly columns: ReadonlyArray<readonly [name: string, data: ColumnArray]>
}

const dtypeOf = (a: ColumnArray): ColumnDtype =>
  a instanceof Float32Array ? "float32" : a instanceof Float64Array ? "float64" : a instanceof Int32Array ? "int32" : "uint8"

const pad8 = (n: number) => (8 - (n % 8)) % 8
const ZEROS = new Uint8Array(8)
const bytesOf = (a: ColumnArray) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength)

/** The file as a list of byte chunks (pure; the columns are not copied). */
export const encode = (c: Contents): Array<Uint8Array> => {
  const payload: Array<Uint8Array> = []
  const hash = createHash("sha256")
  let payloadBytes = 0
  for (const [, data] of c.columns) {
    const b = bytesOf(data)
    const p = ZEROS.subarray(0, pad8(b.byteLength))
    payload.push(b, p)
    hash.update(b)
    hash.update(p)
    payloadBytes += b.byteLength + p.byteLength
  }
  const { columns, ...rest } = c
  const header: Header = {
    format: FORMAT,
    version: VERSION,
    ...rest,
    columns: columns.map(([name, data]) => ({ name, dtype: dtypeOf(data), length: data.length })),
    payloadBytes,
    sha256: hash.digest("hex")
  }
  const json = Buffer.from(JSON.stringify(header), "utf8")
  const len = Buffer.alloc(4)
  len.writeUInt32LE(json.length, 0)
  return [MAGIC, len, json, ZEROS.subarray(0, pad8(12 + json.length)), ...payload]
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
  /** Throw a {@link CorruptReplayFileError} naming this file. */
  corrupt(reason: string): never
}

const reasonOf = (e: unknown): string => (e instanceof Error ? e.message : String(e))

const parse = (path: string, bytes: Buffer, kind: string): Decoded => {
  const corrupt = (reason: string): never => {
    throw new CorruptReplayFileError({ path, reason })
  }
  if (bytes.length < 12) corrupt(`file is ${bytes.length} bytes, too short for a replay file`)
  if (!bytes.subarray(0, 8).equals(MAGIC)) corrupt("bad magic (not an autodidact replay file)")
  const h = bytes.readUInt32LE(8)
  if (12 + h > bytes.length) corrupt(`truncated header: needs ${h} bytes, file has ${bytes.length - 12}`)
  let json: unknown
  try {
    json = JSON.parse(bytes.subarray(12, 12 + h).toString("utf8"))
  } catch (e) {
    corrupt(`header is not valid JSON (${reasonOf(e)})`)
  }
  const version = (json as { version?: unknown } | null)?.version
  if (typeof version === "number" && version > VERSION) {
    corrupt(`written by a newer format version ${version} (this build reads versions up to ${VERSION})`)
  }
  let header: Header
  try {
    header = Schema.decodeUnknownSync(Header)(json)
  } catch (e) {
    return corrupt(`header schema: ${reasonOf(e).slice(0, 500)}`)
  }
  if (header.kind !== kind) corrupt(`holds a "${header.kind}" buffer, expected "${kind}"`)
  const start = 12 + h + pad8(12 + h)
  const payload = bytes.subarray(start)
  if (payload.length !== header.payloadBytes) {
    corrupt(`payload is ${payload.length} bytes, header says ${header.payloadBytes} (truncated or extended file)`)
  }
  const actual = createHash("sha256").update(payload).digest("hex")
  if (actual !== header.sha256) corrupt(`sha256 mismatch: header says ${header.sha256}, payload hashes to ${actual}`)
  const offsets = new Map<string, { dtype: ColumnDtype; length: number; offset: number }>()
  let off = 0
  for (const c of header.columns) {
    const width = c.dtype === "float64" ? 8 : c.dtype === "uint8" ? 1 : 4
    if (c.length < 0) corrupt(`column ${c.name} has negative length ${c.length}`)
    offsets.set(c.name, { dtype: c.dtype, length: c.length, offset: off })
    off += c.length * width
    off += pad8(off)
  }
  if (off !== payload.length) corrupt(`columns need ${off} payload bytes, payload has ${payload.length}`)
  const column = (name: string, dtype: ColumnDtype, length: number): ColumnArray => {
    const c = offsets.get(name)
    if (c === undefined) return corrupt(`missing column ${name}`)
    if (c.dtype !== dtype) corrupt(`column ${name} is ${c.dtype}, expected ${dtype}`)
    if (c.length !== length) corrupt(`column ${name} has ${c.length} elements, expected ${length}`)
    const out =
      dtype === "float32"
        ? new Float32Array(length)
        : dtype === "float64"
          ? new Float64Array(length)
          : dtype === "int32"
            ? new Int32Array(length)
            : new Uint8Array(length)
    bytesOf(out).set(payload.subarray(c.offset, c.offset + out.byteLength))
    return out
  }
  return { path, header, column: column as Decoded["column"], corrupt }
}

/**
 * Read and check a replay file of the given `kind`, then build the buffer with `restore` (which may call
 * `decoded.corrupt(reason)` for kind-specific inconsistencies).
 */
export const read = <A>(
  path: string,
  kind: string,
  restore: (decoded: Decoded) => A
): Effect.Effect<A, ReplayIoError | CorruptReplayFileError> =>
  Effect.gen(function* () {
    const bytes = yield* Effect.try({
      try: () => fs.readFileSync(path),
      catch: (e) => new ReplayIoError({ path, reason: `read failed: ${reasonOf(e)}` })
    })
    return yield* Effect.try({
      try: () => restore(parse(path, bytes, kind)),
      catch: (e) => (e instanceof CorruptReplayFileError ? e : new CorruptReplayFileError({ path, reason: reasonOf(e) }))
    })
  })

/** The file operations {@link writeAtomic} uses (replace some to inject faults in tests); see core's `AtomicFile`. */
export type Io = AtomicFile.Io

/** Node's `fs`, synchronously. */
export const nodeIo: Io = AtomicFile.nodeIo

/**
 * Write `chunks` to `path` atomically (core's `AtomicFile`: temp file in the same directory → write → fsync → rename
 * over `path` → fsync the directory). On any failure the previous content of `path` is untouched.
 */
export const writeAtomic = (
  path: string,
  chunks: ReadonlyArray<Uint8Array>,
  io: Partial<Io> = {}
): Effect.Effect<void, ReplayIoError> =>
  AtomicFile.write(path, chunks, io).pipe(
    Effect.mapError((e) => new ReplayIoError({ path, reason: `write failed: ${e.reason}` }))
  )

/** Encode `contents` and write it atomically to `path`. */
export const write = (path: string, contents: Contents, io: Partial<Io> = {}): Effect.Effect<void, ReplayIoError> =>
  Effect.suspend(() => writeAtomic(path, encode(contents), io))

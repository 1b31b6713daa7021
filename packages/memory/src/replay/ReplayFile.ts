/**
 * Saving and loading replay buffers (Node only: `node:fs`, `node:crypto`): the on-disk format shared by every
 * buffer, its reader and its atomic writer. Reached through `@autodidact/memory/replay/node`, so that
 * `@autodidact/memory/replay` itself has no Node built-in in its import graph and bundles for browsers.
 *
 * ```ts
 * import { PrioritizedReplay } from "@autodidact/memory/replay"
 * import { ReplayFile } from "@autodidact/memory/replay/node"
 *
 * ReplayFile.saveSync(per, "runs/replay/per.bin")                                  // plain: throws ReplayIoError
 * const back = ReplayFile.loadSync("runs/replay/per.bin", PrioritizedReplay.PrioritizedReplay)
 * // Effect: ReplayFile.save(per, path) / ReplayFile.load(path, PrioritizedReplay.PrioritizedReplay)
 * ```
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
import { AtomicFile } from "@autodidact/core/node"
import { Effect, Schema } from "effect"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import { CorruptReplayFileError, ReplayIoError } from "./ReplayErrors.js"
import type { ColumnArray, Contents, Decoded, Restorer, Saveable } from "./ReplayFormat.js"
import { type ColumnDtype, FORMAT, Header, VERSION } from "./ReplayFormat.js"

export {
  type ColumnArray,
  ColumnDtype,
  type Contents,
  type Decoded,
  FORMAT,
  Header,
  type Restorer,
  type Saveable,
  VERSION
} from "./ReplayFormat.js"

const MAGIC = Buffer.from("ADREPLAY", "ascii")

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

const readBytes = (path: string): Buffer => {
  try {
    return fs.readFileSync(path)
  } catch (e) {
    throw new ReplayIoError({ path, reason: `read failed: ${reasonOf(e)}` })
  }
}

const restoreFrom = <A>(path: string, bytes: Buffer, kind: string, restore: (decoded: Decoded) => A): A => {
  try {
    return restore(parse(path, bytes, kind))
  } catch (e) {
    throw e instanceof CorruptReplayFileError ? e : new CorruptReplayFileError({ path, reason: reasonOf(e) })
  }
}

/**
 * Read and check a replay file of the given `kind`, then build the buffer with `restore` (which may call
 * `decoded.corrupt(reason)` for kind-specific inconsistencies). Synchronous.
 * @throws ReplayIoError when the file cannot be read, CorruptReplayFileError (naming the file and the problem).
 */
export const readSync = <A>(path: string, kind: string, restore: (decoded: Decoded) => A): A =>
  restoreFrom(path, readBytes(path), kind, restore)

/** {@link readSync} as an Effect: fails with ReplayIoError or CorruptReplayFileError. */
export const read = <A>(
  path: string,
  kind: string,
  restore: (decoded: Decoded) => A
): Effect.Effect<A, ReplayIoError | CorruptReplayFileError> =>
  Effect.try({
    try: () => readSync(path, kind, restore),
    catch: (e) =>
      e instanceof ReplayIoError || e instanceof CorruptReplayFileError
        ? e
        : new CorruptReplayFileError({ path, reason: reasonOf(e) })
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

/**
 * Write `chunks` to `path` atomically, synchronously (see {@link writeAtomic}).
 * @throws ReplayIoError naming the file; the previous content of `path` is untouched.
 */
export const writeAtomicSync = (path: string, chunks: ReadonlyArray<Uint8Array>, io: Partial<Io> = {}): void => {
  try {
    AtomicFile.writeSync(path, chunks, io)
  } catch (e) {
    throw new ReplayIoError({ path, reason: `write failed: ${(e as { reason?: string }).reason ?? reasonOf(e)}` })
  }
}

/**
 * Save any buffer of `@autodidact/memory/replay` atomically to `path` (temp file in the same directory, fsync,
 * rename, fsync the directory): rows, ring pointer, counters, options and generator state; for prioritized replay
 * also the priorities, `maxPriority` and the beta schedule; for `NStep` / `EpisodeBuffer` the pending steps.
 * Plain and synchronous.
 * @throws ReplayIoError naming the file when the write fails; the previous file is kept.
 */
export const saveSync = (buffer: Saveable, path: string, io: Partial<Io> = {}): void =>
  writeAtomicSync(path, encode(buffer.contents()), io)

/** {@link saveSync} as an Effect: fails with ReplayIoError naming the file; the previous file is kept. */
export const save = (buffer: Saveable, path: string, io: Partial<Io> = {}): Effect.Effect<void, ReplayIoError> =>
  Effect.suspend(() => write(path, buffer.contents(), io))

/**
 * Load a buffer saved by {@link saveSync} / {@link save}; `as` is the buffer class, which names the file kind it
 * reads (`ReplayBuffer.ReplayBuffer`, `PrioritizedReplay.PrioritizedReplay`, `NStep.NStep`,
 * `EpisodeBuffer.EpisodeBuffer`). Plain and synchronous.
 * @throws ReplayIoError when the file cannot be read; CorruptReplayFileError (naming the file and the problem) when
 *   it is truncated, edited (checksum), from a newer format version, of another kind, or inconsistent.
 */
export const loadSync = <A>(path: string, as: Restorer<A>): A => readSync(path, as.kind, (d) => as.restore(d))

/** {@link loadSync} as an Effect: fails with ReplayIoError or CorruptReplayFileError. */
export const load = <A>(path: string, as: Restorer<A>): Effect.Effect<A, ReplayIoError | CorruptReplayFileError> =>
  read(path, as.kind, (d) => as.restore(d))

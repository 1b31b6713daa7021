/**
 * Atomic file writes: what every durable artefact (checkpoints, replay buffers, solver states, run configs) goes
 * through, so that a crash or a failed write never leaves a half-written file or destroys the previous one.
 *
 * **Details**: write a temporary file in the target's directory, `fsync` it, `rename` it over the target (atomic on
 * POSIX file systems), then `fsync` the directory so the rename itself is durable (best effort: some file systems
 * refuse to fsync a directory). On any failure the temporary file is removed and the target is untouched.
 *
 * **When to use**: for any file that must survive; pass a partial {@link Io} to inject faults in tests.
 *
 * @example
 * ```ts
 * import { AtomicFile } from "@autodidact/core/node"
 * await Effect.runPromise(AtomicFile.write("runs/x/config.json", new TextEncoder().encode("{}")))
 * ```
 * @see https://lwn.net/Articles/457667/ ("Ensuring data reaches disk")
 * @since 0.1.0
 */
import { Effect, Schema } from "effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"

/** The write failed; `path` is the target, whose previous content (if any) is intact. */
export class AtomicWriteError extends Schema.TaggedError<AtomicWriteError>()("AtomicWriteError", {
  path: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `${this.path}: write failed: ${this.reason}`
  }
}

/** The file operations an atomic write uses (replace some to inject faults in tests). */
export interface Io {
  readonly open: (path: string, flags: string) => number
  readonly write: (fd: number, bytes: Uint8Array) => void
  readonly fsync: (fd: number) => void
  readonly close: (fd: number) => void
  readonly rename: (from: string, to: string) => void
  readonly unlink: (path: string) => void
}

/** Node's `fs`, synchronously. */
export const nodeIo: Io = {
  open: (path, flags) => fs.openSync(path, flags, 0o644),
  write: (fd, bytes) => {
    let off = 0
    while (off < bytes.length) off += fs.writeSync(fd, bytes, off, bytes.length - off)
  },
  fsync: (fd) => fs.fsyncSync(fd),
  close: (fd) => fs.closeSync(fd),
  rename: (from, to) => fs.renameSync(from, to),
  unlink: (path) => fs.unlinkSync(path)
}

let tmpCounter = 0

const reasonOf = (e: unknown): string => (e instanceof Error ? e.message : String(e))

/**
 * Flush a directory's entries (a rename or a new file in it) to disk with `fsync` on the directory, so that the
 * rename survives a power loss. Best effort: some platforms cannot fsync a directory, and then this does nothing
 * (never throws).
 */
export const syncDirectory = (dir: string): void => {
  try {
    const dfd = fs.openSync(dir, "r")
    try {
      fs.fsyncSync(dfd)
    } finally {
      fs.closeSync(dfd)
    }
  } catch {
    // directories cannot be fsync'ed on every platform: best effort
  }
}

/**
 * Write `data` (bytes, several byte chunks written in order, or a UTF-8 string) to `path` atomically; creates the
 * directory if needed. Synchronous; throws {@link AtomicWriteError}.
 */
export const writeSync = (
  path: string,
  data: Uint8Array | ReadonlyArray<Uint8Array> | string,
  io: Partial<Io> = {}
): void => {
  const ops: Io = { ...nodeIo, ...io }
  const chunks = typeof data === "string" ? [new TextEncoder().encode(data)] : data instanceof Uint8Array ? [data] : data
  try {
    const dir = nodePath.dirname(nodePath.resolve(path))
    fs.mkdirSync(dir, { recursive: true })
    const tmp = nodePath.join(dir, `.${nodePath.basename(path)}.${process.pid}.${Date.now()}.${tmpCounter++}.tmp`)
    let fd: number | undefined
    try {
      fd = ops.open(tmp, "w")
      for (const c of chunks) if (c.length > 0) ops.write(fd, c)
      ops.fsync(fd)
      ops.close(fd)
      fd = undefined
      ops.rename(tmp, path)
    } catch (e) {
      if (fd !== undefined) {
        try {
          ops.close(fd)
        } catch {
          // already failing
        }
      }
      try {
        ops.unlink(tmp)
      } catch {
        // the temp file may not exist
      }
      throw e
    }
    syncDirectory(dir)
  } catch (e) {
    throw new AtomicWriteError({ path, reason: reasonOf(e) })
  }
}

/** {@link writeSync} as an Effect failing with {@link AtomicWriteError}. */
export const write = (
  path: string,
  data: Uint8Array | ReadonlyArray<Uint8Array> | string,
  io: Partial<Io> = {}
): Effect.Effect<void, AtomicWriteError> =>
  Effect.try({
    try: () => writeSync(path, data, io),
    catch: (e) => (e instanceof AtomicWriteError ? e : new AtomicWriteError({ path, reason: reasonOf(e) }))
  })

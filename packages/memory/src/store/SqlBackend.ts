/**
 * The two SQL backends of the experience store, both as an `effect/sql` `SqlClient`: PGlite (PostgreSQL 18 in
 * WebAssembly, in-process, on a directory or in memory) and a PostgreSQL server (connection URL).
 *
 * **Details**
 *
 * PGlite is reached through `@effect/sql-pg`'s own wire-protocol client: the scoped layer starts
 * `@electric-sql/pglite-socket` on `127.0.0.1` with port 0 (a free port chosen by the OS, never a fixed one), and
 * connects a pool of `maxConnections: 1` to it (PGlite runs one session). This was chosen over a hand-written
 * `SqlClient` on PGlite's `query` API because the store then has *one* code path (compiler, parameter encoding,
 * row decoding, transactions) for both backends: a `bytea` comes back as `Uint8Array`, a `jsonb` as a parsed value,
 * an `integer` as a number, from PGlite exactly as from the server. The cost is a loopback round trip per statement
 * (tens of microseconds). The listener accepts connections from this machine only and is closed with the scope.
 *
 * A PGlite directory has one writer: the layer takes `<dir>.lock`, created with `O_EXCL` and holding the owner's
 * pid and host; a lock whose pid no longer runs on this host is stale (a killed process) and is taken over. Within
 * the process, writers share the one connection, so transactions are serialized. Against a server, concurrent
 * writers are ordinary PostgreSQL transactions.
 *
 * A directory that exists, is not empty and is not a PostgreSQL data directory (no `PG_VERSION`), or that PGlite
 * fails to start on, gives `StoreOpenError` naming it instead of being overwritten or deleted.
 *
 * Creation is atomic: a new store (the directory absent or empty) is initialized by PGlite in the sibling
 * `<dir>.creating` (under the lock), closed, and renamed to `<dir>` (the parent directory is then fsync'ed), so a
 * process killed at any moment of creation leaves either no store (and perhaps `<dir>.creating`, deleted by the next
 * open, which holds the lock and so knows its creator is gone) or a complete empty one; never a half-initialized
 * `<dir>`. An existing store is opened in place and never recreated.
 *
 * A new PGlite database (a directory store being created, or an in-memory one) is made by PGlite's initdb, a few
 * seconds of WebAssembly, unless a **template** is given (`template`, or the environment variable
 * `AUTODIDACT_PGLITE_TEMPLATE`): a tarball of a freshly initialized data directory written by {@link writeTemplate},
 * unpacked instead (about 3× faster; what a test suite or a program creating many stores wants). A template that is
 * missing, unreadable or that PGlite refuses (another PGlite version) is ignored: initdb runs as without one.
 *
 * **Optional peers**: `@effect/sql-pg` (both backends) and `@electric-sql/pglite`, `@electric-sql/pglite-pgvector`,
 * `@electric-sql/pglite-socket` (the PGlite backend) are optional peer dependencies of `@autodidact/memory`, loaded
 * when a backend is opened (not when this module is imported) through core's `OptionalPeer.load`; a missing one
 * fails the open with `MissingPeerError` naming the package to install (see {@link peers}).
 *
 * @since 0.1.0
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { MissingPeerError, OptionalPeer } from "@autodidact/core"
import { AtomicFile } from "@autodidact/core/node"
import { Effect, Redacted, Scope } from "effect"
import { Reactivity } from "effect/reactivity"
import { SqlError } from "effect/sql"
import type { SqlClient } from "effect/sql"
import { StoreOpenError } from "./StoreErrors.js"

/**
 * A connected backend.
 *
 * @category models
 * @since 0.1.0
 */
export interface Backend {
  readonly sql: SqlClient.SqlClient
  readonly kind: "pglite" | "pg"
  /** Directory, `memory://` or the URL without its password. */
  readonly location: string
}

const message = (cause: unknown): string =>
  cause instanceof Error ? cause.message : typeof cause === "string" ? cause : String(cause)

/** The entry point named in a `MissingPeerError` of the store's backends. */
export const entryPoint = "@autodidact/memory/store"

/**
 * The optional peer dependencies of the store's backends, with the version ranges `@autodidact/memory` declares
 * (`peerDependencies`). `pg` needs `sqlPg` only; `pglite` needs all four.
 *
 * @category peers
 * @since 0.1.0
 */
export const peers = {
  sqlPg: { name: "@effect/sql-pg", version: "^4.0.5" },
  pglite: { name: "@electric-sql/pglite", version: "^0.5.14" },
  pgvector: { name: "@electric-sql/pglite-pgvector", version: "^0.0.15" },
  pgliteSocket: { name: "@electric-sql/pglite-socket", version: "^0.2.17" }
} as const

const loadPeer = <A>(
  peer: { readonly name: string; readonly version: string },
  location: string,
  importer: () => Promise<A>
): Effect.Effect<A, StoreOpenError | MissingPeerError> =>
  Effect.tryPromise({
    try: () => OptionalPeer.load(peer.name, entryPoint, importer, peer.version),
    catch: (e) =>
      e instanceof MissingPeerError
        ? e
        : new StoreOpenError({ location, reason: `loading ${peer.name}: ${message(e)}`, cause: e })
  })

const loadSqlPg = (location: string) => loadPeer(peers.sqlPg, location, () => import("@effect/sql-pg"))

const pidAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"
  }
}

/**
 * The client with `withTransaction` failing, instead of dying, when the connection is lost inside a transaction.
 * `effect/sql` turns a failed ROLLBACK (and a failed COMMIT whose cleanup failed) into a defect; on a terminated
 * or broken connection that is exactly what happens, and a defect would escape every store method's typed error.
 * Here such a `SqlError` defect becomes an ordinary `SqlError` failure (then `StoreSqlError`, transient, see
 * `StoreErrors.isTransient`): the transaction was not committed, or was committed whole, and can be retried.
 *
 * @category constructors
 * @since 0.1.0
 */
export const withTypedTransactions = (sql: SqlClient.SqlClient): SqlClient.SqlClient => {
  const withTransaction: SqlClient.SqlClient["withTransaction"] = (effect) =>
    Effect.catchDefect(sql.withTransaction(effect), (defect) =>
      SqlError.isSqlError(defect) ? Effect.fail(defect) : Effect.die(defect))
  return new Proxy(sql, {
    get: (target, property, receiver) =>
      property === "withTransaction" ? withTransaction : Reflect.get(target, property, receiver)
  })
}

/**
 * Take the single-writer lock `<dir>.lock` for the scope (see the module docs).
 *
 * @category locking
 * @since 0.1.0
 */
export const lockDirectory = (dir: string): Effect.Effect<void, StoreOpenError, Scope.Scope> => {
  const lockPath = `${Path.resolve(dir)}.lock`
  const token = JSON.stringify({ pid: process.pid, host: Os.hostname(), at: Date.now() })
  const acquire = Effect.try({
    try: () => {
      // the lock sits beside the directory: its parent must exist (`dir` itself is created later, when absent)
      Fs.mkdirSync(Path.dirname(lockPath), { recursive: true })
      for (let attempt = 0; attempt < 2; attempt++) {
        try {
          const fd = Fs.openSync(lockPath, "wx")
          Fs.writeSync(fd, token)
          Fs.fsyncSync(fd)
          Fs.closeSync(fd)
          return
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e
          let owner: { pid?: unknown; host?: unknown } = {}
          try {
            owner = JSON.parse(Fs.readFileSync(lockPath, "utf8")) as typeof owner
          } catch {
            // A lock file cut short by a crash between open and write: stale.
          }
          const sameHost = owner.host === undefined || owner.host === Os.hostname()
          const live = typeof owner.pid === "number" && sameHost && pidAlive(owner.pid)
          const foreign = typeof owner.pid === "number" && !sameHost
          if (live || foreign) {
            throw new StoreOpenError({
              location: dir,
              reason: `locked by process ${String(owner.pid)} on ${String(owner.host)} (${lockPath}); one writer per ` +
                `PGlite directory: share one store per process, or use a PostgreSQL server for several processes`
            })
          }
          Fs.rmSync(lockPath, { force: true })
        }
      }
      throw new StoreOpenError({ location: dir, reason: `could not take the lock ${lockPath}` })
    },
    catch: (e) =>
      e instanceof StoreOpenError ? e : new StoreOpenError({ location: dir, reason: `lock: ${message(e)}`, cause: e })
  })
  const release = Effect.sync(() => {
    try {
      if (Fs.readFileSync(lockPath, "utf8") === token) Fs.rmSync(lockPath, { force: true })
    } catch {
      // Already gone.
    }
  })
  return Effect.acquireRelease(acquire, () => release)
}

const checkDirectory = (dir: string): Effect.Effect<void, StoreOpenError> =>
  Effect.try({
    try: () => {
      if (!Fs.existsSync(dir)) return
      if (!Fs.statSync(dir).isDirectory()) {
        throw new StoreOpenError({ location: dir, reason: "exists and is not a directory" })
      }
      const entries = Fs.readdirSync(dir)
      if (entries.length === 0) return
      if (!entries.includes("PG_VERSION")) {
        throw new StoreOpenError({
          location: dir,
          reason: `not a PGlite store (no PG_VERSION among ${entries.length} entries); refusing to overwrite it`
        })
      }
      const version = Fs.readFileSync(Path.join(dir, "PG_VERSION"), "utf8").trim()
      if (!/^\d+$/.test(version)) {
        throw new StoreOpenError({ location: dir, reason: `corrupted: PG_VERSION contains ${JSON.stringify(version)}` })
      }
      if (!Fs.existsSync(Path.join(dir, "global", "pg_control"))) {
        throw new StoreOpenError({ location: dir, reason: "corrupted: global/pg_control is missing" })
      }
    },
    catch: (e) =>
      e instanceof StoreOpenError ? e : new StoreOpenError({ location: dir, reason: message(e), cause: e })
  })

/**
 * The stages of creating a PGlite store on a directory, in order (see the module docs): `initializing` (about to run
 * PGlite's initdb in `<dir>.creating`), `initialized` (initdb done and PGlite closed, `<dir>` not there yet),
 * `renamed` (`<dir>` is the complete empty store, not yet opened).
 *
 * @category models
 * @since 0.1.0
 */
export type CreateStage = "initializing" | "initialized" | "renamed"

/** The environment variable naming a default {@link writeTemplate} tarball for new PGlite databases. */
export const templateVariable = "AUTODIDACT_PGLITE_TEMPLATE"

/** The template's bytes as PGlite's `loadDataDir` takes them, or undefined (none given, missing or unreadable). */
const readTemplate = (path: string | undefined): Blob | undefined => {
  if (path === undefined || path === "") return undefined
  try {
    return new Blob([Fs.readFileSync(path)])
  } catch {
    return undefined
  }
}

/**
 * Start a new PGlite database from `template` when there is one, else (or when PGlite refuses the template) by
 * initdb. `start` gets PGlite's extra options.
 */
const startNew = async <A extends { close: () => Promise<void> }>(
  template: Blob | undefined,
  start: (extra: { loadDataDir?: Blob }) => Promise<A>,
  clean: () => void
): Promise<A> => {
  if (template !== undefined) {
    try {
      return await start({ loadDataDir: template })
    } catch {
      clean() // a template of another PGlite version, or damaged: initdb instead
    }
  }
  return start({})
}

/**
 * Write a PGlite template to `path` (atomically): the tarball of a freshly initialized, empty data directory (about
 * 40 MB, uncompressed). Pass it as `pglite({ template })` or in `AUTODIDACT_PGLITE_TEMPLATE` to create new
 * databases from it instead of running initdb. It belongs to the installed PGlite version; with another one it is
 * ignored.
 * @returns fails with StoreOpenError naming `path` (PGlite missing or failing, the file not writable) or
 *   MissingPeerError.
 *
 * @category constructors
 * @since 0.2.0
 */
export const writeTemplate = (path: string): Effect.Effect<void, StoreOpenError | MissingPeerError> =>
  Effect.gen(function*() {
    const { PGlite } = yield* loadPeer(peers.pglite, path, () => import("@electric-sql/pglite"))
    yield* Effect.tryPromise({
      try: async () => {
        const db = await PGlite.create({})
        try {
          const dump = await db.dumpDataDir("none")
          AtomicFile.writeSync(path, new Uint8Array(await dump.arrayBuffer()))
        } finally {
          await db.close()
        }
      },
      catch: (e) => new StoreOpenError({ location: path, reason: `writing a PGlite template: ${message(e)}`, cause: e })
    })
  })

/** The sibling directory a new store is initialized in before it is renamed into place. */
export const creatingPath = (dir: string): string => `${Path.resolve(dir)}.creating`

/**
 * Create the store directory atomically when it is absent or empty (the caller holds the lock): initdb in
 * `<dir>.creating` (a leftover of a killed creation there is deleted first), close, rename into place.
 */
const createAtomically = (
  dir: string,
  start: (dataDir: string) => Promise<{ close: () => Promise<void> }>,
  hook: (stage: CreateStage) => Promise<void>
): Effect.Effect<void, StoreOpenError> =>
  Effect.tryPromise({
    try: async () => {
      const target = Path.resolve(dir)
      const temp = creatingPath(dir)
      const exists = Fs.existsSync(target)
      if (exists && Fs.readdirSync(target).length > 0) {
        // An existing store (checked by `checkDirectory`): opened in place. A `.creating` beside it is a leftover.
        Fs.rmSync(temp, { recursive: true, force: true })
        return
      }
      Fs.rmSync(temp, { recursive: true, force: true })
      await hook("initializing")
      const db = await start(temp)
      await db.close()
      AtomicFile.syncDirectory(temp)
      await hook("initialized")
      if (exists) Fs.rmdirSync(target) // empty (checked above): rename cannot replace a directory everywhere
      Fs.renameSync(temp, target)
      AtomicFile.syncDirectory(Path.dirname(target))
      await hook("renamed")
    },
    catch: (e) =>
      e instanceof StoreOpenError ? e : new StoreOpenError({ location: dir, reason: `creating: ${message(e)}`, cause: e })
  })

/**
 * Open PGlite (with pgvector) on `dir`, or in memory when `dir` is undefined, serve it on a loopback port for the
 * scope, and return an `@effect/sql-pg` client connected to it. A directory that is absent or empty is created
 * atomically (see the module docs). Needs the optional peers `@effect/sql-pg`, `@electric-sql/pglite`,
 * `@electric-sql/pglite-socket` and (unless `pgvector: false`) `@electric-sql/pglite-pgvector`; a missing one fails
 * with `MissingPeerError` naming it.
 *
 * `onCreateStage` (for crash tests) is awaited at each {@link CreateStage} of creating a new directory store.
 * @returns fails with StoreOpenError naming the directory (a foreign or corrupted directory, a lock held by a live
 *   process, PGlite failing to start), or MissingPeerError.
 *
 * @category constructors
 * @since 0.1.0
 */
export const pglite = (
  options: {
    readonly dir?: string | undefined
    readonly pgvector?: boolean | undefined
    readonly onCreateStage?: ((stage: CreateStage) => Promise<void> | void) | undefined
    /** A {@link writeTemplate} tarball to create a new database from (default `AUTODIDACT_PGLITE_TEMPLATE`). */
    readonly template?: string | undefined
  }
): Effect.Effect<Backend, StoreOpenError | MissingPeerError, Scope.Scope> =>
  Effect.gen(function*() {
    const dir = options.dir
    const location = dir ?? "memory://"
    const template = options.template ?? process.env[templateVariable]
    // the peers first: a missing package is reported before any file is touched
    const { PgClient } = yield* loadSqlPg(location)
    const { PGlite } = yield* loadPeer(peers.pglite, location, () => import("@electric-sql/pglite"))
    const { PGLiteSocketServer } = yield* loadPeer(
      peers.pgliteSocket,
      location,
      () => import("@electric-sql/pglite-socket")
    )
    const { vector } = options.pgvector === false
      ? { vector: undefined }
      : yield* loadPeer(peers.pgvector, location, () => import("@electric-sql/pglite-pgvector"))
    const extensions = vector === undefined ? {} : { extensions: { vector } }
    if (dir !== undefined) {
      yield* checkDirectory(dir)
      yield* lockDirectory(dir)
      yield* Effect.try({
        try: () => Fs.mkdirSync(Path.dirname(Path.resolve(dir)), { recursive: true }),
        catch: (e) => new StoreOpenError({ location, reason: message(e), cause: e })
      })
      // another process may have created it between the check and the lock: check again under the lock
      yield* checkDirectory(dir)
      const onStage = options.onCreateStage
      yield* createAtomically(
        dir,
        // initdb needs no extension (pgvector is created by the migrations, on the real open)
        (dataDir) =>
          startNew(
            readTemplate(template),
            (extra) => PGlite.create({ dataDir, ...extra }),
            () => Fs.rmSync(dataDir, { recursive: true, force: true })
          ),
        async (stage) => {
          if (onStage !== undefined) await onStage(stage)
        }
      )
    }
    const db = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () =>
          dir === undefined
            ? startNew(readTemplate(template), (extra) => PGlite.create({ ...extra, ...extensions }), () => {})
            : PGlite.create({ dataDir: dir, ...extensions }),
        catch: (e) => new StoreOpenError({ location, reason: `PGlite failed to start: ${message(e)}`, cause: e })
      }),
      (db) => Effect.promise(() => db.close().catch(() => undefined))
    )
    const server = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: 1 })
          await server.start()
          return server
        },
        catch: (e) => new StoreOpenError({ location, reason: `socket server: ${message(e)}`, cause: e })
      }),
      (server) => Effect.promise(() => server.stop().catch(() => undefined))
    )
    const port = Number(server.getServerConn().split(":").pop())
    const sql = yield* PgClient.make({
      host: "127.0.0.1",
      port,
      username: "postgres",
      database: "postgres",
      maxConnections: 1,
      minConnections: 1
    }).pipe(
      Effect.provide(Reactivity.layer),
      Effect.mapError((e) => new StoreOpenError({ location, reason: `connecting: ${message(e)}`, cause: e }))
    )
    return { sql: withTypedTransactions(sql), kind: "pglite" as const, location }
  })

/** The URL without its password, for messages. */
export const redactUrl = (url: string): string => {
  try {
    const u = new URL(url)
    if (u.password !== "") u.password = "***"
    return u.toString()
  } catch {
    return "<invalid url>"
  }
}

/**
 * Connect to a PostgreSQL server (`postgres://user:pass@host:port/db`) with a pool for the scope. Needs the optional
 * peer `@effect/sql-pg`; without it, fails with `MissingPeerError`.
 *
 * @category constructors
 * @since 0.1.0
 */
export const pg = (
  options: { readonly url: string; readonly maxConnections?: number | undefined }
): Effect.Effect<Backend, StoreOpenError | MissingPeerError, Scope.Scope> =>
  Effect.gen(function*() {
    const location = redactUrl(options.url)
    const { PgClient } = yield* loadSqlPg(location)
    const sql = yield* PgClient.make({
      url: Redacted.make(options.url),
      maxConnections: options.maxConnections ?? 4,
      connectTimeout: "10 seconds"
    }).pipe(
      Effect.provide(Reactivity.layer),
      Effect.mapError((e) => new StoreOpenError({ location, reason: `connecting: ${message(e)}`, cause: e }))
    )
    // Pools connect lazily: check now so a bad URL fails at open time.
    yield* sql`SELECT 1`.pipe(
      Effect.mapError((e) => new StoreOpenError({ location, reason: `connecting: ${message(e)}`, cause: e }))
    )
    return { sql: withTypedTransactions(sql), kind: "pg" as const, location }
  })

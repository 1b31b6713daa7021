/**
 * Several writer processes against one PostgreSQL server (shared by `StoreWriters.integration.test.ts`, smoke size,
 * and `bench/store-writers.ts`, full size): `writers` child processes (`StoreWriterChild.ts`) each write their share
 * of records in batches, retrying transient errors, while this process reads the table over and over (every batch
 * must be absent or complete: one transaction each) and, every `chaosMs`, terminates one server backend of the
 * test database (`pg_terminate_backend`) so that writers meet lost connections. Runs in a database of its own,
 * created and dropped here, so it never touches other tests' tables.
 */
import { spawn } from "node:child_process"
import * as Path from "node:path"
import { Effect, Fiber } from "effect"
import * as SqlBackend from "../src/store/SqlBackend.js"
import { childCommand } from "./ChildScripts.js"

const here = Path.dirname(new URL(import.meta.url).pathname)
const pkg = Path.resolve(here, "..")

export interface WritersOptions {
  readonly url: string
  readonly writers: number
  readonly perWriter: number
  readonly batch: number
  /** Send every n-th batch twice (a lost acknowledgement); 0: never. */
  readonly replayEvery: number
  /** Terminate one backend of the test database every this many ms; 0: never. */
  readonly chaosMs: number
}

export interface WriterReport {
  readonly w: number
  readonly written: number
  readonly retries: number
  readonly replays: number
  readonly replayNotMerged: number
  readonly ms: number
  readonly errors: ReadonlyArray<string>
}

export interface WritersResult {
  readonly expected: number
  readonly stored: number
  /** Expected ids missing at the end. */
  readonly lost: number
  /** Rows beyond one per expected record, plus support counted more than once. */
  readonly duplicated: number
  readonly foreign: number
  /** Reads that saw a batch with some but not all of its records. */
  readonly partialReads: number
  /** Reads that no longer saw a batch an earlier read saw complete. */
  readonly vanished: number
  readonly reads: number
  readonly terminated: number
  readonly retries: number
  readonly replays: number
  readonly replayNotMerged: number
  readonly seconds: number
  readonly writers: ReadonlyArray<WriterReport>
}

const runChild = (args: ReadonlyArray<string>) =>
  new Promise<WriterReport>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [...childCommand("StoreWriterChild"), ...args],
      { cwd: pkg, stdio: ["pipe", "pipe", "pipe"] }
    )
    let out = ""
    let err = ""
    child.stdout.on("data", (d) => (out += String(d)))
    child.stderr.on("data", (d) => (err += String(d)))
    child.on("exit", (code) => {
      if (code === 0) resolve(JSON.parse(out.trim().split("\n").pop()!) as WriterReport)
      else reject(new Error(`writer ${args[1]} exited with ${code}: ${err.slice(-2000)}`))
    })
  })

const withDatabase = (url: string, name: string): string => {
  const u = new URL(url)
  u.pathname = `/${name}`
  return u.toString()
}

export const runWriters = (o: WritersOptions): Effect.Effect<WritersResult, unknown> =>
  Effect.scoped(Effect.gen(function*() {
    const admin = (yield* SqlBackend.pg({ url: o.url, maxConnections: 2 })).sql
    const name = `autodidact_writers_${process.pid}_${Date.now()}`
    yield* admin.unsafe(`CREATE DATABASE ${name}`)
    yield* Effect.addFinalizer(() => admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).pipe(Effect.ignore))
    const url = withDatabase(o.url, name)
    const reader = (yield* SqlBackend.pg({ url, maxConnections: 1 })).sql

    const full = new Map<string, number>() // batch tag -> its size
    for (let w = 0; w < o.writers; w++) {
      for (let b = 0; b * o.batch < o.perWriter; b++) full.set(`w${w}-b${b}`, Math.min(o.batch, o.perWriter - b * o.batch))
    }
    const seen = new Set<string>()
    let partialReads = 0
    let vanished = 0
    let reads = 0
    let terminated = 0
    let done = false

    const readOnce = reader<{ tag: string; n: number }>`
      SELECT tags[1] AS tag, count(*)::int AS n FROM experience GROUP BY 1`.pipe(
      Effect.map((rows) => {
        reads++
        const now = new Set<string>()
        for (const r of rows) {
          now.add(r.tag)
          if (r.n !== full.get(r.tag)) partialReads++
          else seen.add(r.tag)
        }
        for (const t of seen) if (!now.has(t)) vanished++
      }),
      // the table may not exist yet; a terminated (or silently dropped) connection is retried on the next round
      Effect.timeout("10 seconds"),
      Effect.ignore
    )
    const readLoop = Effect.gen(function*() {
      while (!done) {
        yield* readOnce
        yield* Effect.sleep("10 millis")
      }
    })
    const chaosLoop = Effect.gen(function*() {
      while (!done && o.chaosMs > 0) {
        yield* Effect.sleep(`${o.chaosMs} millis`)
        const killed = yield* admin<{ ok: boolean }>`
          SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity
          WHERE datname = ${name} AND pid <> pg_backend_pid() AND backend_type = 'client backend'
          ORDER BY random() LIMIT 1`.pipe(Effect.orElseSucceed(() => []))
        terminated += killed.filter((k) => k.ok).length
      }
    })
    const t0 = performance.now()
    const background = Effect.all([readLoop, chaosLoop], { concurrency: 2, discard: true })
    const fiber = yield* Effect.forkScoped(background)
    const reports = yield* Effect.tryPromise(() =>
      Promise.all(
        Array.from({ length: o.writers }, (_, w) =>
          runChild([url, String(w), String(o.perWriter), String(o.batch), String(o.replayEvery)]))
      )
    ).pipe(Effect.ensuring(Effect.sync(() => (done = true))))
    const seconds = (performance.now() - t0) / 1000
    yield* Fiber.join(fiber)
    yield* readOnce // one last read of the finished table
    const stats = (yield* reader<{ rows: number; texts: number; extra_support: number; expected_present: number }>`
      SELECT count(*)::int AS rows, count(DISTINCT text)::int AS texts,
        coalesce(sum(support - 1), 0)::int AS extra_support,
        count(*) FILTER (WHERE id ~ '^w[0-9]+-r[0-9]+$' AND text = 'writer ' || substring(id from 2 for position('-' in id) - 2) || ' record ' || substring(id from position('-r' in id) + 2))::int AS expected_present
      FROM experience`)[0]
    const expected = o.writers * o.perWriter
    return {
      expected,
      stored: stats.rows,
      lost: expected - stats.expected_present,
      duplicated: stats.rows - stats.texts + stats.extra_support,
      foreign: stats.rows - stats.expected_present,
      partialReads,
      vanished,
      reads,
      terminated,
      retries: reports.reduce((a, r) => a + r.retries, 0),
      replays: reports.reduce((a, r) => a + r.replays, 0),
      replayNotMerged: reports.reduce((a, r) => a + r.replayNotMerged, 0),
      seconds,
      writers: reports
    }
  }))

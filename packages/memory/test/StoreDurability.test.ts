/**
 * Durability of the PGlite backend: a writer killed with SIGKILL in the middle of a batch leaves every batch
 * all-or-nothing; the single-writer lock; corrupted directories fail with a typed error. (A process killed while
 * creating a store: `StoreCreation.test.ts`.)
 */
import { spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import * as Embedder from "../src/embedders/Embedder.js"
import * as Records from "../src/store/Records.js"
import * as SqlBackend from "../src/store/SqlBackend.js"
import * as Store from "../src/store/Store.js"
import { childCommand } from "./ChildScripts.js"
import { copyStoreTemplate } from "./StoreTemplate.js"

const here = Path.dirname(new URL(import.meta.url).pathname)
const pkg = Path.resolve(here, "..")
const tmp = Fs.mkdtempSync(Path.join(Os.tmpdir(), "autodidact-store-"))
const dir = Path.join(tmp, "db")
const open = (d: string) => Store.layerPglite({ dir: d }).pipe(Layer.provide(Embedder.layerHashed({ dimension: 16 })))

/** Start the child and SIGKILL it once `after` batches are committed, at a random moment inside the next ones. */
const runAndKill = (after: number) =>
  new Promise<number>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [...childCommand("StoreKillChild"), dir],
      { cwd: pkg, stdio: ["ignore", "pipe", "pipe"] }
    )
    let last = -1
    let killed = false
    let stderr = ""
    child.stderr.on("data", (d) => (stderr += String(d)))
    child.stdout.on("data", (d: Buffer) => {
      for (const m of String(d).matchAll(/committed (\d+)/g)) last = Math.max(last, Number(m[1]))
      if (!killed && last >= after) {
        killed = true
        setTimeout(() => child.kill("SIGKILL"), Math.floor(Math.random() * 15))
      }
    })
    child.on("exit", (_code, signal) =>
      signal === "SIGKILL" ? resolve(last) : reject(new Error(`child exited without being killed: ${stderr}`)))
  })

describe("ExperienceStore durability (PGlite directory)", () => {
  // the store the writer child fills and the lock, corruption tests use: an existing empty store (creation is tested
  // by StoreCreation.test.ts)
  beforeAll(() => {
    copyStoreTemplate(dir)
  })
  afterAll(() => Fs.rmSync(tmp, { recursive: true, force: true }))

  it.effect("a writer killed mid-batch leaves every batch all-or-nothing; the stale lock is taken over", () =>
    Effect.gen(function*() {
      const lastCommitted = yield* Effect.promise(() => runAndKill(5))
      expect(Fs.existsSync(`${dir}.lock`)).toBe(true) // left behind by the killed process
      const counts = yield* Effect.gen(function*() {
        const store = yield* Store.ExperienceStore
        const out: Array<number> = []
        for (let b = 0; b <= lastCommitted + 5; b++) out.push(yield* store.count({ tags: [`batch-${b}`] }))
        return { out, total: yield* store.count() }
      }).pipe(Effect.provide(open(dir)))
      for (let b = 0; b <= lastCommitted; b++) expect(counts.out[b]).toBe(20)
      for (const n of counts.out) expect([0, 20]).toContain(n)
      expect(counts.total % 20).toBe(0)
      expect(Fs.existsSync(`${dir}.lock`)).toBe(false) // released with the scope
    }), 120_000)

  it.effect("one writer per directory: a second open in the same process fails with StoreOpenError", () =>
    Effect.gen(function*() {
      const err = yield* Effect.gen(function*() {
        yield* Store.ExperienceStore
        return yield* Effect.flip(Layer.build(open(dir)))
      }).pipe(Effect.provide(open(dir)), Effect.scoped)
      expect(err).toMatchObject({ _tag: "StoreOpenError" })
      expect(err.message).toContain(`locked by process ${process.pid}`)
    }), 180_000)

  it.effect("corrupted or foreign directories fail with StoreOpenError", () =>
    Effect.gen(function*() {
      const foreign = Path.join(tmp, "foreign")
      Fs.mkdirSync(foreign)
      Fs.writeFileSync(Path.join(foreign, "notes.txt"), "mine")
      const e1 = yield* Effect.flip(Layer.build(open(foreign))).pipe(Effect.scoped)
      expect(e1).toMatchObject({ _tag: "StoreOpenError", location: foreign })
      expect(e1.message).toContain("not a PGlite store")
      expect(Fs.readFileSync(Path.join(foreign, "notes.txt"), "utf8")).toBe("mine")
      expect(Fs.readdirSync(foreign)).toEqual(["notes.txt"])
      expect(Fs.existsSync(SqlBackend.creatingPath(foreign))).toBe(false)

      const broken = Path.join(tmp, "broken")
      Fs.cpSync(dir, broken, { recursive: true })
      Fs.writeFileSync(Path.join(broken, "PG_VERSION"), "garbage\n")
      const e2 = yield* Effect.flip(Layer.build(open(broken))).pipe(Effect.scoped)
      expect(e2.message).toContain("corrupted: PG_VERSION")

      const noControl = Path.join(tmp, "nocontrol")
      Fs.cpSync(dir, noControl, { recursive: true })
      Fs.rmSync(Path.join(noControl, "global", "pg_control"))
      const e3 = yield* Effect.flip(Layer.build(open(noControl))).pipe(Effect.scoped)
      expect(e3.message).toContain("pg_control")

      const zeroed = Path.join(tmp, "zeroed")
      Fs.cpSync(dir, zeroed, { recursive: true })
      const control = Path.join(zeroed, "global", "pg_control")
      Fs.writeFileSync(control, Buffer.alloc(Fs.statSync(control).size))
      const e4 = yield* Effect.flip(Layer.build(open(zeroed))).pipe(Effect.scoped)
      expect(e4).toMatchObject({ _tag: "StoreOpenError", location: zeroed })
    }), 180_000)

  it.effect("bulk load: records put into an exact store get the HNSW index on reopening with hnsw, same answers", () =>
    Effect.gen(function*() {
      const bulkDir = copyStoreTemplate(Path.join(tmp, "bulk"))
      const texts = Array.from({ length: 600 }, (_, i) => `tip ${i}: ${["open", "take", "heat", "cool"][i % 4]} the ${["mug", "apple", "egg"][i % 3]} ${i % 7}`)
      const opened = (vectorIndex: "hnsw" | "exact" | "auto") =>
        Store.layerPglite({ dir: bulkDir, vectorIndex }).pipe(Layer.provide(Embedder.layerHashed({ dimension: 16 })))
      const ask = Effect.gen(function*() {
        const store = yield* Store.ExperienceStore
        const hits = yield* store.query({ text: "heat the egg 3", k: 5, touch: false, weights: { recency: 0, importance: 0 } })
        return { index: store.vectorIndex, count: yield* store.count(), ids: hits.map((h) => h.record.text) }
      })
      // the exact top-5 similarities (every row scored), for the resident index below
      const nearest = Effect.gen(function*() {
        const store = yield* Store.ExperienceStore
        const hits = yield* store.query({ text: "heat the egg 3", k: 5, mode: "vector", touch: false, weights: { recency: 0, importance: 0 } })
        return hits.map((h) => h.similarity.toFixed(9))
      })
      const before = yield* Effect.gen(function*() {
        const store = yield* Store.ExperienceStore
        // more than one backfill batch (500 rows)
        yield* store.putMany(texts.map((t) => Records.tip(t)))
        return { ...(yield* ask), nearest: yield* nearest } // (read-only: touch false)
      }).pipe(Effect.provide(opened("exact")))
      expect(before.index).toBe("exact")
      const after = yield* ask.pipe(Effect.provide(opened("hnsw")))
      expect(after.index).toBe("hnsw")
      expect(after.count).toBe(600)
      expect(after.ids).toEqual(before.ids) // every row back-filled and indexed: the same top 5 as exact scoring
      const again = yield* ask.pipe(Effect.provide(opened("hnsw"))) // idempotent: the index exists now
      expect(again.ids).toEqual(before.ids)
      // the default on PGlite: the resident index, loaded from the stored rows. Its vector ranker is exact: the same
      // top-5 similarities as scoring every row (ids may differ among equal scores: 16-d embeddings tie often); its
      // lexical ranker is BM25, not ts_rank, so hybrid answers are compared with a second load of the same index.
      const exactNearest = before.nearest
      const resident = yield* Effect.all([ask, nearest]).pipe(Effect.provide(opened("auto")))
      expect([resident[0].index, resident[0].count, resident[1]]).toEqual(["resident", 600, exactNearest])
      // the resident store queues its touches: the queued access times reach the directory when the store closes
      const touchedAt = Date.UTC(2030, 0, 1)
      const touch = Effect.gen(function*() {
        const store = yield* Store.ExperienceStore
        const hits = yield* store.query({ text: "cool the apple 2", k: 4, now: touchedAt })
        return hits.map((h) => h.record.id)
      })
      const [reloaded, touchedIds] = yield* Effect.all([ask, touch]).pipe(Effect.provide(opened("auto")))
      expect(reloaded.ids).toEqual(resident[0].ids)
      const stored = yield* Effect.gen(function*() {
        const store = yield* Store.ExperienceStore
        return yield* Effect.forEach(touchedIds, (id) => store.get(id))
      }).pipe(Effect.provide(opened("exact")))
      expect(touchedIds.length).toBe(4)
      expect(stored.map((r) => Option.getOrThrow(r).lastAccessedAt)).toEqual([touchedAt, touchedAt, touchedAt, touchedAt])
    }), 180_000)
})

/**
 * Durability of the PGlite backend: a writer killed with SIGKILL in the middle of a batch leaves every batch
 * all-or-nothing; a process killed while creating a store leaves no half-created directory; the single-writer lock;
 * corrupted directories fail with a typed error.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import * as Embedder from "../src/embedders/Embedder.js"
import * as Records from "../src/store/Records.js"
import * as SqlBackend from "../src/store/SqlBackend.js"
import * as Store from "../src/store/Store.js"
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
      ["--conditions=@autodidact/source", "--import", "tsx", Path.join(here, "StoreKillChild.ts"), dir],
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

const children = new Set<ChildProcess>()

const entries = (d: string): number => {
  try {
    return Fs.readdirSync(d).length
  } catch {
    return -1
  }
}

/**
 * Start `StoreCreateChild.ts` on `target` and SIGKILL it when `killWhen` (polled every 2 ms and on each line of its
 * output) holds; rejects when the child exits by itself (it failed, or got past the point without being killed).
 */
const createAndKill = (target: string, blockAt: string, killWhen: (out: string) => boolean) =>
  new Promise<string>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--conditions=@autodidact/source", "--import", "tsx", Path.join(here, "StoreCreateChild.ts"), target, blockAt],
      { cwd: pkg, stdio: ["pipe", "pipe", "pipe"] } // the child exits when its stdin closes (this process died)
    )
    children.add(child)
    let out = ""
    let stderr = ""
    const check = () => {
      if (killWhen(out)) {
        clearInterval(poll)
        child.kill("SIGKILL")
      }
    }
    const poll = setInterval(check, 2)
    child.stderr.on("data", (d) => (stderr += String(d)))
    child.stdout.on("data", (d) => {
      out += String(d)
      check()
    })
    child.on("exit", (_code, signal) => {
      clearInterval(poll)
      children.delete(child)
      if (signal === "SIGKILL") resolve(out)
      else reject(new Error(`child exited without being killed; stdout: ${out} stderr: ${stderr}`))
    })
  })

/** Open the store on `d` in this process: it must be empty and take a record. */
const openEmptyAndUse = (d: string) =>
  Effect.gen(function*() {
    const store = yield* Store.ExperienceStore
    const before = yield* store.count()
    const put = yield* store.put(Records.tip("after the crash", { tags: ["x"] }))
    const got = Option.getOrUndefined(yield* store.get(put.id))
    return { before, after: yield* store.count(), text: got?.text }
  }).pipe(Effect.provide(open(d)))

describe("ExperienceStore durability (PGlite directory)", () => {
  // the store the writer child fills and the lock, corruption tests use: an existing empty store (creation is tested
  // by the kill-during-creation tests below)
  beforeAll(() => {
    copyStoreTemplate(dir)
  })
  afterAll(() => {
    for (const c of children) c.kill("SIGKILL") // a test that timed out leaves its child blocked
    Fs.rmSync(tmp, { recursive: true, force: true })
  })

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

  it.effect("a process killed the moment the new store directory appears leaves a store that opens, empty", () =>
    Effect.gen(function*() {
      // Before creation was atomic, PGlite's initdb wrote into the directory itself: killed there, it left a
      // directory without PG_VERSION that every later open refused (StoreOpenError "not a PGlite store").
      const d = Path.join(tmp, "created-kill")
      yield* Effect.promise(() => createAndKill(d, "none", () => entries(d) > 0))
      expect(Fs.existsSync(SqlBackend.creatingPath(d))).toBe(false)
      expect(yield* openEmptyAndUse(d)).toEqual({ before: 0, after: 1, text: "after the crash" })
    }), 300_000)

  it.effect("killed at each stage of creation (in an existing empty directory), the store opens empty and usable", () =>
    Effect.gen(function*() {
      const d = Path.join(tmp, "created-stages")
      const creating = SqlBackend.creatingPath(d)
      Fs.mkdirSync(d) // an empty directory is a place for a new store
      // 1. initdb finished in the sibling, not yet renamed: the target is untouched
      yield* Effect.promise(() => createAndKill(d, "initialized", (out) => out.includes("stage initialized")))
      expect(entries(d)).toBe(0)
      expect(Fs.existsSync(Path.join(creating, "PG_VERSION"))).toBe(true)
      // 2. the next open deletes the leftover and starts over; killed in the middle of initdb
      yield* Effect.promise(() =>
        createAndKill(
          d,
          "initialized",
          (out) => (out.includes("stage initializing") && entries(creating) >= 5) || out.includes("stage initialized")
        )
      )
      expect(entries(d)).toBe(0)
      // 3. renamed into place, killed before opening it
      yield* Effect.promise(() => createAndKill(d, "renamed", (out) => out.includes("stage renamed")))
      expect(Fs.existsSync(Path.join(d, "PG_VERSION"))).toBe(true)
      expect(Fs.existsSync(creating)).toBe(false)
      expect(yield* openEmptyAndUse(d)).toEqual({ before: 0, after: 1, text: "after the crash" })
    }), 600_000)

  it.effect("one writer per directory: a second open in the same process fails with StoreOpenError", () =>
    Effect.gen(function*() {
      const err = yield* Effect.gen(function*() {
        yield* Store.ExperienceStore
        return yield* Effect.flip(Layer.build(open(dir)))
      }).pipe(Effect.provide(open(dir)), Effect.scoped)
      expect(err).toMatchObject({ _tag: "StoreOpenError" })
      expect(err.message).toContain(`locked by process ${process.pid}`)
    }), 60_000)

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
    }), 60_000)

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
      const before = yield* Effect.gen(function*() {
        const store = yield* Store.ExperienceStore
        // more than one backfill batch (500 rows)
        yield* store.putMany(texts.map((t) => Records.tip(t)))
        return yield* ask
      }).pipe(Effect.provide(opened("exact")))
      expect(before.index).toBe("exact")
      const after = yield* ask.pipe(Effect.provide(opened("hnsw")))
      expect(after.index).toBe("hnsw")
      expect(after.count).toBe(600)
      expect(after.ids).toEqual(before.ids) // every row back-filled and indexed: the same top 5 as exact scoring
      const again = yield* ask.pipe(Effect.provide(opened("hnsw"))) // idempotent: the index exists now
      expect(again.ids).toEqual(before.ids)
      // the default on PGlite: the resident index, loaded from the stored embeddings, the same answers
      const resident = yield* ask.pipe(Effect.provide(opened("auto")))
      expect([resident.index, resident.count, resident.ids]).toEqual(["resident", 600, before.ids])
    }), 120_000)
})

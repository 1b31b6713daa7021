/**
 * Creating a PGlite store directory is atomic: a process killed at any moment of creation leaves no half-created
 * directory, and the next open gives an empty, usable store. (Split from `StoreDurability.test.ts` so that the two
 * files, each a long run of PGlite initdbs, spread over vitest's workers.)
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import * as Embedder from "../src/embedders/Embedder.js"
import * as Records from "../src/store/Records.js"
import * as SqlBackend from "../src/store/SqlBackend.js"
import * as Store from "../src/store/Store.js"
import { childCommand } from "./ChildScripts.js"

const here = Path.dirname(new URL(import.meta.url).pathname)
const pkg = Path.resolve(here, "..")
const tmp = Fs.mkdtempSync(Path.join(Os.tmpdir(), "autodidact-store-creation-"))
const open = (d: string) => Store.layerPglite({ dir: d }).pipe(Layer.provide(Embedder.layerHashed({ dimension: 16 })))

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
      [...childCommand("StoreCreateChild"), target, blockAt],
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

describe("ExperienceStore creation (PGlite directory)", () => {
  afterAll(() => {
    for (const c of children) c.kill("SIGKILL") // a test that timed out leaves its child blocked
    Fs.rmSync(tmp, { recursive: true, force: true })
  })

  it.effect("a PGlite template: new databases are unpacked from it (directory and in-memory); a damaged one is ignored", () =>
    Effect.gen(function*() {
      // the run's template (vitest.pglite.ts writes it with SqlBackend.writeTemplate): PGlite loads it as it is (no
      // fallback here), a fresh empty data directory
      const run = process.env[SqlBackend.templateVariable]
      const template = run !== undefined && Fs.existsSync(run) ? run : Path.join(tmp, "written.tar")
      if (template !== run) yield* SqlBackend.writeTemplate(template)
      const { PGlite } = yield* Effect.promise(() => import("@electric-sql/pglite"))
      // a template that marks what comes from it: the run's template plus a table
      const marked = Path.join(tmp, "marked.tar")
      const tables = yield* Effect.promise(async () => {
        const db = await PGlite.create({ loadDataDir: new Blob([Fs.readFileSync(template)]) })
        const r = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'")
        await db.exec("CREATE TABLE from_template (x int)")
        Fs.writeFileSync(marked, new Uint8Array(await (await db.dumpDataDir("none")).arrayBuffer()))
        await db.close()
        return r.rows[0].n
      })
      expect(tables).toBe(0)
      const hasMarker = (options: { dir?: string; template: string }) =>
        Effect.scoped(Effect.gen(function*() {
          const backend = yield* SqlBackend.pglite(options)
          const rows = yield* backend.sql<{ t: string | null }>`SELECT to_regclass('from_template')::text AS t`
          return rows[0].t !== null
        }))
      expect(yield* hasMarker({ template: marked })).toBe(true)
      expect(yield* hasMarker({ dir: Path.join(tmp, "from-template"), template: marked })).toBe(true)
      expect(Fs.existsSync(SqlBackend.creatingPath(Path.join(tmp, "from-template")))).toBe(false)
      // damaged (PGlite refuses it; the half-unpacked sibling is cleared): initdb, as without a template
      const damaged = Path.join(tmp, "damaged.tar")
      Fs.writeFileSync(damaged, "not a tarball")
      expect(yield* hasMarker({ dir: Path.join(tmp, "damaged-template"), template: damaged })).toBe(false)
    }).pipe(Effect.orDie), 300_000)

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
      // (3. renamed into place, killed before opening it: the previous test's case) the next open starts over
      expect(yield* openEmptyAndUse(d)).toEqual({ before: 0, after: 1, text: "after the crash" })
      expect(Fs.existsSync(creating)).toBe(false)
    }), 600_000)
})

import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as ExperienceLibrary from "../src/ExperienceLibrary.js"

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "explib-"))

describe("ExperienceLibrary.applyOperations", () => {
  it("numbers experiences, applies MODIFY/DELETE by id, skips bad ops, versions only changes", () => {
    const a = ExperienceLibrary.applyOperations(ExperienceLibrary.empty, [
      { op: "ADD", content: "  open  the fridge " },
      { op: "ADD", content: "look first" },
      { op: "ADD", content: "Open the fridge" },
      { op: "ADD", content: "   " },
      { op: "NONE" }
    ])
    expect(a.snapshot).toEqual({ version: 1, nextId: 2, experiences: [{ id: 0, text: "open the fridge" }, { id: 1, text: "look first" }] })
    expect(a.skipped.map((s) => s.reason)).toEqual(["already in the library", "empty content"])
    expect(a.applied).toHaveLength(3)
    const b = ExperienceLibrary.applyOperations(a.snapshot, [
      { op: "DELETE", id: 0 },
      { op: "MODIFY", id: 1, content: "look around first" },
      { op: "MODIFY", id: 0, content: "x" },
      { op: "DELETE", id: 7 },
      { op: "ADD", content: "new one" }
    ], "batch 2")
    expect(b.snapshot).toEqual({ version: 2, nextId: 3, note: "batch 2", experiences: [{ id: 1, text: "look around first" }, { id: 2, text: "new one" }] })
    expect(b.skipped.map((s) => s.reason)).toEqual(["no experience G0", "no experience G7"])
    const c = ExperienceLibrary.applyOperations(b.snapshot, [{ op: "NONE" }, { op: "MODIFY", id: 2, content: "new one" }])
    expect(c.changed).toBe(false)
    expect(c.snapshot).toBe(b.snapshot)
    expect(ExperienceLibrary.render(b.snapshot)).toBe("Experiences learned from earlier attempts:\n[G1] look around first\n[G2] new one")
    expect(ExperienceLibrary.render(ExperienceLibrary.empty)).toBe("")
  })
})

describe("ExperienceLibrary layers", () => {
  it.effect("memory layer keeps every version", () =>
    Effect.gen(function* () {
      const lib = yield* ExperienceLibrary.ExperienceLibrary
      yield* lib.apply([{ op: "ADD", content: "a" }])
      yield* lib.apply([{ op: "NONE" }])
      yield* lib.apply([{ op: "ADD", content: "b" }])
      const h = yield* lib.history
      expect(h.map((s) => s.version)).toEqual([0, 1, 2])
      expect((yield* lib.current).experiences.map((e) => e.text)).toEqual(["a", "b"])
      yield* ExperienceLibrary.add("c")
      yield* ExperienceLibrary.modify(0, "a2")
      const r = yield* ExperienceLibrary.remove(1)
      expect(r.snapshot).toEqual({ version: 5, nextId: 3, experiences: [{ id: 0, text: "a2" }, { id: 2, text: "c" }] })
      expect((yield* ExperienceLibrary.remove(1)).skipped.map((x) => x.reason)).toEqual(["no experience G1"])
    }).pipe(Effect.provide(ExperienceLibrary.layerMemory())))

  it.effect("file layer writes atomically and reloads every version", () =>
    Effect.gen(function* () {
      const file = path.join(tmp(), "lib.json")
      yield* Effect.gen(function* () {
        const lib = yield* ExperienceLibrary.ExperienceLibrary
        expect((yield* lib.current).version).toBe(0)
        yield* lib.apply([{ op: "ADD", content: "a" }, { op: "ADD", content: "b" }], "first")
        yield* lib.apply([{ op: "DELETE", id: 0 }])
      }).pipe(Effect.provide(ExperienceLibrary.layerFile(file)))
      // no temp files left next to it
      expect(fs.readdirSync(path.dirname(file))).toEqual(["lib.json"])
      const reloaded = yield* Effect.gen(function* () {
        const lib = yield* ExperienceLibrary.ExperienceLibrary
        return { current: yield* lib.current, history: yield* lib.history }
      }).pipe(Effect.provide(ExperienceLibrary.layerFile(file)))
      expect(reloaded.current).toEqual({ version: 2, nextId: 2, experiences: [{ id: 1, text: "b" }] })
      expect(reloaded.history.map((s) => s.version)).toEqual([0, 1, 2])
      expect(reloaded.history[1]!.note).toBe("first")
    }))

  it.effect("a failed write leaves the previous file and version intact", () =>
    Effect.gen(function* () {
      const file = path.join(tmp(), "lib.json")
      yield* Effect.gen(function* () {
        const lib = yield* ExperienceLibrary.ExperienceLibrary
        yield* lib.apply([{ op: "ADD", content: "kept" }])
      }).pipe(Effect.provide(ExperienceLibrary.layerFile(file)))
      const before = fs.readFileSync(file, "utf8")
      const err = yield* Effect.gen(function* () {
        const lib = yield* ExperienceLibrary.ExperienceLibrary
        const e = yield* Effect.flip(lib.apply([{ op: "ADD", content: "lost" }]))
        // the service did not advance either
        expect((yield* lib.current).experiences.map((x) => x.text)).toEqual(["kept"])
        return e
      }).pipe(
        Effect.provide(
          ExperienceLibrary.layerFile(file, {
            rename: () => {
              throw new Error("disk full")
            }
          })
        )
      )
      expect(err._tag).toBe("LibraryStorageError")
      expect(err.reason).toContain("disk full")
      expect(fs.readFileSync(file, "utf8")).toBe(before)
    }))

  it.effect("a corrupt file is a typed error", () =>
    Effect.gen(function* () {
      const file = path.join(tmp(), "lib.json")
      fs.writeFileSync(file, "{not json")
      const e = yield* Effect.flip(Effect.provide(Effect.service(ExperienceLibrary.ExperienceLibrary), ExperienceLibrary.layerFile(file)))
      expect(e._tag).toBe("LibraryStorageError")
      fs.writeFileSync(file, JSON.stringify({ format: "other", versions: [] }))
      const e2 = yield* Effect.flip(Effect.provide(Effect.service(ExperienceLibrary.ExperienceLibrary), ExperienceLibrary.layerFile(file)))
      expect(e2.reason).toContain("not a library file")
    }))
})

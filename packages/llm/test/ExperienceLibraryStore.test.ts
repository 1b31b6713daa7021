import { Embedder, ExperienceStore, Records, Store } from "@autodidact/memory/store"
import * as ExperienceLibrary from "../src/ExperienceLibrary.js"
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as ExperienceLibraryStore from "../src/ExperienceLibraryStore.js"

// one in-memory PGlite for the file (~3 s to create)
const StoreLive = Store.layerMemory({ vectorIndex: "exact" }).pipe(Layer.provide(Embedder.layerHashed({ dimension: 32 })))

layer(StoreLive, { timeout: 60_000 })("ExperienceLibraryStore", (it) => {
  it.effect("stores each version as a record and reloads every version", () =>
    Effect.gen(function* () {
      const store = yield* ExperienceStore
      const first = yield* ExperienceLibrary.make(ExperienceLibraryStore.backend(store, "household"))
      expect((yield* first.current).version).toBe(0)
      yield* first.apply([{ op: "ADD", content: "Open closed receptacles before searching elsewhere." }], "epoch 0")
      yield* first.apply([{ op: "NONE" }])
      yield* first.apply([{ op: "ADD", content: "Clean objects in the sinkbasin." }, { op: "DELETE", id: 0 }])
      expect(yield* store.count({ tags: [ExperienceLibraryStore.TAG, `${ExperienceLibraryStore.TAG}:household`] })).toBe(2)
      const record = yield* store.get(ExperienceLibraryStore.recordId("household", 2))
      expect(record._tag).toBe("Some")
      if (record._tag === "Some") {
        expect(record.value.kind).toBe("tip")
        expect(record.value.text).toContain("[G1] Clean objects in the sinkbasin.")
      }
      // a fresh service over the same store sees the same history
      const again = yield* ExperienceLibrary.make(ExperienceLibraryStore.backend(store, "household"))
      expect(yield* again.current).toEqual({ version: 2, nextId: 2, experiences: [{ id: 1, text: "Clean objects in the sinkbasin." }] })
      expect((yield* again.history).map((s) => [s.version, s.note])).toEqual([[0, undefined], [1, "epoch 0"], [2, undefined]])
      // and continues the version line
      yield* again.apply([{ op: "MODIFY", id: 1, content: "Clean objects in a sinkbasin before use." }])
      expect((yield* ExperienceLibrary.make(ExperienceLibraryStore.backend(store, "household")).pipe(Effect.flatMap((l) => l.current))).version).toBe(3)
    }))

  it.effect("libraries with different names are independent; the layer works", () =>
    Effect.gen(function* () {
      const other = yield* Effect.gen(function* () {
        const lib = yield* ExperienceLibrary.ExperienceLibrary
        yield* lib.apply([{ op: "ADD", content: "Push boxes away from walls." }])
        return yield* lib.current
      }).pipe(Effect.provide(ExperienceLibraryStore.layer({ name: "sokoban" })))
      expect(other.experiences.map((e) => e.text)).toEqual(["Push boxes away from walls."])
      const store = yield* ExperienceStore
      const fresh = yield* ExperienceLibrary.make(ExperienceLibraryStore.backend(store, "frozenlake"))
      expect(yield* fresh.current).toEqual(ExperienceLibrary.empty)
    }))

  it.effect("a corrupt or missing version is a typed error", () =>
    Effect.gen(function* () {
      const store = yield* ExperienceStore
      yield* store.put({ ...Records.tip("not a snapshot", { tags: [ExperienceLibraryStore.TAG, `${ExperienceLibraryStore.TAG}:broken`] }), id: ExperienceLibraryStore.recordId("broken", 1), payload: { nope: 1 } })
      const e = yield* Effect.flip(ExperienceLibrary.make(ExperienceLibraryStore.backend(store, "broken")))
      expect(e._tag).toBe("LibraryStorageError")
      expect(e.reason).toContain("not a library snapshot")
      yield* store.put({ ...Records.tip("gap", { tags: [ExperienceLibraryStore.TAG, `${ExperienceLibraryStore.TAG}:gappy`] }), id: ExperienceLibraryStore.recordId("gappy", 5) })
      const e2 = yield* Effect.flip(ExperienceLibrary.make(ExperienceLibraryStore.backend(store, "gappy")))
      expect(e2.reason).toContain("version 1 of 1 is missing")
    }))
})

describe("ExperienceLibraryStore", () => {
  it("names records by library and version", () => {
    expect(ExperienceLibraryStore.recordId("a", 3)).toBe("experience-library/a/v3")
  })
})

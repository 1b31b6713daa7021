/**
 * `memory-summary.json`: written by a directory store when its scope closes (the dashboard's memory panel reads it),
 * on demand by `Summary.write`, atomically; a failure to write is a typed error, and never breaks closing a store.
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import * as Embedder from "../src/embedders/Embedder.js"
import * as Records from "../src/store/Records.js"
import * as Store from "../src/store/Store.js"
import * as Summary from "../src/store/Summary.js"
import { copyStoreTemplate } from "./StoreTemplate.js"

const tmp = Fs.mkdtempSync(Path.join(Os.tmpdir(), "autodidact-summary-"))
const embedder = Embedder.layerHashed({ dimension: 16 })
const readSummary = (file: string) => Schema.decodeUnknownSync(Summary.Summary)(JSON.parse(Fs.readFileSync(file, "utf8")))

describe("memory-summary.json", () => {
  afterAll(() => Fs.rmSync(tmp, { recursive: true, force: true }))

  it.effect("a PGlite directory store writes the counts per kind when its scope closes, and reopens with the file there", () =>
    Effect.gen(function*() {
      const dir = copyStoreTemplate(Path.join(tmp, "run", "memory")) // an existing empty store
      const file = Path.join(dir, Summary.fileName)
      const fill = Effect.gen(function*() {
        const store = yield* Store.ExperienceStore
        yield* store.putMany([Records.tip("open the fridge first"), Records.tip("look before you take"), Records.insight("heat needs the microwave")])
        yield* store.put(Records.reflection("I went to the wrong shelf", { trial: 1 }))
        expect(Fs.existsSync(file)).toBe(false) // only at close
      })
      yield* fill.pipe(Effect.provide(Store.layerPglite({ dir }).pipe(Layer.provide(embedder))))
      const first = readSummary(file)
      expect(first.counts).toEqual({ trajectory: 0, insight: 1, reflection: 1, tip: 2 })
      expect(first.total).toBe(4)
      expect(Number.isNaN(Date.parse(first.writtenAt))).toBe(false)

      // reopen (the summary file does not make the directory foreign), remove a tip, close: the file follows
      yield* Effect.scoped(Effect.gen(function*() {
        const store = yield* Store.open({ dir })
        expect(yield* store.count()).toBe(4)
        const tips = yield* store.query({ filters: { kind: "tip" }, k: 10, touch: false })
        yield* store.remove([tips[0]!.record.id])
      })).pipe(Effect.provide(embedder))
      expect(readSummary(file).counts).toEqual({ trajectory: 0, insight: 1, reflection: 1, tip: 1 })
      expect(Fs.readdirSync(dir).filter((f) => f.includes(".tmp"))).toEqual([]) // atomic: no temp file left
    }), 180_000)

  it.effect("Summary.write on demand; an unwritable path is SummaryWriteError and the store still closes", () =>
    Effect.gen(function*() {
      const out = Path.join(tmp, "on-demand.json")
      const blocked = Path.join(tmp, "a-file")
      Fs.writeFileSync(blocked, "not a directory")
      const result = yield* Effect.gen(function*() {
        const store = yield* Store.ExperienceStore
        yield* store.put(Records.insight("x"))
        const written = yield* Summary.write(store, out)
        const failed = yield* Effect.flip(Summary.write(store, Path.join(blocked, "inside")))
        return { written, failed }
      }).pipe(Effect.provide(Store.layerMemory().pipe(Layer.provide(embedder))))
      expect(result.written.total).toBe(1)
      expect(readSummary(out)).toEqual(result.written)
      expect(result.failed._tag).toBe("SummaryWriteError")
      expect(result.failed.message).toContain(Path.join(blocked, "inside", Summary.fileName))

      // a directory store that cannot write its summary at close (a directory is in the way): it still closes, the
      // failure is only logged, and the store reopens
      const dir = copyStoreTemplate(Path.join(tmp, "blocked-store")) // an existing empty store (creation is not the point)
      yield* Effect.scoped(Effect.gen(function*() {
        const store = yield* Store.open({ dir })
        yield* store.put(Records.tip("y"))
        Fs.mkdirSync(Path.join(dir, Summary.fileName))
      })).pipe(Effect.provide(embedder))
      expect(Fs.statSync(Path.join(dir, Summary.fileName)).isDirectory()).toBe(true)
      Fs.rmdirSync(Path.join(dir, Summary.fileName))
      const reopened = yield* Effect.scoped(Effect.flatMap(Store.open({ dir }), (store) => store.count())).pipe(Effect.provide(embedder))
      expect(reopened).toBe(1)
      expect(readSummary(Path.join(dir, Summary.fileName)).counts["tip"]).toBe(1)
    }), 120_000)
})

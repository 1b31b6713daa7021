/**
 * The plain face of the experience store: `ExperienceStore.open` with Promises, the same implementation and the same
 * tagged errors as the Effect service.
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { InvalidOptionError } from "@autodidact/core"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as Embedder from "../src/embedders/Embedder.js"
import { ExperienceStore } from "../src/store.js"
import * as Records from "../src/store/Records.js"
import * as Store from "../src/store/Store.js"
import { EmbedderError, InvalidQueryError, InvalidRecordError, StoreOpenError } from "../src/store/StoreErrors.js"
import { mergeRule } from "./StoreSuite.js"
import { copyStoreTemplate } from "./StoreTemplate.js"

const tmp = Fs.mkdtempSync(Path.join(Os.tmpdir(), "autodidact-plain-store-"))

const rejection = (p: Promise<unknown>): Promise<unknown> => p.then(() => undefined, (e: unknown) => e)

describe("ExperienceStore.open (plain, Promises)", () => {
  afterAll(() => Fs.rmSync(tmp, { recursive: true, force: true }))

  it("puts, queries, counts and closes a directory store; a wrong argument rejects with the Effect call's error", async () => {
    const path = copyStoreTemplate(Path.join(tmp, "memory-db")) // an existing empty store
    const store = await ExperienceStore.open({ path, dimension: 64 })
    try {
      expect([store.backend, store.location, store.dimension]).toEqual(["pglite", path, 64])
      const put = await store.put(Records.insight("Open the fridge before looking for food", { task: "find food" }))
      expect(put.status).toBe("inserted")
      await store.putMany([Records.tip("Kettles are on the counter"), Records.tip("Kettles are on the counter")])
      expect(await store.count()).toBe(2) // the second tip merged into the first
      const hits = await store.query({ text: "where is the food? open the fridge", k: 1 })
      expect(hits.map((h) => h.record.text)).toEqual(["Open the fridge before looking for food"])
      expect((await store.get(put.id))?.text).toBe("Open the fridge before looking for food")
      expect(await store.get("no-such-id")).toBeUndefined()

      // same class, _tag and message from the plain and the Effect call (one implementation)
      const badRecord = Records.insight("x", { importance: 2 })
      const plain = await rejection(store.put(badRecord))
      const effect = await Effect.runPromise(Effect.flip(store.service.put(badRecord)))
      expect(plain).toBeInstanceOf(InvalidRecordError)
      expect(effect).toBeInstanceOf(InvalidRecordError)
      expect((plain as InvalidRecordError)._tag).toBe(effect._tag)
      expect((plain as InvalidRecordError).message).toBe(effect.message)
      const plainQuery = await rejection(store.query({ text: "x", k: 0 }))
      const effectQuery = await Effect.runPromise(Effect.flip(store.service.query({ text: "x", k: 0 })))
      expect(plainQuery).toBeInstanceOf(InvalidQueryError)
      expect((plainQuery as InvalidQueryError).message).toBe(effectQuery.message)
    } finally {
      await store.close()
    }
    await store.close() // idempotent
    expect(await rejection(store.count())).toBeInstanceOf(StoreOpenError)
    expect(Fs.existsSync(`${path}.lock`)).toBe(false) // the directory lock is released
    expect(Fs.existsSync(Path.join(path, "memory-summary.json"))).toBe(true) // as the Effect layer does on close

    // reopened through the Effect face, the records are there
    const count = await Effect.runPromise(
      Effect.scoped(Effect.flatMap(Store.open({ dir: path }), (s) => s.count())).pipe(
        Effect.provide(Embedder.layerHashed({ dimension: 64 }))
      )
    )
    expect(count).toBe(2)
  }, 120_000)

  // The embedder tests below open existing empty directory stores (copies of the run's template: about half the CPU of
  // creating an in-memory database from the PGlite template); the backend is not what they check, and the plain
  // face on an in-memory database is CheckMemoryBackend.test.ts's.
  it("takes a plain embedder or an Embedder layer; an embedder that throws rejects with EmbedderError", async () => {
    const store = await ExperienceStore.open({
      path: copyStoreTemplate(Path.join(tmp, "plain-embedder")),
      embedder: {
        dimension: 4,
        model: "test-plain",
        embed: async (texts) => {
          if (texts.some((t) => t === "boom")) throw new Error("model exploded")
          return texts.map((t) => Float32Array.of(t.length, 1, 0, 0))
        }
      }
    })
    try {
      expect(store.dimension).toBe(4)
      await store.put(Records.tip("abc"))
      const e = await rejection(store.put(Records.tip("boom")))
      expect(e).toBeInstanceOf(EmbedderError)
      expect((e as EmbedderError).message).toMatch(/test-plain: model exploded/)
    } finally {
      await store.close()
    }
    // a layer with a resource (as an ONNX session) lives until close(), not until open() returns
    let released = false
    const scoped = Layer.effect(
      Embedder.Embedder,
      Effect.acquireRelease(
        Effect.succeed(Embedder.Embedder.of({ dimension: 8, model: "scoped", embed: (texts) => Effect.succeed(texts.map(() => Float32Array.of(1, 0, 0, 0, 0, 0, 0, 0))) })),
        () => Effect.sync(() => { released = true })
      )
    )
    const fromLayer = await ExperienceStore.open({ path: copyStoreTemplate(Path.join(tmp, "layer-embedder")), embedder: scoped })
    expect(fromLayer.dimension).toBe(8)
    await fromLayer.put(Records.tip("kept"))
    expect(released).toBe(false)
    await fromLayer.close()
    expect(released).toBe(true)
    // a layer that fails to build: the open rejects with its error
    const failing = Layer.effect(Embedder.Embedder, Effect.fail(new EmbedderError({ model: "bad", reason: "no model" })))
    expect(await rejection(ExperienceStore.open({ memory: true, embedder: failing }))).toBeInstanceOf(EmbedderError)
  }, 120_000)

  it("put, putMany and duplicates within a batch follow one merge rule (plain face)", async () => {
    const store = await ExperienceStore.open({ path: copyStoreTemplate(Path.join(tmp, "merge-rule")), dimension: 64 })
    try {
      await mergeRule(store)
    } finally {
      await store.close()
    }
  }, 180_000)

  it("rejects options that name no target, or two, with InvalidOptionError", async () => {
    for (const options of [{}, { path: "a", memory: true }, { url: "postgres://x@localhost/y", path: "b" }]) {
      const e = await rejection(ExperienceStore.open(options))
      expect(e).toBeInstanceOf(InvalidOptionError)
      expect((e as InvalidOptionError).option).toBe("ExperienceStore.open")
    }
  })
})

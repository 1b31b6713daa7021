/**
 * An {@link ExperienceLibrary} kept in the experience store of `@autodidact/memory`, so that
 * what Training-Free GRPO learns lives next to the agent's trajectories and insights (PGlite on a directory, or a
 * PostgreSQL server).
 *
 * **Details**
 * - Each version of a library named `name` is one `tip` record with id `experience-library/<name>/v<version>`, tags
 *   `experience-library` and `experience-library:<name>`, the rendered library as its text (searchable like any
 *   record) and the snapshot as its payload. Versions are never overwritten; the latest is the highest version, found
 *   by counting the records with the library's tag.
 * - A new version is one `put`, one transaction: a crash leaves the previous version as the latest.
 * - Several libraries (one per env or agent) share a store under different names.
 *
 * **Gotchas**: a store's `consolidate` may merge or evict `tip` records; run it with filters that leave
 * `experience-library` tags alone, or keep libraries in their own store.
 *
 * @example
 * ```ts
 * import { ExperienceLibraryStore } from "@autodidact/llm"
 * import { Embedder, Store } from "@autodidact/memory/store"
 * import { Layer } from "effect"
 * const LibraryLive = ExperienceLibraryStore.layer({ name: "household" }).pipe(
 *   Layer.provide(Store.layerPglite({ dir: "./memory-db" })),
 *   Layer.provide(Embedder.layerHashed())
 * )
 * ```
 * @since 0.1.0
 */
import { ExperienceStore } from "@autodidact/memory/store"
import * as ExperienceLibrary from "./ExperienceLibrary.js"
import { Effect, Layer, Option, Schema } from "effect"

/** The tag every library record carries. */
export const TAG = "experience-library"

/** The record id of version `version` of library `name`. */
export const recordId = (name: string, version: number): string => `${TAG}/${name}/v${version}`

const reasonOf = (e: unknown): string => (e instanceof Error ? e.message : String(e))

/**
 * The backend over an experience-store service (for {@link ExperienceLibrary.make}): each library version is one
 * record (id {@link recordId}, tags `experience-library` and `experience-library:<name>`), loaded by tag and sorted
 * by version. Store failures become {@link ExperienceLibrary.LibraryStorageError} naming `<location>#<tag>/<name>`.
 * @since 0.1.0
 */
export const backend = (store: ExperienceStore["Service"], name: string): ExperienceLibrary.Backend => {
  const location = `${store.location}#${TAG}/${name}`
  const fail = (reason: string) => new ExperienceLibrary.LibraryStorageError({ location, reason })
  const tags = [TAG, `${TAG}:${name}`]
  return {
    location,
    load: Effect.gen(function* () {
      const n = yield* store.count({ kind: "tip", tags }).pipe(Effect.mapError((e) => fail(`count failed: ${reasonOf(e)}`)))
      if (n === 0) return []
      const versions: Array<ExperienceLibrary.Snapshot> = [ExperienceLibrary.empty]
      for (let v = 1; v <= n; v++) {
        const record = yield* store.get(recordId(name, v)).pipe(Effect.mapError((e) => fail(`read of version ${v} failed: ${reasonOf(e)}`)))
        if (Option.isNone(record)) return yield* fail(`version ${v} of ${n} is missing`)
        const snapshot = yield* Schema.decodeUnknownEffect(ExperienceLibrary.Snapshot)(record.value.payload).pipe(
          Effect.mapError((e) => fail(`version ${v} is not a library snapshot: ${e.message.slice(0, 300)}`))
        )
        if (snapshot.version !== v) return yield* fail(`record ${recordId(name, v)} holds version ${snapshot.version}`)
        versions.push(snapshot)
      }
      return versions
    }),
    save: (snapshot) =>
      store
        .put({
          id: recordId(name, snapshot.version),
          kind: "tip",
          text: `${TAG} ${name} v${snapshot.version}\n${ExperienceLibrary.render(snapshot)}`,
          tags,
          payload: snapshot
        })
        .pipe(
          Effect.mapError((e) => fail(`write of version ${snapshot.version} failed: ${reasonOf(e)}`)),
          Effect.flatMap((r) => (r.status === "inserted" ? Effect.void : Effect.fail(fail(`version ${snapshot.version} already stored`))))
        )
  }
}

/**
 * The library named `name` (default `"default"`) in the `ExperienceStore` of the context.
 * @category layers
 */
export const layer = (
  options: { readonly name?: string | undefined } = {}
): Layer.Layer<ExperienceLibrary.ExperienceLibrary, ExperienceLibrary.LibraryStorageError, ExperienceStore> =>
  Layer.effect(
    ExperienceLibrary.ExperienceLibrary,
    Effect.flatMap(Effect.service(ExperienceStore), (store) => ExperienceLibrary.make(backend(store, options.name ?? "default")))
  )

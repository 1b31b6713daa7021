/**
 * `@autodidact/memory/store`: the persistent experience store (trajectories, insights, reflections, tips) with
 * weighted retrieval, on PGlite (embedded, a directory or memory) or a PostgreSQL server, plus everything that goes
 * with it (records, retrieval, consolidation, migrations, backends, the summary file, the exemplar agent, the
 * embedders and the errors). Node only.
 *
 * Plain: `const store = await ExperienceStore.open({ path })`, Promise methods, `await store.close()`. Effect:
 * `Store.layerPglite` / `layerPg` / `layerMemory` / `open` and the `ExperienceStore` service.
 *
 * The backends are optional peer dependencies, loaded when a store is opened (importing this entry loads none):
 * `@effect/sql-pg` (both backends) and `@electric-sql/pglite`, `@electric-sql/pglite-pgvector`,
 * `@electric-sql/pglite-socket` (PGlite). A missing one fails the open with core's `MissingPeerError` naming it.
 * @since 0.1.0
 */
export * as CheckMemoryBackend from "./store/CheckMemoryBackend.js"
export * as Consolidation from "./store/Consolidation.js"
export * as Embedder from "./embedders/Embedder.js"
export * as ExemplarAgent from "./store/ExemplarAgent.js"
export * as Migrations from "./store/Migrations.js"
export * as Records from "./store/Records.js"
export * as Retrieval from "./store/Retrieval.js"
export * as SqlBackend from "./store/SqlBackend.js"
export * as Store from "./store/Store.js"
export * as StoreErrors from "./store/StoreErrors.js"
export * as Summary from "./store/Summary.js"
export { ExperienceStore, type OpenOptions, type OpenStore, openStore } from "./store/Store.js"
export {
  EmbedderError,
  EmbedderLoadError,
  EmbedderTokenizerMismatchError,
  InvalidQueryError,
  InvalidRecordError,
  SchemaVersionError,
  StoreOpenError,
  StoreSqlError
} from "./store/StoreErrors.js"

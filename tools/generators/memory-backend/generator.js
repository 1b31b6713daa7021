/**
 * `nx g @autodidact/tools:memory-backend NAME`: an experience-store backend in
 * packages/memory/src/store/backends/<Name>.ts: `layer<Name>(options?)`, a `Layer<ExperienceStore, StoreOpenError,
 * Embedder>` whose operations each die with core's `NotImplementedError` ("fill in put() in
 * packages/memory/src/store/backends/<Name>.ts", one per operation) until they are written; exported from the
 * `@autodidact/memory/store` entry (src/store.ts) as `<Name>`, with a test in packages/memory/test/<Name>.test.ts
 * running `CheckMemoryBackend.checkMemoryBackend` on it (failing with the fill-in messages until then) and a
 * changeset. Refuses a bad name, an existing module or test, a module name the entry exports and the name of a
 * built-in store layer (`pglite`, `pg`, `memory`: `Store.layerPglite`, ...).
 *
 * **Why the whole `ExperienceStore` service, not a `SqlBackend.Backend`.** The store has two levels a backend could
 * plug into:
 * - `SqlBackend.Backend` (an `effect/sql` `SqlClient`) driven by `Store.make(backend, options)`: a few lines, and
 *   migrations, dedup, transactions, retrieval and consolidation come for free. But `Store.make` and `Migrations`
 *   speak PostgreSQL only (`ANY($1::text[])`, `tags @> …`, `jsonb`, `bytea`, a generated `tsvector` column with
 *   `to_tsquery`, `ON CONFLICT`, `pg_advisory_xact_lock`, pgvector), and `Backend.kind` is `"pglite" | "pg"`. So it
 *   fits only a PostgreSQL engine, and those are already covered: `Store.layerPg({ url })` takes any server
 *   (managed, pooled, pgvector or not), `Store.layerPglite` the embedded one. A generator for it would produce a
 *   second name for an existing backend; an SQLite, DuckDB or MySQL `SqlClient` handed to `Store.make` would fail on
 *   its first statement.
 * - The `ExperienceStore` service (this generator): the contract `Store.ts` documents and `CheckMemoryBackend`
 *   checks, independent of any query language, so it fits what a new backend actually is (SQLite, an in-process
 *   map, a vector database, a key-value store). It is more to write, so the stub points at the pure helpers to
 *   reuse instead of re-implementing them: `Retrieval.normalizeFilters`/`normalizeOptions` (query validation),
 *   `Store.checkEmbedding`, `Retrieval.rank`/`cosine`/`recency` (scoring), `LexicalIndex` (BM25),
 *   `Consolidation.planMerges`/`planEviction`, `Records.decodeTrajectory`.
 * A contributor with a PostgreSQL-compatible engine that `layerPg` cannot reach should write a `SqlBackend.Backend`
 * by hand (as `SqlBackend.pg` does) rather than run this generator.
 */
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { generateFiles } from "@nx/devkit"
import { addChangeset, addModuleExport, assertAbsent, GeneratorError, nameForms, readText } from "../lib.js"

const here = path.dirname(fileURLToPath(import.meta.url))
const MEMORY = "packages/memory"

/**
 * @param {import("@nx/devkit").Tree} tree
 * @param {{ name: string }} options
 */
export default async function memoryBackendGenerator(tree, options) {
  const forms = nameForms(options.name, "memory-backend")
  const name = forms.fileName
  const { className } = forms
  assertAbsent(tree, `${MEMORY}/src/store/backends/${className}.ts`)
  assertAbsent(tree, `${MEMORY}/test/${className}.test.ts`)
  const store = readText(tree, `${MEMORY}/src/store/Store.ts`)
  if (new RegExp(`^export const layer${className} = `, "m").test(store)) {
    throw new GeneratorError(`${MEMORY}/src/store/Store.ts already has a built-in backend layer${className}: pick another name`)
  }
  addModuleExport(tree, `${MEMORY}/src/store.ts`, className, `./store/backends/${className}.js`)
  generateFiles(tree, path.join(here, "files"), MEMORY, { ...forms, name, tmpl: "" })
  addChangeset(tree, "@autodidact/memory", `memory-${name}`, `New experience-store backend \`${name}\` (\`${className}.layer${className}\` in \`@autodidact/memory/store\`).`)
}

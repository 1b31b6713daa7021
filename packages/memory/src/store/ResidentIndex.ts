/**
 * The embedded store's resident index: what ranking needs of every record, held in memory and addressed by id —
 * the embedding in a kernels `TopKIndex` (WebAssembly SIMD, exact int16 pre-filter then float32 rescoring; typed
 * arrays where SIMD is missing), the words in a BM25 `LexicalIndex`, and `createdAt`, `lastAccessedAt` and
 * `importance`. Exact cosine top-n, no approximation: the same vector candidates as scoring every record.
 *
 * **Why**: a PGlite store belongs to one process (the directory lock), so every write passes through this process's
 * store and an in-memory mirror stays exact. A query then needs one SQL statement (read the k winners and touch
 * them) instead of three; the vector scan is one pass over int16 rows (~3 ms at 100k × 256 on one core) where
 * pgvector's HNSW inside PGlite (WebAssembly, no SIMD) took ~20 ms per query and ~4 ms per insert (graph
 * maintenance), and BM25 over the postings takes well under a millisecond where the GIN lookup and `ts_rank` took
 * 1-8 ms.
 *
 * **Details**
 * - Built when the store opens, from the stored float32 copies (`embedding bytea`), read in pages of
 *   {@link LOAD_PAGE} rows by id; memory `records × (6 dim + 12)` bytes plus the ids.
 * - The store calls {@link ResidentIndex.add} after an insert commits, {@link ResidentIndex.update} after a merge,
 *   consolidation or access-time update commits, and {@link ResidentIndex.remove} after a delete commits; a query
 *   racing a write may miss a row inserted a moment ago or name one just deleted (the store skips ids it cannot
 *   read back).
 * - {@link ResidentIndex.search} with a set of allowed ids (a filtered query) over-fetches from the index until `n`
 *   allowed rows are found (or all rows were ranked), or scores the allowed rows directly when they are few: exact in
 *   both cases.
 *
 * @since 0.2.0
 */
import { TopKIndex } from "@autodidact/kernels"
import * as LexicalIndex from "./LexicalIndex.js"
import { cosine } from "./Retrieval.js"

/** Rows read per page while building the index at open. */
export const LOAD_PAGE = 5000

/** A ranked vector candidate: record id and cosine similarity in `[-1, 1]`. */
export interface Hit {
  readonly id: string
  readonly similarity: number
}

/** The ranking fields of a record the index keeps (epoch ms; importance in `[0, 1]`). */
export interface Meta {
  readonly createdAt: number
  readonly lastAccessedAt: number
  readonly importance: number
}

/** A record as the index takes it. */
export interface Entry extends Meta {
  readonly id: string
  readonly text: string
  readonly embedding: Float32Array
}

/** An id-addressed mirror of the store's records for ranking: exact cosine, BM25 and the ranking fields. */
export interface ResidentIndex {
  /** Records held. */
  readonly size: number
  /** `"wasm-simd"` or `"typed-array"` (kernels `TopKIndex`). */
  readonly backend: string
  /** Add committed records (an id already held is ignored). */
  readonly add: (entries: ReadonlyArray<Entry>) => void
  /** Set the ranking fields of held records after an update committed (unknown ids are ignored). */
  readonly update: (id: string, meta: Partial<Meta>) => void
  /** Remove committed deletions (unknown ids are ignored). */
  readonly remove: (ids: ReadonlyArray<string>) => void
  /** The ranking fields of a held record. */
  readonly meta: (id: string) => Meta | undefined
  /** A copy of a held record's embedding (the exact float32 values stored). */
  readonly embedding: (id: string) => Float32Array | undefined
  /** BM25 top-n for a query text (see `LexicalIndex.search`), among `allowed` when given. */
  readonly lexical: (text: string, n: number, allowed?: ReadonlySet<string>) => LexicalIndex.Search
  /**
   * The `n` most cosine-similar records to `query` (best first; ties by position), among `allowed` when given
   * (a filtered query).
   */
  readonly search: (query: Float32Array, n: number, allowed?: ReadonlySet<string>) => ReadonlyArray<Hit>
  /** Cosine similarities (double precision) of `query` with held records, `undefined` for an id not held. */
  readonly similarities: (query: Float32Array, ids: ReadonlyArray<string>) => ReadonlyArray<number | undefined>
  /** Free the memory. */
  readonly dispose: () => void
}

/** An empty index of `dim`-dimensional embeddings. */
export const make = (dim: number, capacity = 1024): ResidentIndex => {
  const index = TopKIndex.make(dim, { capacity })
  const words = LexicalIndex.make()
  const metas = new Map<string, Meta>()
  const ids: Array<string> = []
  const position = new Map<string, number>()
  const rowOf = (m: Float32Array, p: number) => m.subarray(p * dim, (p + 1) * dim)

  const add = (entries: ReadonlyArray<Entry>) => {
    const seen = new Set<string>()
    const fresh = entries.filter((e) => {
      if (position.has(e.id) || seen.has(e.id)) return false
      seen.add(e.id)
      return true
    })
    if (fresh.length === 0) return
    const rows = new Float32Array(fresh.length * dim)
    fresh.forEach((e, j) => {
      rows.set(e.embedding, j * dim)
      position.set(e.id, ids.length)
      ids.push(e.id)
      metas.set(e.id, { createdAt: e.createdAt, lastAccessedAt: e.lastAccessedAt, importance: e.importance })
    })
    index.append(rows, fresh.length)
    words.add(fresh.map((e) => e.id), fresh.map((e) => e.text))
  }

  const remove = (gone: ReadonlyArray<string>) => {
    words.remove(gone)
    for (const id of gone) {
      const p = position.get(id)
      if (p === undefined) continue
      const moved = index.removeRow(p)
      position.delete(id)
      metas.delete(id)
      const last = ids.pop()!
      if (moved !== -1) {
        ids[p] = last
        position.set(last, p)
      }
    }
  }

  const topN = (query: Float32Array, n: number): ReadonlyArray<Hit> => {
    const r = index.search(query, 1, n, "cosine")
    const out: Array<Hit> = []
    for (let i = 0; i < r.indices.length; i++) {
      const p = r.indices[i]
      if (p >= 0) out.push({ id: ids[p], similarity: r.scores[i] })
    }
    return out
  }

  const search = (query: Float32Array, n: number, allowed?: ReadonlySet<string>): ReadonlyArray<Hit> => {
    const size = ids.length
    if (size === 0 || n < 1) return []
    if (allowed === undefined) return topN(query, Math.min(n, size))
    if (allowed.size === 0) return []
    // few allowed rows: score them directly (O(allowed × dim)); else over-fetch from the index, growing 4× a round
    if (allowed.size * 8 <= size) {
      const hits: Array<Hit & { p: number }> = []
      const m = index.matrix
      for (const id of allowed) {
        const p = position.get(id)
        if (p !== undefined) hits.push({ id, p, similarity: cosine(query, rowOf(m, p)) })
      }
      hits.sort((a, b) => b.similarity - a.similarity || a.p - b.p)
      return hits.slice(0, n).map(({ id, similarity }) => ({ id, similarity }))
    }
    let fetch = Math.min(size, Math.ceil((n * size) / allowed.size * 1.5))
    for (;;) {
      const hits = topN(query, fetch).filter((h) => allowed.has(h.id))
      if (hits.length >= n || fetch === size) return hits.slice(0, n)
      fetch = Math.min(size, fetch * 4)
    }
  }

  return {
    get size() {
      return ids.length
    },
    backend: index.backend,
    add,
    update: (id, meta) => {
      const m = metas.get(id)
      if (m !== undefined) metas.set(id, { ...m, ...meta })
    },
    remove,
    meta: (id) => metas.get(id),
    embedding: (id) => {
      const p = position.get(id)
      return p === undefined ? undefined : rowOf(index.matrix, p).slice()
    },
    lexical: (text, n, allowed) => words.search(text, n, allowed),
    search,
    similarities: (query, of) => {
      const m = index.matrix
      return of.map((id) => {
        const p = position.get(id)
        return p === undefined ? undefined : cosine(query, rowOf(m, p))
      })
    },
    dispose: () => index.dispose()
  }
}

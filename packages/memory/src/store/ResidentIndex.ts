/**
 * The embedded store's resident vector index: every record's embedding held in memory in a kernels
 * `TopKIndex` (WebAssembly SIMD, exact int16 pre-filter then float32 rescoring; typed arrays where SIMD is missing),
 * addressed by record id. Exact cosine top-n, no approximation: the same candidates as scoring every record.
 *
 * **Why**: a PGlite store belongs to one process (the directory lock), so every write passes through this process's
 * store and an in-memory mirror of the embeddings stays exact. Searching it costs one pass over int16 rows
 * (~3 ms at 100k × 256 on one core) where pgvector's HNSW inside PGlite (WebAssembly, no SIMD) took ~20 ms per
 * query and ~4 ms per insert (graph maintenance); inserts only append a row.
 *
 * **Details**
 * - Built when the store opens, from the stored float32 copies (`embedding bytea`), read in pages of
 *   {@link LOAD_PAGE} rows by id; memory `records × (6 dim + 12)` bytes plus the ids.
 * - The store calls {@link ResidentIndex.add} after an insert commits and {@link ResidentIndex.remove} after a delete
 *   commits; a query racing a write may miss a row inserted a moment ago or name one just deleted (the store skips
 *   ids it cannot read back), never a wrong score.
 * - {@link ResidentIndex.search} with a set of allowed ids (a filtered query) over-fetches from the index until `n`
 *   allowed rows are found (or all rows were ranked), or scores the allowed rows directly when they are few: exact in
 *   both cases.
 *
 * @since 0.2.0
 */
import { TopKIndex } from "@autodidact/kernels"
import { cosine } from "./Retrieval.js"

/** Rows read per page while building the index at open. */
export const LOAD_PAGE = 5000

/** A ranked vector candidate: record id and cosine similarity in `[-1, 1]`. */
export interface Hit {
  readonly id: string
  readonly similarity: number
}

/** An id-addressed exact cosine index over the store's embeddings. */
export interface ResidentIndex {
  /** Records held. */
  readonly size: number
  /** `"wasm-simd"` or `"typed-array"` (kernels `TopKIndex`). */
  readonly backend: string
  /** Add committed records (ids not held yet; an id already held is ignored). */
  readonly add: (ids: ReadonlyArray<string>, embeddings: ReadonlyArray<Float32Array>) => void
  /** Remove committed deletions (unknown ids are ignored). */
  readonly remove: (ids: ReadonlyArray<string>) => void
  /**
   * The `n` most cosine-similar records to `query` (best first; ties by position), among `allowed` when given
   * (a filtered query).
   */
  readonly search: (query: Float32Array, n: number, allowed?: ReadonlySet<string>) => ReadonlyArray<Hit>
  /** Cosine similarity of `query` with a held record, `undefined` for an id not held. */
  readonly similarity: (query: Float32Array, id: string) => number | undefined
  /** Free the memory. */
  readonly dispose: () => void
}

/** An empty index of `dim`-dimensional embeddings. */
export const make = (dim: number, capacity = 1024): ResidentIndex => {
  const index = TopKIndex.make(dim, { capacity })
  const ids: Array<string> = []
  const position = new Map<string, number>()
  const rowOf = (p: number) => index.matrix.subarray(p * dim, (p + 1) * dim)

  const add = (newIds: ReadonlyArray<string>, embeddings: ReadonlyArray<Float32Array>) => {
    const keep: Array<number> = []
    for (let i = 0; i < newIds.length; i++) if (!position.has(newIds[i])) keep.push(i)
    if (keep.length === 0) return
    const rows = new Float32Array(keep.length * dim)
    keep.forEach((i, j) => {
      rows.set(embeddings[i], j * dim)
      position.set(newIds[i], ids.length)
      ids.push(newIds[i])
    })
    index.append(rows, keep.length)
  }

  const remove = (gone: ReadonlyArray<string>) => {
    for (const id of gone) {
      const p = position.get(id)
      if (p === undefined) continue
      const moved = index.removeRow(p)
      position.delete(id)
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
        if (p !== undefined) hits.push({ id, p, similarity: cosine(query, m.subarray(p * dim, (p + 1) * dim)) })
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
    remove,
    search,
    similarity: (query, id) => {
      const p = position.get(id)
      return p === undefined ? undefined : cosine(query, rowOf(p))
    },
    dispose: () => index.dispose()
  }
}

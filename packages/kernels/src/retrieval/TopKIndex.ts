/**
 * A growing exact top-k index: `[numRows, dim]` embedding rows held in memory, appended and removed as the set they
 * mirror changes, searched by dot product or cosine similarity (the same contract as `TopK.topKSync`).
 *
 * **Details**
 * - {@link make} returns the `wasm-simd` resident index (`WasmSimd.makeTopKIndex`: the rows in the module's memory,
 *   an exact int8 pre-filter by default — half the memory traffic of int16, ~2× faster at 100k × 256 — then float32
 *   rescoring) when WebAssembly SIMD is available, else a typed-array index
 *   (a Float32Array with doubling capacity, cached row norms, `TopK.topKSync`). Both give the reference's indices;
 *   `backend` says which one was chosen.
 * - Rows are addressed by position `0 … numRows − 1`; {@link TopKIndex.removeRow} moves the last row into the hole
 *   and returns its old position, so a caller keeping ids by position updates one entry per removal (O(dim)).
 * - Bad input fails with `KernelInputError` (wrong lengths, a position out of range, `k` outside `[1, numRows]`,
 *   non-finite values met by a search, named by row and element).
 *
 * @example
 * ```ts
 * import { TopKIndex } from "@autodidact/kernels"
 * const index = TopKIndex.make(2)
 * index.append([1, 0, 0, 1, 0.6, 0.8], 3)
 * index.search([1, 0], 1, 2, "cosine").indices // Int32Array [0, 2]
 * index.removeRow(0) // 2: row 2 now sits at position 0
 * ```
 * @since 0.2.0
 */
import type { Site } from "../KernelError.js"
import { checkShape, checkSize, fail } from "../KernelError.js"
import { load } from "../wasm/Module.js"
import * as WasmTopK from "../wasm/TopK.js"
import * as TopK from "./TopK.js"

/** The index (both backends). See `WasmSimd.TopKIndex` for each member's contract. */
export type TopKIndex = WasmTopK.TopKIndex & {
  /** `"wasm-simd"` or `"typed-array"`. */
  readonly backend: string
}

/** Options of {@link make}. */
export interface MakeOptions {
  /** Rows to reserve room for up front (≥ 0; default 1024). */
  readonly capacity?: number | undefined
  /** Force the typed-array index even where WebAssembly SIMD is available (tests, comparisons). */
  readonly backend?: "auto" | "typed-array" | undefined
  /** The wasm-simd pre-filter's row copy (see `WasmSimd.makeTopKIndex`; default `"int8"`). */
  readonly prefilter?: "int16" | "int8" | undefined
}

/**
 * An empty index of `dim`-dimensional rows (`dim` a positive integer; `options.capacity` ≥ 0 rows reserved, default
 * 1024, growing by doubling). Rows go in with `append(rows, count)` (`[count, dim]` row-major) and are searched with
 * `search(queries, numQueries, k, metric)` (exact, same contract as `TopK.topKSync`). Fails with `KernelInputError`
 * on a bad `dim` or capacity (and, later, on the bad inputs listed in the module docs).
 */
export const make = (dim: number, options: MakeOptions = {}): TopKIndex => {
  const capacity = options.capacity ?? 1024
  if (options.backend !== "typed-array" && load().ok) {
    const index = WasmTopK.makeTopKIndex([], 0, dim, { capacity, prefilter: options.prefilter ?? "int8" })
    return Object.defineProperties(index, { backend: { value: "wasm-simd", enumerable: true } }) as TopKIndex
  }
  return typedArrayIndex(dim, capacity)
}

const typedArrayIndex = (D: number, requested: number): TopKIndex => {
  const site: Site = { kernel: TopK.kernelName, backend: "typed-array" }
  checkSize(site, "dim", D)
  checkSize(site, "capacity", requested, true)
  let cap = Math.max(1, requested)
  let rows = new Float32Array(cap * D)
  let norms = new Float64Array(cap)
  let M = 0
  let disposed = false
  const live = () => {
    if (disposed) throw new Error("TopKIndex used after dispose()")
  }
  return {
    backend: "typed-array",
    dim: D,
    prefiltered: false,
    get numRows() {
      return M
    },
    get capacity() {
      return cap
    },
    get matrix() {
      live()
      return rows.subarray(0, M * D)
    },
    append: (x, count) => {
      live()
      checkSize(site, "count", count, true)
      checkShape(site, "rows", x, [count, D])
      if (M + count > cap) {
        cap = Math.max(M + count, 2 * cap)
        const r = new Float32Array(cap * D)
        r.set(rows.subarray(0, M * D))
        rows = r
        const n = new Float64Array(cap)
        n.set(norms.subarray(0, M))
        norms = n
      }
      rows.set(x as ArrayLike<number>, M * D)
      norms.set(TopK.rowNorms(rows.subarray(M * D, (M + count) * D), count, D), M)
      M += count
    },
    removeRow: (row) => {
      live()
      if (!Number.isInteger(row) || row < 0 || row >= M) {
        fail(site, "row", "range", String(row), `expected an integer in [0, ${M - 1}]`)
      }
      const last = M - 1
      if (row !== last) {
        rows.copyWithin(row * D, last * D, (last + 1) * D)
        norms[row] = norms[last]!
      }
      M = last
      return row === last ? -1 : last
    },
    search: (queries, numQueries, k, metric) => {
      live()
      return TopK.topKSync({
        queries,
        matrix: rows.subarray(0, M * D),
        numQueries,
        numRows: M,
        dim: D,
        k,
        metric,
        rowNorms: norms.subarray(0, M)
      })
    },
    refresh: () => {
      live()
      norms.set(TopK.rowNorms(rows, M, D))
    },
    dispose: () => {
      disposed = true
    }
  }
}

/**
 * The `wasm-simd` exact top-k (dot product / cosine) and the resident top-k index with its exact int16 pre-filter.
 * @since 0.1.0
 */
import type { Site } from "../KernelError.js"
import { checkShape, checkSize, fail } from "../KernelError.js"
import * as TopK from "../retrieval/TopK.js"
import { BACKEND_NAME, BASE, align, alloc, commit, put, reserve, reset, residentEnd, type Exports, wasm } from "./Module.js"

const sortHeaps = (hs: Float32Array, hsOff: number, hi: Int32Array, hiOff: number, Q: number, k: number): TopK.TopKResult => {
  const indices = new Int32Array(Q * k)
  const scores = new Float32Array(Q * k)
  const order = Array.from({ length: k }, (_, i) => i)
  for (let q = 0; q < Q; q++) {
    const s = hsOff + q * k
    const x = hiOff + q * k
    order.sort((a, b) => hs[s + b]! - hs[s + a]! || hi[x + a]! - hi[x + b]!)
    for (let i = 0; i < k; i++) {
      indices[q * k + i] = hi[x + order[i]!]!
      scores[q * k + i] = hs[s + order[i]!]!
    }
    for (let i = 0; i < k; i++) order[i] = i
  }
  return { indices, scores }
}

/** The matrix's byte offset when it is a view onto this module's memory (no copy needed). */
const residentOffset = (w: Exports, m: unknown): number | undefined =>
  m instanceof Float32Array && m.buffer === w.memory.buffer && m.byteOffset >= BASE && m.byteOffset + m.byteLength <= residentEnd() ? m.byteOffset : undefined

const topKCore = (w: Exports, input: TopK.TopKInput, site: Site, matrixAt: number | undefined, invRowAt: number | undefined): TopK.TopKResult => {
  const { numQueries: Q, numRows: M, dim: D, k } = input
  const cosine = input.metric === "cosine"
  reset()
  const pq = alloc(4 * Q * D)
  const pm = matrixAt ?? alloc(4 * M * D)
  const pinvQ = alloc(4 * Q)
  const pinvRow = cosine ? invRowAt ?? alloc(4 * M) : 0
  const phs = alloc(4 * Q * k)
  const phi = alloc(4 * Q * k)
  const v = commit(w)
  put(v, pq, input.queries)
  if (matrixAt === undefined) put(v, pm, input.matrix)
  if (cosine) {
    w.inverseNorms(pq, Q, D, pinvQ)
    if (invRowAt === undefined) {
      if (input.rowNorms !== undefined) {
        const o = pinvRow >> 2
        const rn = input.rowNorms
        for (let j = 0; j < M; j++) v.f32[o + j] = rn[j]! > 0 ? 1 / rn[j]! : 0
      } else w.inverseNorms(pm, M, D, pinvRow)
    }
  }
  v.f32.fill(-Infinity, phs >> 2, (phs >> 2) + Q * k)
  v.i32.fill(-1, phi >> 2, (phi >> 2) + Q * k)
  const blockRows = Math.max(2, Math.floor(TopK.BLOCK_BYTES / (4 * D)))
  const ok = w.topK(pq, pm, Q, M, D, k, pinvQ, pinvRow, phs, phi, blockRows)
  if (ok === 0) TopK.reportNonFinite(site, input, w.topKBadQuery(), w.topKBadRow())
  return sortHeaps(v.f32, phs >> 2, v.i32, phi >> 2, Q, k)
}

/** Rows per streamed chunk: about 1 MiB of float32 rows (stays in cache between the copy and the kernel). */
const chunkRowsOf = (D: number): number => Math.max(8, Math.floor((1 << 20) / (4 * D)))

/**
 * Top-k over a matrix that is not resident: the rows are streamed through a cache-sized scratch chunk (copy a chunk,
 * run the kernel on it with fresh heaps, merge its k best per query into the running k best by score, then lower row
 * index). Each row's score is the same float32 dot product as in one call over the whole matrix, and a chunk's heap
 * keeps its k best exactly (ties: lower row first), so the result equals {@link topKCore}'s; the matrix is read once
 * from memory instead of being copied whole and read again.
 */
const topKStreamed = (w: Exports, input: TopK.TopKInput, site: Site): TopK.TopKResult => {
  const { numQueries: Q, numRows: M, dim: D, k } = input
  const cosine = input.metric === "cosine"
  const chunk = Math.min(M, chunkRowsOf(D))
  const kc = Math.min(k, chunk)
  reset()
  const pq = alloc(4 * Q * D)
  const pinvQ = alloc(4 * Q)
  const pm = alloc(4 * chunk * D)
  const pinvRow = cosine ? alloc(4 * chunk) : 0
  const phs = alloc(4 * Q * kc)
  const phi = alloc(4 * Q * kc)
  let v = commit(w)
  put(v, pq, input.queries)
  if (cosine) w.inverseNorms(pq, Q, D, pinvQ)
  const bestS = new Float32Array(Q * k).fill(-Infinity)
  const bestI = new Int32Array(Q * k).fill(-1)
  const blockRows = Math.max(2, Math.floor(TopK.BLOCK_BYTES / (4 * D)))
  const matrix = input.matrix
  const dense = matrix instanceof Float32Array
  for (let start = 0; start < M; start += chunk) {
    const rows = Math.min(chunk, M - start)
    const kk = Math.min(kc, rows)
    v = commit(w) // the views (the memory does not grow inside this loop; cheap)
    if (dense) v.f32.set((matrix as Float32Array).subarray(start * D, (start + rows) * D), pm >> 2)
    else {
      const o = pm >> 2
      for (let x = 0; x < rows * D; x++) v.f32[o + x] = matrix[start * D + x]!
    }
    if (cosine) {
      if (input.rowNorms !== undefined) {
        const o = pinvRow >> 2
        const rn = input.rowNorms
        for (let j = 0; j < rows; j++) v.f32[o + j] = rn[start + j]! > 0 ? 1 / rn[start + j]! : 0
      } else w.inverseNorms(pm, rows, D, pinvRow)
    }
    v.f32.fill(-Infinity, phs >> 2, (phs >> 2) + Q * kk)
    v.i32.fill(-1, phi >> 2, (phi >> 2) + Q * kk)
    const ok = w.topK(pq, pm, Q, rows, D, kk, pinvQ, pinvRow, phs, phi, blockRows)
    if (ok === 0) TopK.reportNonFinite(site, input, w.topKBadQuery(), start + w.topKBadRow())
    // merge: insert each of the chunk's entries into the query's running k best (sorted: score desc, index asc)
    for (let q = 0; q < Q; q++) {
      const base = q * k
      for (let e = 0; e < kk; e++) {
        const idx = v.i32[(phi >> 2) + q * kk + e]!
        if (idx < 0) continue
        const sc = v.f32[(phs >> 2) + q * kk + e]!
        const j = start + idx
        const worst = bestS[base + k - 1]!
        const worstI = bestI[base + k - 1]!
        if (!(sc > worst || (sc === worst && (worstI === -1 || j < worstI)))) continue
        let p = k - 1
        while (p > 0 && (sc > bestS[base + p - 1]! || (sc === bestS[base + p - 1]! && (bestI[base + p - 1]! === -1 || j < bestI[base + p - 1]!)))) {
          bestS[base + p] = bestS[base + p - 1]!
          bestI[base + p] = bestI[base + p - 1]!
          p--
        }
        bestS[base + p] = sc
        bestI[base + p] = j
      }
    }
  }
  return { indices: bestI, scores: bestS }
}

/**
 * Exact top-k (same contract as `TopK.topKSync`; float32 dot products). A matrix that is the `matrix` view of a
 * {@link makeTopKIndex} index is searched in place; any other is streamed through a cache-sized chunk (read once,
 * never copied whole).
 */
export const topK = (input: TopK.TopKInput): TopK.TopKResult => {
  const w = wasm()
  const site = TopK.validate(input, BACKEND_NAME)
  const resident = residentOffset(w, input.matrix)
  return resident === undefined ? topKStreamed(w, input, site) : topKCore(w, input, site, resident, undefined)
}

/**
 * An embedding matrix kept in the module's memory (copied once), searched without copying it again. Rows can be
 * appended (the capacity grows geometrically) and removed (the last row moves into the hole), so the index can
 * mirror a changing set of embeddings (as the experience store's resident index does).
 */
export interface TopKIndex {
  /** Rows held now (changes with {@link TopKIndex.append} and {@link TopKIndex.removeRow}). */
  readonly numRows: number
  /** Rows the current region holds before the next growth. */
  readonly capacity: number
  readonly dim: number
  /**
   * A view onto the resident float32 matrix `[numRows, dim]` (a fresh view on each access: the memory may have
   * grown). Read it freely; after writing through it call {@link TopKIndex.refresh} (the int16 copy and the cosine
   * norms are derived from it).
   */
  readonly matrix: Float32Array
  /** Exact top-k of `[numQueries, dim]` queries against the resident matrix (same contract as `TopK.topKSync`). */
  readonly search: (queries: ArrayLike<number>, numQueries: number, k: number, metric: "dot" | "cosine") => TopK.TopKResult
  /**
   * Append `count` rows (`[count, dim]` row-major) as rows `numRows … numRows + count − 1`; only the new rows are
   * quantized and normed. Non-finite values are accepted (a search then names them, as for the initial matrix) but
   * turn the int16 pre-filter off until {@link TopKIndex.refresh}. Fails with `KernelInputError` on a wrong length.
   */
  readonly append: (rows: ArrayLike<number>, count: number) => void
  /**
   * Remove row `row` (0 ≤ row < numRows) by moving the last row into its place (O(dim)): returns the index the moved
   * row had (`numRows − 1` before the call), or −1 when `row` was the last one. Fails with `KernelInputError` on an
   * index out of range.
   */
  readonly removeRow: (row: number) => number
  /** Re-derive the int16 copy and the cosine norms after editing `matrix`. */
  readonly refresh: () => void
  /** Release the memory (reused once every index above it is released too). */
  readonly dispose: () => void
  /** Whether searches use the int16 pre-filter (dim ≤ 2048 and a finite matrix), else the float32 kernel alone. */
  readonly prefiltered: boolean
}

/** Largest dimension of the int16 pre-filter (each int32 lane accumulates dim/4 products of ≤ 2047²). */
export const PREFILTER_MAX_DIM = 2048

/**
 * Copy `[numRows, dim]` rows into the module's memory once: a {@link TopKIndex}. Besides the float32 rows it keeps an
 * int16 copy (per-row scale `max|m_j| / 2047`) for a two-pass exact search: pass 1 scores every row with int16 dot
 * products (`i32x4.dot_i16x8_s`: 8 multiply-adds per instruction, half the memory traffic) and keeps, per query, the
 * rows whose rigorous upper bound (quantization error `(s_j/2)‖q‖₁ + (s_q/2)‖m_j‖₁ + dim·s_q·s_j/4` plus float32
 * rounding slack) reaches the k-th best lower bound; pass 2 rescores those candidates with the float32 kernel. The
 * result is the same as the float32 kernel's (the bound guarantees no true top-k row is dropped); a query with more
 * than `max(4096, 16k)` candidates (many near-equal scores) falls back to the float32 kernel.
 *
 * `numRows` may be 0 (an empty index to {@link TopKIndex.append} to; search needs `1 ≤ k ≤ numRows`);
 * `options.capacity` (≥ numRows) reserves room for that many rows up front. Memory: `capacity × (4 dim + 2 dim + 12)`
 * bytes (float32 rows, int16 rows, norms, scales, L1 norms); growth doubles the capacity, in place when this index is
 * the topmost resident region.
 */
export const makeTopKIndex = (
  matrix: ArrayLike<number>,
  numRows: number,
  dim: number,
  options?: {
    readonly capacity?: number | undefined
    /**
     * The pre-filter's row copy: `"int16"` (default; scale `max|m_j| / 2047`, `2 dim` bytes a row) or `"int8"` (scale
     * `max|m_j| / 127`, `dim` bytes a row: pass 1 reads half the memory, the looser bound sends more rows to the
     * float32 rescoring; the same exact results). Queries are quantized to int16 either way.
     */
    readonly prefilter?: "int16" | "int8" | undefined
  }
): TopKIndex => {
  const w = wasm()
  const site: Site = { kernel: TopK.kernelName, backend: BACKEND_NAME }
  checkSize(site, "numRows", numRows, true)
  checkSize(site, "dim", dim)
  checkShape(site, "matrix", matrix, [numRows, dim])
  const D = dim
  const int8 = options?.prefilter === "int8"
  if (options?.prefilter !== undefined && options.prefilter !== "int16" && !int8) {
    fail(site, "prefilter", "range", String(options.prefilter), `expected "int16" or "int8"`)
  }
  const Dp = int8 ? (D + 15) & ~15 : (D + 7) & ~7
  /** Bytes of one quantized row. */
  const qRow = int8 ? Dp : 2 * Dp
  const quantize = int8 ? w.quantizeRows8.bind(w) : w.quantizeRows.bind(w)
  const candidates = int8 ? w.topKCandidates8.bind(w) : w.topKCandidates.bind(w)
  const usePrefilter = D <= PREFILTER_MAX_DIM
  const layout = (cap: number) => {
    const inv = align(4 * cap * D)
    const q = inv + align(4 * cap)
    const scale = q + (usePrefilter ? align(qRow * cap) : 0)
    const l1 = scale + (usePrefilter ? align(4 * cap) : 0)
    return { inv, q, scale, l1, bytes: l1 + (usePrefilter ? align(4 * cap) : 0) }
  }
  const requested = options?.capacity ?? numRows
  checkSize(site, "capacity", requested, true)
  if (requested < numRows) fail(site, "capacity", "range", String(requested), `expected at least numRows (${numRows})`)
  let M = numRows
  let cap = Math.max(1, requested)
  let lay = layout(cap)
  let region = reserve(w, lay.bytes)
  let offset = region.offset
  put(commit(w), offset, matrix)
  let normsValid = false
  let quantized = false
  const derive = () => {
    normsValid = false
    quantized = usePrefilter && (M === 0 || quantize(offset, M, D, Dp, offset + lay.q, offset + lay.scale, offset + lay.l1) !== 0)
  }
  derive()
  const view = (): Float32Array => new Float32Array(w.memory.buffer, offset, M * D)
  const live = () => {
    if (!region.live()) throw new Error("TopKIndex used after dispose()")
  }
  /** Move the four derived sections (and keep the float32 rows) from layout `from` at `src` to `to` at `dst`. */
  const moveSections = (src: number, from: ReturnType<typeof layout>, dst: number, to: ReturnType<typeof layout>) => {
    const u8 = new Uint8Array(w.memory.buffer)
    // highest section first: every section moves up (or stays), so no source is overwritten before it is read
    const sections: Array<[number, number, number]> = usePrefilter
      ? [[from.l1, to.l1, 4 * M], [from.scale, to.scale, 4 * M], [from.q, to.q, qRow * M], [from.inv, to.inv, 4 * M]]
      : [[from.inv, to.inv, 4 * M]]
    for (const [a, b, n] of sections) u8.copyWithin(dst + b, src + a, src + a + n)
    if (src !== dst) u8.copyWithin(dst, src, src + 4 * M * D)
  }
  const grow = (need: number) => {
    const next = Math.max(need, 2 * cap)
    const to = layout(next)
    if (region.resize(to.bytes)) moveSections(offset, lay, offset, to)
    else {
      const fresh = reserve(w, to.bytes)
      moveSections(offset, lay, fresh.offset, to)
      region.release()
      region = fresh
      offset = fresh.offset
    }
    cap = next
    lay = to
  }
  const append = (rows: ArrayLike<number>, count: number) => {
    live()
    checkSize(site, "count", count, true)
    checkShape(site, "rows", rows, [count, D])
    if (count === 0) return
    if (M + count > cap) grow(M + count)
    const at = offset + 4 * M * D
    put(commit(w), at, rows)
    if (quantized) {
      quantized = quantize(at, count, D, Dp, offset + lay.q + qRow * M, offset + lay.scale + 4 * M, offset + lay.l1 + 4 * M) !== 0
    }
    if (normsValid) w.inverseNorms(at, count, D, offset + lay.inv + 4 * M)
    M += count
  }
  const removeRow = (row: number): number => {
    live()
    if (!Number.isInteger(row) || row < 0 || row >= M) {
      fail(site, "row", "range", String(row), `expected an integer in [0, ${M - 1}]`)
    }
    const last = M - 1
    if (row !== last) {
      const u8 = new Uint8Array(w.memory.buffer)
      const move = (section: number, bytesPerRow: number) =>
        u8.copyWithin(offset + section + row * bytesPerRow, offset + section + last * bytesPerRow, offset + section + (last + 1) * bytesPerRow)
      move(0, 4 * D)
      move(lay.inv, 4)
      if (usePrefilter) {
        move(lay.q, qRow)
        move(lay.scale, 4)
        move(lay.l1, 4)
      }
    }
    M = last
    return row === last ? -1 : last
  }
  const search = (queries: ArrayLike<number>, Q: number, k: number, metric: "dot" | "cosine"): TopK.TopKResult => {
    live()
    const input: TopK.TopKInput = { queries, matrix: view(), numQueries: Q, numRows: M, dim: D, k, metric }
    const s = TopK.validate(input, BACKEND_NAME)
    const invAt = offset + lay.inv
    const qAt = offset + lay.q
    const scaleAt = offset + lay.scale
    const l1At = offset + lay.l1
    const cosine = metric === "cosine"
    if (cosine && !normsValid) {
      w.inverseNorms(offset, M, D, invAt)
      normsValid = true
    }
    if (!quantized) return topKCore(w, input, s, offset, cosine ? invAt : undefined)
    const C = Math.min(M, Math.max(4096, 16 * k))
    reset()
    const pq = alloc(4 * Q * D)
    const pinvQ = alloc(4 * Q)
    const pqq = alloc(2 * Q * Dp)
    const pqs = alloc(4 * Q)
    const pql1 = alloc(4 * Q)
    const plowS = alloc(4 * Q * k)
    const plowI = alloc(4 * Q * k)
    const proots = alloc(4 * Q)
    const pcand = alloc(4 * Q * C)
    const pcandU = alloc(4 * Q * C)
    const pcount = alloc(4 * Q)
    const phs = alloc(4 * Q * k)
    const phi = alloc(4 * Q * k)
    const vv = commit(w)
    put(vv, pq, queries)
    // non-finite queries: the float32 kernel names the element
    if (w.quantizeRows(pq, Q, D, Dp, pqq, pqs, pql1) === 0) return topKCore(w, input, s, offset, cosine ? invAt : undefined)
    if (cosine) w.inverseNorms(pq, Q, D, pinvQ)
    vv.f32.fill(-Infinity, plowS >> 2, (plowS >> 2) + Q * k)
    vv.i32.fill(-1, plowI >> 2, (plowI >> 2) + Q * k)
    vv.f32.fill(-Infinity, proots >> 2, (proots >> 2) + Q)
    vv.i32.fill(0, pcount >> 2, (pcount >> 2) + Q)
    const blockRows = Math.max(4, Math.floor(TopK.BLOCK_BYTES / qRow))
    const invRow = cosine ? invAt : 0
    if (candidates(pqq, pqs, pql1, qAt, scaleAt, l1At, Q, M, D, Dp, k, pinvQ, invRow, plowS, plowI, proots, pcand, pcandU, pcount, C, blockRows) === 0) {
      return topKCore(w, input, s, offset, cosine ? invAt : undefined) // too many near-ties: the float32 kernel
    }
    vv.f32.fill(-Infinity, phs >> 2, (phs >> 2) + Q * k)
    vv.i32.fill(-1, phi >> 2, (phi >> 2) + Q * k)
    if (w.topKRescore(pq, offset, Q, D, k, pinvQ, invRow, plowS, pcand, pcandU, pcount, C, phs, phi) === 0) {
      TopK.reportNonFinite(s, input, w.topKBadQuery(), w.topKBadRow())
    }
    return sortHeaps(vv.f32, phs >> 2, vv.i32, phi >> 2, Q, k)
  }
  return {
    get numRows() {
      return M
    },
    get capacity() {
      return cap
    },
    dim,
    get matrix() {
      live()
      return view()
    },
    get prefiltered() {
      return quantized
    },
    search,
    append,
    removeRow,
    refresh: () => {
      live()
      derive()
    },
    dispose: () => region.release()
  }
}

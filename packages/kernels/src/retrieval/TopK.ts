/**
 * Exact top-k retrieval: the k best rows of an embedding matrix `[numRows, dim]` for each query of a batch
 * `[numQueries, dim]`, by dot product or cosine similarity.
 *
 * **Details**
 * - {@link topKSync} is blocked for the cache: the matrix is walked in blocks of ~{@link BLOCK_BYTES} bytes of rows;
 *   every query of the batch is scored against a block while it is in cache, and each query keeps a size-k min-heap,
 *   so a row is read from memory once per call whatever the batch size. Dot products accumulate in doubles, 4-way
 *   unrolled; no allocation inside the loops.
 * - Results are sorted best first; equal scores are ordered by lower row index (the heap never replaces an entry by
 *   an equal score from a later row).
 * - Cosine: `q·m / (‖q‖ ‖m‖)`; a zero vector has similarity 0 with everything. Pass `rowNorms` (‖m_j‖, e.g. computed
 *   once with {@link rowNorms}) to skip the norm pass over the matrix on every call.
 * - NaN/±Infinity anywhere in a query or a row makes that score non-finite, which is detected per score (not per
 *   element, so it costs nothing) and reported as {@link KernelInputError} naming the row/query and element.
 * - {@link topKTf}: `tf.matMul(queries, matrix, false, true)` then `tf.topk`; on wasm this is XNNPACK's SIMD GEMM.
 *
 * @example
 * ```ts
 * import { TopK } from "@autodidact/kernels"
 * const r = TopK.topKSync({ queries: [1, 0], matrix: [0, 1, 1, 0, 0.5, 0.5], numQueries: 1, numRows: 3, dim: 2, k: 2, metric: "cosine" })
 * // r.indices = [1, 2]
 * ```
 * @since 0.1.0
 */
import type { Effect } from "effect"
import type { NumArray } from "../NumArray.js"
import type { KernelInputError, Site } from "../KernelError.js"
import { checkFinite, checkShape, checkSize, fail, REFERENCE, shapeString } from "../KernelError.js"
import type { Builtin, Dispatched, RunOptions } from "../engines/KernelRegistry.js"
import * as KernelRegistry from "../engines/KernelRegistry.js"

export const kernelName = "TopK"

/** Bytes of matrix rows scored per block (fits in a typical 256 KiB–1 MiB L2 with the queries). */
export const BLOCK_BYTES = 96 * 1024

/** A query batch against an embedding matrix. */
export interface TopKInput {
  /** `[numQueries, dim]` row-major. */
  readonly queries: NumArray
  /** `[numRows, dim]` row-major. */
  readonly matrix: NumArray
  readonly numQueries: number
  readonly numRows: number
  readonly dim: number
  /** 1 ≤ k ≤ numRows. */
  readonly k: number
  readonly metric: "dot" | "cosine"
  /** Optional `[numRows]` precomputed row norms ‖m_j‖ (cosine only). */
  readonly rowNorms?: NumArray | undefined
}

/** `[numQueries, k]` row indices and scores, best first. */
export interface TopKResult {
  readonly indices: Int32Array
  readonly scores: Float32Array
}

/** Validate sizes, shapes, k, the metric and `rowNorms` (not the finiteness of queries/matrix); returns the error site. */
export const validate = (input: TopKInput, backend: string): Site => {
  const site: Site = { kernel: `${kernelName}.${input.metric}`, backend }
  checkSize(site, "numQueries", input.numQueries)
  checkSize(site, "numRows", input.numRows)
  checkSize(site, "dim", input.dim)
  checkShape(site, "queries", input.queries, [input.numQueries, input.dim])
  checkShape(site, "matrix", input.matrix, [input.numRows, input.dim])
  if (!(Number.isInteger(input.k) && input.k >= 1 && input.k <= input.numRows)) {
    fail(site, "k", "range", String(input.k), `expected an integer in [1, numRows = ${input.numRows}]`)
  }
  if (input.metric !== "dot" && input.metric !== "cosine") fail(site, "metric", "range", String(input.metric), "expected dot or cosine")
  if (input.rowNorms !== undefined) {
    checkShape(site, "rowNorms", input.rowNorms, [input.numRows])
    checkFinite(site, "rowNorms", input.rowNorms)
  }
  return site
}

/** Locate the non-finite element behind a non-finite score and throw. */
export const reportNonFinite = (site: Site, input: TopKInput, q: number, j: number): never => {
  const D = input.dim
  for (let d = 0; d < D; d++) {
    const v = input.queries[q * D + d]!
    if (v - v !== 0) fail(site, "queries", "non-finite", shapeString([input.numQueries, D]), `${v} at [${q}, ${d}]`)
  }
  for (let d = 0; d < D; d++) {
    const v = input.matrix[j * D + d]!
    if (v - v !== 0) fail(site, "matrix", "non-finite", shapeString([input.numRows, D]), `${v} at [${j}, ${d}]`)
  }
  return fail(site, "matrix", "non-finite", shapeString([input.numRows, D]), `score of query ${q} and row ${j} overflowed`)
}

/** `‖m_j‖` for every row of a `[numRows, dim]` matrix. */
export const rowNorms = (matrix: NumArray, numRows: number, dim: number): Float64Array => {
  const out = new Float64Array(numRows)
  for (let j = 0; j < numRows; j++) {
    let s = 0
    const off = j * dim
    for (let d = 0; d < dim; d++) {
      const v = matrix[off + d]!
      s += v * v
    }
    out[j] = Math.sqrt(s)
  }
  return out
}

/** Sift the root of the min-heap at `base` (size k, "min" = worst: lower score, then higher index) down. */
const siftDown = (hs: Float64Array, hi: Int32Array, base: number, k: number): void => {
  let i = 0
  const s = hs[base]!
  const ix = hi[base]!
  for (;;) {
    const l = 2 * i + 1
    if (l >= k) break
    let c = l
    const r = l + 1
    if (r < k) {
      const sl = hs[base + l]!
      const sr = hs[base + r]!
      if (sr < sl || (sr === sl && hi[base + r]! > hi[base + l]!)) c = r
    }
    const sc = hs[base + c]!
    if (sc < s || (sc === s && hi[base + c]! > ix)) {
      hs[base + i] = sc
      hi[base + i] = hi[base + c]!
      i = c
    } else break
  }
  hs[base + i] = s
  hi[base + i] = ix
}

/** Blocked exact top-k, typed-array reference (validates sizes; non-finite scores are typed errors). */
export const topKSync = (input: TopKInput): TopKResult => {
  const site = validate(input, REFERENCE)
  const { queries, matrix, numQueries: Q, numRows: M, dim: D, k } = input
  const cosine = input.metric === "cosine"
  // inverse norms (0 for a zero vector: similarity 0)
  let invRow: Float64Array | undefined
  const invQ = new Float64Array(Q).fill(1)
  if (cosine) {
    const norms = input.rowNorms ?? rowNorms(matrix, M, D)
    invRow = new Float64Array(M)
    for (let j = 0; j < M; j++) invRow[j] = norms[j]! > 0 ? 1 / norms[j]! : 0
    const qn = rowNorms(queries, Q, D)
    for (let q = 0; q < Q; q++) invQ[q] = qn[q]! > 0 ? 1 / qn[q]! : 0
  }
  // heaps: initialized with -Infinity so the first k rows always enter
  const hs = new Float64Array(Q * k).fill(-Infinity)
  const hi = new Int32Array(Q * k).fill(-1)
  const blockRows = Math.max(1, Math.floor(BLOCK_BYTES / (4 * D)))
  const D4 = D - (D % 4)
  for (let j0 = 0; j0 < M; j0 += blockRows) {
    const j1 = Math.min(M, j0 + blockRows)
    for (let q = 0; q < Q; q++) {
      const qo = q * D
      const base = q * k
      const scale = invQ[q]!
      for (let j = j0; j < j1; j++) {
        const mo = j * D
        let s0 = 0
        let s1 = 0
        let s2 = 0
        let s3 = 0
        let d = 0
        for (; d < D4; d += 4) {
          s0 += queries[qo + d]! * matrix[mo + d]!
          s1 += queries[qo + d + 1]! * matrix[mo + d + 1]!
          s2 += queries[qo + d + 2]! * matrix[mo + d + 2]!
          s3 += queries[qo + d + 3]! * matrix[mo + d + 3]!
        }
        for (; d < D; d++) s0 += queries[qo + d]! * matrix[mo + d]!
        let s = s0 + s1 + s2 + s3
        if (s - s !== 0) reportNonFinite(site, input, q, j)
        if (invRow !== undefined) s = s * scale * invRow[j]!
        if (s > hs[base]!) {
          hs[base] = s
          hi[base] = j
          siftDown(hs, hi, base, k)
        }
      }
    }
  }
  // sort each heap best first (score desc, index asc)
  const indices = new Int32Array(Q * k)
  const scores = new Float32Array(Q * k)
  const order = Array.from({ length: k }, (_, i) => i)
  for (let q = 0; q < Q; q++) {
    const base = q * k
    order.sort((a, b) => hs[base + b]! - hs[base + a]! || hi[base + a]! - hi[base + b]!)
    for (let i = 0; i < k; i++) {
      indices[base + i] = hi[base + order[i]!]!
      scores[base + i] = hs[base + order[i]!]!
    }
    for (let i = 0; i < k; i++) order[i] = i
  }
  return { indices, scores }
}

/** The built-in implementations (for {@link KernelRegistry}). */
export const builtin: Builtin<TopKInput, TopKResult> = { kernelName, reference: topKSync }

/**
 * Exact top-k rows by dot product or cosine: `[numQueries, dim]` queries against a `[numRows, dim]` matrix, `[numQueries, k]`
 * int32 row indices and float32 scores out, best first.
 * Dispatch: `KernelRegistry.run` — by default the engine that measured fastest for this kernel
 * (`KernelRegistry.defaultEngines`: onnxruntime while `OrtEngine.layer` is provided, else wasm-simd, else typed-array), TensorFlow.js on native `tensorflow`; `options.engine` overrides.
 * Fails with {@link KernelInputError} on bad input (never retried on another engine).
 */
export const topK = (input: TopKInput, options?: RunOptions): Effect.Effect<Dispatched<TopKResult>, KernelInputError> =>
  KernelRegistry.run(builtin, input, options)

/**
 * The vector index behind `SkillLibrary.retrieve`: one description vector per skill, kept in a single contiguous
 * `Float32Array` matrix `[capacity, dim]`, searched for the exact top-k by dot product with `@autodidact/kernels`'
 * resident WebAssembly SIMD index (`WasmSimd.makeTopKIndex`) or, without it, a typed-array scan with a size-k heap.
 *
 * **When to use**
 *
 * Through {@link SkillLibrary.SkillLibrary.retrieve}; use it directly for any name → vector top-k that must give the
 * same answer as a plain double-accumulating scan (`score = Σ_i v_i q_i` summed in doubles, ties by name).
 *
 * **Details**
 * - Storage: a row per name (`set` overwrites or appends, doubling the capacity; `delete` moves the last row into the
 *   hole), a name ↔ row map, and per-row norms ‖v‖ (doubles). The hot loops touch only typed arrays.
 * - Scores are exactly the reference's: the dot product of the stored float32 vector with the query, each product and
 *   the running sum in doubles, in index order (`s += v[i] * q[i]`). Order: score descending, then name ascending.
 *   `k ≤ 0` (or NaN) gives `[]`, `k ≥ size` gives everything, a fractional `k` is floored.
 * - Unfiltered search, kernel path: the resident index is (re)built lazily by the first search after a change (same
 *   row count: the rows are copied into the resident matrix and `refresh`ed; otherwise `dispose` + `makeTopKIndex`).
 *   The kernel scores in float32, so it is asked for `k' = max(2k, k + 16)` candidates; these are rescored in doubles
 *   and sorted. Any row the kernel did not return has a float32 score ≤ `t` (the k'-th candidate's), so its double
 *   score is at most `t + E`, with `E = (γ_D(2⁻²⁴) + γ_D(2⁻⁵³))·‖q‖·max_j‖v_j‖` (the standard dot-product error bound
 *   `|fl(x·y) − x·y| ≤ γ_D Σ|x_i y_i|` for any summation order, plus underflow slack, inflated 2%). If the k-th
 *   rescored candidate beats `t + E` strictly, the answer is provably the reference's; otherwise `k'` grows ×4
 *   (a "widening"), and when `k'` would reach the row count the scan answers.
 * - Filtered search (`accept(row)`): a scan of the accepted rows of the contiguous matrix (no kernel: the predicate
 *   is arbitrary JavaScript and may accept few rows, where over-fetching from the kernel would have no useful bound).
 * - Fallback: when WebAssembly SIMD is unavailable (`WasmSimd.load()` — an engine without it, or
 *   `AUTODIDACT_WASM_SIMD=0`, checked at every search), when `engine: "scan"` is set, or when the kernel throws (e.g.
 *   a non-finite vector), the scan answers; {@link SkillIndex.stats} counts which path ran.
 *
 * **Gotchas**
 * - The resident index lives in the kernels module's shared `WebAssembly.Memory`, which never shrinks; `dispose()`
 *   releases the region for reuse (immediately when it is the topmost resident region, else once those above it are
 *   released too). An index that is never disposed is released by a `FinalizationRegistry` when it is collected.
 * - A non-finite vector (never produced by memory's embedders) scores NaN, which ranks below every number.
 *
 * @example
 * ```ts
 * import { SkillIndex } from "@autodidact/skills"
 * const index = new SkillIndex.SkillIndex()
 * index.set("a", Float32Array.of(1, 0))
 * index.set("b", Float32Array.of(0.6, 0.8))
 * index.search(Float32Array.of(1, 0), 1) // [{ name: "a", score: 1 }]
 * index.dispose()
 * ```
 * @since 0.1.0
 */
import { WasmSimd } from "@autodidact/kernels"
import { Data } from "effect"

/** A vector whose length differs from the index's dimension, or an empty vector. */
export class SkillIndexDimensionError extends Data.TaggedError("SkillIndexDimensionError")<{
  readonly name: string
  readonly expected: number
  readonly got: number
}> {
  override get message() {
    return `vector for ${JSON.stringify(this.name)} has length ${this.got}, expected ${this.expected}`
  }
}

/** Index options. */
export interface IndexOptions {
  /** `"auto"` (default): the WebAssembly SIMD index for unfiltered searches when available; `"scan"`: always scan. */
  readonly engine?: "auto" | "scan"
}

/** A scored name. */
export interface Scored {
  readonly name: string
  readonly score: number
}

/** Counters of what ran (diagnostics and tests). */
export interface IndexStats {
  /** Searches answered through the resident kernel index. */
  kernelSearches: number
  /** Searches answered by the typed-array scan (filtered, fallback, or widened to every row). */
  scans: number
  /** Kernel searches that had to ask for more candidates because of near-ties within the float32 error bound. */
  widenings: number
  /** Resident indexes built (`makeTopKIndex`) and refreshed in place. */
  rebuilds: number
  refreshes: number
  /** Kernel calls that threw and were answered by the scan. */
  kernelFailures: number
}

/** What answered the last search. */
export type Engine = "wasm-simd" | "scan"

const U32 = 2 ** -24
const U64 = 2 ** -53
const gamma = (n: number, u: number) => (n * u) / (1 - n * u)

/** Resident kernel indexes of collected `SkillIndex`es are released here (the cell never references the owner). */
const registry = new FinalizationRegistry<{ index: WasmSimd.TopKIndex | undefined }>((cell) => {
  cell.index?.dispose()
  cell.index = undefined
})

/**
 * Name → vector top-k with the reference's exact scores and order.
 *
 * @category models
 * @since 0.1.0
 */
export class SkillIndex {
  private matrix = new Float32Array(0)
  private norms = new Float64Array(0)
  private readonly names: Array<string> = []
  private readonly rows = new Map<string, number>()
  private dim = 0
  private capacity = 0
  private readonly cell: { index: WasmSimd.TopKIndex | undefined } = { index: undefined }
  private dirty = true
  private maxNorm = 0
  // scan scratch (grown on demand, reused)
  private heapS = new Float64Array(0)
  private heapR = new Int32Array(0)
  readonly stats: IndexStats = { kernelSearches: 0, scans: 0, widenings: 0, rebuilds: 0, refreshes: 0, kernelFailures: 0 }
  lastEngine: Engine | undefined = undefined

  constructor(readonly options: IndexOptions = {}) {
    registry.register(this, this.cell, this)
  }

  /** Number of vectors. */
  get size(): number {
    return this.names.length
  }

  /** Vector length (0 until the first `set`). */
  get dimension(): number {
    return this.dim
  }

  /** Whether a resident kernel index is currently held. */
  get resident(): boolean {
    return this.cell.index !== undefined
  }

  has(name: string): boolean {
    return this.rows.has(name)
  }

  /** A copy of the stored vector. */
  get(name: string): Float32Array | undefined {
    const r = this.rows.get(name)
    return r === undefined ? undefined : this.matrix.slice(r * this.dim, (r + 1) * this.dim)
  }

  /** Insert or overwrite `name`'s vector (copied); throws {@link SkillIndexDimensionError} on a wrong length. */
  set(name: string, vector: ArrayLike<number>): void {
    if (vector.length === 0 || (this.dim !== 0 && vector.length !== this.dim)) {
      throw new SkillIndexDimensionError({ name, expected: this.dim === 0 ? 1 : this.dim, got: vector.length })
    }
    if (this.dim === 0) this.dim = vector.length
    const D = this.dim
    let r = this.rows.get(name)
    if (r === undefined) {
      r = this.names.length
      if (r === this.capacity) this.grow(Math.max(16, 2 * this.capacity))
      this.names.push(name)
      this.rows.set(name, r)
    }
    const off = r * D
    let n = 0
    for (let i = 0; i < D; i++) {
      const x = vector[i]!
      this.matrix[off + i] = x
      const y = this.matrix[off + i]!
      n += y * y
    }
    this.norms[r] = Math.sqrt(n)
    this.dirty = true
  }

  /** Remove `name` (the last row moves into its place); whether it was there. */
  delete(name: string): boolean {
    const r = this.rows.get(name)
    if (r === undefined) return false
    const last = this.names.length - 1
    if (r !== last) {
      const D = this.dim
      this.matrix.copyWithin(r * D, last * D, (last + 1) * D)
      this.norms[r] = this.norms[last]!
      const moved = this.names[last]!
      this.names[r] = moved
      this.rows.set(moved, r)
    }
    this.names.pop()
    this.rows.delete(name)
    this.dirty = true
    return true
  }

  /** Release the resident kernel index (the next unfiltered search rebuilds it). Idempotent. */
  dispose(): void {
    this.cell.index?.dispose()
    this.cell.index = undefined
    this.dirty = true
  }

  /**
   * The `k` best rows for `query` (score descending, then name ascending); `accept(name)` restricts the rows (then
   * only accepted rows are scored). Throws {@link SkillIndexDimensionError} if the query's length is not the index's.
   */
  search(query: ArrayLike<number>, k: number, accept?: (name: string) => boolean): Array<Scored> {
    const kk = Math.floor(k)
    const n = this.names.length
    if (!(kk > 0) || n === 0) return []
    if (query.length !== this.dim) throw new SkillIndexDimensionError({ name: "<query>", expected: this.dim, got: query.length })
    if (accept === undefined && this.options.engine !== "scan" && WasmSimd.load().ok) {
      const hits = this.kernelSearch(query, Math.min(kk, n))
      if (hits !== undefined) return hits
    }
    return this.scan(query, kk, accept)
  }

  private grow(capacity: number): void {
    const m = new Float32Array(capacity * this.dim)
    m.set(this.matrix.subarray(0, this.names.length * this.dim))
    const nr = new Float64Array(capacity)
    nr.set(this.norms.subarray(0, this.names.length))
    this.matrix = m
    this.norms = nr
    this.capacity = capacity
  }

  /** The reference score of row `r`: products and sum in doubles, in index order. */
  private score(query: ArrayLike<number>, r: number): number {
    const D = this.dim
    const m = this.matrix
    const off = r * D
    let s = 0
    for (let i = 0; i < D; i++) s += m[off + i]! * query[i]!
    return s
  }

  private ensureIndex(): WasmSimd.TopKIndex {
    const n = this.names.length
    const D = this.dim
    const held = this.cell.index
    if (!this.dirty && held !== undefined) return held
    const rows = this.matrix.subarray(0, n * D)
    let index: WasmSimd.TopKIndex
    if (held !== undefined && held.numRows === n && held.dim === D) {
      held.matrix.set(rows)
      held.refresh()
      index = held
      this.stats.refreshes++
    } else {
      held?.dispose()
      this.cell.index = undefined
      index = WasmSimd.makeTopKIndex(rows, n, D)
      this.cell.index = index
      this.stats.rebuilds++
    }
    let mx = 0
    for (let r = 0; r < n; r++) if (this.norms[r]! > mx || this.norms[r] !== this.norms[r]) mx = this.norms[r]!
    this.maxNorm = mx
    this.dirty = false
    return index
  }

  /** Top-k through the resident index with the exactness check; undefined when the scan must answer. */
  private kernelSearch(query: ArrayLike<number>, k: number): Array<Scored> | undefined {
    const n = this.names.length
    let index: WasmSimd.TopKIndex
    try {
      index = this.ensureIndex()
    } catch {
      this.stats.kernelFailures++
      this.dispose()
      return undefined
    }
    let qn = 0
    for (let i = 0; i < this.dim; i++) qn += query[i]! * query[i]!
    qn = Math.sqrt(qn)
    const D = this.dim
    const bound = 1.02 * (gamma(D, U32) + gamma(D, U64)) * qn * this.maxNorm + D * 2 ** -140
    // NaN anywhere (a non-finite vector or query) → the scan decides
    if (!(bound < Infinity)) return undefined
    let want = Math.max(2 * k, k + 16)
    while (want < n) {
      let r: { readonly indices: Int32Array; readonly scores: Float32Array }
      try {
        r = index.search(query, 1, want, "dot")
      } catch {
        this.stats.kernelFailures++
        return undefined
      }
      const t = r.scores[want - 1]!
      const cand: Array<Scored> = new Array(want)
      for (let i = 0; i < want; i++) {
        const row = r.indices[i]!
        cand[i] = { name: this.names[row]!, score: this.score(query, row) }
      }
      cand.sort(compare)
      if (cand[k - 1]!.score > t + bound) {
        cand.length = k
        this.stats.kernelSearches++
        this.lastEngine = "wasm-simd"
        return cand
      }
      this.stats.widenings++
      want *= 4
    }
    return undefined
  }

  /** Typed-array scan of the accepted rows with a size-k min-heap (root: the worst kept row). */
  private scan(query: ArrayLike<number>, k: number, accept: ((name: string) => boolean) | undefined): Array<Scored> {
    this.stats.scans++
    this.lastEngine = "scan"
    const n = this.names.length
    const names = this.names
    const cap = Math.min(k, n)
    if (this.heapS.length < cap) {
      this.heapS = new Float64Array(cap)
      this.heapR = new Int32Array(cap)
    }
    const hs = this.heapS
    const hr = this.heapR
    let size = 0
    for (let r = 0; r < n; r++) {
      if (accept !== undefined && !accept(names[r]!)) continue
      let s = this.score(query, r)
      if (s !== s) s = -Infinity
      if (size < cap) {
        // sift up
        let i = size++
        while (i > 0) {
          const p = (i - 1) >> 1
          if (!worse(s, names[r]!, hs[p]!, names[hr[p]!]!)) break
          hs[i] = hs[p]!
          hr[i] = hr[p]!
          i = p
        }
        hs[i] = s
        hr[i] = r
      } else if (s > hs[0]! || (s === hs[0]! && names[r]! < names[hr[0]!]!)) {
        // replace the root, sift down
        let i = 0
        for (;;) {
          const l = 2 * i + 1
          if (l >= size) break
          let c = l
          if (l + 1 < size && worse(hs[l + 1]!, names[hr[l + 1]!]!, hs[l]!, names[hr[l]!]!)) c = l + 1
          if (!worse(hs[c]!, names[hr[c]!]!, s, names[r]!)) break
          hs[i] = hs[c]!
          hr[i] = hr[c]!
          i = c
        }
        hs[i] = s
        hr[i] = r
      }
    }
    const out: Array<Scored> = new Array(size)
    // a NaN score was kept as -Infinity: recompute those (NaN or a true -Infinity)
    for (let i = 0; i < size; i++) out[i] = { name: names[hr[i]!]!, score: hs[i] === -Infinity ? this.score(query, hr[i]!) : hs[i]! }
    return out.sort(compare)
  }
}

/** Whether (s, a) ranks below (t, b): lower score, or equal score and a later name. */
const worse = (s: number, a: string, t: number, b: string): boolean => s < t || (s === t && a > b)

/** Best first: score descending (NaN last), then name ascending. */
const compare = (a: Scored, b: Scored): number => {
  const sa = a.score !== a.score ? -Infinity : a.score
  const sb = b.score !== b.score ? -Infinity : b.score
  return sa > sb ? -1 : sa < sb ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0
}

/**
 * A sharded resident top-k index: the embedding matrix `[numRows, dim]` split into contiguous row shards, each owned
 * by a `worker_threads` Worker with its own WebAssembly instance holding a `WasmSimd.makeTopKIndex` (float32 rows plus
 * the int16 copy of the exact two-pass search). A query batch `[numQueries, dim]` is posted to every shard, each
 * answers its local top-k (scores and global row ids), and the host merges them exactly.
 *
 * **Why.** One WebAssembly instance runs on one core, while NumPy's `matmul` goes through a BLAS that uses every core.
 * Sharding over `min(os.availableParallelism(), 4)` workers (the default) uses the cores too, and each shard's
 * int16 pass and float32 rescore touch only its rows.
 *
 * **Exactness.** Every shard computes the same float32 score for a row as the unsharded index (the score of query q and
 * row j depends only on q and m_j: `f32x4` lanes over the dimension, the same inverse norms), and each shard's
 * search is exact for its rows. The global top-k is therefore contained in the union of the shards' local top-k, and
 * the merge orders by score (higher first), then row id (lower first): the reference's order, ties included
 * (`TopK.topKSync` never lets a later row displace an equal score). A shard with fewer than `k` rows returns all of
 * them.
 *
 * **Details**
 * - The host checks shapes, `k` and the metric, and rejects NaN/±Infinity in the matrix when the index is built and
 *   in the queries per call ({@link KernelInputError} naming `[row, col]`), so the workers only see finite data; a
 *   float32 overflow of a score is reported by the worker with the global row id.
 * - Each shard's rows are copied once (a `Float32Array` slice transferred to its worker: the host keeps no copy).
 * - A worker that crashes, fails to start, or does not answer within `timeoutMs` fails the pending calls with
 *   {@link KernelBackendError} (never a hang) and closes the whole index: later calls fail the same way.
 * - {@link make} is scoped: closing the scope terminates the workers. {@link makeUnscoped} returns the same index
 *   with a `close()` to call.
 * - Workers start from `TopKShardsWorker.ts` through tsx when this module runs from source (`@autodidact/source`
 *   condition, as under vitest and `tsx`), else from the built `.js`.
 *
 * @example
 * ```ts
 * import { TopKShards } from "@autodidact/kernels"
 * import { Effect } from "effect"
 * const program = Effect.scoped(Effect.gen(function* () {
 *   const index = yield* TopKShards.make(matrix, 100_000, 384) // shards: min(availableParallelism, 4)
 *   const hits = yield* index.searchEffect(queries, 32, 10, "cosine") // { indices, scores }, best first
 * }))
 * ```
 * @since 0.1.0
 */
import { availableParallelism } from "node:os"
import { Worker } from "node:worker_threads"
import type { Scope } from "effect"
import { Effect } from "effect"
import type { InputReason, Site } from "./KernelError.js"
import { checkShape, checkSize, fail, KernelBackendError, KernelInputError, shapeString } from "./KernelError.js"
import * as TopK from "./TopK.js"
import * as WasmSimd from "./WasmSimd.js"

/** Backend named in errors and benchmark rows. */
export const BACKEND_NAME = "wasm-simd (sharded)"

/** Default shard count: `min(os.availableParallelism(), 4)`. */
export const defaultShards = (): number => Math.max(1, Math.min(availableParallelism(), 4))

/** Options of {@link make} / {@link makeUnscoped}. */
export interface ShardOptions {
  /** Number of workers (default {@link defaultShards}); capped at `numRows`. */
  readonly shards?: number | undefined
  /** Longest wait for a worker to start or to answer one search, in ms (default 120000). */
  readonly timeoutMs?: number | undefined
}

/** The sharded index. */
export interface ShardedTopKIndex {
  readonly numRows: number
  readonly dim: number
  /** Number of worker shards. */
  readonly shards: number
  /** `[lo, hi)` rows of each shard. */
  readonly ranges: ReadonlyArray<readonly [number, number]>
  /** Whether every shard uses the int16 pre-filter. */
  readonly prefiltered: boolean
  /** Exact top-k of `[numQueries, dim]` queries (same contract and order as `TopK.topKSync`), as a Promise. */
  readonly search: (queries: ArrayLike<number>, numQueries: number, k: number, metric: "dot" | "cosine") => Promise<TopK.TopKResult>
  /** {@link ShardedTopKIndex.search} as an Effect with typed errors. */
  readonly searchEffect: (
    queries: ArrayLike<number>,
    numQueries: number,
    k: number,
    metric: "dot" | "cosine"
  ) => Effect.Effect<TopK.TopKResult, KernelInputError | KernelBackendError>
  /** Workers not yet exited (0 once `close()` has resolved). */
  readonly liveWorkers: () => number
  /** Terminate the workers; resolves when every one has exited. Idempotent. */
  readonly close: () => Promise<void>
  /** Test hook: make shard `i` throw an uncaught exception (the index must fail pending calls, not hang). */
  readonly crashShard: (i: number) => void
}

// ---------------------------------------------------------------------------------------------- protocol

/** @internal What a worker is started with. */
export interface ShardSetup {
  readonly kind: "autodidact-topk-shard"
  readonly script: string
  readonly matrix: Float32Array
  readonly numRows: number
  readonly dim: number
  readonly lo: number
}

/** @internal A request to a worker. */
export type ShardRequest =
  | { readonly type: "search"; readonly id: number; readonly queries: Float32Array; readonly numQueries: number; readonly k: number; readonly metric: "dot" | "cosine" }
  | { readonly type: "crash"; readonly id: number }

/** @internal An error reported by a worker. */
export type ShardError =
  | { tag: "KernelInputError"; kernel: string; backend: string; input: string; reason: string; shape: string; detail: string; message: string }
  | { tag: "Error"; message: string }

/** @internal A worker's reply. */
export interface ShardReply {
  readonly type: "ready" | "result"
  readonly id: number
  readonly error?: ShardError
  readonly prefiltered?: boolean
  readonly k?: number
  readonly indices?: Int32Array
  readonly scores?: Float32Array
}

const bootstrap = (tsxApi: string | undefined): string => `
const { parentPort, workerData } = require("node:worker_threads");
const start = ${tsxApi === undefined ? "Promise.resolve()" : `import(${JSON.stringify(tsxApi)}).then((api) => { api.register(); })`};
start.then(() => import(workerData.script)).catch((e) => {
  parentPort.postMessage({ type: "ready", id: -1, error: { tag: "Error", message: "TopKShards worker failed to start: " + (e && e.stack || e) } });
});
`

const resolveTsxApi = (): string => {
  try {
    return import.meta.resolve("tsx/esm/api")
  } catch {
    return "tsx/esm/api"
  }
}

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e))

/** The first NaN/±Infinity of a `[rows, dim]` array as a typed error naming `[row, col]`. */
const checkFiniteRows = (site: Site, input: string, x: ArrayLike<number>, rows: number, dim: number): void => {
  for (let i = 0; i < x.length; i++) {
    const v = x[i]!
    if (v - v !== 0) fail(site, input, "non-finite", shapeString([rows, dim]), `${v} at [${Math.floor(i / dim)}, ${i % dim}]`)
  }
}

const f32Slice = (x: ArrayLike<number>, from: number, to: number): Float32Array => {
  if (x instanceof Float32Array) return x.slice(from, to)
  const out = new Float32Array(to - from)
  for (let i = from; i < to; i++) out[i - from] = x[i]!
  return out
}

/**
 * Merge per-shard results (each `[Q, k_s]`, best first) into the global `[Q, k]`: score descending, then row id
 * ascending (the reference's order).
 */
export const mergeShards = (parts: ReadonlyArray<{ readonly k: number; readonly indices: Int32Array; readonly scores: Float32Array }>, Q: number, k: number): TopK.TopKResult => {
  const indices = new Int32Array(Q * k)
  const scores = new Float32Array(Q * k)
  const S = parts.length
  const pos = new Int32Array(S)
  for (let q = 0; q < Q; q++) {
    pos.fill(0)
    for (let i = 0; i < k; i++) {
      let best = -1
      let bs = 0
      let bi = 0
      for (let s = 0; s < S; s++) {
        const p = parts[s]!
        if (pos[s]! >= p.k) continue
        const o = q * p.k + pos[s]!
        const sc = p.scores[o]!
        const ix = p.indices[o]!
        if (best < 0 || sc > bs || (sc === bs && ix < bi)) {
          best = s
          bs = sc
          bi = ix
        }
      }
      pos[best] = pos[best]! + 1
      indices[q * k + i] = bi
      scores[q * k + i] = bs
    }
  }
  return { indices, scores }
}

/**
 * Build the sharded index: validates the matrix (shape, finiteness), starts the workers and waits until each holds
 * its shard. Rejects with {@link KernelInputError} for bad input, {@link KernelBackendError} when a worker cannot
 * start (or WebAssembly SIMD is unavailable).
 */
export const makeUnscoped = async (matrix: ArrayLike<number>, numRows: number, dim: number, options: ShardOptions = {}): Promise<ShardedTopKIndex> => {
  const site: Site = { kernel: TopK.kernelName, backend: BACKEND_NAME }
  checkSize(site, "numRows", numRows)
  checkSize(site, "dim", dim)
  checkShape(site, "matrix", matrix, [numRows, dim])
  const requested = options.shards ?? defaultShards()
  if (!(Number.isInteger(requested) && requested >= 1)) fail(site, "shards", "range", String(requested), "expected a positive integer")
  const timeoutMs = options.timeoutMs ?? 120_000
  if (!(timeoutMs > 0)) fail(site, "timeoutMs", "range", String(timeoutMs), "expected a positive number of milliseconds")
  checkFiniteRows(site, "matrix", matrix, numRows, dim)
  const available = WasmSimd.load()
  if (!available.ok) throw new KernelBackendError({ kernel: TopK.kernelName, backend: BACKEND_NAME, reason: available.reason })
  const S = Math.min(requested, numRows)
  const ranges: Array<readonly [number, number]> = []
  for (let s = 0; s < S; s++) ranges.push([Math.floor((s * numRows) / S), Math.floor(((s + 1) * numRows) / S)])

  const fromSource = import.meta.url.endsWith(".ts")
  const script = new URL(fromSource ? "./TopKShardsWorker.ts" : "./TopKShardsWorker.js", import.meta.url).href
  const execArgv = fromSource ? [...process.execArgv, "--conditions=@autodidact/source"] : [...process.execArgv]
  const code = bootstrap(fromSource ? resolveTsxApi() : undefined)

  type Pending = { readonly resolve: (r: ShardReply) => void; readonly reject: (e: KernelBackendError) => void }
  const pending: Array<Map<number, Pending>> = ranges.map(() => new Map())
  const workers: Array<Worker> = []
  const exits: Array<Promise<void>> = []
  let live = 0
  let broken: KernelBackendError | undefined
  let closing: Promise<void> | undefined
  let nextId = 0
  // workers are unref'd while idle (an open index does not keep the process alive) and ref'd while a call waits on them
  let inflight = 0
  const hold = (): void => {
    if (inflight++ === 0) for (const w of workers) w.ref()
  }
  const unhold = (): void => {
    if (--inflight === 0) for (const w of workers) w.unref()
  }

  const backendError = (reason: string) => new KernelBackendError({ kernel: TopK.kernelName, backend: BACKEND_NAME, reason })
  const close = (): Promise<void> => {
    closing ??= (async () => {
      broken ??= backendError("index closed")
      for (const m of pending) {
        for (const p of m.values()) p.reject(broken)
        m.clear()
      }
      await Promise.all(workers.map((w) => w.terminate()))
      await Promise.all(exits)
    })()
    return closing
  }
  const breakIndex = (reason: string): void => {
    if (broken !== undefined) return
    broken = backendError(reason)
    void close()
  }

  for (let s = 0; s < S; s++) {
    const [lo, hi] = ranges[s]!
    const shard = f32Slice(matrix, lo * dim, hi * dim)
    const setup: ShardSetup = { kind: "autodidact-topk-shard", script, matrix: shard, numRows: hi - lo, dim, lo }
    const worker = new Worker(code, { eval: true, workerData: setup, transferList: [shard.buffer as ArrayBuffer], execArgv })
    worker.unref()
    live++
    exits.push(
      new Promise<void>((resolve) =>
        worker.once("exit", (codeOrSignal) => {
          live--
          breakIndex(`shard ${s} (rows [${lo}, ${hi})) exited with code ${codeOrSignal}`)
          resolve()
        })
      )
    )
    worker.on("error", (e) => breakIndex(`shard ${s} (rows [${lo}, ${hi})) crashed: ${message(e)}`))
    worker.on("messageerror", (e) => breakIndex(`shard ${s}: unreadable message: ${message(e)}`))
    worker.on("message", (reply: ShardReply) => {
      const p = pending[s]!.get(reply.id)
      if (p === undefined) return
      pending[s]!.delete(reply.id)
      p.resolve(reply)
    })
    workers.push(worker)
  }

  /** Send one request to shard `s` and wait (with the timeout) for its reply. */
  const ask = (s: number, id: number, request: ShardRequest | undefined): Promise<ShardReply> =>
    new Promise<ShardReply>((resolve, reject) => {
      if (broken !== undefined) {
        reject(broken)
        return
      }
      const timer = setTimeout(() => {
        breakIndex(`shard ${s} did not answer within ${timeoutMs} ms`)
      }, timeoutMs)
      timer.unref()
      hold()
      pending[s]!.set(id, {
        resolve: (r) => {
          clearTimeout(timer)
          unhold()
          resolve(r)
        },
        reject: (e) => {
          clearTimeout(timer)
          unhold()
          reject(e)
        }
      })
      if (request !== undefined) workers[s]!.postMessage(request)
    })

  const rethrow = (s: number, error: ShardError): never => {
    if (error.tag === "KernelInputError") {
      throw new KernelInputError({
        kernel: error.kernel,
        backend: BACKEND_NAME,
        input: error.input,
        reason: error.reason as InputReason,
        shape: error.shape,
        detail: error.detail
      })
    }
    throw backendError(`shard ${s}: ${error.message}`)
  }

  // wait for every shard to hold its rows
  let prefiltered = true
  try {
    const ready = await Promise.all(ranges.map((_, s) => ask(s, -1, undefined)))
    ready.forEach((r, s) => {
      if (r.error !== undefined) rethrow(s, r.error)
      prefiltered &&= r.prefiltered === true
    })
  } catch (e) {
    breakIndex(message(e))
    await close()
    throw e instanceof KernelBackendError || e instanceof KernelInputError ? e : backendError(message(e))
  }

  const search = async (queries: ArrayLike<number>, Q: number, k: number, metric: "dot" | "cosine"): Promise<TopK.TopKResult> => {
    const s0: Site = { kernel: `${TopK.kernelName}.${metric}`, backend: BACKEND_NAME }
    if (metric !== "dot" && metric !== "cosine") fail(s0, "metric", "range", String(metric), "expected dot or cosine")
    checkSize(s0, "numQueries", Q)
    checkShape(s0, "queries", queries, [Q, dim])
    if (!(Number.isInteger(k) && k >= 1 && k <= numRows)) fail(s0, "k", "range", String(k), `expected an integer in [1, numRows = ${numRows}]`)
    checkFiniteRows(s0, "queries", queries, Q, dim)
    if (broken !== undefined) throw broken
    const qs = queries instanceof Float32Array ? queries : Float32Array.from(queries)
    const id = nextId++
    const request: ShardRequest = { type: "search", id, queries: qs, numQueries: Q, k, metric }
    const replies = await Promise.all(ranges.map((_, s) => ask(s, id, request)))
    const parts = replies.map((r, s) => {
      if (r.error !== undefined) rethrow(s, r.error)
      return { k: r.k!, indices: r.indices!, scores: r.scores! }
    })
    return mergeShards(parts, Q, k)
  }

  return {
    numRows,
    dim,
    shards: S,
    ranges,
    prefiltered,
    search,
    searchEffect: (queries, Q, k, metric) =>
      Effect.tryPromise({
        try: () => search(queries, Q, k, metric),
        catch: (e) => (e instanceof KernelInputError || e instanceof KernelBackendError ? e : backendError(message(e)))
      }),
    liveWorkers: () => live,
    close,
    crashShard: (i) => {
      if (i >= 0 && i < S) workers[i]!.postMessage({ type: "crash", id: -2 } satisfies ShardRequest)
    }
  }
}

/**
 * The sharded index as a scoped resource: the workers are terminated when the scope closes. Fails with
 * {@link KernelInputError} (bad matrix or options) or {@link KernelBackendError} (a worker could not start).
 */
export const make = (
  matrix: ArrayLike<number>,
  numRows: number,
  dim: number,
  options: ShardOptions = {}
): Effect.Effect<ShardedTopKIndex, KernelInputError | KernelBackendError, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: () => makeUnscoped(matrix, numRows, dim, options),
      catch: (e) =>
        e instanceof KernelInputError || e instanceof KernelBackendError ? e : new KernelBackendError({ kernel: TopK.kernelName, backend: BACKEND_NAME, reason: message(e) })
    }),
    (index) => Effect.promise(() => index.close())
  )

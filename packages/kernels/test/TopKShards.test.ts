import { Rng } from "@autodidact/core"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { close } from "./helpers.js"
import { KernelBackendError, KernelInputError, TopK, TopKShards, WasmSimd } from "../src/index.js"

const rejection = async (p: Promise<unknown>): Promise<any> => {
  try {
    await p
  } catch (e) {
    return e
  }
  throw new Error("expected a rejection")
}

const normal = (rng: Rng, n: number): Float32Array => Float32Array.from({ length: n }, () => rng.random() * 2 - 1)

describe("TopKShards.mergeShards", () => {
  it("hand-computed: score desc, equal scores by lower row id, shards shorter than k", () => {
    // shard A rows 0..2, shard B rows 3..4 (k_s = 2), one query; row 4 ties row 1 at 5
    const a = { k: 3, indices: Int32Array.from([1, 0, 2]), scores: Float32Array.from([5, 3, 1]) }
    const b = { k: 2, indices: Int32Array.from([4, 3]), scores: Float32Array.from([5, 4]) }
    const r = TopKShards.mergeShards([b, a], 1, 4)
    expect(Array.from(r.indices)).toEqual([1, 4, 3, 0])
    expect(Array.from(r.scores)).toEqual([5, 5, 4, 3])
  })
})

describe("TopKShards", () => {
  const M = 3001
  const D = 40
  const Q = 5
  const rng = Rng.make(11)
  const matrix = normal(rng, M * D)
  const queries = normal(rng, Q * D)
  let index: TopKShards.ShardedTopKIndex

  beforeAll(async () => {
    index = await TopKShards.makeUnscoped(matrix, M, D, { shards: 3 })
  })
  afterAll(async () => {
    await index.close()
  })

  it("splits rows into contiguous shards", () => {
    expect(index.shards).toBe(3)
    expect(index.ranges).toEqual([[0, 1000], [1000, 2000], [2000, 3001]])
    expect(index.prefiltered).toBe(true)
  })

  for (const metric of ["dot", "cosine"] as const) {
    it(`${metric}: identical to the unsharded resident index and to the reference's indices (q > 1)`, async () => {
      const r = await index.search(queries, Q, 10, metric)
      const single = WasmSimd.makeTopKIndex(matrix, M, D)
      const one = single.search(queries, Q, 10, metric)
      single.dispose()
      expect(Array.from(r.indices)).toEqual(Array.from(one.indices))
      expect(Array.from(r.scores)).toEqual(Array.from(one.scores))
      const ref = TopK.topKSync({ queries, matrix, numQueries: Q, numRows: M, dim: D, k: 10, metric })
      expect(Array.from(r.indices)).toEqual(Array.from(ref.indices))
      // every shard contributes rows: the answer is not from one shard only
      const owners = new Set(Array.from(r.indices, (j) => index.ranges.findIndex(([lo, hi]) => j >= lo && j < hi)))
      expect(owners.size).toBeGreaterThan(1)
    })
  }

  it("k = numRows returns every row in the reference's order", async () => {
    const q1 = queries.subarray(0, D)
    const r = await index.search(q1, 1, M, "dot")
    const ref = TopK.topKSync({ queries: q1, matrix, numQueries: 1, numRows: M, dim: D, k: M, metric: "dot" })
    expect(Array.from(r.indices)).toEqual(Array.from(ref.indices))
  })

  it("bad input is a typed error naming kernel, backend and shape", async () => {
    const shape = await rejection(index.search(queries.subarray(0, 7), 1, 10, "dot"))
    expect(shape).toBeInstanceOf(KernelInputError)
    expect(shape.reason).toBe("shape")
    expect(shape.message).toBe(`TopK.dot on wasm-simd (sharded): input queries [7]: shape: expected [1, ${D}] (${D} elements), got 7 elements`)
    const bad = Float32Array.from(queries)
    bad[2 * D + 5] = Number.NaN
    const nan = await rejection(index.search(bad, Q, 10, "cosine"))
    expect(nan).toBeInstanceOf(KernelInputError)
    expect(nan.reason).toBe("non-finite")
    expect(nan.detail).toBe("NaN at [2, 5]")
    const k = await rejection(index.search(queries, Q, M + 1, "dot"))
    expect(k.reason).toBe("range")
    expect(k.input).toBe("k")
    // the index still answers after rejected calls
    expect((await index.search(queries, Q, 3, "dot")).indices.length).toBe(3 * Q)
  })

  it("concurrent searches each get their own answer", async () => {
    const [a, b] = await Promise.all([index.search(queries, Q, 4, "dot"), index.search(queries, Q, 6, "cosine")])
    expect(Array.from(a.indices)).toEqual(Array.from(TopK.topKSync({ queries, matrix, numQueries: Q, numRows: M, dim: D, k: 4, metric: "dot" }).indices))
    expect(Array.from(b.indices)).toEqual(Array.from(TopK.topKSync({ queries, matrix, numQueries: Q, numRows: M, dim: D, k: 6, metric: "cosine" }).indices))
  })
})

describe("TopKShards edge cases", () => {
  it("ties across shard boundaries: lower row id first, as the reference", async () => {
    // 12 rows in 4 groups of identical rows; the groups straddle the 3 shards (rows 0-3, 4-7, 8-11)
    const D = 8
    const proto = [
      [1, 2, 0, 0, 1, 0, 0, 0],
      [0, 0, 3, 0, 0, 0, 1, 0],
      [2, 1, 0, 0, 0, 1, 0, 0],
      [0, 0, 0, 2, 0, 0, 0, 2]
    ]
    const group = [3, 0, 1, 0, 2, 1, 3, 2, 0, 1, 2, 3]
    const matrix = Float32Array.from(group.flatMap((g) => proto[g]!))
    const queries = Float32Array.from([1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0])
    const index = await TopKShards.makeUnscoped(matrix, 12, D, { shards: 3 })
    try {
      for (const metric of ["dot", "cosine"] as const) {
        const r = await index.search(queries, 2, 12, metric)
        const ref = TopK.topKSync({ queries, matrix, numQueries: 2, numRows: 12, dim: D, k: 12, metric })
        expect(Array.from(r.indices)).toEqual(Array.from(ref.indices))
        if (metric === "dot") expect(Array.from(r.scores)).toEqual(Array.from(ref.scores))
        else close(r.scores, ref.scores)
      }
      // dot, query 0: every row scores 4 (groups 0, 2, 3) or 4 (group 1 too): all equal → 0..11 in order
      const dot = await index.search(queries, 2, 12, "dot")
      expect(Array.from(dot.indices.subarray(0, 12))).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11])
      // query 1 (e_0): group 2 scores 2 (rows 4, 7, 10), group 0 scores 1 (rows 1, 3, 8), others 0
      expect(Array.from(dot.indices.subarray(12, 18))).toEqual([4, 7, 10, 1, 3, 8])
    } finally {
      await index.close()
    }
  })

  it("k larger than a shard's rows, and more shards than rows", async () => {
    const rng = Rng.make(5)
    const D = 4
    const matrix = normal(rng, 3 * D)
    const queries = normal(rng, 3 * D)
    const index = await TopKShards.makeUnscoped(matrix, 3, D, { shards: 4 })
    try {
      expect(index.shards).toBe(3)
      for (const k of [2, 3]) {
        const r = await index.search(queries, 3, k, "cosine")
        const ref = TopK.topKSync({ queries, matrix, numQueries: 3, numRows: 3, dim: D, k, metric: "cosine" })
        expect(Array.from(r.indices)).toEqual(Array.from(ref.indices))
      }
    } finally {
      await index.close()
    }
  })

  it("a non-finite matrix or bad options fail before any worker starts", async () => {
    const m = new Float32Array(6 * 3).fill(1)
    m[4 * 3 + 2] = Number.POSITIVE_INFINITY
    const e = await rejection(TopKShards.makeUnscoped(m, 6, 3, { shards: 2 }))
    expect(e).toBeInstanceOf(KernelInputError)
    expect(e.message).toBe("TopK on wasm-simd (sharded): input matrix [6, 3]: non-finite: Infinity at [4, 2]")
    const s = await rejection(TopKShards.makeUnscoped(new Float32Array(6), 2, 3, { shards: 0 }))
    expect(s.input).toBe("shards")
    const shape = await rejection(TopKShards.makeUnscoped(new Float32Array(5), 2, 3))
    expect(shape.reason).toBe("shape")
  })

  it("closing the scope terminates every worker; the index then fails with a typed error", async () => {
    const rng = Rng.make(9)
    const matrix = normal(rng, 50 * 6)
    let captured: TopKShards.ShardedTopKIndex | undefined
    const hits = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const index = yield* TopKShards.make(matrix, 50, 6, { shards: 2 })
          captured = index
          expect(index.liveWorkers()).toBe(2)
          return yield* index.searchEffect(matrix.subarray(0, 6), 1, 1, "cosine")
        })
      )
    )
    expect(hits.indices[0]).toBe(0) // row 0 is the query itself: cosine 1
    expect(captured!.liveWorkers()).toBe(0)
    const after = await Effect.runPromiseExit(captured!.searchEffect(matrix.subarray(0, 6), 1, 1, "dot"))
    expect(Exit.isFailure(after)).toBe(true)
    const err = await rejection(captured!.search(matrix.subarray(0, 6), 1, 1, "dot"))
    expect(err).toBeInstanceOf(KernelBackendError)
    expect(err.reason).toBe("index closed")
  })

  it("a shard that does not answer within timeoutMs is a KernelBackendError, and its workers are terminated", async () => {
    const started = performance.now()
    // 1 ms cannot cover a worker's start-up (loading the module): the wait times out
    const err = await rejection(TopKShards.makeUnscoped(new Float32Array(4 * 3).fill(1), 4, 3, { shards: 2, timeoutMs: 1 }))
    expect(err).toBeInstanceOf(KernelBackendError)
    expect(err.reason).toMatch(/^shard \d did not answer within 1 ms$/)
    expect(performance.now() - started).toBeLessThan(10_000)
  })

  it("a crashed worker fails the call with KernelBackendError instead of hanging", async () => {
    const rng = Rng.make(13)
    const matrix = normal(rng, 40 * 5)
    const index = await TopKShards.makeUnscoped(matrix, 40, 5, { shards: 2 })
    index.crashShard(1)
    const started = performance.now()
    const err = await rejection(
      (async () => {
        // the crash lands asynchronously: search until it is seen (bounded)
        for (let i = 0; i < 200; i++) {
          await index.search(matrix.subarray(0, 5), 1, 3, "dot")
          await new Promise((r) => setTimeout(r, 10))
        }
      })()
    )
    expect(err).toBeInstanceOf(KernelBackendError)
    expect(err.reason).toMatch(/shard 1 .*(crashed|exited)/)
    expect(performance.now() - started).toBeLessThan(10_000)
    await index.close()
    expect(index.liveWorkers()).toBe(0)
  })
})

import { Rng } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import { TopK } from "../src/index.js"
import { close, thrown } from "./helpers.js"

/** The naive answer: score every row, sort by (score desc, index asc), take k. */
const naive = (input: TopK.TopKInput): { indices: Array<number>; scores: Array<number> } => {
  const { numQueries: Q, numRows: M, dim: D, k } = input
  const indices: Array<number> = []
  const scores: Array<number> = []
  for (let q = 0; q < Q; q++) {
    const rows = Array.from({ length: M }, (_, j) => {
      let dot = 0
      let qq = 0
      let mm = 0
      for (let d = 0; d < D; d++) {
        dot += input.queries[q * D + d]! * input.matrix[j * D + d]!
        qq += input.queries[q * D + d]! ** 2
        mm += input.matrix[j * D + d]! ** 2
      }
      return { j, s: input.metric === "dot" ? dot : qq === 0 || mm === 0 ? 0 : dot / Math.sqrt(qq * mm) }
    })
    rows.sort((a, b) => b.s - a.s || a.j - b.j)
    for (const r of rows.slice(0, k)) {
      indices.push(r.j)
      scores.push(r.s)
    }
  }
  return { indices, scores }
}

describe("TopK", () => {
  it("hand-computed: dot vs cosine rank differently", () => {
    const base = { queries: [1, 0], matrix: [0, 1, 3, 0, 1, 1, -1, 0], numQueries: 1, numRows: 4, dim: 2, k: 3 }
    const dot = TopK.topKSync({ ...base, metric: "dot" })
    expect(Array.from(dot.indices)).toEqual([1, 2, 0])
    close(dot.scores, [3, 1, 0])
    const cos = TopK.topKSync({ ...base, metric: "cosine" })
    expect(Array.from(cos.indices)).toEqual([1, 2, 0])
    close(cos.scores, [1, Math.SQRT1_2, 0])
  })

  it("ties: lower row index first; a zero vector has cosine 0", () => {
    const r = TopK.topKSync({ queries: [1, 1], matrix: [1, 1, 0, 0, 1, 1, 2, 2], numQueries: 1, numRows: 4, dim: 2, k: 4, metric: "cosine" })
    expect(Array.from(r.indices)).toEqual([0, 2, 3, 1])
  })

  it("equals a naive sort (random, several blocks, k ∈ {1, 7, 50}, D not a multiple of 4)", () => {
    const rng = Rng.make(3)
    const [Q, M, D] = [6, 1500, 67] // 96 KiB / (4 · 67) = 366 rows per block: 5 blocks
    const queries = Float32Array.from({ length: Q * D }, () => rng.normal())
    const matrix = Float32Array.from({ length: M * D }, () => rng.normal())
    for (const metric of ["dot", "cosine"] as const) {
      for (const k of [1, 7, 50]) {
        const input = { queries, matrix, numQueries: Q, numRows: M, dim: D, k, metric }
        const got = TopK.topKSync(input)
        const want = naive(input)
        expect(Array.from(got.indices)).toEqual(want.indices)
        close(got.scores, want.scores, 1e-6, 1e-6)
      }
    }
    const withNorms = TopK.topKSync({ queries, matrix, numQueries: Q, numRows: M, dim: D, k: 5, metric: "cosine", rowNorms: TopK.rowNorms(matrix, M, D) })
    expect(Array.from(withNorms.indices)).toEqual(naive({ queries, matrix, numQueries: Q, numRows: M, dim: D, k: 5, metric: "cosine" }).indices)
  })

  it("bad input: k out of range, shape mismatch, NaN located at its element", () => {
    const base = { queries: [1, 0], matrix: [0, 1, 3, 0], numQueries: 1, numRows: 2, dim: 2, k: 1, metric: "dot" as const }
    expect(thrown(() => TopK.topKSync({ ...base, k: 3 })).message).toBe("TopK.dot on typed-array: input k 3: range: expected an integer in [1, numRows = 2]")
    expect(thrown(() => TopK.topKSync({ ...base, matrix: [0, 1, 3] })).shape).toBe("[3]")
    const nan = thrown(() => TopK.topKSync({ ...base, matrix: [0, 1, Number.NaN, 0] }))
    expect([nan.input, nan.reason, nan.shape, nan.detail]).toEqual(["matrix", "non-finite", "[2, 2]", "NaN at [1, 0]"])
  })
})

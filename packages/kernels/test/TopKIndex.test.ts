import { Rng } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import { TopK, TopKIndex, WasmSimd } from "../src/index.js"
import { close, thrown } from "./helpers.js"

const normal = (rng: Rng, n: number) => Float32Array.from({ length: n }, () => rng.normal(0, 1))

describe("TopKIndex (a growing exact index, both backends)", () => {
  it("picks wasm-simd where it loads, typed arrays when asked", () => {
    expect(TopKIndex.make(4).backend).toBe(WasmSimd.load().ok ? "wasm-simd" : "typed-array")
    expect(TopKIndex.make(4, { backend: "typed-array" }).backend).toBe("typed-array")
  })

  for (const backend of ["auto", "typed-array"] as const) {
    it(`${backend}: random appends and removals give the reference's answers on the rows held`, () => {
      const rng = Rng.make(50)
      const D = 24
      const index = TopKIndex.make(D, { capacity: 2, backend })
      const held: Array<Float32Array> = []
      const queries = normal(rng, 3 * D)
      for (let step = 0; step < 60; step++) {
        if (held.length > 0 && rng.random() < 0.35) {
          const row = Math.floor(rng.random() * held.length)
          const moved = index.removeRow(row)
          const last = held.length - 1
          expect(moved).toBe(row === last ? -1 : last)
          held[row] = held[last]!
          held.pop()
        } else {
          const count = 1 + Math.floor(rng.random() * 9)
          const batch = normal(rng, count * D)
          index.append(batch, count)
          for (let i = 0; i < count; i++) held.push(batch.slice(i * D, (i + 1) * D))
        }
        expect(index.numRows).toBe(held.length)
        if (held.length === 0) continue
        const matrix = new Float32Array(held.length * D)
        held.forEach((r, i) => matrix.set(r, i * D))
        const k = Math.min(4, held.length)
        for (const metric of ["dot", "cosine"] as const) {
          const ref = TopK.topKSync({ queries, matrix, numQueries: 3, numRows: held.length, dim: D, k, metric })
          const got = index.search(queries, 3, k, metric)
          expect(Array.from(got.indices)).toEqual(Array.from(ref.indices))
          close(got.scores, ref.scores, 1e-5, 1e-5)
        }
      }
      expect(thrown(() => index.search(queries, 3, index.numRows + 1, "dot")).input).toBe("k")
      expect(thrown(() => index.append([1, 2], 1)).reason).toBe("shape")
      index.dispose()
      expect(() => index.numRows >= 0 && index.matrix).toThrow("after dispose")
    })
  }
})

import { Rng } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import { SumTree } from "../src/index.js"
import { thrown } from "./helpers.js"

describe("SumTree (hand-computed)", () => {
  it("capacity rounds up to a power of two; sums; prefix sampling", () => {
    const tree = SumTree.make(3)
    expect(tree.capacity).toBe(4)
    SumTree.updateBatch(tree, [0, 1, 2, 3], [1, 2, 3, 4])
    expect(Array.from(tree.nodes)).toEqual([0, 10, 3, 7, 1, 2, 3, 4])
    // cumulative: 1, 3, 6, 10 → u = 0.5 → 0, u = 1 → 1 (first cumsum > u), 2.9 → 1, 3 → 2, 9.99 → 3
    const r = SumTree.sampleBatch(tree, [0.5, 1, 2.9, 3, 9.99])
    expect(Array.from(r.indices)).toEqual([0, 1, 1, 2, 3])
    expect(Array.from(r.priorities)).toEqual([1, 2, 2, 3, 4])
  })

  it("batch update recomputes ancestors; duplicates: last write wins; zero priorities are never sampled", () => {
    const tree = SumTree.make(8)
    SumTree.updateBatch(tree, [0, 1, 2, 3, 4, 5, 6, 7], [1, 1, 1, 1, 1, 1, 1, 1])
    SumTree.updateBatch(tree, [5, 2, 5], [9, 0, 0])
    expect(SumTree.total(tree)).toBe(6)
    expect([SumTree.get(tree, 2), SumTree.get(tree, 5)]).toEqual([0, 0])
    const us = Float64Array.from({ length: 600 }, (_, b) => (b / 600) * 6)
    const got = SumTree.sampleBatch(tree, us).indices
    expect(got.includes(2) || got.includes(5)).toBe(false)
  })

  it("stratified sampling matches the priorities in proportion", () => {
    const tree = SumTree.make(4)
    SumTree.updateBatch(tree, [0, 1, 2, 3], [1, 2, 3, 4])
    const rng = Rng.make(1)
    const counts = [0, 0, 0, 0]
    for (let i = 0; i < 100; i++) for (const j of SumTree.sampleBatch(tree, SumTree.stratifiedPrefixes(tree, rng, 100)).indices) counts[j]++
    expect(counts.map((c) => Math.round(c / 1000))).toEqual([1, 2, 3, 4])
  })

  it("bad input: slot out of range, negative or NaN priority, prefix ≥ total, empty tree", () => {
    const tree = SumTree.make(4)
    expect(thrown(() => SumTree.sampleBatch(tree, [0])).reason).toBe("empty-segment")
    expect(thrown(() => SumTree.updateBatch(tree, [4], [1])).detail).toBe("slot 4 at index 0 is outside [0, 4)")
    expect(thrown(() => SumTree.updateBatch(tree, [0], [-1])).reason).toBe("range")
    expect(thrown(() => SumTree.updateBatch(tree, [0], [Number.NaN])).reason).toBe("non-finite")
    SumTree.updateBatch(tree, [0], [1])
    expect(thrown(() => SumTree.sampleBatch(tree, [1])).message).toBe("SumTree.sampleBatch on typed-array: input prefixes [1]: range: prefix 1 at index 0 is outside [0, total = 1)")
  })
})

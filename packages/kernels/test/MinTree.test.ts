import { Rng } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import { MinTree } from "../src/index.js"
import { thrown } from "./helpers.js"

describe("MinTree (moved from @autodidact/memory)", () => {
  it("matches a naive minimum under random updates; clear resets to +Infinity", () => {
    const rng = Rng.make(11)
    for (const capacity of [1, 3, 7, 16, 33]) {
      const tree = MinTree.make(capacity)
      const naive = new Float64Array(capacity).fill(Infinity)
      expect(MinTree.min(tree)).toBe(Infinity)
      for (let step = 0; step < 300; step++) {
        const i = rng.integers(capacity)
        naive[i] = rng.random() * 10
        MinTree.set(tree, i, naive[i]!)
        expect(MinTree.min(tree)).toBe(Math.min(...naive))
      }
      MinTree.clear(tree)
      expect(MinTree.min(tree)).toBe(Infinity)
    }
  })

  it("batch update (later duplicates win) and checked set", () => {
    const t = MinTree.make(5)
    MinTree.updateBatch(t, [0, 4, 2, 4], [3, 1, 2, 5])
    expect(MinTree.min(t)).toBe(2)
    expect(MinTree.get(t, 4)).toBe(5)
    expect(MinTree.get(t, 1)).toBe(Infinity)
    const before = Array.from(t.nodes)
    expect(thrown(() => MinTree.set(t, -1, 1))).toMatchObject({ _tag: "KernelInputError", input: "indices", reason: "range" })
    expect(thrown(() => MinTree.updateBatch(t, [0, 1], [0, Number.NaN]))).toMatchObject({ reason: "non-finite" })
    expect(Array.from(t.nodes)).toEqual(before)
    expect(t.capacity).toBe(8) // 5 slots round up to a power of two
    expect(thrown(() => MinTree.make(0))).toMatchObject({ _tag: "KernelInputError", kernel: "MinTree.make", input: "capacity" })
  })
})

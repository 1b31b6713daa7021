import { Rng } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import { MinTree } from "../src/MinTree.js"
import { SumTree } from "../src/SumTree.js"

/** The naive answer: the smallest i with values[0] + ... + values[i] > u (last positive index past the total). */
const naivePrefix = (values: ArrayLike<number>, u: number): number => {
  let acc = 0
  let lastPositive = -1
  for (let i = 0; i < values.length; i++) {
    acc += values[i]!
    if (values[i]! > 0) lastPositive = i
    if (acc > u && values[i]! > 0) return i
  }
  return lastPositive
}

describe("SumTree", () => {
  it("matches a naive array under random updates (total, get, findPrefixSum)", () => {
    const rng = Rng.make(7)
    for (const capacity of [1, 2, 3, 5, 8, 13, 64, 100]) {
      const tree = new SumTree(capacity)
      const naive = new Float64Array(capacity)
      expect(tree.leaves).toBeGreaterThanOrEqual(capacity)
      expect(tree.leaves & (tree.leaves - 1)).toBe(0) // power of two
      for (let step = 0; step < 300; step++) {
        const i = rng.integers(capacity)
        // integer-valued priorities keep all partial sums exact, so the comparison is exact too
        const v = rng.random() < 0.2 ? 0 : rng.integers(1, 100)
        tree.update(i, v)
        naive[i] = v
        const total = naive.reduce((a, b) => a + b, 0)
        expect(tree.total()).toBe(total)
        expect(tree.get(i)).toBe(v)
        if (total > 0) {
          for (let k = 0; k < 5; k++) {
            const u = rng.random() * total
            const got = tree.findPrefixSum(u)
            expect(got).toBe(naivePrefix(naive, u))
            expect(naive[got]!).toBeGreaterThan(0)
          }
          // exactly at the cumulative boundaries: cumsum[i] maps to the next positive leaf
          let acc = 0
          for (let j = 0; j < capacity; j++) {
            acc += naive[j]!
            if (acc < total) expect(tree.findPrefixSum(acc)).toBe(naivePrefix(naive, acc))
          }
          // at or past the total: the last positive leaf, never a zero (padding) leaf
          expect(tree.findPrefixSum(total)).toBe(naivePrefix(naive, total))
          expect(tree.findPrefixSum(total * 2)).toBe(naivePrefix(naive, total))
        } else expect(tree.findPrefixSum(0)).toBe(-1)
      }
    }
  })

  it("keeps the root equal to the sum of the leaves with fractional values (no drift over many updates)", () => {
    const rng = Rng.make(3)
    const tree = new SumTree(1000)
    const naive = new Float64Array(1000)
    for (let step = 0; step < 20_000; step++) {
      const i = rng.integers(1000)
      naive[i] = rng.random()
      tree.update(i, naive[i]!)
    }
    const total = naive.reduce((a, b) => a + b, 0)
    expect(Math.abs(tree.total() - total)).toBeLessThan(1e-9)
    // each internal node is exactly the sum of its children
    for (let k = 1; k < tree.leaves; k++) expect(tree.nodes[k]).toBe(tree.nodes[2 * k]! + tree.nodes[2 * k + 1]!)
  })

  it("findPrefixSumBatch (level-by-level descent) equals the naive prefix search for any targets and trees", () => {
    const rng = Rng.make(11)
    for (const capacity of [1, 2, 3, 7, 16, 33, 1000, 5000]) {
      const tree = new SumTree(capacity)
      const naive = new Float64Array(capacity)
      for (let trial = 0; trial < 20; trial++) {
        // random sparse integer priorities (exact sums), zeros included
        for (let s = 0; s < Math.max(1, capacity >> 2); s++) {
          const i = rng.integers(capacity)
          naive[i] = rng.random() < 0.3 ? 0 : rng.integers(1, 50)
          tree.update(i, naive[i]!)
        }
        const total = naive.reduce((a, b) => a + b, 0)
        const n = 1 + rng.integers(300)
        // unsorted targets, in range and past the total, and a prefix `m < n` to check the count argument
        const us = Float64Array.from({ length: n }, () => (rng.random() < 0.1 ? total * (1 + rng.random()) : rng.random() * total))
        const out = new Int32Array(n).fill(-7)
        const m = 1 + rng.integers(n)
        tree.findPrefixSumBatch(us, out, m)
        for (let j = 0; j < m; j++) expect(out[j]).toBe(total > 0 ? naivePrefix(naive, us[j]!) : -1)
        for (let j = m; j < n; j++) expect(out[j]).toBe(-7) // untouched past the count
        tree.findPrefixSumBatch(us, out)
        for (let j = 0; j < n; j++) expect(out[j]).toBe(tree.findPrefixSum(us[j]!))
      }
    }
  })

  it("batch variants equal the single ones", () => {
    const a = new SumTree(10)
    const b = new SumTree(10)
    const idx = Int32Array.of(0, 3, 9, 3)
    const vals = Float64Array.of(1, 2, 3, 4)
    for (let j = 0; j < 4; j++) a.update(idx[j]!, vals[j]!)
    b.updateBatch(idx, vals)
    expect(Array.from(b.nodes)).toEqual(Array.from(a.nodes))
    expect(b.total()).toBe(8) // the later duplicate (index 3 -> 4) wins
    const us = Float64Array.of(0, 0.99, 1, 4.9, 5, 7.99)
    const out = new Int32Array(6)
    b.findPrefixSumBatch(us, out)
    expect(Array.from(out)).toEqual([0, 0, 3, 3, 9, 9])
  })

  it("set rejects indices out of range and negative or NaN values with InvalidPriorityError", () => {
    const t = new SumTree(4)
    expect(() => t.set(4, 1)).toThrow(expect.objectContaining({ _tag: "InvalidPriorityError", index: 4 }))
    expect(() => t.set(1, -1)).toThrow(expect.objectContaining({ _tag: "InvalidPriorityError", index: 1, value: -1 }))
    expect(() => t.set(1, Number.NaN)).toThrow(expect.objectContaining({ _tag: "InvalidPriorityError" }))
    expect(() => new SumTree(0)).toThrow(expect.objectContaining({ _tag: "InvalidOptionError", option: "capacity", value: 0 }))
  })
})

describe("MinTree", () => {
  it("matches a naive minimum under random updates", () => {
    const rng = Rng.make(11)
    for (const capacity of [1, 3, 7, 16, 33]) {
      const tree = new MinTree(capacity)
      const naive = new Float64Array(capacity).fill(Infinity)
      expect(tree.min()).toBe(Infinity)
      for (let step = 0; step < 300; step++) {
        const i = rng.integers(capacity)
        naive[i] = rng.random() * 10
        tree.update(i, naive[i]!)
        expect(tree.min()).toBe(Math.min(...naive))
      }
      tree.clear()
      expect(tree.min()).toBe(Infinity)
    }
  })

  it("batch update and checked set", () => {
    const t = new MinTree(5)
    t.updateBatch([0, 4, 2], [3, 1, 2])
    expect(t.min()).toBe(1)
    expect(t.get(4)).toBe(1)
    expect(t.get(1)).toBe(Infinity)
    expect(() => t.set(-1, 1)).toThrow(expect.objectContaining({ _tag: "InvalidPriorityError", index: -1 }))
  })
})

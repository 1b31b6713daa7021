import { Rng } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import { MinTree, SumTree } from "../src/index.js"
import { thrown } from "./helpers.js"
import { resolvedBy } from "./resolved.js"

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

/** The naive answer: the smallest i with values[0] + ... + values[i] > u and values[i] > 0. */
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

describe("SumTree (against a naive array; moved from @autodidact/memory)", () => {
  it("matches a naive array under random single updates (total, get, prefix search)", () => {
    const rng = Rng.make(7)
    for (const capacity of [1, 2, 3, 5, 8, 13, 64, 100]) {
      const tree = SumTree.make(capacity)
      expect(tree.capacity).toBeGreaterThanOrEqual(capacity)
      expect(tree.capacity & (tree.capacity - 1)).toBe(0) // power of two
      const naive = new Float64Array(capacity)
      for (let step = 0; step < 300; step++) {
        const i = rng.integers(capacity)
        // integer-valued priorities keep all partial sums exact, so the comparison is exact too
        const v = rng.random() < 0.2 ? 0 : rng.integers(1, 100)
        SumTree.set(tree, i, v)
        naive[i] = v
        const total = naive.reduce((a, b) => a + b, 0)
        expect(SumTree.total(tree)).toBe(total)
        expect(SumTree.get(tree, i)).toBe(v)
        if (total > 0) {
          const us = Float64Array.from({ length: 5 }, () => rng.random() * total)
          const got = SumTree.sampleBatch(tree, us)
          for (let k = 0; k < 5; k++) {
            expect(got.indices[k]).toBe(naivePrefix(naive, us[k]!))
            expect(got.priorities[k]).toBe(naive[got.indices[k]!])
            expect(naive[got.indices[k]!]!).toBeGreaterThan(0)
          }
          // exactly at the cumulative boundaries: cumsum[i] maps to the next positive slot
          const bounds: Array<number> = []
          let acc = 0
          for (let j = 0; j < capacity; j++) {
            acc += naive[j]!
            if (acc < total) bounds.push(acc)
          }
          const at = SumTree.sampleBatch(tree, bounds).indices
          bounds.forEach((u, k) => expect(at[k]).toBe(naivePrefix(naive, u)))
        } else expect(thrown(() => SumTree.sampleBatch(tree, [0])).reason).toBe("empty-segment")
      }
    }
  })

  it("keeps the root equal to the sum of the leaves with fractional values (no drift over many updates)", () => {
    const rng = Rng.make(3)
    const tree = SumTree.make(1000)
    const naive = new Float64Array(1000)
    for (let step = 0; step < 20_000; step++) {
      const i = rng.integers(1000)
      naive[i] = rng.random()
      SumTree.set(tree, i, naive[i]!)
    }
    const total = naive.reduce((a, b) => a + b, 0)
    expect(Math.abs(SumTree.total(tree) - total)).toBeLessThan(1e-9)
    // each internal node is exactly the sum of its children
    for (let k = 1; k < tree.capacity; k++) expect(tree.nodes[k]).toBe(tree.nodes[2 * k]! + tree.nodes[2 * k + 1]!)
  })

  it("the level-by-level batch descent equals the naive prefix search for unsorted targets and sparse trees", () => {
    const rng = Rng.make(11)
    for (const capacity of [1, 2, 3, 7, 16, 33, 1000, 5000]) {
      const tree = SumTree.make(capacity)
      const naive = new Float64Array(capacity)
      for (let trial = 0; trial < 20; trial++) {
        // random sparse integer priorities (exact sums), zeros included
        const idx: Array<number> = []
        const val: Array<number> = []
        for (let s = 0; s < Math.max(1, capacity >> 2); s++) {
          const i = rng.integers(capacity)
          const v = rng.random() < 0.3 ? 0 : rng.integers(1, 50)
          idx.push(i)
          val.push(v)
          naive[i] = v
        }
        SumTree.updateBatch(tree, idx, val)
        const total = naive.reduce((a, b) => a + b, 0)
        if (!(total > 0)) continue
        const n = 1 + rng.integers(300)
        const us = Float64Array.from({ length: n }, () => rng.random() * total)
        // a count m < n: only the first m are written, into a reused out
        const out = { indices: new Int32Array(n).fill(-7), priorities: new Float64Array(n) }
        const m = 1 + rng.integers(n)
        expect(SumTree.sampleBatch(tree, us, out, m)).toBe(out)
        for (let j = 0; j < m; j++) expect(out.indices[j]).toBe(naivePrefix(naive, us[j]!))
        for (let j = m; j < n; j++) expect(out.indices[j]).toBe(-7) // untouched past the count
        // out.priorities may alias the prefixes
        const again = Float64Array.from(us)
        const aliased = SumTree.sampleBatch(tree, again, { indices: new Int32Array(n), priorities: again })
        for (let j = 0; j < n; j++) expect(aliased.priorities[j]).toBe(naive[naivePrefix(naive, us[j]!)])
      }
    }
  })

  it("set and updateBatch give identical trees; set rejects bad slots and priorities, changing nothing", () => {
    const a = SumTree.make(10)
    const b = SumTree.make(10)
    const idx = Int32Array.of(0, 3, 9, 3)
    const vals = Float64Array.of(1, 2, 3, 4)
    for (let j = 0; j < 4; j++) SumTree.set(a, idx[j]!, vals[j]!)
    SumTree.updateBatch(b, idx, vals)
    expect(Array.from(b.nodes)).toEqual(Array.from(a.nodes))
    expect(SumTree.total(b)).toBe(8) // the later duplicate (slot 3 -> 4) wins
    expect(Array.from(SumTree.sampleBatch(b, [0, 0.99, 1, 4.9, 5, 7.99]).indices)).toEqual([0, 0, 3, 3, 9, 9])
    const before = Array.from(b.nodes)
    expect(thrown(() => SumTree.set(b, 16, 1)).detail).toBe("slot 16 at index 0 is outside [0, 16)")
    expect(thrown(() => SumTree.set(b, 1, -1)).reason).toBe("range")
    expect(thrown(() => SumTree.set(b, 1, Number.NaN)).reason).toBe("non-finite")
    expect(thrown(() => SumTree.updateBatch(b, [1, 2], [1, Infinity])).reason).toBe("non-finite")
    expect(Array.from(b.nodes)).toEqual(before)
    expect(thrown(() => SumTree.make(0))).toMatchObject({ _tag: "KernelInputError", input: "capacity", reason: "range" })
    expect(thrown(() => SumTree.make(2 ** 30 + 1))).toMatchObject({ _tag: "KernelInputError", input: "capacity" })
    SumTree.clear(b)
    expect(SumTree.total(b)).toBe(0)
  })
})

describe("@autodidact/kernels/trees", () => {
  it("loads the trees without TensorFlow.js, ONNX Runtime or the kernels index", () => {
    const { stdout, urls } = resolvedBy(`const { SumTree, MinTree } = await import("@autodidact/kernels/trees")
const t = SumTree.make(4)
SumTree.updateBatch(t, [0, 1, 2, 3], [1, 2, 3, 4])
// process.stdout.write, not console.log: under FORCE_COLOR (Nx sets it) console.log colours numbers
process.stdout.write(Array.from(SumTree.sampleBatch(t, [0.5, 2.5, 9.9]).indices).join(",") + " " + String(MinTree.min(MinTree.make(2))) + "\\n")`)
    expect(stdout.trim()).toBe("0,1,3 Infinity")
    expect(urls.some((u) => u.endsWith("/kernels/src/trees.ts"))).toBe(true)
    expect(urls.filter((u) => /tensorflow|onnxruntime|kernels\/src\/index\.ts/.test(u))).toEqual([])
  }, 60_000)
})

describe("SumTree.updateBatchWithMin (fused sum and min update)", () => {
  it("gives the trees of updateBatch + MinTree.updateBatch, for sorted, unsorted and duplicate slots", () => {
    const rng = Rng.make(5)
    for (const capacity of [1, 2, 5, 64, 1000]) {
      const s1 = SumTree.make(capacity)
      const m1 = MinTree.make(capacity)
      const s2 = SumTree.make(capacity)
      const m2 = MinTree.make(capacity)
      const naive = new Float64Array(capacity)
      const scratch = new Int32Array(64)
      for (let trial = 0; trial < 30; trial++) {
        const n = 1 + rng.integers(40)
        const idx = Int32Array.from({ length: n }, () => rng.integers(capacity))
        if (trial % 2 === 0) idx.sort() // sorted, as a stratified sample's slots are (adjacent duplicates included)
        const pr = Float64Array.from({ length: n }, () => (rng.random() < 0.1 ? 0 : rng.random() * 10))
        SumTree.updateBatchWithMin(s1, m1, idx, pr, scratch)
        SumTree.updateBatch(s2, idx, pr)
        MinTree.updateBatch(m2, idx, pr)
        for (let b = 0; b < n; b++) naive[idx[b]!] = pr[b]!
      }
      expect(Array.from(s1.nodes)).toEqual(Array.from(s2.nodes))
      expect(Array.from(m1.nodes)).toEqual(Array.from(m2.nodes))
      // every internal node is exactly the sum / min of its children, and the leaves are the last writes
      for (let k = 1; k < s1.capacity; k++) {
        expect(s1.nodes[k]).toBe(s1.nodes[2 * k]! + s1.nodes[2 * k + 1]!)
        expect(m1.nodes[k]).toBe(Math.min(m1.nodes[2 * k]!, m1.nodes[2 * k + 1]!))
      }
      for (let j = 0; j < capacity; j++) expect(SumTree.get(s1, j)).toBe(naive[j])
    }
  })

  it("rejects a min tree of another capacity and bad priorities, changing nothing", () => {
    const s = SumTree.make(8)
    const m = MinTree.make(8)
    SumTree.updateBatchWithMin(s, m, [1, 2], [3, 4])
    const before = [Array.from(s.nodes), Array.from(m.nodes)]
    expect(thrown(() => SumTree.updateBatchWithMin(s, MinTree.make(16), [0], [1]))).toMatchObject({ kernel: "SumTree.updateBatchWithMin", input: "mins", reason: "shape" })
    expect(thrown(() => SumTree.updateBatchWithMin(s, m, [0, 1], [1, Number.NaN])).reason).toBe("non-finite")
    expect(thrown(() => SumTree.updateBatchWithMin(s, m, [0, 8], [1, 1])).detail).toBe("slot 8 at index 1 is outside [0, 8)")
    expect(thrown(() => SumTree.updateBatchWithMin(s, m, [0], [1, 2])).reason).toBe("shape")
    expect([Array.from(s.nodes), Array.from(m.nodes)]).toEqual(before)
    expect([SumTree.total(s), MinTree.min(m)]).toEqual([7, 3])
  })
})

describe("SumTree.updateBatchWithMin with a count", () => {
  it("updates only the first count entries; a count past either array is a shape error", () => {
    const s = SumTree.make(4)
    const m = MinTree.make(4)
    SumTree.updateBatchWithMin(s, m, [0, 1, 2], Float64Array.of(5, 6, 7, 8), undefined, 2)
    expect([SumTree.total(s), MinTree.min(m), SumTree.get(s, 2)]).toEqual([11, 5, 0])
    expect(thrown(() => SumTree.updateBatchWithMin(s, m, [0, 1], [1, 2, 3], undefined, 3))).toMatchObject({ input: "priorities", reason: "shape" })
    expect(SumTree.total(s)).toBe(11)
  })
})

describe("SumTree.sampleBatch where rounding puts a prefix at a subtree's mass", () => {
  /** The descent rule of the module docs, one prefix at a time: right only if u ≥ left sum and the right has mass. */
  const checked = (t: SumTree.SumTree, u: number): number => {
    let n = 1
    while (n < t.capacity) {
      const l = t.nodes[2 * n]!
      const right = u >= l && t.nodes[2 * n + 1]! > 0
      if (right) u -= l
      n = 2 * n + (right ? 1 : 0)
    }
    return n - t.capacity
  }
  it("equals the checked one-prefix descent, never returning a zero slot, also where the unchecked walk would", () => {
    const rng = Rng.make(5)
    let wouldHitZero = 0
    let compared = 0
    const mismatches: Array<string> = []
    for (let trial = 0; trial < 100; trial++) {
      const capacity = 8 + rng.integers(120)
      const tree = SumTree.make(capacity)
      // fractional priorities (rounded sums) and runs of zeros, so that prefixes near a subtree's mass round past it
      const pr = Float64Array.from({ length: capacity }, () => (rng.random() < 0.4 ? 0 : rng.random() * 10 ** (rng.integers(7) - 3)))
      pr[rng.integers(capacity)] = 0.1 + rng.random()
      SumTree.updateBatch(tree, Int32Array.from({ length: capacity }, (_, i) => i), pr)
      const total = SumTree.total(tree)
      // prefixes at and just below every left-subtree boundary of every node's path, plus the top of the range
      const us: Array<number> = []
      let acc = 0
      for (let i = 0; i < capacity; i++) {
        acc += pr[i]!
        for (const u of [acc, acc * (1 - 2 ** -52), acc * (1 + 2 ** -52)]) if (u >= 0 && u < total) us.push(u)
      }
      us.push(total * (1 - Number.EPSILON), 0)
      const got = SumTree.sampleBatch(tree, us)
      for (let j = 0; j < us.length; j++) {
        const want = checked(tree, us[j]!)
        if (got.indices[j] !== want || got.priorities[j] !== pr[want] || !(pr[want]! > 0)) mismatches.push(`trial ${trial} u ${us[j]}: ${got.indices[j]} vs ${want}`)
        if (pr[walkUnchecked(tree, us[j]!)] === 0) wouldHitZero++
        compared++
      }
    }
    expect(mismatches).toEqual([])
    expect(compared).toBeGreaterThan(10_000)
    expect(wouldHitZero).toBeGreaterThan(0) // the fallback path was exercised
  })
})

/** Right whenever u ≥ left sum (no mass check): the first pass of the batched descent. */
const walkUnchecked = (t: SumTree.SumTree, u: number): number => {
  let n = 1
  while (n < t.capacity) {
    const l = t.nodes[2 * n]!
    const right = u >= l
    if (right) u -= l
    n = 2 * n + (right ? 1 : 0)
  }
  return n - t.capacity
}

/** Indices of the first entries where `a` and `b` differ bit for bit (`Object.is`: `-0` and `0` differ). */
const bitDiff = (a: Float64Array, b: Float64Array): Array<number> => {
  const out: Array<number> = []
  for (let i = 0; i < a.length && out.length < 5; i++) if (!Object.is(a[i], b[i])) out.push(i)
  return a.length === b.length ? out : [-1]
}

describe("batched updates equal sequential sets bit for bit (property)", () => {
  it("SumTree.updateBatch, MinTree.updateBatch and updateBatchWithMin against one set per entry, in order", () => {
    const rng = Rng.make(23)
    let cases = 0
    for (const capacity of [1, 2, 3, 8, 100, 1024, 5000]) {
      const seqS = SumTree.make(capacity)
      const seqM = MinTree.make(capacity)
      const batS = SumTree.make(capacity)
      const batM = MinTree.make(capacity)
      const fusS = SumTree.make(capacity)
      const fusM = MinTree.make(capacity)
      const scratch = new Int32Array(4096)
      for (let trial = 0; trial < 12; trial++) {
        // batch sizes below, at and above the capacity and around powers of two (the dense top's boundaries)
        const n = [1, 2, 3, 7, 8, 9, 255, 256, 257, 2 * capacity + 1][rng.integers(10)]!
        // few distinct slots in some batches, so one batch writes the same slot several times
        const range = rng.random() < 0.3 ? Math.min(capacity, 4) : capacity
        const idx = Int32Array.from({ length: n }, () => rng.integers(range))
        if (rng.random() < 0.5) idx.sort() // sorted, as a stratified sample's slots are
        const pr = Float64Array.from({ length: n }, () => {
          const r = rng.random()
          return r < 0.05 ? 0 : r < 0.1 ? -0 : r < 0.15 ? 2 ** -1074 : rng.random() * 10 ** (rng.integers(9) - 4)
        })
        for (let b = 0; b < n; b++) {
          SumTree.set(seqS, idx[b]!, pr[b]!)
          MinTree.set(seqM, idx[b]!, pr[b]!)
        }
        SumTree.updateBatch(batS, idx, pr)
        MinTree.updateBatch(batM, idx, pr, scratch)
        // the fused update with a count: only the first n entries of longer arrays
        const idxLong = Int32Array.from([...idx, 0, 0])
        const prLong = Float64Array.from([...pr, 5, 5])
        SumTree.updateBatchWithMin(fusS, fusM, idxLong, prLong, scratch, n)
        expect(bitDiff(batS.nodes, seqS.nodes)).toEqual([])
        expect(bitDiff(batM.nodes, seqM.nodes)).toEqual([])
        expect(bitDiff(fusS.nodes, seqS.nodes)).toEqual([])
        expect(bitDiff(fusM.nodes, seqM.nodes)).toEqual([])
        // the last write of a slot wins
        const last = new Map<number, number>()
        for (let b = 0; b < n; b++) last.set(idx[b]!, pr[b]!)
        for (const [j, v] of last) expect(Object.is(SumTree.get(batS, j), v)).toBe(true)
        cases++
      }
      // and the descent over the batched tree returns what it returns over the sequential one
      const tot = SumTree.total(seqS)
      if (tot > 0) {
        const us = Float64Array.from({ length: 64 }, (_, b) => Math.min(((b + rng.random()) * tot) / 64, tot * (1 - Number.EPSILON)))
        const a = SumTree.sampleBatch(seqS, us)
        const b = SumTree.sampleBatch(fusS, us)
        expect(Array.from(b.indices)).toEqual(Array.from(a.indices))
        expect(bitDiff(b.priorities, a.priorities)).toEqual([])
      }
    }
    expect(cases).toBe(84)
  })

  it("gives the same tree for sorted, reversed and shuffled orders of distinct slots", () => {
    const rng = Rng.make(29)
    const capacity = 4096
    const slots = Int32Array.from({ length: 300 }, () => rng.integers(capacity))
    const distinct = Int32Array.from(new Set(slots))
    const pr = Float64Array.from(distinct, () => rng.random())
    const trees = [0, 1, 2].map(() => ({ s: SumTree.make(capacity), m: MinTree.make(capacity) }))
    const orders = [Int32Array.from(distinct.keys()).sort((a, b) => distinct[a]! - distinct[b]!), Int32Array.from(distinct.keys()).reverse(), Int32Array.from(distinct.keys())]
    orders[2]!.sort(() => rng.random() - 0.5)
    orders.forEach((o, t) => SumTree.updateBatchWithMin(trees[t]!.s, trees[t]!.m, Int32Array.from(o, (k) => distinct[k]!), Float64Array.from(o, (k) => pr[k]!)))
    for (const t of trees.slice(1)) {
      expect(bitDiff(t.s.nodes, trees[0]!.s.nodes)).toEqual([])
      expect(bitDiff(t.m.nodes, trees[0]!.m.nodes)).toEqual([])
    }
    expect(SumTree.total(trees[0]!.s)).toBeGreaterThan(0)
  })
})

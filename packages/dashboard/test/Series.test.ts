import { describe, expect, it } from "vitest"
import * as Series from "../src/Series.js"

describe("smooth (TensorBoard's debiased EMA)", () => {
  it("matches hand-computed values", () => {
    // w = 0.5: last = 0.5, 1.25, 2.125; debias 1 - 0.5^n = 0.5, 0.75, 0.875
    const s = Series.smooth([1, 2, 3], 0.5)
    expect(s[0]).toBeCloseTo(1, 12)
    expect(s[1]).toBeCloseTo(1.25 / 0.75, 12)
    expect(s[2]).toBeCloseTo(2.125 / 0.875, 12)
  })
  it("is the identity at weight 0, keeps constants, passes non-finite values through", () => {
    expect(Series.smooth([3, 1, 2], 0)).toEqual([3, 1, 2])
    expect(Series.smooth([4, 4, 4], 0.9)).toEqual([4, 4, 4])
    const s = Series.smooth([1, NaN, 3], 0.5)
    expect(s[0]).toBe(1)
    expect(s[1]).toBeNaN()
    expect(s[2]).toBeCloseTo((0.25 + 1.5) / 0.75, 12)
  })
  it("first value is never biased towards 0", () => {
    expect(Series.smooth([100, 100.5], 0.99)[0]).toBeCloseTo(100, 10)
  })
})

describe("lttb", () => {
  const n = 10_000
  const x = Array.from({ length: n }, (_, i) => i)
  const y = x.map((i) => Math.sin(i / 50) * 10 + (i === 4321 ? 1000 : 0))
  it("returns exactly `threshold` points: a subsequence with the first and last points", () => {
    const d = Series.lttb({ x, y }, 500)
    expect(d.x.length).toBe(500)
    expect(d.x[0]).toBe(0)
    expect(d.x[499]).toBe(n - 1)
    for (let i = 0; i < d.x.length; i++) {
      expect(d.y[i]).toBe(y[d.x[i]!])
      if (i > 0) expect(d.x[i]!).toBeGreaterThan(d.x[i - 1]!)
    }
  })
  it("keeps a spike", () => {
    expect(Series.lttb({ x, y }, 200).x).toContain(4321)
  })
  it("returns short series unchanged", () => {
    expect(Series.lttb({ x: [1, 2, 3], y: [4, 5, 6] }, 10)).toEqual({ x: [1, 2, 3], y: [4, 5, 6] })
  })
})

describe("minMax", () => {
  it("keeps every bucket's extremes, at most 2 per bucket", () => {
    const x = Array.from({ length: 1000 }, (_, i) => i)
    const y = x.map((i) => (i * 37) % 101)
    const d = Series.minMax({ x, y }, 50)
    expect(d.x.length).toBeLessThanOrEqual(100)
    expect(Math.max(...d.y)).toBe(100)
    expect(Math.min(...d.y)).toBe(0)
  })
})

describe("band", () => {
  it("mean, std, min, max on the shared range (hand-computed)", () => {
    const b = Series.band([{ x: [0, 10], y: [0, 10] }, { x: [0, 10, 20], y: [10, 30, 50] }], 3)!
    expect(b.x).toEqual([0, 5, 10])
    expect(b.mean).toEqual([5, 12.5, 20])
    expect(b.std).toEqual([5, 7.5, 10])
    expect(b.min).toEqual([0, 5, 10])
    expect(b.max).toEqual([10, 20, 30])
    expect(b.n).toBe(2)
  })
  it("is undefined for disjoint runs", () => {
    expect(Series.band([{ x: [0, 1], y: [0, 1] }, { x: [5, 6], y: [0, 1] }], 10)).toBeUndefined()
  })
})

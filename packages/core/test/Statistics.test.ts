import { describe, expect, it } from "vitest"
import { InvalidOptionError } from "../src/Errors.js"
import { meanInterval, median, quantile, studentTQuantile, tInterval, wilsonInterval } from "../src/Statistics.js"

describe("Statistics", () => {
  it("median: the middle value, the mean of the middle two for an even count; input untouched", () => {
    const xs = [3, 1, 2]
    expect(median(xs)).toBe(2)
    expect(xs).toEqual([3, 1, 2])
    expect(median(new Float64Array([4, 1, 3, 2]))).toBe(2.5)
    expect(median([7])).toBe(7)
  })

  it("quantile: NumPy's default linear interpolation (numpy.quantile([1, 2, 3, 4], q))", () => {
    // numpy 2.x: quantile([1,2,3,4], [0, .25, .5, .9, 1]) = [1, 1.75, 2.5, 3.7, 4]
    const xs = [4, 2, 1, 3]
    expect(quantile(xs, 0)).toBe(1)
    expect(quantile(xs, 0.25)).toBe(1.75)
    expect(quantile(xs, 0.5)).toBe(2.5)
    expect(quantile(xs, 0.9)).toBeCloseTo(3.7, 12)
    expect(quantile(xs, 1)).toBe(4)
  })

  it("Wilson score interval: published 95% bounds for 0/10 and 5/10; inside [0, 1]", () => {
    const none = wilsonInterval(0, 10)
    expect(none.estimate).toBe(0)
    expect(none.low).toBe(0)
    expect(none.high).toBeCloseTo(0.2775, 4)
    const half = wilsonInterval(5, 10)
    expect(half.low).toBeCloseTo(0.2366, 4)
    expect(half.high).toBeCloseTo(0.7634, 4)
    const all = wilsonInterval(200, 200)
    expect(all.high).toBe(1)
    expect(all.low).toBeCloseTo(1 - 0.01884, 4)
  })

  it("meanInterval: mean ± 1.96·s/√n by hand; a single sample is its own interval", () => {
    const r = meanInterval([1, 2, 3, 4]) // s = √(5/3), s/√4 = 0.645497
    expect(r.estimate).toBe(2.5)
    expect(r.low).toBeCloseTo(2.5 - 1.959964 * 0.6454972, 6)
    expect(r.high).toBeCloseTo(2.5 + 1.959964 * 0.6454972, 6)
    expect(meanInterval([3])).toEqual({ estimate: 3, low: 3, high: 3 })
  })

  it("bad input throws InvalidOptionError naming the value", () => {
    expect(() => median([])).toThrow(InvalidOptionError)
    expect(() => median([1, Number.NaN])).toThrow(/quantile sample\[1\].*NaN/)
    expect(() => quantile([1], 1.5)).toThrow(/quantile p = 1.5/)
    expect(() => wilsonInterval(11, 10)).toThrow(/successes = 11/)
    expect(() => wilsonInterval(1, 0)).toThrow(/trials = 0/)
    expect(() => meanInterval([1, 2], 0)).toThrow(/z = 0/)
  })

  it("studentTQuantile matches the closed forms for 1 and 2 degrees of freedom and published table values", () => {
    // df = 1 is the Cauchy distribution: t_p = tan(π(p − ½)); df = 2: t_p = (2p − 1)·√(2 / (4p(1 − p))).
    for (const p of [0.6, 0.9, 0.975, 0.995, 0.1]) {
      expect(studentTQuantile(p, 1)).toBeCloseTo(Math.tan(Math.PI * (p - 0.5)), 9)
      expect(studentTQuantile(p, 2)).toBeCloseTo((2 * p - 1) * Math.sqrt(2 / (4 * p * (1 - p))), 9)
    }
    // Two-sided 95% values of the standard t table (e.g. Abramowitz & Stegun, table 26.10).
    expect(studentTQuantile(0.975, 3)).toBeCloseTo(3.182446, 5)
    expect(studentTQuantile(0.975, 5)).toBeCloseTo(2.570582, 5)
    expect(studentTQuantile(0.975, 10)).toBeCloseTo(2.228139, 5)
    expect(studentTQuantile(0.975, 30)).toBeCloseTo(2.042272, 5)
    expect(studentTQuantile(0.995, 4)).toBeCloseTo(4.604095, 5)
    expect(studentTQuantile(0.975, 1e7)).toBeCloseTo(1.959964, 5)
    expect(studentTQuantile(0.5, 7)).toBe(0)
    expect(() => studentTQuantile(1, 3)).toThrow(InvalidOptionError)
    expect(() => studentTQuantile(0.9, 0)).toThrow(/df/)
    expect(() => studentTQuantile(Number.NaN, 3)).toThrow(/studentTQuantile p/)
  })

  it("tInterval widens meanInterval by Student's t for n − 1 degrees of freedom", () => {
    const xs = [0.2, 0.5, 0.35]
    const mean = 0.35
    const half = 4.302652729911275 * 0.15 / Math.sqrt(3) // s = 0.15
    const i = tInterval(xs)
    expect(i.estimate).toBeCloseTo(mean, 12)
    expect(i.low).toBeCloseTo(mean - half, 8)
    expect(i.high).toBeCloseTo(mean + half, 8)
    expect(tInterval([0.4])).toEqual({ estimate: 0.4, low: 0.4, high: 0.4 })
    expect(() => tInterval(xs, 1)).toThrow(/tInterval level/)
    expect(() => tInterval([0.1, Number.NaN])).toThrow(InvalidOptionError)
  })
})

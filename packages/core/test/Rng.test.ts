import { describe, expect, it } from "@effect/vitest"
import { InvalidSeedError, Rng } from "@autodidact/core"

// Expected values were produced by NumPy 2.4 (`numpy.random.default_rng`), an independent implementation:
//   r = np.random.default_rng(42); r.random(3)
//   np.random.default_rng(0).integers(10, size=5)
//   r = np.random.default_rng(12345678901234); r.random(), r.uniform(-0.05, 0.05)
//   a, b = np.random.default_rng(7).spawn(2); a.random(), b.random()
//   r = np.random.default_rng(3); r.integers(1, 7, size=5), r.integers(1000003)
//   v = np.random.default_rng(5).bit_generator.random_raw(); v >> 32, v & 0xffffffff
//   a = np.random.default_rng(2024).random(100000); a[0], a[99999], a.sum()
//   np.random.default_rng([1, 2, 3]).bit_generator.random_raw(3)
describe("Rng (NumPy PCG64 + SeedSequence compatibility)", () => {
  it("random() matches default_rng(42)", () => {
    const r = Rng.make(42)
    expect([r.random(), r.random(), r.random()]).toEqual([0.7739560485559633, 0.4388784397520523, 0.8585979199113825])
  })

  it("integers() matches NumPy's bounded Lemire draws", () => {
    const r = Rng.make(0)
    expect(Array.from({ length: 5 }, () => r.integers(10))).toEqual([8, 6, 5, 2, 3])
    const r3 = Rng.make(3)
    expect(Array.from({ length: 5 }, () => r3.integers(1, 7))).toEqual([5, 1, 2, 2, 2])
    expect(r3.integers(1000003)).toBe(801276)
  })

  it("multi-word seeds and uniform() match", () => {
    const r = Rng.make(12345678901234)
    expect(r.random()).toBe(0.40637757035390765)
    expect(r.uniform(-0.05, 0.05)).toBe(-0.047379643659062554)
  })

  it("split() matches SeedSequence.spawn", () => {
    const p = Rng.make(7)
    const [a, b] = p.spawn(2)
    expect(a!.random()).toBe(0.7978591868433563)
    expect(b!.random()).toBe(0.4805820057358118)
  })

  it("raw 64-bit output matches", () => {
    expect(Rng.make(5).nextUint64()).toEqual([3457461230, 2881021352])
  })

  it("fillRandom() matches default_rng(2024).random(100000) and equals as many random() calls", () => {
    const a = Rng.make(2024).fillRandom(new Float64Array(100_000))
    expect(a[0]).toBe(0.6758313379812818)
    expect(a[99_999]).toBe(0.5596432868036147)
    let sum = 0
    for (const x of a) sum += x
    expect(sum).toBeCloseTo(49867.93268997794, 6)
    const r = Rng.make(2024)
    for (let i = 0; i < 1000; i++) expect(r.random()).toBe(a[i])
    // a sub-range leaves the rest untouched and continues the stream
    const b = Rng.make(2024)
    const part = b.fillRandom(new Array<number>(5).fill(-1), 1, 3)
    expect(part).toEqual([-1, a[0], a[1], -1, -1])
    expect(b.random()).toBe(a[2])
    expect(() => b.fillRandom(new Float64Array(3), 2, 1)).toThrow(RangeError)
    expect(() => b.fillRandom(new Float64Array(3), 0, 4)).toThrow(RangeError)
  })

  it("raw 64-bit output of a multi-word seed matches over several steps", () => {
    const r = Rng.make([1, 2, 3])
    const words = (hi: bigint) => [Number(hi >> 32n), Number(hi & 0xffffffffn)]
    for (const v of [12368030237656201616n, 2047858591075935483n, 9435677134316251571n]) expect(r.nextUint64()).toEqual(words(v))
  })

  it("getState/fromState continues the same stream", () => {
    const r = Rng.make(11)
    r.random()
    r.nextUint32()
    const copy = Rng.fromState(JSON.parse(JSON.stringify(r.getState())))
    for (let i = 0; i < 10; i++) expect(copy.random()).toBe(r.random())
    expect(copy.nextUint32()).toBe(r.nextUint32())
  })

  it("categorical() returns the first index whose cumulative probability exceeds the draw", () => {
    const u = Rng.make(42).random() // 0.7739...
    expect(u).toBeGreaterThan(0.7)
    expect(Rng.make(42).categorical([0.5, 0.2, 0.3])).toBe(2)
    expect(Rng.make(42).categorical([0.5, 0.3, 0.2])).toBe(1)
  })

  it("normal() has mean 0 and variance 1 (property, 20k draws)", () => {
    const r = Rng.make(1)
    let s = 0
    let s2 = 0
    const n = 20000
    for (let i = 0; i < n; i++) {
      const z = r.normal()
      s += z
      s2 += z * z
    }
    expect(Math.abs(s / n)).toBeLessThan(0.03)
    expect(Math.abs(s2 / n - 1)).toBeLessThan(0.05)
  })

  it("rejects invalid seeds with a typed error naming the seed", () => {
    expect(() => Rng.make(-1)).toThrow(InvalidSeedError)
    expect(() => Rng.make(1.5)).toThrow(/1.5/)
    expect(() => Rng.make([2 ** 32])).toThrow(InvalidSeedError)
  })

  it("clone() continues the stream exactly (buffered word and spare normal included) and is independent", () => {
    const a = Rng.make(7)
    a.integers(100)
    a.normal() // leaves a spare normal buffered
    const b = a.clone()
    const draw = (r: Rng) => [r.normal(), r.integers(1000), r.random(), r.integers(5), r.normal(), r.normal()]
    const fromA = draw(a)
    expect(draw(b)).toEqual(fromA)
    // advancing the original does not move the clone
    const c = a.clone()
    const next = draw(a)
    a.random()
    expect(draw(c)).toEqual(next)
  })

  it("fromState(getState()) continues the stream exactly after an odd number of normal() draws (the spare normal is saved)", () => {
    const a = Rng.make(11)
    a.normal() // leaves the second normal of the polar pair buffered
    const b = Rng.fromState(JSON.parse(JSON.stringify(a.getState())))
    expect([b.normal(), b.normal(), b.random()]).toEqual([a.normal(), a.normal(), a.random()])
    // a state saved without the field (before 0.2) restores with no spare
    const { spareNormal: _, ...old } = Rng.make(12).getState()
    expect(Rng.fromState(old).random()).toBe(Rng.make(12).random())
  })
})

import { describe, expect, it } from "@effect/vitest"
import { Rng, Space } from "@autodidact/core"
import { Schema } from "effect"

describe("Space", () => {
  it("Discrete.contains follows Gymnasium (integers in [start, start+n))", () => {
    const s = Space.discrete(3, -1)
    expect([-1, 0, 1].every((x) => Space.contains(s, x))).toBe(true)
    expect(Space.contains(s, 2)).toBe(false)
    expect(Space.contains(s, 0.5)).toBe(false)
    expect(Space.contains(s, "0")).toBe(false)
  })

  it("Discrete.sample is start + integers(n) (Gymnasium's stream)", () => {
    const s = Space.discrete(10)
    const rng = Rng.make(0)
    // numpy: np.random.default_rng(0).integers(10, size=5) == [8, 6, 5, 2, 3]
    expect(Array.from({ length: 5 }, () => Space.sample(s, rng))).toEqual([8, 6, 5, 2, 3])
  })

  it("Box bounds, dtype and NaN", () => {
    const s = Space.box([-1, 0], [1, 2], [2])
    expect(Space.contains(s, new Float32Array([0, 1]))).toBe(true)
    expect(Space.contains(s, new Float32Array([0, 3]))).toBe(false)
    expect(Space.contains(s, new Float32Array([Number.NaN, 1]))).toBe(false)
    expect(Space.contains(s, new Float64Array([0, 1]))).toBe(false)
    expect(Space.contains(s, [0, 1])).toBe(false)
    expect(() => Space.box([0, 0], [1], [2])).toThrow(/high has 1 elements/)
  })

  it("samples are members (property over every kind of space)", () => {
    const spaces = [
      Space.discrete(5, 2),
      Space.box(-2, 3, [2, 3]),
      Space.box(0, Infinity, [4], "float64"),
      Space.box(0, 255, [3], "uint8"),
      Space.multiDiscrete([2, 3, 4]),
      Space.multiBinary(6),
      Space.text(5, { minLength: 2, charset: "ab" }),
      Space.tuple([Space.discrete(2), Space.box(-1, 1, [1])]),
      Space.dict({ pos: Space.box(-1, 1, [2]), id: Space.discrete(4) })
    ]
    const rng = Rng.make(123)
    for (const s of spaces) {
      for (let i = 0; i < 50; i++) expect(Space.contains(s, Space.sample(s, rng)), Space.describe(s)).toBe(true)
    }
  })

  it("equals tells infinite bounds of opposite sign apart (JSON alone writes both as null)", () => {
    const inf = Number.POSITIVE_INFINITY
    const a = Space.box([-1, -inf], [1, inf], [2])
    expect(Space.equals(a, Space.box([-1, -inf], [1, inf], [2]))).toBe(true)
    expect(Space.equals(a, Space.box([-1, -inf], [1, -inf], [2]))).toBe(false)
    expect(Space.equals(a, Space.box([-1, inf], [1, inf], [2]))).toBe(false)
    expect(Space.equals(a, Space.box([-1, -inf], [2, inf], [2]))).toBe(false)
    expect(Space.equals(Space.discrete(3), Space.discrete(3))).toBe(true)
    expect(Space.equals(Space.discrete(3), Space.discrete(4))).toBe(false)
  })

  it("flatDim and flattenInto give one-hot encodings", () => {
    const s = Space.tuple([Space.discrete(3), Space.multiDiscrete([2, 2]), Space.box(-1, 1, [2])])
    expect(Space.flatDim(s)).toBe(3 + 4 + 2)
    const out = new Float32Array(9)
    Space.flattenInto(s, [1, new Int32Array([1, 0]), new Float32Array([0.5, -0.5])], out)
    expect(Array.from(out)).toEqual([0, 1, 0, 0, 1, 1, 0, 0.5, -0.5])
  })

  it("round-trips through the Space schema (JSON)", () => {
    const s = Space.dict({ a: Space.box(-4.8, 4.8, [4]), b: Space.tuple([Space.discrete(2)]) })
    const decoded = Schema.decodeUnknownSync(Space.Space)(JSON.parse(JSON.stringify(s)))
    expect(Space.equals(decoded, s)).toBe(true)
    expect(() => Schema.decodeUnknownSync(Space.Space)({ _tag: "Discrete", n: "two" })).toThrow()
  })

  it("describe() reads like Gymnasium's repr", () => {
    expect(Space.describe(Space.discrete(2))).toBe("Discrete(2)")
    expect(Space.describe(Space.box(-1, 1, [3]))).toBe("Box(-1, 1, (3,), float32)")
  })
})

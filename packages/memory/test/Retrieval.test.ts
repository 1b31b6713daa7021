import { describe, expect, it } from "@effect/vitest"
import { planEviction, planMerges } from "../src/store/Consolidation.js"
import { cosine, minMaxNormalize, normalizeFilters, rank, recency } from "../src/store/Retrieval.js"
import { InvalidQueryError } from "../src/store/StoreErrors.js"

describe("Retrieval", () => {
  it("recency decays by 0.995 per hour (Generative Agents)", () => {
    expect(recency(0, 3_600_000)).toBeCloseTo(0.995, 12)
    expect(recency(0, 100 * 3_600_000)).toBeCloseTo(0.6057704364907278, 12)
    expect(recency(10, 0)).toBe(1)
  })
  it("min-max normalization; constants contribute 0", () => {
    expect(Array.from(minMaxNormalize(Float64Array.from([2, 4, 3])))).toEqual([0, 1, 0.5])
    expect(Array.from(minMaxNormalize(Float64Array.from([5, 5])))).toEqual([0, 0])
  })
  it("rank sums the weighted normalized components", () => {
    const r = rank(
      [
        { id: "a", relevance: 1, recency: 0.5, importance: 0 },
        { id: "b", relevance: 0, recency: 1, importance: 1 },
        { id: "c", relevance: 0.5, recency: 0.75, importance: 0.5 }
      ],
      { relevance: 3, recency: 1, importance: 1 },
      2
    )
    // a: 3*1 + 0.5/0.5*0 + 0 = 3; b: 0 + 1 + 1 = 2; c: 3*0.5 + 0.5 + 0.5 = 2.5
    expect(r.map((x) => [x.id, x.score])).toEqual([["a", 3], ["c", 2.5]])
  })
  it("cosine of zero vectors is 0", () => {
    expect(cosine(new Float32Array(3), Float32Array.from([1, 0, 0]))).toBe(0)
  })
  it("invalid filters name the value", () => {
    const e = normalizeFilters({ outcome: "win" as never })
    expect(e).toBeInstanceOf(InvalidQueryError)
    expect((e as InvalidQueryError).message).toContain("\"win\"")
    expect(normalizeFilters({ task: "t", kind: ["tip"] })).toEqual({ task: ["t"], kind: ["tip"] })
  })
})

describe("Consolidation", () => {
  it("merges into the strongest of a near-duplicate group", () => {
    const e = (x: number, y: number) => Float32Array.from([x, y])
    const m = planMerges(
      [
        { id: "weak", embedding: e(1, 0.01), support: 1, upvotes: 0, downvotes: 0, createdAt: 0 },
        { id: "strong", embedding: e(1, 0), support: 4, upvotes: 0, downvotes: 0, createdAt: 5 },
        { id: "other", embedding: e(0, 1), support: 9, upvotes: 0, downvotes: 0, createdAt: 0 }
      ],
      0.99
    )
    expect(m).toEqual([{ into: "strong", absorbed: ["weak"] }])
  })
  it("evicts the lowest recency + importance first", () => {
    const ids = planEviction(
      [
        { id: "old-unimportant", lastAccessedAt: 0, importance: 0 },
        { id: "new-important", lastAccessedAt: 100 * 3_600_000, importance: 1 },
        { id: "old-important", lastAccessedAt: 0, importance: 0.9 }
      ],
      2,
      { now: 100 * 3_600_000, decay: 0.995, recencyWeight: 1, importanceWeight: 1 }
    )
    expect(ids).toEqual(["old-unimportant"])
  })
})

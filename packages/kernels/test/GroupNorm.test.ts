import { Rng } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { GroupNorm } from "../src/index.js"
import { Backend, GroupNormTf } from "../src/tfjs.js"
import { close, thrown } from "./helpers.js"

describe("GroupNorm (hand-computed)", () => {
  it("segment statistics over unsorted, variable-size groups", () => {
    // group 0: {1, 3, 5} mean 3, unbiased std 2; group 1: {10, 20} mean 15, std √50; group 2: {7} std 0
    const s = GroupNorm.segmentStatsSync({ values: [1, 10, 3, 7, 20, 5], segmentIds: [0, 1, 0, 2, 1, 0], numSegments: 3 })
    expect(Array.from(s.count)).toEqual([3, 2, 1])
    close(s.mean, [3, 15, 7])
    close(s.std, [2, Math.sqrt(50), 0])
    close(GroupNorm.segmentStatsSync({ values: [1, 3, 5], segmentIds: [0, 0, 0], numSegments: 1, ddof: 0 }).std, [Math.sqrt(8 / 3)])
  })

  it("GRPO normalization (x − μ) / (σ + ε) and Dr. GRPO's x − μ", () => {
    const input = { values: [1, 10, 3, 7, 20, 5], segmentIds: [0, 1, 0, 2, 1, 0], numSegments: 3, eps: 0 }
    const s50 = Math.sqrt(50)
    close(GroupNorm.groupNormalizeSync({ ...input, eps: 1e-12 }), [-1, -5 / s50, 0, 0, 5 / s50, 1])
    close(GroupNorm.groupNormalizeSync({ ...input, scale: false }), [-2, -5, 0, 0, 5, 2])
  })

  it("RLOO: b_i = mean of the others", () => {
    const r = GroupNorm.rlooSync({ values: [1, 10, 3, 20, 5], segmentIds: [0, 1, 0, 1, 0], numSegments: 2 })
    close(r.baselines, [4, 20, 3, 10, 2])
    close(r.advantages, [-3, -10, 0, 10, 3])
  })

  it("GiGPO anchor groups: (episode group, anchor state) pairs", () => {
    // steps of group 0 at anchor 7: returns 1, 3; group 0 anchor 8: 5; group 1 anchor 7: 2, 4, 6 (a different group)
    const r = GroupNorm.anchorStatsSync({ values: [1, 3, 5, 2, 4, 6], groupIds: [0, 0, 0, 1, 1, 1], anchorKeys: [7, 7, 8, 7, 7, 7], eps: 0, scale: false })
    expect(r.numAnchors).toBe(3)
    expect(Array.from(r.anchorIds)).toEqual([0, 0, 1, 2, 2, 2])
    close(r.mean, [2, 5, 4])
    close(r.advantages, [-1, 1, 0, -2, 0, 2])
  })

  it("one-member groups carry no relative signal: advantage 0 in GRPO, Dr. GRPO, RLOO and GiGPO step groups", () => {
    // groups {4, 6} and {9}: GRPO ±1/(√2 + ε)·1 (std of {4, 6} is √2), Dr. GRPO ±1, RLOO 4 − 6 = −2, 6 − 4 = 2
    const input = { values: [4, 9, 6], segmentIds: [0, 1, 0], numSegments: 2 }
    const s2 = Math.sqrt(2)
    close(GroupNorm.groupNormalizeSync({ ...input, eps: 1e-6 }), [-1 / (s2 + 1e-6), 0, 1 / (s2 + 1e-6)])
    expect(GroupNorm.groupNormalizeSync({ ...input, eps: 0 })[1]).toBe(0)
    expect(Array.from(GroupNorm.groupNormalizeSync({ ...input, scale: false }))).toEqual([-1, 0, 1])
    const r = GroupNorm.rlooSync(input)
    expect(Array.from(r.advantages)).toEqual([-2, 0, 2])
    expect(Array.from(r.baselines)).toEqual([6, 9, 4]) // the one member's baseline is itself
    // GiGPO: anchor 3 of group 0 is a singleton step group
    const a = GroupNorm.anchorStatsSync({ values: [1, 3, 5], groupIds: [0, 0, 0], anchorKeys: [2, 2, 3], eps: 0 })
    close(a.advantages, [-1 / s2, 1 / s2, 0])
    expect(a.advantages[2]).toBe(0)
  })

  it("n = 2 and n = 3 groups against hand arithmetic (sample std, ddof = 1)", () => {
    // {0, 1}: μ 0.5, σ = √(0.5/1) = 0.70711 → ∓0.70711; {1, 2, 6}: μ 3, σ = √((4 + 1 + 9)/2) = √7 → −2/√7, −1/√7, 3/√7
    const input = { values: [0, 1, 1, 2, 6], segmentIds: [0, 0, 1, 1, 1], numSegments: 2, eps: 0 }
    const s7 = Math.sqrt(7)
    close(GroupNorm.groupNormalizeSync(input), [-0.5 / Math.SQRT1_2, 0.5 / Math.SQRT1_2, -2 / s7, -1 / s7, 3 / s7])
    // RLOO: 0 − 1 = −1, 1 − 0 = 1; 1 − (2+6)/2 = −3, 2 − (1+6)/2 = −1.5, 6 − (1+2)/2 = 4.5
    close(GroupNorm.rlooSync(input).advantages, [-1, 1, -3, -1.5, 4.5])
    // the double-precision cores agree and write Float64 without rounding to float32
    const out = new Float64Array(5)
    GroupNorm.normalizeInto(input.values, input.segmentIds, Int32Array.of(2, 3), 1, 0, true, new Float64Array(2), new Float64Array(2), out)
    expect(out[4]).toBe(3 / s7)
    const adv = new Float64Array(5)
    GroupNorm.rlooInto(input.values, input.segmentIds, Int32Array.of(2, 3), new Float64Array(2), new Float64Array(5), adv)
    expect(Array.from(adv)).toEqual([-1, 1, -3, -1.5, 4.5])
  })

  it.effect("RLOO on TensorFlow.js: a one-member group gets baseline x and advantage 0, not NaN", () =>
    Effect.gen(function*() {
      const { tf } = yield* Backend.select({ force: "cpu" })
      const r = GroupNormTf.rlooTf(tf, { values: [4, 9, 6], segmentIds: [0, 1, 0], numSegments: 2 })
      expect(Array.from(r.advantages)).toEqual([-2, 0, 2])
      expect(Array.from(r.baselines)).toEqual([6, 9, 4])
    }))

  it("bad input: empty segment, id out of range, NaN", () => {
    const empty = thrown(() => GroupNorm.groupNormalizeSync({ values: [1, 2], segmentIds: [0, 2], numSegments: 3 }))
    expect(empty.message).toBe("GroupNorm on typed-array: input segmentIds [2]: empty-segment: segment 1 of 3 has 0 members (needs ≥ 1)")
    expect(thrown(() => GroupNorm.rlooSync({ values: [1, 2], segmentIds: [0, 2], numSegments: 3 })).reason).toBe("empty-segment")
    expect(thrown(() => GroupNorm.groupNormalizeSync({ values: [1, 2], segmentIds: [0, 5], numSegments: 1 })).reason).toBe("range")
    expect(thrown(() => GroupNorm.groupNormalizeSync({ values: [1, Infinity], segmentIds: [0, 0], numSegments: 1 })).reason).toBe("non-finite")
  })

  it("RLOO one-pass kernel = the leave-one-out definition bit for bit on random unsorted groups; fused checks name bad input", () => {
    const rng = Rng.make(21)
    for (const [n, G] of [[2, 1], [7, 3], [1000, 37], [4096, 512]] as const) {
      const ids = Int32Array.from({ length: n }, (_, i) => (i < 2 * G ? i % G : Math.floor(rng.random() * G)))
      for (let i = n - 1; i > 0; i--) {
        const j = Math.floor(rng.random() * (i + 1))
        const t = ids[i]!
        ids[i] = ids[j]!
        ids[j] = t
      }
      const values = Float32Array.from({ length: n }, () => rng.normal())
      for (const input of [{ values, segmentIds: ids, numSegments: G }, { values: Array.from(values), segmentIds: Array.from(ids), numSegments: G }]) {
        const r = GroupNorm.rlooSync(input)
        for (let i = 0; i < n; i++) {
          let m = 0
          for (let j = 0; j < n; j++) if (ids[j] === ids[i]) m++
          const sum = (() => {
            let s = 0
            for (let j = 0; j < n; j++) if (ids[j] === ids[i]) s += values[j]!
            return s
          })()
          const others = (sum - values[i]!) / (m - 1)
          expect(r.baselines[i]).toBe(Math.fround(others))
          expect(r.advantages[i]).toBe(Math.fround(values[i]! - others))
        }
      }
    }
    const nan = thrown(() => GroupNorm.rlooSync({ values: [1, 2, Number.NaN, 4], segmentIds: [0, 0, 1, 1], numSegments: 2 }))
    expect([nan.reason, nan.detail]).toEqual(["non-finite", "NaN at flat index 2"])
    expect(thrown(() => GroupNorm.rlooSync({ values: [1, 2, 3, 4], segmentIds: [0, 0, 1.5, 1], numSegments: 2 })).reason).toBe("range")
    expect(thrown(() => GroupNorm.rlooSync({ values: [1, 2, 3, 4], segmentIds: [0, 0, 2, 1], numSegments: 2 })).reason).toBe("range")
    expect(thrown(() => GroupNorm.rlooSync({ values: [1, 2, 3], segmentIds: [0, 0, 0], numSegments: 2 })).reason).toBe("empty-segment")
  })
})

import { Rng } from "@autodidact/core"
import { MinTree, SumTree } from "@autodidact/kernels/trees"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as PrioritizedReplay from "../src/replay/PrioritizedReplay.js"
import * as ReplayFile from "../src/replay/ReplayFile.js"

/** A PER buffer with `n` transitions, transition t having observation [t] and reward t. */
const filled = (n: number, options: Partial<PrioritizedReplay.Options> = {}) => {
  const per = PrioritizedReplay.unsafeMake({ capacity: n, obsDim: 1, seed: 2, ...options })
  for (let t = 0; t < n; t++) per.add([t], 0, t, [t + 1], false, false)
  return per
}

describe("PrioritizedReplay", () => {
  it("new transitions get the maximal priority seen so far", () => {
    const per = filled(3, { capacity: 8, alpha: 0.5 })
    expect([0, 1, 2].map((i) => per.priority(i))).toEqual([1, 1, 1])
    per.updatePriorities([0, 1], [3 - 1e-6, -0.5]) // |delta| + eps: 3 and 0.5 + 1e-6
    expect(per.maxPriority).toBeCloseTo(3, 12)
    per.add([3], 0, 3, [4], false, false)
    expect(per.priority(3)).toBeCloseTo(Math.sqrt(3), 12)
    expect(per.priority(1)).toBeCloseTo(Math.sqrt(0.5 + 1e-6), 12)
    expect(SumTree.total(per.sums)).toBeCloseTo(2 * Math.sqrt(3) + Math.sqrt(0.500001) + 1, 12)
  })

  it("importance weights on a 4-item example, by hand: w_i = (N P(i))^-beta / max_j w_j", () => {
    // raw priorities 1, 4, 9, 16 with alpha = 0.5 -> p = 1, 2, 3, 4; P = 0.1, 0.2, 0.3, 0.4; N = 4; beta = 0.5
    // (N P)^-beta = 0.4^-0.5, 0.8^-0.5, 1.2^-0.5, 1.6^-0.5; the largest is 0.4^-0.5, so w = 1, 1/sqrt(2), 1/sqrt(3), 1/2
    const per = filled(4, { alpha: 0.5 })
    per.setPriorities([0, 1, 2, 3], [1, 4, 9, 16])
    const expected = [1, 1 / Math.SQRT2, 1 / Math.sqrt(3), 0.5]
    const batch = per.sample(4, Rng.make(0), undefined, 0.5)
    for (let k = 0; k < 4; k++) {
      const i = batch.indices[k]!
      expect(batch.weights[k]).toBeCloseTo(expected[i]!, 6)
      expect(batch.observations[k]).toBe(i)
      expect(batch.rewards[k]).toBe(i)
    }
    // stratified: segments [0, 2.5), [2.5, 5), [5, 7.5), [7.5, 10) of the cumulative sums 1, 3, 6, 10
    expect(batch.indices[0]!).toBeLessThanOrEqual(1)
    expect([1, 2]).toContain(batch.indices[1]!)
    expect([2, 3]).toContain(batch.indices[2]!)
    expect(batch.indices[3]).toBe(3)
    // beta = 1 gives p_min / p_i; beta = 0 gives all ones
    const b1 = per.sample(4, Rng.make(0), undefined, 1)
    for (let k = 0; k < 4; k++) expect(b1.weights[k]).toBeCloseTo(1 / (b1.indices[k]! + 1), 6)
    const b0 = per.sample(4, Rng.make(0), undefined, 0)
    expect(Array.from(b0.weights)).toEqual([1, 1, 1, 1])
  })

  it("sampling frequencies converge to p_i / sum p (chi-square with a fixed seed)", () => {
    const raw = [0.5, 1, 2, 3, 5, 8, 0.1, 13]
    const alpha = 0.7
    const per = filled(raw.length, { alpha })
    per.setPriorities([0, 1, 2, 3, 4, 5, 6, 7], raw)
    const p = raw.map((x) => Math.pow(x, alpha))
    const total = p.reduce((a, b) => a + b, 0)
    const counts = new Array(raw.length).fill(0)
    const rng = Rng.make(123)
    const out = per.allocateBatch(8)
    const draws = 4000 * 8
    for (let k = 0; k < 4000; k++) for (const i of per.sample(8, rng, out).indices) counts[i]++
    let chi2 = 0
    for (let i = 0; i < raw.length; i++) {
      const e = (draws * p[i]!) / total
      chi2 += (counts[i] - e) ** 2 / e
    }
    // 7 degrees of freedom: P(chi2 > 24.3) = 0.001; stratification makes the statistic smaller still
    expect(chi2).toBeLessThan(24.3)
  })

  it("chi-square over 60 rows with batches of 50 (descent groups of 8 plus a tail of 2), frequencies p_i / sum p", () => {
    const g = Rng.make(9)
    const raw = Array.from({ length: 60 }, () => 0.5 + 4.5 * g.random())
    const alpha = 0.6
    const per = filled(raw.length, { alpha })
    per.setPriorities(raw.map((_, i) => i), raw)
    const p = raw.map((x) => Math.pow(x, alpha))
    const total = p.reduce((a, b) => a + b, 0)
    const counts = new Array(raw.length).fill(0)
    const rng = Rng.make(321)
    const out = per.allocateBatch(50)
    for (let k = 0; k < 600; k++) for (const i of per.sample(50, rng, out).indices) counts[i]++
    let chi2 = 0
    for (let i = 0; i < raw.length; i++) {
      const e = (600 * 50 * p[i]!) / total
      chi2 += (counts[i] - e) ** 2 / e
    }
    // 59 degrees of freedom: P(chi2 > 98.3) = 0.001
    expect(chi2).toBeLessThan(98.3)
  })

  it("weights are (N P(i))^-beta / max_j (N P(j))^-beta over all stored rows (computed here with Math.pow)", () => {
    const g = Rng.make(4)
    const per = filled(37, { alpha: 0.7 })
    per.updatePriorities(Array.from({ length: 37 }, (_, i) => i), Array.from({ length: 37 }, () => g.normal() * 3))
    const pr = Array.from({ length: 37 }, (_, i) => per.priority(i))
    const total = pr.reduce((a, b) => a + b, 0)
    const rng = Rng.make(8)
    for (const beta of [0, 0.4, 0.77, 1]) {
      const maxW = Math.max(...pr.map((x) => Math.pow((37 * x) / total, -beta)))
      const batch = per.sample(20, rng, undefined, beta)
      for (let k = 0; k < 20; k++) {
        const i = batch.indices[k]!
        const want = Math.pow((37 * pr[i]!) / total, -beta) / maxW
        expect(Math.abs(batch.weights[k]! - want)).toBeLessThan(1e-6 * want) // float32 weights
        expect(batch.observations[k]).toBe(i)
      }
    }
  })

  it("updatePriorities in a batch: the last duplicate wins, and both trees equal the per-row priorities", () => {
    const per = filled(100, { alpha: 0.6, eps: 1e-6 })
    const g = Rng.make(12)
    const want = Array.from({ length: 100 }, (_, i) => per.priority(i))
    for (let round = 0; round < 20; round++) {
      const idx = Array.from({ length: 64 }, () => g.integers(100))
      if (round % 2 === 0) idx.sort((a, b) => a - b) // sorted (a stratified sample's order) with adjacent duplicates
      const td = idx.map(() => g.normal())
      per.updatePriorities(idx, td)
      idx.forEach((i, j) => (want[i] = Math.pow(Math.abs(td[j]!) + 1e-6, 0.6)))
    }
    for (let i = 0; i < 100; i++) expect(Math.abs(per.priority(i) - want[i]!)).toBeLessThan(1e-14 * want[i]!)
    const sum = Array.from({ length: 100 }, (_, i) => per.priority(i)).reduce((a, b) => a + b, 0)
    expect(Math.abs(SumTree.total(per.sums) - sum)).toBeLessThan(1e-12 * sum)
    expect(MinTree.min(per.mins)).toBe(Math.min(...Array.from({ length: 100 }, (_, i) => per.priority(i))))
    for (let k = 1; k < per.sums.capacity; k++) expect(per.sums.nodes[k]).toBe(per.sums.nodes[2 * k]! + per.sums.nodes[2 * k + 1]!)
  })

  it("beta anneals linearly from beta0 to 1 over betaSteps transitions added", () => {
    const per = PrioritizedReplay.unsafeMake({ capacity: 10, obsDim: 1, beta0: 0.4, betaSteps: 100 })
    expect(per.beta()).toBeCloseTo(0.4, 12)
    for (let t = 0; t < 50; t++) per.add([t], 0, 0, [t], false, false)
    expect(per.beta()).toBeCloseTo(0.7, 12)
    for (let t = 0; t < 80; t++) per.add([t], 0, 0, [t], false, false)
    expect(per.beta()).toBe(1)
  })

  it("addBatch sets the maximal priority on every new row, wrapping the ring", () => {
    const per = PrioritizedReplay.unsafeMake({ capacity: 3, obsDim: 1, alpha: 1 })
    per.addBatch([0, 1], [0, 0], [0, 0], [1, 2], [0, 0], [0, 0])
    per.updatePriorities([0, 1], [4, 1])
    per.addBatch([2, 3], [0, 0], [0, 0], [3, 4], [0, 0], [0, 0])
    expect([per.priority(0), per.priority(1), per.priority(2)]).toEqual([4 + 1e-6, 1 + 1e-6, 4 + 1e-6])
    expect(MinTree.min(per.mins)).toBeCloseTo(1 + 1e-6, 12)
  })

  it("updatePriorities rejects NaN/infinite TD errors and bad indices naming index and value, changing nothing", () => {
    const per = filled(4)
    const before = Array.from(per.sums.nodes)
    const minsBefore = Array.from(per.mins.nodes)
    const catchIt = (f: () => void) => {
      try {
        f()
      } catch (e) {
        return e as any
      }
      throw new Error("expected a throw")
    }
    const e = catchIt(() => per.updatePriorities(Int32Array.of(0, 2), Float32Array.of(0.5, Number.NaN)))
    expect(e).toMatchObject({ _tag: "InvalidPriorityError", index: 2 })
    expect(Number.isNaN(e.value)).toBe(true)
    expect(e.message).toBe("Invalid priority update at index 2 (value NaN): TD error is not finite")
    expect(catchIt(() => per.updatePriorities([1], [Infinity]))).toMatchObject({ index: 1, value: Infinity })
    expect(catchIt(() => per.updatePriorities([4], [1])).message).toBe("Invalid priority update at index 4 (value 1): index outside [0, size 4)")
    expect(catchIt(() => per.setPriorities([3], [-2])).message).toBe("Invalid priority update at index 3 (value -2): priority must be > 0")
    expect(catchIt(() => per.setPriorities([3], [0]))).toMatchObject({ _tag: "InvalidPriorityError", value: 0 })
    expect(catchIt(() => per.updatePriorities([0, 1], [1]))).toMatchObject({ _tag: "InvalidOptionError" })
    // a bad entry after a good one with a large TD error: nothing written, maxPriority not raised
    const maxBefore = per.maxPriority
    expect(catchIt(() => per.updatePriorities([0, 1.5], [100, 1]))).toMatchObject({ _tag: "InvalidPriorityError", index: 1.5 })
    expect(catchIt(() => per.setPriorities([2, 1], [100, -0]))).toMatchObject({ _tag: "InvalidPriorityError", index: 1 })
    expect(per.maxPriority).toBe(maxBefore)
    expect(Array.from(per.sums.nodes)).toEqual(before)
    expect(Array.from(per.mins.nodes)).toEqual(minsBefore)
    expect(catchIt(() => per.sample(5))).toMatchObject({ _tag: "InsufficientDataError", requested: 5, size: 4 })
    expect(catchIt(() => per.sample(2, Rng.make(0), undefined, 1.5))).toMatchObject({ _tag: "InvalidOptionError", option: "beta" })
    expect(catchIt(() => PrioritizedReplay.unsafeMake({ capacity: 0, obsDim: 1 }))).toMatchObject({ _tag: "InvalidOptionError", option: "capacity" })
    expect(catchIt(() => PrioritizedReplay.unsafeMake({ capacity: 4, obsDim: 1, alpha: -1 }))).toMatchObject({ option: "alpha", value: -1 })
  })

  it.effect("save/load round-trips priorities, max priority, beta schedule and generator", () =>
    Effect.gen(function* () {
      const per = filled(6, { capacity: 8, alpha: 0.6, beta0: 0.5, betaSteps: 20 })
      per.updatePriorities([0, 3, 5], [2, 0.1, 7])
      const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "autodidact-per-")), "per.bin")
      yield* ReplayFile.save(per, file)
      const back = yield* ReplayFile.load(file, PrioritizedReplay.PrioritizedReplay)
      expect(Array.from(back.sums.nodes)).toEqual(Array.from(per.sums.nodes))
      expect(Array.from(back.mins.nodes)).toEqual(Array.from(per.mins.nodes))
      expect([back.maxPriority, back.alpha, back.beta0, back.betaSteps, back.eps, back.beta()]).toEqual([
        per.maxPriority, per.alpha, per.beta0, per.betaSteps, per.eps, per.beta()
      ])
      const a = per.sample(4)
      const b = back.sample(4)
      expect(Array.from(b.indices)).toEqual(Array.from(a.indices))
      expect(Array.from(b.weights)).toEqual(Array.from(a.weights))
      expect(Array.from(b.observations)).toEqual(Array.from(a.observations))
    }))
})

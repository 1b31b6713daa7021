import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as NStep from "../src/replay/NStep.js"
import * as ReplayFile from "../src/replay/ReplayFile.js"
import type { TransitionSink } from "../src/replay/ReplayBuffer.js"
import * as ReplayBuffer from "../src/replay/ReplayBuffer.js"

interface Row {
  obs: number
  action: number
  reward: number
  next: number
  terminated: boolean
  truncated: boolean
  discount: number
}

/** A sink that records copies of what it gets (obsDim 1). */
const recorder = (): TransitionSink & { rows: Array<Row> } => {
  const rows: Array<Row> = []
  return {
    rows,
    add: (o, a, r, n, te, tr, d) => {
      rows.push({ obs: o[0]!, action: typeof a === "number" ? a : a[0]!, reward: r, next: n[0]!, terminated: !!te, truncated: !!tr, discount: d! })
      return rows.length - 1
    }
  }
}

/** Run one env through rewards 1..len with observations 0, 10, 20, ... ending with the given flag. */
const episode = (acc: NStep.NStep, sink: TransitionSink, len: number, end: "terminated" | "truncated", base = 0) => {
  const emitted: Array<number> = []
  for (let t = 0; t < len; t++) {
    const last = t === len - 1
    emitted.push(acc.add(0, [base + 10 * t], t, t + 1, [base + 10 * (t + 1)], last && end === "terminated", last && end === "truncated", sink))
  }
  return emitted
}

describe("NStep", () => {
  // gamma = 0.5, n = 3, rewards 1, 2, 3, 4, 5, observations s_t = 10 t, final observation 50
  it("hand-computed returns when the episode terminates: the tail stops the sum and the bootstrap", () => {
    const acc = NStep.unsafeMake({ numEnvs: 1, n: 3, gamma: 0.5, obsDim: 1 })
    const sink = recorder()
    expect(episode(acc, sink, 5, "terminated")).toEqual([0, 0, 1, 1, 3])
    expect(sink.rows).toEqual([
      { obs: 0, action: 0, reward: 1 + 0.5 * 2 + 0.25 * 3, next: 30, terminated: false, truncated: false, discount: 0.125 }, // 2.75
      { obs: 10, action: 1, reward: 2 + 0.5 * 3 + 0.25 * 4, next: 40, terminated: false, truncated: false, discount: 0.125 }, // 4.5
      { obs: 20, action: 2, reward: 3 + 0.5 * 4 + 0.25 * 5, next: 50, terminated: true, truncated: false, discount: 0.125 }, // 6.25
      { obs: 30, action: 3, reward: 4 + 0.5 * 5, next: 50, terminated: true, truncated: false, discount: 0.25 }, // 6.5
      { obs: 40, action: 4, reward: 5, next: 50, terminated: true, truncated: false, discount: 0.5 }
    ])
    expect(acc.pending(0)).toBe(0)
  })

  it("hand-computed returns when the episode is truncated: the sum stops but the tail bootstraps from the final observation", () => {
    const acc = NStep.unsafeMake({ numEnvs: 1, n: 3, gamma: 0.5, obsDim: 1 })
    const sink = recorder()
    episode(acc, sink, 5, "truncated")
    expect(sink.rows.slice(2)).toEqual([
      { obs: 20, action: 2, reward: 6.25, next: 50, terminated: false, truncated: true, discount: 0.125 },
      { obs: 30, action: 3, reward: 6.5, next: 50, terminated: false, truncated: true, discount: 0.25 },
      { obs: 40, action: 4, reward: 5, next: 50, terminated: false, truncated: true, discount: 0.5 }
    ])
  })

  it("an episode shorter than n and the next episode do not mix", () => {
    const acc = NStep.unsafeMake({ numEnvs: 1, n: 3, gamma: 0.5, obsDim: 1 })
    const sink = recorder()
    episode(acc, sink, 2, "terminated")
    episode(acc, sink, 1, "truncated", 100)
    expect(sink.rows).toEqual([
      { obs: 0, action: 0, reward: 1 + 0.5 * 2, next: 20, terminated: true, truncated: false, discount: 0.25 },
      { obs: 10, action: 1, reward: 2, next: 20, terminated: true, truncated: false, discount: 0.5 },
      { obs: 100, action: 0, reward: 1, next: 110, terminated: false, truncated: true, discount: 0.5 }
    ])
  })

  it("n = 1 is a pass-through with discount gamma", () => {
    const acc = NStep.unsafeMake({ numEnvs: 1, n: 1, gamma: 0.9, obsDim: 1 })
    const sink = recorder()
    episode(acc, sink, 3, "terminated")
    expect(sink.rows.map((r) => [r.obs, r.reward, r.next, r.terminated, r.discount])).toEqual([
      [0, 1, 10, false, 0.9],
      [10, 2, 20, false, 0.9],
      [20, 3, 30, true, 0.9]
    ])
  })

  it("vector envs accumulate independently and feed a replay buffer; flush emits the rest as truncated", () => {
    const acc = NStep.unsafeMake({ numEnvs: 2, n: 2, gamma: 0.5, obsDim: 2 })
    const buffer = ReplayBuffer.unsafeMake({ capacity: 16, obsDim: 2 })
    // step 0: both continue; step 1: env 0 terminates, env 1 continues (emits its step 0 with n = 2)
    expect(acc.addBatch([0, 0, 1, 1], [0, 1], [1, 10], [2, 2, 3, 3], [0, 0], [0, 0], buffer)).toBe(0)
    expect(acc.addBatch([2, 2, 3, 3], [0, 1], Float64Array.of(2, 20), [4, 4, 5, 5], Uint8Array.of(1, 0), Uint8Array.of(0, 0), buffer)).toBe(3)
    expect(buffer.size).toBe(3)
    // env 0 (terminated) drains oldest first: s=0 R=1+0.5*2, then s=2 R=2; env 1 emits s=1 R=10+0.5*20
    expect(Array.from(buffer.column("rewards").subarray(0, 3))).toEqual([2, 2, 20])
    expect(Array.from(buffer.column("terminated").subarray(0, 3))).toEqual([1, 1, 0])
    expect(Array.from(buffer.column("discounts").subarray(0, 3))).toEqual([0.25, 0.5, 0.25])
    expect(Array.from(buffer.column("observations").subarray(0, 6))).toEqual([0, 0, 2, 2, 1, 1])
    expect(Array.from(buffer.column("nextObservations").subarray(0, 6))).toEqual([4, 4, 4, 4, 5, 5])
    expect(acc.pending(1)).toBe(1)
    expect(acc.flush(buffer)).toBe(1)
    expect([buffer.column("rewards")[3], buffer.column("truncated")[3], buffer.column("terminated")[3], buffer.column("discounts")[3]]).toEqual([20, 1, 0, 0.5])
    expect(Array.from(buffer.column("nextObservations").subarray(6, 8))).toEqual([5, 5])
  })

  it("rejects bad input before changing anything", () => {
    const acc = NStep.unsafeMake({ numEnvs: 2, n: 3, gamma: 0.9, obsDim: 2 })
    const sink = recorder()
    expect(() => acc.addBatch([0, 0, 0], [0, 0], [0, 0], [0, 0, 0, 0], [0, 0], [0, 0], sink)).toThrow(
      expect.objectContaining({ _tag: "ShapeMismatchError", expected: 4, actual: 3 })
    )
    expect(() => acc.addBatch([0, 0, 0, 0], [0, 0], [0, Number.NaN], [0, 0, 0, 0], [0, 0], [0, 0], sink)).toThrow(
      expect.objectContaining({ _tag: "NonFiniteValueError", index: 1 })
    )
    expect(() => acc.addBatch([0, 0, 0, 0], [0, 0.5], [0, 0], [0, 0, 0, 0], [0, 0], [0, 0], sink)).toThrow(
      expect.objectContaining({ _tag: "DtypeMismatchError", value: 0.5 })
    )
    // the same step checks as ReplayBuffer.addBatch (one shared implementation): errors name the column
    expect(() => acc.addBatch([0, 0, 0, 0], [0, 0], [0], [0, 0, 0, 0], [0, 0], [0, 0], sink)).toThrow(
      expect.objectContaining({ _tag: "ShapeMismatchError", where: "NStep.addBatch rewards", expected: 2, actual: 1 })
    )
    expect(() => acc.addBatch([0, 0, 0, 0], [0, 0], [0, 0], [0, 0, 0, 0], [0, 0], [0], sink)).toThrow(
      expect.objectContaining({ _tag: "ShapeMismatchError", where: "NStep.addBatch truncations" })
    )
    const wide = NStep.unsafeMake({ numEnvs: 1, n: 2, gamma: 0.9, obsDim: 1, actDim: 2, actionDtype: "float32" })
    expect(() => wide.add(0, [0], 1, 0.5, [1], false, false, sink)).toThrow(
      expect.objectContaining({ _tag: "ShapeMismatchError", where: "NStep.add action", expected: 2, actual: 1 })
    )
    expect(acc.pending(0) + acc.pending(1) + wide.pending(0)).toBe(0)
    expect(sink.rows).toHaveLength(0)
    expect(() => NStep.unsafeMake({ numEnvs: 1, n: 0, gamma: 0.9, obsDim: 1 })).toThrow(
      expect.objectContaining({ _tag: "InvalidOptionError", option: "n", value: 0 })
    )
  })

  it.effect("save/load keeps the pending steps", () =>
    Effect.gen(function* () {
      const fresh = NStep.unsafeMake({ numEnvs: 1, n: 3, gamma: 0.5, obsDim: 1 })
      const s1 = recorder()
      fresh.add(0, [0], 0, 1, [10], false, false, s1)
      fresh.add(0, [10], 1, 2, [20], false, false, s1)
      const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "autodidact-nstep-")), "nstep.bin")
      yield* ReplayFile.save(fresh, file)
      const loaded = yield* ReplayFile.load(file, NStep.NStep)
      const s2 = recorder()
      fresh.add(0, [20], 2, 3, [30], false, true, s1)
      loaded.add(0, [20], 2, 3, [30], false, true, s2)
      expect(s2.rows).toEqual(s1.rows)
      expect(s2.rows.map((r) => r.reward)).toEqual([1 + 0.5 * 2 + 0.25 * 3, 2 + 0.5 * 3, 3])
    }))
})

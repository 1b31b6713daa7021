import { Trajectory } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as EpisodeBuffer from "../src/replay/EpisodeBuffer.js"
import * as ReplayFile from "../src/replay/ReplayFile.js"

const f32 = (...xs: Array<number>) => Float32Array.from(xs)

describe("EpisodeBuffer", () => {
  it("assembles per-env trajectories from vector steps and emits them when episodes end", () => {
    const buf = EpisodeBuffer.unsafeMake({ envId: "Toy-v0", numEnvs: 2, obsDim: 1, initialLength: 1 })
    // env 0 observes 0, 1, 2, ... ; env 1 observes 100, 101, ...
    expect(buf.addBatch([0, 100], [1, 0], [1, 10], [1, 101], [0, 0], [0, 0], { logProbs: [-0.5, -0.1], values: [2, 3] })).toEqual([])
    const done1 = buf.addBatch([1, 101], [0, 1], [1, 20], [2, 102], [0, 1], [0, 0], { logProbs: [-0.6, -0.2], values: [2, 3] })
    expect(done1).toHaveLength(1)
    const t1 = done1[0]!
    expect(t1.envId).toBe("Toy-v0")
    expect(t1.length).toBe(2)
    expect(t1.return).toBe(30)
    expect(t1.finalObservation).toEqual(f32(102))
    expect(t1.steps.map((s) => [s.observation, s.action, s.reward, s.terminated, s.truncated, s.logProb, s.value])).toEqual([
      [f32(100), 0, 10, false, false, -0.1, 3],
      [f32(101), 1, 20, true, false, -0.2, 3]
    ])
    // the record decodes with core's schema (after toJsonValue)
    expect(() => Schema.decodeUnknownSync(Trajectory.Trajectory)(Trajectory.toJsonValue(t1))).not.toThrow()
    // env 1 starts a new trajectory (its reset observation 0), env 0 is truncated at its third step
    const done2 = buf.addBatch([2, 0], [1, 1], [1, 5], [3, 1], [0, 0], [1, 0])
    expect(done2.map((t) => [t.length, t.return, t.steps[2]!.truncated, t.steps[2]!.terminated, t.steps[2]!.logProb])).toEqual([[3, 3, true, false, undefined]])
    expect(done2[0]!.finalObservation).toEqual(f32(3))
    expect([buf.length(0), buf.length(1)]).toEqual([0, 1])
  })

  it("partial() shows in-progress trajectories without clearing; drain() clears", () => {
    const buf = EpisodeBuffer.unsafeMake({ envId: "Toy-v0", numEnvs: 2, obsDim: 2, actDim: 2, actionDtype: "float32" })
    buf.addBatch(f32(0, 0, 1, 1), f32(0.5, 0.5, 1, 1), [1, 2], f32(2, 2, 3, 3), [0, 0], [0, 0])
    const p = buf.partial()
    expect(p.map((t) => [t.length, t.return, t.steps[0]!.terminated, t.steps[0]!.truncated])).toEqual([[1, 1, false, false], [1, 2, false, false]])
    expect(p[1]!.steps[0]!.action).toEqual(f32(1, 1))
    expect(p[1]!.finalObservation).toEqual(f32(3, 3))
    expect(buf.length(0)).toBe(1)
    expect(buf.drain()).toHaveLength(2)
    expect(buf.partial()).toEqual([])
  })

  it("rejects bad input before recording anything", () => {
    const buf = EpisodeBuffer.unsafeMake({ envId: "Toy-v0", numEnvs: 2, obsDim: 1 })
    expect(() => buf.addBatch([0, 0], [0, 0], [0, Number.NaN], [0, 0], [0, 0], [0, 0])).toThrow(expect.objectContaining({ _tag: "NonFiniteValueError", index: 1 }))
    expect(() => buf.addBatch([0], [0, 0], [0, 0], [0, 0], [0, 0], [0, 0])).toThrow(expect.objectContaining({ _tag: "ShapeMismatchError", expected: 2, actual: 1 }))
    expect(() => buf.addBatch(Int32Array.of(0, 0), [0, 0], [0, 0], [0, 0], [0, 0], [0, 0])).toThrow(expect.objectContaining({ _tag: "DtypeMismatchError" }))
    expect(buf.length(0) + buf.length(1)).toBe(0)
    expect(() => EpisodeBuffer.unsafeMake({ envId: "x", numEnvs: 0, obsDim: 1 })).toThrow(expect.objectContaining({ _tag: "InvalidOptionError", option: "numEnvs", value: 0 }))
  })

  it.effect("save/load keeps in-progress trajectories", () =>
    Effect.gen(function* () {
      const buf = EpisodeBuffer.unsafeMake({ envId: "Toy-v0", numEnvs: 3, obsDim: 1, initialLength: 2 })
      for (let t = 0; t < 5; t++) buf.addBatch([t, 10 + t, 20 + t], [0, 1, 0], [1, 2, 3], [t + 1, 11 + t, 21 + t], [0, t === 3 ? 1 : 0, 0], [0, 0, 0], { logProbs: [t, t, t] })
      const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "autodidact-episodes-")), "ep.bin")
      yield* ReplayFile.save(buf, file)
      const back = yield* ReplayFile.load(file, EpisodeBuffer.EpisodeBuffer)
      expect([back.length(0), back.length(1), back.length(2)]).toEqual([5, 1, 5])
      expect(back.partial()).toEqual(buf.partial())
    }))
})

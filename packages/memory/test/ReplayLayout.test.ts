import { Rng } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as PrioritizedReplay from "../src/replay/PrioritizedReplay.js"
import * as ReplayBuffer from "../src/replay/ReplayBuffer.js"
import * as ReplayFile from "../src/replay/ReplayFile.js"
import { batchJson, largeHashes, makePrioritized, makeUniform } from "./fixtures/replay-v1/generate.js"

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures", "replay-v1")
/** What the column-layout code (commit 42916d5) wrote and sampled (see fixtures/replay-v1/generate.ts). */
const expected = JSON.parse(fs.readFileSync(path.join(fixtures, "expected.json"), "utf8"))

describe("ReplayBuffer interleaved rows", () => {
  it("files written by the column layout load, and sample exactly what that code sampled", () => {
    const u = ReplayFile.loadSync(path.join(fixtures, "uniform.bin"), ReplayBuffer.ReplayBuffer)
    expect([u.size, u.pointer, u.added]).toEqual([7, 3, 10])
    // row 3 (transition 3, overwritten by nothing): observation [3, -3, 0.75], action 3, reward 0.5, truncated
    expect(Array.from(u.column("observations").subarray(9, 12))).toEqual([3, -3, 0.75])
    expect([u.column("actions")[3], u.column("rewards")[3], u.column("terminated")[3], u.column("truncated")[3]]).toEqual([3, 0.5, 0, 0])
    expect(batchJson(u.sample(5))).toEqual(expected.uniform.sample)
    expect(batchJson(u.sample(7, Rng.make(4)))).toEqual(expected.uniform.sampleSeeded)
    const p = ReplayFile.loadSync(path.join(fixtures, "prioritized.bin"), PrioritizedReplay.PrioritizedReplay)
    expect(batchJson(p.sample(4))).toEqual(expected.prioritized.sample)
    expect(batchJson(p.sample(6, Rng.make(8), undefined, 0.8))).toEqual(expected.prioritized.sampleBeta)
  })

  it("the new layout writes byte-identical files to the column layout's (same buffers, same format)", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "autodidact-layout-"))
    ReplayFile.saveSync(makeUniform(), path.join(dir, "u.bin"))
    ReplayFile.saveSync(makePrioritized(), path.join(dir, "p.bin"))
    expect(fs.readFileSync(path.join(dir, "u.bin")).equals(fs.readFileSync(path.join(fixtures, "uniform.bin")))).toBe(true)
    expect(fs.readFileSync(path.join(dir, "p.bin")).equals(fs.readFileSync(path.join(fixtures, "prioritized.bin")))).toBe(true)
  })

  it("samples bit-identically to the column layout (batches of 64 from 300 random rows, with priority updates)", () => {
    expect(largeHashes()).toEqual(expected.largeHashes)
  })

  it("column properties are copies of the rows in the column shapes (uint8 observations, float32 actions of 2)", () => {
    const b = ReplayBuffer.create({ capacity: 3, obsDim: 3, actDim: 2, observationDtype: "uint8", actionDtype: "float32" })
    b.add([1, 2, 255], [0.5, -1], 7, [3, 4, 5], true, true, 0.25)
    b.add([6, 7, 8], [2, 3], -1, [9, 10, 11], 0, 1)
    expect(b.column("observations")).toEqual(Uint8Array.from([1, 2, 255, 6, 7, 8, 0, 0, 0]))
    expect(b.column("nextObservations")).toEqual(Uint8Array.from([3, 4, 5, 9, 10, 11, 0, 0, 0]))
    expect(b.column("actions")).toEqual(Float32Array.from([0.5, -1, 2, 3, 0, 0]))
    expect(b.column("rewards")).toEqual(Float32Array.from([7, -1, 0]))
    expect(b.column("terminated")).toEqual(Uint8Array.from([1, 0, 0]))
    expect(b.column("truncated")).toEqual(Uint8Array.from([1, 1, 0]))
    expect(b.column("discounts")).toEqual(Float32Array.from([0.25, 0.99, 0]))
    b.column("rewards")[0] = 100 // a copy: the buffer keeps its row
    expect(b.column("rewards")[0]).toBe(7)
    const batch = b.allocateBatch(2)
    batch.indices.set([1, 0])
    b.gather(batch)
    expect(Array.from(batch.observations)).toEqual([6, 7, 8, 1, 2, 255])
    expect(Array.from(batch.nextObservations)).toEqual([9, 10, 11, 3, 4, 5])
    expect(Array.from(batch.actions)).toEqual([2, 3, 0.5, -1])
    expect([Array.from(batch.terminated), Array.from(batch.truncated)]).toEqual([[0, 1], [1, 1]])
  })

  it("rejects a capacity whose rows exceed the largest typed-array view, naming the row size", () => {
    expect(() => ReplayBuffer.create({ capacity: 2 ** 29, obsDim: 32, observationDtype: "uint8" })).toThrow(
      "Invalid capacity = 536870912: capacity * row size (80 bytes) exceeds 2^32 bytes"
    )
  })
})

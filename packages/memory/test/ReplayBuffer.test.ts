import { InvalidOptionError, Rng } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as PrioritizedReplay from "../src/replay/PrioritizedReplay.js"
import * as ReplayBuffer from "../src/replay/ReplayBuffer.js"
import { CorruptReplayFileError, ReplayIoError } from "../src/replay/ReplayErrors.js"
import * as ReplayFile from "../src/replay/ReplayFile.js"
import { BatchRandom } from "../src/replay/ReplayRandom.js"

const tmpDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "autodidact-replay-"))

/** A buffer of capacity 4 holding transitions t = 0..n-1 with observation [t, -t], action t % 3, reward t. */
const filled = (n: number, capacity = 4) => {
  const b = ReplayBuffer.unsafeMake({ capacity, obsDim: 2, seed: 5 })
  for (let t = 0; t < n; t++) b.add([t, -t], t % 3, t, [t + 1, -t - 1], t % 5 === 4, t % 7 === 6)
  return b
}

/** Rewrite the JSON header of a replay file with `edit` (keeping the payload). */
const editHeader = (file: string, edit: (h: any) => any) => {
  const bytes = fs.readFileSync(file)
  const h = bytes.readUInt32LE(8)
  const header = JSON.parse(bytes.subarray(12, 12 + h).toString("utf8"))
  const json = Buffer.from(JSON.stringify(edit(header)), "utf8")
  const pad = (n: number) => (8 - (n % 8)) % 8
  const payload = bytes.subarray(12 + h + pad(12 + h))
  const len = Buffer.alloc(4)
  len.writeUInt32LE(json.length)
  fs.writeFileSync(file, Buffer.concat([bytes.subarray(0, 8), len, json, Buffer.alloc(pad(12 + json.length)), payload]))
}

describe("BatchRandom", () => {
  it("is xoshiro128** (reference outputs from state 1, 2, 3, 4 of Blackman & Vigna's C code)", () => {
    const r = new BatchRandom()
    expect(Array.from({ length: 6 }, () => r.nextUint32())).toEqual([11520, 0, 5927040, 70819200, 2031721883, 1637235492])
  })

  it("integers(n) is uniform on [0, n) and random() on [0, 1)", () => {
    const r = new BatchRandom()
    r.reseed(Rng.make(4))
    const counts = new Array(7).fill(0)
    for (let k = 0; k < 70_000; k++) counts[r.integers(7)]++
    for (const c of counts) expect(Math.abs(c - 10_000)).toBeLessThan(400)
    let mean = 0
    for (let k = 0; k < 100_000; k++) {
      const u = r.random()
      expect(u >= 0 && u < 1).toBe(true)
      mean += u / 100_000
    }
    expect(Math.abs(mean - 0.5)).toBeLessThan(0.005)
  })
})

describe("ReplayBuffer", () => {
  it("overwrites the oldest row first once full (ring order)", () => {
    const b = filled(6)
    expect(b.size).toBe(4)
    expect(b.pointer).toBe(2)
    expect(b.added).toBe(6)
    // rows 0 and 1 now hold t = 4 and 5; rows 2 and 3 still hold t = 2 and 3
    expect(Array.from(b.column("rewards"))).toEqual([4, 5, 2, 3])
    expect(Array.from(b.column("observations"))).toEqual([4, -4, 5, -5, 2, -2, 3, -3])
    expect(Array.from(b.column("nextObservations"))).toEqual([5, -5, 6, -6, 3, -3, 4, -4])
    expect(Array.from(b.column("actions"))).toEqual([1, 2, 2, 0])
    expect(Array.from(b.column("terminated"))).toEqual([1, 0, 0, 0])
    expect(Array.from(b.column("discounts"))).toEqual([0.99, 0.99, 0.99, 0.99].map(Math.fround))
  })

  it("addBatch writes one row per env and wraps around the ring", () => {
    const b = ReplayBuffer.unsafeMake({ capacity: 5, obsDim: 1, actDim: 2, actionDtype: "float32" })
    const first = b.addBatch(Float32Array.of(0, 1, 2), Float32Array.of(0, 0.5, 1, 1.5, 2, 2.5), Float64Array.of(0, 1, 2), [1, 2, 3], Uint8Array.of(0, 1, 0), Uint8Array.of(0, 0, 1))
    expect(first).toBe(0)
    expect(b.addBatch([3, 4, 5], [3, 3.5, 4, 4.5, 5, 5.5], [3, 4, 5], [4, 5, 6], [0, 0, 0], [0, 0, 0], [0.5, 0.25, 1])).toBe(3)
    expect(b.pointer).toBe(1)
    expect(b.size).toBe(5)
    expect(Array.from(b.column("rewards"))).toEqual([5, 1, 2, 3, 4])
    expect(Array.from(b.column("actions"))).toEqual([5, 5.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5])
    expect(Array.from(b.column("terminated"))).toEqual([0, 1, 0, 0, 0])
    expect(Array.from(b.column("truncated"))).toEqual([0, 0, 1, 0, 0])
    expect(Array.from(b.column("discounts"))).toEqual([1, 0.99, 0.99, 0.5, 0.25].map(Math.fround))
  })

  it("samples reproducibly into a reused batch, uniformly over the stored rows", () => {
    const b = filled(50, 100)
    const out = b.allocateBatch(32)
    const s1 = b.sample(32, Rng.make(1), out)
    expect(s1).toBe(out)
    const idx1 = Array.from(s1.indices)
    expect(idx1.every((i) => i >= 0 && i < 50)).toBe(true)
    // the rows match the indices
    for (let k = 0; k < 32; k++) {
      const i = idx1[k]!
      expect(s1.rewards[k]).toBe(i)
      expect([s1.observations[2 * k], s1.observations[2 * k + 1]]).toEqual([i, -i])
      expect(s1.actions[k]).toBe(i % 3)
      expect(s1.weights[k]).toBe(1)
    }
    // same seed, same indices (rng.integers(size) as numpy's Generator.integers)
    expect(Array.from(b.sample(32, Rng.make(1), out).indices)).toEqual(idx1)
    // one 64-bit core draw seeds the batch's xoshiro128** stream: the generator advances by one step per batch
    const rng = Rng.make(1)
    b.sample(32, rng, out)
    const ref = Rng.make(1)
    ref.nextUint32()
    ref.nextUint32()
    expect(rng.random()).toBe(ref.random())
    // no batch is allocated per call without `out` either
    const internal = b.sample(16)
    expect(b.sample(16)).toBe(internal)
    // frequencies are close to uniform
    const big = filled(4, 4)
    const counts = [0, 0, 0, 0]
    const r = Rng.make(9)
    for (let k = 0; k < 8000; k++) for (const i of big.sample(4, r).indices) counts[i]!++
    for (const c of counts) expect(Math.abs(c - 8000)).toBeLessThan(300)
  })

  it("rejects bad input with typed errors naming the value, writing nothing", () => {
    const b = filled(4)
    const before = Array.from(b.column("observations"))
    const err = (f: () => unknown) => {
      try {
        f()
      } catch (e) {
        return e as any
      }
      throw new Error("expected a throw")
    }
    const e1 = err(() => b.add([1, 2, 3], 0, 0, [1, 2], false, false))
    expect(e1._tag).toBe("ShapeMismatchError")
    expect(e1.message).toBe("ReplayBuffer.add observation: expected 2 elements, got 3")
    const e2 = err(() => b.add(Int32Array.of(1, 2), 0, 0, [1, 2], false, false))
    expect(e2._tag).toBe("DtypeMismatchError")
    expect(e2.message).toMatch(/expected float32 values .* got Int32Array/)
    const e3 = err(() => b.add([1, 2], 0, Number.NaN, [1, 2], false, false))
    expect(e3._tag).toBe("NonFiniteValueError")
    expect(e3.message).toBe("ReplayBuffer.add reward: non-finite value NaN")
    expect(err(() => b.add([1, Infinity], 0, 0, [1, 2], false, false))).toMatchObject({ _tag: "NonFiniteValueError", index: 1, value: Infinity })
    expect(err(() => b.add([1, 2], 1.5, 0, [1, 2], false, false))).toMatchObject({ _tag: "DtypeMismatchError", value: 1.5 })
    expect(err(() => b.addBatch([1, 2, 3, 4], [0, 0], [0, Number.NaN], [1, 2, 3, 4], [0, 0], [0, 0]))).toMatchObject({ _tag: "NonFiniteValueError", index: 1 })
    expect(err(() => b.addBatch([1, 2, 3, 4], [0, 0], [0, 0], [1, 2, 3, 4], [0], [0, 0]))).toMatchObject({ _tag: "ShapeMismatchError", expected: 2, actual: 1 })
    expect(Array.from(b.column("observations"))).toEqual(before)
    expect(b.added).toBe(4)
    expect(err(() => b.sample(5, Rng.make(0)))).toMatchObject({ _tag: "InsufficientDataError", requested: 5, size: 4 })
    expect(err(() => filled(0).sample(1))).toMatchObject({ _tag: "InsufficientDataError", requested: 1, size: 0 })
    expect(err(() => ReplayBuffer.unsafeMake({ capacity: 0, obsDim: 2 }))).toMatchObject({ _tag: "InvalidOptionError", option: "capacity", value: 0 })
    expect(err(() => ReplayBuffer.unsafeMake({ capacity: -3, obsDim: 2 })).message).toBe("Invalid capacity = -3: expected an integer in [1, 2147483647]")
  })

  it.effect("make fails in the error channel for a bad capacity", () =>
    Effect.gen(function* () {
      const e = yield* Effect.flip(ReplayBuffer.make({ capacity: 0, obsDim: 1 }))
      expect(e._tag).toBe("InvalidOptionError")
      expect(e.value).toBe(0)
    }))

  it.effect("save/load round-trips rows, ring pointer, counters and the generator", () =>
    Effect.gen(function* () {
      const b = filled(6)
      b.rng.random() // advance the generator: the saved state must be the current one
      const file = path.join(tmpDir(), "sub", "replay.bin")
      yield* ReplayFile.save(b, file)
      const c = yield* ReplayFile.load(file, ReplayBuffer.ReplayBuffer)
      expect(c.options).toEqual(b.options)
      for (const k of ["observations", "actions", "rewards", "nextObservations", "terminated", "truncated", "discounts"] as const) {
        expect(Array.from(c.column(k))).toEqual(Array.from(b.column(k)))
      }
      expect([c.pointer, c.size, c.added]).toEqual([b.pointer, b.size, b.added])
      expect(Array.from(c.sample(4).indices)).toEqual(Array.from(b.sample(4).indices))
      // adding continues the ring in the same place
      b.add([9, 9], 0, 9, [9, 9], false, false)
      c.add([9, 9], 0, 9, [9, 9], false, false)
      expect(Array.from(c.column("rewards"))).toEqual(Array.from(b.column("rewards")))
      expect(fs.readdirSync(path.dirname(file))).toEqual(["replay.bin"]) // no temp file left
      // a partly filled buffer writes only its rows
      const small = filled(1, 1000)
      yield* ReplayFile.save(small, file)
      expect(fs.statSync(file).size).toBeLessThan(2000)
      expect((yield* ReplayFile.load(file, ReplayBuffer.ReplayBuffer)).size).toBe(1)
    }))

  it("plain saveSync/loadSync round-trip the same file and throw the errors the Effect load fails with", () => {
    const b = filled(6)
    const dir = tmpDir()
    const file = path.join(dir, "plain.bin")
    ReplayFile.saveSync(b, file)
    const c = ReplayFile.loadSync(file, ReplayBuffer.ReplayBuffer)
    expect(Array.from(c.column("rewards"))).toEqual(Array.from(b.column("rewards")))
    expect([c.pointer, c.size, c.added]).toEqual([b.pointer, b.size, b.added])
    // the Effect reader reads the plain writer's file byte for byte
    const viaEffect = Effect.runSync(ReplayFile.load(file, ReplayBuffer.ReplayBuffer))
    expect(Array.from(viaEffect.column("observations"))).toEqual(Array.from(b.column("observations")))
    // a wrong kind and a missing file: same class and _tag from both faces
    const plainWrongKind = (() => {
      try {
        ReplayFile.loadSync(file, PrioritizedReplay.PrioritizedReplay)
      } catch (e) {
        return e
      }
    })()
    const effectWrongKind = Effect.runSync(Effect.flip(ReplayFile.load(file, PrioritizedReplay.PrioritizedReplay)))
    expect(plainWrongKind).toBeInstanceOf(CorruptReplayFileError)
    expect((plainWrongKind as CorruptReplayFileError)._tag).toBe(effectWrongKind._tag)
    expect((plainWrongKind as CorruptReplayFileError).message).toBe(effectWrongKind.message)
    const absent = path.join(dir, "absent.bin")
    expect(() => ReplayFile.loadSync(absent, ReplayBuffer.ReplayBuffer)).toThrow(ReplayIoError)
    expect(Effect.runSync(Effect.flip(ReplayFile.load(absent, ReplayBuffer.ReplayBuffer)))).toBeInstanceOf(ReplayIoError)
    expect(() => ReplayFile.saveSync(b, file, { rename: () => { throw new Error("EXDEV") } })).toThrow(/EXDEV/)
  })

  it("create is the plain make: same options, same InvalidOptionError", () => {
    expect(ReplayBuffer.create({ capacity: 3, obsDim: 2 }).capacity).toBe(3)
    expect(() => ReplayBuffer.create({ capacity: 0, obsDim: 1 })).toThrow(InvalidOptionError)
    const viaEffect = Effect.runSync(Effect.flip(ReplayBuffer.make({ capacity: 0, obsDim: 1 })))
    expect(viaEffect).toBeInstanceOf(InvalidOptionError)
    expect(ReplayBuffer.unsafeMake).toBe(ReplayBuffer.create)
  })

  it.effect("truncated, edited, newer-version, wrong-kind and non-replay files fail with CorruptReplayFileError naming the file", () =>
    Effect.gen(function* () {
      const dir = tmpDir()
      const file = path.join(dir, "r.bin")
      yield* ReplayFile.save(filled(6), file)
      const bytes = fs.readFileSync(file)
      const bad = path.join(dir, "bad.bin")
      const loadBad = () => Effect.flip(ReplayFile.load(bad, ReplayBuffer.ReplayBuffer))

      fs.writeFileSync(bad, bytes.subarray(0, bytes.length - 3))
      const e = yield* loadBad()
      expect(e._tag).toBe("CorruptReplayFileError")
      expect(e.message).toMatch(new RegExp(`^Corrupt replay file ${bad}: payload is \\d+ bytes, header says \\d+ \\(truncated`))

      fs.writeFileSync(bad, bytes.subarray(0, 40))
      expect((yield* loadBad()).message).toMatch(/truncated header/)

      const flipped = Buffer.from(bytes)
      flipped[flipped.length - 20] = flipped[flipped.length - 20]! ^ 0xff
      fs.writeFileSync(bad, flipped)
      expect((yield* loadBad()).message).toMatch(/sha256 mismatch/)

      fs.copyFileSync(file, bad)
      editHeader(bad, (h) => ({ ...h, version: 2 }))
      expect((yield* loadBad()).message).toBe(`Corrupt replay file ${bad}: written by a newer format version 2 (this build reads versions up to 1)`)

      fs.copyFileSync(file, bad)
      editHeader(bad, ({ capacity: _c, ...h }) => h)
      expect((yield* loadBad()).message).toMatch(/header schema: .*capacity/s)

      fs.copyFileSync(file, bad)
      editHeader(bad, (h) => ({ ...h, pointer: 7 }))
      expect((yield* loadBad()).message).toMatch(/pointer 7 outside \[0, capacity 4\)/)

      fs.copyFileSync(file, bad)
      editHeader(bad, (h) => ({ ...h, shapes: { ...h.shapes, observation: [3] } }))
      expect((yield* loadBad()).message).toMatch(/column observations has 8 elements, expected 12/)

      fs.writeFileSync(bad, "{\"format\": \"something else\"}")
      expect((yield* loadBad()).message).toMatch(/bad magic/)

      const wrongKind = yield* Effect.flip(ReplayFile.load(file, PrioritizedReplay.PrioritizedReplay))
      expect(wrongKind.message).toBe(`Corrupt replay file ${file}: holds a "uniform" buffer, expected "prioritized"`)

      const missing = yield* Effect.flip(ReplayFile.load(path.join(dir, "absent.bin"), ReplayBuffer.ReplayBuffer))
      expect(missing._tag).toBe("ReplayIoError")
      expect(missing.message).toMatch(/absent\.bin: read failed: ENOENT/)
    }))

  it.effect("a failed write (mid-write, at fsync or at rename) keeps the previous file loadable and leaves no temp file", () =>
    Effect.gen(function* () {
      const dir = tmpDir()
      const file = path.join(dir, "r.bin")
      const original = filled(6)
      yield* ReplayFile.save(original, file)
      const before = fs.readFileSync(file)
      const changed = filled(3)
      const midWrite = yield* Effect.flip(
        ReplayFile.save(changed, file, {
          write: (fd, bytes) => {
            fs.writeSync(fd, bytes, 0, bytes.length >> 1)
            throw new Error("ENOSPC: no space left on device")
          }
        })
      )
      expect(midWrite._tag).toBe("ReplayIoError")
      expect(midWrite.message).toBe(`Replay file ${file}: write failed: ENOSPC: no space left on device`)
      const atFsync = yield* Effect.flip(ReplayFile.save(changed, file, { fsync: () => { throw new Error("EIO") } }))
      expect(atFsync.message).toMatch(/write failed: EIO/)
      const atRename = yield* Effect.flip(ReplayFile.save(changed, file, { rename: () => { throw new Error("EXDEV") } }))
      expect(atRename.message).toMatch(/write failed: EXDEV/)
      expect(fs.readFileSync(file).equals(before)).toBe(true)
      expect(fs.readdirSync(dir)).toEqual(["r.bin"])
      expect(Array.from((yield* ReplayFile.load(file, ReplayBuffer.ReplayBuffer)).column("rewards"))).toEqual(Array.from(original.column("rewards")))
    }))
})

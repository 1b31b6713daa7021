import { makeVec } from "@autodidact/envs"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { Metrics } from "@autodidact/core"
import { Adam } from "../src/index.js"
import { Checkpoint, Ppo } from "../src/node.js"

const tmpDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "autodidact-ckpt-"))
const cartPole = () => makeVec("CartPole-v1", 4, { autoresetMode: "SameStep" })
const trained = () => Ppo.train(cartPole(), { seed: 3, totalTimesteps: 1024 }).pipe(Effect.map((r) => r.state))

describe("Checkpoint", () => {
  it.effect("round-trips weights, Adam moments, generators, step counters and options", () =>
    Effect.gen(function* () {
      const state = yield* trained()
      const file = path.join(tmpDir(), "run", "checkpoint.json")
      yield* Checkpoint.save(file, state)
      const loaded = yield* Checkpoint.load(file)
      expect(Array.from(loaded.agent.params)).toEqual(Array.from(state.agent.params))
      expect(Array.from(loaded.adam.m)).toEqual(Array.from(state.adam.m))
      expect(Array.from(loaded.adam.v)).toEqual(Array.from(state.adam.v))
      expect(loaded.adam.step).toBe(2 * 16)
      expect(loaded.globalStep).toBe(1024)
      expect(loaded.iteration).toBe(2)
      expect(loaded.options).toEqual(state.options)
      expect([state.options.engine, loaded.agent.engine]).toEqual(["wasm-simd", "wasm-simd"]) // the engine continues too
      // the generators continue the saved streams
      expect(loaded.actionRng.random()).toBe(state.actionRng.random())
      expect(loaded.shuffleRng.integers(1000)).toBe(state.shuffleRng.integers(1000))
      expect(fs.readdirSync(path.dirname(file))).toEqual(["checkpoint.json"]) // no temp files left
    }))

  it.effect("a truncated or edited file fails with CorruptCheckpointError naming the file and the problem", () =>
    Effect.gen(function* () {
      const state = yield* trained()
      const dir = tmpDir()
      const file = path.join(dir, "c.json")
      yield* Checkpoint.save(file, state)
      const text = fs.readFileSync(file, "utf8")
      const truncated = path.join(dir, "truncated.json")
      fs.writeFileSync(truncated, text.slice(0, Math.floor(text.length / 2)))
      const e1 = yield* Effect.flip(Checkpoint.load(truncated))
      expect(e1._tag).toBe("CorruptCheckpointError")
      expect(e1.message).toMatch(new RegExp(`^Corrupt checkpoint ${truncated}: not valid JSON`))
      // flip one weight: the checksum no longer matches
      const json = JSON.parse(text)
      const bytes = Buffer.from(json.payload.params, "base64")
      bytes[10] = bytes[10]! ^ 0xff
      json.payload.params = bytes.toString("base64")
      const edited = path.join(dir, "edited.json")
      fs.writeFileSync(edited, JSON.stringify(json))
      const e2 = yield* Effect.flip(Checkpoint.load(edited))
      expect(e2.message).toMatch(/sha256 mismatch/)
      // a wrong version and a missing field
      fs.writeFileSync(edited, JSON.stringify({ ...JSON.parse(text), version: 99 }))
      expect((yield* Effect.flip(Checkpoint.load(edited))).message).toMatch(/unsupported version 99/)
      const { globalStep: _drop, ...missing } = JSON.parse(text)
      fs.writeFileSync(edited, JSON.stringify(missing))
      expect((yield* Effect.flip(Checkpoint.load(edited))).message).toMatch(/schema: .*globalStep/s)
      const e3 = yield* Effect.flip(Checkpoint.load(path.join(dir, "absent.json")))
      expect(e3._tag).toBe("CheckpointError")
    }))

  it.effect("a failed write (mid-write or at rename) leaves the previous checkpoint loadable and no temp file", () =>
    Effect.gen(function* () {
      const state = yield* trained()
      const dir = tmpDir()
      const file = path.join(dir, "c.json")
      yield* Checkpoint.save(file, state)
      const before = fs.readFileSync(file)
      const changed = { ...state, globalStep: 999_999 }
      const midWrite = yield* Effect.flip(Checkpoint.save(file, changed, {
        write: (fd, bytes) => {
          fs.writeSync(fd, bytes, 0, bytes.length >> 1)
          throw new Error("ENOSPC: no space left on device")
        }
      }))
      expect(midWrite.message).toBe(`Checkpoint ${file}: write failed: ENOSPC: no space left on device`)
      const atRename = yield* Effect.flip(Checkpoint.save(file, changed, { rename: () => { throw new Error("EXDEV") } }))
      expect(atRename._tag).toBe("CheckpointError")
      expect(fs.readFileSync(file).equals(before)).toBe(true)
      expect(fs.readdirSync(dir)).toEqual(["c.json"])
      expect((yield* Checkpoint.load(file)).globalStep).toBe(1024)
    }))

  it.effect("Ppo.train resumes from a checkpoint: global step, iteration, LR schedule and Adam step continue", () =>
    Effect.gen(function* () {
      const file = path.join(tmpDir(), "c.json")
      const first = yield* Ppo.train(cartPole(), { seed: 1, totalTimesteps: 5120, checkpoint: { path: file, everyUpdates: 2 } })
      expect(first.state.iteration).toBe(10)
      const state = yield* Checkpoint.load(file)
      expect(state.globalStep).toBe(5120)
      const rows: Array<{ globalStep: number; learningRate?: number | undefined }> = []
      const resumed = yield* Ppo.train(cartPole(), { resume: state, totalTimesteps: 10_240 }, { onUpdate: (r) => rows.push(r) })
      expect(rows[0]!.globalStep).toBe(5120 + 512)
      // iteration 11 of 20: lr = (1 − 10/20) · 2.5e-4
      expect(rows[0]!.learningRate).toBeCloseTo(2.5e-4 * (1 - 10 / 20), 12)
      expect(resumed.globalStep).toBe(10_240)
      expect(resumed.state.adam.step).toBe(20 * 16)
      expect(resumed.state.iteration).toBe(20)
    }))

  it.effect("an interrupted run resumed from its checkpoint continues the schedule, and exactly as the in-memory state would", () =>
    Effect.gen(function* () {
      const file = path.join(tmpDir(), "c.json")
      const lr0 = 2.5e-4
      const numIterations = 10 // 5120 steps / (4 envs × 128 steps)
      const lrAt = (iteration: number) => lr0 * (1 - (iteration - 1) / numIterations)
      const rows: Array<Metrics.UpdateRow> = []
      const controller = new AbortController()
      const first = yield* Ppo.train(cartPole(), { seed: 5, totalTimesteps: 5120, checkpoint: { path: file, everyUpdates: 3 } }, {
        signal: controller.signal,
        onUpdate: (r) => {
          rows.push(r)
          if (rows.length === 4) controller.abort() // "Ctrl-C" after 4 of 10 updates: the final checkpoint is written
        }
      })
      expect(first.stopReason).toBe("aborted")
      const saved = first.state
      const loaded = yield* Checkpoint.load(file)
      // counters, weights and Adam state at load are the saved ones
      expect(loaded.iteration).toBe(4)
      expect(loaded.globalStep).toBe(4 * 512)
      expect(loaded.options.totalTimesteps).toBe(5120)
      const paramsAtLoad = Array.from(loaded.agent.params)
      expect(paramsAtLoad).toEqual(Array.from(saved.agent.params))
      expect(Array.from(loaded.adam.m)).toEqual(Array.from(saved.adam.m))
      expect(Array.from(loaded.adam.v)).toEqual(Array.from(saved.adam.v))
      expect(loaded.adam.step).toBe(4 * 16)
      expect(loaded.adam.step).toBe(saved.adam.step)
      expect(loaded.recentReturns).toEqual(saved.recentReturns)
      // Adam moments restored: one step after load equals the same step without save/load (for the same gradient),
      // and differs from a step from fresh moments, so the comparison can fail
      const n = saved.agent.params.length
      const grad = Float64Array.from({ length: n }, (_, k) => 1e-2 * Math.sin(0.37 * k + 1))
      const stepFrom = (adam: Adam.AdamState, params: Float32Array) => {
        const p = Float32Array.from(params)
        Adam.step({ ...adam, m: Float32Array.from(adam.m), v: Float32Array.from(adam.v) }, p, grad, lrAt(5))
        return Array.from(p)
      }
      const afterLoad = stepFrom(loaded.adam, loaded.agent.params)
      expect(afterLoad).toEqual(stepFrom(saved.adam, saved.agent.params))
      expect(afterLoad).not.toEqual(stepFrom(Adam.make(n, { eps: saved.options.adamEps }), saved.agent.params))
      // continue from the file: iterations 5..10, global step and linearly annealed learning rate pick up where they stopped
      const resumedRows: Array<Metrics.UpdateRow> = []
      const fromFile = yield* Ppo.train(cartPole(), { resume: loaded }, { onUpdate: (r) => resumedRows.push(r) })
      expect(fromFile.stopReason).toBe("budget")
      expect(resumedRows.length).toBe(6)
      const all = [...rows, ...resumedRows]
      all.forEach((r, k) => {
        expect(r.globalStep).toBe((k + 1) * 512)
        expect(r.learningRate).toBeCloseTo(lrAt(k + 1), 15)
      })
      expect(fromFile.state.iteration).toBe(10)
      expect(fromFile.globalStep).toBe(5120)
      expect(fromFile.state.adam.step).toBe(10 * 16)
      expect(Array.from(fromFile.agent.params)).not.toEqual(paramsAtLoad) // training went on after the resume
      // the checkpoint holds everything the trainer carries: resuming from the in-memory state (the state the file
      // was written from) gives bit-identical weights, moments and logged losses
      const memoryRows: Array<Metrics.UpdateRow> = []
      const fromMemory = yield* Ppo.train(cartPole(), { resume: saved }, { onUpdate: (r) => memoryRows.push(r) })
      expect(Array.from(fromFile.agent.params)).toEqual(Array.from(fromMemory.agent.params))
      expect(Array.from(fromFile.state.adam.m)).toEqual(Array.from(fromMemory.state.adam.m))
      const withoutWall = (r: Metrics.UpdateRow) => ({ ...r, wallSeconds: 0 })
      expect(resumedRows.map(withoutWall)).toEqual(memoryRows.map(withoutWall))
    }))
})

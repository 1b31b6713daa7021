import { InvalidOptionError, MissingPeerError } from "@autodidact/core"
import { UnknownEnvError } from "@autodidact/envs"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { evaluatePolicy, Ppo, ppoUpdates, trainPpo } from "../src/index.js"
import * as OptimNode from "../src/node.js"
import { loadBackend } from "../src/tfjs.js"

/** 4 updates of CartPole: numEnvs 4 × numSteps 128 = 512 steps per update. */
const small = { env: "CartPole-v1", totalTimesteps: 2048, seed: 3 } as const

const rejection = (p: Promise<unknown>): Promise<unknown> => p.then(() => undefined, (e: unknown) => e)

describe("plain face (Promises, async iterator)", () => {
  it("trainPpo is the Effect trainOn: same seed, same weights bit for bit; onUpdate per update; lastUpdate", async () => {
    const rows: Array<number> = []
    const plain = await trainPpo({ ...small, onUpdate: (u) => rows.push(u.globalStep) })
    expect(rows).toEqual([512, 1024, 1536, 2048])
    expect([plain.stopReason, plain.globalStep, plain.lastUpdate?.globalStep]).toEqual(["budget", 2048, 2048])
    const viaEffect = await Effect.runPromise(Ppo.trainOn(small.env, { totalTimesteps: small.totalTimesteps, seed: small.seed }))
    expect(Array.from(plain.agent.params)).toEqual(Array.from(viaEffect.agent.params))
    const report = await evaluatePolicy(plain.agent, "CartPole-v1", { episodes: 2 })
    expect(report.returns.length).toBe(2)
    expect(report.mean).toBeGreaterThan(0)
  }, 60_000)

  it("a wrong argument: the same tagged error class from the plain call and from the Effect call", async () => {
    const plainBad = await rejection(trainPpo({ env: "CartPole-v1", totalTimesteps: -1 }))
    const effectBad = await Effect.runPromise(Effect.flip(Ppo.trainOn("CartPole-v1", { totalTimesteps: -1 })))
    expect(plainBad).toBeInstanceOf(InvalidOptionError)
    expect(effectBad).toBeInstanceOf(InvalidOptionError)
    expect(plainBad).toMatchObject({ _tag: "InvalidOptionError", option: "totalTimesteps", value: -1 })
    expect({ ...(plainBad as object) }).toEqual({ ...effectBad })
    const plainUnknown = await rejection(trainPpo({ env: "NoSuchEnv-v0" }))
    const effectUnknown = await Effect.runPromise(Effect.flip(Ppo.trainOn("NoSuchEnv-v0")))
    expect(plainUnknown).toBeInstanceOf(UnknownEnvError)
    expect(effectUnknown).toBeInstanceOf(UnknownEnvError)
    expect((plainUnknown as UnknownEnvError)._tag).toBe(effectUnknown._tag)
    const evalBad = await rejection(evaluatePolicy((await trainPpo({ ...small, totalTimesteps: 512 })).agent, "CartPole-v1", { episodes: 0 }))
    expect(evalBad).toMatchObject({ _tag: "InvalidOptionError", option: "episodes" })
  }, 60_000)

  it("ppoUpdates: rows as they come; leaving the loop aborts training and resolves result", async () => {
    const updates = ppoUpdates({ ...small, totalTimesteps: 512 * 50 })
    const seen: Array<number> = []
    for await (const u of updates) {
      seen.push(u.globalStep)
      if (seen.length === 2) break
    }
    expect(seen).toEqual([512, 1024])
    const result = await updates.result
    expect(result.stopReason).toBe("aborted")
    expect(result.globalStep).toBeLessThan(512 * 50)
    const all: Array<number> = []
    for await (const u of ppoUpdates({ ...small, totalTimesteps: 1024 })) all.push(u.globalStep)
    expect(all).toEqual([512, 1024])
    const failing = ppoUpdates({ env: "CartPole-v1", numMinibatches: 7 })
    await expect(failing.next()).rejects.toMatchObject({ _tag: "InvalidOptionError", option: "numMinibatches" })
  }, 60_000)

  it("checkpoints need @autodidact/optim/node: InvalidOptionError from the main entry; written by the node entry", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "optim-plain-")), "ck.json")
    const bad = await rejection(trainPpo({ ...small, totalTimesteps: 512, checkpoint: { path } }))
    expect(bad).toMatchObject({ _tag: "InvalidOptionError", option: "checkpoint" })
    expect(existsSync(path)).toBe(false)
    const run = await OptimNode.trainPpo({ ...small, totalTimesteps: 1024, checkpoint: { path } })
    const state = await OptimNode.loadCheckpoint(path)
    expect(state.globalStep).toBe(run.globalStep)
    const resumed = await OptimNode.trainPpo({ env: "CartPole-v1", resume: state, totalTimesteps: 1536 })
    expect(resumed.globalStep).toBe(1536)
  }, 60_000)
})

describe("@autodidact/optim/tfjs", () => {
  it("loadBackend: wasm when installed; neither JavaScript backend installed: MissingPeerError naming @tensorflow/tfjs-backend-wasm", async () => {
    const notInstalled = (pkg: string) => () =>
      Promise.reject(Object.assign(new Error(`Cannot find package '${pkg}' imported from /app/index.js`), { code: "ERR_MODULE_NOT_FOUND" }))
    const none = await rejection(loadBackend({ env: {}, importers: { wasm: notInstalled("@tensorflow/tfjs-backend-wasm"), cpu: notInstalled("@tensorflow/tfjs-backend-cpu") } }))
    expect(none).toBeInstanceOf(MissingPeerError)
    expect(none).toMatchObject({ peer: "@tensorflow/tfjs-backend-wasm" })
    const b = await loadBackend({ env: {} })
    expect(b.name).toBe("wasm")
  }, 60_000)
})

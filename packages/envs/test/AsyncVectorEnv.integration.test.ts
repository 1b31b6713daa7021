import { InvalidActionError, InvalidOptionError, ResetNeededError, Rng } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import * as CheckVectorEnv from "../src/checks/CheckVectorEnv.js"
import { AsyncVectorEnv, makeVec } from "../src/node.js"
import * as Registry from "../src/Registry.js"
import { SyncVectorEnv } from "../src/vector/SyncVectorEnv.js"
import type { AutoresetMode, VectorEnv, VectorStepResult } from "../src/vector/VectorEnv.js"

const snapshot = (r: VectorStepResult) => ({
  observations: Array.from(r.observations as ArrayLike<number>),
  rewards: Array.from(r.rewards),
  terminations: Array.from(r.terminations),
  truncations: Array.from(r.truncations),
  infos: r.infos.infos,
  finalObservation: r.infos.finalObservation?.map((o) => (o === undefined ? undefined : Array.from(o as Float32Array))),
  finalInfo: r.infos.finalInfo
})

/** Run both vector envs with the same seeds and actions; in Disabled mode reset the ended sub-envs by mask. */
const compare = (a: VectorEnv, b: VectorEnv, nActions: number, steps: number) => {
  const rng = Rng.make(99)
  expect(Array.from(b.reset({ seed: 7 }).observations as ArrayLike<number>)).toEqual(
    Array.from(a.reset({ seed: 7 }).observations as ArrayLike<number>)
  )
  let ended = 0
  for (let t = 0; t < steps; t++) {
    const actions = Int32Array.from({ length: a.numEnvs }, () => rng.integers(nActions))
    const ra = snapshot(a.step(actions))
    const rb = snapshot(b.step(actions))
    expect(rb).toEqual(ra)
    const done = ra.terminations.map((x, i) => x === 1 || ra.truncations[i] === 1)
    ended += done.filter(Boolean).length
    if (a.autoresetMode === "Disabled" && done.some(Boolean)) {
      const opts = { options: { resetMask: done } }
      expect(Array.from(b.reset(opts).observations as ArrayLike<number>)).toEqual(
        Array.from(a.reset(opts).observations as ArrayLike<number>)
      )
    }
  }
  return ended
}

describe("AsyncVectorEnv", () => {
  for (const envId of ["CartPole-v1", "FrozenLake-v1"]) {
    for (const mode of ["NextStep", "SameStep", "Disabled"] as Array<AutoresetMode>) {
      it(`${envId} ${mode}: identical to SyncVectorEnv for the same seeds and actions`, async () => {
        const n = 5
        const sync = new SyncVectorEnv(Array.from({ length: n }, () => () => Registry.make(envId)), { autoresetMode: mode })
        const async_ = new AsyncVectorEnv.AsyncVectorEnv({ envId, numEnvs: n, autoresetMode: mode, workers: 2 })
        try {
          expect(async_.numWorkers).toBe(2)
          const ended = compare(sync, async_, envId === "CartPole-v1" ? 2 : 4, 150)
          expect(ended).toBeGreaterThan(3)
          // The conformance suite on the same workers (no extra start-up): checks this mode, then closes the env.
          expect(CheckVectorEnv.checkVectorEnv(async_, { envId }).modes).toEqual([expect.objectContaining({ mode })])
        } finally {
          async_.close()
          sync.close()
        }
        await async_.closed
      })
    }
  }

  it("rethrows worker errors as the same tagged errors and close() stops the workers", async () => {
    const envs = makeVec("CartPole-v1", 3, { vectorizationMode: "async", autoresetMode: "Disabled", workers: 3 })
    expect(envs).toBeInstanceOf(AsyncVectorEnv.AsyncVectorEnv)
    const viaRegistry = Registry.makeVec("CartPole-v1", 1, { vectorizationMode: "async" }) // enabled by loading the node entry
    expect(viaRegistry).toBeInstanceOf(AsyncVectorEnv.AsyncVectorEnv)
    viaRegistry.close()
    expect(() => envs.step([0, 0, 0])).toThrow(ResetNeededError) // step before reset, raised in a worker
    envs.reset({ seed: 1, options: { state: [2.39, 1, 0, 0] } })
    expect(Array.from(envs.step([1, 1, 1]).terminations)).toEqual([1, 1, 1])
    expect(() => envs.step([1, 1, 1])).toThrow(ResetNeededError) // Disabled mode: ended sub-envs
    expect(() => envs.step([1, 2, 1])).toThrow(InvalidActionError)
    expect(() => envs.reset({ options: { state: [1] } })).toThrow(InvalidOptionError) // from the sub-env's reset
    let exited = false
    ;(envs as AsyncVectorEnv.AsyncVectorEnv).closed.then(() => (exited = true))
    envs.close()
    await (envs as AsyncVectorEnv.AsyncVectorEnv).closed
    expect(exited).toBe(true)
    expect(() => envs.step([0, 0, 0])).toThrow(ResetNeededError)
  })

  it("fails fast on an unknown id or unsupported options", () => {
    expect(() => new AsyncVectorEnv.AsyncVectorEnv({ envId: "Nope-v0", numEnvs: 2 })).toThrow(Registry.UnknownEnvError)
    expect(() => new AsyncVectorEnv.AsyncVectorEnv({ envId: "CartPole-v1", numEnvs: 2, workers: 3 })).toThrow(InvalidOptionError)
  })
})

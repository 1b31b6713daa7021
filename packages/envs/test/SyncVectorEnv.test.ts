import { InvalidActionError, InvalidOptionError, ResetNeededError } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import * as CartPole from "../src/classic/CartPole.js"
import * as Registry from "../src/Registry.js"
import { SyncVectorEnv } from "../src/vector/SyncVectorEnv.js"
import type { AutoresetMode } from "../src/vector/VectorEnv.js"

// sub-env 0 starts at the right edge moving right: action 1 terminates it on the first step;
// sub-env 1 starts upright at rest.
const EDGE = [2.39, 1, 0, 0]
const REST = [0, 0, 0, 0]

const twoCartPoles = (autoresetMode: AutoresetMode) => {
  const envs = new SyncVectorEnv([0, 1].map(() => () => Registry.make("CartPole-v1")), { autoresetMode })
  envs.reset({ seed: 10, options: { state: EDGE } })
  envs.reset({ options: { state: REST, resetMask: [false, true] } })
  return envs
}

describe("SyncVectorEnv", () => {
  it("reset seeds sub-env i with seed + i and batches rows", () => {
    const envs = Registry.makeVec("CartPole-v1", 3)
    const { observations, infos } = envs.reset({ seed: 42 })
    for (let i = 0; i < 3; i++) {
      const single = new CartPole.CartPoleEnv().reset({ seed: 42 + i }).observation
      expect(Array.from((observations as Float32Array).subarray(4 * i, 4 * i + 4))).toEqual(Array.from(single))
    }
    expect(infos.infos).toHaveLength(3)
    const again = envs.reset({ seed: [42, 43, 44] }).observations
    expect(Array.from(again as Float32Array)).toEqual(Array.from(observations as Float32Array))
    expect(() => envs.reset({ seed: [1, 2] })).toThrow(InvalidOptionError)
  })

  it("resetMask resets only the marked sub-envs", () => {
    const envs = twoCartPoles("NextStep")
    const obs = envs.reset({ options: { state: [1, 1, 0, 0], resetMask: new Uint8Array([0, 1]) } }).observations as Float32Array
    expect(Array.from(obs.subarray(0, 4))).toEqual(Array.from(Float32Array.from(EDGE)))
    expect(Array.from(obs.subarray(4, 8))).toEqual([1, 1, 0, 0])
  })

  it("NextStep: the ended sub-env returns its final observation, then resets on the next step with reward 0", () => {
    const envs = twoCartPoles("NextStep")
    const s1 = envs.step(new Int32Array([1, 1]))
    expect(Array.from(s1.terminations)).toEqual([1, 0])
    expect(Array.from(s1.rewards)).toEqual([1, 1])
    const obs1 = s1.observations as Float32Array
    expect(obs1[0]).toBeGreaterThan(2.4) // final observation, past the edge
    expect(s1.infos.finalObservation).toBeUndefined()
    const restRow = Array.from(obs1.subarray(4, 8))
    const s2 = envs.step([1, 0])
    const obs2 = s2.observations as Float32Array
    expect(Array.from(s2.rewards)).toEqual([0, 1])
    expect(Array.from(s2.terminations)).toEqual([0, 0])
    expect(Array.from(s2.truncations)).toEqual([0, 0])
    for (let k = 0; k < 4; k++) expect(Math.abs(obs2[k]!)).toBeLessThan(0.05) // a fresh reset state
    expect(Array.from(obs2.subarray(4, 8))).not.toEqual(restRow) // sub-env 1 stepped
    const s3 = envs.step([0, 0])
    expect(Array.from(s3.rewards)).toEqual([1, 1])
  })

  it("SameStep: the ended sub-env resets at once; the final observation is in infos", () => {
    const envs = twoCartPoles("SameStep")
    const s1 = envs.step(new Int32Array([1, 1]))
    expect(Array.from(s1.terminations)).toEqual([1, 0])
    expect(Array.from(s1.rewards)).toEqual([1, 1])
    const obs1 = s1.observations as Float32Array
    for (let k = 0; k < 4; k++) expect(Math.abs(obs1[k]!)).toBeLessThan(0.05)
    const final = s1.infos.finalObservation!
    expect((final[0] as Float32Array)[0]).toBeGreaterThan(2.4)
    expect(final[1]).toBeUndefined()
    expect(s1.infos.finalInfo).toHaveLength(2)
    const s2 = envs.step([0, 0])
    expect(Array.from(s2.rewards)).toEqual([1, 1])
    expect(Array.from(s2.terminations)).toEqual([0, 0])
  })

  it("Disabled: stepping an ended sub-env is an error until it is reset", () => {
    const envs = twoCartPoles("Disabled")
    const s1 = envs.step([1, 1])
    expect(Array.from(s1.terminations)).toEqual([1, 0])
    expect(() => envs.step([0, 0])).toThrow(ResetNeededError)
    envs.reset({ options: { resetMask: [true, false] } })
    expect(Array.from(envs.step([0, 0]).rewards)).toEqual([1, 1])
  })

  it("matches independent single envs with NextStep semantics over many episodes", () => {
    const n = 3
    const envs = Registry.makeVec("CartPole-v1", n)
    const singles = Array.from({ length: n }, () => Registry.make<Float32Array, number>("CartPole-v1"))
    const obs = envs.reset({ seed: 5 }).observations as Float32Array
    const expected = singles.map((e, i) => e.reset({ seed: 5 + i }).observation)
    const ended = [false, false, false]
    let episodes = 0
    for (let t = 0; t < 300; t++) {
      for (let i = 0; i < n; i++) expect(Array.from(obs.subarray(4 * i, 4 * i + 4))).toEqual(Array.from(expected[i]!))
      const actions = Array.from({ length: n }, (_, i) => (t * 7 + i * 3) % 5 < 2 ? 0 : 1)
      const r = envs.step(actions)
      for (let i = 0; i < n; i++) {
        if (ended[i]) {
          expected[i] = singles[i]!.reset().observation
          ended[i] = false
          expect(r.rewards[i]).toBe(0)
          continue
        }
        const s = singles[i]!.step(actions[i]!)
        expected[i] = s.observation
        expect(r.rewards[i]).toBe(s.reward)
        expect(r.terminations[i]).toBe(s.terminated ? 1 : 0)
        ended[i] = s.terminated || s.truncated
        if (ended[i]) episodes++
      }
    }
    expect(episodes).toBeGreaterThan(5)
  })

  it("validates the action batch and refuses calls after close", () => {
    const envs = Registry.makeVec("CartPole-v1", 2)
    envs.reset({ seed: 0 })
    expect(() => envs.step([0])).toThrow(InvalidActionError)
    expect(() => envs.step([0, 3])).toThrow(InvalidActionError)
    envs.close()
    expect(() => envs.step([0, 0])).toThrow(ResetNeededError)
    expect(() => new SyncVectorEnv([])).toThrow(InvalidOptionError)
    expect(() => new SyncVectorEnv([() => Registry.make("CartPole-v1")], { autoresetMode: "Sometimes" as never })).toThrow(InvalidOptionError)
  })

  it("FrozenLake observations batch into an Int32Array", () => {
    const envs = Registry.makeVec("FrozenLake-v1", 2)
    const { observations } = envs.reset({ seed: 1 })
    expect(observations).toBeInstanceOf(Int32Array)
    expect(Array.from(observations as Int32Array)).toEqual([0, 0])
  })
})

import { InvalidOptionError, ResetNeededError, Space } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import * as FrozenLake from "../src/toytext/FrozenLake.js"
import * as Wrappers from "../src/wrappers/Wrappers.js"
import { CountingEnv } from "./fixtures.js"

describe("Wrappers", () => {
  it("Wrapper forwards everything and exposes unwrapped", () => {
    const inner = new CountingEnv()
    const w = new Wrappers.Wrapper(new Wrappers.Wrapper(inner))
    expect(w.unwrapped).toBe(inner)
    expect(w.observationSpace).toBe(inner.observationSpace)
    expect(w.actionSpace).toBe(inner.actionSpace)
    expect(w.npRandom).toBe(inner.npRandom)
    w.spec = { id: "Counting-v0" }
    expect(inner.spec?.id).toBe("Counting-v0")
    expect(w.reset().info).toEqual({ start: true })
    expect(Array.from(w.step(2).observation)).toEqual([1, 10])
    expect(w.render()).toBe("t=1")
    w.close()
    expect(inner.closed).toBe(true)
  })

  it("TimeLimit truncates at the limit and then needs a reset", () => {
    const env = new Wrappers.TimeLimit(new CountingEnv({ length: 100 }), 2)
    env.reset()
    expect(env.step(0).truncated).toBe(false)
    const last = env.step(0)
    expect(last.truncated).toBe(true)
    expect(last.terminated).toBe(false)
    expect(() => env.step(0)).toThrow(ResetNeededError)
    env.reset()
    expect(env.elapsedSteps).toBe(0)
    // termination at the limit keeps terminated and sets truncated (Gymnasium)
    const both = new Wrappers.TimeLimit(new CountingEnv({ length: 2 }), 2)
    both.reset()
    both.step(0)
    expect(both.step(0)).toMatchObject({ terminated: true, truncated: true })
    expect(() => new Wrappers.TimeLimit(new CountingEnv(), 0)).toThrow(InvalidOptionError)
  })

  it("RecordEpisodeStatistics reports return and length at the end, with rolling queues", () => {
    const env = new Wrappers.RecordEpisodeStatistics(new CountingEnv({ length: 3 }), 2)
    for (const actions of [[1, 2, 0], [2, 2, 2], [0, 0, 1]]) {
      env.reset()
      const rs = actions.map((a) => env.step(a))
      expect(rs[0]!.info["episode"]).toBeUndefined()
      const ep = rs[2]!.info["episode"] as Wrappers.EpisodeStatistics
      expect(ep.r).toBe(actions[0]! + actions[1]! + actions[2]!)
      expect(ep.l).toBe(3)
      expect(ep.t).toBeGreaterThanOrEqual(0)
      expect(rs[2]!.info["t"]).toBe(3) // inner info kept
    }
    expect(env.returnQueue).toEqual([6, 1]) // buffer of 2: the last two returns
    expect(env.lengthQueue).toEqual([3, 3])
    expect(env.episodeCount).toBe(3)
  })

  it("NormalizeObservation uses Gymnasium's running mean/var (count starts at 1e-4)", () => {
    const env = new Wrappers.NormalizeObservation(new CountingEnv({ length: 10 }))
    expect(env.observationSpace).toEqual(Space.box(-Infinity, Infinity, [2], "float32"))
    const o0 = env.reset().observation
    expect(Array.from(o0)).toEqual([0, 0])
    const o1 = env.step(0).observation // raw [1, 10]
    // after [0, 0]: mean 0, var = 1e-4 / 1.0001, count 1.0001
    // after x: mean = x / 2.0001, var = (1e-4 + x^2 * 1.0001 / 2.0001) / 2.0001
    for (const [k, x] of [[0, 1], [1, 10]] as const) {
      const mean = x / 2.0001
      const v = (1e-4 + (x * x * 1.0001) / 2.0001) / 2.0001
      expect(o1[k]).toBeCloseTo((x - mean) / Math.sqrt(v + 1e-8), 5)
    }
    expect(env.obsRms.count).toBeCloseTo(2.0001, 12)
    env.updateRunningMean = false
    const before = Array.from(env.obsRms.mean)
    env.step(0)
    expect(Array.from(env.obsRms.mean)).toEqual(before)
    expect(() => new Wrappers.NormalizeObservation(new FrozenLake.FrozenLakeEnv())).toThrow(InvalidOptionError)
  })

  it("ClipReward, TransformReward and TransformObservation change one field", () => {
    const clip = new Wrappers.ClipReward(new CountingEnv({ rewardOffset: -1 }), -0.5, 0.5)
    clip.reset()
    expect([clip.step(0).reward, clip.step(1).reward, clip.step(2).reward]).toEqual([-0.5, 0, 0.5])
    expect(() => new Wrappers.ClipReward(new CountingEnv())).toThrow(InvalidOptionError)
    expect(() => new Wrappers.ClipReward(new CountingEnv(), 1, 0)).toThrow(InvalidOptionError)
    const scaled = new Wrappers.TransformReward(new CountingEnv(), (r) => r * 10)
    scaled.reset()
    expect(scaled.step(2).reward).toBe(20)
    const summed = new Wrappers.TransformObservation(
      new CountingEnv(),
      (o: Float32Array) => o[0]! + o[1]!,
      Space.box(-Infinity, Infinity, [], "float64")
    )
    expect(summed.reset().observation).toBe(0)
    expect(summed.step(0).observation).toBe(11)
    expect(summed.observationSpace._tag).toBe("Box")
  })

  it("FlattenObservation one-hot encodes Discrete observations", () => {
    const env = new Wrappers.FlattenObservation(new FrozenLake.FrozenLakeEnv({ isSlippery: false }))
    expect(env.observationSpace).toEqual(Space.box(0, 1, [16], "float32"))
    const o = env.reset({ seed: 0 }).observation
    expect(Array.from(o)).toEqual([1, ...new Array(15).fill(0)])
    const o2 = env.step(FrozenLake.DOWN).observation
    expect(o2.indexOf(1)).toBe(4)
    expect(o2.reduce((a, b) => a + b, 0)).toBe(1)
  })

  it("OrderEnforcing refuses step before reset", () => {
    const env = new Wrappers.OrderEnforcing(new CountingEnv())
    expect(() => env.step(0)).toThrow(ResetNeededError)
    env.reset()
    expect(env.hasResetCalled).toBe(true)
    expect(env.step(1).reward).toBe(1)
  })

  it("ObservationWrapper/RewardWrapper/ActionWrapper subclasses compose", () => {
    class Negate extends Wrappers.RewardWrapper {
      reward(r: number) {
        return -r
      }
    }
    class Flip extends Wrappers.ActionWrapper<Float32Array, number, number> {
      action(a: number) {
        return 2 - a
      }
    }
    class Double extends Wrappers.ObservationWrapper<Float32Array, number, Float32Array> {
      observation(o: Float32Array) {
        return o.map((x) => 2 * x)
      }
    }
    const env = new Double(new Negate(new Flip(new CountingEnv())))
    env.reset()
    const r = env.step(0) // flipped to 2, reward 2, negated
    expect(r.reward).toBe(-2)
    expect(Array.from(r.observation)).toEqual([2, 20])
  })
})

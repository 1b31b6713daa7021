import { describe, expect, it } from "@effect/vitest"
import { Collect } from "@autodidact/cluster"
import { InvalidOptionError, Rng } from "@autodidact/core"
import { Registry } from "@autodidact/envs"
import { ActorCritic, DrrnPolicy } from "@autodidact/optim"

const net = ActorCritic.make({ obsDim: 4, numActions: 2, rng: Rng.make(5) })
const policy = { version: 3, hash: "h" }
const spec = (episodeId: number, runSeed = 9) => ({ runId: "r", runSeed, envId: "CartPole-v1", episodeId, policy })

describe("Collect.collectEpisode", () => {
  it("is a function of (run seed, episode id, weights): order and process do not matter", () => {
    const forward = [0, 1, 2, 3].map((id) => Collect.collectEpisode(spec(id), net, "a"))
    const backward = [3, 2, 1, 0].map((id) => Collect.collectEpisode(spec(id), ActorCritic.fromParams(net, Float32Array.from(net.params)), "b")).reverse()
    for (let i = 0; i < 4; i++) {
      const { runner: _a, collectSeconds: _s, ...x } = forward[i]!
      const { runner: _b, collectSeconds: _t, ...y } = backward[i]!
      expect(x).toEqual(y)
    }
    // Different ids and different run seeds give different episodes.
    expect(forward[0]!.resetSeed).not.toBe(forward[1]!.resetSeed)
    expect(Collect.collectEpisode(spec(0, 10), net, "a").resetSeed).not.toBe(forward[0]!.resetSeed)
  })

  it("records what the environment did: first observation = reset(resetSeed), CartPole pays 1 per step", () => {
    const e = Collect.collectEpisode(spec(4), net, "a")
    const env = Registry.make("CartPole-v1")
    const first = env.reset({ seed: e.resetSeed }).observation as ArrayLike<number>
    expect(e.obs.slice(0, 4)).toEqual(Array.from(first))
    // Replaying the recorded actions on a fresh env reproduces every observation and reward.
    for (let t = 0; t < e.length; t++) {
      const out = env.step(e.actions[t]!)
      expect(out.reward).toBe(e.rewards[t])
      if (t + 1 < e.length) expect(e.obs.slice((t + 1) * 4, (t + 2) * 4)).toEqual(Array.from(out.observation as ArrayLike<number>))
      else expect(out.terminated || out.truncated).toBe(true)
    }
    env.close()
    expect(e.episodeReturn).toBe(e.length)
    expect(e.obs.length).toBe(4 * e.length)
    expect(e.logprobs.every((lp) => lp <= 0 && lp > -20)).toBe(true)
    expect(e.terminated || e.truncated).toBe(true)
    expect(e.policyVersion).toBe(3)
  })

  it("rejects environments and ids it cannot serve", () => {
    expect(() => Collect.collectEpisode({ ...spec(0), envId: "FrozenLake-v1" }, net, "a")).toThrow(InvalidOptionError)
    expect(() => Collect.collectEpisode(spec(-1), net, "a")).toThrow(InvalidOptionError)
    expect(() => Collect.collectEpisode(spec(1.5), net, "a")).toThrow(InvalidOptionError)
  })
})

describe("Collect.collectGroup", () => {
  it("rolls out G trajectories of one text task, reproducibly", () => {
    const p = DrrnPolicy.make({ buckets: 256, hidden: 8, embed: 8, rng: Rng.make(1) })
    const g = (id: number) => Collect.collectGroup({ runId: "r", runSeed: 1, envId: "TextHousehold-v0", groupId: id, groupSize: 3, policy, difficulty: "easy", maxSteps: 6 }, p, "a")
    const a = g(2)
    expect(a.trajectories.length + a.failures.length).toBe(3)
    expect(a.trajectories.every((t) => t.seed === a.taskSeed && t.actions.length === t.rewards.length && t.actions.length <= 6)).toBe(true)
    expect(a.steps).toBe(a.trajectories.reduce((s, t) => s + t.actions.length, 0))
    const { runner: _r, collectSeconds: _s, ...x } = a
    const { runner: _r2, collectSeconds: _s2, ...y } = g(2)
    expect(x).toEqual(y)
    expect(() => Collect.collectGroup({ runId: "r", runSeed: 1, envId: "TextHousehold-v0", groupId: 0, groupSize: 0, policy }, p, "a")).toThrow(InvalidOptionError)
  })
})

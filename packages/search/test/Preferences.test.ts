import { Rng } from "@autodidact/core"
import { TextFrozenLake } from "@autodidact/envs"
import { Dpo, DrrnPolicy } from "@autodidact/optim"
import { Mcts, Preferences, Value } from "@autodidact/search"
import { describe, expect, it } from "vitest"
import { type Graph, GraphEnv } from "./fixtures.js"

// root: a -> 0.2 (end); b -> s1 (x -> 1 end, y -> 0 end); c -> 0.5 (end)
const tree: Graph = {
  s0: { a: { to: "A", reward: 0.2, end: true }, b: { to: "s1", reward: 0 }, c: { to: "C", reward: 0.5, end: true } },
  s1: { x: { to: "X", reward: 1, end: true }, y: { to: "Y", reward: 0, end: true } }
}

describe("Preferences (Agent Q pairs from a search tree)", () => {
  it("best-vs-rest pairs per node, ranked by the edges' Q, with the first-path history; JSON lines round-trip", () => {
    const env = new GraphEnv(tree, "s0")
    env.reset()
    const r = Mcts.search(env, "s0", { budget: { envSteps: 300 }, value: Value.randomRollout(5), seed: 1 })
    const pairs = Preferences.fromTree(r.store, { task: "collect reward", minVisits: 1 })
    const summary = pairs.map((p) => [p.stateKey, p.chosen, p.rejected])
    // s1: x (1) over y (0); s0: b (≈1 once x is found) over c (0.5) and a (0.2)
    expect(summary).toEqual([["s0", "b", "c"], ["s0", "b", "a"], ["s1", "x", "y"]])
    const s1 = pairs[2]!
    expect(s1.chosenQ).toBe(1)
    expect(s1.rejectedQ).toBe(0)
    expect(s1.input).toEqual({ task: "collect reward", observation: "s1", admissible: ["x", "y"], history: [{ observation: "s0", action: "b" }] })
    // a margin above a gap drops that pair; weights by gap
    const wide = Preferences.fromTree(r.store, { task: "t", minVisits: 1, margin: 0.6, weightByGap: true })
    expect(wide.map((p) => [p.chosen, p.rejected])).toEqual([["b", "a"], ["x", "y"]])
    expect(wide[1]!.weight).toBe(1)
    expect(Preferences.fromJsonLines(Preferences.toJsonLines(pairs))).toEqual(pairs)
    expect(() => Preferences.fromTree(r.store, { task: "t", margin: -1 })).toThrow(/margin = -1/)
    // maxDepth 0: the root's pairs alone
    expect(Preferences.fromTree(r.store, { task: "t", minVisits: 1, maxDepth: 0 }).map((p) => [p.stateKey, p.chosen, p.rejected])).toEqual([["s0", "b", "c"], ["s0", "b", "a"]])
    expect(() => Preferences.fromTree(r.store, { task: "t", maxDepth: 0.5 })).toThrow(/maxDepth = 0.5/)
  })

  it("search → pairs → DPO → a better policy: a DRRN policy follows MCTS's preferences to the goal of FrozenLake 4x4", () => {
    const map = { isSlippery: false, maxSteps: 12 }
    const greedySuccess = (p: DrrnPolicy.Drrn) => {
      const env = new TextFrozenLake.TextFrozenLake(map)
      let { observation } = env.reset({ seed: 0 })
      const history: Array<{ observation: string; action: string }> = []
      for (let t = 0; t < 12; t++) {
        const input = { task: env.task, observation, admissible: env.admissibleActions(), history: [...history] }
        const enc = DrrnPolicy.encode(p, input)
        const { index } = DrrnPolicy.sample(p, enc, Rng.make(0), true)
        const action = input.admissible[index]!
        const r = env.step(action)
        history.push({ observation, action })
        observation = r.observation
        if (r.terminated || r.truncated) return r.reward > 0
      }
      return false
    }
    const policy = DrrnPolicy.make({ buckets: 512, hidden: 16, embed: 8, grid: true, history: 0, rng: Rng.make(3) })
    expect(greedySuccess(policy)).toBe(false)
    const env = new TextFrozenLake.TextFrozenLake(map)
    const { observation } = env.reset({ seed: 0 })
    const r = Mcts.search(env, observation, { budget: { envSteps: 4000 }, value: Value.randomRollout(12), gamma: 0.95, seed: 2 })
    const pairs = Preferences.fromTree(r.store, { task: env.task, margin: 0.02 })
    expect(pairs.length).toBeGreaterThan(5)
    const report = Dpo.fit(policy, pairs, { beta: 0.5, learningRate: 0.02, epochs: 30, batchSize: 16, seed: 1 })
    expect(report.finalAccuracy).toBeGreaterThan(0.9)
    expect(greedySuccess(policy)).toBe(true)
  })
})

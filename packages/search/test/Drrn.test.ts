import { InvalidOptionError, Rng } from "@autodidact/core"
import { TextFrozenLake } from "@autodidact/envs"
import { DrrnPolicy } from "@autodidact/optim"
import { Drrn, Mcts, SearchPolicy } from "@autodidact/search"
import { describe, expect, it } from "@effect/vitest"
import { type Graph, GraphEnv } from "./fixtures.js"

// s0 -a-> s1 -c-> s2 -e-> end (1); s0 -b-> end (0); s1 -d-> end (0)
const chain: Graph = {
  s0: { a: { to: "s1", reward: 0 }, b: { to: "B", reward: 0, end: true } },
  s1: { c: { to: "s2", reward: 0 }, d: { to: "D", reward: 0, end: true } },
  s2: { e: { to: "E", reward: 1, end: true }, f: { to: "F", reward: 0, end: true } }
}

type Step = { readonly observation: string; readonly action: string }

/** Play the DRRN greedily from the env's current state (history given), as the multi-turn trainer encodes steps. */
const greedyFrom = (p: DrrnPolicy.Drrn, env: TextFrozenLake.TextFrozenLake, observation: string, history: Array<Step>, maxSteps: number) => {
  let ret = 0
  let obs = observation
  for (let t = 0; t < maxSteps; t++) {
    const input = { task: env.task, observation: obs, admissible: env.admissibleActions(), history: [...history] }
    const { index } = DrrnPolicy.sample(p, DrrnPolicy.encode(p, input), Rng.make(0), true)
    const action = input.admissible[index]!
    const r = env.step(action)
    history.push({ observation: obs, action })
    ret += r.reward
    obs = r.observation
    if (r.terminated || r.truncated) return { ret, won: r.info["won"] === true }
  }
  return { ret, won: false }
}

describe("Drrn (a DRRN policy as PUCT prior, rollout policy and value)", () => {
  it("the prior is the DRRN's softmax on the node's (observation, action) history, real steps before the root included", () => {
    const p = DrrnPolicy.make({ buckets: 256, hidden: 8, embed: 4, history: 2, rng: Rng.make(5) })
    const env = new GraphEnv(chain, "s0")
    env.reset()
    const seen: Array<{ key: string; probs: Float64Array; steps: ReadonlyArray<Step> }> = []
    const prior = Drrn.prior(p)
    const before: Array<Step> = [{ observation: "start", action: "wake up" }]
    Mcts.search(env, "s0", {
      budget: { envSteps: 50 },
      selection: "puct",
      prior: (input) => {
        const probs = Float64Array.from(prior(input))
        seen.push({ key: input.observation, probs, steps: input.steps ?? [] })
        return probs
      },
      steps: before,
      value: Drrn.rolloutValue(p, { depth: 5 })
    })
    const s2 = seen.find((s) => s.key === "s2")!
    expect(s2.steps).toEqual([...before, { observation: "s0", action: "a" }, { observation: "s1", action: "c" }])
    // independent: the DRRN's own forward on the same input with that history
    DrrnPolicy.forward(p, DrrnPolicy.encode(p, { task: env.task, observation: "s2", admissible: ["e", "f"], history: s2.steps }))
    const want = Float64Array.from(DrrnPolicy.probsOf(p).subarray(0, 2))
    expect(s2.probs[0]).toBeCloseTo(want[0]!, 12)
    expect(s2.probs[1]).toBeCloseTo(want[1]!, 12)
    // the history matters: the same state without it scores differently (history features are on)
    DrrnPolicy.forward(p, DrrnPolicy.encode(p, { task: env.task, observation: "s2", admissible: ["e", "f"], history: [] }))
    expect(DrrnPolicy.probsOf(p)[0]).not.toBeCloseTo(want[0]!, 6)
    // temperature T: p_T ∝ p^(1/T)
    const input = { task: env.task, observation: "s2", admissible: ["e", "f"], history: ["wake up", "a", "c"], steps: s2.steps }
    const p1 = Drrn.probabilities(p, input)
    const p2 = Drrn.probabilities(p, input, 2)
    const z = Math.sqrt(p1[0]!) + Math.sqrt(p1[1]!)
    expect(p2[0]).toBeCloseTo(Math.sqrt(p1[0]!) / z, 12)
    expect(p2[0]! + p2[1]!).toBeCloseTo(1, 12)
    expect(() => Drrn.prior(p, { temperature: 0 })).toThrow(InvalidOptionError)
    expect(() => Drrn.probabilities(p, input, Number.NaN)).toThrow(/temperature/)
    // an input without steps: actions paired with empty observations
    expect(Drrn.inputOf({ task: "t", observation: "o", admissible: ["x"], history: ["a"] }).history).toEqual([{ observation: "", action: "a" }])
    // steps whose actions disagree with history: a typed error naming `steps`
    expect(() => Mcts.search(env, "s0", { budget: { envSteps: 5 }, history: ["x"], steps: before })).toThrow(/steps/)
  })

  it("horizon: a goal past the real episode's steps left is worth 0 to the search", () => {
    const env = new GraphEnv(chain, "s0")
    env.reset()
    const qOfA = (horizon: number) => {
      const r = Mcts.search(env, "s0", { budget: { envSteps: 200 }, horizon, value: { kind: "random-rollout", depth: 10 }, maxIdle: 50 })
      return r.actions.find((a) => a.action === "a")!.q
    }
    expect(qOfA(2)).toBe(0)
    expect(qOfA(3)).toBeGreaterThan(0)
    expect(() => qOfA(0)).toThrow(/horizon/)
  })

  it("goal plans: the shortest tree path plus rollout that reached the goal, with its state keys; stopAtGoal ends there and SearchPolicy follows it", () => {
    const env = new GraphEnv(chain, "s0")
    env.reset()
    const r = Mcts.search(env, "s0", { budget: { envSteps: 500 }, value: { kind: "random-rollout", depth: 10 }, stopAtGoal: true, seed: 3 })
    expect(r.solved).toBe(true)
    expect(r.stats.stoppedBy).toBe("solved")
    expect(r.plan).toEqual(["a", "c", "e"])
    expect(r.planKeys).toEqual(["s0", "s1", "s2"])
    expect(env.stateKey()).toBe("s0")
    // without stopAtGoal the search spends its budget (or goes idle) and still reports the plan
    const full = Mcts.search(env, "s0", { budget: { envSteps: 500 }, value: { kind: "random-rollout", depth: 10 }, seed: 3 })
    expect(full.stats.stoppedBy).not.toBe("solved")
    expect(full.plan).toEqual(["a", "c", "e"])
    // unreachable goal (horizon 2): not solved, empty plan
    const cut = Mcts.search(env, "s0", { budget: { envSteps: 100 }, horizon: 2, value: { kind: "random-rollout", depth: 10 }, maxIdle: 20 })
    expect(cut).toMatchObject({ solved: false, plan: [], planKeys: [] })
    // followed: one search, then the plan
    const random = (input: { readonly admissible: ReadonlyArray<string> }, rng: Rng) => input.admissible[rng.integers(input.admissible.length)]!
    const follower = new SearchPolicy.SearchPolicy({ search: { kind: "mcts", budget: { envSteps: 500 }, stopAtGoal: true, seed: 3 }, policy: random, followPlan: true })
    const ep = SearchPolicy.runEpisode(env, follower, {}, 10)
    expect(ep).toMatchObject({ success: true, actions: ["a", "c", "e"] })
    expect(follower.searches).toHaveLength(1)
    expect(SearchPolicy.evaluate(env, follower, [{}, {}], { maxSteps: 10 })).toMatchObject({ successes: 2, decisions: 2, solvedSearches: 2 })
  })

  it("the rollout value is the greedy DRRN's return from the new state; MCTS with prior and value reaches FrozenLake's goal where the greedy DRRN alone does not", () => {
    const map = { isSlippery: false, maxSteps: 30 }
    const p = DrrnPolicy.make({ buckets: 512, hidden: 16, embed: 8, grid: true, history: 2, rng: Rng.make(3) })
    // the policy alone
    const alone = new TextFrozenLake.TextFrozenLake(map)
    const { observation: o0 } = alone.reset({ seed: 0 })
    expect(greedyFrom(p, alone, o0, [], 30).won).toBe(false)
    // the value of a child: the search's leaf value equals an independent greedy play from that child
    const env = new TextFrozenLake.TextFrozenLake(map)
    const { observation } = env.reset({ seed: 0 })
    const r = Mcts.search(env, observation, { budget: { envSteps: 200 }, selection: "puct", prior: Drrn.prior(p), value: Drrn.rolloutValue(p, { depth: 30 }), iterations: 1 })
    const child = r.store.nodes[1]!
    const check = new TextFrozenLake.TextFrozenLake(map)
    check.reset({ seed: 0 })
    const firstAction = r.store.root.edges[child.parentEdge]!.action
    const s = check.step(firstAction)
    expect(child.value).toBe(greedyFrom(p, check, s.observation, [{ observation, action: firstAction }], 30).ret)
    // per-step MCTS (PUCT, DRRN prior and value) within the episode's step limit
    const policy = new SearchPolicy.SearchPolicy({
      search: { kind: "mcts", budget: { envSteps: 300 }, selection: "puct", prior: Drrn.prior(p), value: Drrn.rolloutValue(p, { depth: 30 }), seed: 1 },
      policy: Drrn.policy(p)
    })
    const episodes: Array<SearchPolicy.Episode> = []
    const report = SearchPolicy.evaluate(env, policy, [{ seed: 0 }], { maxSteps: 30, onEpisode: (_, ep) => episodes.push(ep) })
    const ep = episodes[0]!
    expect(ep.success).toBe(true)
    expect(report).toMatchObject({ episodes: 1, successes: 1, successRate: 1, decisions: ep.steps, searchEnvSteps: ep.searchSteps, solvedSearches: policy.searches.filter((x) => x.stoppedBy === "solved").length })
    expect(ep.searchSteps).toBe(policy.searches.reduce((s, x) => s + x.envSteps, 0))
    expect(ep.searchSteps).toBeLessThanOrEqual(300 * ep.steps)
    expect(() => SearchPolicy.evaluate(env, policy, [])).toThrow(InvalidOptionError)
  })
})

import { InvalidOptionError, Rng } from "@autodidact/core"
import { SokobanLevel, TextFrozenLake, TextHousehold, TextSokoban } from "@autodidact/envs"
import { describe, expect, it } from "@effect/vitest"
import { BestFirst, Budget, Mcts, Search, SearchPolicy, Value } from "@autodidact/search"
import { Effect, Exit } from "effect"
import { type Graph, GraphEnv, sokobanValue } from "./fixtures.js"

// root: a -> 0.2 (end); b -> s1 (x -> 1.0 end, y -> 0 end); c -> 0.5 (end). Best: b then x (return 1).
const tree: Graph = {
  s0: { a: { to: "A", reward: 0.2, end: true }, b: { to: "s1", reward: 0 }, c: { to: "C", reward: 0.5, end: true } },
  s1: { x: { to: "X", reward: 1, end: true }, y: { to: "Y", reward: 0, end: true } }
}

// two paths to s3: a,c and b,d; s3 -> e (1, end)
const diamond: Graph = {
  s0: { a: { to: "s1", reward: 0 }, b: { to: "s2", reward: 0 } },
  s1: { c: { to: "s3", reward: 0 } },
  s2: { d: { to: "s3", reward: 0 } },
  s3: { e: { to: "E", reward: 1, end: true } }
}

// a 6x6 one-box level: the box goes right, then down the right column and left along the bottom row (16 pushes and moves)
const LEVEL_F = SokobanLevel.fromRows(["######", "#@   #", "#  $ #", "## # #", "#.   #", "######"])

const sokobanAt = (level: SokobanLevel.Level, maxSteps = 100) => {
  const env = new TextSokoban.TextSokoban({ maxSteps })
  const { observation } = env.reset({ seed: 0, options: { level } })
  return { env, observation }
}

const value = (input: { readonly observation: string }) => sokobanValue(input.observation)

describe("MCTS", () => {
  it("UCT on a tiny deterministic tree picks the known best action (b, return 1) with exact leaf means", () => {
    const env = new GraphEnv(tree, "s0")
    env.reset()
    const r = Mcts.search(env, "s0", { budget: { envSteps: 200 }, value: Value.randomRollout(5), seed: 1 })
    expect(r.action).toBe("b")
    const byAction = Object.fromEntries(r.actions.map((a) => [a.action, a]))
    expect(byAction["a"]!.q).toBeCloseTo(0.2, 12)
    expect(byAction["c"]!.q).toBeCloseTo(0.5, 12)
    expect(byAction["b"]!.q).toBeGreaterThan(0.8)
    expect(byAction["b"]!.visits).toBeGreaterThan(byAction["c"]!.visits)
    // the search restored the env to the root
    expect(env.stateKey()).toBe("s0")
    // 5 edges + rollouts from s1: the reachable tree is expanded long before 200 steps; idle simulations end it
    expect(r.stats.envSteps).toBeLessThan(200)
    expect(r.stats.stoppedBy).toBe("idle")
  })

  it("UCT visits each unvisited root edge once, in order, before any repeat", () => {
    const env = new GraphEnv(tree, "s0")
    env.reset()
    const r = Mcts.search(env, "s0", { budget: { envSteps: 100 }, iterations: 3 })
    expect(r.actions.map((a) => a.visits)).toEqual([1, 1, 1])
    expect(r.stats.stoppedBy).toBe("iterations")
  })

  it("PUCT with a sharp prior explores the prior's action first", () => {
    for (const [p, first] of [[[0.01, 0.01, 0.98], "c"], [[0.98, 0.01, 0.01], "a"], [[0.01, 0.98, 0.01], "b"]] as const) {
      const env = new GraphEnv(tree, "s0")
      env.reset()
      const r = Mcts.search(env, "s0", { budget: { envSteps: 100 }, selection: "puct", prior: (input) => (input.admissible.length === 3 ? p : [0.5, 0.5]), iterations: 1 })
      expect(r.actions.filter((a) => a.visits > 0).map((a) => a.action)).toEqual([first])
      expect(r.actions.map((a) => a.prior)).toEqual(p)
    }
    // and with enough budget it still finds b even when the prior prefers c
    const env = new GraphEnv(tree, "s0")
    env.reset()
    const r = Mcts.search(env, "s0", { budget: { envSteps: 300 }, selection: "puct", prior: (input) => (input.admissible.length === 3 ? [0.1, 0.3, 0.6] : [0.5, 0.5]), value: Value.randomRollout(5) })
    expect(r.action).toBe("b")
  })

  it("progressive widening considers only the first floor(c N^alpha) edges by prior", () => {
    const env = new GraphEnv(tree, "s0")
    env.reset()
    // c = 1, alpha = 0.01: floor(N^0.01) = 1 edge for N < 2^100 visits -> only the highest-prior edge (c) is ever visited
    const r = Mcts.search(env, "s0", { budget: { envSteps: 50 }, prior: (input) => (input.admissible.length === 3 ? [0.2, 0.3, 0.5] : [0.5, 0.5]), widening: { c: 1, alpha: 0.01 } })
    expect(r.actions.map((a) => a.visits > 0)).toEqual([false, false, true])
    expect(r.action).toBe("c")
  })

  it("transpositions: two paths to one stateKey share one node", () => {
    const env = new GraphEnv(diamond, "s0")
    env.reset()
    const r = Mcts.search(env, "s0", { budget: { envSteps: 40 }, value: Value.randomRollout(3) })
    const s3 = r.store.nodes.filter((n) => n.key === "s3")
    expect(s3.length).toBe(1)
    expect(r.store.nodes.length).toBe(4)
    const s1 = r.store.get("s1")!
    const s2 = r.store.get("s2")!
    expect(s1.edges[0]!.child).toBe(s3[0]!.id)
    expect(s2.edges[0]!.child).toBe(s3[0]!.id)
    expect(r.stats.transpositions).toBe(1)
  })

  it("policy rollouts: the policy sees the path's history and its rollout return is the leaf value", () => {
    const env = new GraphEnv(tree, "s0")
    env.reset()
    const seen: Array<ReadonlyArray<string>> = []
    // always the first admissible action: from s1 that is x (return 1)
    const first = (input: { readonly admissible: ReadonlyArray<string>; readonly history: ReadonlyArray<string> }) => {
      seen.push(input.history)
      return input.admissible[0]!
    }
    const r = Mcts.search(env, "s0", { budget: { envSteps: 100 }, value: Value.policyRollout(first, 5), iterations: 3, history: ["earlier"] })
    // simulations 1-3 expand a, b, c; only b leads to a non-terminal node (s1), whose rollout takes x: return 1
    expect(r.actions.map((a) => a.q)).toEqual([0.2, 1, 0.5])
    expect(seen).toEqual([["earlier", "b"]])
    expect(r.stats.envSteps).toBe(4)
  })

  it("a value function as the leaf value; a non-finite one is a typed error naming the value", () => {
    const env = new GraphEnv(tree, "s0")
    env.reset()
    const r = Mcts.search(env, "s0", { budget: { envSteps: 30 }, value: Value.fromFunction((_, key) => (key === "s1" ? 1 : 0)) })
    expect(r.action).toBe("b")
    // with a value function, every env step is an expansion: no rollouts
    expect(r.stats.envSteps).toBe(r.store.nodes.reduce((s, n) => s + n.edges.filter((e) => e.expanded).length, 0))
    env.reset()
    expect(() => Mcts.search(env, "s0", { budget: { envSteps: 30 }, value: Value.fromFunction(() => Number.NaN) })).toThrow(/value function result/)
  })
})

describe("Budgets", () => {
  it("0, NaN, negative, fractional steps, a non-number, or no finite limit: InvalidOptionError naming the field", () => {
    const bad: Array<[Budget.Budget, string]> = [
      [{ envSteps: 0 }, "budget.envSteps"],
      [{ envSteps: Number.NaN }, "budget.envSteps"],
      [{ nodes: -3 }, "budget.nodes"],
      [{ nodes: 2.5 }, "budget.nodes"],
      [{ wallMs: 0 }, "budget.wallMs"],
      [{ wallMs: "5" as unknown as number }, "budget.wallMs"],
      [{}, "budget"],
      [{ envSteps: Infinity }, "budget"]
    ]
    for (const [budget, option] of bad) {
      const err = (() => {
        try {
          Budget.validate(budget)
        } catch (e) {
          return e
        }
      })()
      expect(err).toBeInstanceOf(InvalidOptionError)
      expect((err as InvalidOptionError).option).toBe(option)
    }
    const env = new GraphEnv(tree, "s0")
    env.reset()
    expect(() => Mcts.search(env, "s0", { budget: { envSteps: 0 } })).toThrow(InvalidOptionError)
  })

  it("env-step and node budgets stop exactly; a wall-time budget stops on its clock", () => {
    const env = new TextHousehold.TextHousehold({ difficulty: "easy" })
    const { observation } = env.reset({ seed: 3 })
    const key = env.stateKey()
    const steps = Mcts.search(env, observation, { budget: { envSteps: 137 }, value: Value.randomRollout(10) })
    expect(steps.stats.envSteps).toBe(137)
    expect(steps.stats.stoppedBy).toBe("envSteps")
    expect(env.stateKey()).toBe(key)
    const nodes = Mcts.search(env, observation, { budget: { nodes: 25 }, value: Value.randomRollout(3) })
    expect(nodes.stats.nodes).toBe(25)
    expect(nodes.stats.stoppedBy).toBe("nodes")
    let t = 0
    const timed = Mcts.search(env, observation, { budget: { wallMs: 10 }, value: Value.randomRollout(3), clock: () => t++ })
    expect(timed.stats.stoppedBy).toBe("wallMs")
    expect(timed.stats.iterations).toBeLessThan(10)
    const { env: sok, observation: o } = sokobanAt(LEVEL_F)
    const bf = BestFirst.bestFirst(sok, o, { budget: { envSteps: 9 }, value })
    expect(bf.stats.envSteps).toBe(9)
    expect(bf.solved).toBe(false)
  })
})

describe("best-first and beam search", () => {
  it("best-first solves a one-box Sokoban level within 100 nodes; a random policy with the same env steps does not", () => {
    const { env, observation } = sokobanAt(LEVEL_F)
    const r = BestFirst.bestFirst(env, observation, { budget: { nodes: 100 }, value })
    expect(r.solved).toBe(true)
    expect(r.stats.stoppedBy).toBe("solved")
    expect(r.stats.nodes).toBeLessThanOrEqual(100)
    // every env step expanded an edge: nothing was replayed
    expect(r.stats.envSteps).toBe(r.store.nodes.reduce((s, n) => s + n.edges.filter((e) => e.expanded).length, 0))
    // the plan replays to the goal on the real env
    env.reset({ options: { level: LEVEL_F } })
    let last = { terminated: false, info: {} as Record<string, unknown> }
    for (const a of r.plan) last = env.step(a)
    expect(last.terminated && last.info["won"]).toBe(true)
    // random: episodes of 100 steps until the same number of env steps is spent, 5 seeds
    for (let seed = 0; seed < 5; seed++) {
      const rng = Rng.make(seed)
      let spent = 0
      let won = false
      while (spent < Math.max(r.stats.envSteps, 200) && !won) {
        env.reset({ options: { level: LEVEL_F } })
        for (;;) {
          const s = env.step(TextSokoban.ACTION_NAMES[rng.integers(4)]!)
          spent++
          if (s.terminated) won = true
          if (s.terminated || s.truncated) break
        }
      }
      expect(won).toBe(false)
    }
  })

  it("beam search with width 1 is greedy one-step lookahead on the value (here it oscillates and does not solve)", () => {
    const { env, observation } = sokobanAt(LEVEL_F)
    const r = BestFirst.beam(env, observation, { budget: { envSteps: 2000 }, value, width: 1, maxDepth: 40 })
    // greedy by hand: try every action in order; a goal step wins; else take the first best-valued next state
    env.reset({ options: { level: LEVEL_F } })
    const plan: Array<string> = []
    let done = false
    for (let d = 0; d < 40 && !done; d++) {
      const snap = env.snapshot()
      let best = ""
      let bestV = -Infinity
      for (const a of env.admissibleActions()) {
        env.restore(snap)
        const s = env.step(a)
        if (s.terminated && s.info["won"] === true) {
          plan.push(a)
          done = true
          break
        }
        if (s.terminated || s.truncated) continue
        const v = sokobanValue(s.observation)
        if (v > bestV) {
          bestV = v
          best = a
        }
      }
      if (done) break
      env.restore(snap)
      env.step(best)
      plan.push(best)
    }
    expect(r.plan).toEqual(plan)
    expect(r.solved).toBe(done)
    // a wide enough beam (8) solves it
    const { env: e2, observation: o2 } = sokobanAt(LEVEL_F)
    expect(BestFirst.beam(e2, o2, { budget: { envSteps: 2000 }, value, width: 8 }).solved).toBe(true)
  })

  it("bad options are typed errors naming the option", () => {
    const { env, observation } = sokobanAt(LEVEL_F)
    expect(() => BestFirst.beam(env, observation, { budget: { nodes: 10 }, value, width: 0 })).toThrow(/width/)
    expect(() => BestFirst.bestFirst(env, observation, { budget: { nodes: Number.NaN }, value })).toThrow(/budget\.nodes/)
  })
})

describe("SearchPolicy", () => {
  it("MCTS-per-step on deterministic TextFrozenLake 4x4 reaches the goal; the random policy it wraps does not", () => {
    const env = new TextFrozenLake.TextFrozenLake({ isSlippery: false, maxSteps: 30 })
    const random = (input: { readonly admissible: ReadonlyArray<string> }, rng: Rng) => input.admissible[rng.integers(input.admissible.length)]!
    const policy = new SearchPolicy.SearchPolicy({
      search: { kind: "mcts", budget: { envSteps: 300 }, value: Value.randomRollout(12), seed: 7 },
      policy: random
    })
    const seen: Array<{ observation: string; nodes: number; envSteps: number }> = []
    const policy2 = new SearchPolicy.SearchPolicy({ ...policy.options, onSearch: (r, input) => void seen.push({ observation: input.observation, nodes: r.store.nodes.length, envSteps: r.stats.envSteps }) })
    const ep = SearchPolicy.runEpisode(env, policy2, { seed: 0 })
    expect(ep.success).toBe(true)
    expect(ep.steps).toBeGreaterThanOrEqual(6)
    expect(policy2.searches.length).toBe(ep.steps)
    // onSearch saw every search: its tree and the input it searched from (the first: the reset observation)
    expect(seen.map((s) => s.envSteps)).toEqual(policy2.searches.map((s) => s.envSteps))
    expect(seen[0]!.observation).toBe(env.reset({ seed: 0 }).observation)
    for (const s of seen) expect(s.nodes).toBeGreaterThan(1)
    for (const s of policy2.searches) expect(s.envSteps).toBeLessThanOrEqual(300)
    // the wrapped random policy alone (5 episodes)
    const rng = Rng.make(0)
    let wins = 0
    for (let k = 0; k < 5; k++) {
      env.reset({ seed: k })
      for (;;) {
        const s = env.step(random({ admissible: env.admissibleActions() }, rng))
        if (s.terminated || s.truncated) {
          if (s.info["won"] === true) wins++
          break
        }
      }
    }
    expect(wins).toBeLessThan(5)
  })

  it("best-first per step follows its found plan without searching again", () => {
    const env = new TextSokoban.TextSokoban({ maxSteps: 100 })
    const policy = new SearchPolicy.SearchPolicy({
      search: { kind: "best-first", budget: { nodes: 100 }, value },
      policy: () => "Up"
    })
    const ep = SearchPolicy.runEpisode(env, policy, { seed: 0, options: { level: LEVEL_F } })
    expect(ep.success).toBe(true)
    expect(policy.searches.length).toBe(1)
  })
})

describe("Search (Effect face)", () => {
  it.effect("runs a search as an Effect, fails with InvalidOptionError on a bad budget; layer supplies a default budget", () =>
    Effect.gen(function*() {
      const env = new GraphEnv(tree, "s0")
      env.reset()
      const r = yield* Search.mcts(env, "s0", { budget: { envSteps: 100 }, value: Value.randomRollout(5) })
      expect(r.action).toBe("b")
      const exit = yield* Effect.exit(Search.mcts(env, "s0", { budget: { envSteps: -1 } }))
      expect(Exit.isFailure(exit)).toBe(true)
      const household = new TextHousehold.TextHousehold({ difficulty: "easy" })
      const { observation } = household.reset({ seed: 1 })
      const viaService = yield* Effect.gen(function*() {
        const searcher = yield* Search.Searcher
        return yield* searcher.mcts(household, observation, { value: Value.randomRollout(5) })
      }).pipe(Effect.provide(Search.layer({ budget: { envSteps: 60 } })))
      expect(viaService.stats.envSteps).toBe(60)
    }))
})

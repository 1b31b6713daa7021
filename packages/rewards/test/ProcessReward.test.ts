import { Rng } from "@autodidact/core"
import { TextHousehold } from "@autodidact/envs"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { ProcessReward, RewardModel, Search, Shaping } from "../src/index.js"

const env = () => new TextHousehold.TextHousehold({ difficulty: "easy", maxSteps: 30 })
const task: Search.Task = { seed: 5, options: { taskIndex: 5 } }

describe("replaying a prefix reaches the same state", () => {
  it("restore(task, actions) gives the state key of the original run", () => {
    const e = env()
    const rng = Rng.make(1)
    const ep = Search.rollout(e, task, Search.randomPolicy, rng, 12)
    const key = e.stateKey()
    const again = Search.restore(e, task, ep.actions)
    expect(e.stateKey()).toBe(key)
    expect(again.actions).toEqual(ep.actions)
    expect(again.last).toBe(ep.last)
  })
})

describe("Monte Carlo step targets", () => {
  it("are success rates in [0, 1], and the expert's steps all have target 1", () => {
    const e = env()
    const rng = Rng.make(2)
    const expert: Search.Policy = () => e.expertAction()
    const r = ProcessReward.monteCarloTargets(e, task, expert, { k: 2, maxSteps: 30, rng })
    expect(r.episode.success).toBe(true)
    expect(r.targets.map((t) => t.target)).toEqual(r.targets.map(() => 1))
    const random = ProcessReward.monteCarloTargets(e, task, Search.randomPolicy, { k: 3, maxSteps: 30, rng })
    for (const t of random.targets) expect(t.target * 3).toBe(Math.round(t.target * 3))
    for (const t of random.targets) expect(t.target >= 0 && t.target <= 1).toBe(true)
  })

  it("featurize is deterministic, normalized and depends on the action", () => {
    const a = ProcessReward.featurize("put a mug in cabinet.", "You see a mug 1. || go to countertop 1", "take mug 1 from countertop 1", 512)
    const b = ProcessReward.featurize("put a mug in cabinet.", "You see a mug 1. || go to countertop 1", "take mug 1 from countertop 1", 512)
    const c = ProcessReward.featurize("put a mug in cabinet.", "You see a mug 1. || go to countertop 1", "look", 512)
    expect(Array.from(a)).toEqual(Array.from(b))
    expect(a.reduce((s, v) => s + v * v, 0)).toBeCloseTo(1, 5)
    expect(Array.from(a)).not.toEqual(Array.from(c))
  })
})

describe("step-level advantages", () => {
  it("group-normalized outcome plus PRM progress (hand-computed)", () => {
    // outcomes 1 and 0: mean 0.5, sample std sqrt(0.5) (n − 1, the one group rule) → ±0.5/sqrt(0.5) = ±1/√2;
    // Q_{-1} = mean(0.5, 0.3) = 0.4
    const r = Math.SQRT1_2
    const adv = ProcessReward.stepAdvantages([[0.5, 0.9], [0.3, 0.1]], [1, 0], { epsilon: 0 })
    expect(adv[0]![0]).toBeCloseTo(r + 0.1, 12)
    expect(adv[0]![1]).toBeCloseTo(r + 0.4, 12)
    expect(adv[1]![0]).toBeCloseTo(-r - 0.1, 12)
    expect(adv[1]![1]).toBeCloseTo(-r - 0.2, 12)
    const outcomeOnly = ProcessReward.stepAdvantages([[0.5, 0.9], [0.3, 0.1]], [1, 0], { processWeight: 0, epsilon: 0 })
    expect(outcomeOnly[1]![0]).toBeCloseTo(-r, 12)
    expect(outcomeOnly[1]![1]).toBeCloseTo(-r, 12)
  })

  it("three outcomes use the sample std; a group of one episode has outcome advantage 0", () => {
    // outcomes 0, 1, 1: mean 2/3, sample variance ((4/9) + 2·(1/9)) / 2 = 1/3
    const sd = Math.sqrt(1 / 3)
    const adv = ProcessReward.stepAdvantages([[0], [0], [0]], [0, 1, 1], { processWeight: 0, epsilon: 0 })
    expect(adv[0]![0]).toBeCloseTo(-(2 / 3) / sd, 12)
    expect(adv[1]![0]).toBeCloseTo((1 / 3) / sd, 12)
    const single = ProcessReward.stepAdvantages([[0.2, 0.7]], [1], { epsilon: 0 })
    expect(single[0]![0]).toBeCloseTo(0, 12) // outcome 0, progress 0.2 − mean first score 0.2
    expect(single[0]![1]).toBeCloseTo(0.5, 12)
  })
})

describe("reward-guided search", () => {
  it.effect("Best-of-N returns the candidate the model scores highest", () =>
    Effect.gen(function* () {
      const shortest = RewardModel.rules("short", { outcome: (c) => -(c.steps?.length ?? 0) })
      const e = env()
      const r = yield* Search.bestOfN(e, task, Search.randomPolicy, shortest, { n: 6, maxSteps: 30, rng: Rng.make(3), aggregate: "outcome" })
      expect(r.candidates).toBe(6)
      // re-running the same seed's rollouts gives the same lengths; the chosen one is the minimum
      const rng = Rng.make(3)
      const lengths = Array.from({ length: 6 }, () => Search.rollout(e, task, Search.randomPolicy, rng, 30).actions.length)
      expect(r.best.actions.length).toBe(Math.min(...lengths))
    }))

  it.effect("beam search with an exhaustive proposer and an expert step verifier solves the task; a random rollout does not", () =>
    Effect.gen(function* () {
      const e = env()
      const oracle = env()
      // a step verifier that knows the scripted expert: 1 for the expert's action in that state, else 0
      const expertVerifier = RewardModel.make("expert-verifier", {
        steps: (flat) => Effect.sync(() => flat.map((s) => {
          Search.restore(oracle, task, s.history ?? [])
          return oracle.expertAction() === s.action ? 1 : 0
        }))
      })
      // proposes every admissible action in turn
      let k = 0
      const exhaustive: Search.Policy = (input) => input.admissible[k++ % input.admissible.length]!
      const r = yield* Search.beamSearch(e, task, exhaustive, expertVerifier, { beamWidth: 1, expansions: 64, maxSteps: 30, rng: Rng.make(4) })
      expect(r.best.success).toBe(true)
      expect(r.policySamples).toBe(64 * r.best.actions.length)
      const random = Search.rollout(e, task, Search.randomPolicy, Rng.make(4), r.best.actions.length)
      expect(random.success).toBe(false)
    }))
})

describe("reward-guided search over snapshots", () => {
  it.effect("beam search on a restorable env jumps between beams by snapshot: same result as reset + replay, far fewer env steps", () =>
    Effect.gen(function* () {
      // the same TextHousehold, seen through a view that counts steps and hides (or not) snapshot/restore
      const view = (hide: boolean) => {
        const inner = env()
        const counter = { steps: 0 }
        const v = new Proxy(inner, {
          get: (target, key, receiver) => {
            if (hide && (key === "snapshot" || key === "restore")) return undefined
            if (key === "step") return (a: string) => (counter.steps++, target.step(a))
            const value = Reflect.get(target, key, receiver)
            return typeof value === "function" ? value.bind(target) : value
          }
        })
        return { v, counter }
      }
      // a model preferring actions that open things, then alphabetical: deterministic, not the expert
      const rm = RewardModel.make("opener", {
        steps: (flat) => Effect.sync(() => flat.map((s) => (s.action.startsWith("open") ? 1 : 0) + 1 / (1 + s.action.length)))
      })
      const run = (hide: boolean) =>
        Effect.gen(function* () {
          const { v, counter } = view(hide)
          const r = yield* Search.beamSearch(v, task, Search.randomPolicy, rm, { beamWidth: 3, expansions: 4, maxSteps: 12, rng: Rng.make(9) })
          return { r, steps: counter.steps }
        })
      const snap = yield* run(false)
      const replay = yield* run(true)
      expect(snap.r.best.actions).toEqual(replay.r.best.actions)
      expect(snap.r.best.observations).toEqual(replay.r.best.observations)
      expect([snap.r.policySamples, snap.r.candidates]).toEqual([replay.r.policySamples, replay.r.candidates])
      expect(snap.r.best.actions.length).toBeGreaterThan(5)
      // snapshots: one step per executed (beam, action); replay: the whole prefix again for every visit
      expect(snap.steps).toBeLessThanOrEqual(3 * 12)
      expect(replay.steps).toBeGreaterThan(4 * snap.steps)
    }))
})

describe("potential-based shaping", () => {
  it("shaping terms telescope to -Φ(s0) over a successful episode (γ = 1) and the env reward is kept in info", () => {
    const inner = env()
    const phi: Shaping.Potential = (en) => en.admissibleActions().length / 10
    const shaped = new Shaping.PotentialShaping(inner, phi, 1)
    shaped.reset({ seed: task.seed, options: task.options })
    const phi0 = inner.admissibleActions().length / 10
    let total = 0, unshaped = 0
    for (let t = 0; t < 30; t++) {
      const r = shaped.step(inner.expertAction())
      total += r.info["shapingReward"] as number
      unshaped += r.info["unshapedReward"] as number
      if (r.terminated || r.truncated) {
        expect(r.terminated).toBe(true)
        break
      }
    }
    expect(unshaped).toBe(1)
    expect(total).toBeCloseTo(-phi0, 10)
    expect(shaped.task).toBe(inner.task)
    expect(shaped.stateKey()).toBe(inner.stateKey())
  })
})

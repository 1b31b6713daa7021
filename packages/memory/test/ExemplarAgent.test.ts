import { Rng } from "@autodidact/core"
import { TextHousehold } from "@autodidact/envs"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as Embedder from "../src/embedders/Embedder.js"
import * as ExemplarAgent from "../src/store/ExemplarAgent.js"
import * as Store from "../src/store/Store.js"

const StoreLive = Store.layerMemory({ vectorIndex: "exact" }).pipe(Layer.provide(Embedder.layerHashed({ dimension: 256 })))

describe("ExemplarAgent role abstraction", () => {
  it("takes the task's content words as roles and templates the task", () => {
    expect(ExemplarAgent.taskRoles("put a clean mug in coffeemachine.")).toEqual(["mug", "coffeemachine"])
    expect(ExemplarAgent.taskRoles("look at book under the desklamp.")).toEqual(["book", "desklamp"])
    expect(ExemplarAgent.abstractTask("put a hot apple on countertop.")).toBe("put a hot {0} in {1}.")
    expect(ExemplarAgent.abstractTask("heat some egg and put it in fridge.")).toBe("heat some {0} and put it in {1}.")
  })

  it("writes commands in role form (numbers dropped, task entities replaced)", () => {
    const roles = ["apple", "fridge"]
    expect(ExemplarAgent.abstractAction("heat apple 1 with microwave 1", roles)).toBe("heat {0} with microwave")
    expect(ExemplarAgent.abstractAction("take apple 2 from countertop 1", roles)).toBe("take {0} from countertop")
    expect(ExemplarAgent.abstractAction("move apple 2 to fridge 1", roles)).toBe("move {0} to {1}")
    expect(ExemplarAgent.abstractAction("go to cabinet 3", roles)).toBe("go to cabinet")
  })

  it("extracts a plan of key role commands without detours", () => {
    const actions = [
      "go to countertop 1", "take apple 1 from countertop 1", "go to cabinet 1", "move apple 1 to cabinet 1",
      "take apple 1 from cabinet 1", "take pen 1 from desk 1", "go to microwave 1", "heat apple 1 with microwave 1",
      "heat apple 1 with microwave 1", "go to fridge 1", "open fridge 1", "move apple 1 to fridge 1"
    ]
    expect(ExemplarAgent.planOf(actions, ["apple", "fridge"])).toEqual([
      "take {0} from countertop",
      "heat {0} with microwave",
      "move {0} to {1}"
    ])
  })
})

describe("ExemplarAgent PlanFollower", () => {
  it("follows a plan taken from one task's expert trajectory to solve other tasks of the same type", () => {
    for (const taskType of ["pick_and_place_simple", "pick_heat_then_place_in_recep"] as const) {
      const env = new TextHousehold.TextHousehold({ difficulty: "easy", taskTypes: [taskType] })
      env.reset({ seed: 0, options: { taskIndex: 1000 } })
      const actions: Array<string> = []
      for (let done = false; !done;) {
        const a = env.expertAction()
        actions.push(a)
        const r = env.step(a)
        done = r.terminated || r.truncated
      }
      expect(env.won).toBe(true)
      const plan = ExemplarAgent.planOf(actions, ExemplarAgent.taskRoles(env.task))
      let wins = 0
      let explorerWins = 0
      for (let i = 0; i < 20; i++) {
        for (const p of [plan, []]) {
          const r0 = env.reset({ seed: i, options: { taskIndex: i } })
          const follower = new ExemplarAgent.PlanFollower(p, ExemplarAgent.taskRoles(env.task), Rng.make(i))
          let info = r0.info
          for (let done = false; !done;) {
            const r = env.step(follower.act(info["admissibleActions"] as ReadonlyArray<string>))
            info = r.info
            done = r.terminated || r.truncated
          }
          if (env.won && p.length > 0) wins++
          if (env.won && p.length === 0) explorerWins++
        }
      }
      expect(wins).toBeGreaterThanOrEqual(16) // the plan transfers to (nearly) every other task of its type
      expect(wins).toBeGreaterThan(explorerWins + 8) // the empty plan is the explorer alone
    }
  })
})

describe("ExemplarAgent on a TextHousehold-v0 stream", () => {
  // easy difficulty, three single-object task types; tasks 0..39 of the train split, all distinct instances (a smoke
  // size: bench/evo-memory.ts runs the 300-task stream and the unseen split)
  const env = () =>
    new TextHousehold.TextHousehold({
      difficulty: "easy",
      taskTypes: ["pick_and_place_simple", "pick_clean_then_place_in_recep", "pick_cool_then_place_in_recep"]
    })

  it.effect("succeeds clearly more often with memory than without (same agent, retrieval disabled)", () =>
    Effect.gen(function*() {
      const withMemory = yield* ExemplarAgent.runStream(env(), { n: 40, window: 20 }, { memory: true })
      const store = yield* Store.ExperienceStore
      expect(yield* store.count({ kind: "trajectory" })).toBe(40) // every finished episode was stored
      const without = yield* ExemplarAgent.runStream(env(), { n: 40, window: 20 }, { memory: false })
      expect(without.episodes.every((e) => e.plan.length === 0)).toBe(true)
      expect(withMemory.successRate).toBeGreaterThanOrEqual(without.successRate + 0.2)
      // the gain comes from later tasks, once memory holds successes of their template
      expect(withMemory.windows[1]!).toBeGreaterThan(without.windows[1]! + 0.2)
    }).pipe(Effect.provide(StoreLive)), 180_000)
})

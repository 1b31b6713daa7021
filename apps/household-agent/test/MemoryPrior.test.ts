/**
 * The exemplar plan as the policy's action prior: `planPrior` on hand-made cases (next not-yet-done step, skipped
 * steps, instance numbers, nothing matching), and end to end: with memory on and a store that already holds a
 * solved episode of each stream task, the policy's inputs carry the bias on the admissible commands of the plan's
 * next step (read back from the bias stored with each step's encoding, in the transcripts) and the observation has
 * no memory line (the line is off by default with the prior).
 */
import { InvalidOptionError, TextEpisode } from "@autodidact/core"
import { Embedder } from "@autodidact/memory"
import { ExemplarAgent, Records, Store } from "@autodidact/memory/store"
import { TextTasks } from "@autodidact/optim"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Agent from "../src/Agent.js"
import { parse } from "../src/main.js"
import * as Stream from "../src/Stream.js"

const ENV_ID = "TextHousehold-v0"

describe("planPrior", () => {
  const roles = ExemplarAgent.taskRoles("put a hot apple in fridge.") // apple, fridge
  const plan = ["take {0} from countertop", "heat {0} with microwave", "move {0} to {1}"]
  const admissible = ["go to fridge 1", "take apple 2 from countertop 1", "take apple 1 from countertop 3", "take bread 1 from countertop 1", "look"]

  it("raises the admissible commands of the next not-yet-done step, any instance numbers, by the weight", () => {
    expect(planPrior(plan, roles, [], admissible, 1.5)).toEqual([0, 1.5, 1.5, 0, 0])
    // "take" done: the next step is the heat
    const after = [{ action: "go to countertop 1" }, { action: "take apple 2 from countertop 1" }, { action: "go to microwave 1" }]
    expect(planPrior(plan, roles, after, ["heat apple 2 with microwave 1", "move apple 2 to microwave 1", "look"], 2)).toEqual([2, 0, 0])
    // a later step taken (by a skill or another route) skips the ones before it: the move is next-to-none → done
    expect(planPrior(plan, roles, [{ action: "heat apple 2 with microwave 1" }], ["move apple 2 to fridge 1", "take apple 2 from countertop 1"], 1)).toEqual([1, 0])
  })

  it("match roles: receptacle types that are not roles are wildcards (an exemplar from another layout)", () => {
    expect(Agent.roleKey("take {0} from shelf")).toBe("take {0} from *")
    expect(Agent.roleKey("move {0} to {1}")).toBe("move {0} to {1}")
    expect(planPrior(plan, roles, [], admissible, 1, "command")).toEqual([0, 1, 1, 0, 0])
    const elsewhere = ["take apple 1 from drawer 2", "take bread 1 from countertop 1", "go to drawer 1"]
    expect(planPrior(plan, roles, [], elsewhere, 1, "command")).toBeUndefined()
    expect(planPrior(plan, roles, [], elsewhere, 1)).toEqual([1, 0, 0]) // roles: the default
    // progress by role key too: taking the apple from a drawer did the plan's first step
    expect(planPrior(plan, roles, [{ action: "take apple 1 from drawer 2" }], ["heat apple 1 with stoveburner 1", "look"], 1, "roles")).toEqual([1, 0])
  })

  it("no bias: weight 0, an empty or finished plan, or no admissible command of the next step", () => {
    expect(planPrior(plan, roles, [], admissible, 0)).toBeUndefined()
    expect(planPrior([], roles, [], admissible, 1)).toBeUndefined()
    expect(planPrior(plan, roles, [{ action: "move apple 1 to fridge 1" }], admissible, 1)).toBeUndefined()
    expect(planPrior(plan, roles, [], ["go to fridge 1", "look"], 1)).toBeUndefined()
  })

  it("the command line: --memory-prior and --memory-dir", () => {
    expect(parse(["--out", "x", "--memory", "--memory-prior", "2.5", "--memory-dir", "m", "--memory-prior-match", "roles", "--quiet"])).toEqual({ out: "x", memory: true, memoryPrior: 2.5, memoryDir: "m", memoryPriorMatch: "roles" })
    expect(() => parse(["--out", "x", "--memory-prior", "much"])).toThrow(/--memory-prior/)
    for (const [bad, option] of [[{ memoryPrior: -1 }, "memoryPrior"], [{ memoryPrior: Number.NaN }, "memoryPrior"], [{ memoryPriorMatch: "fuzzy" as "roles" }, "memoryPriorMatch"]] as const) {
      expect(() => Agent.validate({ ...Agent.defaults, out: "x", ...bad })).toThrow(InvalidOptionError)
      expect(() => Agent.validate({ ...Agent.defaults, out: "x", ...bad })).toThrow(new RegExp(option))
    }
  })
})

const { planPrior } = Agent

describe("household-agent memory prior", () => {
  it.effect("with a stored exemplar, the policy's input carries the bias on the plan's next commands; no memory line", () =>
    Effect.gen(function*() {
      const root = fs.mkdtempSync(path.join(os.tmpdir(), "household-prior-"))
      const tasks = [
        { family: "pick_and_place_simple", split: "train", seed: 21 },
        { family: "pick_heat_then_place_in_recep", split: "train", seed: 22 },
        { family: "pick_cool_then_place_in_recep", split: "train", seed: 23 },
        { family: "pick_and_place_simple", split: "train", seed: 24 }
      ]
      const file = path.join(root, "stream.jsonl")
      fs.writeFileSync(file, tasks.map((t) => JSON.stringify(t)).join("\n") + "\n")
      // the store: one expert-solved episode of each stream task (ALFWorld's expert plan of the env)
      const memoryDir = path.join(root, "memory")
      const setup = TextTasks.setupFor(ENV_ID, { difficulty: "easy", maxSteps: 40 })
      const env = setup.makeEnv() as ReturnType<typeof setup.makeEnv> & { expertAction(): string; readonly task: string }
      const plans = new Map<string, ReadonlyArray<string>>()
      const records = tasks.map((st) => {
        const task = Stream.envTask({ ...st, key: "", novelty: "seen", revisit: false } as unknown as Stream.StreamTask)
        let r = env.reset({ seed: task.seed, options: task.options })
        const steps: Array<{ observation: string; action: string; reward: number; terminated: boolean; truncated: boolean }> = []
        for (let t = 0; t < 40; t++) {
          const action = env.expertAction()
          const out = env.step(action)
          steps.push({ observation: r.observation, action, reward: out.reward, terminated: out.terminated, truncated: out.truncated })
          r = out
          if (out.terminated || out.truncated) break
        }
        const roles = ExemplarAgent.taskRoles(env.task)
        plans.set(env.task, ExemplarAgent.planOf(steps.map((s) => s.action), roles))
        const episode = TextEpisode.make(ENV_ID, steps, { seed: task.seed, task: env.task, success: true })
        return Records.trajectory(episode, { text: ExemplarAgent.abstractTask(env.task), task: env.task })
      })
      for (const p of plans.values()) expect(p.length).toBeGreaterThan(0)
      yield* Effect.scoped(Effect.gen(function*() {
        const store = yield* Store.open({ dir: memoryDir })
        yield* store.putMany(records)
      })).pipe(Effect.provide(Embedder.layerHashed()))

      const out = path.join(root, "run")
      const s = yield* Agent.run({
        out, stream: file, memoryDir, memory: true, memoryPrior: 3, skills: false, prm: false, seed: 3, steps: 10_000, difficulty: "easy",
        maxSteps: 10, groupSize: 2, tasksPerBatch: 4, evalEvery: 0, evalEpisodes: 1, policy: { buckets: 1024, hidden: 16, embed: 8 }
      })
      expect(s.exemplarHits).toBeGreaterThanOrEqual(tasks.length) // the first batch found its exemplars
      const transcripts = fs.readFileSync(path.join(out, "trajectories", "stream.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as {
        task: string
        steps: Array<{ observation: string; action: string; info?: { prior?: Array<string>; exemplar?: string } }>
      })
      expect(transcripts.length).toBe(tasks.length)
      let biased = 0
      for (const tr of transcripts) {
        const task = [...plans.keys()].find((k) => tr.task.startsWith(k))!
        const plan = plans.get(task)!
        const roles = ExemplarAgent.taskRoles(task)
        let next = 0
        for (const st of tr.steps) {
          expect(st.observation).not.toMatch(/Memory:/)
          const prior = st.info?.prior
          if (prior !== undefined) {
            biased++
            expect(prior.length).toBeGreaterThan(0)
            // every raised command is the plan's next step (role key: the default match), the earlier actions done
            for (const c of prior) expect(Agent.roleKey(ExemplarAgent.abstractAction(c, roles))).toBe(Agent.roleKey(plan[next]!))
          }
          const j = plan.map(Agent.roleKey).indexOf(Agent.roleKey(ExemplarAgent.abstractAction(st.action, roles)), next)
          if (j >= 0) next = j + 1
        }
      }
      expect(biased).toBeGreaterThan(0)
    }), 120_000)
})

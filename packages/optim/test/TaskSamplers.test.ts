import { InvalidOptionError, Rng } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as TaskSamplers from "../src/curriculum/TaskSamplers.js"
import * as MultiTurnTrainer from "../src/text/MultiTurnTrainer.js"
import { DoorsEnv } from "./fixtures/DoorsEnv.js"

/** An arm whose tasks are numbered `base`, `base + 1`, ... (in draw order). */
const counter = (name: string, base: number): TaskSamplers.Arm => {
  let k = base
  return { name, generate: () => ({ seed: k++ }) }
}
const wins = (...xs: Array<number>) => xs.map((x) => x === 1)
const outcome = (arm: string, seed: number, ...xs: Array<number>): TaskSamplers.Outcome => ({ draw: { task: { seed }, arm }, successes: wins(...xs) })

describe("TaskSamplers", () => {
  it("potential: coefficient of variation √(p(1−p))/p (0 at p = 0) or Bernoulli variance", () => {
    expect(TaskSamplers.potential(0.25)).toBeCloseTo(Math.sqrt(0.1875) / 0.25, 14) // 1.7320508…
    expect(TaskSamplers.potential(0)).toBe(0)
    expect(TaskSamplers.potential(1)).toBe(0)
    expect(TaskSamplers.potential(0.25, "variance")).toBe(0.1875)
    expect(TaskSamplers.potential(0.5, "variance")).toBe(0.25)
  })

  it("learningPotential (PAPRIKA): unseen arms first, then UCB on the potential, counting picks within a batch", () => {
    const rng = Rng.make(0)
    const make = (exploration: number) =>
      TaskSamplers.learningPotential({ arms: [counter("A", 0), counter("B", 100), counter("C", 200)], exploration })
    for (const [c, expected] of [[0, ["B", "B", "B", "B"]], [3, ["B", "B", "B", "A"]]] as const) {
      const s = make(c)
      const first = s.next(3, rng, 0)
      expect(first.map((d) => d.arm)).toEqual(["A", "B", "C"])
      expect(first.map((d) => d.task.seed)).toEqual([0, 100, 200])
      // A always solved (potential 0), B a quarter (cv √3 ≈ 1.732), C never (0)
      s.observe([outcome("A", 0, 1, 1, 1, 1), outcome("B", 100, 1, 0, 0, 0), outcome("C", 200, 0, 0, 0, 0)], 0)
      // By hand with c = 3 (N = 3, one visit each): A 3·√ln3 = 3.14, B 1.732 + 3.14 → B; N = 4: A 3·√ln4 = 3.53,
      // B 1.732 + 3·√(ln4/2) = 4.23 → B; N = 5: A 3.81, B 1.732 + 3·√(ln5/3) = 3.93 → B; N = 6: A 4.02, B 3.74 → A.
      expect(s.next(4, rng, 1).map((d) => d.arm)).toEqual(expected)
    }
    expect(make(1).stats()).toEqual({ "potential/A": 0, "potential/B": 0, "potential/C": 0 })
  })

  it("failureReplay (WebRL): failed tasks come back once, in the given fraction of the batch, keeping their arm", () => {
    const rng = Rng.make(1)
    const s = TaskSamplers.failureReplay({ base: TaskSamplers.uniform([counter("fresh", 1000)]), fraction: 0.5, keepAtLeast: 0.1 })
    expect(s.name).toBe("replay(uniform)")
    expect(s.next(4, rng, 0).map((d) => d.task.seed)).toEqual([1000, 1001, 1002, 1003]) // nothing failed yet
    // half solved → kept; solved → not; never solved → below keepAtLeast, not kept
    s.observe([outcome("fresh", 7, 1, 0), outcome("fresh", 8, 1, 1), outcome("fresh", 9, 0, 0)], 0)
    expect(s.stats()["replay/buffer"]).toBe(1)
    const replay = s.next(4, rng, 1)
    expect(replay.map((d) => [d.arm, d.task.seed])).toEqual([["fresh", 7], ["fresh", 1004], ["fresh", 1005], ["fresh", 1006]])
    expect(s.next(4, rng, 2).map((d) => d.task.seed)).toEqual([1007, 1008, 1009, 1010]) // replayed once, then gone
    const variants = TaskSamplers.failureReplay({ base: TaskSamplers.uniform([counter("x", 0)]), fraction: 1, variant: (t) => ({ seed: t.seed + 0.5 }) })
    variants.observe([outcome("x", 3, 0, 0)], 0)
    expect(variants.next(2, rng, 1).map((d) => d.task.seed)).toEqual([3.5, 0])
  })

  it("horizonSchedule (ScalingInter-RL): min(max, start + step·⌊update/every⌋)", () => {
    const s = TaskSamplers.horizonSchedule({ base: TaskSamplers.uniform([counter("a", 0)]), start: 10, step: 5, every: 3, max: 22 })
    expect([0, 2, 3, 5, 6, 8, 9, 100].map((u) => s.maxSteps(u))).toEqual([10, 10, 15, 15, 20, 20, 22, 22])
    expect(TaskSamplers.uniform([counter("a", 0)]).maxSteps(5)).toBeUndefined()
  })

  it("difficultyGroupSize (DART Prop2Diff): round(min + (max − min)(1 − p̂)), the prior before data", () => {
    const rng = Rng.make(2)
    const s = TaskSamplers.difficultyGroupSize({ base: TaskSamplers.uniform([counter("easy", 0), counter("hard", 100)]), min: 2, max: 10 })
    expect(s.next(3, rng, 0).map((d) => d.groupSize)).toEqual([6, 6, 6])
    s.observe([outcome("easy", 0, 1, 1, 1, 1), outcome("hard", 100, 1, 0, 0, 0)], 0)
    for (const d of s.next(20, rng, 1)) expect(d.groupSize).toBe(d.arm === "easy" ? 2 : 8)
  })

  it("bad options throw InvalidOptionError naming the option and value", () => {
    const base = TaskSamplers.uniform([counter("a", 0)])
    const cases: Array<[() => unknown, RegExp]> = [
      [() => TaskSamplers.uniform([]), /uniform arms/],
      [() => TaskSamplers.uniform([counter("a", 0), counter("a", 1)]), /arm names must be distinct/],
      [() => TaskSamplers.learningPotential({ arms: [counter("a", 0)], exploration: -1 }), /exploration = -1/],
      [() => TaskSamplers.failureReplay({ base, fraction: 1.5 }), /fraction = 1.5/],
      [() => TaskSamplers.failureReplay({ base, keepAtMost: 0.2, keepAtLeast: 0.5 }), /keepAtLeast = 0.5/],
      [() => TaskSamplers.horizonSchedule({ base, start: 10, step: 1, every: 1, max: 5 }), /max = 5/],
      [() => TaskSamplers.difficultyGroupSize({ base, min: 0, max: 4 }), /min = 0/]
    ]
    for (const [f, message] of cases) {
      expect(f).toThrow(InvalidOptionError)
      expect(f).toThrow(message)
    }
  })

  it.effect("MultiTurnTrainer asks the sampler: its tasks, group sizes and step limits are used, its outcomes are the groups'", () =>
    Effect.gen(function* () {
      const observed: Array<{ update: number; arms: Array<string>; sizes: Array<number> }> = []
      const inner = TaskSamplers.difficultyGroupSize({
        base: TaskSamplers.uniform([counter("doors", 0)]),
        min: 3,
        max: 3
      })
      const sampler: TaskSamplers.TaskSampler = {
        ...TaskSamplers.horizonSchedule({ base: inner, start: 1, step: 1, every: 2, max: 4 }),
        observe: (outcomes, update) => {
          observed.push({ update, arms: outcomes.map((o) => o.draw.arm), sizes: outcomes.map((o) => o.successes.length) })
          inner.observe(outcomes, update)
          statsAfter.push(inner.stats())
        }
      }
      const statsAfter: Array<Record<string, number>> = []
      const lengths: Array<number> = []
      const options = { totalEnvSteps: 60, tasksPerBatch: 2, evalEvery: 0, evalEpisodes: 1, maxSteps: 50, policy: { buckets: 64, hidden: 4, embed: 4, history: 0 }, taskSampler: sampler }
      const rows: Array<number> = []
      const samplerRows: Array<unknown> = []
      yield* MultiTurnTrainer.train([new DoorsEnv(3)], options, {
        onEpisode: (e) => void lengths.push(e.episodeLength),
        onUpdate: (r) => {
          rows.push(r.globalStep)
          samplerRows.push(r.sampler)
        }
      })
      expect(observed.length).toBe(rows.length)
      // each update row carries the sampler's stats as they stood after that batch was observed
      expect(samplerRows).toEqual(statsAfter)
      expect(Object.keys(statsAfter[0]!)).toContain("success/doors")
      observed.forEach((o, u) => expect(o).toEqual({ update: u, arms: ["doors", "doors"], sizes: [3, 3] }))
      // 2 groups × 3 trajectories per update, each at most the scheduled limit: 1, 1, 2, 2, 3, ...
      expect(lengths.length).toBe(6 * rows.length)
      lengths.forEach((len, i) => expect(len).toBeLessThanOrEqual(Math.min(4, 1 + Math.floor(Math.floor(i / 6) / 2))))
      const both = yield* Effect.flip(MultiTurnTrainer.train([new DoorsEnv()], { ...options, tasks: { train: () => ({ seed: 0 }) } }))
      expect(both).toMatchObject({ _tag: "InvalidOptionError", option: "taskSampler" })
    }))
})

describe("TaskSamplers.adaptiveArms (EnvGen)", () => {
  it("every cycle: weights max(floor, 1 − p̂) toward weak arms, levels up at ≥ promoteAbove and down below demoteBelow", () => {
    const rng = Rng.make(3)
    const made: Array<[string, number]> = []
    const arm = (name: string, start = 0): TaskSamplers.LeveledArm => ({
      name,
      levels: 3,
      start,
      generate: (_rng, level) => {
        made.push([name, level])
        return { seed: level }
      }
    })
    const s = TaskSamplers.adaptiveArms({ arms: [arm("strong"), arm("weak", 1)], every: 5 })
    expect(s.stats()).toEqual({ "weight/strong": 1, "level/strong": 0, "weight/weak": 1, "level/weak": 1 })
    s.next(4, rng, 0)
    s.observe([outcome("strong", 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0), outcome("weak", 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0)], 0)
    s.next(1, rng, 4) // before the cycle ends: nothing adapts
    expect(s.stats()["weight/strong"]).toBe(1)
    made.length = 0
    const draws = s.next(4000, rng, 5) // the cycle ends: p̂ = 0.9 and 0.1
    expect(s.stats()).toMatchObject({ "weight/strong": expect.closeTo(0.1, 12), "level/strong": 1, "weight/weak": expect.closeTo(0.9, 12), "level/weak": 0 })
    const weakShare = draws.filter((d) => d.arm === "weak").length / draws.length
    expect(weakShare).toBeGreaterThan(0.87) // 0.9 / (0.1 + 0.9), ± 3 standard errors (0.014)
    expect(weakShare).toBeLessThan(0.93)
    for (const [name, level] of made) expect(level).toBe(name === "strong" ? 1 : 0)
  })

  it("bad options throw naming the option", () => {
    const arm = { name: "a", levels: 2, generate: () => ({ seed: 0 }) }
    expect(() => TaskSamplers.adaptiveArms({ arms: [{ ...arm, start: 2 }] })).toThrow(/a start = 2/)
    expect(() => TaskSamplers.adaptiveArms({ arms: [arm], floor: 0 })).toThrow(/floor = 0/)
    expect(() => TaskSamplers.adaptiveArms({ arms: [arm], promoteAbove: 0.3, demoteBelow: 0.5 })).toThrow(/demoteBelow = 0.5/)
  })
})

describe("TextTasks.curriculumFor", () => {
  it("builds every named curriculum over the setup's arms; TextHousehold's arms are its six families", async () => {
    const { TextTasks } = await import("../src/index.js")
    const household = TextTasks.setupFor("TextHousehold-v0")
    expect(household.arms.map((a) => a.name)).toHaveLength(6)
    const task = household.arms[5]!.generate(Rng.make(0))
    expect(task.options).toEqual({ split: "train", taskTypes: [household.arms[5]!.name] })
    const names = TextTasks.curricula.map((c) => TextTasks.curriculumFor(household, c, 8).name)
    expect(names).toEqual(["uniform", "paprika", "replay(uniform)", "horizon(uniform)", "dart(uniform)", "envgen"])
    const dart = TextTasks.curriculumFor(household, "dart", 8).next(2, Rng.make(1), 0)
    expect(dart.map((d) => d.groupSize)).toEqual([10, 10]) // round(4 + 12 · (1 − 0.5)) before any data
    expect(TextTasks.curriculumFor(TextTasks.setupFor("TextFrozenLake-v1"), "scaling-inter", 8).maxSteps(0)).toBe(10)
    expect(() => TextTasks.curriculumFor(household, "random", 8)).toThrow(/curriculum = "random"/)
    // webrl replays failed tasks that some trajectory solved (WebRL's [0.05, 0.75]), not tasks nobody solved
    const webrl = TextTasks.curriculumFor(household, "webrl", 8)
    const [solvedOnce, neverSolved] = webrl.next(2, Rng.make(2), 0)
    webrl.observe([
      { draw: solvedOnce!, successes: Array.from({ length: 8 }, (_, i) => i === 0) },
      { draw: neverSolved!, successes: Array.from({ length: 8 }, () => false) }
    ], 0)
    expect(webrl.stats()["replay/buffer"]).toBe(1)
    const replayed = webrl.next(2, Rng.make(3), 1)[0]!
    expect(replayed.task).toEqual(solvedOnce!.task)
  })
})

describe("TextTasks trainer settings", () => {
  it("TextHousehold-v0 carries its measured trainer settings (lr 5e-3, 1.5e-3 in the hard house, 4 epochs); the grid envs keep the trainer's defaults", async () => {
    const { TextTasks } = await import("../src/index.js")
    expect(TextTasks.setupFor("TextHousehold-v0").trainer).toEqual({ learningRate: 5e-3, epochs: 4 })
    expect(TextTasks.setupFor("TextHousehold-v0", { difficulty: "easy" }).trainer).toEqual({ learningRate: 5e-3, epochs: 4 })
    expect(TextTasks.setupFor("TextHousehold-v0", { difficulty: "hard" }).trainer).toEqual({ learningRate: 1.5e-3, epochs: 4 })
    expect(TextTasks.HARD_LEARNING_RATE).toBe(1.5e-3)
    expect(TextTasks.setupFor("Sokoban-6x6-1box-v0").trainer).toEqual({})
    expect(TextTasks.setupFor("TextFrozenLake-v1").trainer).toEqual({})
  })
})

describe("TextTasks ladders (EnvGen parameter levels)", () => {
  it("TextHousehold default climbs from an easy room to the default room, hard on into houses of 1 to HARD_ROOMS rooms; envgen starts at level 0, levels up on success, and the env builds each level", async () => {
    const { TextTasks } = await import("../src/index.js")
    const { TextHouseholdWorld } = await import("@autodidact/envs")
    const hard = TextTasks.setupFor("TextHousehold-v0", { difficulty: "hard" })
    const hardLevels = 2 + TextHouseholdWorld.HARD_ROOMS
    expect(hard.ladder!.map((a) => a.name)).toEqual(hard.arms.map((a) => a.name))
    expect(hard.ladder!.every((a) => a.levels === hardLevels)).toBe(true)
    const arm0 = { split: "train", taskTypes: [hard.arms[0]!.name] }
    expect(hard.ladder![0]!.generate(Rng.make(0), 0).options).toEqual({ ...arm0, difficulty: "easy" })
    expect(hard.ladder![0]!.generate(Rng.make(0), 1).options).toEqual({ ...arm0, difficulty: "default" })
    expect(hard.ladder![0]!.generate(Rng.make(0), 4).options).toEqual({ ...arm0, difficulty: "hard", houseRooms: 3 })
    // the top level is the evaluation's distribution: the full house
    expect(hard.ladder![0]!.generate(Rng.make(0), hardLevels - 1).options).toEqual({ ...arm0, difficulty: "hard", houseRooms: TextHouseholdWorld.HARD_ROOMS })
    const def = TextTasks.setupFor("TextHousehold-v0")
    expect(def.ladder!.map((a) => a.levels)).toEqual(def.arms.map(() => 2))
    expect(def.ladder![1]!.generate(Rng.make(0), 0).options).toEqual({ split: "train", taskTypes: [def.arms[1]!.name], difficulty: "easy" })
    expect(def.ladder![1]!.generate(Rng.make(0), 1).options).toEqual({ split: "train", taskTypes: [def.arms[1]!.name], difficulty: "default" })
    expect(TextTasks.householdLadder("default")).toEqual([{ difficulty: "easy" }, { difficulty: "default" }])
    expect(TextTasks.setupFor("TextHousehold-v0", { difficulty: "easy" }).ladder).toBeUndefined()
    // the env builds every level's task: a small room, a full room, then houses of 1..HARD_ROOMS rooms
    const env = hard.makeEnv() as unknown as { reset: (o: unknown) => unknown; world: { receptacleNames: Array<string>; house?: { rooms: Array<string> } } }
    const sizes: Array<number> = []
    for (let level = 0; level < hardLevels; level++) {
      const task = hard.ladder![3]!.generate(Rng.make(level), level)
      env.reset({ seed: task.seed, options: { ...task.options, taskIndex: 11 } })
      sizes.push(env.world.receptacleNames.length)
      expect(env.world.house?.rooms.length).toBe(level < 2 ? undefined : level - 1)
    }
    expect(sizes[0]!).toBeLessThan(sizes[1]!)
    // envgen over the ladder: level 0 first; an arm that succeeds climbs after a cycle
    const sampler = TextTasks.curriculumFor(hard, "envgen", 8)
    const levelOf = (d: { task: { options?: Record<string, unknown> | undefined } }) => `${d.task.options!["difficulty"]}${d.task.options!["houseRooms"] ?? ""}`
    expect(new Set(sampler.next(60, Rng.make(0), 0).map(levelOf))).toEqual(new Set(["easy"]))
    const draws = sampler.next(60, Rng.make(1), 1)
    sampler.observe(draws.map((draw) => ({ draw, successes: Array.from({ length: 8 }, () => draw.arm === hard.arms[0]!.name) })), 1)
    const after = sampler.next(2000, Rng.make(2), 10) // the mastered arm keeps the floor weight: ~1% of draws
    const level = (arm: string) => new Set(after.filter((d) => d.arm === arm).map(levelOf))
    expect(level(hard.arms[0]!.name)).toEqual(new Set(["default"]))
    expect(level(hard.arms[1]!.name)).toEqual(new Set(["easy"]))
  })
})

describe("MultiTurnTrainer zeroAdvantageGroups (VSPO)", () => {
  // Doors of length 3 in 4 steps: a random policy mostly fails, so many groups have all-equal returns (0)
  const base = { totalEnvSteps: 1, tasksPerBatch: 6, groupSize: 3, maxSteps: 4, evalEvery: 0, evalEpisodes: 1, algo: "grpo", policy: { buckets: 64, hidden: 4, embed: 4, history: 0 } }
  const run = (options: Partial<MultiTurnTrainer.TrainOptions>) =>
    Effect.gen(function* () {
      const rows: Array<MultiTurnTrainer.UpdateRow> = []
      const groups: Array<Array<number>> = []
      let episodes = 0
      yield* MultiTurnTrainer.train([new DoorsEnv(3)], { ...base, ...options }, {
        onEpisode: () => void episodes++,
        onUpdate: (r) => void rows.push(r),
        stepAdvantages: (group) => {
          groups.push(group.trajectories.map((tr) => tr.steps.reduce((a, s) => a + s.reward, 0)))
          return undefined
        }
      })
      return { row: rows[0]!, groups, episodes }
    })
  const isUniform = (returns: Array<number>) => returns.every((r) => r === returns[0])

  it.effect("keep: every group is trained on and counted; skip: uniform groups are left out; resample: replaced by fresh tasks", () =>
    Effect.gen(function* () {
      const keep = yield* run({ seed: 5 })
      expect(keep.groups).toHaveLength(6)
      expect(keep.row.uniformGroups).toBe(keep.groups.filter(isUniform).length)
      expect(keep.row.uniformGroups).toBeGreaterThan(0)
      expect(keep.row.resampledGroups).toBe(0)

      const skip = yield* run({ seed: 5, zeroAdvantageGroups: "skip" })
      expect(skip.row.uniformGroups).toBe(keep.row.uniformGroups) // same seed, same first batch
      const informative = 6 - skip.row.uniformGroups
      expect(skip.groups).toHaveLength(Math.max(1, informative))
      if (informative > 0) for (const g of skip.groups) expect(isUniform(g)).toBe(false)

      const resample = yield* run({ seed: 5, zeroAdvantageGroups: "resample", maxResamples: 40 })
      expect(resample.row.resampledGroups).toBeGreaterThanOrEqual(resample.row.uniformGroups)
      expect(resample.groups).toHaveLength(6)
      if (resample.row.resampledGroups < 40) for (const g of resample.groups) expect(isUniform(g)).toBe(false)
      // every group rolled out is an episode row, replaced ones included
      expect(resample.episodes).toBe((6 + resample.row.resampledGroups) * 3)
      const bad = yield* Effect.flip(MultiTurnTrainer.train([new DoorsEnv()], { ...base, zeroAdvantageGroups: "drop" as never }))
      expect(bad).toMatchObject({ _tag: "InvalidOptionError", option: "zeroAdvantageGroups" })
    }))
})

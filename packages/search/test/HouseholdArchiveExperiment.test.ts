import { InvalidOptionError, Rng } from "@autodidact/core"
import { Archive, HouseholdArchiveExperiment as X } from "@autodidact/search"
import { describe, expect, it } from "vitest"

// A stub "training": the policy is the configuration's learning rate, and task k succeeds iff its learning rate is
// within a factor of 2 of 0.01 and k is even (so the default, 5e-3, solves the even tasks) — no env, no training.
const TRAIN_COST = 1000
const PLAY_COST = 3
const trainSeeds = new Set<number>()
const stub = (calls: { train: number; play: number }): X.Dependencies<number> => ({
  train: async (config, seed) => {
    calls.train++
    trainSeeds.add(seed)
    return { policy: config.learningRate, envSteps: TRAIN_COST + 7 }
  },
  play: (lr, ks) => {
    calls.play++
    return { successes: ks.map((k) => Math.abs(Math.log(lr / 0.01)) <= Math.log(2) + 1e-9 && k % 2 === 0), envSteps: PLAY_COST * ks.length }
  }
})

describe("HouseholdArchiveExperiment (configurations, mutation, budget)", () => {
  it("the default configuration is the household CLI's: lr 5e-3, 4 epochs over the trainer's defaults, and valid", () => {
    expect(X.defaultConfig).toMatchObject({ learningRate: 5e-3, epochs: 4, minibatches: 4, groupSize: 8, tasksPerBatch: 8, clip: 0.2, entCoef: 0.01, annealLr: false, hidden: 64, embed: 32, history: 2, seedOffset: 0 })
    expect(() => X.validateConfig(X.defaultConfig)).not.toThrow()
  })

  it("validation fails with InvalidConfigError naming the field and its value", () => {
    const cases: Array<[Partial<X.Config>, RegExp]> = [
      [{ learningRate: 0.5 }, /learningRate = 0\.5: outside \[0\.0001, 0\.03\]/],
      [{ learningRate: Number.NaN }, /learningRate = NaN: expected a finite number/],
      [{ epochs: 2.5 }, /epochs = 2\.5: expected an integer/],
      [{ groupSize: 1 }, /groupSize = 1: outside \[2, 16\]/],
      [{ annealLr: "yes" as unknown as boolean }, /annealLr = yes: expected a boolean/],
      [{ seedOffset: -1 }, /seedOffset = -1: expected a non-negative integer/]
    ]
    for (const [patch, message] of cases) {
      let caught: unknown
      try {
        X.validateConfig({ ...X.defaultConfig, ...patch })
      } catch (e) {
        caught = e
      }
      expect(caught).toBeInstanceOf(Archive.InvalidConfigError)
      expect((caught as Error).message).toMatch(message)
    }
  })

  it("mutation changes one or two fields, stays in range and valid, and is deterministic for an rng state", () => {
    const a = Rng.make(7)
    const b = Rng.make(7)
    let config = X.defaultConfig
    const changedCounts = new Set<number>()
    for (let i = 0; i < 300; i++) {
      const child = X.mutate(config, a)
      expect(X.mutate(config, b)).toEqual(child)
      expect(() => X.validateConfig(child)).not.toThrow()
      const changed = X.fields.filter((f) => child[f] !== config[f]).length
      expect(child.seedOffset).toBe(0) // mutation never changes the training run
      expect(changed).toBeLessThanOrEqual(2)
      changedCounts.add(changed)
      config = child // a random walk: reaches the bounds, where clamping must hold
    }
    expect(changedCounts.has(1) && changedCounts.has(2)).toBe(true)
    // at the bounds: a field at its maximum is never pushed past it
    const top = { ...X.defaultConfig, learningRate: 0.03, hidden: 128, epochs: 6 }
    const r = Rng.make(1)
    for (let i = 0; i < 200; i++) expect(() => X.validateConfig(X.mutate(top, r))).not.toThrow()
  })

  it("budget: training and evaluation steps are both charged, the search stops before overrunning, node 0 is the default", async () => {
    const calls = { train: 0, play: 0 }
    const rows = await X.run({ seeds: [4], trainSteps: TRAIN_COST, budget: 5000, maxSteps: 10, searchTasks: 8, batchSize: 2, heldOutTasks: 10 }, stub(calls))
    expect(rows.map((r) => r.method)).toEqual(["default", "hgm", "dgm", "random", "restarts"])
    const d = rows[0]!
    expect(d).toMatchObject({ heldOutSuccesses: 5, heldOutTasks: 10, trainingSteps: TRAIN_COST + 7, nodesTrained: 1 })
    for (const r of rows.slice(1)) {
      // DGM/random: each node costs 1007 + 8 tasks · 3 = 1031 steps and is started only while 1000 + 8 · 10 fit
      expect(r.trainingSteps).toBe(r.nodesTrained * (TRAIN_COST + 7))
      expect(r.trainingSteps + r.evaluationSteps).toBeLessThanOrEqual(5000)
      expect(r.evaluationSteps % PLAY_COST).toBe(0)
      expect(r.evaluationSteps).toBeGreaterThan(0)
    }
    // restarts: the default configuration under other trainer seeds only
    const restarts = rows.find((r) => r.method === "restarts")!
    expect(X.describeChanges(restarts.config)).toMatch(/^(seedOffset=\d+)?$/)
    expect(trainSeeds.has(4)).toBe(true)
    expect([...trainSeeds].some((s) => s > 1000 && (s - 4) % 1000 === 0)).toBe(true)
    const dgm = rows.find((r) => r.method === "dgm")!
    // 4 nodes: spent 4 · 1031 = 4124, and 4124 + 1080 > 5000 stops the fifth
    expect(dgm.nodesTrained).toBe(4)
    expect(dgm.evaluationSteps).toBe(4 * 8 * PLAY_COST)
    // a budget that cannot pay for the initial node is refused, naming it
    await expect(X.run({ seeds: [1], trainSteps: TRAIN_COST, budget: 1000, maxSteps: 10, searchTasks: 8 }, stub(calls))).rejects.toThrow(InvalidOptionError)
    await expect(X.run({ seeds: [1], trainSteps: TRAIN_COST, budget: Number.NaN, maxSteps: 10 }, stub(calls))).rejects.toThrow(/budget/)
  })

  it("a configuration is trained once per seed (shared by the methods) and rows already done are not rerun", async () => {
    const calls = { train: 0, play: 0 }
    const first = await X.run({ seeds: [2], methods: ["dgm"], trainSteps: TRAIN_COST, budget: 3000, maxSteps: 10, searchTasks: 4, heldOutTasks: 4 }, stub(calls))
    // default + 2 nodes in dgm (node 0 reused from the default's training): 2 trainings
    expect(first.find((r) => r.method === "dgm")!.nodesTrained).toBe(2)
    expect(calls.train).toBe(2)
    const again = { train: 0, play: 0 }
    const rows = await X.run({ seeds: [2], methods: ["dgm"], trainSteps: TRAIN_COST, budget: 3000, maxSteps: 10, searchTasks: 4, heldOutTasks: 4, done: first }, stub(again))
    expect(rows).toEqual(first)
    expect(again).toEqual({ train: 0, play: 0 })
  })

  it("the summary counts, per method, the seeds where it beats the same seed's default and restarts rows", () => {
    const row = (seed: number, method: string, successes: number): X.Row => ({
      seed, method, heldOutSuccesses: successes, heldOutTasks: 100, bestNode: 0, searchSuccesses: 0, searchEvaluated: 0, changes: "", config: X.defaultConfig,
      nodes: 1, nodesTrained: 1, trainingSteps: 0, evaluationSteps: 0, budget: 1, archiveSteps: 0, evaluations: 0, promotions: 0, rejected: 0, wallSeconds: 0
    })
    const rows = [row(1, "default", 10), row(1, "hgm", 20), row(1, "restarts", 25), row(2, "default", 30), row(2, "hgm", 30), row(2, "restarts", 10), row(3, "hgm", 50)]
    const hgm = X.summarize(rows).find((s) => s.method === "hgm")!
    // seed 1: 20 > 10 (default), 20 < 25 (restarts); seed 2: a tie is not a win, 30 > 10; seed 3 has no baselines
    expect(hgm).toEqual({ method: "hgm", seeds: 3, meanSuccess: (0.2 + 0.3 + 0.5) / 3, beatsDefault: 1, comparable: 2, beatsRestarts: 1, comparableRestarts: 2 })
    expect(X.formatMarkdown(rows, "test")).toContain("| hgm | 3 | 0.333 | 1 of 2 | 1 of 2 |")
  })
})

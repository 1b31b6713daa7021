import { describe, expect, it } from "@effect/vitest"
import { RolloutService, Trainer } from "@autodidact/cluster"
import { InvalidOptionError, Metrics } from "@autodidact/core"
import { Effect, Schema } from "effect"

const run = (options: Partial<Trainer.Options>, hooks: Trainer.Hooks = {}) =>
  Trainer.train({ envId: "CartPole-v1", runId: "t", seed: 3, episodesPerUpdate: 4, updates: 3, ...options }, hooks).pipe(Effect.provide(RolloutService.layerInProcess))

describe("Trainer.toBatch", () => {
  it("computes GAE per episode, terminal at its end, in episode-id order (hand-computed)", () => {
    const episode = (episodeId: number, rewards: Array<number>, values: Array<number>) => ({
      runId: "r", episodeId, envId: "x", policyVersion: 0, policyHash: "h", resetSeed: 0, obsDim: 1, length: rewards.length,
      obs: rewards.map((_, t) => episodeId * 10 + t), actions: rewards.map(() => 0), logprobs: rewards.map(() => -0.5), values, rewards,
      terminated: true, truncated: false, episodeReturn: 0, runner: "a", collectSeconds: 0, runnerFailures: 0, runnerStorageRetries: 0
    })
    // γ = 0.9, λ = 1: advantages are discounted returns minus values. Episode 0: rewards 1,1,1, values 0.5:
    // G = 2.71, 1.9, 1 → A = 2.21, 1.4, 0.5. Episode 1 (given first, sorted second): reward 2, value 1 → A = 1.
    const b = Trainer.toBatch([episode(1, [2], [1]), episode(0, [1, 1, 1], [0.5, 0.5, 0.5])], 1, 0.9, 1)
    expect(b.size).toBe(4)
    expect(Array.from(b.obs)).toEqual([0, 1, 2, 10])
    expect(Array.from(b.advantages).map((x) => Number(x.toFixed(12)))).toEqual([2.21, 1.4, 0.5, 1])
    expect(Array.from(b.returns).map((x) => Number(x.toFixed(12)))).toEqual([2.71, 1.9, 1, 2])
    // λ = 0: one-step TD errors r + γV' − V.
    const td = Trainer.toBatch([episode(0, [1, 1, 1], [0.5, 0.5, 0.5])], 1, 0.9, 0)
    expect(Array.from(td.advantages).map((x) => Number(x.toFixed(12)))).toEqual([0.95, 0.95, 0.5])
  })
})

describe("Trainer.train (in-process layer)", () => {
  it.effect("is reproducible for a seed, reports per-runner rows and changes the weights", () =>
    Effect.gen(function*() {
      const runnerRows: Array<Trainer.RunnerRow> = []
      const episodes: Array<Trainer.EpisodeRow> = []
      const updates: Array<Trainer.UpdateRow> = []
      const a = yield* run({}, { onRunner: (r) => runnerRows.push(r), onEpisode: (e) => episodes.push(e), onUpdate: (u) => updates.push(u) })
      // every row the trainer writes decodes with its schema (the one the dashboard reads runner rows with)
      for (const r of runnerRows) expect(Schema.decodeUnknownSync(Metrics.RunnerRow)(r)).toEqual(r)
      for (const e of episodes) expect(Schema.decodeUnknownSync(Trainer.EpisodeRow)(e)).toEqual(e)
      for (const u of updates) expect(Schema.decodeUnknownSync(Trainer.UpdateRow)(u)).toEqual(u)
      expect(updates.map((u) => u.policyVersion)).toEqual([1, 2, 3])
      const b = yield* run({})
      expect(a.weightsHash).toBe(b.weightsHash)
      expect(a.returns).toEqual(b.returns)
      expect(a.episodes).toBe(12)
      expect(episodes.map((e) => e.episodeId)).toEqual(Array.from({ length: 12 }, (_, i) => i))
      expect(a.globalStep).toBe(a.returns.reduce((s, r) => s + r, 0)) // CartPole: one reward per step
      expect(runnerRows.length).toBe(3)
      expect(runnerRows[2]).toMatchObject({ kind: "runner", runner: "local", episodes: 12, maxPolicyLag: 0, meanPolicyLag: 0 })
      const untrained = yield* run({ updates: 1, learningRate: 1e-12 })
      expect(untrained.weightsHash).not.toBe(a.weightsHash)
    }))

  it.effect("with maxPolicyLag 1 collects stale batches within the bound (and learns differently)", () =>
    Effect.gen(function*() {
      const rows: Array<Trainer.EpisodeRow> = []
      const sync = yield* run({})
      const stale = yield* run({ maxPolicyLag: 1 }, { onEpisode: (e) => rows.push(e) })
      // Batch k is collected with version max(0, k − 1): batches 0 and 1 with version 0, batch 2 with version 1.
      expect(rows.map((r) => r.policyVersion)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1])
      // The first two batches use the same (initial) policy in both runs, so their episodes are equal.
      expect(stale.returns.slice(0, 4)).toEqual(sync.returns.slice(0, 4))
      expect(stale.weightsHash).not.toBe(sync.weightsHash)
    }))

  it.effect("rejects bad options with InvalidOptionError naming them", () =>
    Effect.gen(function*() {
      for (const [option, value] of [["episodesPerUpdate", 0], ["maxPolicyLag", -1], ["runId", "a/b"], ["seed", 1.5]] as const) {
        const e = yield* Effect.flip(run({ [option]: value }))
        expect(e).toBeInstanceOf(InvalidOptionError)
        expect((e as InvalidOptionError).option).toBe(option)
      }
      const env = yield* Effect.flip(Trainer.train({ envId: "FrozenLake-v1" }).pipe(Effect.provide(RolloutService.layerInProcess)))
      expect((env as InvalidOptionError).option).toBe("envId")
    }))
})

describe("Trainer.train stopping rules", () => {
  it.effect("stops after the update that reaches totalSteps, or once the last-100 mean reaches the goal", () =>
    Effect.gen(function*() {
      const full = yield* run({ updates: 4 })
      const perUpdate = [0, 1, 2, 3].map((k) => full.returns.slice(4 * k, 4 * k + 4).reduce((a, b) => a + b, 0))
      // A budget just above the first update's steps ends after the second update.
      const budget = yield* run({ updates: 4, totalSteps: perUpdate[0]! + 1 })
      expect(budget.episodes).toBe(8)
      expect(budget.globalStep).toBe(perUpdate[0]! + perUpdate[1]!)
      expect(budget.returns).toEqual(full.returns.slice(0, 8))
      expect(budget.stopReason).toBe("budget")
      const solved = yield* run({ episodesPerUpdate: 50, updates: 3, stopWhenMeanReturn: 1 })
      expect(solved.stopReason).toBe("solved")
      expect(solved.episodes).toBe(100)
    }))
})

describe("Trainer.train learns", () => {
  it.effect("CartPole returns rise over 25 updates of 8 episodes (seeded, deterministic)", () =>
    Effect.gen(function*() {
      const r = yield* run({ seed: 1, episodesPerUpdate: 8, updates: 25 })
      const mean = (xs: ReadonlyArray<number>) => xs.reduce((a, b) => a + b, 0) / xs.length
      const first = mean(r.returns.slice(0, 40))
      const last = mean(r.returns.slice(-40))
      console.log(`episode-PPO CartPole: mean return of the first 40 episodes ${first.toFixed(1)}, last 40 ${last.toFixed(1)}`)
      expect(last).toBeGreaterThan(1.5 * first)
    }))
})

describe("Trainer.trainLocal (plain face)", () => {
  it("gives the in-process Effect run's result, and rejects bad options with the same InvalidOptionError", async () => {
    const options = { envId: "CartPole-v1", seed: 3, episodesPerUpdate: 4, updates: 2, runId: "plain" }
    const plain = await Trainer.trainLocal({ ...options, threads: 0 })
    const viaEffect = await Effect.runPromise(Trainer.train(options).pipe(Effect.provide(RolloutService.layerInProcess)))
    expect(plain.weightsHash).toBe(viaEffect.weightsHash)
    expect(plain.returns).toEqual(viaEffect.returns)
    const rows: Array<unknown> = []
    await Trainer.trainLocal({ ...options, threads: 0, updates: 1 }, { onUpdate: (row) => rows.push(row) })
    expect(rows).toHaveLength(1)

    const bad = await Trainer.trainLocal({ envId: "CartPole-v1", episodesPerUpdate: 0, threads: 0 }).then(() => undefined, (e: unknown) => e)
    const badEffect = await Effect.runPromise(Effect.flip(Trainer.train({ envId: "CartPole-v1", episodesPerUpdate: 0 }).pipe(Effect.provide(RolloutService.layerInProcess))))
    expect(bad).toBeInstanceOf(InvalidOptionError)
    expect((bad as InvalidOptionError)._tag).toBe(badEffect._tag)
    expect((bad as InvalidOptionError).option).toBe("episodesPerUpdate")
  })
})

import { InvalidOptionError, Metrics, NonFiniteValueError, Space } from "@autodidact/core"
import { makeVec, type VectorEnv } from "@autodidact/envs"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { Ppo } from "../src/index.js"

const cartPole = () => makeVec("CartPole-v1", 4, { autoresetMode: "SameStep" })

/** A 2-env vector env whose rewards turn NaN after `after` steps. */
const nanEnv = (after: number): VectorEnv.VectorEnv => {
  let steps = 0
  const obs = new Float32Array(2)
  const rewards = new Float64Array(2)
  const zeros = new Uint8Array(2)
  return {
    numEnvs: 2,
    singleObservationSpace: Space.box(-1, 1, [1]),
    singleActionSpace: Space.discrete(2),
    autoresetMode: "SameStep",
    reset: () => ({ observations: obs, infos: { infos: [{}, {}] } }),
    step: () => {
      steps++
      rewards.fill(steps > after ? Number.NaN : 1)
      return { observations: obs, rewards, terminations: zeros, truncations: zeros, infos: { infos: [{}, {}] } }
    },
    close: () => {}
  }
}

describe("Ppo.validate", () => {
  it.effect("rejects a minibatch count that does not divide the batch, naming it", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(Ppo.train(cartPole(), { numMinibatches: 3 }))
      expect(error).toBeInstanceOf(InvalidOptionError)
      expect(error.message).toBe("Invalid numMinibatches = 3: must divide the batch size numEnvs × numSteps = 512")
    }))

  it.effect("rejects a non-positive learning rate and a numEnvs that differs from the env", () =>
    Effect.gen(function* () {
      const lr = yield* Effect.flip(Ppo.train(cartPole(), { learningRate: 0 }))
      expect(lr.message).toBe("Invalid learningRate = 0: must be a positive finite number")
      const n = yield* Effect.flip(Ppo.train(cartPole(), { numEnvs: 8 }))
      expect(n.message).toMatch(/numEnvs = 8: the vector env has 4 envs/)
    }))

  it.effect("engine: wasm-simd by default, typed-array on request, anything else rejected by name", () =>
    Effect.gen(function* () {
      const bad = yield* Effect.flip(Ppo.train(cartPole(), { engine: "gpu" as never }))
      expect(bad.message).toBe('Invalid engine = "gpu": must be "typed-array" or "wasm-simd"')
      const fast = yield* Ppo.train(cartPole(), { totalTimesteps: 512 })
      expect(fast.agent.engine).toBe("wasm-simd")
      const ref = yield* Ppo.train(cartPole(), { totalTimesteps: 512, engine: "typed-array" })
      expect(ref.agent.engine).toBe("typed-array")
      expect(ref.state.options.engine).toBe("typed-array")
    }))
})

describe("Ppo.train", () => {
  it.effect("learns CartPole-v1: mean return of the last 20 episodes after 50k steps far above random (~22)", () =>
    Effect.gen(function* () {
      const episodes: Array<Metrics.EpisodeRow> = []
      const updates: Array<Metrics.UpdateRow> = []
      const result = yield* Ppo.train(cartPole(), { seed: 1, totalTimesteps: 51_200 }, {
        onEpisode: (row) => episodes.push(row),
        onUpdate: (row) => updates.push(row)
      })
      expect(result.stopReason).toBe("budget")
      expect(result.globalStep).toBe(51_200)
      expect(updates.length).toBe(100)
      const last = episodes.slice(-20).map((e) => e.episodeReturn)
      const mean = last.reduce((a, b) => a + b, 0) / last.length
      expect(mean).toBeGreaterThan(100)
      // rows follow the shared metric schemas; the learning rate anneals linearly to 0
      for (const row of [...episodes.slice(0, 3), ...updates.slice(0, 3)]) {
        expect(() => Schema.decodeUnknownSync(row.kind === "episode" ? Metrics.EpisodeRow : Metrics.UpdateRow)(row)).not.toThrow()
      }
      expect(updates[0]!.learningRate).toBeCloseTo(2.5e-4, 12)
      expect(updates[50]!.learningRate).toBeCloseTo(2.5e-4 * (1 - 50 / 100), 12)
      expect(updates.every((u) => Number.isFinite(u.policyLoss!) && u.approxKl! >= -1e-9 && u.clipFraction! >= 0 && u.clipFraction! <= 1)).toBe(true)
      expect(updates[99]!.explainedVariance!).toBeGreaterThan(updates[0]!.explainedVariance!)
    }))

  it.effect("is reproducible for a fixed seed and differs across seeds", () =>
    Effect.gen(function* () {
      const run = (seed: number) => Ppo.train(cartPole(), { seed, totalTimesteps: 2048 }).pipe(Effect.map((r) => Array.from(r.agent.params)))
      const a = yield* run(7)
      const b = yield* run(7)
      const c = yield* run(8)
      expect(a).toEqual(b)
      expect(a).not.toEqual(c)
    }))

  it.effect("stops when the goal is reached (stopWhen) and when the AbortSignal fires", () =>
    Effect.gen(function* () {
      const solved = yield* Ppo.train(cartPole(), { seed: 1, totalTimesteps: 100_000, stopWhen: { meanReturn: 40, window: 10 } })
      expect(solved.stopReason).toBe("solved")
      expect(solved.meanRecentReturn).toBeGreaterThanOrEqual(40)
      expect(solved.globalStep).toBeLessThan(100_000)
      const controller = new AbortController()
      let updates = 0
      const aborted = yield* Ppo.train(cartPole(), { seed: 1, totalTimesteps: 100_000 }, {
        signal: controller.signal,
        onUpdate: () => {
          if (++updates === 2) controller.abort()
        }
      })
      expect(aborted.stopReason).toBe("aborted")
      expect(aborted.state.iteration).toBe(2)
      expect(aborted.globalStep).toBe(1024)
    }))

  it.effect("targetKl stops an update's epochs once the approximate KL exceeds it (checked after each epoch, as CleanRL)", () =>
    Effect.gen(function* () {
      const rows: Array<Metrics.UpdateRow> = []
      // 2 updates × 4 epochs × 4 minibatches without early stopping
      const full = yield* Ppo.train(cartPole(), { seed: 2, totalTimesteps: 1024 })
      expect(full.state.adam.step).toBe(2 * 4 * 4)
      // a tiny threshold: every update stops after its first epoch (4 minibatches)
      const early = yield* Ppo.train(cartPole(), { seed: 2, totalTimesteps: 1024, targetKl: 1e-12 }, { onUpdate: (r) => rows.push(r) })
      expect(early.state.adam.step).toBe(2 * 4)
      expect(rows.every((r) => r.approxKl! > 1e-12)).toBe(true)
      // a threshold never reached changes nothing
      const loose = yield* Ppo.train(cartPole(), { seed: 2, totalTimesteps: 1024, targetKl: 1e9 })
      expect(Array.from(loose.agent.params)).toEqual(Array.from(full.agent.params))
    }))

  it.effect("fails with NonFiniteValueError instead of spreading NaN", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(Ppo.train(nanEnv(300), { numEnvs: 2, numSteps: 128, totalTimesteps: 4096 }))
      expect(error).toBeInstanceOf(NonFiniteValueError)
      expect(error.message).toMatch(/^Gae.rewards: non-finite value NaN at index/)
    }))

  it("explainedVariance is 1 − Var(R − V)/Var(R), NaN for constant returns", () => {
    // R = [1, 2, 3], V = [1, 2, 2]: Var(R) = 2/3, R − V = [0, 0, 1], Var = 2/9 → 1 − (2/9)/(2/3) = 2/3
    expect(Ppo.explainedVariance([1, 2, 2], [1, 2, 3])).toBeCloseTo(2 / 3, 12)
    expect(Ppo.explainedVariance([0, 1], [5, 5])).toBeNaN()
  })
})

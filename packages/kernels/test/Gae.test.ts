import { NonFiniteValueError, Rng } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Gae } from "../src/index.js"
import { Backend, GaeTf } from "../src/tfjs.js"

const close = (actual: ArrayLike<number>, expected: ArrayLike<number>, tol = 1e-5) => {
  expect(actual.length).toBe(expected.length)
  for (let k = 0; k < expected.length; k++) {
    const scale = Math.max(1, Math.abs(expected[k]!))
    if (!(Math.abs(actual[k]! - expected[k]!) <= tol * scale)) {
      throw new Error(`index ${k}: ${actual[k]} vs ${expected[k]} (tol ${tol * scale})`)
    }
  }
}

const base = {
  numSteps: 3,
  numEnvs: 1,
  gamma: 0.5,
  lambda: 0.5,
  rewards: [1, 0, 2],
  values: [1, 2, 1],
  dones: [0, 0, 0],
  nextValue: [4],
  nextDone: [0]
}

/** O(T^2) definition: Â_t = Σ_{k≥t} (γλ)^{k−t} Π_{j=t+1..k} (1 − dones[j]) δ_k, no recursion. */
const naive = (input: Gae.GaeInput): Float64Array => {
  const { numSteps: T, numEnvs: N, gamma, lambda } = input
  const delta = new Float64Array(T * N)
  for (let t = 0; t < T; t++) {
    for (let i = 0; i < N; i++) {
      const k = t * N + i
      const nextV = t === T - 1 ? input.nextValue[i]! : input.values[k + N]!
      const nextD = t === T - 1 ? input.nextDone[i]! : input.dones[k + N]!
      const boot = input.truncations?.[k] === 1 ? input.finalValues![k]! : nextV * (1 - nextD)
      delta[k] = input.rewards[k]! + gamma * boot - input.values[k]!
    }
  }
  const adv = new Float64Array(T * N)
  for (let i = 0; i < N; i++) {
    for (let t = 0; t < T; t++) {
      let sum = 0
      let weight = 1
      for (let k = t; k < T; k++) {
        if (k > t) {
          weight *= gamma * lambda * (1 - input.dones[k * N + i]!)
          if (weight === 0) break
        }
        sum += weight * delta[k * N + i]!
      }
      adv[t * N + i] = sum
    }
  }
  return adv
}

const randomInput = (rng: Rng, truncation: boolean): Gae.GaeInput => {
  const T = 1 + rng.integers(40)
  const N = 1 + rng.integers(5)
  const n = T * N
  const arr = (f: () => number, m = n) => Float32Array.from({ length: m }, f)
  const dones = arr(() => (rng.random() < 0.15 ? 1 : 0))
  const input: Gae.GaeInput = {
    numSteps: T,
    numEnvs: N,
    gamma: rng.uniform(0.8, 1),
    lambda: rng.uniform(0, 1),
    rewards: arr(() => rng.uniform(-2, 2)),
    values: arr(() => rng.uniform(-5, 5)),
    dones,
    nextValue: arr(() => rng.uniform(-5, 5), N),
    nextDone: arr(() => (rng.random() < 0.2 ? 1 : 0), N)
  }
  if (!truncation) return input
  // a truncation at step t means observation t+1 starts a new episode
  const truncations = new Float32Array(n)
  for (let t = 0; t < T; t++) {
    for (let i = 0; i < N; i++) {
      const ended = t === T - 1 ? input.nextDone[i] === 1 : dones[(t + 1) * N + i] === 1
      truncations[t * N + i] = ended && rng.random() < 0.5 ? 1 : 0
    }
  }
  return { ...input, truncations, finalValues: arr(() => rng.uniform(-5, 5)) }
}

describe("Gae.computeSync (hand-computed)", () => {
  it("one env, no episode boundary: γ = λ = 0.5", () => {
    // δ2 = 2 + 0.5·4 − 1 = 3;    Â2 = 3
    // δ1 = 0 + 0.5·1 − 2 = −1.5; Â1 = −1.5 + 0.25·3 = −0.75
    // δ0 = 1 + 0.5·2 − 1 = 1;    Â0 = 1 + 0.25·(−0.75) = 0.8125
    const { advantages, returns } = Gae.computeSync(base)
    close(advantages, [0.8125, -0.75, 3])
    close(returns, [1.8125, 1.25, 4]) // Â + V
  })

  it("dones[t] = 1 cuts bootstrapping into step t (CleanRL's nextnonterminal)", () => {
    // dones[1] = 1: observation 1 starts a new episode, so step 0 has nextnonterminal = 0
    // δ0 = 1 + 0 − 1 = 0, Â0 = 0 (Â1 does not flow back); steps 1, 2 unchanged
    close(Gae.computeSync({ ...base, dones: [0, 1, 0] }).advantages, [0, -0.75, 3])
    // nextDone = 1: δ2 = 2 − 1 = 1; Â1 = −1.5 + 0.25·1 = −1.25; Â0 = 1 + 0.25·(−1.25) = 0.6875
    close(Gae.computeSync({ ...base, nextDone: [1] }).advantages, [0.6875, -1.25, 1])
    // dones[0] is irrelevant (it only says observation 0 started an episode)
    close(Gae.computeSync({ ...base, dones: [1, 0, 0] }).advantages, [0.8125, -0.75, 3])
  })

  it("two envs interleaved [numSteps, numEnvs]", () => {
    // env 0 is `base`; env 1: r = [0, 0, 1], V = [0, 0, 0], next V = 2, γ = λ = 0.5
    // δ = [0, 0, 1 + 1] → Â2 = 2, Â1 = 0 + 0.25·2 = 0.5, Â0 = 0.125
    const { advantages } = Gae.computeSync({
      ...base,
      numEnvs: 2,
      rewards: [1, 0, 0, 0, 2, 1],
      values: [1, 0, 2, 0, 1, 0],
      dones: [0, 0, 0, 0, 0, 0],
      nextValue: [4, 2],
      nextDone: [0, 0]
    })
    close(advantages, [0.8125, 0.125, -0.75, 0.5, 3, 2])
  })

  it("truncation bootstraps from the final observation's value (opt-in)", () => {
    // step 0 is truncated (observation 1 starts a new episode), V(final obs) = 6:
    // δ0 = 1 + 0.5·6 − 1 = 3; Â0 = 3 (the recursion still stops at the boundary)
    const input = { ...base, dones: [0, 1, 0], truncations: [1, 0, 0], finalValues: [6, 0, 0] }
    close(Gae.computeSync(input).advantages, [3, -0.75, 3])
    // without the option CleanRL treats it as a termination: Â0 = 0
    close(Gae.computeSync({ ...base, dones: [0, 1, 0] }).advantages, [0, -0.75, 3])
    // truncated at the last step: δ2 = 2 + 0.5·10 − 1 = 6
    close(
      Gae.computeSync({ ...base, nextDone: [1], truncations: [0, 0, 1], finalValues: [0, 0, 10] }).advantages,
      [1 + 0.25 * (-1.5 + 0.25 * 6), -1.5 + 0.25 * 6, 6]
    )
  })
})

describe("Gae.computeSync (reductions and properties)", () => {
  it("γ = λ = 1 gives Monte-Carlo returns minus values; returns are the MC returns", () => {
    // two episodes in one env: steps 0-1 (ends, obs 2 starts anew), steps 2-4 (ends: nextDone = 1)
    const rewards = [1, 2, 3, 4, 5]
    const values = [0.5, -1, 2, 0, 7]
    const mc = [1 + 2, 2, 3 + 4 + 5, 4 + 5, 5]
    const { advantages, returns } = Gae.computeSync({
      numSteps: 5, numEnvs: 1, gamma: 1, lambda: 1, rewards, values,
      dones: [0, 0, 1, 0, 0], nextValue: [100], nextDone: [1]
    })
    close(advantages, mc.map((g, t) => g - values[t]!))
    close(returns, mc)
  })

  it("λ = 0 gives the TD(0) errors δ_t", () => {
    const rng = Rng.make(7)
    for (let rep = 0; rep < 20; rep++) {
      const input = { ...randomInput(rng, false), lambda: 0 }
      const { numSteps: T, numEnvs: N, gamma } = input
      const td = Array.from({ length: T * N }, (_, k) => {
        const last = k + N >= T * N
        const nextV = last ? input.nextValue[k % N]! : input.values[k + N]!
        const nextD = last ? input.nextDone[k % N]! : input.dones[k + N]!
        return input.rewards[k]! + gamma * nextV * (1 - nextD) - input.values[k]!
      })
      close(Gae.computeSync(input).advantages, td)
    }
  })

  it("matches the O(T²) sum formula on random buffers (with and without truncation)", () => {
    const rng = Rng.make(2016)
    for (let rep = 0; rep < 200; rep++) {
      const input = randomInput(rng, rep % 2 === 1)
      const { advantages, returns } = Gae.computeSync(input)
      const expected = naive(input)
      close(advantages, expected, 1e-5)
      close(returns, Array.from(expected, (a, k) => a + input.values[k]!), 1e-5)
    }
  })

  it("computeInto writes into the given buffers", () => {
    const adv = new Float64Array(3)
    const ret = new Float64Array(3)
    Gae.computeInto(base, adv, ret)
    close(adv, [0.8125, -0.75, 3], 1e-12)
    expect(() => Gae.computeInto(base, new Float32Array(2), ret)).toThrow(/advantages \(output\)/)
  })
})

describe("Gae errors", () => {
  it.effect("a mismatched length fails with GaeShapeError naming the input", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(Gae.compute({ ...base, values: [1, 2] }))
      expect(error._tag).toBe("GaeShapeError")
      expect(error.message).toBe("GAE input values: expected length 3, got length 2")
    }))

  it.effect("NaN or Infinity fails with NonFiniteValueError naming the index and value", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(Gae.compute({ ...base, rewards: [1, Number.NaN, 2] }))
      expect(error).toBeInstanceOf(NonFiniteValueError)
      expect(error).toMatchObject({ where: "Gae.rewards", index: 1 })
      const inf = yield* Effect.flip(Gae.compute({ ...base, nextValue: [Infinity] }))
      expect(inf.message).toBe("Gae.nextValue: non-finite value Infinity at index 0")
    }))

  it("dones must be 0/1, γ and λ in [0, 1]", () => {
    expect(() => Gae.computeSync({ ...base, dones: [0, 0.5, 0] })).toThrow(/0 or 1 at every index.*0.5 at index 1/)
    expect(() => Gae.computeSync({ ...base, gamma: 1.5 })).toThrow(/gamma/)
    expect(() => Gae.computeSync({ ...base, truncations: [0, 0, 0] })).toThrow(/finalValues/)
  })
})

describe("Gae.normalizeAdvantages", () => {
  it("uses the unbiased std like torch's .std()", () => {
    // mean 2.5; unbiased variance (2.25 + 0.25 + 0.25 + 2.25) / 3 = 5/3; std = 1.2909944
    const out = Gae.normalizeAdvantages([1, 2, 3, 4])
    const std = Math.sqrt(5 / 3)
    close(out, [-1.5 / std, -0.5 / std, 0.5 / std, 1.5 / std], 1e-6)
  })

  it("normalizeInPlace normalizes a sub-range only and handles constants with eps", () => {
    const x = Float64Array.of(9, 1, 2, 3, 4, 9)
    Gae.normalizeInPlace(x, 1e-8, 1, 5)
    expect(x[0]).toBe(9)
    expect(x[5]).toBe(9)
    close(x.subarray(1, 5), [-1.5, -0.5, 0.5, 1.5].map((d) => d / (Math.sqrt(5 / 3) + 1e-8)), 1e-12)
    const c = Float64Array.of(3, 3, 3)
    Gae.normalizeInPlace(c)
    expect(Array.from(c)).toEqual([0, 0, 0])
    expect(() => Gae.normalizeAdvantages([1, Number.NaN])).toThrow(/index 1/)
  })
})

describe("GaeTf.computeTf", () => {
  for (const backend of ["wasm", "cpu"] as const) {
    it.effect(`agrees with the typed-array implementation to 1e-5 on ${backend}`, () =>
      Effect.gen(function* () {
        const { tf } = yield* Backend.select({ force: backend })
        const rng = Rng.make(99)
        close(GaeTf.computeTf(tf, base).advantages, [0.8125, -0.75, 3])
        for (let rep = 0; rep < 30; rep++) {
          const input = randomInput(rng, rep % 3 === 0)
          const ref = Gae.computeSync(input)
          const got = GaeTf.computeTf(tf, input)
          close(got.advantages, ref.advantages, 1e-5)
          close(got.returns, ref.returns, 1e-5)
        }
        // a CleanRL-sized buffer
        const big = { ...randomInput(rng, false), numSteps: 128, numEnvs: 4 }
        const n = 512
        const full = {
          ...big,
          rewards: Float32Array.from({ length: n }, () => 1),
          values: Float32Array.from({ length: n }, () => rng.uniform(0, 50)),
          dones: Float32Array.from({ length: n }, () => (rng.random() < 0.03 ? 1 : 0)),
          nextValue: Float32Array.of(10, 20, 30, 40),
          nextDone: Float32Array.of(0, 1, 0, 0),
          gamma: 0.99,
          lambda: 0.95
        }
        close(GaeTf.computeTf(tf, full).advantages, Gae.computeSync(full).advantages, 1e-5)
        expect(tf.memory().numTensors).toBe(0)
      }))
  }

  it.effect("computeWithBackend uses the Backend service and fails with typed errors", () =>
    Effect.gen(function* () {
      const result = yield* GaeTf.computeWithBackend(base)
      close(result.returns, [1.8125, 1.25, 4])
      const error = yield* Effect.flip(GaeTf.computeWithBackend({ ...base, dones: [0, 0] }))
      expect(error._tag).toBe("GaeShapeError")
    }).pipe(Effect.provide(Backend.layerWith({ force: "cpu" }))))
})

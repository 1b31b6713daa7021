/**
 * The column-blocked returns and GAE scans (`Returns.discountedReturnsSync`, `Gae.computeInto`) against the per-env
 * recurrences written out here (CleanRL `ppo.py`'s loop, one env at a time, doubles): bit-for-bit equal float32
 * results on random rollouts with dones, bootstraps and truncations, odd env counts and T = 1; and the fused
 * validation still rejects every bad input the separate validation pass did (NaN/±Infinity anywhere, including
 * where a done cuts the recursion, and a non-0/1 done in row 0, which the scan never reads).
 */
import { NonFiniteValueError, Rng } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import { Gae, Returns } from "../src/index.js"
import { thrown } from "./helpers.js"

/** Per-env discounted returns, doubles, the textbook loop. */
const returnsPerEnv = (T: number, N: number, gamma: number, r: ArrayLike<number>, d: ArrayLike<number>, nv?: ArrayLike<number>, nd?: ArrayLike<number>): Float32Array => {
  const out = new Float32Array(T * N)
  for (let i = 0; i < N; i++) {
    let acc = nv === undefined ? 0 : nv[i]! * (1 - (nd === undefined ? 0 : nd[i]!))
    for (let t = T - 1; t >= 0; t--) {
      const k = t * N + i
      const c = t === T - 1 ? gamma : gamma * (1 - d[k + N]!)
      acc = r[k]! + c * acc
      out[k] = acc
    }
  }
  return out
}

/** Per-env GAE, CleanRL's loop (with the truncation bootstrap), doubles. */
const gaePerEnv = (input: Gae.GaeInput): { advantages: Float32Array; returns: Float32Array } => {
  const { numSteps: T, numEnvs: N, gamma, lambda, rewards, values, dones, nextValue, nextDone, truncations, finalValues } = input
  const advantages = new Float32Array(T * N)
  const returns = new Float32Array(T * N)
  for (let i = 0; i < N; i++) {
    let last = 0
    for (let t = T - 1; t >= 0; t--) {
      const k = t * N + i
      const nnt = t === T - 1 ? 1 - nextDone[i]! : 1 - dones[k + N]!
      const nextV = t === T - 1 ? nextValue[i]! : values[k + N]!
      let bootstrap = gamma * nextV * nnt
      if (truncations !== undefined && truncations[k] === 1) bootstrap = gamma * finalValues![k]!
      const delta = rewards[k]! + bootstrap - values[k]!
      last = delta + gamma * lambda * nnt * last
      advantages[k] = last
      returns[k] = last + values[k]!
    }
  }
  return { advantages, returns }
}

const randomRollout = (rng: Rng, T: number, N: number, pDone: number) => {
  const n = T * N
  const normal = (m: number) => Float32Array.from({ length: m }, () => rng.normal())
  const flags = (m: number, p: number) => Float32Array.from({ length: m }, () => (rng.random() < p ? 1 : 0))
  return { rewards: normal(n), values: normal(n), dones: flags(n, pDone), nextValue: normal(N), nextDone: flags(N, 0.3), truncations: flags(n, 0.05), finalValues: normal(n) }
}

const same = (a: Float32Array, b: Float32Array) => expect(Array.from(a)).toEqual(Array.from(b))

describe("column-blocked scans = per-env recurrences, bit for bit", () => {
  const shapes: Array<[number, number]> = [[1, 1], [1, 7], [5, 1], [33, 3], [64, 17], [128, 64]]

  it("discounted returns (with and without bootstrap, dones at 0, 2% and 50%)", () => {
    const rng = Rng.make(11)
    for (const [T, N] of shapes) {
      for (const p of [0, 0.02, 0.5]) {
        const x = randomRollout(rng, T, N, p)
        for (const gamma of [0, 0.5, 0.99, 1]) {
          same(Returns.discountedReturnsSync({ numSteps: T, numEnvs: N, gamma, rewards: x.rewards, dones: x.dones }), returnsPerEnv(T, N, gamma, x.rewards, x.dones))
          const boot = { numSteps: T, numEnvs: N, gamma, rewards: x.rewards, dones: x.dones, nextValue: x.nextValue, nextDone: x.nextDone }
          same(Returns.discountedReturnsSync(boot), returnsPerEnv(T, N, gamma, x.rewards, x.dones, x.nextValue, x.nextDone))
        }
      }
    }
  })

  it("GAE advantages and λ-returns (with and without truncations; plain arrays too)", () => {
    const rng = Rng.make(12)
    for (const [T, N] of shapes) {
      for (const p of [0, 0.02, 0.5]) {
        const x = randomRollout(rng, T, N, p)
        for (const [gamma, lambda] of [[0.99, 0.95], [1, 1], [0, 0.5], [0.9, 0]] as const) {
          const base: Gae.GaeInput = { numSteps: T, numEnvs: N, gamma, lambda, rewards: x.rewards, values: x.values, dones: x.dones, nextValue: x.nextValue, nextDone: x.nextDone }
          for (const input of [base, { ...base, truncations: x.truncations, finalValues: x.finalValues }, { ...base, rewards: Array.from(x.rewards) }]) {
            const got = Gae.computeSync(input)
            const want = gaePerEnv(input)
            same(got.advantages, want.advantages)
            same(got.returns, want.returns)
          }
        }
      }
    }
  })

  it("computeInto writes into reused Float64Array outputs the same values as the float32 outputs (rounded)", () => {
    const x = randomRollout(Rng.make(13), 20, 9, 0.1)
    const input: Gae.GaeInput = { numSteps: 20, numEnvs: 9, gamma: 0.99, lambda: 0.95, rewards: x.rewards, values: x.values, dones: x.dones, nextValue: x.nextValue, nextDone: x.nextDone }
    const adv = new Float64Array(180)
    const ret = new Float64Array(180)
    for (let rep = 0; rep < 2; rep++) Gae.computeInto(input, adv, ret)
    same(Float32Array.from(adv), gaePerEnv(input).advantages)
    same(Float32Array.from(ret), gaePerEnv(input).returns)
  })
})

describe("fused validation rejects what the separate pass rejected", () => {
  const T = 4
  const N = 3
  const zeros = () => new Float32Array(T * N)

  it("returns: NaN/±Infinity anywhere (also just before a done), non-0/1 dones in any row (row 0 too)", () => {
    for (const k of [0, 4, T * N - 1]) {
      for (const bad of [Number.NaN, Infinity, -Infinity]) {
        const rewards = zeros()
        rewards[k] = bad
        const dones = zeros().fill(1) // every step cuts the recursion: the bad value must still be found
        const e = thrown(() => Returns.discountedReturnsSync({ numSteps: T, numEnvs: N, gamma: 0.9, rewards, dones }))
        expect([e._tag, e.input, e.reason, e.detail]).toEqual(["KernelInputError", "rewards", "non-finite", `${bad} at flat index ${k}`])
      }
    }
    for (const k of [0, 2, 7]) {
      const dones = zeros()
      dones[k] = 0.5
      const e = thrown(() => Returns.discountedReturnsSync({ numSteps: T, numEnvs: N, gamma: 0.9, rewards: zeros(), dones }))
      expect([e.input, e.reason]).toEqual(["dones", "range"])
    }
    expect(thrown(() => Returns.discountedReturnsSync({ numSteps: T, numEnvs: N, gamma: 0.9, rewards: zeros(), dones: zeros(), nextValue: [0, Number.NaN, 0] })).input).toBe("nextValue")
  })

  it("GAE: NonFiniteValueError naming the array and index; GaeShapeError for a done of 2 in row 0", () => {
    const base = { numSteps: T, numEnvs: N, gamma: 0.99, lambda: 0.95, nextValue: new Float32Array(N), nextDone: new Float32Array(N) }
    for (const name of ["rewards", "values"] as const) {
      for (const k of [0, 5, T * N - 1]) {
        const x = zeros()
        x[k] = Number.NaN
        const dones = zeros().fill(1)
        const e = thrown(() => Gae.computeSync({ ...base, rewards: zeros(), values: zeros(), dones, [name]: x }))
        expect(e).toBeInstanceOf(NonFiniteValueError)
        expect([e.where, e.index]).toEqual([`Gae.${name}`, k])
      }
    }
    const dones = zeros()
    dones[1] = 2
    const e = thrown(() => Gae.computeSync({ ...base, rewards: zeros(), values: zeros(), dones }))
    expect([e._tag, e.input]).toEqual(["GaeShapeError", "dones"])
    // finalValues is checked everywhere once truncations are given, even where no truncation reads it
    const fv = zeros()
    fv[3] = Infinity
    const t = thrown(() => Gae.computeSync({ ...base, rewards: zeros(), values: zeros(), dones: zeros(), truncations: zeros(), finalValues: fv }))
    expect([t.where, t.index]).toEqual(["Gae.finalValues", 3])
  })
})

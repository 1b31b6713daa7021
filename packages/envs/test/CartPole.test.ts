import { InvalidActionError, InvalidOptionError, ResetNeededError, Rng, Space } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { existsSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import * as CheckEnv from "../src/checks/CheckEnv.js"
import * as CartPole from "../src/classic/CartPole.js"
import * as Registry from "../src/Registry.js"

const dataPath = fileURLToPath(new URL("../../../../shared/data/gymnasium/cartpole_public.json", import.meta.url))
const hasData = existsSync(dataPath)
if (!hasData) console.warn(`CartPole replay skipped: reference data not found at ${dataPath}`)

interface RefStep {
  action: number
  observation: Array<number>
  reward: number
  terminated: boolean
  truncated: boolean
}

describe("CartPole", () => {
  it("reset({ seed: 42 }) reproduces NumPy's default_rng(42).uniform(-0.05, 0.05, size=4)", () => {
    // python3 -c "import numpy as np; print(np.random.default_rng(42).uniform(-0.05,0.05,size=4).astype(np.float32).tolist())"
    const expected = [0.02739560417830944, -0.006112155970185995, 0.03585979342460632, 0.019736802205443382]
    const env = new CartPole.CartPoleEnv()
    const { observation, info } = env.reset({ seed: 42 })
    expect(observation).toBeInstanceOf(Float32Array)
    expect(Array.from(observation)).toEqual(expected)
    expect(info).toEqual({})
    // same seed, same start; no seed continues the stream (a different start)
    expect(Array.from(env.reset({ seed: 42 }).observation)).toEqual(expected)
    expect(Array.from(env.reset().observation)).not.toEqual(expected)
  })

  it.skipIf(!hasData)("replays Gymnasium 1.4 episodes through make('CartPole-v1') (TimeLimit 500)", () => {
    const data = JSON.parse(readFileSync(dataPath, "utf8")) as {
      episodes: Array<{ initialState: Array<number>; steps: Array<RefStep> }>
    }
    expect(data.episodes.length).toBeGreaterThan(0)
    let truncations = 0
    let terminations = 0
    for (const episode of data.episodes) {
      const env = Registry.make<Float32Array, number>("CartPole-v1")
      env.reset({ options: { state: episode.initialState } })
      for (const ref of episode.steps) {
        const r = env.step(ref.action)
        for (let k = 0; k < 4; k++) expect(Math.abs(r.observation[k]! - ref.observation[k]!)).toBeLessThan(1e-6)
        expect(r.reward).toBe(ref.reward)
        expect(r.terminated).toBe(ref.terminated)
        expect(r.truncated).toBe(ref.truncated)
      }
      const last = episode.steps[episode.steps.length - 1]!
      if (last.truncated) truncations++
      if (last.terminated) terminations++
      // the episode is over: one more step must be refused
      expect(() => env.step(0)).toThrow(ResetNeededError)
    }
    expect(truncations).toBeGreaterThan(0)
    expect(terminations).toBeGreaterThan(0)
  })

  it("one Euler step by hand from the zero state", () => {
    const env = new CartPole.CartPoleEnv()
    env.reset({ options: { state: [0, 0, 0, 0] } })
    // theta = 0: temp = F / M = 10/1.1; thetaacc = -temp / (l * (4/3 - mp/M)); xacc = temp - mp*l*thetaacc/M
    const temp = 10 / 1.1
    const thetaacc = -temp / (0.5 * (4 / 3 - 0.1 / 1.1))
    const xacc = temp - (0.05 * thetaacc) / 1.1
    const r1 = env.step(1)
    expect(Array.from(r1.observation)).toEqual([0, Math.fround(0.02 * xacc), 0, Math.fround(0.02 * thetaacc)])
    expect(r1.reward).toBe(1)
    const r2 = env.step(1)
    // second step: x += tau * x_dot, theta += tau * theta_dot
    expect(r2.observation[0]).toBeCloseTo(0.02 * 0.02 * xacc, 7)
    expect(r2.observation[2]).toBeCloseTo(0.02 * 0.02 * thetaacc, 7)
  })

  it("terminates past the thresholds with reward 1, then refuses to step", () => {
    const env = new CartPole.CartPoleEnv()
    env.reset({ options: { state: [2.39, 1, 0, 0] } })
    const r = env.step(1)
    expect(r.terminated).toBe(true)
    expect(r.reward).toBe(1)
    expect(() => env.step(1)).toThrow(ResetNeededError)
    env.reset({ options: { state: [0, 0, 0.2094, 1] } })
    expect(env.step(0).terminated).toBe(true)
    const sb = new CartPole.CartPoleEnv({ suttonBartoReward: true })
    sb.reset({ options: { state: [0, 0, 0, 0] } })
    expect(sb.step(0).reward).toBe(0)
    sb.reset({ options: { state: [0, 0, 0.2094, 1] } })
    expect(sb.step(0).reward).toBe(-1)
  })

  it("spaces match Gymnasium's exactly: ±inf velocity bounds", () => {
    const env = new CartPole.CartPoleEnv()
    expect(env.actionSpace).toEqual(Space.discrete(2))
    const box = env.observationSpace
    expect(box.shape).toEqual([4])
    expect(box.dtype).toBe("float32")
    // Gymnasium 1.4 cartpole.py: high = np.array([x_threshold * 2, np.inf, theta_threshold_radians * 2, np.inf],
    // dtype=np.float32); python3 -c "import numpy as np; print(np.float32(2.4*2).item(), np.float32(12*2*np.pi/360*2).item())"
    expect(box.high).toEqual([4.800000190734863, Infinity, 0.41887903213500977, Infinity])
    expect(box.low).toEqual([-4.800000190734863, -Infinity, -0.41887903213500977, -Infinity])
    expect(Space.describe(box)).toBe(
      "Box([-4.800000190734863, -Infinity, -0.41887903213500977, -Infinity], [4.800000190734863, Infinity, 0.41887903213500977, Infinity], (4,), float32)"
    )
    const { observation } = env.reset({ seed: 3 })
    expect(Space.contains(box, observation)).toBe(true)
  })

  it("contains: any non-NaN velocity, bounded position and angle", () => {
    const box = CartPole.observationSpace
    const f32 = (xs: Array<number>) => Float32Array.from(xs)
    expect(Space.contains(box, f32([0, 3.4e38, 0, -3.4e38]))).toBe(true)
    expect(Space.contains(box, f32([0, Infinity, 0, -Infinity]))).toBe(true) // np.inf is in Box(-inf, inf)
    expect(Space.contains(box, f32([0, Number.NaN, 0, 0]))).toBe(false)
    expect(Space.contains(box, f32([4.81, 0, 0, 0]))).toBe(false)
    expect(Space.contains(box, f32([0, 0, -0.42, 0]))).toBe(false)
    expect(Space.contains(box, f32([4.8, 0, 0.4188, 0]))).toBe(true)
    expect(Space.contains(box, [0, 0, 0, 0])).toBe(false) // not a Float32Array
  })

  it("sample: bounded dims uniform within the bounds, unbounded dims standard normal (Gymnasium's Box.sample)", () => {
    const rng = Rng.make(7)
    const n = 20_000
    const cols = [0, 1, 2, 3].map(() => new Float64Array(n))
    for (let k = 0; k < n; k++) {
      const x = Space.sample(CartPole.observationSpace, rng) as Float32Array
      expect(x).toBeInstanceOf(Float32Array)
      for (let j = 0; j < 4; j++) cols[j]![k] = x[j]!
    }
    const mean = (c: Float64Array) => c.reduce((a, b) => a + b, 0) / c.length
    const variance = (c: Float64Array) => {
      const m = mean(c)
      return c.reduce((a, b) => a + (b - m) ** 2, 0) / c.length
    }
    for (const [j, h] of [[0, 4.8], [2, 0.41887903]] as const) {
      const c = cols[j]!
      expect(c.every((v) => Math.abs(v) <= h + 1e-6)).toBe(true)
      // uniform(-h, h): mean 0, variance h^2 / 3; standard errors h/sqrt(3n) and ~h^2/(sqrt(5n))
      expect(Math.abs(mean(c))).toBeLessThan(5 * h / Math.sqrt(3 * n))
      expect(variance(c) / (h * h / 3)).toBeCloseTo(1, 1)
    }
    for (const j of [1, 3]) {
      const c = cols[j]!
      expect(c.every(Number.isFinite)).toBe(true)
      expect(Math.abs(mean(c))).toBeLessThan(5 / Math.sqrt(n))
      expect(variance(c)).toBeCloseTo(1, 1)
      // a normal, not a bounded uniform: about 4.6% of draws beyond 2 sigma
      const tail = c.filter((v) => Math.abs(v) > 2).length / n
      expect(tail).toBeGreaterThan(0.035)
      expect(tail).toBeLessThan(0.057)
    }
  })

  it("the space survives a JSON round trip through the Space schema's JSON codec (±Infinity as strings)", () => {
    const codec = Schema.toCodecJson(Space.Space)
    const encoded = Schema.encodeSync(codec)(CartPole.observationSpace)
    const text = JSON.stringify(encoded)
    expect(text).toContain('"Infinity"')
    expect(text).toContain('"-Infinity"')
    const decoded = Schema.decodeUnknownSync(codec)(JSON.parse(text))
    expect(decoded).toEqual(CartPole.observationSpace)
    // plain JSON.stringify would lose the bounds (Infinity -> null), which the schema refuses to decode
    expect(() => Schema.decodeUnknownSync(codec)(JSON.parse(JSON.stringify(CartPole.observationSpace)))).toThrow()
  })

  it("checkEnv passes with the unbounded observation space (bare, through make, and for sampled observations)", () => {
    expect(CheckEnv.checkEnv(new CartPole.CartPoleEnv())).toEqual([])
    expect(CheckEnv.checkEnv(Registry.make("CartPole-v1"))).toEqual([])
    // an observation far outside the old finite bounds is still legal; NaN is not
    const env = new CartPole.CartPoleEnv()
    env.reset({ options: { state: [0, 1e39, 0, -1e39] } })
    expect(Space.contains(env.observationSpace, Float32Array.from(env.state))).toBe(true) // ±inf after float32 rounding
    const spaces = CheckEnv.collectFindings(new CartPole.CartPoleEnv()).filter((f) => f.check === "spaces")
    expect(spaces).toEqual([])
  })

  it("validates options and actions with typed errors", () => {
    const env = new CartPole.CartPoleEnv()
    expect(() => env.step(0)).toThrow(ResetNeededError)
    expect(() => env.reset({ options: { state: [0, 0, 0] } })).toThrow(InvalidOptionError)
    expect(() => env.reset({ options: { state: [0, 0, Number.NaN, 0] } })).toThrow(InvalidOptionError)
    expect(() => env.reset({ options: { low: 0.1, high: 0 } })).toThrow(InvalidOptionError)
    expect(() => env.reset({ options: { low: "a" } })).toThrow(InvalidOptionError)
    env.reset({ seed: 1 })
    expect(() => env.step(2)).toThrow(InvalidActionError)
  })

  it("options.low/high bound the initial state", () => {
    const env = new CartPole.CartPoleEnv()
    for (let k = 0; k < 20; k++) {
      const obs = env.reset({ seed: k, options: { low: 0.1, high: 0.2 } }).observation
      for (const v of obs) {
        expect(v).toBeGreaterThanOrEqual(Math.fround(0.1))
        expect(v).toBeLessThan(0.2)
      }
    }
    // same draws as the default bounds, rescaled: u in [0,1) -> -0.05 + 0.1u and 0.1 + 0.1u
    const a = env.reset({ seed: 7 }).observation
    const b = env.reset({ seed: 7, options: { low: 0.1, high: 0.2 } }).observation
    for (let i = 0; i < 4; i++) expect(b[i]! - a[i]!).toBeCloseTo(0.15, 6)
  })

  it("renders the cart and pole as text", () => {
    const env = new CartPole.CartPoleEnv()
    expect(env.render()).toBeUndefined()
    env.reset({ options: { state: [0, 0, 0, 0] } })
    const text = env.render()!
    expect(text).toContain("[#]")
    expect(text).toContain("|")
    expect(text).toContain("x=0.000")
  })
})

/**
 * The WebAssembly engine of `CartPoleBatch` against independent references: its PCG64 against core's `Rng` (NumPy's
 * stream) draw for draw, and its one-call NextStep step (physics, TimeLimit, autoreset draws, flags) against the
 * JavaScript loop, which steps `CartPole.dynamics` row by row with core's `Rng`.
 */
import { Rng } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import { CartPoleBatch } from "../src/classic/CartPoleBatch.js"
import * as CartPoleWasm from "../src/classic/CartPoleWasm.js"
import * as Libm from "../src/classic/Libm.js"
import type { VectorStepResult } from "../src/vector/VectorEnv.js"

const snap = (r: VectorStepResult) => ({
  observations: Array.from(r.observations as ArrayLike<number>),
  rewards: Array.from(r.rewards),
  terminations: Array.from(r.terminations),
  truncations: Array.from(r.truncations),
  infos: r.infos.infos
})

describe("CartPoleBatch WebAssembly engine", () => {
  it("its PCG64 continues core's Rng stream bit for bit (10,000 raw draws per generator, 5 generators)", () => {
    const wasm = CartPoleWasm.instantiate(3)!
    expect(wasm).toBeDefined()
    const gens = [Rng.make(0), Rng.make(42), Rng.make(2 ** 40 + 7), Rng.make([1, 2, 3, 4, 5]), Rng.fromEntropy()]
    for (const rng of gens) {
      rng.random() // a generator already in use
      const { state, inc } = rng.getState()
      for (let k = 0; k < 8; k++) {
        wasm.rng[16 + k] = state[k]!
        wasm.rng[24 + k] = inc[k]!
      }
      const got = wasm.rawDraws(1, 10_000)
      const want = Array.from({ length: 10_000 }, () => {
        const [hi, lo] = rng.nextUint64()
        return (BigInt(hi) << 32n) | BigInt(lo)
      })
      expect(got).toEqual(want)
      // then 4 uniform draws as CartPoleEnv.reset makes them, bounds as given
      wasm.resetRow(1, -0.3, 0.2)
      expect([wasm.x[1], wasm.xDot[1], wasm.theta[1], wasm.thetaDot[1]]).toEqual([0, 0, 0, 0].map(() => rng.uniform(-0.3, 0.2)))
    }
  })

  it("its sin/cos for the lanes the fast path rejects return Libm's correctly rounded values", () => {
    const { sin, cos } = CartPoleWasm.instantiate(1)!.series
    const rng = Rng.make(17)
    const xs = [0, -0, 1e-9, 2 ** -26, -(2 ** -27), 0.25, -0.2500000000000001, 0.7853981633974483, 0.79, -3, 1e300, NaN, Infinity]
    for (let i = 0; i < 20_000; i++) xs.push(rng.uniform(-0.8, 0.8), rng.uniform(-0.3, 0.3) * 2 ** -rng.integers(30))
    const got = xs.map((x) => [sin(x), cos(x)])
    expect(got).toEqual(xs.map((x) => [Libm.sinAccurate(x), Libm.cosAccurate(x)]))
  })

  it("checks actions in one pass: 0/1 pass, anything else fails", () => {
    const wasm = CartPoleWasm.instantiate(5)!
    wasm.actions.set([1, 0, 1, 1, 0])
    expect(wasm.actionsValid()).toBe(true)
    for (const bad of [2, -1, 3, 0x7fffffff]) {
      wasm.actions.set([1, 0, 1, 1, bad])
      expect(wasm.actionsValid()).toBe(false)
    }
  })

  it("one-call NextStep steps (autoreset draws in WebAssembly) equal the JavaScript loop: odd count, TimeLimit(30), Sutton-Barto rewards, resets with bounds", () => {
    const n = 37
    const options = { maxEpisodeSteps: 30, suttonBartoReward: true }
    const wasm = new CartPoleBatch(n, options)
    const js = new CartPoleBatch(n, { ...options, wasm: false })
    expect([wasm.engine, js.engine]).toEqual(["wasm-simd", "js"])
    const reset = (opts: Parameters<CartPoleBatch["reset"]>[0]) => {
      const a = wasm.reset(opts)
      const b = js.reset(opts)
      expect(Array.from(a.observations as Float32Array)).toEqual(Array.from(b.observations as Float32Array))
    }
    reset({ seed: 3 })
    const rng = Rng.make(5)
    const actions = new Int32Array(n)
    let resets = 0
    let truncations = 0
    for (let t = 0; t < 240; t++) {
      // rows 0-3 balance (truncated at 30), the others act at random; every 4th step as a plain array
      for (let i = 0; i < n; i++) actions[i] = i < 4 ? (js.theta[i]! + 0.5 * js.thetaDot[i]! > 0 ? 1 : 0) : rng.integers(2)
      const batch = t % 4 === 3 ? Array.from(actions) : actions
      const a = snap(wasm.step(batch))
      const b = snap(js.step(batch))
      expect(a).toEqual(b)
      expect(Array.from(wasm.elapsed)).toEqual(Array.from(js.elapsed))
      resets += a.infos.filter((_, i) => a.rewards[i] === 0 && a.terminations[i] === 0 && wasm.elapsed[i] === 0).length
      truncations += a.truncations.reduce((x, y) => x + y, 0)
      if (t === 100) reset({ options: { low: -0.2, high: 0.2 } }) // unseeded: both continue each row's stream
      if (t === 170) reset({ seed: [9, 8, 7, ...Array.from({ length: n - 3 }, (_, i) => 100 + i)], options: { resetMask: Array.from({ length: n }, (_, i) => i % 3 === 0) } })
    }
    expect(truncations).toBeGreaterThanOrEqual(8)
    expect(resets).toBeGreaterThan(100)
    expect(Array.from(wasm.theta.subarray(0, n))).toEqual(Array.from(js.theta))
    expect(Array.from(wasm.thetaDot.subarray(0, n))).toEqual(Array.from(js.thetaDot))
  })
})

import { Rng } from "@autodidact/core"
import { Backend } from "@autodidact/kernels/tfjs"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { ActorCritic } from "../src/index.js"
import { ActorCriticTf } from "../src/tfjs.js"

const net = () => ActorCritic.make({ obsDim: 4, numActions: 2, rng: Rng.make(0) })
const spec = (n: ActorCritic.ActorCritic, name: string) => n.layout.find((l) => l.name === name)!

/** Gram matrix of the rows of torch's [out, in] weight (our storage is [in, out]). */
const gramOfTorchRows = (n: ActorCritic.ActorCritic, name: string): Array<Array<number>> => {
  const l = spec(n, name)
  const [inDim, outDim] = l.shape as [number, number]
  const w = (o: number, i: number) => n.params[l.offset + i * outDim + o]!
  return Array.from({ length: outDim }, (_, a) =>
    Array.from({ length: outDim }, (_, b) => Array.from({ length: inDim }, (_, i) => w(a, i) * w(b, i)).reduce((x, y) => x + y, 0)))
}

describe("ActorCritic.make (CleanRL layer_init)", () => {
  it("has CleanRL's parameter count: 2 × (4·64 + 64 + 64·64 + 64) + 64·2 + 2 + 64 + 1", () => {
    expect(net().params.length).toBe(2 * (4 * 64 + 64 + 64 * 64 + 64) + 64 * 2 + 2 + 64 + 1)
  })

  it("orthogonal weights with gains √2 (hidden), 0.01 (actor head), 1 (critic head); zero biases", () => {
    const n = net()
    // 64×64: W Wᵀ = gain² I
    const g = gramOfTorchRows(n, "actor.2.weight")
    for (let a = 0; a < 64; a++) for (let b = 0; b < 64; b++) expect(g[a]![b]).toBeCloseTo(a === b ? 2 : 0, 5)
    // actor head, torch shape [2, 64] (rows < cols): orthonormal rows scaled by 0.01
    const h = gramOfTorchRows(n, "actor.4.weight")
    expect(h[0]![0]).toBeCloseTo(1e-4, 9)
    expect(h[1]![1]).toBeCloseTo(1e-4, 9)
    expect(h[0]![1]).toBeCloseTo(0, 9)
    expect(gramOfTorchRows(n, "critic.4.weight")[0]![0]).toBeCloseTo(1, 5)
    // first layer, torch shape [64, 4] (tall): orthonormal columns, so Σ_o W[o,i] W[o,j] = 2 δ_ij
    const l = spec(n, "critic.0.weight")
    for (let i = 0; i < 4; i++) {
      for (let j = 0; j < 4; j++) {
        let s = 0
        for (let o = 0; o < 64; o++) s += n.params[l.offset + i * 64 + o]! * n.params[l.offset + j * 64 + o]!
        expect(s).toBeCloseTo(i === j ? 2 : 0, 5)
      }
    }
    for (const name of ["actor.0.bias", "actor.2.bias", "actor.4.bias", "critic.0.bias", "critic.2.bias", "critic.4.bias"]) {
      const b = spec(n, name)
      expect(Array.from(n.params.subarray(b.offset, b.offset + b.size)).every((x) => x === 0)).toBe(true)
    }
  })

  it("the same seed gives the same weights; another seed different ones", () => {
    expect(Array.from(net().params)).toEqual(Array.from(net().params))
    expect(ActorCritic.make({ obsDim: 4, numActions: 2, rng: Rng.make(1) }).params[0]).not.toBe(net().params[0])
  })

  it("the 0.01 actor head makes the initial policy nearly uniform: entropy ≈ ln 2", () => {
    const n = net()
    ActorCritic.forward(n, Float32Array.of(0.1, -0.2, 0.03, 0.4), 1)
    expect(ActorCritic.entropyAt(n, 0)).toBeCloseTo(Math.LN2, 3)
    expect(ActorCritic.logProbAt(n, 0, 0)).toBeCloseTo(-Math.LN2, 1)
  })
})

describe("ActorCritic sampling", () => {
  it("samples with the softmax probabilities, reproducibly for a seeded Rng", () => {
    const n = net()
    // make the policy non-uniform: bias the actor head
    n.params[spec(n, "actor.4.bias").offset + 1] = 1 // p(1) = e / (1 + e) ≈ 0.731 (plus the tiny head weights)
    const obs = Float32Array.of(0, 0, 0, 0, 0, 0, 0, 0)
    ActorCritic.forward(n, obs, 1)
    const p1 = ActorCritic.probsOf(n)[1]!
    expect(p1).toBeCloseTo(Math.E / (1 + Math.E), 2)
    const actions = new Int32Array(2)
    const logp = new Float32Array(2)
    const values = new Float32Array(2)
    const rng = Rng.make(5)
    let ones = 0
    const draws = 20000
    for (let k = 0; k < draws / 2; k++) {
      ActorCritic.act(n, obs, 2, rng, actions, logp, values)
      ones += actions[0]! + actions[1]!
      expect(logp[0]).toBeCloseTo(Math.log(actions[0] === 1 ? p1 : 1 - p1), 5)
    }
    expect(Math.abs(ones / draws - p1)).toBeLessThan(0.015) // ~4.8 standard errors
    const replay = (seed: number) => {
      const r = Rng.make(seed)
      const out: Array<number> = []
      for (let k = 0; k < 50; k++) {
        ActorCritic.act(n, obs, 2, r, actions, logp, values)
        out.push(actions[0]!, actions[1]!)
      }
      return out
    }
    expect(replay(9)).toEqual(replay(9))
  })
})

describe("ActorCritic.backward", () => {
  it("matches central finite differences of L = Σ c·logits + Σ d·values", () => {
    const rng = Rng.make(11)
    const n = ActorCritic.make({ obsDim: 3, numActions: 3, hidden: 8, rng })
    // perturb biases so every parameter matters
    for (let k = 0; k < n.params.length; k++) n.params[k] = n.params[k]! + rng.uniform(-0.3, 0.3)
    const B = 5
    const obs = Float64Array.from({ length: B * 3 }, () => rng.uniform(-2, 2))
    const c = Float64Array.from({ length: B * 3 }, () => rng.uniform(-1, 1))
    const d = Float64Array.from({ length: B }, () => rng.uniform(-1, 1))
    const loss = () => {
      ActorCritic.forward(n, obs, B)
      const z = ActorCritic.logitsOf(n)
      const v = ActorCritic.valuesOf(n)
      let s = 0
      for (let k = 0; k < B * 3; k++) s += c[k]! * z[k]!
      for (let k = 0; k < B; k++) s += d[k]! * v[k]!
      return s
    }
    loss()
    const grad = new Float64Array(n.params.length)
    ActorCritic.backward(n, B, c, d, grad)
    const h = 1e-2
    for (let k = 0; k < n.params.length; k++) {
      const p0 = n.params[k]!
      n.params[k] = p0 + h
      const up = n.params[k]! - p0
      const lp = loss()
      n.params[k] = p0 - h
      const down = p0 - n.params[k]!
      const lm = loss()
      n.params[k] = p0
      const numeric = (lp - lm) / (up + down)
      expect(Math.abs(numeric - grad[k]!)).toBeLessThan(2e-3 * Math.max(1, Math.abs(numeric)))
    }
  })
})

describe("ActorCritic engines", () => {
  it("wasm-simd gives the typed-array logits, probabilities, values and gradients to float32 accuracy (CartPole sizes)", () => {
    const ref = net()
    expect(ref.engine).toBe("typed-array")
    const simd = ActorCritic.fromParams(ref, ref.params, "wasm-simd")
    expect(simd.engine).toBe("wasm-simd")
    const rng = Rng.make(5)
    for (let k = 0; k < ref.params.length; k++) ref.params[k] = ref.params[k]! + rng.normal(0, 0.05) // shared array
    for (const B of [4, 128, 5]) {
      const obs = Float32Array.from({ length: 200 * 4 }, () => rng.normal())
      const rows = Int32Array.from({ length: 200 }, () => rng.integers(200))
      const dLogits = Float64Array.from({ length: B * 2 }, () => rng.normal())
      const dValues = Float64Array.from({ length: B }, () => rng.normal())
      const out = [ref, simd].map((n) => {
        ActorCritic.forward(n, obs, B, rows, 3)
        const grad = new Float64Array(n.params.length)
        ActorCritic.backward(n, B, dLogits, dValues, grad)
        const take = (a: Float64Array, len: number) => Array.from(a.subarray(0, len))
        return { z: take(ActorCritic.logitsOf(n), B * 2), p: take(ActorCritic.probsOf(n), B * 2), v: take(ActorCritic.valuesOf(n), B), grad }
      })
      const [a, b] = out as [typeof out[0], typeof out[0]]
      for (const key of ["z", "p", "v"] as const) a[key].forEach((x, k) => expect(Math.abs(b[key][k]! - x)).toBeLessThan(1e-5 + 1e-5 * Math.abs(x)))
      let worst = 0
      a.grad.forEach((x, k) => (worst = Math.max(worst, Math.abs(b.grad[k]! - x) / (1e-3 + Math.abs(x)))))
      expect(worst).toBeLessThan(1e-3)
    }
  })

  it("make({ engine }) and act: the same sampled actions as typed-array for the same generator state", () => {
    const a = ActorCritic.make({ obsDim: 4, numActions: 2, rng: Rng.make(8) })
    const b = ActorCritic.make({ obsDim: 4, numActions: 2, rng: Rng.make(8), engine: "wasm-simd" })
    expect(Array.from(b.params)).toEqual(Array.from(a.params))
    const obs = Float32Array.from({ length: 16 }, (_, k) => Math.sin(k))
    const out = [a, b].map((n) => {
      const actions = new Int32Array(4)
      ActorCritic.act(n, obs, 4, Rng.make(2), actions, new Float64Array(4), new Float64Array(4))
      return Array.from(actions)
    })
    expect(out[1]).toEqual(out[0])
  })

  it("wasm-simd falls back to typed-array where WebAssembly SIMD is switched off (AUTODIDACT_WASM_SIMD=0)", () => {
    const before = process.env["AUTODIDACT_WASM_SIMD"]
    process.env["AUTODIDACT_WASM_SIMD"] = "0"
    try {
      expect(ActorCritic.resolveEngine("wasm-simd")).toBe("typed-array")
      expect(ActorCritic.make({ obsDim: 4, numActions: 2, rng: Rng.make(0), engine: "wasm-simd" }).engine).toBe("typed-array")
    } finally {
      if (before === undefined) delete process.env["AUTODIDACT_WASM_SIMD"]
      else process.env["AUTODIDACT_WASM_SIMD"] = before
    }
    expect(ActorCritic.resolveEngine("wasm-simd")).toBe("wasm-simd")
    expect(ActorCritic.engines).toEqual(["wasm-simd", "typed-array"])
  })
})

describe("ActorCritic and TensorFlow.js", () => {
  it.effect("forwardTf (wasm) agrees with the typed-array and wasm-simd forward passes; variables round-trip", () =>
    Effect.gen(function* () {
      const { tf } = yield* Backend.select({ force: "wasm" })
      const n = net()
      const rng = Rng.make(3)
      const B = 7
      const obs = Float32Array.from({ length: B * 4 }, () => rng.uniform(-2, 2))
      const { logits, values } = ActorCriticTf.forwardTf(n, tf, obs, B)
      ActorCritic.forward(n, obs, B)
      const z = ActorCritic.logitsOf(n)
      const v = ActorCritic.valuesOf(n)
      for (let k = 0; k < B * 2; k++) expect(logits[k]).toBeCloseTo(z[k]!, 5)
      for (let k = 0; k < B; k++) expect(values[k]).toBeCloseTo(v[k]!, 5)
      const simd = ActorCritic.fromParams(n, n.params, "wasm-simd")
      ActorCritic.forward(simd, obs, B)
      for (let k = 0; k < B * 2; k++) expect(logits[k]).toBeCloseTo(ActorCritic.logitsOf(simd)[k]!, 5)
      for (let k = 0; k < B; k++) expect(values[k]).toBeCloseTo(ActorCritic.valuesOf(simd)[k]!, 5)
      const vars = ActorCriticTf.toVariables(n, tf)
      expect(vars.map((x) => x.shape)).toEqual(n.layout.map((l) => l.shape))
      const copy = ActorCritic.fromParams(n, new Float32Array(n.params.length))
      ActorCriticTf.fromVariables(copy, vars)
      expect(Array.from(copy.params)).toEqual(Array.from(n.params))
      tf.dispose(vars)
    }))
})

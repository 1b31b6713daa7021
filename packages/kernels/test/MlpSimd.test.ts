/**
 * `MlpSimd` (the actor-critic tanh MLP pair in WebAssembly SIMD) against an independent float64 evaluation written
 * here from the layout in its docstring: forward values, gradients against central finite differences of that
 * evaluation, row gathering, ragged sizes (SIMD bodies and scalar tails), tanh accuracy, growth, and bad input.
 */
import { readFileSync } from "node:fs"
import { Rng } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import { ascModule, compileKernels, mlpTarget, renderModule } from "../scripts/build-wasm.js"
import * as binary from "../src/generated/wasmMlpBinary.js"
import { KernelInputError, MlpSimd } from "../src/index.js"
import { close, thrown } from "./helpers.js"

let ascError: string | undefined
try {
  await import(ascModule)
} catch (e) {
  ascError = e instanceof Error ? e.message : String(e)
}

interface Sizes {
  readonly obsDim: number
  readonly hidden: number
  readonly numActions: number
}

/** The two MLPs in float64, straight from the documented layout (no blocking, no shared code with the kernel). */
const reference = (s: Sizes, p: ArrayLike<number>, obs: ArrayLike<number>, B: number): { logits: Float64Array; values: Float64Array } => {
  const { obsDim: D, hidden: H, numActions: A } = s
  const logits = new Float64Array(B * A)
  const values = new Float64Array(B)
  let at = 0
  const layer = (x: Float64Array, I: number, O: number, act: boolean): Float64Array => {
    const w = at
    const bias = w + I * O
    at = bias + O
    const y = new Float64Array(O)
    for (let j = 0; j < O; j++) {
      let sum = p[bias + j]!
      for (let i = 0; i < I; i++) sum += x[i]! * p[w + i * O + j]!
      y[j] = act ? Math.tanh(sum) : sum
    }
    return y
  }
  for (let b = 0; b < B; b++) {
    const x = Float64Array.from({ length: D }, (_, i) => obs[b * D + i]!)
    at = 0
    logits.set(layer(layer(layer(x, D, H, true), H, H, true), H, A, false), b * A)
    values[b] = layer(layer(layer(x, D, H, true), H, H, true), H, 1, false)[0]!
  }
  return { logits, values }
}

const setup = (s: Sizes, B: number, seed: number) => {
  const rng = Rng.make(seed)
  const params = Float32Array.from({ length: MlpSimd.numParams(s) }, () => rng.normal(0, 0.4))
  const obs = Float32Array.from({ length: B * s.obsDim }, () => rng.normal())
  const dLogits = Float64Array.from({ length: B * s.numActions }, () => rng.normal())
  const dValues = Float64Array.from({ length: B }, () => rng.normal())
  return { params, obs, dLogits, dValues }
}

// CartPole's network at rollout (4 rows) and minibatch (128 rows) sizes, and ragged ones: hidden 12 (one 8-wide block
// and 4 tail outputs), obsDim 3 and 5, batch 5 and 7 (a 4-row block and tail rows)
const cases: ReadonlyArray<[Sizes, number]> = [
  [{ obsDim: 4, hidden: 64, numActions: 2 }, 128],
  [{ obsDim: 4, hidden: 64, numActions: 2 }, 4],
  [{ obsDim: 3, hidden: 12, numActions: 3 }, 5],
  [{ obsDim: 5, hidden: 9, numActions: 1 }, 7]
]

describe("MlpSimd", () => {
  it.skipIf(ascError !== undefined)("recompiling wasm/mlp.ts gives exactly the embedded bytes (run npm run build:wasm -w @autodidact/kernels if not)", async () => {
    const bytes = await compileKernels(mlpTarget)
    expect(Buffer.from(binary.base64, "base64").equals(Buffer.from(bytes))).toBe(true)
    expect(readFileSync(mlpTarget.generated, "utf8")).toBe(renderModule(bytes, mlpTarget))
  }, 60_000)

  it("is available here (Node has WebAssembly SIMD)", () => {
    expect(MlpSimd.load()).toEqual({ ok: true })
    expect(MlpSimd.numParams({ obsDim: 4, hidden: 64, numActions: 2 })).toBe(9155)
  })

  it("forward equals a float64 evaluation of the documented layout to float32 accuracy", () => {
    for (const [s, B] of cases) {
      const { params, obs } = setup(s, B, 1)
      const ws = MlpSimd.make(s)
      const logits = new Float64Array(B * s.numActions)
      const values = new Float64Array(B)
      MlpSimd.forward(ws, params, obs, B, undefined, 0, logits, values)
      const ref = reference(s, params, obs, B)
      close(logits, ref.logits, 1e-4, 2e-5)
      close(values, ref.values, 1e-4, 2e-5)
    }
  })

  it("backward adds the gradient of Σ dLogits·logits + Σ dValues·values (central differences of the float64 evaluation)", () => {
    for (const [s, B] of cases) {
      if (s.hidden > 16) continue // finite differences over every parameter: the small networks only
      const { params, obs, dLogits, dValues } = setup(s, B, 2)
      const ws = MlpSimd.make(s)
      MlpSimd.forward(ws, params, obs, B, undefined, 0, new Float64Array(B * s.numActions), new Float64Array(B))
      const grad = new Float64Array(params.length).fill(0.5) // backward ADDS
      MlpSimd.backward(ws, B, dLogits, dValues, grad)
      const p64 = Float64Array.from(params)
      const loss = (q: Float64Array) => {
        const r = reference(s, q, obs, B)
        let l = 0
        for (let k = 0; k < r.logits.length; k++) l += dLogits[k]! * r.logits[k]!
        for (let k = 0; k < B; k++) l += dValues[k]! * r.values[k]!
        return l
      }
      const fd = new Float64Array(params.length)
      const h = 1e-6
      for (let k = 0; k < params.length; k++) {
        const keep = p64[k]!
        p64[k] = keep + h
        const up = loss(p64)
        p64[k] = keep - h
        fd[k] = (up - loss(p64)) / (2 * h) + 0.5
        p64[k] = keep
      }
      close(grad, fd, 1e-4, 1e-4)
    }
  })

  it("forward on CartPole's 128-row minibatch: gradient equals the float64 evaluation's central differences on a sample of parameters", () => {
    const s: Sizes = { obsDim: 4, hidden: 64, numActions: 2 }
    const B = 128
    const { params, obs, dLogits, dValues } = setup(s, B, 3)
    const ws = MlpSimd.make(s)
    MlpSimd.forward(ws, params, obs, B, undefined, 0, new Float64Array(B * 2), new Float64Array(B))
    const grad = new Float64Array(params.length)
    MlpSimd.backward(ws, B, dLogits, dValues, grad)
    const p64 = Float64Array.from(params)
    const loss = () => {
      const r = reference(s, p64, obs, B)
      let l = 0
      for (let k = 0; k < r.logits.length; k++) l += dLogits[k]! * r.logits[k]!
      for (let k = 0; k < B; k++) l += dValues[k]! * r.values[k]!
      return l
    }
    // one parameter in every tensor (weights and biases of both networks), and a few more
    for (const k of [0, 255, 256, 300, 1000, 4416, 4480, 4544, 4545, 4546, 4547, 4608, 4609, 4900, 5000, 9088, 9153, 9154]) {
      const keep = p64[k]!
      p64[k] = keep + 1e-6
      const up = loss()
      p64[k] = keep - 1e-6
      const fd = (up - loss()) / 2e-6
      p64[k] = keep
      expect(Math.abs(grad[k]! - fd)).toBeLessThan(1e-3 + 1e-3 * Math.abs(fd))
    }
  })

  it("gathers rows by index, and grows past its capacity", () => {
    const s: Sizes = { obsDim: 3, hidden: 12, numActions: 3 }
    const { params, obs } = setup(s, 40, 4)
    const ws = MlpSimd.make(s, 2)
    const rows = Int32Array.from([39, 0, 7, 7, 21, 3, 30, 12, 5, 1])
    const logits = new Float64Array(8 * 3)
    const values = new Float64Array(8)
    MlpSimd.forward(ws, params, obs, 8, rows, 2, logits, values)
    expect(ws.capacity).toBeGreaterThanOrEqual(8)
    const picked = new Float32Array(8 * 3)
    for (let b = 0; b < 8; b++) picked.set(obs.subarray(rows[b + 2]! * 3, rows[b + 2]! * 3 + 3), b * 3)
    const ref = reference(s, params, picked, 8)
    close(logits, ref.logits, 1e-4, 2e-5)
    close(values, ref.values, 1e-4, 2e-5)
  })

  it("tanh is within 4e-7 of Math.tanh, odd, and saturates at ±1", () => {
    const ws = MlpSimd.make({ obsDim: 1, hidden: 64, numActions: 1 })
    const xs = Float32Array.from({ length: 20001 }, (_, k) => -10 + k * 1e-3)
    const ys = MlpSimd.tanh(ws, xs)
    let worst = 0
    for (let k = 0; k < xs.length; k++) worst = Math.max(worst, Math.abs(ys[k]! - Math.tanh(xs[k]!)))
    expect(worst).toBeLessThan(4e-7)
    let asymmetric = 0
    for (let k = 0; k < xs.length; k++) if (ys[xs.length - 1 - k]! + ys[k]! !== 0) asymmetric++
    expect(asymmetric).toBe(0)
    expect(Array.from(MlpSimd.tanh(ws, [0, 50, -50]))).toEqual([0, 1, -1])
  })

  it("bad input: a clear KernelInputError naming the value", () => {
    const bad = thrown(() => MlpSimd.make({ obsDim: 4, hidden: 0, numActions: 2 }))
    expect(bad).toBeInstanceOf(KernelInputError)
    expect(bad.message).toContain("hidden")
    const ws = MlpSimd.make({ obsDim: 4, hidden: 8, numActions: 2 })
    const wrong = thrown(() => MlpSimd.forward(ws, new Float32Array(3), new Float32Array(4), 1, undefined, 0, new Float64Array(2), new Float64Array(1)))
    expect(wrong).toBeInstanceOf(KernelInputError)
    expect(wrong.message).toContain(`expected ${MlpSimd.numParams({ obsDim: 4, hidden: 8, numActions: 2 })} parameters`)
  })
  it("one MLP alone (forwardSingle/backwardSingle): the actor's outputs, and gradients by central differences", () => {
    for (const [s, B] of cases) {
      if (s.hidden > 16) continue
      const { params, obs, dLogits } = setup(s, B, 5)
      const single = params.slice(0, MlpSimd.numParamsSingle(s))
      const ws = MlpSimd.make(s)
      const out = new Float64Array(B * s.numActions)
      MlpSimd.forwardSingle(ws, single, obs, B, undefined, 0, out)
      close(out, reference(s, params, obs, B).logits, 1e-4, 2e-5)
      const again = new Float64Array(B * s.numActions)
      MlpSimd.forwardSingle(ws, null, obs, B, undefined, 0, again) // null: the parameters already loaded
      expect(again).toEqual(out)
      const grad = new Float64Array(single.length).fill(0.25) // backwardSingle ADDS
      MlpSimd.backwardSingle(ws, B, dLogits, grad)
      const p64 = Float64Array.from(params)
      const loss = () => {
        const r = reference(s, p64, obs, B)
        let l = 0
        for (let k = 0; k < r.logits.length; k++) l += dLogits[k]! * r.logits[k]!
        return l
      }
      for (let k = 0; k < single.length; k++) {
        const keep = p64[k]!
        p64[k] = keep + 1e-6
        const up = loss()
        p64[k] = keep - 1e-6
        const fd = (up - loss()) / 2e-6 + 0.25
        p64[k] = keep
        expect(Math.abs(grad[k]! - fd)).toBeLessThan(1e-4 + 1e-4 * Math.abs(fd))
      }
    }
    const ws = MlpSimd.make({ obsDim: 4, hidden: 8, numActions: 2 })
    expect(thrown(() => MlpSimd.forwardSingle(ws, new Float32Array(MlpSimd.numParams(ws.sizes)), new Float32Array(4), 1, undefined, 0, new Float64Array(2))).message)
      .toContain(`expected ${4 * 8 + 8 + 64 + 8 + 16 + 2} parameters (one MLP)`)
  })

  it("weightedMse: Keras' MeanSquaredError with sample_weight on a hand-computed case", () => {
    // rows: pred (1, 2) target (0, 0) weight 3; pred (0, -1) target (2, 1) weight 0.5
    // per-row means 2.5 and 4 -> (3·2.5 + 0.5·4) / 2 = 4.75
    const d = new Float64Array(4)
    expect(MlpSimd.weightedMse([1, 2, 0, -1], [0, 0, 2, 1], [3, 0.5], 2, 2, d)).toBeCloseTo(4.75, 12)
    // dL/dpred = 2 w (pred − target) / (B·K)
    expect(Array.from(d)).toEqual([1.5, 3, -0.5, -0.5])
    expect(thrown(() => MlpSimd.weightedMse([1], [1], [1], 1, 2, d)).message).toContain("pred")
    expect(thrown(() => MlpSimd.weightedMse([1], [1], [1], 0, 1, d)).message).toContain("got 0")
  })
})

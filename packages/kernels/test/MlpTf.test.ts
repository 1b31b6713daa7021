/**
 * `MlpTf` (the TF.js single tanh MLP with weighted-MSE Adam training) against kernels' WebAssembly SIMD MLP and typed
 * Adam on the same parameters and batches: forward values, loss and gradient (`MlpSimd.weightedMse` +
 * `backwardSingle`), Adam steps with and without clipping (`Adam.clipGradNorm` + `Adam.step`), Adam's first step by
 * hand (every parameter moves by `lr · sign(g)`), parameters round-tripping, and bad input.
 */
import { Rng } from "@autodidact/core"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Adam, KernelInputError, MlpSimd } from "../src/index.js"
import { Backend, MlpTf } from "../src/tfjs.js"
import { close, thrown } from "./helpers.js"

const { tf } = await Backend.load({ force: "cpu" })

const sizes = { obsDim: 5, hidden: 7, numActions: 3 }
const B = 9
const P = MlpSimd.numParamsSingle(sizes)
const rng = Rng.make(11)
const uniform = (n: number, lo: number, hi: number) => Float32Array.from({ length: n }, () => rng.uniform(lo, hi))
const params = uniform(P, -0.6, 0.6)
const x = uniform(B * sizes.obsDim, -1, 1)
const target = uniform(B * sizes.numActions, -2, 2)
const weight = uniform(B, 0.1, 3)
const mask = Float32Array.from({ length: B * sizes.numActions }, (_, k) => ((k * 7) % 5 === 0 ? 0 : 1))
const batch: MlpTf.Batch = { x, target, mask, weight, batch: B }

/** Loss and gradient by the SIMD MLP: outputs masked, weighted MSE, dPred masked, backward (Deep CFR's recipe). */
const simdLossAndGradient = (p: Float32Array): { loss: number; grad: Float64Array } => {
  const ws = MlpSimd.make(sizes, B)
  const pred = new Float64Array(B * sizes.numActions)
  MlpSimd.forwardSingle(ws, p, x, B, undefined, 0, pred)
  for (let k = 0; k < pred.length; k++) pred[k] = pred[k]! * mask[k]!
  const dPred = new Float64Array(pred.length)
  const loss = MlpSimd.weightedMse(pred, target, weight, B, sizes.numActions, dPred)
  for (let k = 0; k < pred.length; k++) dPred[k] = dPred[k]! * mask[k]!
  const grad = new Float64Array(P)
  MlpSimd.backwardSingle(ws, B, dPred, grad)
  return { loss, grad }
}

const net = MlpTf.make(tf, sizes)
afterAll(() => MlpTf.dispose(net))

describe("MlpTf (TF.js, cpu backend) against MlpSimd + Adam", () => {
  it("has MlpSimd's parameter count and round-trips parameters exactly", () => {
    expect(net.numParams).toBe(P)
    MlpTf.setParams(net, params)
    expect(Array.from(MlpTf.getParams(net))).toEqual(Array.from(params))
  })

  it("forward equals MlpSimd.forwardSingle on the same parameters (1e-5)", () => {
    MlpTf.setParams(net, params)
    const ws = MlpSimd.make(sizes, B)
    const expected = new Float32Array(B * sizes.numActions)
    MlpSimd.forwardSingle(ws, params, x, B, undefined, 0, expected)
    close(MlpTf.forward(net, x, B), expected, 1e-5, 1e-5)
  })

  it("loss and gradient equal MlpSimd.weightedMse + backwardSingle with the mask (1e-5)", () => {
    MlpTf.setParams(net, params)
    const ref = simdLossAndGradient(params)
    const got = MlpTf.gradient(net, batch)
    close([got.loss], [ref.loss], 1e-5, 1e-6)
    close(got.grad, ref.grad, 1e-4, 1e-5)
    expect(ref.grad.some((g) => Math.abs(g) > 1e-2)).toBe(true) // a non-trivial gradient
  })

  it("one Adam step: every parameter moves by lr · sign(g) (by hand), as Adam.step", () => {
    MlpTf.reinit(net, params)
    const lr = 1e-2
    MlpTf.trainStep(net, batch, lr)
    const after = MlpTf.getParams(net)
    const { grad, loss } = simdLossAndGradient(params)
    close([MlpTf.lastLoss(net)], [loss], 1e-5, 1e-6)
    // first step: m̂ = g, v̂ = g², update lr · g / (|g| + ε)
    for (let k = 0; k < P; k++) {
      if (Math.abs(grad[k]!) < 1e-4) continue
      expect(Math.abs(after[k]! - (params[k]! - lr * Math.sign(grad[k]!)))).toBeLessThan(1e-6)
    }
    const expected = params.slice()
    Adam.step(Adam.make(P), expected, grad, lr)
    close(after, expected, 1e-5, 1e-6)
  })

  it("three clipped Adam steps equal Adam.clipGradNorm + Adam.step (1e-5)", () => {
    MlpTf.reinit(net, params)
    const expected = params.slice()
    const opt = Adam.make(P)
    for (let s = 0; s < 3; s++) {
      MlpTf.trainStep(net, batch, 0.05, 0.1)
      const { grad } = simdLossAndGradient(expected)
      expect(Adam.clipGradNorm(grad, 0.1)).toBeGreaterThan(0.1) // the clip acts
      Adam.step(opt, expected, grad, 0.05)
    }
    expect(net.step).toBe(3)
    close(MlpTf.getParams(net), expected, 1e-5, 1e-5)
    MlpTf.resetOptimizer(net)
    expect([net.step, Math.max(...(net.m.dataSync() as Float32Array)), Math.max(...(net.v.dataSync() as Float32Array))]).toEqual([0, 0, 0])
  })

  it("bad input: typed errors naming the input and value", () => {
    const e1 = thrown(() => MlpTf.setParams(net, new Float32Array(P - 1)))
    expect(e1).toBeInstanceOf(KernelInputError)
    expect([e1.input, e1.shape]).toEqual(["params", `[${P - 1}]`])
    const e2 = thrown(() => MlpTf.make(tf, { ...sizes, hidden: 0 }))
    expect([e2.input, e2.detail]).toEqual(["hidden", "must be a positive integer, got 0"])
    const e3 = thrown(() => MlpTf.trainStep(net, { ...batch, weight: new Float32Array(2) }, 0.1))
    expect(e3.input).toBe("weight")
    const e4 = thrown(() => MlpTf.trainStep(net, batch, Number.NaN))
    expect([e4.input, e4.detail]).toEqual(["lr", "must be a positive number, got NaN"])
  })
})

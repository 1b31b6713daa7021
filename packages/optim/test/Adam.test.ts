import { describe, expect, it } from "@effect/vitest"
import { Adam } from "../src/index.js"

describe("Adam (PyTorch rule)", () => {
  it("two hand-computed steps", () => {
    const s = Adam.make(2, { eps: 1e-5 })
    const p = Float32Array.of(1, -1)
    // step 1, g = (0.5, -2): m = 0.1·g, v = 0.001·g²; m̂ = g, √v̂ = |g| → Δ = −lr · g / (|g| + ε)
    Adam.step(s, p, Float64Array.of(0.5, -2), 0.1)
    expect(p[0]).toBeCloseTo(1 - 0.1 * 0.5 / (0.5 + 1e-5), 6)
    expect(p[1]).toBeCloseTo(-1 + 0.1 * 2 / (2 + 1e-5), 6)
    // step 2, g = (0.5, 0): m = 0.9·0.05 + 0.05 = 0.095, v = 0.999·0.00025 + 0.001·0.25 = 0.00049975
    // m̂ = 0.095 / 0.19 = 0.5, v̂ = 0.00049975 / (1 − 0.999²) = 0.00049975 / 0.001999 = 0.25 → Δ = −0.1 · 0.5 / (0.5 + ε)
    const before = p[0]!
    Adam.step(s, p, Float64Array.of(0.5, 0), 0.1)
    expect(p[0]! - before).toBeCloseTo(-0.1 * 0.5 / (0.5 + 1e-5), 6)
    expect(s.step).toBe(2)
  })

  it("ε = 1e-5 is added after the square root of the bias-corrected second moment (Kingma & Ba, Algorithm 1; torch.optim.Adam)", () => {
    // g = 1e-5 on the first step: m̂ = g, √v̂ = |g| = 1e-5 → Δ = −lr · 1e-5 / (1e-5 + 1e-5) = −lr / 2 exactly in reals;
    // ε inside the root (√(v̂ + ε)) would give −lr · 1e-5 / √(1e-10 + 1e-5) ≈ −0.00316 · lr instead
    const s = Adam.make(1, { eps: 1e-5 })
    const p = Float32Array.of(0)
    Adam.step(s, p, Float64Array.of(1e-5), 0.01)
    expect(p[0]).toBeCloseTo(-0.005, 7)
    // defaults are PyTorch's
    expect([s.beta1, s.beta2, Adam.make(1).eps]).toEqual([0.9, 0.999, 1e-8])
  })

  it("clipGradNorm scales to the max norm like clip_grad_norm_ and leaves small gradients alone", () => {
    const g = Float64Array.of(3, 4)
    expect(Adam.clipGradNorm(g, 1)).toBe(5)
    expect(g[0]).toBeCloseTo(3 / (5 + 1e-6), 12)
    expect(g[1]).toBeCloseTo(4 / (5 + 1e-6), 12)
    const small = Float64Array.of(0.1, 0.2)
    Adam.clipGradNorm(small, 1)
    expect(Array.from(small)).toEqual([0.1, 0.2])
  })
})

import { Rng } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import { Kl } from "../src/index.js"
import { close, thrown } from "./helpers.js"

describe("Kl (hand-computed)", () => {
  it("k1 = −log r, k2 = ½ (log r)², k3 = r − 1 − log r with log r = log p − log q", () => {
    const logProbs = [Math.log(0.5), Math.log(0.25)]
    const otherLogProbs = [Math.log(0.25), Math.log(0.5)] // log r = −ln 2, +ln 2
    const l = Math.LN2
    close(Kl.estimateSync({ logProbs, otherLogProbs, estimator: "k1" }).values, [l, -l])
    close(Kl.estimateSync({ logProbs, otherLogProbs, estimator: "k2" }).values, [0.5 * l * l, 0.5 * l * l])
    close(Kl.estimateSync({ logProbs, otherLogProbs, estimator: "k3" }).values, [0.5 - 1 + l, 2 - 1 - l])
    expect(Kl.estimateSync({ logProbs, otherLogProbs, estimator: "k3" }).mean).toBeCloseTo((0.5 - 1 + l + 1 - l) / 2, 12)
  })
})

describe("Kl (unbiasedness on a sampled case)", () => {
  it("k1 and k3 average to KL(q‖p); k2 is close for nearby distributions; k3 ≥ 0 always", () => {
    const q = [0.5, 0.3, 0.2]
    const p = [0.4, 0.35, 0.25]
    const exact = q.reduce((s, qi, i) => s + qi * Math.log(qi / p[i]!), 0) // ≈ 0.0200
    const rng = Rng.make(5)
    const n = 200_000
    const logProbs = new Float64Array(n)
    const otherLogProbs = new Float64Array(n)
    for (let k = 0; k < n; k++) {
      const x = rng.categorical(q)
      logProbs[k] = Math.log(q[x]!)
      otherLogProbs[k] = Math.log(p[x]!)
    }
    const k1 = Kl.estimateSync({ logProbs, otherLogProbs, estimator: "k1" })
    const k2 = Kl.estimateSync({ logProbs, otherLogProbs, estimator: "k2" })
    const k3 = Kl.estimateSync({ logProbs, otherLogProbs, estimator: "k3" })
    // k1's per-sample std here is ≈ 0.2, so its standard error is ≈ 4.5e-4; allow 4 of them
    expect(Math.abs(k1.mean - exact)).toBeLessThan(2e-3)
    expect(Math.abs(k3.mean - exact)).toBeLessThan(5e-4)
    expect(Math.abs(k2.mean - exact)).toBeLessThan(2e-3)
    expect(k3.values.reduce((m, x) => Math.min(m, x), Infinity)).toBeGreaterThanOrEqual(0)
  })
})

describe("Kl (bad input)", () => {
  it("length mismatch and NaN name the estimator", () => {
    const e = thrown(() => Kl.estimateSync({ logProbs: [0, 0], otherLogProbs: [0], estimator: "k3" }))
    expect([e.kernel, e.input, e.reason]).toEqual(["Kl.k3", "otherLogProbs", "shape"])
    expect(thrown(() => Kl.estimateSync({ logProbs: [0, -Infinity], otherLogProbs: [0, 0], estimator: "k1" })).reason).toBe("non-finite")
  })
})

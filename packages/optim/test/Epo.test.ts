import { describe, expect, it } from "@effect/vitest"
import * as Epo from "../src/estimators/Epo.js"

describe("Epo", () => {
  it("penalizes entropy outside [κ_l·H̄, κ_r·H̄] by its deviation from H̄", () => {
    expect(Epo.penalty(0.5, 1, Epo.defaults)).toEqual({ value: 0.05, slope: -0.1 })
    expect(Epo.penalty(1, 1, Epo.defaults)).toEqual({ value: 0, slope: 0 })
    expect(Epo.penalty(1.19, 1, Epo.defaults)).toEqual({ value: 0, slope: 0 })
    const above = Epo.penalty(1.5, 1, Epo.defaults)
    expect(above.value).toBeCloseTo(0.05, 12)
    expect(above.slope).toBe(0.1)
  })

  it("keeps a per-turn history of batch-mean entropies", () => {
    const h = Epo.makeHistory()
    expect(Epo.average(h, 0)).toBeUndefined()
    Epo.observe(h, [[1, 1], [1, 3]]) // turn means 1 and 2
    Epo.observe(h, [[3]]) // turn 0 mean 3
    expect(Epo.average(h, 0)).toBe(2)
    expect(Epo.average(h, 1)).toBe(2)
    expect(Epo.average(h, 2)).toBeUndefined()
  })

  it("phase-based weight: 1 → 0.8 slowly, then toward 0 quickly", () => {
    expect(Epo.weight(0, 100)).toBe(1)
    expect(Epo.weight(25, 100)).toBeCloseTo(0.873576, 6) // 1 − 0.2(1 − e^{−1})
    expect(Epo.weight(50, 100)).toBeCloseTo(0.827067, 6) // 1 − 0.2(1 − e^{−2})
    expect(Epo.weight(75, 100)).toBeCloseTo(0.178504, 6) // 0.8 e^{−1.5}
    expect(Epo.weight(100, 100)).toBeCloseTo(0.039830, 6) // 0.8 e^{−3}
    expect(Epo.weight(7, 0)).toBe(1)
  })

  it("names the first invalid option", () => {
    expect(Epo.invalidOption(Epo.defaults)).toBeUndefined()
    expect(Epo.invalidOption({ ...Epo.defaults, high: 0.5 })?.[0]).toBe("high")
    expect(Epo.invalidOption({ ...Epo.defaults, coef: NaN })?.[0]).toBe("coef")
  })
})

import { describe, expect, it } from "@effect/vitest"
import * as Libm from "../src/Libm.js"

// [x, sin x, cos x] from CPython on glibc 2.36 (x86-64, FMA):
//   python3 -c "import math; print([(x, math.sin(x), math.cos(x)) for x in XS])"
// chosen where V8's Math.sin (and, for the first six, Math.cos) give a different last bit.
const GLIBC: ReadonlyArray<readonly [number, number, number]> = [
  [-0.21115128287518103, -0.2095857516890708, 0.9777902702977398],
  [-0.23440775681047443, -0.232266979715647, 0.9726520704413121],
  [-0.18512449758974714, -0.1840689052962502, 0.9829133421126403],
  [0.14450245191934968, 0.14400008508173456, 0.9895776753223838],
  [0.2025990395460437, 0.20121588871492715, 0.9795469187990241],
  [0.13517251798671093, 0.13476125730631983, 0.9908780972093488],
  [-0.11338715139353406, -0.1131443444506022, 0.9935785612214283],
  [-0.11770837084093183, -0.11743674572293647, 0.9930803647006653],
  [0.10401001353241474, 0.10382258345112175, 0.9945958330726783]
]

describe("Libm", () => {
  it("matches glibc's sin/cos bit for bit where Math.sin/cos do not", () => {
    let mathDiffers = 0
    for (const [x, s, c] of GLIBC) {
      expect(Libm.sin(x)).toBe(s)
      expect(Libm.cos(x)).toBe(c)
      if (Math.sin(x) !== s) mathDiffers++
    }
    expect(mathDiffers).toBe(GLIBC.length)
  })

  it("is within one ulp of Math.sin/cos on a grid, exact at 0, odd/even", () => {
    for (let x = -0.85; x <= 0.85; x += 0.00137) {
      expect(Math.abs(Libm.sin(x) - Math.sin(x))).toBeLessThanOrEqual(2.3e-16)
      expect(Math.abs(Libm.cos(x) - Math.cos(x))).toBeLessThanOrEqual(2.3e-16)
      expect(Libm.sin(-x)).toBe(-Libm.sin(x))
      expect(Libm.cos(-x)).toBe(Libm.cos(x))
    }
    expect(Libm.sin(0)).toBe(0)
    expect(Libm.cos(0)).toBe(1)
    expect(Libm.sin(2)).toBe(Math.sin(2))
    expect(Number.isNaN(Libm.cos(Number.NaN))).toBe(true)
  })

  it("fma rounds once: (1 + 2^-30)^2 - (1 + 2^-29) = 2^-60", () => {
    const a = 1 + 2 ** -30
    expect(Libm.fma(a, a, -(1 + 2 ** -29))).toBe(2 ** -60)
    expect(a * a - (1 + 2 ** -29)).toBe(0) // the unfused expression loses it
  })
})

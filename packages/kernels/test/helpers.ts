import { expect } from "@effect/vitest"

/** |actual − expected| ≤ atol + rtol · |expected| elementwise (−Infinity must match exactly). */
export const close = (actual: ArrayLike<number>, expected: ArrayLike<number>, rtol = 1e-5, atol = 1e-6): void => {
  expect(actual.length).toBe(expected.length)
  for (let k = 0; k < expected.length; k++) {
    const a = actual[k]!
    const e = expected[k]!
    if (a === e) continue
    if (!(Math.abs(a - e) <= atol + rtol * Math.abs(e))) throw new Error(`index ${k}: ${a} vs ${e} (rtol ${rtol}, atol ${atol})`)
  }
}

/** The thrown error of `f` (fails the test when it does not throw). */
export const thrown = (f: () => unknown): any => {
  try {
    f()
  } catch (e) {
    return e
  }
  throw new Error("expected a throw")
}

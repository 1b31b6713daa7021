/** Independent (C)CE checks for tests: enumerate joint actions as tuples and recompute every incentive constraint. */
import type { PayoffTensor } from "../src/normalform/PayoffTensor.js"

export const worstViolation = (g: PayoffTensor, sigma: ArrayLike<number>, kind: "ce" | "cce"): number => {
  const shape = g.shape
  let joints: Array<Array<number>> = [[]]
  for (const k of shape) joints = joints.flatMap((j) => Array.from({ length: k }, (_, a) => [...j, a]))
  const flat = (a: ReadonlyArray<number>) => a.reduce((acc, x, i) => acc * shape[i]! + x, 0)
  let worst = -Infinity
  for (let p = 0; p < shape.length; p++) {
    for (let dev = 0; dev < shape[p]!; dev++) {
      const recs = kind === "ce" ? Array.from({ length: shape[p]! }, (_, a) => a) : [-1]
      for (const rec of recs) {
        if (rec === dev) continue
        let gain = 0
        for (const a of joints) {
          if (rec >= 0 && a[p] !== rec) continue
          const b = [...a]
          b[p] = dev
          gain += sigma[flat(a)]! * (g.payoffs[p]![flat(b)]! - g.payoffs[p]![flat(a)]!)
        }
        worst = Math.max(worst, gain)
      }
    }
  }
  return worst
}

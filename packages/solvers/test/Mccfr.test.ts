import { describe, expect, it } from "@effect/vitest"
import { KuhnPoker } from "@autodidact/envs"
import * as Exploitability from "../src/evaluation/Exploitability.js"
import * as GameTree from "../src/tree/GameTree.js"
import * as Mccfr from "../src/regret/Mccfr.js"
import { tinyGame } from "./TinyGame.js"

const kuhn = GameTree.compile(KuhnPoker.make())
const KUHN_UNIFORM_NASHCONV = 11 / 12

describe("Mccfr", () => {
  it("external sampling: Kuhn NashConv falls from 11/12 to below 0.05 in 10,000 iterations", () => {
    const solver = Mccfr.make(kuhn, { sampling: "es", seed: 1 })
    solver.run(10_000)
    expect(Exploitability.nashConvOnTree(kuhn, solver.averageProbabilities())).toBeLessThan(0.05)
  })

  it("outcome sampling (ε = 0.6): Kuhn NashConv falls below 0.2 in 10,000 iterations", () => {
    const solver = Mccfr.make(kuhn, { sampling: "os", seed: 1 })
    expect(solver.explorationEpsilon).toBe(0.6)
    solver.run(10_000)
    expect(Exploitability.nashConvOnTree(kuhn, solver.averageProbabilities())).toBeLessThan(0.2 * KUHN_UNIFORM_NASHCONV)
  })

  it("both samplings solve a user-defined game (uniform NashConv 0.375)", () => {
    const tree = GameTree.compile(tinyGame)
    for (const sampling of ["es", "os"] as const) {
      const solver = Mccfr.make(tree, { sampling, seed: 7 })
      solver.run(5000)
      const avg = solver.averageProbabilities()
      expect(Exploitability.nashConvOnTree(tree, avg), sampling).toBeLessThan(0.05)
      expect(avg[0]).toBeCloseTo(0.4, 1)
    }
  })

  it("is reproducible from its seed and differs across seeds", () => {
    for (const sampling of ["es", "os"] as const) {
      const run = (seed: number) => {
        const s = Mccfr.make(kuhn, { sampling, seed })
        s.run(200)
        return Array.from(s.state.regrets)
      }
      expect(run(3)).toEqual(run(3))
      expect(run(3)).not.toEqual(run(4))
    }
  })

  it("starts from OpenSpiel's 1e-6 regrets and average sums (uniform policies)", () => {
    const solver = Mccfr.make(kuhn)
    expect(Array.from(solver.state.regrets).every((r) => r === 1e-6)).toBe(true)
    expect(Array.from(solver.averageProbabilities()).every((p) => p === 0.5)).toBe(true)
  })
})

import { describe, expect, it } from "@effect/vitest"
import { KuhnPoker, LeducPoker } from "@autodidact/envs"
import * as BestResponse from "../src/evaluation/BestResponse.js"
import * as Cfr from "../src/regret/Cfr.js"
import * as Exploitability from "../src/evaluation/Exploitability.js"
import * as GameTree from "../src/tree/GameTree.js"
import { tinyGame } from "./TinyGame.js"

const kuhn = GameTree.compile(KuhnPoker.make())
const value0 = (tree: GameTree.GameTree, probs: Float64Array) => BestResponse.expectedReturnsOnTree(tree, probs)[0]!

describe("Cfr", () => {
  it("vanilla CFR (alternating, as OpenSpiel): after 300 iterations player 0's value is within 1e-3 of -1/18", () => {
    const solver = Cfr.make(kuhn)
    solver.run(300)
    expect(Math.abs(value0(kuhn, solver.averageProbabilities()) + 1 / 18)).toBeLessThan(1e-3)
    expect(Exploitability.nashConvOnTree(kuhn, solver.averageProbabilities())).toBeLessThan(0.01)
  })

  it("CFR+: within 200 iterations value within 1e-3 of -1/18 and NashConv below 1e-2", () => {
    const solver = Cfr.make(kuhn, { variant: "cfr+" })
    solver.run(200)
    const avg = solver.averageProbabilities()
    expect(Math.abs(value0(kuhn, avg) + 1 / 18)).toBeLessThan(1e-3)
    expect(Exploitability.nashConvOnTree(kuhn, avg)).toBeLessThan(1e-2)
    // regret matching+ keeps regrets non-negative
    expect(solver.state.regrets.every((r) => r >= 0)).toBe(true)
  })

  it("the first iteration from uniform: hand-computed regrets of the tiny game", () => {
    const tree = GameTree.compile(tinyGame)
    const solver = Cfr.make(tree, { alternatingUpdates: false })
    solver.run(1)
    // σ uniform. Player 0 (reach of chance 0.75): v(H) = 0.5, v(T) = 0, v = 0.25 → regrets 0.75·(0.25, −0.25).
    // Player 1 values (−u): v(H) = −0.5·2 + 0.5·1 = −0.5, v(T) = 0.5·1 − 0.5·1 = 0, v = −0.25 → 0.75·(−0.25, 0.25).
    expect(Array.from(solver.state.regrets)).toEqual([0.1875, -0.1875, -0.1875, 0.1875])
    expect(Array.from(solver.strategy)).toEqual([1, 0, 0, 1])
    // the average after one iteration is the (reach-weighted) uniform policy
    expect(Array.from(solver.averageProbabilities())).toEqual([0.5, 0.5, 0.5, 0.5])
  })

  it("alternating updates use player 0's new policy in player 1's walk", () => {
    const tree = GameTree.compile(tinyGame)
    const solver = Cfr.make(tree)
    solver.run(1)
    // player 0 as above; then player 1 faces σ0 = (1, 0): v(H) = −2, v(T) = 1, v = −0.5 → 0.75·(−1.5, 1.5)
    expect(Array.from(solver.state.regrets)).toEqual([0.1875, -0.1875, -1.125, 1.125])
  })

  it("every variant solves a user-defined game (both players → 0.4 on H, value 0.15)", () => {
    const tree = GameTree.compile(tinyGame)
    for (const variant of Cfr.variants) {
      for (const alternatingUpdates of [true, false]) {
        // VAD-CFR with simultaneous updates cycles on this game (NashConv 0.28 after 2000 iterations, measured; the
        // paper's rules were found with OpenSpiel's alternating updates); its own tests cover that mode on Kuhn
        if (variant === "vad-cfr" && !alternatingUpdates) continue
        const solver = Cfr.make(tree, { variant, alternatingUpdates })
        solver.run(2000)
        const avg = solver.averageProbabilities()
        // uniform play has NashConv 0.375 here; simultaneous updates converge at the slower O(1/√T) rate, as does
        // CFR-BR's average (its walks are always against best responses, whatever alternatingUpdates says)
        const slow = !alternatingUpdates || variant === "cfr-br"
        const bound = slow ? 0.05 : 2e-3
        const digits = slow ? 1 : 2
        expect(Exploitability.nashConvOnTree(tree, avg), `${variant} alt=${alternatingUpdates}`).toBeLessThan(bound)
        expect(avg[0]).toBeCloseTo(0.4, digits)
        expect(avg[2]).toBeCloseTo(0.4, digits)
        expect(value0(tree, avg)).toBeCloseTo(0.15, digits)
      }
    }
  })

  it("LCFR and DCFR reach NashConv < 1e-3 on Kuhn within 1000 iterations; faster than vanilla CFR", () => {
    const nc = (variant: Cfr.Variant, n: number) => {
      const s = Cfr.make(kuhn, { variant })
      s.run(n)
      return Exploitability.nashConvOnTree(kuhn, s.averageProbabilities())
    }
    expect(nc("lcfr", 1000)).toBeLessThan(1e-3)
    expect(nc("dcfr", 1000)).toBeLessThan(1e-3)
    expect(nc("dcfr", 300)).toBeLessThan(nc("cfr", 300))
  })

  it("Leduc poker: CFR+ drives NashConv below 1e-3 within 1000 iterations", () => {
    const tree = GameTree.compile(LeducPoker.make())
    const solver = Cfr.make(tree, { variant: "cfr+" })
    solver.run(1000)
    expect(Exploitability.nashConvOnTree(tree, solver.averageProbabilities())).toBeLessThan(1e-3)
  })

  it("3-player Kuhn: NashConv of CFR's average policy decreases, below 0.01 after 1000 iterations", () => {
    const tree = GameTree.compile(KuhnPoker.make({ players: 3 }))
    const solver = Cfr.make(tree)
    const curve: Array<number> = []
    for (const n of [10, 90, 900]) {
      solver.run(n)
      curve.push(Exploitability.nashConvOnTree(tree, solver.averageProbabilities()))
    }
    expect(curve[1]!).toBeLessThan(curve[0]!)
    expect(curve[2]!).toBeLessThan(curve[1]!)
    expect(curve[2]!).toBeLessThan(0.01)
  })

  it("average and current policies are probability vectors keyed by info state", () => {
    const solver = Cfr.make(kuhn, { variant: "dcfr" })
    solver.run(50)
    for (const policy of [solver.averagePolicy(), solver.currentPolicy()]) {
      for (const key of kuhn.infoKeys) {
        const probs = policy.actionProbabilities(key)!.map(([, p]) => p)
        expect(probs.every((p) => p >= 0)).toBe(true)
        expect(probs.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12)
      }
    }
    // with the Jack, player 0 should rarely bet at equilibrium (α ≤ 1/3)
    expect(solver.averagePolicy().probability("0", 1)!).toBeLessThan(0.34)
  })
})

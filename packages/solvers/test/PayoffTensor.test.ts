import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Equilibrium from "../src/normalform/Equilibrium.js"
import * as PayoffTensor from "../src/normalform/PayoffTensor.js"

const rps = PayoffTensor.zeroSum([[0, -1, 1], [1, 0, -1], [-1, 1, 0]])

describe("PayoffTensor", () => {
  it("indexes row-major with the last player fastest", () => {
    const shape = [2, 3, 4]
    expect(PayoffTensor.strides(shape)).toEqual([12, 4, 1])
    expect(PayoffTensor.indexOf(shape, [1, 2, 3])).toBe(23)
    for (let i = 0; i < 24; i++) expect(PayoffTensor.indexOf(shape, PayoffTensor.actionsOf(shape, i))).toBe(i)
    const g = PayoffTensor.fromFunction(shape, ([a, b, c]) => [100 * a! + 10 * b! + c!, 0, 0])
    expect(g.payoffs[0]![PayoffTensor.indexOf(shape, [1, 2, 3])]).toBe(123)
  })

  it.effect("make names the player, index and value of a bad payoff, wrong length or empty strategy set", () =>
    Effect.gen(function* () {
      const nan = yield* Effect.flip(PayoffTensor.make([2, 2], [[0, 0, 0, 0], [0, Number.NaN, 0, 0]]))
      expect(nan).toMatchObject({ _tag: "InvalidPayoffTensorError", player: 1, index: 1 })
      const inf = yield* Effect.flip(PayoffTensor.make([2], [[0, Infinity]]))
      expect(inf).toMatchObject({ player: 0, index: 1, value: Infinity })
      const len = yield* Effect.flip(PayoffTensor.make([2, 2], [[0, 0, 0, 0], [0, 0, 0]]))
      expect(len).toMatchObject({ player: 1, value: 3 })
      const empty = yield* Effect.flip(PayoffTensor.make([2, 0], [[], []]))
      expect(empty.player).toBe(1)
      expect(empty.message).toContain("empty strategy set")
      const count = yield* Effect.flip(PayoffTensor.make([2, 2], [[0, 0, 0, 0]]))
      expect(count.message).toContain("expected 2 payoff arrays")
      expect(() => PayoffTensor.fromMatrices([[1, 2]], [[1]])).toThrow(/row 0 has 1 entries/)
    }))

  it("restrict builds the meta-game of a population", () => {
    const sub = PayoffTensor.restrict(rps, [[2, 0], [1]])
    expect(sub.shape).toEqual([2, 1])
    expect(Array.from(sub.payoffs[0]!)).toEqual([1, -1]) // (S, P) = 1, (R, P) = -1
    expect(() => PayoffTensor.restrict(rps, [[0], []])).toThrow(/empty strategy set/)
  })
})

describe("Equilibrium", () => {
  it("NashConv and Nash gap of rock-paper-scissors profiles", () => {
    const u = [1 / 3, 1 / 3, 1 / 3]
    expect(Equilibrium.nashConv(rps, [u, u])).toBeLessThan(1e-15)
    expect(Equilibrium.nashConv(rps, [[1, 0, 0], [1, 0, 0]])).toBe(2)
    expect(Equilibrium.nashGap(rps, [[1, 0, 0], [0, 1, 0]])).toBe(2) // Rock vs Paper: row gains 2 by Scissors
  })

  it("CE/CCE gaps: chicken's pure NE is a CE, (Dare, Dare) is not; CCE gap <= CE gap", () => {
    const chicken = PayoffTensor.fromMatrices([[0, 7], [2, 6]], [[0, 2], [7, 6]])
    expect(Equilibrium.ceGap(chicken, [0, 1, 0, 0])).toBe(0)
    expect(Equilibrium.ceGap(chicken, [1, 0, 0, 0])).toBe(2) // swerving against Dare gains 2
    expect(Equilibrium.cceGap(chicken, [1, 0, 0, 0])).toBe(2)
    const mixed = [0.4, 0.1, 0.3, 0.2]
    expect(Equilibrium.cceGap(chicken, mixed)).toBeLessThanOrEqual(Equilibrium.ceGap(chicken, mixed) + 1e-15)
    expect(() => Equilibrium.ceGap(chicken, [1, 0])).toThrow(/length 2, expected 4/)
  })

  it("marginals and product distributions are inverse on product profiles", () => {
    const d = Equilibrium.productDistribution([2, 3], [[0.25, 0.75], [0.2, 0.3, 0.5]])
    expect(Array.from(Equilibrium.marginal([2, 3], d, 1)).map((x) => +x.toFixed(12))).toEqual([0.2, 0.3, 0.5])
    expect(Array.from(Equilibrium.marginal([2, 3], d, 0)).map((x) => +x.toFixed(12))).toEqual([0.25, 0.75])
  })
})

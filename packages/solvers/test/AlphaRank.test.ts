/**
 * α-Rank (Omidshafiei et al. 2019, arXiv:1903.01373) against OpenSpiel's published test values, hand-computed
 * chains, the paper's small examples (Rock–Paper–Scissors, Battle of the Sexes) and the chain's defining properties.
 */
import { InvalidOptionError } from "@autodidact/core"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { AlphaRank, AlphaRankError, CheckMetaSolver, MetaSolvers, PayoffTensor, Psro } from "../src/index.js"
import { Highs } from "../src/lp.js"

/** A symmetric two-player game from the row player's matrix (the column player's payoffs are its transpose). */
const symmetric = (M: ReadonlyArray<ReadonlyArray<number>>) => PayoffTensor.fromMatrices(M, M[0]!.map((_, j) => M.map((row) => row[j]!)))

const rps = symmetric([[0, -1, 1], [1, 0, -1], [-1, 1, 0]])
const battleOfTheSexes = PayoffTensor.fromMatrices([[3, 0], [0, 2]], [[2, 0], [0, 3]])
const prisonersDilemma = PayoffTensor.fromMatrices([[3, 0], [5, 1]], [[3, 5], [0, 1]])
const sigmoid = (x: number) => 1 / (1 + Math.exp(-x))

describe("AlphaRank", () => {
  it("reproduces OpenSpiel's test_stationary_distribution (Han et al. 2013 payoffs, m 20, α 0.1, general fitness)", () => {
    // open_spiel/python/egt/alpharank_test.py: single population, use_local_selection_model=False
    const [r, t, p, s, delta, eps] = [1, 2, 0, -1, 4, 0.25]
    const M = [
      [r - eps / 2, r - eps, 0, s + delta - eps, r - eps],
      [r, r, s, s, s],
      [0, t, p, p, p],
      [t - delta, t, p, p, p],
      [r, t, p, p, p]
    ]
    const result = AlphaRank.alphaRank(symmetric(M), { populations: "single", populationSize: 20, alpha: 0.1, localSelection: false })
    const expected = [0.40966787, 0.07959841, 0.20506998, 0.08505983, 0.2206039]
    expected.forEach((x, i) => expect(result.stationary[i]).toBeCloseTo(x, 6))
    expect(result.ranking.map((x) => x.index)).toEqual([0, 4, 2, 3, 1])
  })

  it("the constant-sum closed form equals the general finite-population formula (Rock–Paper–Scissors, m 20, α 0.1)", () => {
    // the general formula written out directly: ρ = 1 / (1 + Σ_{l=1}^{m−1} Π_{p=1}^{l} exp(−α (f_r(p) − f_s(m − p))))
    const M = [[0, -1, 1], [1, 0, -1], [-1, 1, 0]]
    const [m, alpha] = [20, 0.1]
    const fit = (pop: number, mine: number, other: number) => ((pop - 1) * M[mine]![mine]! + (m - pop) * M[mine]![other]!) / (m - 1)
    const general = (r: number, s: number) => {
      let sum = 0
      for (let l = 1; l < m; l++) {
        let prod = 1
        for (let q = 1; q <= l; q++) prod *= Math.exp(-alpha * (fit(q, r, s) - fit(m - q, s, r)))
        sum += prod
      }
      return 1 / (1 + sum)
    }
    const result = AlphaRank.alphaRank(rps, { populations: "single", populationSize: m, alpha, localSelection: false })
    for (let s = 0; s < 3; s++) for (let r = 0; r < 3; r++) if (r !== s) expect(result.fixation[s * 3 + r]).toBeCloseTo(general(r, s), 12)
  })

  it("Rock–Paper–Scissors: every strategy has mass 1/3 and all share rank 1 (the cycle is symmetric)", () => {
    for (const alpha of [0.1, 1, 100]) {
      const result = AlphaRank.alphaRank(rps, { populations: "single", alpha })
      for (const x of result.stationary) expect(x).toBeCloseTo(1 / 3, 12)
      expect(result.ranking.map((x) => x.rank)).toEqual([1, 1, 1])
    }
  })

  it("a hand-computed two-strategy chain: with m = 2 the fixation probability is the logistic σ(u), so π₀ = σ(2)", () => {
    // local selection: u(1 → 0) = α (M[0][1] − M[1][0]) = 2, ρ = (1 − e^{−u}) / (1 − e^{−2u}) = σ(u); η = 1
    const result = AlphaRank.alphaRank(symmetric([[0, 2], [0, 0]]), { populations: "single", populationSize: 2, alpha: 1 })
    expect(result.fixation[1 * 2 + 0]).toBeCloseTo(sigmoid(2), 14)
    expect(result.fixation[0 * 2 + 1]).toBeCloseTo(sigmoid(-2), 14)
    expect(result.stationary[0]).toBeCloseTo(sigmoid(2), 14)
    expect(result.neutralFixation).toBe(1 / 2)
  })

  it("Battle of the Sexes (multi-population): the two pure equilibria split the mass evenly, exactly 1/2 each as α → ∞", () => {
    // α 1, m 50: leaving an equilibrium has probability ~e^{−98}, still representable (at α 100 it is 0: see below)
    const finite = AlphaRank.alphaRank(battleOfTheSexes, { alpha: 1 })
    const at = (r: AlphaRank.Result, a: number, b: number) => r.stationary[PayoffTensor.indexOf([2, 2], [a, b])]!
    // swapping players and strategies maps the game to itself, so the masses of (0,0) and (1,1) are equal
    expect(at(finite, 0, 0)).toBeCloseTo(at(finite, 1, 1), 12)
    expect(at(finite, 0, 0) + at(finite, 1, 1)).toBeGreaterThan(1 - 1e-9)
    expect(() => AlphaRank.alphaRank(battleOfTheSexes)).toThrow(AlphaRankError)
    const infinite = AlphaRank.alphaRank(battleOfTheSexes, { infiniteAlpha: true })
    expect(at(infinite, 0, 0)).toBeCloseTo(0.5, 4)
    expect(at(infinite, 1, 1)).toBeCloseTo(0.5, 4)
    expect(infinite.ranking.slice(0, 2).map((x) => [x.profile, x.rank])).toEqual([[[0, 0], 1], [[1, 1], 1]])
    expect(infinite.epsilon).toBeLessThan(1e-3)
  })

  it("the Prisoner's Dilemma: mutual defection is the only sink of the response graph and takes all the mass", () => {
    for (const options of [{}, { infiniteAlpha: true }, { infiniteAlpha: { epsilon: 1e-6 } }] as const) {
      const result = AlphaRank.alphaRank(prisonersDilemma, options)
      expect(result.ranking[0]!.profile).toEqual([1, 1])
      expect(result.ranking[0]!.mass).toBeGreaterThan(0.999)
      expect(result.marginals.map((m) => m[1])).toEqual([expect.closeTo(1, 3), expect.closeTo(1, 3)])
    }
  })

  it("is a stationary distribution of a row-stochastic chain whose moves change one population's strategy (random 3×4 game)", () => {
    let seed = 7
    const rand = () => ((seed = (seed * 16807) % 2147483647) / 2147483647) * 2 - 1
    const game = PayoffTensor.unsafeMake([3, 4], [Array.from({ length: 12 }, rand), Array.from({ length: 12 }, rand)])
    const result = AlphaRank.alphaRank(game, { alpha: 5, populationSize: 10 })
    const P = 12
    expect(result.states).toBe(P)
    for (let s = 0; s < P; s++) {
      let row = 0
      for (let r = 0; r < P; r++) {
        row += result.transition[s * P + r]!
        const [a, b] = [PayoffTensor.actionsOf([3, 4], s), PayoffTensor.actionsOf([3, 4], r)]
        const changed = a.filter((x, k) => x !== b[k]).length
        if (changed > 1) expect(result.transition[s * P + r]).toBe(0)
        if (changed === 1) expect(result.transition[s * P + r]).toBeCloseTo((1 / 5) * result.fixation[s * P + r]!, 15) // η = 1/((3−1)+(4−1))
      }
      expect(row).toBeCloseTo(1, 14)
    }
    for (let r = 0; r < P; r++) {
      let flow = 0
      for (let s = 0; s < P; s++) flow += result.stationary[s]! * result.transition[s * P + r]!
      expect(flow).toBeCloseTo(result.stationary[r]!, 12)
    }
    expect(result.marginals.map((m) => m.reduce((a, b) => a + b, 0))).toEqual([expect.closeTo(1, 12), expect.closeTo(1, 12)])
  })

  it("extreme payoff gaps neither overflow nor give NaN (the fixation probability is computed in a stable form)", () => {
    expect(AlphaRank.fixation(-800, 50)).toBe(0)
    expect(AlphaRank.fixation(800, 50)).toBe(1)
    expect(AlphaRank.fixation(1e-15, 50)).toBe(1 / 50)
    expect(AlphaRank.fixation(-1, 3)).toBeCloseTo((1 - Math.exp(1)) / (1 - Math.exp(3)), 15)
    const huge = PayoffTensor.fromMatrices([[1e6, 0], [0, 1]], [[1e6, 0], [0, 1]])
    const result = AlphaRank.alphaRank(huge, { alpha: 1e-3 })
    expect(result.stationary.every(Number.isFinite)).toBe(true)
  })

  it("a chain that floating point makes reducible fails with AlphaRankError instead of returning one of its distributions", () => {
    // two strict equilibria 1000 apart at α 100: escaping either has probability e^{−49·10⁵}, exactly 0
    const coordination = PayoffTensor.fromMatrices([[1000, 0], [0, 1000]], [[1000, 0], [0, 1000]])
    expect(() => AlphaRank.alphaRank(coordination)).toThrow(AlphaRankError)
    expect(AlphaRank.alphaRank(coordination, { infiniteAlpha: true }).stationary[0]).toBeCloseTo(0.5, 4)
  })

  it("rejects bad options with InvalidOptionError naming them", () => {
    const option = (f: () => unknown) => {
      try {
        f()
      } catch (e) {
        expect(e).toBeInstanceOf(InvalidOptionError)
        return (e as InvalidOptionError).option
      }
      throw new Error("expected a throw")
    }
    expect(option(() => AlphaRank.alphaRank(rps, { alpha: -1 }))).toBe("alpha")
    expect(option(() => AlphaRank.alphaRank(rps, { alpha: Number.NaN }))).toBe("alpha")
    expect(option(() => AlphaRank.alphaRank(rps, { populationSize: 1 }))).toBe("populationSize")
    expect(option(() => AlphaRank.alphaRank(battleOfTheSexes, { populations: "single" }))).toBe("populations")
    expect(option(() => AlphaRank.alphaRank(rps, { infiniteAlpha: { epsilon: 0.7 } }))).toBe("infiniteAlpha.epsilon")
    expect(() => AlphaRank.alphaRank({ shape: [2, 2], payoffs: [new Float64Array(4), Float64Array.of(0, 0, Number.NaN, 0)] })).toThrow(PayoffTensor.InvalidPayoffTensorError)
  })

  it.effect("as a PSRO meta-solver (MetaSolvers.named(\"alpharank\"), infinite α by default): the marginals, passing CheckMetaSolver; a reducible chain fails typed", () =>
    Effect.gen(function*() {
      const solver = MetaSolvers.named("alpharank")
      const [p0, p1] = yield* solver(prisonersDilemma)
      expect(p0![1]).toBeGreaterThan(0.999)
      expect(p1![1]).toBeGreaterThan(0.999)
      yield* Effect.promise(() => CheckMetaSolver.checkMetaSolver(solver, { name: "alpharank", ...MetaSolvers.claims.alpharank, highs: Highs.layer }))
      const coordination = PayoffTensor.fromMatrices([[1000, 0], [0, 1000]], [[1000, 0], [0, 1000]])
      const exit = yield* Effect.exit(MetaSolvers.named("alpharank", {}, { alpha: 100 })(coordination))
      expect(Exit.isFailure(exit) && JSON.stringify(exit.cause)).toContain("InvalidOptionError")
    }).pipe(Effect.provide(Highs.layer)))

  it.effect("drives PSRO by name (α-PSRO): on Rock–Paper–Scissors the population grows to all three strategies and NashConv reaches 0", () =>
    Effect.gen(function*() {
      const result = yield* Psro.run(rps, { metaSolver: "alpharank", iterations: 10 })
      expect(result.final.populationSizes).toEqual([3, 3])
      expect(result.final.nashConv).toBeLessThan(1e-9)
      const wrong = yield* Effect.exit(Psro.run(rps, { metaSolver: "alpha-rank" as never }))
      expect(Exit.isFailure(wrong) && JSON.stringify(wrong.cause)).toContain("alpharank")
    }).pipe(Effect.provide(Highs.layer)))
})

import { InvalidOptionError } from "@autodidact/core"
import { KuhnPoker, TreeGame } from "@autodidact/envs"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Equilibrium from "../src/normalform/Equilibrium.js"
import * as Exploitability from "../src/evaluation/Exploitability.js"
import * as Highs from "../src/normalform/HighsRuntime.js"
import * as PsroExtensive from "../src/psro/PsroExtensive.js"
import * as ShorPsro from "../src/normalform/ShorPsro.js"
import * as TabularPolicy from "../src/tree/TabularPolicy.js"

/**
 * Player 0 picks L or R at "r"; after L it picks x or y at "s" (so its own reach of "s" depends on its policy);
 * after R player 1 picks u or d at "q". Player 0's returns: Lx = 3, Ly = -1, Ru = 1, Rd = 0; zero-sum.
 */
const twoStep = TreeGame.fromTree("two_step", {
  player: 0,
  infoSet: "r",
  actions: [
    {
      label: "L",
      child: {
        player: 0,
        infoSet: "s",
        actions: [
          { label: "x", child: { terminal: [3, -3] } },
          { label: "y", child: { terminal: [-1, 1] } }
        ]
      }
    },
    {
      label: "R",
      child: {
        player: 1,
        infoSet: "q",
        actions: [
          { label: "u", child: { terminal: [1, -1] } },
          { label: "d", child: { terminal: [0, 0] } }
        ]
      }
    }
  ]
})

/** A policy of `twoStep` from (P(L) at r, P(x) at s, P(u) at q). */
const twoStepPolicy = (pL: number, px: number, pu: number) => {
  const u = TabularPolicy.uniform(twoStep)
  const probs = new Float64Array(u.probabilities.length)
  const set = (key: string, p: number) => {
    const i = u.index.get(key)!
    probs[u.offsets[i]!] = p
    probs[u.offsets[i]! + 1] = 1 - p
  }
  set("r", pL)
  set("s", px)
  set("q", pu)
  return u.withProbabilities(probs)
}

describe("PsroExtensive", () => {
  it.effect("reach-weighted mixture of two policies matches the hand computation (Kuhn's theorem)", () =>
    Effect.gen(function* () {
      // A: L then x (value 3); B: L w.p. 1/4 then y, u w.p. 1 (value 1/4·(-1) + 3/4·1 = 1/2).
      const a = twoStepPolicy(1, 1, 0.2)
      const b = twoStepPolicy(0.25, 0, 1)
      const m = yield* PsroExtensive.mixture(twoStep, [a, b], [0.5, 0.5])
      // r: P(L) = (1 + 1/4) / 2 = 0.625.
      expect(m.probability("r", 0)).toBeCloseTo(0.625, 14)
      // s: own reaches 1 (A) and 1/4 (B): P(x) = (0.5·1·1 + 0.5·0.25·0) / (0.5·1 + 0.5·0.25) = 0.8 (naive: 0.5).
      expect(m.probability("s", 0)).toBeCloseTo(0.8, 14)
      expect(m.probability("s", 1)).toBeCloseTo(0.2, 14)
      // q: player 1's own reach is 1 for both: the plain average (0.2 + 1) / 2 = 0.6.
      expect(m.probability("q", 0)).toBeCloseTo(0.6, 14)
      // Realization equivalence against a fixed opponent (player 1 plays u): the mixture's value for player 0 is
      // 0.625·(0.8·3 + 0.2·(-1)) + 0.375·1 = 1.75 = (3 + 0.5) / 2.
      const opp = twoStepPolicy(0, 0, 1)
      const withOpp = (pol: TabularPolicy.TabularPolicy) => {
        const probs = Float64Array.from(pol.probabilities)
        const q = pol.index.get("q")!
        probs[pol.offsets[q]!] = opp.probability("q", 0)!
        probs[pol.offsets[q]! + 1] = opp.probability("q", 1)!
        return pol.withProbabilities(probs)
      }
      const vA = (yield* Exploitability.expectedReturns(twoStep, withOpp(a)))[0]!
      const vB = (yield* Exploitability.expectedReturns(twoStep, withOpp(b)))[0]!
      const vM = (yield* Exploitability.expectedReturns(twoStep, withOpp(m)))[0]!
      expect(vA).toBeCloseTo(3, 14)
      expect(vB).toBeCloseTo(0.5, 14)
      expect(vM).toBeCloseTo(0.5 * vA + 0.5 * vB, 14) // 1.75; naive averaging gives 1
      // Unequal weights, and a state no weighted member reaches ("s" with P(L) = 0): the weighted average there.
      const m2 = yield* PsroExtensive.mixture(twoStep, [twoStepPolicy(0, 1, 0), twoStepPolicy(0, 0, 0)], [1, 3])
      expect(m2.probability("r", 0)).toBe(0)
      expect(m2.probability("s", 0)).toBeCloseTo(0.25, 14)
      // Weights are normalized: [2, 6] is [0.25, 0.75]; with P(L) = 1 and 0.5: P(x) = 0.25·1 / (0.25 + 0.375) = 0.4.
      const m3 = yield* PsroExtensive.mixture(twoStep, [twoStepPolicy(1, 1, 0), twoStepPolicy(0.5, 0, 0)], [2, 6])
      expect(m3.probability("r", 0)).toBeCloseTo(0.625, 14)
      expect(m3.probability("s", 0)).toBeCloseTo(0.4, 14)
    }))

  it.effect("Kuhn poker, Nash meta-solver: NashConv decreases from 11/12 to 0 (converged after 7 iterations)", () =>
    Effect.gen(function* () {
      const game = KuhnPoker.make()
      const r = yield* PsroExtensive.run(game, { metaSolver: "nash", iterations: 20 })
      const nc = r.history.map((h) => h.nashConv)
      // Measured: 0.91667, 0.83333, 0.33333, 0.27211, 0.16667, 0.10345, 0 (populations 1x1 .. 7x7).
      expect(nc[0]).toBeCloseTo(11 / 12, 12)
      for (let i = 1; i < nc.length; i++) expect(nc[i]!).toBeLessThan(nc[i - 1]!)
      expect(r.stopReason).toBe("converged")
      expect(r.history.length).toBeLessThanOrEqual(10)
      expect(r.final.nashConv).toBeLessThan(1e-9)
      expect(r.final.values[0]).toBeCloseTo(-1 / 18, 9) // Kuhn's game value
      r.history.forEach((h, i) => {
        expect(h.iteration).toBe(i)
        expect(h.populationSizes).toEqual([i + 1, i + 1])
        expect(h.metaGame.shape).toEqual(h.populationSizes)
        // The mixture is realization-equivalent to the meta-strategies: its values are the meta-game's.
        const meta = Equilibrium.expectedPayoffs(h.metaGame, Equilibrium.productDistribution(h.metaGame.shape, h.metaStrategies))
        expect(h.values[0]).toBeCloseTo(meta[0]!, 12)
        expect(h.values[1]).toBeCloseTo(meta[1]!, 12)
      })
      // The reported NashConv is that of the mixture policy in the full game.
      const check = yield* Exploitability.nashConv(game, r.history[3]!.mixture)
      expect(check).toBeCloseTo(r.history[3]!.nashConv, 12)
      expect(r.populations.map((p) => p.length)).toEqual([7, 7])
    }).pipe(Effect.provide(Highs.layer)))

  it.effect("uniform and PRD meta-solvers run on Kuhn poker", () =>
    Effect.gen(function* () {
      const game = KuhnPoker.make()
      const u = yield* PsroExtensive.run(game, { metaSolver: "uniform", iterations: 10 })
      // Measured: 0.91667, 0.625, 0.41667, then no new best response.
      expect(u.history.map((h) => h.nashConv)).toEqual([11 / 12, 0.625, 5 / 12].map((x) => expect.closeTo(x, 9)))
      expect(u.stopReason).toBe("converged")
      for (const x of u.final.metaStrategies) for (const v of x) expect(v).toBeCloseTo(1 / x.length, 14)
      const p = yield* PsroExtensive.run(game, { metaSolver: "prd", prd: { iterations: 5_000 }, iterations: 6 })
      expect(p.history.length).toBeGreaterThan(1)
      expect(p.final.nashConv).toBeLessThan(p.history[0]!.nashConv)
    }).pipe(Effect.provide(Highs.layer)))

  it.effect("SHOR-PSRO: the evaluation meta-solver is reported while the best responses answer the training one", () =>
    Effect.gen(function* () {
      const game = KuhnPoker.make()
      // The same training solver without and with an evaluation solver: the populations grow identically, so the
      // training NashConv of the second run is the first run's NashConv, iteration by iteration.
      const plain = yield* PsroExtensive.run(game, { metaSolver: "shor", iterations: 8 })
      const split = yield* PsroExtensive.run(game, { metaSolver: "shor", evalMetaSolver: "shor-eval", iterations: 8 })
      expect(split.history.length).toBe(plain.history.length)
      split.history.forEach((h, i) => {
        expect(h.populationSizes).toEqual(plain.history[i]!.populationSizes)
        expect(h.trainingNashConv).toBeCloseTo(plain.history[i]!.nashConv, 12)
        expect(plain.history[i]!.trainingNashConv).toBe(plain.history[i]!.nashConv)
        expect(plain.history[i]!.evalMetaStrategies).toBeUndefined()
      })
      // The reported meta-strategy is the evaluation solver's answer to the iteration's meta-game, and the reported
      // NashConv is that of its mixture in the full game.
      const last = split.final
      const expected = yield* ShorPsro.evalMetaSolver()(last.metaGame)
      last.evalMetaStrategies!.forEach((x, p) => x.forEach((v, k) => expect(v).toBeCloseTo(expected[p]![k]!, 12)))
      expect(yield* Exploitability.nashConv(game, last.mixture)).toBeCloseTo(last.nashConv, 12)
      const e = yield* Effect.flip(PsroExtensive.run(game, { metaSolver: "shor", evalMetaSolver: "best" as unknown as "nash" }))
      expect(e._tag).toBe("InvalidOptionError")
      expect(e.message).toContain("evalMetaSolver")
    }).pipe(Effect.provide(Highs.layer)))

  it.effect("a stall stops a stateless meta-solver (\"converged\"), not a stateful one or continueWhenStalled", () =>
    Effect.gen(function* () {
      const game = KuhnPoker.make()
      // uniform stalls after 3 iterations (test above); told to go on, it repeats the same iteration
      const u = yield* PsroExtensive.run(game, { metaSolver: "uniform", iterations: 5, continueWhenStalled: true })
      expect(u.stopReason).toBe("iterations")
      expect(u.history.map((h) => h.populationSizes)).toEqual([[1, 1], [2, 2], [3, 3], [3, 3], [3, 3]])
      expect(u.final.nashConv).toBeCloseTo(5 / 12, 9)
      // shor is stateful: by default it goes on through a stall (it stalled at iteration 6 on Kuhn before)
      const s = yield* PsroExtensive.run(game, { metaSolver: "shor", iterations: 12 })
      expect(s.stopReason).toBe("iterations")
      expect(s.history.length).toBe(12)
      const stopped = yield* PsroExtensive.run(game, { metaSolver: "shor", iterations: 12, continueWhenStalled: false })
      expect(stopped.stopReason).toBe("converged")
      expect(stopped.history.length).toBeLessThan(12)
    }).pipe(Effect.provide(Highs.layer)))

  it.effect("tolerance stops early (the progress callback and interruption are tested once for every PSRO in PsroLoop.test.ts)", () =>
    Effect.gen(function* () {
      const game = KuhnPoker.make()
      const t = yield* PsroExtensive.run(game, { metaSolver: "nash", tolerance: 0.2 })
      expect(t.stopReason).toBe("tolerance")
      expect(t.final.nashConv).toBeLessThanOrEqual(0.2)
    }).pipe(Effect.provide(Highs.layer)))

  it.effect("bad options -> typed errors", () =>
    Effect.gen(function* () {
      const game = KuhnPoker.make()
      const e1 = yield* Effect.flip(PsroExtensive.run(game, { metaSolver: "nash", iterations: 0 }))
      expect(e1).toBeInstanceOf(InvalidOptionError)
      expect(e1.message).toContain("iterations")
      const e2 = yield* Effect.flip(PsroExtensive.run(game, { metaSolver: "nash", tolerance: -1 }))
      expect(e2._tag).toBe("InvalidOptionError")
      const e3 = yield* Effect.flip(PsroExtensive.run(game, { metaSolver: "cfr" as unknown as "nash" }))
      expect(e3._tag).toBe("InvalidOptionError")
      expect(e3.message).toContain("metaSolver")
      const uniform = TabularPolicy.uniform(game)
      const e4 = yield* Effect.flip(PsroExtensive.run(game, { metaSolver: "nash", initialPopulations: [[uniform], []] }))
      expect(e4._tag).toBe("InvalidOptionError")
      const e5 = yield* Effect.flip(PsroExtensive.run(game, { metaSolver: "nash", initialPopulations: [[uniform]] }))
      expect(e5._tag).toBe("InvalidOptionError")
      const e6 = yield* Effect.flip(PsroExtensive.run(game, {
        metaSolver: "nash",
        initialPopulations: [[uniform.withProbabilities(uniform.probabilities.map(() => 0.7))], [uniform]]
      }))
      expect(e6._tag).toBe("InvalidOptionError")
      expect(e6.message).toContain("sum to")
      const e7 = yield* Effect.flip(PsroExtensive.run(game, { metaSolver: "nash", initialPopulations: [[TabularPolicy.uniform(twoStep)], [uniform]] }))
      expect(e7._tag).toBe("PolicyMissingInfoStateError")
      const e8 = yield* Effect.flip(PsroExtensive.run(KuhnPoker.make({ players: 3 }), { metaSolver: "nash" }))
      expect(e8.message).toContain("two-player")
      const a = twoStepPolicy(1, 1, 0)
      for (const w of [[1], [-1, 2], [0, 0], [Number.NaN, 1]]) {
        const e = yield* Effect.flip(PsroExtensive.mixture(twoStep, [a, a], w))
        expect(e._tag).toBe("InvalidOptionError")
      }
    }).pipe(Effect.provide(Highs.layer)))
})

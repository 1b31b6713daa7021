/**
 * CFR-BR (Johanson et al. 2012) with OpenSpiel's `CFRBRSolver` semantics: the NashConv of the average policy after
 * each of the first 5 iterations equals OpenSpiel's `cfr_br_test.py` reference values (from both its C++ and Python
 * solvers) to 1e-10 on Kuhn and Leduc poker.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { KuhnPoker, LeducPoker } from "@autodidact/envs"
import * as BestResponse from "../src/evaluation/BestResponse.js"
import * as Exploitability from "../src/evaluation/Exploitability.js"
import * as Cfr from "../src/regret/Cfr.js"
import * as Solver from "../src/regret/Solver.js"
import * as GameTree from "../src/tree/GameTree.js"

// open_spiel/python/algorithms/cfr_br_test.py, _EXPECTED_EXPLOITABILITIES_CFRBR_KUHN / _LEDUC (NashConv values)
const KUHN = [0.9166666666666666, 0.33333333333333337, 0.3194444444444445, 0.2604166666666667, 0.22666666666666674]
const LEDUC = [4.747222222222222, 4.006867283950617, 3.4090489231017034, 2.8982539553095172, 2.5367193593344504]

describe("CFR-BR", () => {
  for (const [name, game, expected] of [["Kuhn", KuhnPoker.make(), KUHN], ["Leduc", LeducPoker.make(), LEDUC]] as const) {
    it(`${name}: NashConv after iterations 1-5 equals OpenSpiel's to 1e-10`, () => {
      const tree = GameTree.compile(game)
      const solver = Cfr.make(tree, { variant: "cfr-br" })
      const got: Array<number> = []
      for (let i = 0; i < 5; i++) {
        solver.step()
        got.push(Exploitability.nashConvOnTree(tree, solver.averageProbabilities()))
      }
      got.forEach((x, i) => expect(x, `iteration ${i + 1}`).toBeCloseTo(expected[i]!, 10))
    })
  }

  it("Kuhn: after 300 iterations the average policy's value is within 1e-3 of the Nash value −1/18 (OpenSpiel's test)", () => {
    const tree = GameTree.compile(KuhnPoker.make())
    for (const options of [{}, { linearAveraging: true, regretMatchingPlus: true }]) {
      const solver = Cfr.make(tree, { variant: "cfr-br", ...options })
      solver.run(300)
      expect(BestResponse.expectedReturnsOnTree(tree, solver.averageProbabilities())[0]).toBeCloseTo(-1 / 18, 2)
      if (options.regretMatchingPlus === true) expect(solver.state.regrets.every((r) => r >= 0)).toBe(true)
    }
  })

  it.effect("Solver runs it by name (algo \"cfr-br\") and refuses a three-player game with InvalidOptionError naming algo", () =>
    Effect.gen(function*() {
      const result = yield* Solver.solve(KuhnPoker.make(), { algo: "cfr-br", iterations: 5 })
      expect(result.nashConv).toBeCloseTo(KUHN[4]!, 10)
      const error = yield* Effect.flip(Solver.solve(KuhnPoker.make({ players: 3 }), { algo: "cfr-br", iterations: 5 }))
      expect(error._tag).toBe("InvalidOptionError")
      expect((error as { option?: string }).option).toBe("algo")
    }))
})

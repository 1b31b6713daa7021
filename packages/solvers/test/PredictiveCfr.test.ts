/**
 * PCFR+ (Farina, Kroer & Sandholm 2021, arXiv:2007.14358) and PDCFR+ (Xu et al. 2024, arXiv:2404.13891) on the
 * compiled-tree engine, against an independent transcription of the reference implementation's semantics
 * (github.com/rpSebastian/PDCFRPlus `cfr.py`, `pcfr_plus.py`, `pdcfr_plus.py`: a recursive walk over game states with
 * per-information-state dictionaries), and their convergence on Kuhn and Leduc poker.
 */
import { describe, expect, it } from "@effect/vitest"
import { KuhnPoker, LeducPoker } from "@autodidact/envs"
import type { Game, State } from "../src/internal/GameLike.js"
import { Effect } from "effect"
import * as Cfr from "../src/regret/Cfr.js"
import * as Exploitability from "../src/evaluation/Exploitability.js"
import * as Solver from "../src/regret/Solver.js"
import * as GameTree from "../src/tree/GameTree.js"

/** The reference's solver, written out: alternating updates; per info state regrets, instantaneous regrets, reach, cum. */
const reference = (game: Game, variant: "pcfr+" | "pdcfr+", iterations: number) => {
  const alpha = 2.3
  const gamma = variant === "pcfr+" ? 2 : 5
  interface Info { player: number; actions: ReadonlyArray<number>; policy: Map<number, number>; regrets: Map<number, number>; imm: Map<number, number>; cum: Map<number, number>; reach: number }
  const infos = new Map<string, Info>()
  const lookup = (h: State): Info => {
    const p = h.currentPlayer()
    const key = `${h.informationStateString(p)}/${p}`
    let s = infos.get(key)
    if (s === undefined) {
      const actions = h.legalActions()
      const zero = () => new Map(actions.map((a) => [a, 0]))
      s = { player: p, actions, policy: new Map(actions.map((a) => [a, 1 / actions.length])), regrets: zero(), imm: zero(), cum: zero(), reach: 0 }
      infos.set(key, s)
    }
    return s
  }
  const walk = (h: State, traverser: number, myReach: number, oppReach: number): number => {
    if (h.isTerminal()) return h.returns()[traverser]!
    if (h.isChanceNode()) {
      let v = 0
      for (const [a, pr] of h.chanceOutcomes()) v += pr * walk(h.child(a), traverser, myReach, oppReach * pr)
      return v
    }
    const s = lookup(h)
    let v = 0
    if (s.player !== traverser) {
      for (const a of s.actions) v += s.policy.get(a)! * walk(h.child(a), traverser, myReach, oppReach * s.policy.get(a)!)
      return v
    }
    const child = new Map<number, number>()
    for (const a of s.actions) {
      child.set(a, walk(h.child(a), traverser, myReach * s.policy.get(a)!, oppReach))
      v += s.policy.get(a)! * child.get(a)!
    }
    for (const a of s.actions) s.imm.set(a, s.imm.get(a)! + oppReach * (child.get(a)! - v))
    s.reach += myReach
    return v
  }
  const d = (t: number) => (variant === "pcfr+" ? 1 : Math.pow(t - 1, alpha) / (Math.pow(t - 1, alpha) + 1))
  for (let T = 1; T <= iterations; T++) {
    for (let i = 0; i < game.info.numPlayers; i++) {
      for (const s of infos.values()) if (s.player === i) { for (const a of s.actions) s.imm.set(a, 0); s.reach = 0 }
      walk(game.newInitialState(), i, 1, 1)
      for (const s of infos.values()) {
        if (s.player !== i) continue
        for (const a of s.actions) s.regrets.set(a, Math.max(s.regrets.get(a)! * d(T) + s.imm.get(a)!, 0))
        for (const a of s.actions) s.cum.set(a, T === 1 ? s.reach * s.policy.get(a)! : s.cum.get(a)! * Math.pow((T - 1) / T, gamma) + s.reach * s.policy.get(a)!)
        const pred = s.actions.map((a) => Math.max(s.regrets.get(a)! * d(T + 1) + s.imm.get(a)!, 0))
        const sum = pred.reduce((x, y) => x + y, 0)
        s.actions.forEach((a, k) => s.policy.set(a, sum === 0 ? 1 / s.actions.length : pred[k]! / sum))
      }
    }
  }
  const average = new Map<string, Array<number>>()
  for (const [key, s] of infos) {
    const total = s.actions.reduce((x, a) => x + s.cum.get(a)!, 0)
    average.set(key.slice(0, key.lastIndexOf("/")), s.actions.map((a) => (total === 0 ? 1 / s.actions.length : s.cum.get(a)! / total)))
  }
  return average
}

const kuhn = GameTree.compile(KuhnPoker.make())

describe("Predictive CFR+ and PDCFR+", () => {
  for (const variant of ["pcfr+", "pdcfr+"] as const) {
    it(`${variant}: the average policy equals the reference implementation's after 1, 2, 3 and 40 iterations (Kuhn poker)`, () => {
      for (const n of [1, 2, 3, 40]) {
        const solver = Cfr.make(kuhn, { variant })
        solver.run(n)
        const ours = solver.averageProbabilities()
        const ref = reference(KuhnPoker.make(), variant, n)
        expect(ref.size).toBe(kuhn.numInfoStates)
        for (let i = 0; i < kuhn.numInfoStates; i++) {
          const expected = ref.get(kuhn.infoKeys[i]!)!
          const got = Array.from(ours.subarray(kuhn.infoOffset[i]!, kuhn.infoOffset[i + 1]!))
          got.forEach((x, k) => expect(x, `${variant} n=${n} ${kuhn.infoKeys[i]}`).toBeCloseTo(expected[k]!, 12))
        }
      }
    })
  }

  it("on Kuhn they beat CFR+ by orders of magnitude at 300 iterations; on Leduc they converge, more slowly than CFR+ there", () => {
    // measured here (NashConv at 10/100/300/1000 iterations), Leduc: cfr+ 1.22, 2.7e-2, 4.6e-3, 5.1e-4; pcfr+ 1.07,
    // 4.0e-2, 6.0e-3, 1.4e-3; pdcfr+ 1.25, 3.5e-2, 6.4e-3, 1.8e-3 — Farina et al. also report poker games where
    // PCFR+ trails; Kuhn: pcfr+ 1.7e-6, pdcfr+ 3.1e-10 at 300
    const at300 = (tree: GameTree.GameTree, variant: Cfr.Variant) => {
      const solver = Cfr.make(tree, { variant })
      solver.run(300)
      expect(solver.state.regrets.every((r) => r >= 0), variant).toBe(true)
      return Exploitability.nashConvOnTree(tree, solver.averageProbabilities())
    }
    const plus = at300(kuhn, "cfr+")
    expect(at300(kuhn, "pcfr+")).toBeLessThan(Math.min(1e-5, plus / 100))
    expect(at300(kuhn, "pdcfr+")).toBeLessThan(Math.min(1e-8, plus / 1e4))
    const leduc = GameTree.compile(LeducPoker.make())
    expect(at300(leduc, "pcfr+")).toBeLessThan(1e-2)
    expect(at300(leduc, "pdcfr+")).toBeLessThan(1e-2)
  })

  it.effect("a resumed run continues exactly: the prediction is part of the saved state (JSON round trip)", () =>
    Effect.gen(function*() {
      const game = KuhnPoker.make()
      const whole = yield* Solver.solve(game, { algo: "pdcfr+", iterations: 30 })
      const first = yield* Solver.solve(game, { algo: "pdcfr+", iterations: 17 })
      expect(first.state.predictions?.length).toBe(kuhn.numSlots)
      const saved = yield* Solver.fromJson(JSON.parse(JSON.stringify(Solver.toJson(first.state))))
      const rest = yield* Solver.solve(game, { algo: "pdcfr+", iterations: 13, resume: saved })
      expect(Array.from(rest.state.cumulativePolicy)).toEqual(Array.from(whole.state.cumulativePolicy))
      expect(Array.from(rest.state.regrets)).toEqual(Array.from(whole.state.regrets))
      const { predictions: _dropped, ...withoutPrediction } = Solver.toJson(first.state)
      const error = yield* Effect.flip(Solver.fromJson(withoutPrediction))
      expect(error.reason).toContain("pdcfr+ state without predictions")
    }))
})

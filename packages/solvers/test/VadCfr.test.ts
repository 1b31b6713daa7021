/**
 * VAD-CFR (Li, Schultz, Hennes, Lanctot 2026, "Discovering Multiagent Learning Algorithms with Large Language Models",
 * arXiv:2602.16928, Appendix 7.1 Listing 5) on the compiled-tree engine: a hand-computed first two iterations on the
 * tiny matching game, an independent transcription of Listing 5 (its three classes as written, each with its own
 * EWMA, driven by a dictionary-based recursion over the Game API with per-history policy accumulation), convergence
 * on Kuhn and Leduc poker, and exact resume through the state JSON.
 */
import { describe, expect, it } from "@effect/vitest"
import { KuhnPoker, LeducPoker } from "@autodidact/envs"
import { Effect } from "effect"
import type { Game, State } from "../src/internal/GameLike.js"
import * as Exploitability from "../src/evaluation/Exploitability.js"
import * as Cfr from "../src/regret/Cfr.js"
import * as Solver from "../src/regret/Solver.js"
import * as GameTree from "../src/tree/GameTree.js"
import { tinyGame } from "./TinyGame.js"

/** Listing 5's `RegretAccumulator._calculate_adaptive_params`, written out (0-based `iterationNumber`). */
const adaptiveParams = (iterationNumber: number, cfrRegrets: ReadonlyArray<number>, currentEwma: number) => {
  const tPlusOne = iterationNumber + 1
  const mag = cfrRegrets.reduce((m, r) => Math.max(m, Math.abs(r)), 0)
  const projectedEwma = iterationNumber === 0 ? mag : 0.1 * mag + (1 - 0.1) * currentEwma
  const vol = Math.min(1, projectedEwma / 2)
  const alpha = Math.max(0.1, 1.5 - 0.5 * vol)
  const beta = Math.min(alpha, -0.1 - 0.5 * vol)
  const pos = Math.pow(tPlusOne, alpha) / (Math.pow(tPlusOne, alpha) + 1)
  const neg = Math.pow(tPlusOne, beta) / (Math.pow(tPlusOne, beta) + 1)
  return { projectedEwma, vol, pos, neg }
}

/** Listing 5, its three classes driven by an OpenSpiel-style recursion (alternating updates, DFS info-state order). */
const transcription = (game: Game, iterations: number) => {
  interface Node { player: number; actions: ReadonlyArray<number>; regret: Array<number>; cumPolicy: Array<number>; policy: Array<number>; cfr: Array<number> }
  const nodes = new Map<string, Node>()
  const init = (h: State): void => {
    if (h.isTerminal()) return
    if (h.isChanceNode()) {
      for (const [a] of h.chanceOutcomes()) init(h.child(a))
      return
    }
    const p = h.currentPlayer()
    const key = h.informationStateString(p)
    if (!nodes.has(key)) {
      const actions = h.legalActions()
      const zeros = () => actions.map(() => 0)
      nodes.set(key, { player: p, actions, regret: zeros(), cumPolicy: zeros(), policy: actions.map(() => 1 / actions.length), cfr: zeros() })
    }
    for (const a of h.legalActions()) init(h.child(a))
  }
  init(game.newInitialState())
  let regretEwma = 0 // RegretAccumulator._ewma_instantaneous_regret_magnitude
  let policyEwma = 0 // PolicyFromRegretAccumulator's own copy
  const visits: Array<[Node, number]> = []
  const walk = (h: State, traverser: number, myReach: number, oppReach: number): number => {
    if (h.isTerminal()) return h.returns()[traverser]!
    if (h.isChanceNode()) {
      let v = 0
      for (const [a, pr] of h.chanceOutcomes()) v += pr * walk(h.child(a), traverser, myReach, oppReach * pr)
      return v
    }
    if (myReach === 0 && oppReach === 0) return 0
    const node = nodes.get(h.informationStateString(h.currentPlayer()))!
    let v = 0
    if (node.player !== traverser) {
      node.actions.forEach((a, k) => (v += node.policy[k]! * walk(h.child(a), traverser, myReach, oppReach * node.policy[k]!)))
      return v
    }
    const child = node.actions.map((a, k) => walk(h.child(a), traverser, myReach * node.policy[k]!, oppReach))
    child.forEach((c, k) => (v += node.policy[k]! * c))
    child.forEach((c, k) => (node.cfr[k] = node.cfr[k]! + oppReach * (c - v)))
    visits.push([node, myReach])
    return v
  }
  for (let it = 0; it < iterations; it++) {
    for (let p = 0; p < game.info.numPlayers; p++) {
      const mine = [...nodes.values()].filter((n) => n.player === p)
      for (const n of mine) n.cfr.fill(0)
      visits.length = 0
      walk(game.newInitialState(), p, 1, 1)
      // PolicyAccumulator.update_accumulate_policy at every visited history, with the info state's regrets
      if (it >= 500) {
        for (const [n, reach] of visits) {
          const mag = n.cfr.reduce((m, r) => Math.max(m, Math.abs(r)), 0)
          const gamma = Math.min(4, 2 + 1.5 * Math.min(1, mag / 2))
          const weight = Math.pow(it + 1, gamma) * (1 / (1 + Math.pow(mag, 1.5))) * Math.max(0.1, Math.pow(1 + mag / 2, 0.5))
          n.cumPolicy = n.cumPolicy.map((c, k) => c + weight * reach * n.policy[k]!)
        }
      }
      for (const n of mine) {
        // RegretAccumulator.update_accumulate_regret
        const ra = adaptiveParams(it, n.cfr, regretEwma)
        regretEwma = ra.projectedEwma
        n.regret = n.regret.map((old, k) => {
          const inst = n.cfr[k]! > 0 ? n.cfr[k]! * 1.1 : n.cfr[k]!
          return Math.max(-20, (old >= 0 ? ra.pos * old : ra.neg * old) + inst)
        })
        // PolicyFromRegretAccumulator.get_updated_current_policy
        const pa = adaptiveParams(it, n.cfr, policyEwma)
        policyEwma = pa.projectedEwma
        const optimism = (1 / (1 + it / 100)) * Math.max(0, 1 - 0.5 * pa.vol)
        const scaled = n.regret.map((old, k) => {
          const inst = n.cfr[k]! > 0 ? n.cfr[k]! * 1.1 : n.cfr[k]!
          return Math.pow(Math.max(0, (old >= 0 ? pa.pos * old : pa.neg * old) + optimism * inst), 1.5)
        })
        const sum = scaled.reduce((x, y) => x + y, 0)
        n.policy = sum > 0 ? scaled.map((x) => x / sum) : n.actions.map(() => 1 / n.actions.length)
      }
    }
  }
  return nodes
}

/** The engine's slots of info state `key` in `a`. */
const slots = (tree: GameTree.GameTree, a: Float64Array, key: string) => {
  const i = tree.infoIndex.get(key)!
  return Array.from(a.subarray(tree.infoOffset[i]!, tree.infoOffset[i + 1]!))
}

const kuhnGame = KuhnPoker.make()
const kuhn = GameTree.compile(kuhnGame)

describe("VAD-CFR", () => {
  it("tiny game, by hand: iterations 1 and 2 (boosted regrets, volatility, adaptive discounts, projected policy)", () => {
    const tree = GameTree.compile(tinyGame)
    const solver = Cfr.make(tree, { variant: "vad-cfr" })
    solver.step()
    // player 0 (uniform opponent): r = 0.75 · (0.5 − 0.25, 0 − 0.25); magnitude 0.1875 = EWMA at the first iteration;
    // t = 1 discounts both signs by 1/2 of 0; R = (1.1 · 0.1875, −0.1875); projected (1/2 + 0.953125) · R ⇒ σ = H
    expect(slots(tree, solver.state.regrets, "p0:1")).toEqual([0.1875 * 1.1, -0.1875])
    expect(slots(tree, solver.strategy, "p0:1")).toEqual([1, 0])
    // player 1 against H: r = 0.75 · (−2 + 0.5, 1 + 0.5); EWMA = 1.125 (first iteration), volatility 0.5625
    expect(slots(tree, solver.state.regrets, "p1")).toEqual([-1.125, 1.125 * 1.1])
    expect(slots(tree, solver.strategy, "p1")).toEqual([0, 1])
    expect(Array.from(solver.state.volatility!)).toEqual([0.1875 / 2, 1.125 / 2])
    expect(solver.state.ewma![0]).toBe(1.125)
    expect(Array.from(solver.state.cumulativePolicy).every((c) => c === 0)).toBe(true) // warm start
    solver.step()
    // player 0 against T: r = 0.75 · (−1 − (−1), 1 − (−1)) = (0, 1.5); EWMA 0.1 · 1.5 + 0.9 · 1.125 = 1.1625
    const vol = 1.1625 / 2
    const a = 1.5 - 0.5 * vol
    const b = -0.1 - 0.5 * vol
    const dPos = Math.pow(2, a) / (Math.pow(2, a) + 1)
    const dNeg = Math.pow(2, b) / (Math.pow(2, b) + 1)
    const [rh, rt] = slots(tree, solver.state.regrets, "p0:1")
    expect(rh).toBeCloseTo(dPos * 0.20625, 15)
    expect(rt).toBeCloseTo(dNeg * -0.1875 + 1.5 * 1.1, 15)
    expect(solver.state.volatility![0]).toBeCloseTo(vol, 15)
  })

  it("equals a transcription of Listing 5: current policy after 1, 2, 3, 40 iterations, average after 503 (Kuhn)", () => {
    for (const n of [1, 2, 3, 40, 503]) {
      const solver = Cfr.make(kuhn, { variant: "vad-cfr" })
      solver.run(n)
      const ref = transcription(kuhnGame, n)
      expect(ref.size).toBe(kuhn.numInfoStates)
      const average = solver.averageProbabilities()
      for (const [key, node] of ref) {
        slots(kuhn, solver.strategy, key).forEach((x, k) => expect(x, `σ n=${n} ${key}`).toBeCloseTo(node.policy[k]!, 12))
        slots(kuhn, solver.state.regrets, key).forEach((x, k) => expect(x, `R n=${n} ${key}`).toBeCloseTo(node.regret[k]!, 12))
        const total = node.cumPolicy.reduce((x, y) => x + y, 0)
        const expected = node.cumPolicy.map((c) => (total > 0 ? c / total : 1 / node.actions.length))
        slots(kuhn, average, key).forEach((x, k) => expect(x, `avg n=${n} ${key}`).toBeCloseTo(expected[k]!, 12))
      }
    }
  })

  it("hard warm start: no averaging through iteration 500; then converges (Kuhn < 1e-9 at 1000, Leduc < 1e-3 at 600)", () => {
    const solver = Cfr.make(kuhn, { variant: "vad-cfr" })
    solver.run(500)
    expect(solver.state.cumulativePolicy.every((c) => c === 0)).toBe(true)
    expect(Exploitability.nashConvOnTree(kuhn, solver.averageProbabilities())).toBeCloseTo(11 / 12, 12) // uniform
    solver.step()
    expect(solver.state.cumulativePolicy.some((c) => c > 0)).toBe(true)
    solver.run(499)
    expect(Exploitability.nashConvOnTree(kuhn, solver.averageProbabilities())).toBeLessThan(1e-9)
    expect(solver.state.regrets.every((r) => r >= -20)).toBe(true)
    const leduc = GameTree.compile(LeducPoker.make())
    const onLeduc = Cfr.make(leduc, { variant: "vad-cfr" })
    onLeduc.run(600)
    // measured: 4.6e-4 at 600, 3.7e-5 at 1000 (pdcfr+ 1.8e-3, cfr+ 5.1e-4 at 1000)
    expect(Exploitability.nashConvOnTree(leduc, onLeduc.averageProbabilities())).toBeLessThan(1e-3)
  })

  it("simultaneous updates run the same rules and converge on Kuhn", () => {
    const solver = Cfr.make(kuhn, { variant: "vad-cfr", alternatingUpdates: false })
    solver.run(600)
    // measured 1.6e-2 (slower than alternating updates, as for the other variants); uniform is 0.917
    expect(Exploitability.nashConvOnTree(kuhn, solver.averageProbabilities())).toBeLessThan(5e-2)
  })

  it.effect("a resumed run continues exactly: instantaneous regrets, volatility and EWMA are saved (JSON round trip)", () =>
    Effect.gen(function*() {
      const whole = yield* Solver.solve(kuhnGame, { algo: "vad-cfr", iterations: 520 })
      const first = yield* Solver.solve(kuhnGame, { algo: "vad-cfr", iterations: 505 })
      expect(first.state.volatility?.length).toBe(kuhn.numInfoStates)
      expect(first.state.ewma?.length).toBe(1)
      const saved = yield* Solver.fromJson(JSON.parse(JSON.stringify(Solver.toJson(first.state))))
      const rest = yield* Solver.solve(kuhnGame, { algo: "vad-cfr", iterations: 15, resume: saved })
      expect(Array.from(rest.state.cumulativePolicy)).toEqual(Array.from(whole.state.cumulativePolicy))
      expect(Array.from(rest.state.regrets)).toEqual(Array.from(whole.state.regrets))
      expect(Array.from(rest.state.ewma!)).toEqual(Array.from(whole.state.ewma!))
      const { volatility: _dropped, ...withoutVolatility } = Solver.toJson(first.state)
      expect((yield* Effect.flip(Solver.fromJson(withoutVolatility))).reason).toContain("vad-cfr state without volatility and ewma")
      const badEwma = { ...Solver.toJson(first.state), ewma: Solver.toJson(first.state).regrets }
      expect((yield* Effect.flip(Solver.fromJson(badEwma))).reason).toContain("ewma is not 1 base64 float64 value")
    }))
})

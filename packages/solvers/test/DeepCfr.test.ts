/**
 * Deep CFR (SD-CFR): the reservoir memory's sampling, regret matching's fallback, the linear-CFR loss weighting on a
 * hand-computed case, the exact tree average against a brute-force walk of the game, Kuhn convergence with a fixed
 * seed, policy save/load, and bad input.
 */
import { InvalidOptionError, Rng } from "@autodidact/core"
import { type Game as GameModule, KuhnPoker, TicTacToe } from "@autodidact/envs"
import { MlpSimd } from "@autodidact/kernels"
import { describe, expect, it } from "@effect/vitest"
import * as DeepCfr from "../src/deep/DeepCfr.js"
import * as Reservoir from "../src/deep/Reservoir.js"
import * as Exploitability from "../src/evaluation/Exploitability.js"
import * as GameTree from "../src/tree/GameTree.js"

const thrown = (f: () => unknown): Error => {
  try {
    f()
  } catch (e) {
    return e as Error
  }
  throw new Error("did not throw")
}

describe("Reservoir", () => {
  it("keeps every row, in order, until full; then size stays at capacity and every row offered is kept with probability capacity / n", () => {
    const rng = Rng.make(3)
    const r = Reservoir.make(4, 1, 1)
    for (let i = 0; i < 4; i++) expect(Reservoir.add(r, rng, [i], [i], [1], i + 1)).toBe(i)
    expect(Array.from(r.features)).toEqual([0, 1, 2, 3])
    expect(Array.from(r.weights)).toEqual([1, 2, 3, 4])
    // 2,000 streams of 40 rows into 10 slots: each row should survive 25% of the time
    const kept = new Float64Array(40)
    const trials = 2000
    for (let s = 0; s < trials; s++) {
      const m = Reservoir.make(10, 1, 1)
      for (let i = 0; i < 40; i++) Reservoir.add(m, rng, [i], [0], [1], 1)
      expect(m.size).toBe(10)
      expect(m.added).toBe(40)
      for (let j = 0; j < 10; j++) kept[m.features[j]!]! += 1 / trials
    }
    // binomial sd sqrt(0.25·0.75/2000) ≈ 0.0097: 4.5 sd
    for (let i = 0; i < 40; i++) expect(Math.abs(kept[i]! - 0.25)).toBeLessThan(0.044)
    // the first rows (filled) and the last rows (offered late) are kept equally often
    const early = kept.slice(0, 10).reduce((a, b) => a + b) / 10
    const late = kept.slice(30).reduce((a, b) => a + b) / 10
    expect(Math.abs(early - late)).toBeLessThan(0.03)
    Reservoir.clear(r)
    expect([r.size, r.added]).toEqual([0, 0])
    expect(thrown(() => Reservoir.make(0, 1, 1)).message).toContain("memoryCapacity")
  })
})

describe("DeepCfr", () => {
  it("regret matching: positive parts on legal actions; none positive -> all on the legal argmax", () => {
    const out = new Float64Array(4)
    DeepCfr.regretMatching([3, -1, 1, 9], 0, [0, 1, 2], out, 0, 4)
    expect(Array.from(out)).toEqual([0.75, 0, 0.25, 0]) // action 3 is illegal: its 9 is ignored
    DeepCfr.regretMatching([-3, -1, -2, 9], 0, [0, 1, 2], out, 0, 4)
    expect(Array.from(out)).toEqual([0, 1, 0, 0])
  })

  it("linear-CFR weighting: the network fits the iteration-weighted mean of a state's regrets, masked actions ignored", () => {
    // one information state seen at iteration 1 with regrets (2, -2) and at iteration 3 with (-2, 2), action 2 illegal:
    // the weighted-MSE minimizer is (1·2 + 3·(−2)) / 4 = −1 and +1 (an unweighted fit would give 0, 0)
    const mem = Reservoir.make(8, 2, 3)
    const rng = Rng.make(0)
    Reservoir.add(mem, rng, [1, 0], [2, -2, 0], [1, 1, 0], 1)
    Reservoir.add(mem, rng, [1, 0], [-2, 2, 0], [1, 1, 0], 3)
    // a second state (features 0, 1) pins the other input
    Reservoir.add(mem, rng, [0, 1], [5, 0, 0], [1, 0, 0], 2)
    const sizes = { obsDim: 2, hidden: 8, numActions: 3 }
    const trainer = DeepCfr.makeTrainer(sizes, DeepCfr.resolve({ trainSteps: 400, batchSize: 3, learningRate: 1e-2, schedule: "linear" }))
    const params = new Float32Array(MlpSimd.numParamsSingle(sizes))
    trainer.fit(mem, 3, rng, params)
    const ws = MlpSimd.make(sizes)
    const out = new Float64Array(6)
    MlpSimd.forwardSingle(ws, params, [1, 0, 0, 1], 2, undefined, 0, out)
    expect(out[0]).toBeCloseTo(-1, 1)
    expect(out[1]).toBeCloseTo(1, 1)
    expect(out[3]).toBeCloseTo(5, 1)
  })

  it("Reservoir.aggregate: bit-identical (features, mask) rows form one group with summed weight and weighted-mean target", () => {
    const mem = Reservoir.make(8, 2, 3)
    const rng = Rng.make(0)
    Reservoir.add(mem, rng, [1, 0], [2, -2, 0], [1, 1, 0], 1)
    Reservoir.add(mem, rng, [0, 1], [5, 0, 0], [1, 0, 0], 2)
    Reservoir.add(mem, rng, [1, 0], [-2, 2, 0], [1, 1, 0], 3)
    Reservoir.add(mem, rng, [1, 0], [4, 4, 4], [1, 1, 1], 2) // same features, another mask: its own group
    Reservoir.add(mem, rng, [0, 1], [1, 0, 0], [1, 0, 0], 2)
    const agg = Reservoir.aggregate(mem, Reservoir.makeAggregate())
    expect(agg.size).toBe(3)
    expect(Array.from(agg.rows.subarray(0, 3))).toEqual([0, 1, 3])
    expect(Array.from(agg.weights.subarray(0, 3))).toEqual([4, 4, 2])
    // (1·2 + 3·(−2)) / 4 = −1, (1·(−2) + 3·2) / 4 = 1; (2·5 + 2·1) / 4 = 3
    expect(Array.from(agg.targets.subarray(0, 9))).toEqual([-1, 1, 0, 3, 0, 0, 4, 4, 4])
    // reused buffers: a second call on a grown memory regroups from scratch
    Reservoir.add(mem, rng, [0, 1], [9, 0, 0], [1, 0, 0], 4)
    expect(Reservoir.aggregate(mem, agg).size).toBe(3)
    expect(agg.targets[3]).toBeCloseTo((2 * 5 + 2 * 1 + 4 * 9) / 8, 12)
  })

  it("dedup training follows plain training's full-batch trajectory (same minimizer and gradient, groups instead of rows)", () => {
    // 40 rows over 3 states with noisy targets; both fits take the full memory as one batch from the same initialization
    const mem = Reservoir.make(64, 3, 2)
    const rng = Rng.make(7)
    for (let i = 0; i < 40; i++) {
      const s = i % 3
      Reservoir.add(mem, rng, [s === 0 ? 1 : 0, s === 1 ? 1 : 0, s === 2 ? 1 : 0], [s + rng.normal(), -s + rng.normal()], [1, 1], 1 + (i % 5))
    }
    const sizes = { obsDim: 3, hidden: 8, numActions: 2 }
    const fitWith = (dedup: boolean) => {
      const params = new Float32Array(MlpSimd.numParamsSingle(sizes))
      DeepCfr.makeTrainer(sizes, DeepCfr.resolve({ trainSteps: 60, batchSize: 64, learningRate: 1e-2, dedup })).fit(mem, 5, Rng.make(1), params)
      return params
    }
    const plain = fitWith(false)
    const grouped = fitWith(true)
    let maxDiff = 0
    for (let i = 0; i < plain.length; i++) maxDiff = Math.max(maxDiff, Math.abs(plain[i]! - grouped[i]!))
    expect(maxDiff).toBeLessThan(1e-4)
    // and it moved: not the initialization
    const init = new Float32Array(plain.length)
    DeepCfr.makeTrainer(sizes, DeepCfr.resolve({ trainSteps: 1, batchSize: 64, learningRate: 1e-12 })).fit(mem, 5, Rng.make(1), init)
    let moved = 0
    for (let i = 0; i < plain.length; i++) moved = Math.max(moved, Math.abs(plain[i]! - init[i]!))
    expect(moved).toBeGreaterThan(0.1)
  })

  it("warm start: a fit starts from the given parameters instead of a fresh initialization", () => {
    const mem = Reservoir.make(4, 2, 2)
    const rng = Rng.make(0)
    Reservoir.add(mem, rng, [1, 0], [1, -1], [1, 1], 1)
    const sizes = { obsDim: 2, hidden: 4, numActions: 2 }
    const trainer = DeepCfr.makeTrainer(sizes, DeepCfr.resolve({ trainSteps: 1, batchSize: 4, learningRate: 1e-9 }))
    const warm = Float32Array.from({ length: MlpSimd.numParamsSingle(sizes) }, (_, i) => 0.01 * i)
    const out = new Float32Array(warm.length)
    trainer.fit(mem, 1, Rng.make(1), out, warm)
    for (let i = 0; i < warm.length; i++) expect(out[i]).toBeCloseTo(warm[i]!, 6)
    trainer.fit(mem, 1, Rng.make(1), out)
    expect(Math.max(...Array.from(out, (v, i) => Math.abs(v - warm[i]!)))).toBeGreaterThan(0.05)
    expect(DeepCfr.resolve({ reinitialize: false }).reinitialize).toBe(false)
  })

  it("the tree average is SD-CFR's reach-weighted mixture (checked against a brute-force walk of Kuhn)", () => {
    const game = KuhnPoker.make()
    const tree = GameTree.compile(game)
    const solver = DeepCfr.make(game, { traversals: 20, trainSteps: 20, batchSize: 32, hidden: 8, seed: 5 })
    solver.step()
    solver.step()
    const avg = DeepCfr.treeAverage(game, tree)
    const probs = DeepCfr.averagePolicyOnTree(avg, solver.policy)
    // brute force: the network's σ at each state via the state's own tensor, own reach by walking the game
    const sigma = (params: Float32Array, s: GameModule.State, p: number): Float64Array => {
      const ws = MlpSimd.make({ obsDim: 11, hidden: 8, numActions: 2 })
      const adv = new Float64Array(2)
      MlpSimd.forwardSingle(ws, params, s.informationStateTensor!(p), 1, undefined, 0, adv)
      const out = new Float64Array(2)
      DeepCfr.regretMatching(adv, 0, s.legalActions(), out, 0, 2)
      return out
    }
    const num = new Map<string, Array<number>>()
    for (let p = 0; p < 2; p++) {
      solver.policy.iterates[p]!.forEach((params, t) => {
        const walk = (s: GameModule.State, reach: number) => {
          if (s.isTerminal()) return
          const q = s.currentPlayer()
          if (q < 0) {
            for (const [a] of s.chanceOutcomes()) walk(s.child(a), reach)
            return
          }
          const sg = q === p ? sigma(params, s, p) : new Float64Array([1, 1])
          if (q === p) {
            const key = s.informationStateString(p)
            // each information state is counted once per iterate (all its nodes share the own reach)
            const seenKey = `${key}#${t}`
            if (!num.has(seenKey)) {
              num.set(seenKey, [])
              const acc = num.get(key) ?? [0, 0]
              num.set(key, [acc[0]! + (t + 1) * reach * sg[0]!, acc[1]! + (t + 1) * reach * sg[1]!])
            }
          }
          for (const a of s.legalActions()) walk(s.child(a), q === p ? reach * sg[a]! : reach)
        }
        walk(game.newInitialState(), 1)
      })
    }
    for (let i = 0; i < tree.numInfoStates; i++) {
      const acc = num.get(tree.infoKeys[i]!)!
      const total = acc[0]! + acc[1]!
      const s0 = tree.infoOffset[i]!
      if (total > 0) {
        expect(probs[s0]).toBeCloseTo(acc[0]! / total, 6)
        expect(probs[s0 + 1]).toBeCloseTo(acc[1]! / total, 6)
      } else expect([probs[s0], probs[s0 + 1]]).toEqual([0.5, 0.5])
    }
  })

  it("Kuhn: NashConv of the average policy falls from 11/12 to below 0.1 in 15 iterations (seed 1)", () => {
    const game = KuhnPoker.make()
    const tree = GameTree.compile(game)
    const solver = DeepCfr.make(game, { traversals: 200, trainSteps: 100, batchSize: 256, hidden: 16, learningRate: 3e-2, schedule: "linear", seed: 1 })
    for (let t = 0; t < 15; t++) solver.step()
    expect(solver.iteration).toBe(15)
    expect(solver.policy.iterates[0]!.length).toBe(15)
    const nc = Exploitability.nashConvOnTree(tree, DeepCfr.averagePolicyOnTree(DeepCfr.treeAverage(game, tree), solver.policy))
    expect(nc).toBeLessThan(0.1)
    // trajectory sampling plays the same average: its action frequencies at the first decision match the tree's
    const player = DeepCfr.sampleIterates(solver.policy, 9)
    const s = game.newInitialState()
    s.applyAction(2) // p0 holds K
    s.applyAction(0)
    let bets = 0
    for (let k = 0; k < 4000; k++) {
      player.newGame()
      if (player.act(s) === 1) bets++
    }
    const i = tree.infoIndex.get("2")!
    const avg = DeepCfr.averagePolicyOnTree(DeepCfr.treeAverage(game, tree), solver.policy)
    expect(Math.abs(bets / 4000 - avg[tree.infoOffset[i]! + 1]!)).toBeLessThan(0.035)
  })

  it("saves and loads a policy exactly; rejects a document of the wrong shape", () => {
    const game = KuhnPoker.make()
    const solver = DeepCfr.make(game, { traversals: 5, trainSteps: 2, batchSize: 8, hidden: 4 })
    solver.step()
    const json = JSON.parse(JSON.stringify(DeepCfr.toJson(solver.policy)))
    const back = DeepCfr.fromJson(json)
    expect(back.iterates[1]![0]).toEqual(solver.policy.iterates[1]![0])
    expect({ ...back, iterates: [] }).toEqual({ ...solver.policy, iterates: [] })
    expect(thrown(() => DeepCfr.fromJson({ ...json, hidden: 5 })).message).toContain("expected")
    expect(thrown(() => DeepCfr.fromJson({ format: "x" }))).toBeInstanceOf(InvalidOptionError)
  })

  it("bad input: typed errors naming the value", () => {
    const game = KuhnPoker.make()
    const e = thrown(() => DeepCfr.make(game, { traversals: -3 }))
    expect(e).toBeInstanceOf(InvalidOptionError)
    expect(e.message).toContain("traversals")
    expect(e.message).toContain("-3")
    expect(thrown(() => DeepCfr.make(game, { learningRate: 0 })).message).toContain("learningRate")
    expect(thrown(() => DeepCfr.make(game, { hidden: 2.5 })).message).toContain("2.5")
    expect(thrown(() => DeepCfr.make(TicTacToe.make())).message).toContain("informationStateTensor")
  })
})

describe("GameTree.sizeAtMost", () => {
  it("counts Kuhn's 58 nodes exactly and stops early on a big tree", () => {
    expect(GameTree.sizeAtMost(KuhnPoker.make(), 58)).toBe(true)
    expect(GameTree.sizeAtMost(KuhnPoker.make(), 57)).toBe(false)
  })
})

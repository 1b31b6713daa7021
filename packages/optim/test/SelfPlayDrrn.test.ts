import { InvalidOptionError } from "@autodidact/core"
import { GameRegistry } from "@autodidact/envs"
import { describe, expect, it } from "vitest"
import * as DrrnPolicy from "../src/text/DrrnPolicy.js"
import * as SelfPlay from "../src/selfplay/SelfPlay.js"
import * as SelfPlayDrrn from "../src/selfplay/SelfPlayDrrn.js"

const kuhn = GameRegistry.loadGame("kuhn_poker")
const ttt = GameRegistry.loadGame("tic_tac_toe")

/** Kuhn's information states, enumerated by hand: card 0..2 × (seat 0: "", "pb"; seat 1: "p", "b"). */
const kuhnKeys = [0, 1, 2].flatMap((c) => [`0|${c}`, `0|${c}pb`, `1|${c}p`, `1|${c}b`]).sort()

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x))

describe("SelfPlay.tabulate (any acting policy → a table over information states)", () => {
  it("queries a policy once at each of Kuhn's 12 information states and keeps its answer", () => {
    let calls = 0
    const stub: SelfPlay.ActingPolicy = {
      probabilities: (d, out) => {
        calls++
        // the King bets / calls, anything else checks / folds
        const king = d.state.informationStateString(d.seat).startsWith("2")
        out[0] = king ? 0.1 : 0.9
        out[1] = king ? 0.9 : 0.1
        return undefined
      }
    }
    const table = SelfPlay.tabulate(kuhn, stub)
    expect([...table.keys()].sort()).toEqual(kuhnKeys)
    expect(calls).toBe(12)
    expect(Array.from(table.get("1|2b")!)).toEqual([0.1, 0.9])
    expect(Array.from(table.get("0|0pb")!)).toEqual([0.9, 0.1])
    expect(() => SelfPlay.tabulate(ttt, stub, 1000)).toThrow(/more than 1000 nodes/)
  })

  it("a DRRN with hand-set weights tabulates to the hand-computed probabilities σ(±2 tanh 1)", () => {
    // scores f(s)·g(a): f(s) = state.b2 = (2, 0, …) for every state (all weights 0); g("bet") = (tanh 1, 0, …) and
    // g("call") = (−tanh 1, 0, …) through one first-layer unit each; "check" and "fold" score 0.
    const config = { ...SelfPlayDrrn.defaults, hidden: 4, embed: 2 }
    const base = SelfPlayDrrn.make(config, 0, 0).net
    const params = new Float32Array(base.params.length)
    const at = (name: string) => base.layout.find((l) => l.name === name)!.offset
    const bucket = (word: string) => DrrnPolicy.hash(`a/w:${word}`) % config.buckets
    const [bet, call] = [bucket("bet"), bucket("call")]
    expect(new Set([bet, call, bucket("check"), bucket("fold")]).size).toBe(4)
    params[at("state.b2")] = 2
    params[at("action.w1") + bet * config.hidden + 0] = 1
    params[at("action.w1") + call * config.hidden + 1] = 1
    params[at("action.w2") + 0 * config.embed + 0] = 1
    params[at("action.w2") + 1 * config.embed + 0] = -1
    const frozen = new SelfPlayDrrn.FrozenDrrn(config, params)
    const table = SelfPlay.tabulate(kuhn, frozen)
    expect([...table.keys()].sort()).toEqual(kuhnKeys)
    const pBet = sigmoid(2 * Math.tanh(1))
    const pCall = sigmoid(-2 * Math.tanh(1))
    for (const [key, p] of table) {
      // opening or after a check: [check, bet]; facing a bet: [fold, call]
      const facing = key.endsWith("b")
      expect(p[1]).toBeCloseTo(facing ? pCall : pBet, 6)
      expect(p[0]! + p[1]!).toBeCloseTo(1, 12)
    }
  })
})

describe("SelfPlay with the DRRN text policy (Kuhn poker)", () => {
  const opts = { policy: "drrn" as const, seed: 4, episodesPerUpdate: 32, opponents: "winrate" as const, poolEvery: 2, magnetEvery: 2, evalEvery: 0, drrn: { hidden: 16, embed: 8, buckets: 256, fitSteps: 4 } }

  it("resumes from a checkpoint bit-identically (network, Adam moments, magnet, average, pool in one JSON)", () => {
    const straight = SelfPlay.toCheckpoint(SelfPlay.trainSync([kuhn], { ...opts, totalSteps: 1_200 }).session)
    const half = SelfPlay.trainSync([kuhn], { ...opts, totalSteps: 600 }).session
    const decoded = SelfPlay.decodeCheckpointSync(JSON.parse(JSON.stringify(SelfPlay.toCheckpoint(half))))
    const resumed = SelfPlay.toCheckpoint(SelfPlay.trainSync([kuhn], {}, {}, SelfPlay.fromCheckpoint([kuhn], decoded, { totalSteps: 1_200 })).session)
    expect(straight.drrn).toHaveLength(1)
    expect(straight.pool.length).toBeGreaterThan(0)
    expect(straight.pool[0]!.drrn).toHaveLength(1)
    expect(straight.drrn![0]!.state.magnet).not.toBeNull()
    expect(JSON.stringify({ ...resumed, wallSeconds: 0 })).toEqual(JSON.stringify({ ...straight, wallSeconds: 0 }))
  })

  it("per-seat DRRNs: two networks, each seat's evaluated policy from its own", () => {
    const { session } = SelfPlay.trainSync([kuhn], { ...opts, opponents: "latest", sharing: "per-seat", totalSteps: 400 })
    expect(session.policies).toHaveLength(2)
    const ckpt = SelfPlay.toCheckpoint(session)
    expect(ckpt.drrn!.map((d) => d.policy)).toEqual([0, 1])
    expect(ckpt.drrn![0]!.state.params).not.toEqual(ckpt.drrn![1]!.state.params)
    const view = session.policyView("current")
    const state = kuhn.newInitialState()
    state.applyAction(2)
    state.applyAction(0)
    const legal = state.legalActions()
    const direct = new Float64Array(2)
    session.policies[0]!.frozen("current").probabilities({ game: kuhn, seat: 0, state, legal }, direct)
    expect(Array.from(view.actionProbabilities("kuhn_poker", 0, "2", legal))).toEqual(Array.from(direct))
  })

  it("bad input: the tabular critic, a bad network size, a tabular checkpoint read as a DRRN run", () => {
    expect(() => new SelfPlay.Session([kuhn], { policy: "drrn", critic: 0.5 })).toThrow(/critic/)
    expect(() => new SelfPlay.Session([kuhn], { policy: "drrn", drrn: { hidden: 0 } })).toThrow(InvalidOptionError)
    expect(() => new SelfPlay.Session([kuhn], { policy: "drrn", drrn: { hidden: 0 } })).toThrow(/drrn\.hidden/)
    expect(() => new SelfPlay.Session([kuhn], { policy: "lstm" as "drrn" })).toThrow(/lstm/)
    const tabular = SelfPlay.toCheckpoint(SelfPlay.trainSync([kuhn], { totalSteps: 100, evalEvery: 0 }).session)
    expect(() => SelfPlay.fromCheckpoint([kuhn], tabular, { policy: "drrn" })).toThrow(/needs 1 DRRN/)
    const drrn = SelfPlay.toCheckpoint(SelfPlay.trainSync([kuhn], { ...opts, totalSteps: 100 }).session)
    expect(() => SelfPlay.fromCheckpoint([kuhn], drrn, { drrn: { ...opts.drrn, hidden: 32 } })).toThrow(/hidden/)
  })
})

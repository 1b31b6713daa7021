import { GameRegistry, IllegalActionError } from "@autodidact/envs"
import { InvalidOptionError } from "@autodidact/core"
import { describe, expect, it } from "vitest"
import * as SelfPlay from "../src/selfplay/SelfPlay.js"

const kuhn = GameRegistry.loadGame("kuhn_poker")
const ttt = GameRegistry.loadGame("tic_tac_toe")

describe("SelfPlay trainer (tabular, Kuhn poker)", () => {
  it("learns the dominant replies: seat 1 calls a bet with the King and folds the Jack", () => {
    const { session } = SelfPlay.trainSync([kuhn], { seed: 3, totalSteps: 150_000, evalEvery: 0 })
    const view = session.policyView("average")
    // information state "2b": seat 1 holds the King (2) facing a bet; actions [pass/fold, bet/call]
    expect(view.actionProbabilities("kuhn_poker", 1, "2b", [0, 1])[1]).toBeGreaterThan(0.95)
    expect(view.actionProbabilities("kuhn_poker", 1, "0b", [0, 1])[0]).toBeGreaterThan(0.95)
    expect(session.globalStep).toBeGreaterThanOrEqual(150_000)
  })

  it("resumes from a checkpoint bit-identically (JSON round trip of the whole state)", () => {
    const opts = { seed: 5, totalSteps: 20_000, episodesPerUpdate: 64, opponents: "winrate" as const, poolEvery: 5, magnetEvery: 3, critic: 0.1, evalEvery: 0 }
    const straight = SelfPlay.trainSync([kuhn], opts).session
    const half = SelfPlay.trainSync([kuhn], { ...opts, totalSteps: 10_000 }).session
    const ckpt = JSON.parse(JSON.stringify(SelfPlay.toCheckpoint(half))) as unknown
    const decoded = SelfPlay.decodeCheckpointSync(ckpt)
    const resumed = SelfPlay.trainSync([kuhn], {}, {}, SelfPlay.fromCheckpoint([kuhn], decoded, { totalSteps: 20_000 })).session
    expect(resumed.globalStep).toBe(straight.globalStep)
    expect(SelfPlay.toCheckpoint(resumed).tables).toEqual(SelfPlay.toCheckpoint(straight).tables)
    expect(resumed.pool.length).toBeGreaterThan(0)
  })

  it("a tabular policy learns the same rows shared or per seat", () => {
    const a = SelfPlay.trainSync([kuhn], { seed: 2, totalSteps: 5_000, sharing: "shared", evalEvery: 0 }).session.policyView()
    const b = SelfPlay.trainSync([kuhn], { seed: 2, totalSteps: 5_000, sharing: "per-seat", evalEvery: 0 }).session.policyView()
    for (const [seat, key] of [[0, "0"], [0, "1pb"], [1, "2p"], [1, "1b"]] as const) {
      expect(Array.from(b.actionProbabilities("kuhn_poker", seat, key, [0, 1]))).toEqual(Array.from(a.actionProbabilities("kuhn_poker", seat, key, [0, 1])))
    }
  })

  it("mixes games in a batch (alternating episodes) and keeps a table per game", () => {
    const leduc = GameRegistry.loadGame("leduc_poker")
    const { session } = SelfPlay.trainSync([kuhn, leduc], { seed: 1, totalSteps: 4_000, episodesPerUpdate: 64, evalEvery: 0 })
    expect([...(session.policies[0] as SelfPlay.TabularSoftmax).tables.keys()].sort()).toEqual(["kuhn_poker", "leduc_poker"])
    expect(session.episodes % 2).toBe(0)
  })

  it("calls the evaluation hook every evalEvery updates and once at the end", () => {
    const seen: Array<number> = []
    SelfPlay.trainSync([kuhn], { seed: 1, totalSteps: 3_000, episodesPerUpdate: 100, evalEvery: 4 }, {
      evaluate: (v) => [{ update: v.update }],
      onEvaluation: (r) => seen.push(r["update"] as number)
    })
    expect(seen.slice(0, 2)).toEqual([4, 8])
    expect(seen[seen.length - 1]).toBeGreaterThan(seen[seen.length - 2]!)
  })
})

describe("bad input → typed errors naming the value", () => {
  it("a seat that is not to move, an illegal action", () => {
    const s = ttt.newInitialState()
    expect(() => SelfPlay.applyMove(ttt, s, 1, 4)).toThrow(SelfPlay.SeatNotToMoveError)
    expect(() => SelfPlay.applyMove(ttt, s, 1, 4)).toThrow(/seat 1 is not to move/)
    SelfPlay.applyMove(ttt, s, 0, 4)
    expect(() => SelfPlay.applyMove(ttt, s, 1, 4)).toThrow(IllegalActionError)
    expect(() => SelfPlay.applyMove(ttt, s, 1, 4)).toThrow(/action 4 is not legal/)
  })
  it("a checkpoint of another game, an unknown estimator, a bad option", () => {
    const ckpt = SelfPlay.toCheckpoint(SelfPlay.trainSync([kuhn], { totalSteps: 100, evalEvery: 0 }).session)
    expect(() => SelfPlay.fromCheckpoint([ttt], ckpt)).toThrow(/trained on kuhn_poker, not on tic_tac_toe/)
    expect(() => new SelfPlay.Session([kuhn], { algo: "nope" })).toThrow(/nope/)
    expect(() => new SelfPlay.Session([kuhn], { learningRate: -1 })).toThrow(InvalidOptionError)
  })
})

describe("matches (Wilson intervals from core Statistics)", () => {
  it("random vs random tic-tac-toe: counts add up, the seat alternates, results are reproducible", () => {
    const r = SelfPlay.playMatch(ttt, SelfPlay.randomPlayer, SelfPlay.randomPlayer, 100, 7)
    expect(r.wins + r.draws + r.losses).toBe(100)
    expect(r).toEqual(SelfPlay.playMatch(ttt, SelfPlay.randomPlayer, SelfPlay.randomPlayer, 100, 7))
    expect(() => SelfPlay.playMatch(ttt, () => 99, SelfPlay.randomPlayer, 2, 1)).toThrow(/action 99 is not legal/)
  })
})

describe("SelfPlayFiles (atomic checkpoint files)", () => {
  it("saves and loads a checkpoint; a file that is not a checkpoint fails with CorruptCheckpointError", async () => {
    const { SelfPlayFiles } = await import("../src/node.js")
    const { Effect } = await import("effect")
    const fs = await import("node:fs")
    const os = await import("node:os")
    const path = await import("node:path")
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "selfplay-"))
    const file = path.join(dir, "checkpoints", "selfplay.json")
    const ckpt = SelfPlay.toCheckpoint(SelfPlay.trainSync([kuhn], { totalSteps: 200, evalEvery: 0 }).session)
    SelfPlayFiles.saveSync(file, ckpt)
    expect(await Effect.runPromise(SelfPlayFiles.load(file))).toEqual(JSON.parse(JSON.stringify(ckpt)))
    fs.writeFileSync(file, JSON.stringify({ format: "autodidact.tabular-policy" }))
    const exit = await Effect.runPromiseExit(SelfPlayFiles.load(file))
    expect(JSON.stringify(exit)).toContain("CorruptCheckpointError")
    fs.rmSync(dir, { recursive: true, force: true })
  })
})

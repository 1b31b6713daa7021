import { describe, expect, it } from "@effect/vitest"
import { KuhnPoker, LeducPoker } from "@autodidact/envs"
import type { Game, State } from "../src/internal/GameLike.js"
import * as GameTree from "../src/tree/GameTree.js"
import { tinyGame } from "./TinyGame.js"

describe("GameTree", () => {
  it("compiles Kuhn poker: 58 histories, 12 information states with 2 actions each", () => {
    const tree = GameTree.compile(KuhnPoker.make())
    // root + 3 one-card deals + 6 two-card deals, each followed by 9 betting histories
    // ("", p, pp, pb, pbp, pbb, b, bp, bb) → 1 + 3 + 6 · 9
    expect(tree.numNodes).toBe(1 + 3 + 6 * 9)
    expect(tree.numInfoStates).toBe(12)
    expect(tree.numSlots).toBe(24)
    expect(tree.playerInfoStates.map((a) => a.length)).toEqual([6, 6])
    expect(tree.nodeKind[0]).toBe(GameTree.CHANCE_NODE)
    // parents precede children
    for (let n = 0; n < tree.numNodes; n++) {
      for (let e = tree.edgeStart[n]!; e < tree.edgeStart[n + 1]!; e++) expect(tree.edgeChild[e]!).toBeGreaterThan(n)
    }
    // each info state's nodes carry its index
    for (let i = 0; i < tree.numInfoStates; i++) {
      for (let j = tree.infoNodeStart[i]!; j < tree.infoNodeStart[i + 1]!; j++) expect(tree.nodeInfo[tree.infoNodes[j]!]).toBe(i)
    }
  })

  it("compiles Leduc poker with OpenSpiel's 936 information states", () => {
    const tree = GameTree.compile(LeducPoker.make())
    expect(tree.numInfoStates).toBe(936)
    expect(tree.playerInfoStates[0]!.length + tree.playerInfoStates[1]!.length).toBe(936)
    const mem = GameTree.memoryStats(tree)
    expect(mem.bytesPerInfoState).toBeGreaterThan(0)
    expect(mem.bytesPerInfoState).toBeLessThan(4096)
  })

  it("compiles a user-defined game: chance probabilities, utilities, info states", () => {
    const tree = GameTree.compile(tinyGame)
    // root, terminal after outcome 0, p0 node, 2 p1 nodes, 4 terminals
    expect(tree.numNodes).toBe(9)
    expect(tree.infoKeys).toEqual(["p0:1", "p1"])
    expect(Array.from(tree.edgeProb.subarray(0, 2))).toEqual([0.25, 0.75])
    expect(tree.infoNodeStart[2]! - tree.infoNodeStart[1]!).toBe(2)
    const terminalUtils: Array<number> = []
    for (let n = 0; n < tree.numNodes; n++) if (tree.nodeKind[n] === GameTree.TERMINAL_NODE) terminalUtils.push(tree.utilities[2 * n]!)
    expect(terminalUtils).toEqual([0, 2, -1, -1, 1])
  })

  it("rejects a game whose information state is shared by states with different legal actions", () => {
    // a hand-written game with only the methods the compiler calls (structurally a partial State)
    const bad = {
      info: { name: "bad", numPlayers: 1 },
      newInitialState: () => {
        const moves: Array<number> = []
        const s = {
          currentPlayer: () => (moves.length < 2 ? 0 : -4),
          isTerminal: () => moves.length >= 2,
          isChanceNode: () => false,
          legalActions: () => (moves.length >= 2 ? [] : moves.length === 0 ? [0, 1] : moves[0] === 0 ? [0] : [0, 1]),
          chanceOutcomes: () => [],
          applyAction: (a: number) => void moves.push(a),
          undoAction: () => void moves.pop(),
          returns: () => [0],
          informationStateString: () => (moves.length === 0 ? "root" : "same"),
          history: () => moves
        }
        return s as unknown as State
      }
    } as unknown as Game
    expect(() => GameTree.compile(bad)).toThrow(/shared by states with different players or legal actions/)
  })
})

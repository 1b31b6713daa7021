/**
 * The conformance suites over every built-in of their kind, enumerated from the registries so that a new built-in
 * is covered without editing this file: `checkEnv` over every env id, `checkAecEnv` over every game (and its
 * parallel-to-AEC conversion) and over every multi-agent env id (the games' text views). `checkParallelEnv`, `checkTextEnv` and `checkVectorEnv` run over theirs in their
 * own test files.
 */
import { describe, expect, it } from "@effect/vitest"
import * as CheckAecEnv from "../src/checks/CheckAecEnv.js"
import * as CheckEnv from "../src/checks/CheckEnv.js"
import * as GameRegistry from "../src/multiagent/GameRegistry.js"
import * as MultiAgent from "../src/multiagent/MultiAgent.js"
import * as Registry from "../src/Registry.js"

describe("checkEnv over every registered env", () => {
  it("covers the built-ins", () => {
    expect(Registry.ids()).toEqual(expect.arrayContaining(["CartPole-v1", "FrozenLake-v1", "FrozenLake8x8-v1", "Sokoban-v0", "TextHousehold-v0"]))
  })
  for (const id of Registry.ids()) {
    it(`${id}: through make and bare, without warnings`, () => {
      expect(CheckEnv.checkEnv(Registry.make(id), { steps: 30 })).toEqual([])
      expect(CheckEnv.checkEnv(Registry.make(id).unwrapped, { steps: 30 })).toEqual([])
    })
  }
})

/** Normal-form games: `gameToParallel` moves every player in one step (the test `GameEnv` uses). */
const isNormalForm = (name: string): boolean => {
  const game = GameRegistry.loadGame(name)
  return "payoffs" in game && "shape" in game
}

describe("checkAecEnv over every registered game", () => {
  for (const name of GameRegistry.gameNames()) {
    const simultaneous = isNormalForm(name)
    it(`${name}: gameToAec${simultaneous ? " and parallelToAec(gameToParallel)" : ""}`, () => {
      const report = CheckAecEnv.checkAecEnv(MultiAgent.gameToAec(GameRegistry.loadGame(name)), { numCycles: 60 })
      expect(report.steps).toBe(60 * GameRegistry.loadGame(name).info.numPlayers)
      expect(report.episodes).toBeGreaterThan(1)
      // Turn-based games are left out: parallelToAec selects every live agent in turn, and the one not to move in
      // the game has an all-zero action mask (checkAecEnv: "action mask of live agent ... is all zeros").
      if (simultaneous) {
        const converted = MultiAgent.parallelToAec(MultiAgent.gameToParallel(GameRegistry.loadGame(name)))
        expect(CheckAecEnv.checkAecEnv(converted, { numCycles: 40 }).episodes).toBe(20)
      }
    })
  }
  it("includes every matrix game among the simultaneous ones", () => {
    expect(GameRegistry.gameNames().filter(isNormalForm)).toEqual(GameRegistry.gameNames().filter((n) => n.startsWith("matrix_")))
  })
})

describe("checkAecEnv over every registered multi-agent env id", () => {
  it("covers the text views of the games", () => {
    expect(Registry.aecIds()).toEqual(expect.arrayContaining(["kuhn_poker-text-v0", "connect_four-text-v0", "negotiation-text-v0"]))
  })
  for (const id of Registry.aecIds()) {
    it(`${id}: makeAec`, () => {
      const env = Registry.makeAec(id)
      const report = CheckAecEnv.checkAecEnv(env, { numCycles: 30 })
      expect(report.steps).toBe(30 * env.possibleAgents.length)
      expect(report.episodes).toBeGreaterThan(1)
    })
  }
})

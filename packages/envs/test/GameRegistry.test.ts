import { describe, expect, it } from "@effect/vitest"
import * as GameRegistry from "../src/multiagent/GameRegistry.js"
import { walk } from "./gameTestUtil.js"

describe("GameRegistry", () => {
  it("loads the built-in games by OpenSpiel name, with parameters", () => {
    expect(GameRegistry.loadGame("kuhn_poker").info.numPlayers).toBe(2)
    const k3 = GameRegistry.loadGame("kuhn_poker(players=3)")
    expect(k3.info.numPlayers).toBe(3)
    expect(k3.info.parameters).toEqual({ players: 3 })
    expect(walk(GameRegistry.loadGame("leduc_poker")).infoStates).toBe(936)
    for (const name of ["tic_tac_toe", "liars_dice", "matrix_rps", "matrix_mp", "matrix_pd", "matrix_chicken", "matrix_cd", "matrix_shapleys_game"]) {
      expect(GameRegistry.gameNames()).toContain(name)
      expect(GameRegistry.loadGame(name).info.numPlayers).toBe(2)
    }
    expect(GameRegistry.loadGame("liars_dice(numdice=2)").info.numDistinctActions).toBe(25)
    expect(GameRegistry.parseGameString("leduc_poker(players=3, flag=true, s=abc)")).toEqual({
      name: "leduc_poker",
      params: { players: 3, flag: true, s: "abc" }
    })
  })

  it("fails with UnknownGameError listing known names", () => {
    const fails = (spec: string, re: RegExp) => {
      try {
        GameRegistry.loadGame(spec)
        expect.unreachable()
      } catch (e) {
        expect(e).toBeInstanceOf(GameRegistry.UnknownGameError)
        const err = e as GameRegistry.UnknownGameError
        expect(err.known).toContain("kuhn_poker")
        expect(err.message).toMatch(re)
      }
    }
    fails("kuhn", /unknown game "kuhn"/)
    fails("kuhn_poker(players=1)", /players must be an integer in \[2, 10\], got 1/)
    fails("kuhn_poker(cards=3)", /no parameter "cards"/)
    fails("kuhn_poker(players=two)", /must be a number/)
    fails("liars_dice(players=3)", /exactly 2 players/)
    fails("kuhn_poker(players)", /malformed parameter/)
  })
})

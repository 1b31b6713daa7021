/**
 * A user-defined tree game built with `TreeGame.fromTree` from `@autodidact/envs`, small enough to solve by hand.
 *
 * Chance first: outcome 0 (probability 0.25) ends the game at once with returns [0, 0]; outcome 1 (0.75) starts a
 * hidden matching game: player 0 picks 0 ("H") or 1 ("T") (information state "p0:1"), then player 1 picks without
 * seeing it (information state "p1"). Player 0's returns: HH = 2, TT = 1, a mismatch = -1; zero-sum.
 *
 * By hand: in equilibrium both players play H with probability 0.4 and player 0's value is 0.75 · 0.2 = 0.15.
 */
import { TreeGame } from "@autodidact/envs"

const PAYOFF = [[2, -1], [-1, 1]] as const

const player1 = (a0: 0 | 1) => ({
  player: 1,
  infoSet: "p1",
  actions: ([0, 1] as const).map((a1) => ({
    label: a1 === 0 ? "H" : "T",
    child: { terminal: [PAYOFF[a0][a1], -PAYOFF[a0][a1]] }
  }))
})

export const tinyGame = TreeGame.fromTree("tiny_matching", {
  chance: [
    { prob: 0.25, child: { terminal: [0, 0] } },
    {
      prob: 0.75,
      child: {
        player: 0,
        infoSet: "p0:1",
        actions: [
          { label: "H", child: player1(0) },
          { label: "T", child: player1(1) }
        ]
      }
    }
  ]
})

/** Helpers shared by the game tests: an exhaustive walk and an undo property over random playouts. */
import { Rng } from "@autodidact/core"
import type { Game, State } from "../src/multiagent/Game.js"

/** Distinct (player, information state) pairs at decision nodes, node and terminal counts. */
export const walk = (game: Game): { nodes: number; terminals: number; infoStates: number } => {
  const infos = new Set<string>()
  let nodes = 0
  let terminals = 0
  const go = (s: State) => {
    nodes++
    if (s.isTerminal()) {
      terminals++
      return
    }
    const p = s.currentPlayer()
    if (p >= 0) infos.add(`${p}:${s.informationStateString(p)}`)
    for (const a of [...s.legalActions()]) {
      s.applyAction(a)
      go(s)
      s.undoAction(p, a)
    }
  }
  go(game.newInitialState())
  return { nodes, terminals, infoStates: infos.size }
}

const snapshot = (game: Game, s: State): string => {
  const parts: Array<unknown> = [s.currentPlayer(), s.isTerminal(), [...s.legalActions()], s.chanceOutcomes(), s.returns(), s.history(), s.toString()]
  for (let p = 0; p < game.info.numPlayers; p++) parts.push(s.informationStateString(p), s.observationString(p))
  return JSON.stringify(parts)
}

/**
 * Play `playouts` random games; after each, undo every move and check that each intermediate state reads exactly as
 * it did on the way down. Returns the number of moves checked.
 */
export const checkUndo = (game: Game, playouts: number, seed: number): number => {
  const rng = Rng.make(seed)
  let moves = 0
  for (let k = 0; k < playouts; k++) {
    const s = game.newInitialState()
    const stack: Array<{ snap: string; player: number; action: number }> = []
    while (!s.isTerminal()) {
      const legal = s.legalActions()
      const a = legal[rng.integers(legal.length)]!
      stack.push({ snap: snapshot(game, s), player: s.currentPlayer(), action: a })
      s.applyAction(a)
      moves++
    }
    // clone of a terminal state reads the same
    if (snapshot(game, s.clone()) !== snapshot(game, s)) throw new Error("clone differs")
    for (let i = stack.length - 1; i >= 0; i--) {
      const { snap, player, action } = stack[i]!
      s.undoAction(player, action)
      const now = snapshot(game, s)
      if (now !== snap) throw new Error(`undo mismatch at depth ${i}:\n${now}\nvs\n${snap}`)
    }
  }
  return moves
}

/** Apply a list of actions to a fresh state. */
export const play = (game: Game, actions: ReadonlyArray<number>): State => {
  const s = game.newInitialState()
  for (const a of actions) s.applyAction(a)
  return s
}

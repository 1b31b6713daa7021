import { describe, expect, it } from "@effect/vitest"
import { type Game, InvalidGameError, type State } from "../src/multiagent/Game.js"
import * as GameRegistry from "../src/multiagent/GameRegistry.js"
import * as KuhnPoker from "../src/multiagent/KuhnPoker.js"
import { validateGame } from "../src/multiagent/ValidateGame.js"

/** Kuhn poker with one thing broken by `patch`. */
const brokenKuhn = (patch: (s: State) => Partial<State>, info: Partial<Game["info"]> = {}): Game => {
  const inner = KuhnPoker.make()
  const wrap = (s: State): State => {
    const p = patch(s)
    const w: State = {
      currentPlayer: () => s.currentPlayer(),
      isTerminal: () => s.isTerminal(),
      isChanceNode: () => s.isChanceNode(),
      legalActions: () => s.legalActions(),
      chanceOutcomes: () => s.chanceOutcomes(),
      applyAction: (a) => s.applyAction(a),
      undoAction: (pl, a) => s.undoAction(pl, a),
      returns: () => s.returns(),
      informationStateString: (pl) => s.informationStateString(pl),
      observationString: (pl) => s.observationString(pl),
      actionToString: (pl, a) => s.actionToString(pl, a),
      history: () => s.history(),
      clone: () => wrap(s.clone()),
      child: (a) => wrap(s.child(a)),
      toString: () => s.toString(),
      ...p
    }
    return w
  }
  return { info: { ...inner.info, ...info }, newInitialState: () => wrap(inner.newInitialState()) }
}

const failsWith = (game: Game, re: RegExp) => {
  try {
    validateGame(game)
    expect.unreachable()
  } catch (e) {
    expect(e).toBeInstanceOf(InvalidGameError)
    expect((e as InvalidGameError).reason).toMatch(re)
  }
}

/** Games whose trees are too large to walk whole in a unit test. */
const LARGE = new Map([["tic_tac_toe", 20_000], ["liars_dice", 20_000], ["connect_four", 5_000], ["negotiation", 5_000]])

describe("validateGame", () => {
  it("passes on every built-in game", () => {
    for (const name of GameRegistry.gameNames()) {
      const report = validateGame(GameRegistry.loadGame(name), { maxNodes: LARGE.get(name) ?? 1_000_000 })
      expect(report.nodes).toBeGreaterThan(0)
    }
    expect(validateGame(GameRegistry.loadGame("kuhn_poker"))).toEqual({
      nodes: 58,
      terminals: 30,
      chanceNodes: 4,
      infoStates: 12,
      maxDepth: 5,
      complete: true
    })
    expect(validateGame(GameRegistry.loadGame("kuhn_poker(players=3)")).complete).toBe(true)
    expect(validateGame(GameRegistry.loadGame("leduc_poker")).infoStates).toBe(936)
    expect(validateGame(GameRegistry.loadGame("tic_tac_toe"), { maxNodes: 1000 }).complete).toBe(false)
  })

  it("fails on chance probabilities that do not sum to 1, naming the history", () => {
    const g = brokenKuhn((s) => ({ chanceOutcomes: () => s.chanceOutcomes().map(([a, p]) => [a, p * 0.9] as const) }))
    failsWith(g, /chance probabilities sum to 0\.(9|8999)\d*, not 1 after history \[\]/)
  })

  it("fails on NaN returns, wrong-length returns and non-zero-sum returns", () => {
    failsWith(brokenKuhn((s) => ({ returns: () => s.returns().map((v, p) => (p === 1 ? NaN : v)) })), /return of player 1 is NaN, not finite after history \[0, 1, 0, 0\]/)
    failsWith(brokenKuhn((s) => ({ returns: () => s.returns().slice(0, 1) })), /returns have length 1, expected 2/)
    failsWith(brokenKuhn((s) => ({ returns: () => s.returns().map((v) => v + (s.isTerminal() ? 0.5 : 0)) })), /zero-sum game sum to 1/)
  })

  it("fails on empty or out-of-range legal actions and inconsistent information states", () => {
    failsWith(brokenKuhn((s) => ({ legalActions: () => (s.isChanceNode() || s.isTerminal() ? s.legalActions() : []) })), /no legal actions/)
    failsWith(brokenKuhn((s) => ({ legalActions: () => (s.isChanceNode() || s.isTerminal() ? s.legalActions() : [0, 1, 2]) })), /legal action 2 .* not an integer in \[0, 2\)/)
    failsWith(
      brokenKuhn((s) => ({
        informationStateString: (p) => s.informationStateString(p).slice(0, 1),
        legalActions: () => (s.isChanceNode() || s.isTerminal() || s.history().length !== 4 ? s.legalActions() : [1])
      })),
      /information state "\d" of player \d has legal actions/
    )
  })
})

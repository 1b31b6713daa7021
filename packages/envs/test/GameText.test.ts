import { describe, expect, it } from "@effect/vitest"
import { InvalidActionError, Rng, Trajectory } from "@autodidact/core"
import type { Game, State } from "../src/multiagent/Game.js"
import { NotToMoveError } from "../src/multiagent/Game.js"
import * as GameRegistry from "../src/multiagent/GameRegistry.js"
import * as GameText from "../src/multiagent/GameText.js"
import * as Negotiation from "../src/multiagent/Negotiation.js"
import * as Registry from "../src/Registry.js"

const at = (spec: string, moves: ReadonlyArray<number>): { game: Game; state: State; view: GameText.GameTextView } => {
  const game = GameRegistry.loadGame(spec)
  const state = game.newInitialState()
  for (const a of moves) state.applyAction(a)
  return { game, state, view: GameText.textView(game) }
}

const lines = (...xs: Array<string>) => xs.join("\n")

// Expected texts below were written by hand from each game's rules and the moves listed.
describe("GameText: hand-checked text", () => {
  it("kuhn_poker", () => {
    // K to player 0, J to player 1; player 0 checks, player 1 bets
    const { state, view } = at("kuhn_poker", [2, 0, 0, 1])
    expect(view.observation(state, 0)).toBe(lines(
      "You are player 0 of 2 in Kuhn poker.",
      "Your card: K.",
      "Betting so far: player 0 checked, player 1 bet.",
      "Pot: 3 chips; you have put in 1.",
      "It is your turn."
    ))
    expect(view.commands(state)).toEqual(["fold", "call"])
    expect(view.commands(at("kuhn_poker", [2, 0]).state)).toEqual(["check", "bet"])
    const over = at("kuhn_poker", [2, 0, 1, 0])
    expect(over.view.observation(over.state, 1)).toBe(lines(
      "You are player 1 of 2 in Kuhn poker.",
      "Your card: J.",
      "Betting so far: player 0 bet, player 1 folded.",
      "Pot: 3 chips; you have put in 1.",
      "The game is over; your payoff is -1."
    ))
    expect(over.view.commands(over.state)).toEqual([])
  })

  it("leduc_poker", () => {
    // J(suit 1) to player 0, Q(suit 1) to player 1; check, bet, call; public K(suit 1); player 0 bets
    const { state, view } = at("leduc_poker", [0, 2, 1, 2, 1, 4, 2])
    expect(view.observation(state, 0)).toBe(lines(
      "You are player 0 of 2 in Leduc hold'em.",
      "Your card: J (suit 1).",
      "Public card: K (suit 1).",
      "Round 1 betting: player 0 checked, player 1 bet, player 0 called.",
      "Round 2 betting: player 0 bet.",
      "Pot: 10 chips. Chips put in: player 0 7, player 1 3.",
      "Player 1 is to move."
    ))
    expect(view.commands(state)).toEqual(["fold", "call", "raise"])
    const r1 = at("leduc_poker", [0, 2])
    expect(r1.view.observation(r1.state, 1)).toBe(lines(
      "You are player 1 of 2 in Leduc hold'em.",
      "Your card: Q (suit 1).",
      "Public card: not dealt yet.",
      "Round 1 betting: none.",
      "Pot: 2 chips. Chips put in: player 0 1, player 1 1.",
      "Player 0 is to move."
    ))
    expect(r1.view.commands(r1.state)).toEqual(["check", "bet"])
  })

  it("tic_tac_toe", () => {
    const { state, view } = at("tic_tac_toe", [4, 0])
    expect(view.observation(state, 0)).toBe(lines(
      "You are player 0 (x) in tic-tac-toe; player 1 plays o.",
      "Board (empty cells show their number):",
      "o 1 2",
      "3 x 5",
      "6 7 8",
      "Moves so far: x in 4, o in 0.",
      "It is your turn."
    ))
    expect(view.commands(state)).toEqual(["place 1", "place 2", "place 3", "place 5", "place 6", "place 7", "place 8"])
  })

  it("connect_four", () => {
    const { state, view } = at("connect_four", [3, 3, 4])
    expect(view.observation(state, 1)).toBe(lines(
      "You are player 1 (o) in Connect Four; player 0 plays x.",
      "Board (top row first; the column numbers are on top):",
      "0123456",
      ".......",
      ".......",
      ".......",
      ".......",
      "...o...",
      "...xx..",
      "Columns played so far: 3, 3, 4.",
      "It is your turn."
    ))
    expect(view.commands(state)).toEqual(["drop 0", "drop 1", "drop 2", "drop 3", "drop 4", "drop 5", "drop 6"])
    const full = at("connect_four", [2, 2, 2, 2, 2, 2])
    expect(full.view.commands(full.state)).not.toContain("drop 2")
  })

  it("liars_dice", () => {
    // player 0 rolls 3, player 1 rolls 6; player 0 bids one 2
    const { state, view } = at("liars_dice", [2, 5, 1])
    expect(view.observation(state, 1)).toBe(lines(
      "You are player 1 in Liar's dice.",
      "Your dice: 6.",
      "Bids so far: player 0 bid 1 die of 2.",
      "It is your turn."
    ))
    expect(view.commands(state)).toEqual([
      "bid 1 die of 3", "bid 1 die of 4", "bid 1 die of 5", "bid 1 die of 6",
      "bid 2 dice of 1", "bid 2 dice of 2", "bid 2 dice of 3", "bid 2 dice of 4", "bid 2 dice of 5", "bid 2 dice of 6",
      "liar"
    ])
    const over = at("liars_dice", [2, 5, 1, 12])
    expect(over.view.observation(over.state, 0)).toBe(lines(
      "You are player 0 in Liar's dice.",
      "Your dice: 3.",
      "Bids so far: player 0 bid 1 die of 2, player 1 called liar.",
      "The game is over; your payoff is +1." // the 6 is wild: there is one 2
    ))
  })

  it("negotiation", () => {
    // player 0: 12 Wheat, 7 Wood, values 5 and 9; player 1: 8 Wheat, 10 Wood, values 6 and 12; player 0 offers 1 Wheat for 1 Wood
    const { state, view } = at("negotiation(num_resources=2,max_turns=4,max_offer=1)", [12, 7, 5, 9, 8, 10, 6, 12, 3])
    expect(view.observation(state, 1)).toBe(lines(
      "You are player 1 in Simple Negotiation.",
      "Your resources (quantity, your value per unit):",
      "  Wheat: 8 (value 6)",
      "  Wood: 10 (value 12)",
      "Your inventory value: 168 (started at 168; change 0).",
      "Turn 2 of 4.",
      "History: player 0 offered 1 Wheat -> 1 Wood.",
      "Offer to you from player 0: you give 1 Wood, you get 1 Wheat.",
      "It is your turn."
    ))
    expect(view.commands(state)).toEqual(["accept", "deny", "offer 1 Wheat -> 1 Wood", "offer 1 Wood -> 1 Wheat"])
    state.applyAction(view.parse(state, "accept"))
    expect(view.observation(state, 0)).toBe(lines(
      "You are player 0 in Simple Negotiation.",
      "Your resources (quantity, your value per unit):",
      "  Wheat: 11 (value 5)",
      "  Wood: 8 (value 9)",
      "Your inventory value: 127 (started at 123; change +4).",
      "Turn 3 of 4.",
      "History: player 0 offered 1 Wheat -> 1 Wood; player 1 accepted.",
      "It is your turn."
    ))
    expect(view.commands(state)[0]).toBe("pass")
    expect(view.rules).toMatch(/whose value increased more wins/)
  })

  it("negotiation, SPIRAL's variant: a standing offer after a pass", () => {
    // fixed deal; player 0 offers 3 Wood for 1 Gold (action 9), player 1 passes
    const { state, view } = at("negotiation(variant=spiral)", [10, 10, 5, 15, 10, 10, 15, 5, 9, 2])
    expect(view.observation(state, 1)).toBe(lines(
      "You are player 1 in Simple Negotiation.",
      "Your resources (quantity, your value per unit):",
      "  Wood: 10 (value 15)",
      "  Gold: 10 (value 5)",
      "Your inventory value: 200 (started at 200; change 0).",
      "Turn 3 of 10.",
      "History: player 0 offered 3 Wood -> 1 Gold; player 1 passed.",
      "Offer to you from player 0: you give 1 Gold, you get 3 Wood.",
      "Player 0 is to move."
    ))
    expect(view.observation(state, 0)).toContain("Your offer to player 1 stands: 3 Wood -> 1 Gold.")
    expect(view.commands(state).slice(0, 2)).toEqual(["pass", "offer 1 Wood -> 1 Gold"])
    expect(view.rules).toMatch(/^Simple Negotiation \(SPIRAL's SimpleNegotiation-v1\)/)
  })
})

/** Random playouts of `game`: calls `visit` at every decision node. */
const playouts = (game: Game, n: number, seed: number, visit: (s: State) => void): void => {
  const rng = Rng.make(seed)
  for (let k = 0; k < n; k++) {
    const s = game.newInitialState()
    while (!s.isTerminal()) {
      if (!s.isChanceNode()) visit(s)
      const legal = s.legalActions()
      s.applyAction(legal[rng.integers(legal.length)]!)
    }
  }
}

describe("GameText: commands", () => {
  const specs: ReadonlyArray<[string, number]> = [
    ["kuhn_poker", 20],
    ["kuhn_poker(players=3)", 10],
    ["leduc_poker", 20],
    ["tic_tac_toe", 10],
    ["connect_four", 4],
    ["liars_dice", 20],
    ["negotiation(num_resources=3,max_turns=4)", 2]
  ]
  for (const [spec, n] of specs) {
    it(`${spec}: every legal action's command parses back to it, case and brackets aside`, () => {
      const game = GameRegistry.loadGame(spec)
      const view = GameText.textView(game)
      let checked = 0
      playouts(game, n, 7, (s) => {
        const legal = s.legalActions()
        const commands = view.commands(s)
        expect(commands).toHaveLength(legal.length)
        expect(new Set(commands).size).toBe(commands.length)
        legal.forEach((a, i) => {
          expect(view.command(s, a)).toBe(commands[i])
          expect(view.parse(s, commands[i]!)).toBe(a)
          checked++
        })
        const last = commands.length - 1
        expect(view.parse(s, `  [${commands[last]!.toUpperCase()}]. `, s.currentPlayer())).toBe(legal[last])
      })
      expect(checked).toBeGreaterThan(20)
    })
  }

  it("reads TextArena's bracketed negotiation commands and Liar's dice's 'dice'/'die'", () => {
    const n = at("negotiation(num_resources=2,max_turns=4,max_offer=2)", [12, 7, 5, 9, 8, 10, 6, 12])
    expect(n.view.parse(n.state, "[Offer: 2 Wheat -> 1 Wood]")).toBe((n.game as Negotiation.NegotiationGame).offerAction(0, 2, 1, 1))
    expect(n.view.parse(n.state, "offer 2 wheat ->   1 wood.")).toBe((n.game as Negotiation.NegotiationGame).offerAction(0, 2, 1, 1))
    const l = at("liars_dice", [2, 5])
    expect(l.view.parse(l.state, "bid 1 dice of 4")).toBe(3)
    expect(l.view.parse(l.state, "Bid 2 Die Of 6")).toBe(11)
  })

  it("rejects an inadmissible command naming it, and a seat not to move naming the seat", () => {
    const { state, view } = at("kuhn_poker", [2, 0])
    try {
      view.parse(state, "raise")
      expect.unreachable()
    } catch (e) {
      expect(e).toBeInstanceOf(InvalidActionError)
      expect((e as InvalidActionError).action).toBe("raise")
      expect((e as InvalidActionError).message).toMatch(/action "raise" is not in the action space one of "check", "bet"/)
    }
    try {
      view.parse(state, "bet", 1)
      expect.unreachable()
    } catch (e) {
      expect(e).toBeInstanceOf(NotToMoveError)
      expect((e as NotToMoveError).player).toBe(1)
      expect((e as NotToMoveError).message).toBe("kuhn_poker: player 1 is not to move (player 0 is to move)")
    }
    const c4 = at("connect_four", [2, 2, 2, 2, 2, 2])
    expect(() => c4.view.parse(c4.state, "drop 2")).toThrow(/"drop 2" is not in the action space/)
    const over = at("tic_tac_toe", [0, 3, 1, 4, 2])
    expect(() => over.view.parse(over.state, "place 8")).toThrow(/no command \(no player is to move\)/)
  })
})

describe("GameText: stateKey", () => {
  it("is equal for equal information states and differs otherwise (Kuhn by hand)", () => {
    const view = GameText.textView(GameRegistry.loadGame("kuhn_poker"))
    const a = at("kuhn_poker", [2, 0, 0]).state // p0 K, p1 J, p0 checked
    const b = at("kuhn_poker", [2, 1, 0]).state // p0 K, p1 Q, p0 checked
    expect(view.stateKey(a, 0)).toBe(view.stateKey(b, 0)) // player 0 cannot tell them apart
    expect(view.stateKey(a, 0)).toBe("kuhn_poker(players=2)/player_0/2p")
    expect(view.stateKey(a, 1)).not.toBe(view.stateKey(b, 1)) // player 1 holds J in one, Q in the other
    expect(view.stateKey(a, 1)).toBe("kuhn_poker(players=2)/player_1/0p")
    expect(view.stateKey(a, 0)).not.toBe(view.stateKey(at("kuhn_poker", [2, 0, 1]).state, 0)) // checked vs bet
    expect(view.stateKey(a, 0)).not.toBe(view.stateKey(a, 1))
    // different games (or parameters) with the same history never share a key
    const t = at("tic_tac_toe", [3]).state
    const c = at("connect_four", [3]).state
    expect(t.informationStateString(1)).toBe(c.informationStateString(1))
    expect(GameText.textView(GameRegistry.loadGame("tic_tac_toe")).stateKey(t, 1)).not.toBe(GameText.textView(GameRegistry.loadGame("connect_four")).stateKey(c, 1))
    const k3 = GameText.textView(GameRegistry.loadGame("kuhn_poker(players=3)"))
    expect(k3.stateKey(at("kuhn_poker(players=3)", [2, 0, 1, 0]).state, 0)).not.toBe(view.stateKey(at("kuhn_poker", [2, 0, 0]).state, 0))
  })

  it("perfect-information games key the board: transpositions share a key, different boards or seats do not", () => {
    for (const [name, first, second, other] of [["tic_tac_toe", [0, 4, 8], [8, 4, 0], [0, 4, 7]], ["connect_four", [0, 3, 6], [6, 3, 0], [0, 3, 5]]] as const) {
      const view = GameText.textView(GameRegistry.loadGame(name))
      const a = at(name, [...first]).state
      const b = at(name, [...second]).state
      expect(a.informationStateString(1)).not.toBe(b.informationStateString(1)) // the move histories differ
      expect(view.stateKey(a, 1)).toBe(view.stateKey(b, 1)) // the boards are equal
      expect(view.stateKey(a, 1)).toBe(`${view.gameKey}/player_1/board/${a.observationString(1)}`)
      expect(view.stateKey(a, 1)).not.toBe(view.stateKey(a, 0))
      expect(view.stateKey(a, 1)).not.toBe(view.stateKey(at(name, [...other]).state, 1))
    }
  })

  it("groups exactly by information state and the text reads the same within a group (all Kuhn and Leduc nodes)", () => {
    for (const name of ["kuhn_poker", "leduc_poker"]) {
      const game = GameRegistry.loadGame(name)
      const view = GameText.textView(game)
      const textOf = new Map<string, string>()
      const keyOf = new Map<string, string>()
      const go = (s: State) => {
        if (s.isTerminal()) return
        const p = s.currentPlayer()
        if (p >= 0) {
          const key = view.stateKey(s, p)
          const text = `${view.observation(s, p)}\n${view.commands(s).join("|")}`
          expect(textOf.get(key) ?? text).toBe(text)
          textOf.set(key, text)
          expect(keyOf.get(text) ?? key).toBe(key) // different information states read differently
          keyOf.set(text, key)
        }
        for (const a of [...s.legalActions()]) {
          s.applyAction(a)
          go(s)
          s.undoAction(p, a)
        }
      }
      go(game.newInitialState())
      expect(textOf.size).toBe(name === "kuhn_poker" ? 12 : 936)
    }
  })
})

describe("GameText: AEC env", () => {
  it("plays by commands, with admissible lists, seat checks and state keys", () => {
    const env = Registry.makeAec<string, string>("kuhn_poker-text-v0") as GameText.GameTextAecEnv
    env.reset({ seed: 3 })
    expect(env.metadata.name).toBe("kuhn_poker-text")
    expect(env.agentSelection).toBe("player_0")
    expect(env.admissibleActions()).toEqual(["check", "bet"])
    expect(env.infos["player_0"]).toEqual({ offeredActions: ["check", "bet"] })
    expect(env.infos["player_1"]).toEqual({})
    expect(env.last().observation).toMatch(/^You are player 0 of 2 in Kuhn poker\.\nYour card: [JQK]\./)
    expect(env.stateKey()).toMatch(/^kuhn_poker\(players=2\)\/player_0\/[012]$/)
    expect(() => env.act("player_1", "bet")).toThrow(NotToMoveError)
    expect(() => env.step("raise")).toThrow(InvalidActionError)
    env.act("player_0", "bet")
    expect(env.agentSelection).toBe("player_1")
    expect(env.admissibleActions()).toEqual(["fold", "call"])
    expect(env.observe("player_0")).toMatch(/Betting so far: player 0 bet\.\nPot: 3 chips; you have put in 2\.\nPlayer 1 is to move\.$/)
    env.step("Fold")
    expect(env.terminations).toEqual({ player_0: true, player_1: true })
    expect(env.rewards).toEqual({ player_0: 1, player_1: -1 })
    expect(env.admissibleActions()).toEqual([])
    expect(() => env.step("call")).toThrow(InvalidActionError) // dead agent: null only
    env.step(null)
    env.step(null)
    expect(env.agents).toEqual([])
  })

  it("renders a seat's episode as chat turns like TextEnv", () => {
    const env = GameText.gameToTextAec(GameRegistry.loadGame("tic_tac_toe"))
    env.reset({ seed: 0 })
    const steps: Array<Trajectory.Step> = []
    for (const cmd of ["place 4", "place 0", "place 8"]) {
      if (env.agentSelection === "player_0") {
        steps.push({ observation: env.last().observation, action: cmd, reward: 0, terminated: false, truncated: false, info: env.last().info })
      }
      env.step(cmd)
    }
    const messages = env.toMessages(Trajectory.fromSteps("tic_tac_toe-text-v0", steps))
    expect(messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "user", "assistant"])
    expect(messages[0]!.content).toBe(`${env.view.rules}\nYour task is to: win the game`)
    expect(messages[1]!.content).toContain("You are player 0 (x) in tic-tac-toe")
    expect(messages[1]!.content).toContain("Your admissible actions of the current situation are: ['place 0', 'place 1', 'place 2', 'place 3', 'place 4',")
    expect(messages[2]!.content).toBe("place 4")
    expect(messages[3]!.content).toContain("o 1 2\n3 x 5\n6 7 8")
    expect(messages[4]!.content).toBe("place 8")
  })

  it("is registered for every described game; make points to makeAec; bad kwargs are typed errors", () => {
    expect(Registry.aecIds()).toEqual(["connect_four-text-v0", "kuhn_poker-text-v0", "leduc_poker-text-v0", "liars_dice-text-v0", "negotiation-text-v0", "tic_tac_toe-text-v0"])
    expect(Registry.ids()).not.toContain("kuhn_poker-text-v0")
    expect(() => Registry.make("kuhn_poker-text-v0")).toThrow(/is a multi-agent \(PettingZoo AEC\) env: build it with Registry\.makeAec/)
    expect(() => Registry.makeAec("kuhn_poker-text-v1")).toThrow(Registry.UnknownEnvError)
    expect(() => Registry.makeAec("CartPole-v1")).toThrow(/single-agent env/)
    expect(() => Registry.makeAec("kuhn_poker-text-v0", { players: 11 })).toThrow(GameRegistry.UnknownGameError)
    const k3 = Registry.makeAec<string, string>("kuhn_poker-text-v0", { players: 3 })
    expect(k3.possibleAgents).toEqual(["player_0", "player_1", "player_2"])
    const neg = Registry.makeAec<string, string>("negotiation-text-v0", { num_resources: 2, max_turns: 4 }) as GameText.GameTextAecEnv
    neg.reset({ seed: 1 })
    expect(neg.game.info.parameters).toMatchObject({ num_resources: 2, max_turns: 4 })
    expect(neg.admissibleActions()).toContain("pass")
  })
})

/**
 * How each built-in extensive-form game reads in words: the per-game table behind `GameText` (the text view of any
 * {@link Game}). One {@link GameDescription} per game name: its rules, a player's information state in words, and
 * the text command of each action.
 *
 * **Details**
 * - Built in: `kuhn_poker` (`check`/`bet`, facing a bet `fold`/`call`), `leduc_poker` (`check`/`bet`, facing a bet
 *   `fold`/`call`/`raise`), `tic_tac_toe` (`place 4`), `connect_four` (`drop 3`), `liars_dice` (`bid 2 dice of 4`,
 *   `liar`), `negotiation` (`offer 2 Wheat -> 1 Wood`, `accept`, `deny`, `pass`). Other games fall back to
 *   {@link fallbackDescription} (the information-state string and `actionToString`).
 * - `observe(state, player)` depends only on `player` and its information state (never on hidden information), so two
 *   states with the same `informationStateString(player)` read the same; it names the seat, the private cards or
 *   dice, the public history, the board, whose turn it is, and at the end the player's payoff.
 * - Text is printable ASCII and newlines (the `Text` observation space of `GameEnv`'s charset).
 * - `registerDescription(name, description)` adds or replaces a game's entry (for user games).
 *
 * @see Liu et al. 2025, "SPIRAL: Self-Play on Zero-Sum Games Incentivizes Reasoning via Multi-Agent Multi-Turn
 *   Reinforcement Learning", arXiv:2506.24119 (games as text, roles in the observation)
 * @see https://github.com/LeonGuertler/TextArena (TextArena's game prompts, which these follow in spirit)
 * @since 0.3.0
 */
import { CHANCE, type Game, type State } from "./Game.js"
import * as KuhnPoker from "./KuhnPoker.js"
import * as LeducPoker from "./LeducPoker.js"
import type { LiarsDiceGame, LiarsDiceState } from "./LiarsDice.js"
import type { NegotiationGame, NegotiationState } from "./Negotiation.js"
import * as Negotiation from "./Negotiation.js"

/** A game in words. */
export interface GameDescription {
  /** The rules, for the chat view's system turn. */
  readonly rules: (game: Game) => string
  /** What `player` knows at `state`, in words (a function of `player` and its information state only). */
  readonly observe: (state: State, player: number, game: Game) => string
  /** The text command of `action` for the player to move at `state` (distinct per legal action). */
  readonly command: (state: State, action: number, game: Game) => string
  /** Extra normalisation of a typed command before matching (after lower-casing and spacing), e.g. `dice -> die`. */
  readonly normalize?: ((command: string) => string) | undefined
}

/** One move of a replayed history: who moved, what, and the legal actions before it. */
interface Move {
  readonly player: number
  readonly action: number
  readonly legal: ReadonlyArray<number>
}

/** Replay `state`'s history on a fresh state of `game` (who moved what, with the legal actions at the time). */
const replay = (game: Game, state: State): Array<Move> => {
  const s = game.newInitialState()
  const out: Array<Move> = []
  for (const action of state.history()) {
    out.push({ player: s.currentPlayer(), action, legal: [...s.legalActions()] })
    s.applyAction(action)
  }
  return out
}

const signed = (x: number): string => (x > 0 ? `+${x}` : String(x))

/** "It is your turn." / "Player 1 is to move." / "The game is over; your payoff is +1." */
const turnLine = (state: State, player: number): string => {
  if (state.isTerminal()) return `The game is over; your payoff is ${signed(state.returns()[player]!)}.`
  const cur = state.currentPlayer()
  if (cur === player) return "It is your turn."
  return cur === CHANCE ? "Waiting for the deal." : `Player ${cur} is to move.`
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`

// ---------------------------------------------------------------------------------------------------------------
// Poker

/** Rank names of a deck with `ranks` ranks (J, Q, K for the 2-player games). */
const rankName = (rank: number, ranks: number): string => (ranks <= 4 ? "JQKA"[rank]! : `rank ${rank + 1}`)

const kuhnBets = (game: Game, state: State): Array<{ player: number; action: number; facing: boolean }> => {
  const n = game.info.numPlayers
  const h = state.history()
  const out: Array<{ player: number; action: number; facing: boolean }> = []
  let bet = false
  for (let i = n; i < h.length; i++) {
    const a = h[i]!
    out.push({ player: (i - n) % n, action: a, facing: bet })
    if (a === KuhnPoker.BET) bet = true
  }
  return out
}

const kuhnVerb = (action: number, facing: boolean, past: boolean): string =>
  action === KuhnPoker.BET ? (facing ? (past ? "called" : "call") : "bet") : facing ? (past ? "folded" : "fold") : (past ? "checked" : "check")

const kuhn: GameDescription = {
  rules: (game) => {
    const n = game.info.numPlayers
    const cards = Array.from({ length: n + 1 }, (_, r) => rankName(r, n + 1)).join(" < ")
    return `Kuhn poker for ${n} players. The deck has ${n + 1} cards: ${cards}. Every player antes 1 chip and is dealt ` +
      `one private card. Players act once in turn from player 0: with no bet on the table, "check" or "bet" (1 chip); ` +
      `once someone has bet, every other player answers once with "fold" or "call" (1 chip). If nobody bets, the ` +
      `highest card wins the pot; otherwise the highest card among the players who bet or called wins it. Your payoff ` +
      `is the chips you win minus the chips you put in.`
  },
  observe: (state, player, game) => {
    const n = game.info.numPlayers
    const h = state.history()
    const lines = [`You are player ${player} of ${n} in Kuhn poker.`]
    lines.push(`Your card: ${h.length > player ? rankName(h[player]!, n + 1) : "not dealt yet"}.`)
    const bets = kuhnBets(game, state)
    lines.push(`Betting so far: ${bets.length === 0 ? "none" : bets.map((b) => `player ${b.player} ${kuhnVerb(b.action, b.facing, true)}`).join(", ")}.`)
    let pot = h.length >= n ? n : 0
    let mine = h.length >= n ? 1 : 0
    for (const b of bets) {
      if (b.action === KuhnPoker.BET) {
        pot++
        if (b.player === player) mine++
      }
    }
    lines.push(`Pot: ${plural(pot, "chip", "chips")}; you have put in ${mine}.`)
    lines.push(turnLine(state, player))
    return lines.join("\n")
  },
  command: (state, action, game) => {
    const facing = kuhnBets(game, state).some((b) => b.action === KuhnPoker.BET)
    return kuhnVerb(action, facing, false)
  }
}

const leducCard = (card: number, ranks: number): string =>
  card < 0 ? "not dealt yet" : `${rankName(Math.floor(card / 2), ranks)} (suit ${(card % 2) + 1})`

const leducVerb = (action: number, facing: boolean, past: boolean): string =>
  action === LeducPoker.FOLD ? (past ? "folded" : "fold")
  : action === LeducPoker.CALL ? (facing ? (past ? "called" : "call") : (past ? "checked" : "check"))
  : facing ? (past ? "raised" : "raise") : "bet"

const leduc: GameDescription = {
  rules: (game) => {
    const n = game.info.numPlayers
    const ranks = n + 1
    const names = Array.from({ length: ranks }, (_, r) => rankName(r, ranks)).join(" < ")
    return `Leduc hold'em for ${n} players. The deck has two suits of ${ranks} ranks (${names}). Every player antes 1 ` +
      `chip (of 100) and is dealt one private card. There are two betting rounds, each opened by player 0 (or the ` +
      `next player still in): with no bet to match, "check" or "bet"; facing a bet, "fold", "call" or "raise". At most ` +
      `2 bets or raises per round, of 2 chips in round 1 and 4 chips in round 2. After round 1 a public card is dealt. ` +
      `At the showdown a pair with the public card beats any other hand, else the higher card wins; ties split the ` +
      `pot. Your payoff is your chips at the end minus the 100 you started with.`
  },
  observe: (state, player, game) => {
    const n = game.info.numPlayers
    const ranks = n + 1
    const s = state as LeducPoker.LeducPokerState
    const lines = [`You are player ${player} of ${n} in Leduc hold'em.`]
    lines.push(`Your card: ${leducCard(s.privateCard(player), ranks)}.`)
    lines.push(`Public card: ${leducCard(s.publicCard(), ranks)}.`)
    const rounds: [Array<string>, Array<string>] = [[], []]
    let chance = 0
    for (const m of replay(game, state)) {
      if (m.player === CHANCE) {
        chance++
        continue
      }
      rounds[chance > n ? 1 : 0].push(`player ${m.player} ${leducVerb(m.action, m.legal.includes(LeducPoker.FOLD), true)}`)
    }
    lines.push(`Round 1 betting: ${rounds[0].length === 0 ? "none" : rounds[0].join(", ")}.`)
    if (chance > n) lines.push(`Round 2 betting: ${rounds[1].length === 0 ? "none" : rounds[1].join(", ")}.`)
    // pot and chips from OpenSpiel's information-state header ([Pot: x][Money: a b ...])
    const info = state.informationStateString(player)
    const pot = /\[Pot: ([\d.]+)\]/.exec(info)?.[1]
    const money = /\[Money: ([^\]]*)\]/.exec(info)?.[1]?.split(" ").map(Number) ?? []
    if (pot !== undefined && money.length === n) {
      lines.push(`Pot: ${pot} chips. Chips put in: ${money.map((m, p) => `player ${p} ${100 - m}`).join(", ")}.`)
    }
    lines.push(turnLine(state, player))
    return lines.join("\n")
  },
  command: (state, action) => leducVerb(action, state.legalActions().includes(LeducPoker.FOLD), false)
}

// ---------------------------------------------------------------------------------------------------------------
// Boards

const ticTacToe: GameDescription = {
  rules: () =>
    `Tic-tac-toe on a 3x3 board. Player 0 plays x and moves first; player 1 plays o. Cells are numbered 0 to 8 row ` +
    `by row from the top left. On your turn, "place N" puts your mark in the empty cell N. Three marks in a row, ` +
    `column or diagonal win (+1, the opponent -1); a full board without a line is a draw (0).`,
  observe: (state, player) => {
    const h = state.history()
    const cells = Array.from({ length: 9 }, (_, c) => String(c))
    h.forEach((c, i) => {
      cells[c] = i % 2 === 0 ? "x" : "o"
    })
    const rows = [0, 1, 2].map((r) => cells.slice(3 * r, 3 * r + 3).join(" "))
    return [
      `You are player ${player} (${player === 0 ? "x" : "o"}) in tic-tac-toe; player ${1 - player} plays ${player === 0 ? "o" : "x"}.`,
      "Board (empty cells show their number):",
      ...rows,
      `Moves so far: ${h.length === 0 ? "none" : h.map((c, i) => `${i % 2 === 0 ? "x" : "o"} in ${c}`).join(", ")}.`,
      turnLine(state, player)
    ].join("\n")
  },
  command: (_state, action) => `place ${action}`
}

const connectFour: GameDescription = {
  rules: () =>
    `Connect Four on a board of 6 rows and 7 columns (numbered 0 to 6). Player 0 plays x and moves first; player 1 ` +
    `plays o. On your turn, "drop N" drops your disc into column N, where it falls to the lowest empty cell; a full ` +
    `column cannot be played. Four of your discs in a row, horizontally, vertically or diagonally, win (+1, the ` +
    `opponent -1); a full board without a line is a draw (0).`,
  observe: (state, player) => {
    const h = state.history()
    const rows = Array.from({ length: 6 }, () => Array.from({ length: 7 }, () => "."))
    const heights = new Array<number>(7).fill(0)
    h.forEach((c, i) => {
      rows[heights[c]!]![c] = i % 2 === 0 ? "x" : "o"
      heights[c]!++
    })
    return [
      `You are player ${player} (${player === 0 ? "x" : "o"}) in Connect Four; player ${1 - player} plays ${player === 0 ? "o" : "x"}.`,
      "Board (top row first; the column numbers are on top):",
      "0123456",
      ...rows.reverse().map((r) => r.join("")),
      `Columns played so far: ${h.length === 0 ? "none" : h.join(", ")}.`,
      turnLine(state, player)
    ].join("\n")
  },
  command: (_state, action) => `drop ${action}`
}

// ---------------------------------------------------------------------------------------------------------------
// Liar's dice

const bidText = (game: LiarsDiceGame, bid: number): string => {
  const q = Math.floor(bid / game.sides) + 1
  return `${plural(q, "die", "dice")} of ${(bid % game.sides) + 1}`
}

const liarsDice: GameDescription = {
  rules: (game) => {
    const g = game as LiarsDiceGame
    return `Liar's dice for 2 players with ${plural(g.numDice, "die", "dice")} each of ${g.sides} faces; the highest ` +
      `face (${g.sides}) is wild and matches every face. Each player sees only their own dice. Players move in turn ` +
      `from player 0: "bid Q dice of F" claims that at least Q of all ${g.totalDice} dice show face F; every bid must ` +
      `be higher than the last (more dice, or as many dice of a higher face). Instead of bidding you may say "liar" ` +
      `to challenge the last bid: the dice are shown, and if the bid holds the bidder wins (+1, you -1), otherwise ` +
      `you win (+1, the bidder -1).`
  },
  observe: (state, player, game) => {
    const g = game as LiarsDiceGame
    const s = state as LiarsDiceState
    const dice = s.dice(player)
    const lines = [`You are player ${player} in Liar's dice.`]
    lines.push(`Your dice: ${dice.every((d) => d > 0) ? dice.join(" ") : "not rolled yet"}.`)
    const moves = replay(game, state).filter((m) => m.player >= 0)
    lines.push(`Bids so far: ${moves.length === 0 ? "none" : moves.map((m) => m.action === g.liar ? `player ${m.player} called liar` : `player ${m.player} bid ${bidText(g, m.action)}`).join(", ")}.`)
    lines.push(turnLine(state, player))
    return lines.join("\n")
  },
  command: (_state, action, game) => {
    const g = game as LiarsDiceGame
    return action === g.liar ? "liar" : `bid ${bidText(g, action)}`
  },
  normalize: (command) => command.replace(/\bdice\b/g, "die")
}

// ---------------------------------------------------------------------------------------------------------------
// Negotiation

const negotiation: GameDescription = {
  rules: (game) => {
    const g = game as NegotiationGame
    const lapse = g.variant === "spiral"
      ? `An offer stands until its recipient accepts or denies it or either player makes a new offer; its recipient may ` +
        `also "pass" and accept later.`
      : `An offer you receive is rejected unless you accept it on your next turn; a counter-offer also rejects it.`
    return `Simple Negotiation (${g.variant === "spiral" ? "SPIRAL's SimpleNegotiation-v1" : "TextArena's SimpleNegotiation"}) ` +
      `for 2 players. Each player holds some ${g.resourceNames.join(", ")} and values each resource privately; your ` +
      `opponent values them differently. The game lasts ${g.maxTurns} turns in total; players alternate, starting with ` +
      `player 0. On your turn, one command: "offer A X -> B Y" proposes to give A units of X for B units of Y (1 to ` +
      `${g.maxOffer} units on each side, covered by your inventory); "accept" takes the offer made to you, and the trade ` +
      `happens at once; "deny" rejects it; "pass" makes no offer. ${lapse} When the turns run out, each inventory is ` +
      `valued at its owner's prices: the player whose value increased more wins (+1, the other -1); equal increases ` +
      `are a draw (0).`
  },
  observe: (state, player, game) => {
    const g = game as NegotiationGame
    const s = state as NegotiationState
    const lines = [`You are player ${player} in Simple Negotiation.`]
    if (!s.dealtTo(player)) {
      lines.push("Your resources are not dealt yet.")
      return lines.join("\n")
    }
    lines.push("Your resources (quantity, your value per unit):")
    let now = 0
    let start = 0
    for (let k = 0; k < g.numResources; k++) {
      const v = s.value(player, k)
      now += v * s.quantity(player, k)
      start += v * s.initialQuantity(player, k)
      lines.push(`  ${g.resourceNames[k]}: ${s.quantity(player, k)} (value ${v})`)
    }
    lines.push(`Your inventory value: ${now} (started at ${start}; change ${signed(now - start)}).`)
    lines.push(`Turn ${Math.min(s.turn() + 1, g.maxTurns)} of ${g.maxTurns}.`)
    const said = s.moveHistory().map((a, t) => {
      const who = `player ${t % 2}`
      if (a === Negotiation.ACCEPT) return `${who} accepted`
      if (a === Negotiation.DENY) return `${who} denied`
      if (a === Negotiation.PASS) return `${who} passed`
      return `${who} offered ${g.offerText(g.decodeOffer(a)!)}`
    })
    lines.push(`History: ${said.length === 0 ? "none" : said.join("; ")}.`)
    const pending = s.pendingOffer()
    if (pending !== undefined) {
      lines.push(pending.from !== player
        ? `Offer to you from player ${pending.from}: you give ${pending.getQty} ${g.resourceNames[pending.get]}, you get ${pending.giveQty} ${g.resourceNames[pending.give]}.`
        : `Your offer to player ${1 - player} stands: ${g.offerText(pending)}.`)
    }
    lines.push(turnLine(state, player))
    return lines.join("\n")
  },
  command: (_state, action, game) => {
    const g = game as NegotiationGame
    if (action === Negotiation.ACCEPT) return "accept"
    if (action === Negotiation.DENY) return "deny"
    if (action === Negotiation.PASS) return "pass"
    const o = g.decodeOffer(action)
    return o === undefined ? `action ${action}` : `offer ${g.offerText(o)}`
  }
}

// ---------------------------------------------------------------------------------------------------------------

/** The description of games without an entry: the information-state string and `actionToString`, lower-cased. */
export const fallbackDescription: GameDescription = {
  rules: (game) => `${game.info.name}: a ${game.info.numPlayers}-player game. Choose one of the admissible commands on your turn.`,
  observe: (state, player, game) =>
    [`You are player ${player} of ${game.info.numPlayers} in ${game.info.name}.`, state.informationStateString(player), turnLine(state, player)].join("\n"),
  command: (state, action) => state.actionToString(state.currentPlayer(), action).toLowerCase()
}

const table = new Map<string, GameDescription>([
  ["kuhn_poker", kuhn],
  ["leduc_poker", leduc],
  ["tic_tac_toe", ticTacToe],
  ["connect_four", connectFour],
  ["liars_dice", liarsDice],
  ["negotiation", negotiation]
])

/** Add or replace the description of the game named `name` (its `info.name`). */
export const registerDescription = (name: string, description: GameDescription): void => {
  table.set(name, description)
}

/** The description of `game` (by `info.name`), or {@link fallbackDescription}. */
export const descriptionOf = (game: Game): GameDescription => table.get(game.info.name) ?? fallbackDescription

/** Names of the games with a description, sorted. */
export const describedGames = (): Array<string> => [...table.keys()].sort()

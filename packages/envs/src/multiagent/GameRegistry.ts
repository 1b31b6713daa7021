/**
 * The game registry: OpenSpiel short names, with OpenSpiel's `name(param=value,...)` syntax, mapped to
 * extensive-form {@link Game} constructors (OpenSpiel's `pyspiel.load_game`).
 *
 * **Details**
 * - Built in: `kuhn_poker(players=2..10)`, `leduc_poker(players=2..10)`, `tic_tac_toe`, `connect_four`,
 *   `liars_dice(players=2,numdice=1,dice_sides=6)`,
 *   `negotiation(variant=textarena|spiral,max_turns=10,num_resources=5,min_quantity=5,max_quantity=25,max_offer=3)`
 *   (SPIRAL's Simple Negotiation), and the matrix games `matrix_rps`, `matrix_mp`, `matrix_pd`,
 *   `matrix_cd` (alias `matrix_chicken`), `matrix_shapleys_game`, `matrix_brps`, `matrix_sh`,
 *   `matrix_coordination`, `matrix_bos` (payoffs of OpenSpiel's `matrix_games.cc`, played turn-based).
 * - Parameter values parse as integers, floats, `true`/`false`, or strings.
 * - `registerGame(name, factory, parameters)` adds a game (user-defined, e.g. a {@link TreeGame}).
 *
 * **Gotchas**
 * - An unknown name, an unknown parameter, or a value out of range fails with {@link UnknownGameError}, whose
 *   `known` lists the registered names (and `reason` says what was wrong).
 *
 * @example
 * ```ts
 * import { GameRegistry } from "@autodidact/envs"
 * const game = GameRegistry.loadGame("kuhn_poker(players=3)")
 * game.info.numPlayers // 3
 * ```
 * @see https://github.com/google-deepmind/open_spiel/blob/master/open_spiel/game_parameters.cc (the name syntax)
 * @see Lanctot et al. 2019, "OpenSpiel: A Framework for Reinforcement Learning in Games", arXiv:1908.09453
 * @since 0.1.0
 */
import { Schema } from "effect"
import * as ConnectFour from "./ConnectFour.js"
import type { Game } from "./Game.js"
import * as KuhnPoker from "./KuhnPoker.js"
import * as LeducPoker from "./LeducPoker.js"
import * as LiarsDice from "./LiarsDice.js"
import * as Negotiation from "./Negotiation.js"
import * as NormalFormGame from "./NormalFormGame.js"
import * as TicTacToe from "./TicTacToe.js"

/**
 * `loadGame` of a name that is not registered, of a malformed name, or with a parameter that the game does not
 * take or that is out of range.
 * @category errors
 */
export class UnknownGameError extends Schema.TaggedError<UnknownGameError>()("UnknownGameError", {
  name: Schema.String,
  reason: Schema.String,
  known: Schema.Array(Schema.String)
}) {
  override get message() {
    return `${this.reason}; known games: ${this.known.join(", ")}`
  }
}

/** A parameter value. */
export type ParamValue = number | boolean | string
/** Parsed parameters. */
export type Params = { readonly [key: string]: ParamValue }

/** A registration: the factory and its parameters with defaults. */
export interface GameRegistration {
  /** Short name, e.g. `kuhn_poker` (what `loadGame` parses before the parentheses). */
  readonly name: string
  /** Parameter names with their default values; other names are rejected. */
  readonly parameters: Params
  /** Builds the game from the merged parameters; may throw (reported as {@link UnknownGameError}). */
  readonly factory: (params: Params) => Game
}

const registry = new Map<string, GameRegistration>()

/** Register (or replace) a game under `name`. */
export const registerGame = (name: string, factory: (params: Params) => Game, parameters: Params = {}): void => {
  registry.set(name, { name, parameters, factory })
}

/** Registered game names, sorted. */
export const gameNames = (): Array<string> => [...registry.keys()].sort()

const parseValue = (raw: string): ParamValue => {
  const s = raw.trim()
  if (s === "true") return true
  if (s === "false") return false
  if (/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(s)) return Number(s)
  return s
}

/**
 * Split `name(k=v,...)` into the name and its parameters.
 * @throws UnknownGameError when the string is malformed.
 */
export const parseGameString = (spec: string): { readonly name: string; readonly params: Params } => {
  const m = /^\s*([A-Za-z0-9_]+)\s*(?:\((.*)\))?\s*$/.exec(spec)
  if (m === null) throw new UnknownGameError({ name: spec, reason: `malformed game string "${spec}"`, known: gameNames() })
  const params: Record<string, ParamValue> = {}
  const body = m[2]?.trim() ?? ""
  if (body !== "") {
    for (const part of body.split(",")) {
      const eq = part.indexOf("=")
      if (eq <= 0) {
        throw new UnknownGameError({ name: spec, reason: `malformed parameter "${part}" (expected key=value)`, known: gameNames() })
      }
      params[part.slice(0, eq).trim()] = parseValue(part.slice(eq + 1))
    }
  }
  return { name: m[1]!, params }
}

/**
 * The game named by `spec` (`"kuhn_poker"`, `"kuhn_poker(players=3)"`, ...), with `params` merged over the
 * string's parameters.
 * @throws UnknownGameError when the name is not registered, a parameter is unknown, or the factory rejects a value.
 */
export const loadGame = (spec: string, params: Params = {}): Game => {
  const parsed = parseGameString(spec)
  const reg = registry.get(parsed.name)
  if (reg === undefined) {
    throw new UnknownGameError({ name: parsed.name, reason: `unknown game "${parsed.name}"`, known: gameNames() })
  }
  const merged: Record<string, ParamValue> = { ...reg.parameters }
  for (const [k, v] of Object.entries({ ...parsed.params, ...params })) {
    if (!(k in reg.parameters)) {
      const accepted = Object.keys(reg.parameters)
      throw new UnknownGameError({
        name: parsed.name,
        reason: `game "${parsed.name}" has no parameter "${k}" (accepted: ${accepted.length > 0 ? accepted.join(", ") : "none"})`,
        known: gameNames()
      })
    }
    if (typeof v !== typeof reg.parameters[k]) {
      throw new UnknownGameError({
        name: parsed.name,
        reason: `parameter "${k}" of "${parsed.name}" must be a ${typeof reg.parameters[k]}, got ${JSON.stringify(v)}`,
        known: gameNames()
      })
    }
    merged[k] = v
  }
  try {
    return reg.factory(merged)
  } catch (e) {
    if (e instanceof UnknownGameError) throw e
    throw new UnknownGameError({
      name: parsed.name,
      reason: `bad parameters for "${parsed.name}" ${JSON.stringify(merged)}: ${e instanceof Error ? e.message : String(e)}`,
      known: gameNames()
    })
  }
}

registerGame("kuhn_poker", (p) => KuhnPoker.make({ players: p["players"] as number }), { players: 2 })
registerGame("leduc_poker", (p) => LeducPoker.make({ players: p["players"] as number }), { players: 2 })
registerGame("tic_tac_toe", () => TicTacToe.make())
registerGame("connect_four", () => ConnectFour.make())
registerGame("negotiation", (p) => {
  const spiral = p["variant"] === "spiral"
  // under variant=spiral the deal is fixed: pass the deal parameters only when they were changed (an error then)
  const deal = (key: string, fallback: number) => (spiral && p[key] === fallback ? undefined : p[key] as number)
  return Negotiation.make({
    variant: p["variant"] as Negotiation.Variant,
    maxTurns: p["max_turns"] as number,
    numResources: deal("num_resources", 5),
    minQuantity: deal("min_quantity", 5),
    maxQuantity: deal("max_quantity", 25),
    maxOffer: p["max_offer"] as number
  })
}, { variant: "textarena", max_turns: 10, num_resources: 5, min_quantity: 5, max_quantity: 25, max_offer: 3 })
registerGame("liars_dice", (p) => {
  if (p["players"] !== 2) throw new Error(`liars_dice supports exactly 2 players, got ${p["players"]}`)
  return LiarsDice.make({ numdice: p["numdice"] as number, diceSides: p["dice_sides"] as number })
}, { players: 2, numdice: 1, dice_sides: 6 })
registerGame("matrix_rps", () => NormalFormGame.rockPaperScissors())
registerGame("matrix_mp", () => NormalFormGame.matchingPennies())
registerGame("matrix_pd", () => NormalFormGame.prisonersDilemma())
registerGame("matrix_cd", () => NormalFormGame.chicken())
registerGame("matrix_chicken", () => NormalFormGame.chicken())
registerGame("matrix_shapleys_game", () => NormalFormGame.shapleysGame())
registerGame("matrix_brps", () => NormalFormGame.biasedRockPaperScissors())
registerGame("matrix_sh", () => NormalFormGame.stagHunt())
registerGame("matrix_coordination", () => NormalFormGame.coordination())
registerGame("matrix_bos", () => NormalFormGame.bachOrStravinsky())

/**
 * The extensive-form game types the solvers walk: `@autodidact/envs`' `Game` and `State` (OpenSpiel semantics: player
 * ids `>= 0`, chance `-1`, terminal `-4`; `undoAction(player, a)` reverses `applyAction(a)`), named here once so the
 * solver modules read `Game`/`State`.
 * @since 0.1.0
 */
import type { Game as GameModule } from "@autodidact/envs"

/** A mutable game state walked with `applyAction` / `undoAction`. */
export type State = GameModule.State

/** A game: its facts and a factory of initial states. */
export type Game = GameModule.Game

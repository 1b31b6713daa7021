/**
 * Text views of extensive-form games: any {@link Game} read and played in words, as SPIRAL plays its games with
 * language models, behind the PettingZoo AEC API (built on `GameEnv`'s {@link GameAecEnv}).
 *
 * **When to use**: self-play of text policies (DRRN, LLMs) on the OpenSpiel-style games (Kuhn and Leduc poker,
 * tic-tac-toe, Connect Four, Liar's dice, Simple Negotiation), with exact analysis still possible through the
 * underlying game state.
 *
 * **Details**
 * - {@link GameTextView} is the stateless view: `observation(state, player)` is the player's information state in
 *   words (seat, private cards or dice, public history, board; from the per-game table of `GameDescriptions`);
 *   `commands(state)` lists the admissible text commands of the player to move, aligned with `legalActions()`
 *   (`"bet"`, `"call"`, `"fold"`, `"place 5"`, `"drop 3"`, `"bid 2 dice of 4"`, `"offer 2 Wheat -> 1 Wood"`,
 *   `"accept"`); `parse(state, command, player?)` maps a command back to its action; `stateKey(state, player)` is a
 *   canonical key of the player's information state; `toMessages(trajectory)` renders a seat's episode as chat turns
 *   like `TextEnv` (system: the rules; user: observation + admissible commands; assistant: the command).
 * - Commands are matched after normalisation: lower case, surrounding `[...]` removed, `:` read as a space, runs
 *   of white space collapsed, a trailing `.` or `!` dropped (so TextArena's `"[Offer: 2 Wheat -> 1 Wood]"` and
 *   `"[Accept]"` parse), plus the game's own rule (Liar's dice reads `dice` as `die`).
 * - `stateKey` is `"<game>(<params>)/player_<p>/<informationStateString(p)>"`: equal exactly when the game, the
 *   seat and the information state are equal, so GiGPO-style anchor groups form across self-play trajectories. For
 *   perfect-information games (`game.info.perfectInformation`: tic-tac-toe, Connect Four) it is
 *   `"<game>(<params>)/player_<p>/board/<observationString(p)>"` instead — OpenSpiel's information state there is the
 *   move history, while the board is the whole state — so transpositions (one board reached by two move orders)
 *   share a key and an anchor group.
 * - {@link GameTextAecEnv} plays the game with string observations and string commands: `observe(agent)` is the
 *   view's observation, `step(command)` parses it for `agentSelection`, `act(agent, command)` also checks the seat,
 *   `admissibleActions()` lists the commands of the agent to act, `infos[agent].offeredActions` holds them for that
 *   agent (what `TextEnv.textMessages` prints), and rewards, terminations, dead steps and seeding are `GameAecEnv`'s.
 * - Registered in the env registry as `<game>-text-v0` (`kuhn_poker-text-v0`, `leduc_poker-text-v0`,
 *   `tic_tac_toe-text-v0`, `connect_four-text-v0`, `liars_dice-text-v0`, `negotiation-text-v0`); build them with
 *   `Registry.makeAec(id, kwargs)`, where `kwargs` are the game's registry parameters (e.g. `{ players: 3 }`).
 *
 * **Gotchas**
 * - An inadmissible command throws core's `InvalidActionError` naming the command and listing the admissible ones;
 *   a command for a seat that is not to move throws {@link NotToMoveError} naming the seat; a `null` command for a
 *   live agent, or a command for a dead one, throws `InvalidActionError` (PettingZoo's dead-step rule).
 * - The observation text is a function of the seat and its information state, except the final payoff line at a
 *   terminal state (which may depend on the opponents' cards).
 *
 * @example
 * ```ts
 * import { GameRegistry, GameText } from "@autodidact/envs"
 * const env = GameText.gameToTextAec(GameRegistry.loadGame("kuhn_poker"))
 * env.reset({ seed: 0 })
 * env.admissibleActions() // ["check", "bet"]
 * env.step("bet")
 * env.observe("player_1") // "You are player 1 of 2 in Kuhn poker.\nYour card: ...\nBetting so far: player 0 bet.\n..."
 * env.act("player_0", "call") // throws NotToMoveError: player 1 is to move
 * ```
 * @see Liu et al. 2025, "SPIRAL: Self-Play on Zero-Sum Games Incentivizes Reasoning via Multi-Agent Multi-Turn
 *   Reinforcement Learning", arXiv:2506.24119
 * @see Feng et al. 2025, "Group-in-Group Policy Optimization for LLM Agent Training", arXiv:2505.10978 (anchor states)
 * @see https://pettingzoo.farama.org/api/aec/
 * @since 0.3.0
 */
import { InvalidActionError, Space, type Trajectory } from "@autodidact/core"
import type { Info } from "../Env.js"
import { type ChatMessage, textMessages } from "../text/TextEnv.js"
import type { AecEnv, LastResult, ResetOptions } from "./AecEnv.js"
import { type Game, NotToMoveError, type State } from "./Game.js"
import { descriptionOf, type GameDescription } from "./GameDescriptions.js"
import { GameAecEnv, OBSERVATION_CHARSET } from "./GameEnv.js"

export { describedGames, descriptionOf, fallbackDescription, type GameDescription, registerDescription } from "./GameDescriptions.js"

/** Lower case, `[...]` and `:` removed, white space collapsed, a trailing `.`/`!` dropped. */
export const normalizeCommand = (command: string): string => {
  let s = command.trim().toLowerCase().replace(/[.!]+$/, "").trim()
  if (s.startsWith("[") && s.endsWith("]")) s = s.slice(1, -1)
  s = s.replace(/:/g, " ").replace(/\s+/g, " ").trim()
  return s.replace(/[.!]+$/, "").trim()
}

/** The text view of a game (stateless: every method takes the state). */
export class GameTextView {
  /** The per-game description used. */
  readonly description: GameDescription
  /** The rules in words (the chat view's system turn). */
  readonly rules: string
  /** `name(k=v,...)` of the game, the prefix of every state key. */
  readonly gameKey: string

  /** @param game the game; @param description its words (default: the table entry of `game.info.name`). */
  constructor(readonly game: Game, description?: GameDescription) {
    this.description = description ?? descriptionOf(game)
    this.rules = this.description.rules(game)
    const params = Object.entries(game.info.parameters).map(([k, v]) => `${k}=${String(v)}`).join(",")
    this.gameKey = `${game.info.name}(${params})`
  }

  /** What `player` knows at `state`, in words. */
  observation(state: State, player: number): string {
    return this.description.observe(state, player, this.game)
  }

  /** The command of `action` for the player to move at `state`. */
  command(state: State, action: number): string {
    return this.description.command(state, action, this.game)
  }

  /**
   * The admissible commands of the player to move, aligned with `state.legalActions()` (empty at chance and terminal
   * states). Commands that would read the same are told apart by a `" #<action>"` suffix.
   */
  commands(state: State): Array<string> {
    if (state.isTerminal() || state.isChanceNode()) return []
    const legal = state.legalActions()
    const out = legal.map((a) => this.command(state, a))
    const seen = new Set(out.map((c) => this.normalize(c)))
    if (seen.size !== out.length) return out.map((c, i) => `${c} #${legal[i]}`)
    return out
  }

  private normalize(command: string): string {
    const s = normalizeCommand(command)
    return this.description.normalize === undefined ? s : this.description.normalize(s)
  }

  /**
   * The action of `command` for the player to move (and, when `player` is given, checked to be that seat).
   * @throws NotToMoveError when `player` is given and is not to move; InvalidActionError naming the command and the
   *   admissible ones when it is not admissible (or no player is to move).
   */
  parse(state: State, command: string, player?: number): number {
    const toMove = state.currentPlayer()
    if (player !== undefined && player !== toMove) throw new NotToMoveError({ game: this.game.info.name, player, toMove })
    const commands = this.commands(state)
    if (typeof command === "string") {
      const want = this.normalize(command)
      const i = commands.findIndex((c) => this.normalize(c) === want)
      if (i >= 0) return state.legalActions()[i]!
    }
    throw new InvalidActionError({
      envId: this.game.info.name,
      action: command,
      space: commands.length === 0 ? "no command (no player is to move)" : `one of ${commands.map((c) => JSON.stringify(c)).join(", ")}`
    })
  }

  /** Canonical key of `player`'s information state (see the module docs). */
  stateKey(state: State, player: number): string {
    return this.game.info.perfectInformation
      ? `${this.gameKey}/player_${player}/board/${state.observationString(player)}`
      : `${this.gameKey}/player_${player}/${state.informationStateString(player)}`
  }

  /**
   * A seat's episode as chat turns (`TextEnv.textMessages`): system = the rules + "Your task is to: " + the task
   * (`trajectory.task`, default "win the game"); per step a user turn (the observation, plus the admissible list when
   * `step.info.offeredActions` is a string array) and an assistant turn (the command).
   */
  toMessages(trajectory: Trajectory.Trajectory): Array<ChatMessage> {
    return textMessages(this.rules, trajectory.task ?? "win the game", trajectory)
  }
}

/** The text view of `game` (see the module docs). */
export const textView = (game: Game, description?: GameDescription): GameTextView => new GameTextView(game, description)

/** Options of {@link gameToTextAec}. */
export interface GameTextAecOptions {
  /** Longest observation (the `Text` observation space's `maxLength`; default 8192). */
  readonly maxObservationLength?: number | undefined
  /** Longest command (the `Text` action space's `maxLength`; default 256). */
  readonly maxCommandLength?: number | undefined
  /** The game's words (default: the table entry of `game.info.name`). */
  readonly description?: GameDescription | undefined
}

const agentIndex = (env: GameTextAecEnv, agent: string): number => env.possibleAgents.indexOf(agent)

/** A {@link Game} played in words as a PettingZoo AEC env (see the module docs). */
export class GameTextAecEnv implements AecEnv<string, string> {
  /** The view (observations, commands, state keys, chat). */
  readonly view: GameTextView
  /** The numeric AEC env underneath (chance sampling, rewards, dead steps). */
  readonly inner: GameAecEnv
  /** `name`: `<game>-text`; `is_parallelizable: false`. */
  readonly metadata: { readonly name: string; readonly is_parallelizable: boolean }
  private readonly obsSpace: Space.Space
  private readonly actSpace: Space.Space
  /** `admissibleActions()` and `infos` of the current state (cleared by `reset` and `step`). */
  private cache: { commands: Array<string>; infos: { readonly [agent: string]: Info } } | undefined

  constructor(readonly game: Game, options: GameTextAecOptions = {}) {
    this.view = new GameTextView(game, options.description)
    this.inner = new GameAecEnv(game)
    this.metadata = { name: `${game.info.name}-text`, is_parallelizable: false }
    this.obsSpace = Space.text(options.maxObservationLength ?? 8192, { minLength: 0, charset: OBSERVATION_CHARSET })
    this.actSpace = Space.text(options.maxCommandLength ?? 256, { minLength: 0, charset: OBSERVATION_CHARSET })
  }

  /** `player_0..player_{N-1}`. */
  get possibleAgents(): ReadonlyArray<string> {
    return this.inner.possibleAgents
  }
  get agents(): ReadonlyArray<string> {
    return this.inner.agents
  }
  get agentSelection(): string {
    return this.inner.agentSelection
  }
  get rewards(): { readonly [agent: string]: number } {
    return this.inner.rewards
  }
  get terminations(): { readonly [agent: string]: boolean } {
    return this.inner.terminations
  }
  get truncations(): { readonly [agent: string]: boolean } {
    return this.inner.truncations
  }
  /** Per live agent: `{ offeredActions }` (the admissible commands) for the agent to act, `{}` for the others. */
  get infos(): { readonly [agent: string]: Info } {
    return this.current().infos
  }

  private current(): { commands: Array<string>; infos: { readonly [agent: string]: Info } } {
    if (this.cache === undefined) {
      const live = this.liveSelected()
      const commands = live === undefined ? [] : this.view.commands(this.inner.gameState)
      const infos: Record<string, Info> = {}
      for (const a of this.inner.agents) infos[a] = a === live ? { offeredActions: commands } : {}
      this.cache = { commands, infos }
    }
    return this.cache
  }

  /** The underlying game state (read it, do not mutate it). */
  get gameState(): State {
    return this.inner.gameState
  }

  /** `Text` over printable ASCII and newline, the same for every agent. */
  observationSpace(_agent: string): Space.Space {
    return this.obsSpace
  }
  /** `Text` commands, the same for every agent (the admissible ones are `admissibleActions()`). */
  actionSpace(_agent: string): Space.Space {
    return this.actSpace
  }

  reset(options: ResetOptions = {}): void {
    this.cache = undefined
    this.inner.reset(options)
  }

  /** The selected agent when it is live and to move, else undefined. */
  private liveSelected(): string | undefined {
    const a = this.inner.agentSelection
    return this.inner.terminations[a] === true || this.inner.truncations[a] === true ? undefined : a
  }

  /** `agent`'s information state in words. */
  observe(agent: string): string {
    return this.view.observation(this.inner.gameState, agentIndex(this, agent))
  }

  last(): LastResult<string> {
    const l = this.inner.last()
    return { ...l, observation: this.observe(this.inner.agentSelection), info: this.infos[this.inner.agentSelection] ?? {} }
  }

  /** Commands admissible for `agentSelection` now (empty when it is dead). */
  admissibleActions(): Array<string> {
    return [...this.current().commands]
  }

  /**
   * Act for `agentSelection` with a text command; `null` for a dead agent (PettingZoo's dead step).
   * @throws InvalidActionError for an inadmissible command (naming it), a `null` for a live agent, or a command for a
   *   dead one.
   */
  step(command: string | null): void {
    if (command === null || this.liveSelected() === undefined) {
      this.inner.step(command as unknown as number | null)
    } else {
      this.inner.step(this.view.parse(this.inner.gameState, command))
    }
    this.cache = undefined
  }

  /**
   * Act for `agent`, which must be the agent to act.
   * @throws NotToMoveError naming the seat when `agent` is not `agentSelection` (or is not an agent of this game);
   *   InvalidActionError as {@link step}.
   */
  act(agent: string, command: string): void {
    const p = agentIndex(this, agent)
    if (agent !== this.inner.agentSelection || this.liveSelected() === undefined) {
      throw new NotToMoveError({ game: this.game.info.name, player: p, toMove: this.inner.gameState.currentPlayer() })
    }
    this.step(command)
  }

  /** Key of `agent`'s information state (default the agent to act), for anchor-state grouping. */
  stateKey(agent: string = this.inner.agentSelection): string {
    return this.view.stateKey(this.inner.gameState, agentIndex(this, agent))
  }

  /** A seat's episode as chat turns (see {@link GameTextView.toMessages}). */
  toMessages(trajectory: Trajectory.Trajectory): Array<ChatMessage> {
    return this.view.toMessages(trajectory)
  }

  close(): void {
    this.inner.close()
  }
}

/** Play `game` in words as a PettingZoo AEC env (see the module docs). */
export const gameToTextAec = (game: Game, options: GameTextAecOptions = {}): GameTextAecEnv => new GameTextAecEnv(game, options)

/** The games registered as `<name>-text-v0` env ids. */
export const TEXT_GAMES: ReadonlyArray<string> = Object.freeze(["kuhn_poker", "leduc_poker", "tic_tac_toe", "connect_four", "liars_dice", "negotiation"])

/** The env id of the text view of game `name` (`kuhn_poker` -> `kuhn_poker-text-v0`). */
export const textEnvId = (name: string): string => `${name}-text-v0`

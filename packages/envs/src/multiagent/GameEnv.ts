/**
 * Any extensive-form {@link Game} (OpenSpiel's API, Lanctot et al. 2019, "OpenSpiel: A Framework for Reinforcement
 * Learning in Games", arXiv:1908.09453) played as a PettingZoo AEC or Parallel env (arXiv:2009.14471).
 *
 * **Details**
 * - Agents are `player_0..player_{N-1}`; chance nodes are sampled with the env's {@link Rng} (seeded by
 *   `reset({ seed })`).
 * - Observations are `{ observation, action_mask }` as in PettingZoo's classic envs: `observation` is the
 *   information-state string (a `Text` space over {@link OBSERVATION_CHARSET}, at most `maxObservationLength`
 *   characters), or a `Float32Array` of `encode.shape` (a `Box(-inf, inf)` space) when `encode` is given;
 *   `action_mask` is a `Uint8Array(numDistinctActions)` with 1 at the legal actions of the agent to act (all zeros for
 *   the others). The action space is `Discrete(numDistinctActions)`.
 * - Rewards are changes of `returns()` (so the final utilities for terminal-reward games).
 * - {@link gameToParallel} plays one move per step (only the acting agent's action is read), except for
 *   normal-form games, where all players move in one step.
 *
 * **Gotchas**
 * - Stepping a live agent with an illegal action throws the game's `IllegalActionError`; stepping it with `null`
 *   throws `InvalidActionError`; stepping a dead agent with a non-null action throws `InvalidActionError`.
 *
 * @example
 * ```ts
 * import { GameRegistry, MultiAgent } from "@autodidact/envs"
 * const env = MultiAgent.gameToAec(GameRegistry.loadGame("tic_tac_toe"))
 * env.reset({ seed: 0 })
 * while (env.agents.length > 0) {
 *   const { observation, termination, truncation } = env.last()
 *   env.step(termination || truncation ? null : observation.action_mask.indexOf(1))
 * }
 * ```
 * @see https://github.com/Farama-Foundation/PettingZoo/tree/master/pettingzoo/classic
 * @since 0.2.0
 */
import { InvalidActionError, Rng, Space } from "@autodidact/core"
import type { Info } from "../Env.js"
import type { AecEnv, LastResult, ResetOptions } from "./AecEnv.js"
import type { Game, State } from "./Game.js"
import type { ParallelEnv, ParallelStepResult } from "./ParallelEnv.js"

/** The observation of {@link gameToAec}: PettingZoo's classic `{ observation, action_mask }`. */
export interface MaskedObservation<O = string | Float32Array> {
  /** The information-state string, or the `encode` tensor. */
  readonly observation: O
  /** `Uint8Array(numDistinctActions)`: 1 at the legal actions of this agent when it is to act, else all 0. */
  readonly action_mask: Uint8Array
}

/** Options of {@link gameToAec} / {@link gameToParallel}. */
export interface GameEnvOptions {
  /**
   * Encode the observation of `player` as a tensor of `shape` into `out` instead of the information-state string
   * (the observation space is then `Box(-inf, inf, shape, float32)`).
   */
  readonly encode?: { readonly shape: ReadonlyArray<number>; readonly fn: (state: State, player: number, out: Float32Array) => void } | undefined
  /** Longest information-state string (the `Text` space's `maxLength`; default 4096). */
  readonly maxObservationLength?: number | undefined
}

/** Characters of information-state strings: printable ASCII and newline. */
export const OBSERVATION_CHARSET = `${Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join("")}\n`

const agentName = (p: number) => `player_${p}`

/** The {@link Game} played as an AEC env (see the module docs of `GameEnv`). */
export class GameAecEnv implements AecEnv<MaskedObservation, number> {
  /** The game's name; `is_parallelizable: false` (use {@link gameToParallel} for the Parallel API). */
  readonly metadata: { readonly name: string; readonly is_parallelizable: boolean }
  /** `player_0..player_{N-1}`. */
  readonly possibleAgents: ReadonlyArray<string>
  /** Live agents (all until the game ends; dead steps remove them). */
  agents: Array<string> = []
  /** The agent to act (the game's current player; the dead agents in turn after the end). */
  agentSelection = ""
  /** Rewards of the last step: changes of the game's `returns()`. */
  rewards: Record<string, number> = {}
  /** All true once the game is terminal. */
  terminations: Record<string, boolean> = {}
  /** Always false (games end by termination). */
  truncations: Record<string, boolean> = {}
  /** Empty infos. */
  infos: Record<string, Info> = {}
  private cumulative: Record<string, number> = {}
  private state: State
  private rng: Rng = Rng.fromEntropy()
  private readonly obsSpace: Space.Space
  private readonly actSpace: Space.Space
  private prevReturns: Array<number>

  /** @param game any OpenSpiel-style game; @param options observation encoding (see {@link GameEnvOptions}). */
  constructor(readonly game: Game, readonly options: GameEnvOptions = {}) {
    const n = game.info.numPlayers
    this.possibleAgents = Object.freeze(Array.from({ length: n }, (_, p) => agentName(p)))
    this.metadata = { name: game.info.name, is_parallelizable: false }
    this.state = game.newInitialState()
    this.prevReturns = new Array<number>(n).fill(0)
    const enc = options.encode
    const inner = enc === undefined
      ? Space.text(options.maxObservationLength ?? 4096, { minLength: 0, charset: OBSERVATION_CHARSET })
      : Space.box(-Infinity, Infinity, [...enc.shape], "float32")
    this.obsSpace = Space.dict({ observation: inner, action_mask: Space.multiBinary(game.info.numDistinctActions) })
    this.actSpace = Space.discrete(game.info.numDistinctActions)
  }

  /** The underlying game state (read it, do not mutate it). */
  get gameState(): State {
    return this.state
  }

  /** `Dict({ observation: Text | Box, action_mask: MultiBinary(numDistinctActions) })`, the same for every agent. */
  observationSpace(_agent: string): Space.Space {
    return this.obsSpace
  }
  /** `Discrete(numDistinctActions)`, the same for every agent. */
  actionSpace(_agent: string): Space.Space {
    return this.actSpace
  }

  private sampleChance(): void {
    const s = this.state
    while (s.isChanceNode()) {
      const outcomes = s.chanceOutcomes()
      const u = this.rng.random()
      let acc = 0
      let pick = outcomes[outcomes.length - 1]![0]
      for (const [a, p] of outcomes) {
        acc += p
        if (u < acc) {
          pick = a
          break
        }
      }
      s.applyAction(pick)
    }
  }

  reset(options: ResetOptions = {}): void {
    if (options.seed !== undefined) this.rng = Rng.make(options.seed)
    this.state = this.game.newInitialState()
    this.agents = [...this.possibleAgents]
    this.rewards = {}
    this.cumulative = {}
    this.terminations = {}
    this.truncations = {}
    this.infos = {}
    for (const a of this.agents) {
      this.rewards[a] = 0
      this.cumulative[a] = 0
      this.terminations[a] = false
      this.truncations[a] = false
      this.infos[a] = {}
    }
    this.prevReturns.fill(0)
    this.sampleChance()
    this.afterMove()
    this.agentSelection = this.state.isTerminal() ? this.agents[0]! : agentName(this.state.currentPlayer())
  }

  /** Rewards from the change of returns; terminations at the end. */
  private afterMove(): void {
    const r = this.state.returns()
    for (let p = 0; p < this.possibleAgents.length; p++) {
      const a = agentName(p)
      if (!(a in this.rewards)) continue
      this.rewards[a] = r[p]! - this.prevReturns[p]!
      this.prevReturns[p] = r[p]!
      this.cumulative[a] = this.cumulative[a]! + this.rewards[a]!
    }
    if (this.state.isTerminal()) for (const a of this.agents) this.terminations[a] = true
  }

  observe(agent: string): MaskedObservation {
    const p = this.possibleAgents.indexOf(agent)
    const mask = new Uint8Array(this.game.info.numDistinctActions)
    const s = this.state
    if (!s.isTerminal() && s.currentPlayer() === p) for (const a of s.legalActions()) mask[a] = 1
    const enc = this.options.encode
    if (enc !== undefined) {
      const out = new Float32Array(enc.shape.reduce((x, y) => x * y, 1))
      enc.fn(s, p, out)
      return { observation: out, action_mask: mask }
    }
    return { observation: s.informationStateString(p), action_mask: mask }
  }

  last(): LastResult<MaskedObservation> {
    const a = this.agentSelection
    return {
      observation: this.observe(a),
      reward: this.cumulative[a] ?? 0,
      termination: this.terminations[a] ?? false,
      truncation: this.truncations[a] ?? false,
      info: this.infos[a] ?? {}
    }
  }

  step(action: number | null): void {
    const agent = this.agentSelection
    if (this.terminations[agent] === true || this.truncations[agent] === true) {
      // PettingZoo's _was_dead_step.
      if (action !== null) {
        throw new InvalidActionError({ envId: this.metadata.name, action, space: "null (the agent is dead)" })
      }
      delete this.rewards[agent]
      delete this.cumulative[agent]
      delete this.terminations[agent]
      delete this.truncations[agent]
      delete this.infos[agent]
      this.agents = this.agents.filter((a) => a !== agent)
      const dead = this.agents.find((a) => this.terminations[a] === true || this.truncations[a] === true)
      this.agentSelection = dead ?? this.agents[0] ?? agent
      for (const a of this.agents) this.rewards[a] = 0
      return
    }
    if (action === null || !Number.isInteger(action)) {
      throw new InvalidActionError({ envId: this.metadata.name, action, space: Space.describe(this.actSpace) })
    }
    this.cumulative[agent] = 0
    this.state.applyAction(action)
    this.sampleChance()
    for (const a of this.agents) this.rewards[a] = 0
    this.afterMove()
    if (this.state.isTerminal()) {
      // Dead agents step first, starting after the agent that just acted (as PettingZoo's agent selector).
      const i = this.agents.indexOf(agent)
      this.agentSelection = this.agents[(i + 1) % this.agents.length]!
    } else {
      this.agentSelection = agentName(this.state.currentPlayer())
    }
  }

  close(): void {}
}

/**
 * Play `game` as a PettingZoo AEC env (see the module docs of `GameEnv`).
 */
export const gameToAec = (game: Game, options: GameEnvOptions = {}): GameAecEnv => new GameAecEnv(game, options)

const normalFormShape = (game: Game): ReadonlyArray<number> | undefined =>
  "payoffs" in game && "shape" in game ? (game as unknown as { readonly shape: ReadonlyArray<number> }).shape : undefined

/** The {@link Game} played as a PettingZoo Parallel env (see the module docs of `GameEnv`). */
export class GameParallelEnv implements ParallelEnv<MaskedObservation, number> {
  /** The game's name. */
  readonly metadata: { readonly name: string }
  /** `player_0..player_{N-1}`. */
  readonly possibleAgents: ReadonlyArray<string>
  /** Live agents. */
  agents: Array<string> = []
  private readonly aec: GameAecEnv
  /** Actions per player for normal-form games (all move in one step), else undefined. */
  private readonly shape: ReadonlyArray<number> | undefined

  /** @param game any OpenSpiel-style game; @param options observation encoding (see {@link GameEnvOptions}). */
  constructor(readonly game: Game, options: GameEnvOptions = {}) {
    this.aec = new GameAecEnv(game, options)
    this.possibleAgents = this.aec.possibleAgents
    this.metadata = { name: game.info.name }
    this.shape = normalFormShape(game)
  }

  /** The AEC observation; in a normal-form game every player still to move sees its own legal actions. */
  private observe(agent: string): MaskedObservation {
    const obs = this.aec.observe(agent)
    const shape = this.shape
    if (shape === undefined || this.aec.gameState.isTerminal()) return obs
    const p = this.possibleAgents.indexOf(agent)
    const mask = new Uint8Array(obs.action_mask.length)
    mask.fill(1, 0, shape[p])
    return { observation: obs.observation, action_mask: mask }
  }

  observationSpace(agent: string): Space.Space {
    return this.aec.observationSpace(agent)
  }
  actionSpace(agent: string): Space.Space {
    return this.aec.actionSpace(agent)
  }

  reset(options: ResetOptions = {}): { readonly observations: Record<string, MaskedObservation>; readonly infos: Record<string, Info> } {
    this.aec.reset(options)
    this.agents = [...this.aec.agents]
    const observations: Record<string, MaskedObservation> = {}
    const infos: Record<string, Info> = {}
    for (const a of this.agents) {
      observations[a] = this.observe(a)
      infos[a] = this.aec.infos[a]!
    }
    return { observations, infos }
  }

  step(actions: { readonly [agent: string]: number | null }): ParallelStepResult<MaskedObservation> {
    const live = [...this.agents]
    const rewards: Record<string, number> = {}
    for (const a of live) rewards[a] = 0
    const moves = this.shape !== undefined ? live.length : 1
    for (let k = 0; k < moves && !this.aec.gameState.isTerminal(); k++) {
      const agent = this.aec.agentSelection
      const action = actions[agent]
      if (action === undefined || action === null) {
        throw new InvalidActionError({ envId: this.metadata.name, action: actions, space: `an action for ${agent}, the agent to act` })
      }
      this.aec.step(action)
      for (const a of live) rewards[a]! += this.aec.rewards[a] ?? 0
    }
    const observations: Record<string, MaskedObservation> = {}
    const terminations: Record<string, boolean> = {}
    const truncations: Record<string, boolean> = {}
    const infos: Record<string, Info> = {}
    for (const a of live) {
      observations[a] = this.observe(a)
      terminations[a] = this.aec.terminations[a] ?? true
      truncations[a] = this.aec.truncations[a] ?? false
      infos[a] = this.aec.infos[a] ?? {}
    }
    this.agents = live.filter((a) => !terminations[a] && !truncations[a])
    return { observations, rewards, terminations, truncations, infos }
  }

  close(): void {}
}

/** Play `game` as a PettingZoo Parallel env (see the module docs of `GameEnv`). */
export const gameToParallel = (game: Game, options: GameEnvOptions = {}): GameParallelEnv => new GameParallelEnv(game, options)

/**
 * Multi-agent environments with PettingZoo's semantics: the AEC (agent-environment cycle) API, the Parallel API,
 * the converters between them, an adapter from any extensive-form {@link Game}, and `apiTest`.
 *
 * **Details**
 * - {@link AecEnv}: one agent acts at a time (`agentSelection`). `last()` gives that agent's observation, its
 *   reward accumulated since it last acted (PettingZoo's `_cumulative_rewards`), termination, truncation and info.
 *   `step(action)` acts for it; an agent that is terminated or truncated must be stepped with `null` (a "dead
 *   step"), which removes it from `agents`. `rewards`, `terminations`, `truncations`, `infos` are keyed by the
 *   live agents.
 * - {@link ParallelEnv}: all live agents act at once; `reset` returns `{ observations, infos }`, `step(actions)`
 *   returns `{ observations, rewards, terminations, truncations, infos }` keyed by the agents live before the step;
 *   agents that terminated or were truncated leave `agents`.
 * - {@link aecToParallel} / {@link parallelToAec} follow PettingZoo's `aec_to_parallel_wrapper` /
 *   `parallel_to_aec_wrapper`: the former needs the AEC agents to act in cycles (every live agent once per parallel
 *   step, deaths only at the end of a cycle); the latter buffers actions and steps the parallel env when the last
 *   agent of the cycle acts.
 * - {@link gameToAec}: agents `player_0..player_{N-1}`; chance nodes are sampled with the env's {@link Rng};
 *   observations are `{ observation, action_mask }` as in PettingZoo's classic envs, `observation` being the
 *   information-state string (or a tensor from `encode`), `action_mask` a `Uint8Array(numDistinctActions)` with the
 *   legal actions of the agent to act (all zeros for the others). Rewards are changes of `returns()` (the final
 *   utilities for terminal-reward games). {@link gameToParallel} plays one move per step (only the acting agent's
 *   action is read), except for normal-form games, where all players move in one step.
 * - {@link apiTest}: PettingZoo's `api_test` — agent iteration, observations in their spaces, action masks, dict
 *   keys, dead-step rules, reward accumulation, seeding determinism — failing with {@link ApiTestError} listing the
 *   findings.
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
 * @see https://pettingzoo.farama.org/api/aec/ and https://pettingzoo.farama.org/api/parallel/
 * @see https://github.com/Farama-Foundation/PettingZoo/blob/master/pettingzoo/utils/conversions.py
 * @see https://github.com/Farama-Foundation/PettingZoo/blob/master/pettingzoo/test/api_test.py
 * @since 0.1.0
 */
import { InvalidActionError, Rng, Space } from "@autodidact/core"
import { Schema } from "effect"
import type { Info } from "../Env.js"
import type { Game, State } from "./Game.js"

/** Options of `reset`. */
export interface ResetOptions {
  readonly seed?: number | undefined
  readonly options?: { readonly [key: string]: unknown } | undefined
}

/** What `last()` returns. */
export interface LastResult<Obs> {
  readonly observation: Obs
  /** Reward accumulated since this agent last acted. */
  readonly reward: number
  readonly termination: boolean
  readonly truncation: boolean
  readonly info: Info
}

/** PettingZoo's `AECEnv`. */
export interface AecEnv<Obs = unknown, Act = unknown> {
  readonly metadata: { readonly name: string; readonly [key: string]: unknown }
  readonly possibleAgents: ReadonlyArray<string>
  /** Live agents. */
  readonly agents: ReadonlyArray<string>
  /** The agent to act. */
  readonly agentSelection: string
  /** Rewards of the last step, per live agent. */
  readonly rewards: { readonly [agent: string]: number }
  readonly terminations: { readonly [agent: string]: boolean }
  readonly truncations: { readonly [agent: string]: boolean }
  readonly infos: { readonly [agent: string]: Info }
  observationSpace(agent: string): Space.Space
  actionSpace(agent: string): Space.Space
  reset(options?: ResetOptions): void
  observe(agent: string): Obs
  last(): LastResult<Obs>
  /** Act for `agentSelection`; `null` for a terminated or truncated agent. */
  step(action: Act | null): void
  close(): void
}

/** What `ParallelEnv.step` returns. */
export interface ParallelStepResult<Obs> {
  readonly observations: { readonly [agent: string]: Obs }
  readonly rewards: { readonly [agent: string]: number }
  readonly terminations: { readonly [agent: string]: boolean }
  readonly truncations: { readonly [agent: string]: boolean }
  readonly infos: { readonly [agent: string]: Info }
}

/** PettingZoo's `ParallelEnv`. */
export interface ParallelEnv<Obs = unknown, Act = unknown> {
  readonly metadata: { readonly name: string; readonly [key: string]: unknown }
  readonly possibleAgents: ReadonlyArray<string>
  readonly agents: ReadonlyArray<string>
  observationSpace(agent: string): Space.Space
  actionSpace(agent: string): Space.Space
  reset(options?: ResetOptions): { readonly observations: { readonly [agent: string]: Obs }; readonly infos: { readonly [agent: string]: Info } }
  step(actions: { readonly [agent: string]: Act | null }): ParallelStepResult<Obs>
  close(): void
}

/** An env broke an API rule (used by the converters and by {@link apiTest}). */
export class ApiTestError extends Schema.TaggedError<ApiTestError>()("ApiTestError", {
  env: Schema.String,
  findings: Schema.Array(Schema.String)
}) {
  override get message() {
    return `${this.env} fails the multi-agent API test:\n- ${this.findings.join("\n- ")}`
  }
}

/** The observation of {@link gameToAec}: PettingZoo's classic `{ observation, action_mask }`. */
export interface MaskedObservation<O = string | Float32Array> {
  readonly observation: O
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

/** The {@link Game} played as an AEC env (see the module docs). */
export class GameAecEnv implements AecEnv<MaskedObservation, number> {
  readonly metadata: { readonly name: string; readonly is_parallelizable: boolean }
  readonly possibleAgents: ReadonlyArray<string>
  agents: Array<string> = []
  agentSelection = ""
  rewards: Record<string, number> = {}
  terminations: Record<string, boolean> = {}
  truncations: Record<string, boolean> = {}
  infos: Record<string, Info> = {}
  private cumulative: Record<string, number> = {}
  private state: State
  private rng: Rng = Rng.fromEntropy()
  private readonly obsSpace: Space.Space
  private readonly actSpace: Space.Space
  private prevReturns: Array<number>

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

  observationSpace(_agent: string): Space.Space {
    return this.obsSpace
  }
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
 * Play `game` as a PettingZoo AEC env (see the module docs).
 */
export const gameToAec = (game: Game, options: GameEnvOptions = {}): GameAecEnv => new GameAecEnv(game, options)

const normalFormShape = (game: Game): ReadonlyArray<number> | undefined =>
  "payoffs" in game && "shape" in game ? (game as unknown as { readonly shape: ReadonlyArray<number> }).shape : undefined

/** The {@link Game} played as a PettingZoo Parallel env (see the module docs). */
export class GameParallelEnv implements ParallelEnv<MaskedObservation, number> {
  readonly metadata: { readonly name: string }
  readonly possibleAgents: ReadonlyArray<string>
  agents: Array<string> = []
  private readonly aec: GameAecEnv
  /** Actions per player for normal-form games (all move in one step), else undefined. */
  private readonly shape: ReadonlyArray<number> | undefined

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

/** Play `game` as a PettingZoo Parallel env (see the module docs). */
export const gameToParallel = (game: Game, options: GameEnvOptions = {}): GameParallelEnv => new GameParallelEnv(game, options)

/**
 * PettingZoo's `aec_to_parallel_wrapper`: each parallel step steps every live AEC agent once, in order.
 * @throws ApiTestError (from `step`) when the AEC env does not cycle through its agents, or kills one mid-cycle.
 */
export const aecToParallel = <Obs, Act>(aec: AecEnv<Obs, Act>): ParallelEnv<Obs, Act> => {
  let agents: Array<string> = []
  return {
    metadata: { ...aec.metadata, is_parallelizable: true },
    possibleAgents: aec.possibleAgents,
    get agents() {
      return agents
    },
    observationSpace: (agent) => aec.observationSpace(agent),
    actionSpace: (agent) => aec.actionSpace(agent),
    reset(options = {}) {
      aec.reset(options)
      agents = [...aec.agents]
      const observations: Record<string, Obs> = {}
      for (const a of aec.agents) if (!aec.terminations[a] && !aec.truncations[a]) observations[a] = aec.observe(a)
      return { observations, infos: { ...aec.infos } }
    },
    step(actions) {
      const rewards: Record<string, number> = {}
      for (const a of aec.agents) rewards[a] = 0
      for (const agent of [...aec.agents]) {
        const sel = aec.agentSelection
        if (agent !== sel) {
          const dead = aec.terminations[sel] === true || aec.truncations[sel] === true
          throw new ApiTestError({
            env: aec.metadata.name,
            findings: [
              dead
                ? `expected agent ${agent} got termination or truncation agent ${sel}. Parallel environment wrapper expects all agent death (setting an agent's terminations or truncations entry to true) to happen only at the end of a cycle.`
                : `expected agent ${agent} got agent ${sel}, Parallel environment wrapper expects agents to step in a cycle.`
            ]
          })
        }
        aec.step(actions[agent] ?? null)
        for (const a of aec.agents) rewards[a] = (rewards[a] ?? 0) + (aec.rewards[a] ?? 0)
      }
      const terminations = { ...aec.terminations }
      const truncations = { ...aec.truncations }
      const infos = { ...aec.infos }
      const observations: Record<string, Obs> = {}
      for (const a of aec.agents) observations[a] = aec.observe(a)
      while (aec.agents.length > 0 && (aec.terminations[aec.agentSelection] === true || aec.truncations[aec.agentSelection] === true)) {
        aec.step(null)
      }
      agents = [...aec.agents]
      return { observations, rewards, terminations, truncations, infos }
    },
    close: () => aec.close()
  }
}

/**
 * PettingZoo's `parallel_to_aec_wrapper`: agents act in `possibleAgents` order; their actions are buffered and the
 * parallel env steps when the last live agent of the cycle acts. Rewards, terminations and truncations then apply to
 * every agent; dead agents are stepped with `null` before the next cycle.
 */
export const parallelToAec = <Obs, Act>(par: ParallelEnv<Obs, Act>): AecEnv<Obs, Act> => {
  let agents: Array<string> = []
  let order: Array<string> = []
  let selection = ""
  let observations: Record<string, Obs> = {}
  let rewards: Record<string, number> = {}
  let cumulative: Record<string, number> = {}
  let terminations: Record<string, boolean> = {}
  let truncations: Record<string, boolean> = {}
  let infos: Record<string, Info> = {}
  let buffered: Record<string, Act | null> = {}
  const isDead = (a: string) => terminations[a] === true || truncations[a] === true
  const next = (after: string): string => {
    const i = order.indexOf(after)
    for (let k = 1; k <= order.length; k++) {
      const a = order[(i + k) % order.length]!
      if (agents.includes(a)) return a
    }
    return agents[0] ?? after
  }
  const env: AecEnv<Obs, Act> = {
    metadata: { ...par.metadata, is_parallelizable: true },
    possibleAgents: par.possibleAgents,
    get agents() {
      return agents
    },
    get agentSelection() {
      return selection
    },
    get rewards() {
      return rewards
    },
    get terminations() {
      return terminations
    },
    get truncations() {
      return truncations
    },
    get infos() {
      return infos
    },
    observationSpace: (agent) => par.observationSpace(agent),
    actionSpace: (agent) => par.actionSpace(agent),
    reset(options = {}) {
      const r = par.reset(options)
      observations = { ...r.observations }
      agents = [...par.agents]
      order = [...agents]
      selection = agents[0] ?? ""
      rewards = {}
      cumulative = {}
      terminations = {}
      truncations = {}
      infos = {}
      for (const a of agents) {
        rewards[a] = 0
        cumulative[a] = 0
        terminations[a] = false
        truncations[a] = false
        infos[a] = r.infos[a] ?? {}
      }
      buffered = {}
    },
    observe: (agent) => observations[agent] as Obs,
    last() {
      return {
        observation: observations[selection] as Obs,
        reward: cumulative[selection] ?? 0,
        termination: terminations[selection] ?? false,
        truncation: truncations[selection] ?? false,
        info: infos[selection] ?? {}
      }
    },
    step(action) {
      const agent = selection
      if (isDead(agent)) {
        if (action !== null) throw new InvalidActionError({ envId: par.metadata.name, action, space: "null (the agent is dead)" })
        delete rewards[agent]
        delete cumulative[agent]
        delete terminations[agent]
        delete truncations[agent]
        delete infos[agent]
        agents = agents.filter((a) => a !== agent)
        selection = agents.find(isDead) ?? agents[0] ?? agent
        for (const a of agents) rewards[a] = 0
        return
      }
      cumulative[agent] = 0
      buffered[agent] = action
      const isLast = agents.filter((a) => !isDead(a)).every((a) => a in buffered)
      if (isLast) {
        const r = par.step(buffered)
        buffered = {}
        observations = { ...observations, ...r.observations }
        for (const a of agents) {
          rewards[a] = r.rewards[a] ?? 0
          cumulative[a] = (cumulative[a] ?? 0) + rewards[a]!
          terminations[a] = r.terminations[a] ?? false
          truncations[a] = r.truncations[a] ?? false
          infos[a] = r.infos[a] ?? {}
        }
        const dead = agents.find(isDead)
        selection = dead ?? next(agent)
      } else {
        for (const a of agents) rewards[a] = 0
        selection = next(agent)
      }
    },
    close: () => par.close()
  }
  return env
}

/** Options of {@link apiTest}. */
export interface ApiTestOptions {
  /** Agent steps per rollout = `numCycles * possibleAgents.length` (default 1000, as PettingZoo). */
  readonly numCycles?: number | undefined
  /** Seed of the determinism check (default 42). */
  readonly seed?: number | undefined
}

/** What {@link apiTest} saw. */
export interface ApiTestReport {
  readonly steps: number
  readonly episodes: number
}

const serialize = (x: unknown): string =>
  JSON.stringify(x, (_k, v) => (ArrayBuffer.isView(v) ? Array.from(v as unknown as ArrayLike<number>) : v))

const hasMask = (obs: unknown): obs is { readonly action_mask: Uint8Array } =>
  typeof obs === "object" && obs !== null && "action_mask" in obs

/**
 * PettingZoo's `api_test` for an AEC env: plays random legal actions (from the action mask when the observation has
 * one) for `numCycles` cycles, resetting when all agents are gone, and checks the API rules; then replays with the
 * same seed twice and compares.
 * @throws ApiTestError listing every finding (deduplicated, at most 50).
 */
export const apiTest = <Obs, Act>(env: AecEnv<Obs, Act>, options: ApiTestOptions = {}): ApiTestReport => {
  const findings = new Set<string>()
  const add = (s: string) => {
    if (findings.size < 50) findings.add(s)
  }
  const numCycles = options.numCycles ?? 1000
  const seed = options.seed ?? 42
  const keysMatch = (what: string, rec: object) => {
    const got = Object.keys(rec).sort().join(",")
    const want = [...env.agents].sort().join(",")
    if (got !== want) add(`${what} keys [${got}] differ from agents [${want}]`)
  }
  const checkDicts = () => {
    keysMatch("rewards", env.rewards)
    keysMatch("terminations", env.terminations)
    keysMatch("truncations", env.truncations)
    keysMatch("infos", env.infos)
  }
  if (env.possibleAgents.length === 0) add("possibleAgents is empty")
  for (const a of env.possibleAgents) {
    try {
      env.observationSpace(a)
      env.actionSpace(a)
    } catch (e) {
      add(`observationSpace/actionSpace(${a}) threw ${String(e)}`)
    }
  }
  const rollout = (rngSeed: number): { steps: number; episodes: number } => {
    const rng = Rng.make(rngSeed)
    env.reset({ seed: rngSeed })
    let episodes = 1
    if (env.agents.some((a) => !env.possibleAgents.includes(a))) add(`agents [${env.agents.join(", ")}] not all in possibleAgents`)
    if (env.agents.length > 0 && !env.agents.includes(env.agentSelection)) add(`agentSelection ${env.agentSelection} is not a live agent after reset`)
    checkDicts()
    for (const a of env.agents) {
      if (env.rewards[a] !== 0) add(`reward of ${a} after reset is ${env.rewards[a]}, expected 0`)
    }
    const total = numCycles * Math.max(1, env.possibleAgents.length)
    const sinceActed = new Map<string, number>()
    for (const a of env.agents) sinceActed.set(a, 0)
    let steps = 0
    while (steps < total) {
      if (env.agents.length === 0) {
        env.reset({ seed: rngSeed + episodes })
        episodes++
        sinceActed.clear()
        for (const a of env.agents) sinceActed.set(a, 0)
        checkDicts()
        continue
      }
      const agent = env.agentSelection
      if (!env.agents.includes(agent)) {
        add(`agentSelection ${agent} is not in agents [${env.agents.join(", ")}]`)
        break
      }
      const { observation, reward, termination, truncation } = env.last()
      const obsSpace = env.observationSpace(agent)
      if (!Space.contains(obsSpace, observation)) add(`observation of ${agent} is not in ${Space.describe(obsSpace)}: ${serialize(observation).slice(0, 120)}`)
      if (!Number.isFinite(reward)) add(`reward of ${agent} is ${reward}`)
      const expected = sinceActed.get(agent) ?? 0
      if (Math.abs(expected - reward) > 1e-9) add(`last() reward of ${agent} is ${reward}, but the rewards since it last acted sum to ${expected}`)
      const dead = termination || truncation
      if (termination !== env.terminations[agent] || truncation !== env.truncations[agent]) add(`last() of ${agent} disagrees with terminations/truncations`)
      let action: Act | null = null
      if (!dead) {
        const actSpace = env.actionSpace(agent)
        if (hasMask(observation)) {
          const mask = observation.action_mask
          const legal: Array<number> = []
          for (let i = 0; i < mask.length; i++) if (mask[i] === 1) legal.push(i)
          if (legal.length === 0) {
            add(`action mask of live agent ${agent} is all zeros`)
            break
          }
          action = legal[rng.integers(legal.length)]! as Act
        } else action = Space.sample(actSpace, rng) as Act
        if (!Space.contains(actSpace, action)) add(`sampled action ${String(action)} is not in ${Space.describe(actSpace)}`)
      } else {
        let threw = false
        try {
          env.step(Space.sample(env.actionSpace(agent), rng) as Act)
        } catch {
          threw = true
        }
        if (!threw) {
          add(`stepping dead agent ${agent} with a non-null action did not throw`)
          break
        }
      }
      steps++
      const before = [...env.agents]
      try {
        env.step(action)
      } catch (e) {
        add(`step(${String(action)}) for ${agent} threw ${e instanceof Error ? e.message : String(e)}`)
        break
      }
      sinceActed.set(agent, 0)
      if (dead) {
        if (env.agents.includes(agent)) add(`dead agent ${agent} was not removed from agents by step(null)`)
      } else {
        for (const a of before) if (!env.agents.includes(a)) add(`agent ${a} was removed without a dead step`)
      }
      for (const a of env.agents) {
        const r = env.rewards[a]
        if (r === undefined) continue
        sinceActed.set(a, (sinceActed.get(a) ?? 0) + r)
      }
      checkDicts()
    }
    return { steps, episodes }
  }
  const first = rollout(seed)
  const runA: Array<string> = []
  const runB: Array<string> = []
  const shortCycles = Math.min(numCycles, 50)
  // Seeding determinism: two rollouts with the same seed (and the same action choices) must match.
  const replay = (rec: Array<string>) => {
    const rng = Rng.make(seed + 1)
    env.reset({ seed: seed + 1 })
    for (let k = 0; k < shortCycles * env.possibleAgents.length && env.agents.length > 0; k++) {
      const agent = env.agentSelection
      const last = env.last()
      let action: Act | null = null
      if (!(last.termination || last.truncation)) {
        const obs = last.observation
        if (hasMask(obs)) {
          const legal: Array<number> = []
          obs.action_mask.forEach((m, i) => {
            if (m === 1) legal.push(i)
          })
          if (legal.length === 0) break
          action = legal[rng.integers(legal.length)]! as Act
        } else action = Space.sample(env.actionSpace(agent), rng) as Act
      }
      rec.push(serialize([agent, last.observation, last.reward, last.termination, last.truncation, action]))
      try {
        env.step(action)
      } catch {
        break
      }
    }
  }
  replay(runA)
  replay(runB)
  if (runA.length !== runB.length || runA.some((x, i) => x !== runB[i])) {
    const i = runA.findIndex((x, k) => x !== runB[k])
    add(`two rollouts with seed ${seed + 1} differ at step ${i}: ${runA[i]?.slice(0, 120)} vs ${runB[i]?.slice(0, 120)}`)
  }
  if (findings.size > 0) throw new ApiTestError({ env: env.metadata.name, findings: [...findings] })
  return first
}

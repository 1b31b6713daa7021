/**
 * Text environments from declarative specs (AutoEnv's factored environments: Zhang et al., "AutoEnv: Automated
 * Environments for Measuring Cross-Environment Agent Learning", arXiv:2511.19304, which writes an environment as
 * E = (S, A, T, R, Ω, τ) in three layers — dynamics and rewards, observation, rendering): a {@link TextEnvSpec}
 * names the state schema, the level (task) generator, the admissible commands, the transition rule, the reward and
 * termination rules and the observation template; {@link compile} turns it into a {@link TextEnv} (reset/step, the
 * admissible list, `stateKey`, chat view, exact `snapshot`/`restore`), after {@link validateSpec} has checked it.
 *
 * **The spec**
 * - `state`: an Effect `Schema` of the state value (plain, immutable data: a transition returns a new value). Every
 *   state the validator meets must satisfy it.
 * - `initial(rng, options)`: the level of an episode (the task generator), drawing what it needs from the env's
 *   generator; either a state or a distribution `[[p, state], ...]`.
 * - `transition(state, command)`: the next state, or a distribution `[[p, state], ...]` sampled with one uniform draw
 *   exactly as Gymnasium's `categorical_sample` (`Rng.categorical`: the first outcome whose cumulative probability
 *   exceeds the draw), so a spec of a Gymnasium env consumes its generator the same way.
 * - `reward(state, command, next)`, `terminated(state)`, `success(state)`; `observe(state)` (Ω: what the agent
 *   sees, the rendering included), `resetPrefix` (a line before the first observation, e.g. a legend), `task(state)`,
 *   `rules` (the system turn), `stateKey(state)` (anchor-state grouping), `maxSteps` (truncation),
 *   `invalidActionPenalty` (reward of a command outside the admissible list, which leaves the state as it is).
 *
 * **Load-time checks** ({@link validateSpec}, run by {@link compile} on `validateSeeds` levels): for each level, a
 * breadth-first walk over every admissible command and every outcome, up to `maxStates` states, fails with
 * {@link SpecError} when an initial or successor state violates the schema (`"schema"`, naming the state key, the
 * command and Schema's message), a distribution is not one (`"distribution"`), a reward is not finite (`"reward"`),
 * a non-terminal state offers no command (`"dead-end"`), or no successful state is reachable (`"unreachable-goal"`;
 * also when the walk ran out of `maxStates` before finding one). So a broken spec fails when it is loaded, not after
 * an hour of training.
 *
 * **The compiled env**: Gymnasium semantics (`reset({ seed, options })` reseeds, `terminated`/`truncated`), text
 * observations and commands matched ignoring case and surrounding white space; `info`: `success`, `invalidAction`,
 * `admissibleActions`, `offeredActions` (the list the command was checked against). States are immutable, so
 * `snapshot()` is the state, the step count and a copy of the generator, and `restore` is exact (`Snapshot`'s contract:
 * a snapshot of another instance throws `SnapshotMismatchError`).
 * @since 0.3.0
 */
import { InvalidActionError, InvalidOptionError, ResetNeededError, Rng, type Trajectory } from "@autodidact/core"
import { Exit, Schema } from "effect"
import { Space } from "@autodidact/core"
import type { EnvSpec, Info, Metadata, ResetOptions, ResetResult, StepResult } from "../../Env.js"
import { type EnvSnapshot, OwnedSnapshot, ownPayload } from "../../Snapshot.js"
import { type ChatMessage, TEXT_CHARSET, type TextEnv, textMessages } from "../TextEnv.js"

/** A distribution over next states: `[probability, state]` pairs (probabilities ≥ 0 summing to 1). */
export type Outcomes<S> = ReadonlyArray<readonly [number, S]>

/** A text environment as data and rules (see the module docs). */
export interface TextEnvSpec<S> {
  /** The env id (errors, `spec.id`). */
  readonly id: string
  /** The rules, opening every conversation (`toMessages`'s system turn). */
  readonly rules: string
  /** The state's schema: every state must satisfy it. */
  readonly state: Schema.Codec<S, unknown>
  /** The level of a new episode (task generator), drawing from `rng`; `options` are `reset`'s `options`. */
  readonly initial: (rng: Rng, options: { readonly [key: string]: unknown }) => S | Outcomes<S>
  /** The goal in words. */
  readonly task: (state: S) => string
  /** The commands admissible in `state` (a fixed list, or a function of the state). */
  readonly actions: ReadonlyArray<string> | ((state: S) => ReadonlyArray<string>)
  /** The next state (or a distribution over next states) after an admissible `command`. */
  readonly transition: (state: S, command: string) => S | Outcomes<S>
  /** The reward of the transition `state --command--> next`. */
  readonly reward: (state: S, command: string, next: S) => number
  /** Whether `state` ends the episode. */
  readonly terminated: (state: S) => boolean
  /** Whether `state` is a success (the goal). */
  readonly success: (state: S) => boolean
  /** What the agent sees in `state`. */
  readonly observe: (state: S) => string
  /** A line put before the first observation of an episode (e.g. a legend). */
  readonly resetPrefix?: string | undefined
  /** A hashable key of the full state. */
  readonly stateKey: (state: S) => string
  /** Steps after which `truncated` is set (a positive integer or Infinity). */
  readonly maxSteps: number
  /** Reward of a command that is not admissible (default 0); the state does not change. */
  readonly invalidActionPenalty?: number | undefined
}

/** A spec that fails its load-time checks (see the module docs for the kinds). */
export class SpecError extends Schema.TaggedError<SpecError>()("SpecError", {
  spec: Schema.String,
  kind: Schema.Literals(["schema", "distribution", "reward", "dead-end", "unreachable-goal", "options"]),
  /** Where: the level seed, and the state key and command of the offending transition when there is one. */
  where: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `${this.spec}: ${this.kind} at ${this.where}: ${this.reason}`
  }
}

/** Options of {@link validateSpec}. */
export interface ValidateOptions {
  /** Level seeds to check (default `[0, 1, 2]`). */
  readonly seeds?: ReadonlyArray<number> | undefined
  /** `reset` options of the checked levels (default `{}`). */
  readonly options?: { readonly [key: string]: unknown } | undefined
  /** States explored per level at most (default 100 000). */
  readonly maxStates?: number | undefined
}

/** What {@link validateSpec} found: per level, the states explored and whether a success was reached. */
export interface ValidationReport {
  readonly levels: ReadonlyArray<{ readonly seed: number; readonly states: number; readonly successReachable: boolean }>
}

const isOutcomes = <S>(x: S | Outcomes<S>, isState: (u: unknown) => boolean): x is Outcomes<S> =>
  Array.isArray(x) && !isState(x) && x.every((o) => Array.isArray(o) && o.length === 2 && typeof o[0] === "number")

const actionsOf = <S>(spec: TextEnvSpec<S>, s: S): ReadonlyArray<string> => typeof spec.actions === "function" ? spec.actions(s) : spec.actions

/**
 * Check `spec` on the levels of `seeds` (see the module docs): schema of every reachable state, distributions,
 * finite rewards, no dead ends, a reachable success.
 * @throws SpecError for the first problem found.
 */
export const validateSpec = <S>(spec: TextEnvSpec<S>, options: ValidateOptions = {}): ValidationReport => {
  const seeds = options.seeds ?? [0, 1, 2]
  const maxStates = options.maxStates ?? 100_000
  if (!(Number.isSafeInteger(maxStates) && maxStates >= 1)) throw new InvalidOptionError({ option: "maxStates", value: maxStates, reason: "must be a positive integer" })
  if (!(spec.maxSteps === Infinity || (Number.isInteger(spec.maxSteps) && spec.maxSteps >= 1))) {
    throw new SpecError({ spec: spec.id, kind: "options", where: "maxSteps", reason: `must be a positive integer or Infinity, got ${spec.maxSteps}` })
  }
  const decode = Schema.decodeUnknownExit(spec.state)
  const isState = Schema.is(spec.state)
  const fail = (kind: SpecError["kind"], where: string, reason: string) => new SpecError({ spec: spec.id, kind, where, reason })
  const checkState = (s: unknown, where: string): S => {
    const r = decode(s)
    if (Exit.isFailure(r)) throw fail("schema", where, `the state violates the schema: ${String(r.cause).split("\n").slice(0, 6).join(" ")}`)
    return s as S
  }
  const outcomes = (x: S | Outcomes<S>, where: string): Outcomes<S> => {
    if (!isOutcomes(x, isState)) return [[1, checkState(x, where)]]
    let sum = 0
    for (const [p] of x) {
      if (!(p >= 0 && Number.isFinite(p))) throw fail("distribution", where, `probability ${p} is not a finite number ≥ 0`)
      sum += p
    }
    if (Math.abs(sum - 1) > 1e-9) throw fail("distribution", where, `probabilities sum to ${sum}, not 1`)
    return x.map(([p, s], i) => [p, checkState(s, `${where} (outcome ${i})`)] as const)
  }
  const levels: Array<{ seed: number; states: number; successReachable: boolean }> = []
  for (const seed of seeds) {
    const at = `level seed ${seed}`
    const starts = outcomes(spec.initial(Rng.make(seed), options.options ?? {}), `${at}, initial state`)
    const seen = new Set<string>()
    const queue: Array<S> = []
    for (const [p, s] of starts) {
      if (p === 0) continue
      const k = spec.stateKey(s)
      if (!seen.has(k)) {
        seen.add(k)
        queue.push(s)
      }
    }
    let found = false
    for (let head = 0; head < queue.length; head++) {
      const s = queue[head]!
      if (spec.success(s)) found = true
      if (spec.terminated(s)) continue
      const key = spec.stateKey(s)
      const commands = actionsOf(spec, s)
      if (commands.length === 0) throw fail("dead-end", `${at}, state ${key}`, "a state that is not terminal offers no command")
      for (const c of commands) {
        const where = `${at}, state ${key}, command "${c}"`
        for (const [p, next] of outcomes(spec.transition(s, c), where)) {
          if (p === 0) continue
          const r = spec.reward(s, c, next)
          if (!Number.isFinite(r)) throw fail("reward", where, `reward ${r} is not finite`)
          const k = spec.stateKey(next)
          if (!seen.has(k) && seen.size < maxStates) {
            seen.add(k)
            queue.push(next)
          }
        }
      }
      if (found && seen.size >= maxStates) break
    }
    if (!found) {
      const why = seen.size >= maxStates ? `no successful state among the first ${maxStates} states explored` : `no successful state is reachable (${seen.size} states explored)`
      throw fail("unreachable-goal", at, why)
    }
    levels.push({ seed, states: seen.size, successReachable: found })
  }
  return { levels }
}

/** What a spec env's snapshot holds: the state value (immutable), the steps taken, and a copy of the generator. */
interface SpecPayload<S> {
  readonly state: S
  readonly steps: number
  readonly running: boolean
  readonly rng: Rng
}

/**
 * The {@link TextEnv} compiled from a spec (see {@link compile}).
 * @category environments
 */
export class SpecTextEnv<S> implements TextEnv {
  readonly observationSpace: Space.Text = Space.text(4096, { minLength: 1, charset: TEXT_CHARSET + "√" })
  readonly actionSpace: Space.Text = Space.text(256, { minLength: 0, charset: TEXT_CHARSET })
  readonly metadata: Metadata = { renderModes: ["ansi"] }
  spec: EnvSpec | undefined
  private rng: Rng = Rng.fromEntropy()
  private current: S | undefined = undefined
  private steps = 0
  private running = false
  private readonly isState: (u: unknown) => boolean

  constructor(readonly definition: TextEnvSpec<S>) {
    this.spec = { id: definition.id, maxEpisodeSteps: definition.maxSteps === Infinity ? undefined : definition.maxSteps }
    this.isState = Schema.is(definition.state)
  }

  get unwrapped(): this {
    return this
  }

  /** The generator levels and stochastic transitions draw from. */
  get npRandom(): Rng {
    return this.rng
  }

  /** The current state (undefined before the first reset). */
  get state(): S | undefined {
    return this.current
  }

  get task(): string {
    return this.current === undefined ? "" : this.definition.task(this.current)
  }

  private sample(x: S | Outcomes<S>): S {
    if (!isOutcomes(x, this.isState)) return x
    return x[this.rng.categorical(x.map((o) => o[0]))]![1]
  }

  reset(options?: ResetOptions): ResetResult<string> {
    if (options?.seed !== undefined) this.rng = Rng.make(options.seed)
    this.current = this.sample(this.definition.initial(this.rng, options?.options ?? {}))
    this.steps = 0
    this.running = true
    const prefix = this.definition.resetPrefix
    const obs = this.definition.observe(this.current)
    return { observation: prefix === undefined ? obs : `${prefix}\n${obs}`, info: this.info(false) }
  }

  private info(invalidAction: boolean, offered?: ReadonlyArray<string>): Info {
    const admissible = this.admissibleActions()
    return {
      success: this.definition.success(this.current!),
      invalidAction,
      admissibleActions: admissible,
      ...(offered === undefined ? {} : { offeredActions: offered })
    }
  }

  admissibleActions(): ReadonlyArray<string> {
    return this.current === undefined ? [] : actionsOf(this.definition, this.current)
  }

  /**
   * Apply a command (matched ignoring case and surrounding white space); one outside the admissible list leaves the
   * state as it is and earns `invalidActionPenalty`.
   * @throws ResetNeededError before `reset` or after the episode ended; InvalidActionError for a non-string.
   */
  step(action: string): StepResult<string> {
    const d = this.definition
    if (!this.running || this.current === undefined) {
      throw new ResetNeededError({ envId: d.id, reason: this.current === undefined ? "step before reset" : "the episode has ended" })
    }
    const offered = this.admissibleActions()
    if (typeof action !== "string") throw new InvalidActionError({ envId: d.id, action, space: `one of ${offered.join(", ")}` })
    const wanted = action.trim().toLowerCase()
    const command = offered.find((c) => c.toLowerCase() === wanted)
    let reward = d.invalidActionPenalty ?? 0
    if (command !== undefined) {
      const before = this.current
      this.current = this.sample(d.transition(before, command))
      reward = d.reward(before, command, this.current)
    }
    this.steps++
    const terminated = d.terminated(this.current)
    const truncated = this.steps >= d.maxSteps // as TimeLimit (and the hand-written text envs): set even on the terminal step
    if (terminated || truncated) this.running = false
    return { observation: d.observe(this.current), reward, terminated, truncated, info: this.info(command === undefined, offered) }
  }

  stateKey(): string {
    return this.current === undefined ? "" : this.definition.stateKey(this.current)
  }

  render(): string | undefined {
    return this.current === undefined ? undefined : this.definition.observe(this.current)
  }

  toMessages(trajectory: Trajectory.Trajectory): Array<ChatMessage> {
    return textMessages(this.definition.rules, trajectory.task ?? this.task, trajectory)
  }

  /**
   * An exact copy of the env's state (state value, steps, generator), as every restorable env (`Snapshot`).
   * @throws ResetNeededError before the first reset.
   */
  snapshot(): EnvSnapshot {
    if (this.current === undefined) throw new ResetNeededError({ envId: this.definition.id, reason: "snapshot before reset" })
    const payload: SpecPayload<S> = { state: this.current, steps: this.steps, running: this.running, rng: this.rng.clone() }
    return new OwnedSnapshot(this.definition.id, this, payload)
  }

  /**
   * Return to a {@link snapshot} taken by this env.
   * @throws SnapshotMismatchError for a snapshot of another env instance.
   */
  restore(snapshot: EnvSnapshot): void {
    const p = ownPayload<SpecPayload<S>>(this, this.definition.id, snapshot)
    this.current = p.state
    this.steps = p.steps
    this.running = p.running
    this.rng = p.rng.clone()
  }

  close(): void {
    this.running = false
  }
}

/** Options of {@link compile}. */
export interface CompileOptions {
  /** Levels checked at load time (default `[0, 1, 2]`; `[]` skips the check). */
  readonly validateSeeds?: ReadonlyArray<number> | undefined
  /** States explored per checked level at most (default 100 000). */
  readonly maxStates?: number | undefined
}

/**
 * Compile a spec into a text environment, after checking it on `validateSeeds` levels ({@link validateSpec}).
 * @throws SpecError when the spec fails its checks.
 */
export const compile = <S>(spec: TextEnvSpec<S>, options: CompileOptions = {}): SpecTextEnv<S> => {
  const seeds = options.validateSeeds ?? [0, 1, 2]
  if (seeds.length > 0) validateSpec(spec, { seeds, maxStates: options.maxStates })
  return new SpecTextEnv(spec)
}

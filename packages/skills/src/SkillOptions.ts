/**
 * Skills as options (Sutton, Precup & Singh 1999): a wrapper over a text environment whose action set is the
 * environment's admissible commands plus `skill NAME ARG...` commands; a skill command runs the skill in the sandbox,
 * where it drives the environment through two granted host functions, until it returns or the episode ends.
 *
 * **Details**
 * - Guest API: `observe()` → `{ observation, admissible, task, done }`; `act(command)` → `{ observation, reward,
 *   admissible, done, won }`. `act` checks the command against the environment's admissible commands: an inadmissible
 *   command (or any `act` after the episode ended, or more than `maxPrimitiveSteps`) is refused with `HostCallError`,
 *   which ends the skill; the primitive steps it took stand.
 * - `step(action)` is an Effect (the sandbox is asynchronous). For a primitive command it steps the environment
 *   (`info.primitiveSteps = 1`); for a skill command it returns the last primitive step's observation and flags, the
 *   summed reward, `info.primitiveSteps`, `info.skill`, `info.skillResult` or `info.skillError`. A skill that takes
 *   no step returns the current observation with reward 0 (a wasted decision, as an invalid command would be).
 * - `admissibleActions()`: the environment's commands followed by the grounded skill commands, which each
 *   {@link SkillOption}'s `ground(env)` lists (argument tuples that make sense now, e.g. object types in the room),
 *   de-duplicated, without texts equal to a primitive command, and at most `maxSkillActions` (round-robin over the
 *   options). An offered command is parsed by lookup (its arguments may contain spaces, `cabinet 1`); any other
 *   `skill NAME a b` text by words, the last parameter taking the rest.
 * - Stepping after the episode ended (before `reset`) is refused with {@link EpisodeEndedError}.
 * - {@link SyncSkillOptionsEnv} is the synchronous twin (skills on an in-process `SyncSandbox`): a plain `TextEnv`
 *   for synchronous rollouts such as `@autodidact/optim`'s `MultiTurnTrainer`. Both count decisions, skill decisions
 *   and primitive steps in `counters`.
 * - This module is generic over text environments and skills; the hand-written TextHousehold skills and their
 *   groundings are in `HouseholdSkills`, the Sokoban ones in `SokobanSkills`.
 *
 * @see Sutton, Precup, Singh, "Between MDPs and semi-MDPs", Artificial Intelligence 112 (1999)
 * @since 0.1.0
 */
import type { Env, TextEnv as TextEnvModule } from "@autodidact/envs"
import { Data, Effect } from "effect"
import * as HouseholdSkills from "./HouseholdSkills.js"
import * as Sandbox from "./Sandbox.js"
import type { SkillOption } from "./Skill.js"
import type { SkillLibrary, SkillNotFoundError } from "./SkillLibrary.js"
import type * as SyncSandbox from "./SyncSandbox.js"

type TextEnv = TextEnvModule.TextEnv
type StepResult<O> = Env.StepResult<O>

export type { SkillOption } from "./Skill.js"

/** The parse of a skill command. */
export interface SkillCommand {
  readonly name: string
  readonly args: Record<string, string>
}

/** A step of an episode that has already ended (terminated or truncated), before the next `reset`. */
export class EpisodeEndedError extends Data.TaggedError("EpisodeEndedError")<{ readonly action: string }> {
  override get message() {
    return `the episode has ended; reset before stepping (action ${JSON.stringify(this.action)})`
  }
}

/** Wrapper configuration. */
export interface SkillOptionsConfig {
  /** Most primitive steps one skill call may take (default 100). */
  readonly maxPrimitiveSteps?: number
  /**
   * Most skill commands offered per step (default unlimited): groundings are taken round-robin over the options, in
   * option order, so each option keeps some. Skill commands whose text repeats one already offered are dropped.
   */
  readonly maxSkillActions?: number
  /**
   * Failed-option masking (default off): a skill command that failed in a state — a guest or host-call error, no
   * primitive step, or a result object with `ok: false` (a macro whose step had no fitting command) — is not offered
   * again in that state (same `stateKey()`) for the rest of the episode. The options framework's initiation set,
   * narrowed online by what failed; it breaks the loops a greedy policy can fall into by re-issuing a skill that keeps
   * failing. Skill commands given as text still run (masking only changes what `admissibleActions` offers).
   */
  readonly maskFailedSkills?: boolean
}

/** Counters of a wrapper since construction (or `resetCounters`). */
export interface SkillCounters {
  decisions: number
  skillDecisions: number
  primitiveSteps: number
  /** Skill calls that ended in an error (a refused `act`, a guest error) or took no primitive step. */
  failedSkillCalls: number
}

/** The offered skill commands of a state: text → parsed command. */
const offerSkills = (env: TextEnv, options: ReadonlyArray<SkillOption>, cap: number, primitives: ReadonlyArray<string>): Map<string, SkillCommand> => {
  const perOption = options.map((o) =>
    o.ground(env).map((args): [string, SkillCommand] => {
      const named: Record<string, string> = {}
      o.params.forEach((p, i) => {
        const v = args[i]
        if (v !== undefined && v !== "") named[p] = v
      })
      return [["skill", o.name, ...args].join(" "), { name: o.name, args: named }]
    })
  )
  const out = new Map<string, SkillCommand>()
  const prim = new Set(primitives)
  for (let round = 0; out.size < cap; round++) {
    let any = false
    for (const list of perOption) {
      const item = list[round]
      if (item === undefined) continue
      any = true
      if (out.size >= cap) break
      if (!out.has(item[0]) && !prim.has(item[0])) out.set(item[0], item[1])
    }
    if (!any) break
  }
  return out
}

/** The word parse of `skill NAME a b ...` against the options (the last parameter takes the rest). */
const parseWords = (options: ReadonlyArray<SkillOption>, action: string): SkillCommand | undefined => {
  const words = action.trim().split(/\s+/)
  if (words[0] !== "skill" || words.length < 2) return undefined
  const opt = options.find((o) => o.name === words[1])
  if (opt === undefined) return undefined
  const rest = words.slice(2)
  const args: Record<string, string> = {}
  opt.params.forEach((p, i) => {
    const v = i === opt.params.length - 1 ? rest.slice(i).join(" ") : rest[i]
    if (v !== undefined && v !== "") args[p] = v
  })
  return { name: opt.name, args }
}

/** The guest's host functions over `env` for one skill call, and the call's tally. */
const skillHost = (env: TextEnv, state: { lastObservation: string; done: boolean }, maxSteps: number) => {
  const tally: { steps: number; reward: number; last: StepResult<string> | undefined } = { steps: 0, reward: 0, last: undefined }
  const observe: Sandbox.HostFunction = () => ({
    observation: state.lastObservation,
    admissible: [...env.admissibleActions()],
    task: env.task,
    done: state.done
  })
  const act: Sandbox.HostFunction = (command) => {
    if (typeof command !== "string") throw new Sandbox.HostCallError({ fn: "act", reason: "the command must be a string" })
    if (state.done) throw new Sandbox.HostCallError({ fn: "act", reason: "the episode has ended" })
    if (tally.steps >= maxSteps) throw new Sandbox.HostCallError({ fn: "act", reason: `more than ${maxSteps} primitive steps` })
    if (!env.admissibleActions().includes(command)) {
      throw new Sandbox.HostCallError({ fn: "act", reason: `inadmissible command ${JSON.stringify(command)}` })
    }
    const r = env.step(command)
    tally.steps++
    tally.reward += r.reward
    tally.last = r
    state.lastObservation = r.observation
    state.done = r.terminated || r.truncated
    return { observation: r.observation, reward: r.reward, admissible: [...env.admissibleActions()], done: state.done, won: r.info["won"] === true }
  }
  return { tally, host: { observe, act } }
}

const skillResult = (
  state: { lastObservation: string },
  cmd: SkillCommand,
  tally: { steps: number; reward: number; last: StepResult<string> | undefined },
  out: { ok: true; result: unknown } | { ok: false; error: string }
): StepResult<string> => ({
  observation: tally.last?.observation ?? state.lastObservation,
  reward: tally.reward,
  terminated: tally.last?.terminated ?? false,
  truncated: tally.last?.truncated ?? false,
  info: {
    ...(tally.last?.info ?? {}),
    primitiveSteps: tally.steps,
    skill: cmd.name,
    ...(out.ok ? { skillResult: out.result } : { skillError: out.error })
  }
})

/** The skill's result object says `ok: false` (e.g. a macro whose step had no fitting command). */
const saysNotOk = (r: StepResult<string>): boolean => {
  const out = r.info["skillResult"]
  return typeof out === "object" && out !== null && (out as { ok?: unknown }).ok === false
}

/** Shared state and bookkeeping of both wrappers. */
abstract class OptionsEnvBase {
  protected readonly state = { lastObservation: "", done: false }
  protected offered = new Map<string, SkillCommand>()
  /** `stateKey + "\u0000" + command` of the skill calls that failed this episode (with `maskFailedSkills`). */
  private readonly failedHere = new Set<string>()
  private readonly known = new Map<string, SkillCommand>()
  readonly counters: SkillCounters = { decisions: 0, skillDecisions: 0, primitiveSteps: 0, failedSkillCalls: 0 }

  private optionList: ReadonlyArray<SkillOption>

  constructor(
    readonly env: TextEnv,
    readonly library: SkillLibrary,
    options: ReadonlyArray<SkillOption>,
    readonly config: SkillOptionsConfig = {}
  ) {
    this.optionList = options.slice()
  }

  /** The options offered, in order (a copy of the constructor's list, plus those added by {@link addOption}). */
  get options(): ReadonlyArray<SkillOption> {
    return this.optionList
  }

  /**
   * Offer one more option, after the others, from the next `admissibleActions()` on: e.g. a skill admitted to the
   * library while the agent keeps learning. Its `name` must name a library skill when it is called.
   */
  addOption(option: SkillOption): void {
    this.optionList = [...this.optionList, option]
  }

  /** The wrapped env's task. */
  get task(): string {
    return this.env.task
  }

  /** The wrapped env's spec. */
  get spec(): TextEnv["spec"] {
    return this.env.spec
  }

  /** Whether the current episode has ended. */
  get isDone(): boolean {
    return this.state.done
  }

  /** Reset the wrapped environment. */
  reset(options?: Parameters<TextEnv["reset"]>[0]) {
    const r = this.env.reset(options)
    this.state.lastObservation = r.observation
    this.state.done = false
    this.failedHere.clear()
    return r
  }

  /** Primitive commands, then the grounded skill commands (deduplicated, at most `maxSkillActions`). */
  admissibleActions(): ReadonlyArray<string> {
    const prim = this.env.admissibleActions()
    this.offered = offerSkills(this.env, this.options, this.config.maxSkillActions ?? Infinity, prim)
    if (this.failedHere.size > 0) {
      const key = this.env.stateKey()
      for (const text of [...this.offered.keys()]) if (this.failedHere.has(`${key}\u0000${text}`)) this.offered.delete(text)
    }
    for (const [text, cmd] of this.offered) if (!this.known.has(text) && this.known.size < 100_000) this.known.set(text, cmd)
    return [...prim, ...this.offered.keys()]
  }

  /**
   * The primitive commands a skill command offered so far expands to (its option's `expand`), or undefined (a
   * primitive, a command never offered, an option without `expand`). Stateless in the current state: it answers from
   * every command offered since construction (a command's text determines its call). Meant as a generic action
   * describer for featurizers, e.g. `TextAbstraction.registerActionDescriber((a) => env.describeAction(a))` in
   * `@autodidact/optim`, so that skill commands get the relational keys of their steps.
   */
  describeAction(action: string): ReadonlyArray<string> | undefined {
    const cmd = this.known.get(action)
    if (cmd === undefined) return undefined
    const opt = this.options.find((o) => o.name === cmd.name)
    if (opt?.expand === undefined) return undefined
    return opt.expand(opt.params.map((p) => cmd.args[p] ?? ""))
  }

  /** Only the grounded skill commands. */
  skillActions(): ReadonlyArray<string> {
    return this.admissibleActions().filter((a) => a.startsWith("skill "))
  }

  /** The wrapped env's state key (a skill call changes it only through primitive steps). */
  stateKey(): string {
    return this.env.stateKey()
  }

  /** The wrapped env's rendering. */
  render(): string | undefined {
    return this.env.render() ?? undefined
  }

  /** Zero the counters. */
  resetCounters(): void {
    this.counters.decisions = 0
    this.counters.skillDecisions = 0
    this.counters.primitiveSteps = 0
    this.counters.failedSkillCalls = 0
  }

  /** Parse a skill command (an offered one by lookup, else `skill NAME a b ...`); undefined for a primitive. */
  parse(action: string): SkillCommand | undefined {
    return this.offered.get(action) ?? parseWords(this.options, action)
  }

  protected primitive(action: string): StepResult<string> {
    const r = this.env.step(action)
    this.state.lastObservation = r.observation
    this.state.done = r.terminated || r.truncated
    this.counters.decisions++
    this.counters.primitiveSteps++
    return { ...r, info: { ...r.info, primitiveSteps: 1 } }
  }

  /** The state key before a skill call, when failed calls are masked (else undefined: no cost). */
  protected keyBeforeSkill(): string | undefined {
    return this.config.maskFailedSkills === true ? this.env.stateKey() : undefined
  }

  protected tallySkill(r: StepResult<string>, action: string, keyBefore: string | undefined): StepResult<string> {
    const steps = Number(r.info["primitiveSteps"] ?? 0)
    this.counters.decisions++
    this.counters.skillDecisions++
    this.counters.primitiveSteps += steps
    const erred = steps === 0 || r.info["skillError"] !== undefined
    if (erred) this.counters.failedSkillCalls++
    // masked after any failure: an error, no step, or a result saying `ok: false`
    if (keyBefore !== undefined && (erred || saysNotOk(r))) this.failedHere.add(`${keyBefore}\u0000${action}`)
    return r
  }
}

/**
 * A text environment with skill commands. Wraps a `TextEnv` (which it owns: `reset` is passed through). `step`
 * is an Effect (skills run in the worker {@link Sandbox}); stepping after the episode ended fails with
 * {@link EpisodeEndedError}.
 *
 * @category models
 * @since 0.1.0
 */
export class SkillOptionsEnv extends OptionsEnvBase {
  /** One decision: a primitive command or a whole skill. */
  step(action: string): Effect.Effect<StepResult<string>, SkillNotFoundError | EpisodeEndedError> {
    if (this.state.done) return Effect.fail(new EpisodeEndedError({ action }))
    const cmd = this.parse(action)
    if (cmd === undefined) return Effect.sync(() => this.primitive(action))
    const keyBefore = this.keyBeforeSkill()
    const { tally, host } = skillHost(this.env, this.state, this.config.maxPrimitiveSteps ?? 100)
    return this.library.call(cmd.name, cmd.args, host).pipe(
      Effect.map((result) => ({ ok: true as const, result })),
      Effect.catchIf(Sandbox.isSandboxError, (e) => Effect.succeed({ ok: false as const, error: `${e._tag}: ${e.message}` })),
      Effect.map((out) => this.tallySkill(skillResult(this.state, cmd, tally, out), action, keyBefore))
    )
  }
}

/**
 * The synchronous twin of {@link SkillOptionsEnv}: skills run on an in-process {@link SyncSandbox.SyncSandbox}, so
 * `step` returns a plain step result and the wrapper is a `TextEnv` as far as synchronous rollouts go (e.g.
 * `@autodidact/optim`'s `GroupRollout` and `MultiTurnTrainer`). `info.primitiveSteps` and {@link SkillCounters}
 * count the primitive steps; stepping after the episode ended throws {@link EpisodeEndedError}; a skill naming an
 * unknown library skill throws `SkillNotFoundError`.
 *
 * @category models
 * @since 0.1.0
 */
export class SyncSkillOptionsEnv extends OptionsEnvBase {
  constructor(
    env: TextEnv,
    library: SkillLibrary,
    options: ReadonlyArray<SkillOption>,
    readonly runner: SyncSandbox.SyncSandbox,
    config: SkillOptionsConfig = {}
  ) {
    super(env, library, options, config)
  }

  /** One decision: a primitive command or a whole skill. */
  step(action: string): StepResult<string> {
    if (this.state.done) throw new EpisodeEndedError({ action })
    const cmd = this.parse(action)
    if (cmd === undefined) return this.primitive(action)
    const keyBefore = this.keyBeforeSkill()
    const { tally, host } = skillHost(this.env, this.state, this.config.maxPrimitiveSteps ?? 100)
    let out: { ok: true; result: unknown } | { ok: false; error: string }
    try {
      out = { ok: true, result: this.library.callSync(this.runner, cmd.name, cmd.args, host) }
    } catch (e) {
      if (!Sandbox.isSandboxError(e)) throw e
      out = { ok: false, error: `${e._tag}: ${e.message}` }
    }
    return this.tallySkill(skillResult(this.state, cmd, tally, out), action, keyBefore)
  }
}

/**
 * One action describer over several wrappers (the first whose {@link SkillOptionsEnv.describeAction} knows the
 * command answers; undefined when none does), e.g. for `TextAbstraction.registerActionDescriber` of
 * `@autodidact/optim`, so that a featurizer sees the expansion of skill commands offered by any of them. `wrappers`
 * is read on each call: wrappers pushed to it later are consulted too.
 * @since 0.2.0
 */
export const describeAny = (
  wrappers: ReadonlyArray<{ describeAction(action: string): ReadonlyArray<string> | undefined }>
): ((action: string) => ReadonlyArray<string> | undefined) =>
(action) => {
  for (const w of wrappers) {
    const d = w.describeAction(action)
    if (d !== undefined) return d
  }
  return undefined
}

// ---------------------------------------------------------------------------------------------------------------------
// Moved to HouseholdSkills (kept so that existing imports keep working)

/** @deprecated Moved: use `HouseholdSkills.householdSkills`. */
export const householdSkills = HouseholdSkills.householdSkills
/** @deprecated Moved: use `HouseholdSkills.householdOptions`. */
export const householdOptions = HouseholdSkills.householdOptions
/** @deprecated Moved: use `HouseholdSkills.householdVocabulary`. */
export const householdVocabulary = HouseholdSkills.householdVocabulary
/** @deprecated Moved: use `HouseholdSkills.findAndTake`. */
export const findAndTake = HouseholdSkills.findAndTake
/** @deprecated Moved: use `HouseholdSkills.heatObject`. */
export const heatObject = HouseholdSkills.heatObject
/** @deprecated Moved: use `HouseholdSkills.coolObject`. */
export const coolObject = HouseholdSkills.coolObject
/** @deprecated Moved: use `HouseholdSkills.cleanObject`. */
export const cleanObject = HouseholdSkills.cleanObject
/** @deprecated Moved: use `HouseholdSkills.putIn`. */
export const putIn = HouseholdSkills.putIn

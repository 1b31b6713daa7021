/**
 * Wrappers: environments that change one thing about another environment, composable and stackable, each named
 * by what it changes (Gymnasium's `gymnasium.Wrapper` family).
 *
 * | wrapper | changes | Gymnasium source |
 * |---|---|---|
 * | {@link Wrapper} | nothing (forwards everything; base class) | `gymnasium/core.py` `Wrapper` |
 * | {@link ObservationWrapper}, {@link RewardWrapper}, {@link ActionWrapper} | one field, by a method | `gymnasium/core.py` |
 * | {@link Checked} | nothing, but throws on misuse (step before reset or after the end, bad actions, NaN) | `gymnasium/wrappers/common.py` `PassiveEnvChecker`, `OrderEnforcing` |
 * | {@link OrderEnforcing} | throws on step before reset | `gymnasium/wrappers/common.py` |
 * | {@link TimeLimit} | truncates after `maxEpisodeSteps` | `gymnasium/wrappers/common.py` |
 * | {@link RecordEpisodeStatistics} | adds `info.episode = { r, l, t }` at episode end | `gymnasium/wrappers/common.py` |
 * | {@link NormalizeObservation} | observations to running zero mean / unit variance | `gymnasium/wrappers/stateful_observation.py` |
 * | {@link FlattenObservation} | observations to a flat `Float32Array` | `gymnasium/wrappers/transform_observation.py` |
 * | {@link TransformObservation}, {@link TransformReward} | by a function | `transform_observation.py`, `transform_reward.py` |
 * | {@link ClipReward} | rewards clipped to `[min, max]` | `gymnasium/wrappers/transform_reward.py` |
 *
 * **Gotchas**
 * - `spec`, `npRandom` and `unwrapped` forward to the wrapped environment; setting `spec` sets the inner one.
 * - Wrappers do not copy observations unless they change them; what the inner env returns is what you get.
 *
 * @see https://github.com/Farama-Foundation/Gymnasium/blob/v1.4.0/gymnasium/wrappers/common.py
 * @since 0.1.0
 */
import { InvalidActionError, InvalidOptionError, NonFiniteValueError, ResetNeededError, Space } from "@autodidact/core"
import type { Rng } from "@autodidact/core"
import type { AnyEnv, Env, EnvSpec, Info, Metadata, ResetOptions, ResetResult, StepResult } from "../Env.js"

/** The id used in error messages: the spec's id, else the unwrapped class name. */
export const envIdOf = (env: AnyEnv): string => env.spec?.id ?? env.unwrapped.constructor.name

/**
 * Base wrapper: forwards every member to `env`. Subclass it and override what changes.
 * @category wrappers
 */
export class Wrapper<Obs = any, Act = any> implements Env<Obs, Act> {
  constructor(readonly env: AnyEnv) {}
  get observationSpace(): Space.Space {
    return this.env.observationSpace
  }
  get actionSpace(): Space.Space {
    return this.env.actionSpace
  }
  get metadata(): Metadata {
    return this.env.metadata
  }
  get spec(): EnvSpec | undefined {
    return this.env.spec
  }
  set spec(spec: EnvSpec | undefined) {
    this.env.spec = spec
  }
  get npRandom(): Rng {
    return this.env.npRandom
  }
  get unwrapped(): Env<unknown, unknown> {
    return this.env.unwrapped
  }
  reset(options?: ResetOptions): ResetResult<Obs> {
    return this.env.reset(options)
  }
  step(action: Act): StepResult<Obs> {
    return this.env.step(action)
  }
  render(): string | undefined {
    return this.env.render()
  }
  close(): void {
    this.env.close()
  }
}

/**
 * Base for wrappers that change observations: implement `observation(obs)`; `reset` and `step` apply it.
 * @category wrappers
 */
export abstract class ObservationWrapper<Obs = any, Act = any, InnerObs = any> extends Wrapper<Obs, Act> {
  abstract observation(observation: InnerObs): Obs
  override reset(options?: ResetOptions): ResetResult<Obs> {
    const r = this.env.reset(options)
    return { observation: this.observation(r.observation), info: r.info }
  }
  override step(action: Act): StepResult<Obs> {
    const r = this.env.step(action)
    return {
      observation: this.observation(r.observation),
      reward: r.reward,
      terminated: r.terminated,
      truncated: r.truncated,
      info: r.info
    }
  }
}

/**
 * Base for wrappers that change rewards: implement `reward(r)`; `step` applies it.
 * @category wrappers
 */
export abstract class RewardWrapper<Obs = any, Act = any> extends Wrapper<Obs, Act> {
  abstract reward(reward: number): number
  override step(action: Act): StepResult<Obs> {
    const r = this.env.step(action)
    return {
      observation: r.observation,
      reward: this.reward(r.reward),
      terminated: r.terminated,
      truncated: r.truncated,
      info: r.info
    }
  }
}

/**
 * Base for wrappers that change actions: implement `action(a)` mapping this wrapper's action to the inner one.
 * @category wrappers
 */
export abstract class ActionWrapper<Obs = any, Act = any, InnerAct = any> extends Wrapper<Obs, Act> {
  abstract action(action: Act): InnerAct
  override step(action: Act): StepResult<Obs> {
    return this.env.step(this.action(action))
  }
}

/**
 * Throw {@link NonFiniteValueError} when `x` (a number, typed array, array or record of those) holds NaN/±Infinity.
 * Integer typed arrays are skipped (always finite).
 */
export const assertFinite = (where: string, x: unknown): void => {
  if (typeof x === "number") {
    if (!Number.isFinite(x)) throw new NonFiniteValueError({ where, value: x })
    return
  }
  if (x instanceof Float32Array || x instanceof Float64Array) {
    for (let i = 0; i < x.length; i++) {
      const v = x[i]!
      if (v - v !== 0) throw new NonFiniteValueError({ where, value: v, index: i })
    }
    return
  }
  if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++) assertFinite(`${where}[${i}]`, x[i])
    return
  }
  if (x !== null && typeof x === "object" && !ArrayBuffer.isView(x)) {
    for (const k of Object.keys(x)) assertFinite(`${where}.${k}`, (x as Record<string, unknown>)[k])
  }
}

/**
 * Gymnasium's `PassiveEnvChecker` and `OrderEnforcing` in one cheap layer (what `make` applies first):
 * - `step` before the first `reset`, or after `terminated`/`truncated` without a `reset`: {@link ResetNeededError};
 * - an action outside `actionSpace`: {@link InvalidActionError} naming the action, the space and the env id;
 * - NaN/±Infinity in an observation (reset or step) or a reward: {@link NonFiniteValueError}.
 *
 * Cost: one branch per check; `Discrete` actions and `Float32Array` observations take an inlined fast path.
 * @category wrappers
 */
export class Checked<Obs = any, Act = any> extends Wrapper<Obs, Act> {
  private hasReset = false
  private ended = false
  private readonly discreteLo: number
  private readonly discreteHi: number

  constructor(env: AnyEnv) {
    super(env)
    const a = env.actionSpace
    this.discreteLo = a._tag === "Discrete" ? a.start : Number.NaN
    this.discreteHi = a._tag === "Discrete" ? a.start + a.n : Number.NaN
  }

  override reset(options?: ResetOptions): ResetResult<Obs> {
    const r = this.env.reset(options)
    assertFinite(`${envIdOf(this.env)}.reset observation`, r.observation)
    this.hasReset = true
    this.ended = false
    return r
  }

  override step(action: Act): StepResult<Obs> {
    if (!this.hasReset || this.ended) {
      throw new ResetNeededError({
        envId: envIdOf(this.env),
        reason: this.hasReset ? "the episode has ended (terminated or truncated)" : "step() called before reset()"
      })
    }
    if (this.discreteLo === this.discreteLo) {
      const a = action as unknown as number
      if (!(typeof a === "number" && a >= this.discreteLo && a < this.discreteHi && Math.floor(a) === a)) {
        this.throwInvalid(action)
      }
    } else if (!Space.contains(this.env.actionSpace, action)) this.throwInvalid(action)
    const r = this.env.step(action)
    const reward = r.reward
    if (typeof reward !== "number" || reward - reward !== 0) {
      throw new NonFiniteValueError({ where: `${envIdOf(this.env)}.step reward`, value: Number(reward) })
    }
    const obs = r.observation
    if (obs instanceof Float32Array) {
      for (let i = 0; i < obs.length; i++) {
        const v = obs[i]!
        if (v - v !== 0) throw new NonFiniteValueError({ where: `${envIdOf(this.env)}.step observation`, value: v, index: i })
      }
    } else if (typeof obs !== "number" || obs - obs !== 0) assertFinite(`${envIdOf(this.env)}.step observation`, obs)
    if (r.terminated || r.truncated) this.ended = true
    return r
  }

  private throwInvalid(action: unknown): never {
    throw new InvalidActionError({
      envId: envIdOf(this.env),
      action,
      space: Space.describe(this.env.actionSpace)
    })
  }
}

/**
 * Throws {@link ResetNeededError} when `step` comes before the first `reset` (Gymnasium's `OrderEnforcing`).
 * @category wrappers
 */
export class OrderEnforcing<Obs = any, Act = any> extends Wrapper<Obs, Act> {
  private hasReset = false
  override reset(options?: ResetOptions): ResetResult<Obs> {
    this.hasReset = true
    return this.env.reset(options)
  }
  override step(action: Act): StepResult<Obs> {
    if (!this.hasReset) throw new ResetNeededError({ envId: envIdOf(this.env), reason: "step() called before reset()" })
    return this.env.step(action)
  }
  /** Whether `reset` has been called (Gymnasium's `has_reset`). */
  get hasResetCalled(): boolean {
    return this.hasReset
  }
}

/**
 * Truncates the episode after `maxEpisodeSteps` steps: the step that reaches the limit returns
 * `truncated: true` (and keeps the inner `terminated`). A further `step` without `reset` throws
 * {@link ResetNeededError}.
 * @throws InvalidOptionError when `maxEpisodeSteps` is not a positive integer.
 * @category wrappers
 */
export class TimeLimit<Obs = any, Act = any> extends Wrapper<Obs, Act> {
  /** Steps taken in the current episode (-1 before the first reset). */
  elapsedSteps = -1
  constructor(env: AnyEnv, readonly maxEpisodeSteps: number) {
    super(env)
    if (!Number.isInteger(maxEpisodeSteps) || maxEpisodeSteps <= 0) {
      throw new InvalidOptionError({ option: "maxEpisodeSteps", value: maxEpisodeSteps, reason: "expected a positive integer" })
    }
  }
  override reset(options?: ResetOptions): ResetResult<Obs> {
    this.elapsedSteps = 0
    return this.env.reset(options)
  }
  override step(action: Act): StepResult<Obs> {
    if (this.elapsedSteps >= this.maxEpisodeSteps) {
      throw new ResetNeededError({
        envId: envIdOf(this.env),
        reason: `the episode was truncated by TimeLimit(${this.maxEpisodeSteps})`
      })
    }
    const r = this.env.step(action)
    if (this.elapsedSteps >= 0) this.elapsedSteps++
    if (this.elapsedSteps >= this.maxEpisodeSteps && !r.truncated) {
      return { observation: r.observation, reward: r.reward, terminated: r.terminated, truncated: true, info: r.info }
    }
    return r
  }
}

/** Episode statistics that {@link RecordEpisodeStatistics} puts in `info.episode`. */
export interface EpisodeStatistics {
  /** Undiscounted return of the episode. */
  readonly r: number
  /** Number of steps. */
  readonly l: number
  /** Wall-clock seconds since the episode's reset (rounded to microseconds). */
  readonly t: number
}

/**
 * Adds `info.episode = { r, l, t }` to the step that ends an episode (terminated or truncated), and keeps the
 * last `bufferLength` returns, lengths and times in `returnQueue`, `lengthQueue`, `timeQueue` (oldest first).
 * @category wrappers
 */
export class RecordEpisodeStatistics<Obs = any, Act = any> extends Wrapper<Obs, Act> {
  episodeReturn = 0
  episodeLength = 0
  private startTime = 0
  readonly returnQueue: Array<number> = []
  readonly lengthQueue: Array<number> = []
  readonly timeQueue: Array<number> = []
  /** Episodes completed since construction. */
  episodeCount = 0
  constructor(env: AnyEnv, readonly bufferLength = 100, readonly statsKey = "episode") {
    super(env)
  }
  override reset(options?: ResetOptions): ResetResult<Obs> {
    const r = this.env.reset(options)
    this.episodeReturn = 0
    this.episodeLength = 0
    this.startTime = performance.now()
    return r
  }
  override step(action: Act): StepResult<Obs> {
    const r = this.env.step(action)
    this.episodeReturn += r.reward
    this.episodeLength++
    if (!r.terminated && !r.truncated) return r
    const t = Math.round((performance.now() - this.startTime) * 1000) / 1e6
    const episode: EpisodeStatistics = { r: this.episodeReturn, l: this.episodeLength, t }
    this.push(this.returnQueue, episode.r)
    this.push(this.lengthQueue, episode.l)
    this.push(this.timeQueue, t)
    this.episodeCount++
    return { ...r, info: { ...r.info, [this.statsKey]: episode } }
  }
  private push(q: Array<number>, v: number): void {
    q.push(v)
    if (q.length > this.bufferLength) q.shift()
  }
}

/**
 * Running mean and variance of a stream of vectors (Gymnasium's `RunningMeanStd`: parallel/Chan update, starting
 * from mean 0, var 1, count `epsilon` = 1e-4).
 */
export class RunningMeanStd {
  readonly mean: Float64Array
  readonly var: Float64Array
  count: number
  constructor(readonly size: number, epsilon = 1e-4) {
    this.mean = new Float64Array(size)
    this.var = new Float64Array(size).fill(1)
    this.count = epsilon
  }
  /** Fold in one vector (a batch of 1: batch mean = x, batch var = 0). */
  update(x: ArrayLike<number>): void {
    const tot = this.count + 1
    for (let i = 0; i < this.size; i++) {
      const delta = x[i]! - this.mean[i]!
      this.mean[i] = this.mean[i]! + delta / tot
      const m2 = this.var[i]! * this.count + (delta * delta * this.count) / tot
      this.var[i] = m2 / tot
    }
    this.count = tot
  }
}

/**
 * Normalizes `Box` observations to about zero mean and unit variance with running statistics:
 * `(obs - mean) / sqrt(var + epsilon)` as a `Float32Array`, after folding `obs` into the statistics (while
 * `updateRunningMean` is true). The observation space becomes `Box(-inf, inf, shape, float32)`.
 * @throws InvalidOptionError when the observation space is not a `Box`.
 * @category wrappers
 */
export class NormalizeObservation<Act = any> extends ObservationWrapper<Float32Array, Act, ArrayLike<number>> {
  readonly obsRms: RunningMeanStd
  updateRunningMean = true
  private readonly space: Space.Box
  constructor(env: AnyEnv, readonly epsilon = 1e-8) {
    super(env)
    const s = env.observationSpace
    if (s._tag !== "Box") {
      throw new InvalidOptionError({ option: "observationSpace", value: Space.describe(s), reason: "NormalizeObservation needs a Box" })
    }
    this.obsRms = new RunningMeanStd(Space.boxSize(s))
    this.space = Space.box(-Infinity, Infinity, s.shape, "float32")
  }
  override get observationSpace(): Space.Space {
    return this.space
  }
  observation(observation: ArrayLike<number>): Float32Array {
    if (this.updateRunningMean) this.obsRms.update(observation)
    const out = new Float32Array(this.obsRms.size)
    for (let i = 0; i < out.length; i++) {
      out[i] = (observation[i]! - this.obsRms.mean[i]!) / Math.sqrt(this.obsRms.var[i]! + this.epsilon)
    }
    return out
  }
}

/**
 * Clips rewards to `[minReward, maxReward]` (either bound may be omitted).
 * @throws InvalidOptionError when both bounds are missing or min > max.
 * @category wrappers
 */
export class ClipReward<Obs = any, Act = any> extends RewardWrapper<Obs, Act> {
  constructor(env: AnyEnv, readonly minReward = -Infinity, readonly maxReward = Infinity) {
    super(env)
    if (minReward === -Infinity && maxReward === Infinity) {
      throw new InvalidOptionError({ option: "ClipReward bounds", value: [minReward, maxReward], reason: "give at least one bound" })
    }
    if (!(minReward <= maxReward)) {
      throw new InvalidOptionError({ option: "ClipReward bounds", value: [minReward, maxReward], reason: "min exceeds max" })
    }
  }
  reward(reward: number): number {
    return reward < this.minReward ? this.minReward : reward > this.maxReward ? this.maxReward : reward
  }
}

/**
 * Applies `f` to every observation; pass `observationSpace` when `f` changes the space.
 * @category wrappers
 */
export class TransformObservation<Obs = any, Act = any, InnerObs = any> extends ObservationWrapper<Obs, Act, InnerObs> {
  constructor(env: AnyEnv, readonly f: (observation: InnerObs) => Obs, private readonly space?: Space.Space) {
    super(env)
  }
  override get observationSpace(): Space.Space {
    return this.space ?? this.env.observationSpace
  }
  observation(observation: InnerObs): Obs {
    return this.f(observation)
  }
}

/**
 * Applies `f` to every reward.
 * @category wrappers
 */
export class TransformReward<Obs = any, Act = any> extends RewardWrapper<Obs, Act> {
  constructor(env: AnyEnv, readonly f: (reward: number) => number) {
    super(env)
  }
  reward(reward: number): number {
    return this.f(reward)
  }
}

/** Flat `[low, high]` bounds of a space's flat encoding (one-hot parts are in [0, 1]). */
const flatBounds = (space: Space.Space, low: Array<number>, high: Array<number>): void => {
  switch (space._tag) {
    case "Box":
      low.push(...space.low)
      high.push(...space.high)
      return
    case "Tuple":
      for (const s of space.spaces) flatBounds(s, low, high)
      return
    case "Dict":
      for (const s of Object.values(space.spaces)) flatBounds(s, low, high)
      return
    default: {
      const n = Space.flatDim(space)
      for (let i = 0; i < n; i++) {
        low.push(0)
        high.push(1)
      }
    }
  }
}

/**
 * Flattens observations to a `Float32Array` of `Space.flatDim(observationSpace)` elements with
 * `Space.flattenInto` (one-hot for `Discrete`, concatenation for `Tuple`/`Dict`).
 * @throws RangeError for `Text` observation spaces (no flat form).
 * @category wrappers
 */
export class FlattenObservation<Act = any> extends ObservationWrapper<Float32Array, Act, unknown> {
  private readonly space: Space.Box
  private readonly inner: Space.Space
  constructor(env: AnyEnv) {
    super(env)
    this.inner = env.observationSpace
    const low: Array<number> = []
    const high: Array<number> = []
    flatBounds(this.inner, low, high)
    this.space = Space.box(low, high, [low.length], "float32")
  }
  override get observationSpace(): Space.Space {
    return this.space
  }
  observation(observation: unknown): Float32Array {
    const out = new Float32Array(this.space.low.length)
    Space.flattenInto(this.inner, observation, out, 0)
    return out
  }
}

/** Helpers for building wrappers around an `Info`. */
export const emptyInfo: Info = Object.freeze({})

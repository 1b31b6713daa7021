/**
 * n-step returns: a per-env accumulator that turns one-step transitions into
 * `(s_t, a_t, R_t^(n), s_{t+n}, terminated, truncated, gamma^k)` and adds them to a replay buffer.
 *
 * Sutton & Barto, "Reinforcement Learning: An Introduction" (2nd ed., 2018), chapter 7 (n-step bootstrapping);
 * used with replay in Rainbow (Hessel et al., "Rainbow: Combining Improvements in Deep Reinforcement Learning",
 * AAAI 2018, arXiv:1710.02298, eq. 2) and Ape-X / Dopamine.
 *
 * **Details**
 * - `R_t^(n) = sum_{k=0}^{m-1} gamma^k r_{t+k}` where `m = n` in mid-episode and `m < n` when the episode ends
 *   first; the emitted discount is `gamma^m`, so the TD target is `R + discount * (1 - terminated) * V(s_{t+m})`
 *   whatever `m` is.
 * - When env `i` has `n` pending steps, the oldest is emitted with `s_{t+n}` = this step's next observation.
 * - **Terminated**: every pending step of the env is emitted at once, each summing rewards up to the end, with
 *   `terminated = 1` (no bootstrap), and the queue is cleared.
 * - **Truncated** (time limit, not terminated): the same flush, but with `terminated = 0, truncated = 1`, the
 *   final observation as `s_{t+m}` and `discount = gamma^m`, so the learner still bootstraps through the cut
 *   (Pardo et al., "Time Limits in Reinforcement Learning", ICML 2018).
 * - State is typed arrays (one ring of `n` rows per env); the hot path allocates nothing and uses no `Effect`.
 *   Rewards are summed in float64.
 *
 * **Gotchas**
 * - Pass the *final* observation of an ended env as its `nextObservation` (Gymnasium `SameStep` autoreset puts it
 *   in `infos.finalObservation[i]`), not the reset observation.
 * - The sink checks its input again; with `n = 1` this is a pass-through that only sets the discount to `gamma`.
 *
 * @example
 * ```ts
 * const buffer = ReplayBuffer.unsafeMake({ capacity: 100_000, obsDim: 4 })
 * const nstep = NStep.unsafeMake({ numEnvs: 8, n: 3, gamma: 0.99, obsDim: 4 })
 * // after each vector env step:
 * nstep.addBatch(obs, actions, rewards, nextObs, terminations, truncations, buffer)
 * ```
 * @see https://arxiv.org/abs/1710.02298
 * @category models
 * @since 0.1.0
 */
import { InvalidOptionError } from "@autodidact/core"
import { construct } from "./ReplayErrors.js"
import { Effect } from "effect"
import type { TransitionSink } from "./ReplayBuffer.js"
import * as Columns from "./ReplayColumns.js"
import type { Contents, Decoded } from "./ReplayFormat.js"

/** Options of an {@link NStep} accumulator. */
export interface Options {
  /** Number of parallel envs (rows per `addBatch`), >= 1. */
  readonly numEnvs: number
  /** Steps summed before bootstrapping, >= 1 (Rainbow: 3). */
  readonly n: number
  /** Discount in [0, 1]. */
  readonly gamma: number
  /** Elements per observation, >= 1. */
  readonly obsDim: number
  /** Elements per action, >= 1 (default 1). */
  readonly actDim?: number
  readonly observationDtype?: Columns.ObservationDtype
  readonly actionDtype?: Columns.ActionDtype
}

const bit = Columns.isSet
const ADD = Columns.transitionNames("NStep.add")
const ADD_BATCH = Columns.stepNames("NStep.addBatch")

/**
 * An n-step accumulator (see the module docs).
 * @category models
 */
export class NStep {
  readonly numEnvs: number
  readonly n: number
  readonly gamma: number
  readonly obsDim: number
  readonly actDim: number
  readonly observationDtype: Columns.ObservationDtype
  readonly actionDtype: Columns.ActionDtype
  /** `gamma^k` for k = 0..n. */
  private readonly powers: Float64Array
  /** [numEnvs * n * obsDim] pending observations. */
  readonly observations: Float32Array | Uint8Array
  /** [numEnvs * n * actDim] pending actions. */
  readonly actions: Int32Array | Float32Array
  /** [numEnvs * n] pending rewards. */
  readonly rewards: Float64Array
  /** [numEnvs] ring slot of each env's oldest pending step. */
  readonly head: Int32Array
  /** [numEnvs] pending steps per env, 0..n-1 between calls. */
  readonly count: Int32Array
  /** [numEnvs * obsDim] last next observation of each env (for `flush`). */
  readonly lastNext: Float32Array | Uint8Array
  private readonly obsViews: Array<Float32Array | Uint8Array>
  private readonly actViews: Array<Int32Array | Float32Array>
  private readonly nextViews: Array<Float32Array | Uint8Array>

  /** @throws InvalidOptionError for an out-of-range option. */
  constructor(options: Options) {
    this.numEnvs = Columns.intOption("numEnvs", options.numEnvs, 1)
    this.n = Columns.intOption("n", options.n, 1, 1000)
    this.gamma = Columns.numberOption("gamma", options.gamma, 0, 1)
    this.obsDim = Columns.intOption("obsDim", options.obsDim, 1)
    this.actDim = Columns.intOption("actDim", options.actDim ?? 1, 1)
    this.observationDtype = Columns.enumOption("observationDtype", options.observationDtype ?? "float32", ["float32", "uint8"])
    this.actionDtype = Columns.enumOption("actionDtype", options.actionDtype ?? "int32", ["int32", "float32"])
    const { numEnvs: e, n, obsDim: od, actDim: ad } = this
    this.powers = new Float64Array(n + 1)
    for (let k = 0; k <= n; k++) this.powers[k] = Math.pow(this.gamma, k)
    this.observations = Columns.allocate(this.observationDtype, e * n * od) as Float32Array | Uint8Array
    this.actions = Columns.allocate(this.actionDtype, e * n * ad) as Int32Array | Float32Array
    this.rewards = new Float64Array(e * n)
    this.head = new Int32Array(e)
    this.count = new Int32Array(e)
    this.lastNext = Columns.allocate(this.observationDtype, e * od) as Float32Array | Uint8Array
    // views made once so emitting allocates nothing
    this.obsViews = Array.from({ length: e * n }, (_, s) => this.observations.subarray(s * od, (s + 1) * od))
    this.actViews = Array.from({ length: e * n }, (_, s) => this.actions.subarray(s * ad, (s + 1) * ad))
    this.nextViews = Array.from({ length: e }, (_, i) => this.lastNext.subarray(i * od, (i + 1) * od))
  }

  /** Pending (not yet emitted) steps of env `env`. */
  pending(env: number): number {
    return this.count[env]!
  }

  /**
   * Push one step of env `env` and emit the transitions it completes into `sink`; returns how many were emitted.
   *
   * Shapes: `observation`, `nextObservation` [obsDim]; `action` a number (actDim 1) or [actDim]; `reward` finite.
   * @throws InvalidOptionError (env outside [0, numEnvs)), ShapeMismatchError, DtypeMismatchError,
   *   NonFiniteValueError; nothing is pushed then.
   */
  add(
    env: number,
    observation: ArrayLike<number>,
    action: number | ArrayLike<number>,
    reward: number,
    nextObservation: ArrayLike<number>,
    terminated: boolean | number,
    truncated: boolean | number,
    sink: TransitionSink
  ): number {
    if (!(env >= 0 && env < this.numEnvs) || !Number.isInteger(env)) {
      throw new InvalidOptionError({ option: "NStep.add env", value: env, reason: `expected an integer in [0, ${this.numEnvs})` })
    }
    Columns.checkTransition(ADD, this, observation, action, reward, nextObservation)
    const slot = this.slot(env, this.count[env]!)
    Columns.copy(observation, 0, this.observations, slot * this.obsDim, this.obsDim)
    if (typeof action === "number") this.actions[slot] = action
    else Columns.copy(action, 0, this.actions, slot * this.actDim, this.actDim)
    return this.push(env, slot, reward, nextObservation, 0, terminated, truncated, sink)
  }

  /**
   * Push one step of every env (row `i` is env `i`) and emit the completed transitions into `sink`; returns how
   * many were emitted.
   *
   * Shapes: `observations`, `nextObservations` [numEnvs * obsDim]; `actions` [numEnvs * actDim]; `rewards`,
   * `terminations`, `truncations` [numEnvs].
   * @throws ShapeMismatchError, DtypeMismatchError, NonFiniteValueError (naming the env index); nothing is
   *   pushed then.
   */
  addBatch(
    observations: ArrayLike<number>,
    actions: ArrayLike<number>,
    rewards: ArrayLike<number>,
    nextObservations: ArrayLike<number>,
    terminations: ArrayLike<number | boolean>,
    truncations: ArrayLike<number | boolean>,
    sink: TransitionSink
  ): number {
    const e = this.numEnvs
    const od = this.obsDim
    const ad = this.actDim
    Columns.checkStep(ADD_BATCH, this, e, observations, actions, rewards, nextObservations, terminations, truncations)
    let emitted = 0
    for (let i = 0; i < e; i++) {
      const slot = this.slot(i, this.count[i]!)
      Columns.copy(observations, i * od, this.observations, slot * od, od)
      Columns.copy(actions, i * ad, this.actions, slot * ad, ad)
      emitted += this.push(i, slot, rewards[i]!, nextObservations, i * od, terminations[i]!, truncations[i]!, sink)
    }
    return emitted
  }

  private slot(env: number, j: number): number {
    const n = this.n
    const k = this.head[env]! + j
    return env * n + (k >= n ? k - n : k)
  }

  private push(
    env: number,
    slot: number,
    reward: number,
    next: ArrayLike<number>,
    nextOff: number,
    terminated: boolean | number,
    truncated: boolean | number,
    sink: TransitionSink
  ): number {
    const od = this.obsDim
    this.rewards[slot] = reward
    Columns.copy(next, nextOff, this.lastNext, env * od, od)
    this.count[env] = this.count[env]! + 1
    if (bit(terminated)) return this.drain(env, true, bit(truncated), sink)
    if (bit(truncated)) return this.drain(env, false, true, sink)
    if (this.count[env]! === this.n) {
      this.emitOldest(env, this.n, false, false, sink)
      return 1
    }
    return 0
  }

  /** Emit env's oldest pending step summing its `m` pending rewards, then pop it. */
  private emitOldest(env: number, m: number, terminated: boolean, truncated: boolean, sink: TransitionSink): void {
    let ret = 0
    for (let k = m - 1; k >= 0; k--) ret = this.rewards[this.slot(env, k)]! + this.gamma * ret
    const s = this.slot(env, 0)
    const action = this.actDim === 1 ? this.actions[s]! : this.actViews[s]!
    sink.add(this.obsViews[s]!, action, ret, this.nextViews[env]!, terminated, truncated, this.powers[m]!)
    const h = this.head[env]! + 1
    this.head[env] = h === this.n ? 0 : h
    this.count[env] = this.count[env]! - 1
  }

  private drain(env: number, terminated: boolean, truncated: boolean, sink: TransitionSink): number {
    const m = this.count[env]!
    for (let k = m; k > 0; k--) this.emitOldest(env, k, terminated, truncated, sink)
    this.head[env] = 0
    return m
  }

  /**
   * Emit every pending step of env `env` (or of all envs) as truncated transitions bootstrapping from the last
   * next observation (for the end of data collection); returns how many were emitted.
   */
  flush(sink: TransitionSink, env?: number): number {
    let emitted = 0
    for (let i = 0; i < this.numEnvs; i++) {
      if (env === undefined || env === i) emitted += this.drain(i, false, true, sink)
    }
    return emitted
  }

  /** Drop every pending step (e.g. after resetting the envs). */
  clear(): void {
    this.head.fill(0)
    this.count.fill(0)
  }

  /** The file kind `ReplayFile.load` checks (`"nstep"`). */
  static readonly kind: string = "nstep"

  /** The file contents (for `ReplayFile.save`): the pending steps of every sub-env (views, not copies). */
  contents(): Contents {
    return {
      kind: NStep.kind,
      capacity: this.n,
      size: this.count.reduce((a, b) => a + b, 0),
      pointer: 0,
      shapes: { observation: [this.obsDim], action: [this.actDim] },
      options: {
        numEnvs: this.numEnvs,
        n: this.n,
        gamma: this.gamma,
        observationDtype: this.observationDtype,
        actionDtype: this.actionDtype
      },
      counters: {},
      columns: [
        ["observations", this.observations],
        ["actions", this.actions],
        ["rewards", this.rewards],
        ["head", this.head],
        ["count", this.count],
        ["lastNext", this.lastNext]
      ]
    }
  }

  /** Restore from a decoded file (used by `ReplayFile.load`). */
  static restore(d: Decoded): NStep {
    const h = d.header
    const o = h.options
    let acc: NStep
    try {
      acc = new NStep({
        numEnvs: o["numEnvs"] as number,
        n: o["n"] as number,
        gamma: o["gamma"] as number,
        obsDim: h.shapes["observation"]?.[0] ?? -1,
        actDim: h.shapes["action"]?.[0] ?? -1,
        observationDtype: o["observationDtype"] as Columns.ObservationDtype,
        actionDtype: o["actionDtype"] as Columns.ActionDtype
      })
    } catch (e) {
      return d.corrupt(`invalid options: ${(e as Error).message}`)
    }
    const { numEnvs: e, n, obsDim: od, actDim: ad } = acc
    acc.observations.set(d.column("observations", acc.observationDtype, e * n * od))
    acc.actions.set(d.column("actions", acc.actionDtype, e * n * ad))
    acc.rewards.set(d.column("rewards", "float64", e * n))
    acc.head.set(d.column("head", "int32", e))
    acc.count.set(d.column("count", "int32", e))
    acc.lastNext.set(d.column("lastNext", acc.observationDtype, e * od))
    for (let i = 0; i < e; i++) {
      if (!(acc.head[i]! >= 0 && acc.head[i]! < n)) d.corrupt(`head ${acc.head[i]} of env ${i} outside [0, ${n})`)
      if (!(acc.count[i]! >= 0 && acc.count[i]! < n)) d.corrupt(`count ${acc.count[i]} of env ${i} outside [0, ${n})`)
    }
    for (let s = 0; s < e * n; s++) {
      const r = acc.rewards[s]!
      if (!(r - r === 0)) d.corrupt(`non-finite pending reward ${r} at slot ${s}`)
    }
    return acc
  }
}

/** The `kind` of an n-step accumulator's file. */
export const KIND = NStep.kind

/**
 * An n-step accumulator for `numEnvs` sub-envs: it emits `(s_t, a_t, Σ_{k<m} γ^k r_{t+k}, s_{t+m}, γ^m)` with
 * `m = n`, or fewer steps when the episode ends first (Sutton & Barto 2018 ch. 7; Rainbow, arXiv:1710.02298).
 * @returns fails with InvalidOptionError for numEnvs/n/obsDim/actDim < 1, gamma outside [0, 1] or an unknown dtype.
 */
export const make = (options: Options): Effect.Effect<NStep, InvalidOptionError> =>
  construct(NStep)(options)

/**
 * {@link make} for plain (non-Effect) code: the same checks, synchronously.
 * @throws InvalidOptionError (the error {@link make} fails with)
 */
export const create = (options: Options): NStep => new NStep(options)

/** @deprecated use {@link create} (same function). */
export const unsafeMake = create


/**
 * An episode buffer for on-policy learners: assembles the steps of each sub-env of a vector env into
 * trajectories and emits them as `@autodidact/core` {@link Trajectory} records when episodes end (and partial
 * trajectories on demand, at a rollout boundary).
 *
 * **When to use**: REINFORCE / PPO / GRPO-style learners that consume whole episodes (Williams, "Simple
 * statistical gradient-following algorithms for connectionist reinforcement learning", Machine Learning 8, 1992;
 * Schulman et al., "Proximal Policy Optimization Algorithms", arXiv:1707.06347), episode stores and dashboards.
 *
 * **Details**
 * - Per env, steps accumulate in growable typed-array columns (observation float32 [obsDim], action int32 or
 *   float32 [actDim], reward float64, optional `logProb` and `value` float64); capacity doubles when full, so
 *   steady-state `addBatch` allocates nothing. Objects are built only when a trajectory is emitted.
 * - An env's episode ends when `terminated` or `truncated` is set: its trajectory is emitted with the last step's
 *   flags, `finalObservation` = that step's next observation (pass the *final* observation, not the reset one),
 *   `return` = undiscounted sum and `length`; the env starts a fresh trajectory.
 * - Emitted steps hold copies: `observation` a `Float32Array` (use `Trajectory.toJsonValue` for JSON), `action`
 *   a number (actDim 1) or a typed array.
 * - `partial()` returns the in-progress trajectories (not ended: all flags false) without clearing them;
 *   `drain()` returns them and clears (the next steps start new records).
 *
 * @example
 * ```ts
 * const episodes = EpisodeBuffer.unsafeMake({ envId: "CartPole-v1", numEnvs: 4, obsDim: 4 })
 * const done = episodes.addBatch(obs, actions, step.rewards, nextObs, step.terminations, step.truncations)
 * for (const t of done) console.log(t.return, t.length)
 * ```
 * @category models
 * @since 0.1.0
 */
import { InvalidOptionError, Trajectory } from "@autodidact/core"
import { Effect } from "effect"
import * as Columns from "./ReplayColumns.js"
import { construct, ShapeMismatchError } from "./ReplayErrors.js"
import type { Contents, Decoded } from "./ReplayFormat.js"

/** Options of an {@link EpisodeBuffer}. */
export interface Options {
  /** The environment id recorded in every trajectory. */
  readonly envId: string
  /** Number of parallel envs, >= 1. */
  readonly numEnvs: number
  /** Elements per observation, >= 1. */
  readonly obsDim: number
  /** Elements per action, >= 1 (default 1). */
  readonly actDim?: number
  /** Action dtype (default `"int32"`). */
  readonly actionDtype?: Columns.ActionDtype
  /** Initial steps of room per env (grows by doubling; default 256). */
  readonly initialLength?: number
}

/** Optional per-step policy outputs recorded with a batch ([numEnvs] each). */
export interface Extras {
  readonly logProbs?: ArrayLike<number>
  readonly values?: ArrayLike<number>
}

const bit = Columns.isSet
const ADD_BATCH = Columns.stepNames("EpisodeBuffer.addBatch")
const NONE: ReadonlyArray<Trajectory.Trajectory> = Object.freeze([])

/** One env's in-progress trajectory. */
interface Track {
  obs: Float32Array
  act: Int32Array | Float32Array
  rew: Float64Array
  logp: Float64Array
  val: Float64Array
  length: number
}

/**
 * An episode buffer (see the module docs).
 * @category models
 */
export class EpisodeBuffer {
  readonly envId: string
  readonly numEnvs: number
  readonly obsDim: number
  readonly actDim: number
  readonly actionDtype: Columns.ActionDtype
  /** Observations are kept as float32 (`Trajectory` observations). */
  readonly observationDtype = "float32" as const
  /** [numEnvs * obsDim] last next observation of each env. */
  readonly lastNext: Float32Array
  private readonly tracks: Array<Track>

  /** @throws InvalidOptionError for an out-of-range option. */
  constructor(options: Options) {
    if (typeof options.envId !== "string") throw new InvalidOptionError({ option: "envId", value: options.envId, reason: "expected a string" })
    this.envId = options.envId
    this.numEnvs = Columns.intOption("numEnvs", options.numEnvs, 1)
    this.obsDim = Columns.intOption("obsDim", options.obsDim, 1)
    this.actDim = Columns.intOption("actDim", options.actDim ?? 1, 1)
    this.actionDtype = Columns.enumOption("actionDtype", options.actionDtype ?? "int32", ["int32", "float32"])
    const room = Columns.intOption("initialLength", options.initialLength ?? 256, 1)
    this.lastNext = new Float32Array(this.numEnvs * this.obsDim)
    this.tracks = Array.from({ length: this.numEnvs }, () => this.track(room))
  }

  private track(room: number): Track {
    return {
      obs: new Float32Array(room * this.obsDim),
      act: Columns.allocate(this.actionDtype, room * this.actDim) as Int32Array | Float32Array,
      rew: new Float64Array(room),
      logp: new Float64Array(room),
      val: new Float64Array(room),
      length: 0
    }
  }

  private grow(t: Track): void {
    const room = 2 * t.rew.length
    const g = this.track(room)
    g.obs.set(t.obs)
    g.act.set(t.act)
    g.rew.set(t.rew)
    g.logp.set(t.logp)
    g.val.set(t.val)
    t.obs = g.obs
    t.act = g.act
    t.rew = g.rew
    t.logp = g.logp
    t.val = g.val
  }

  /** Steps recorded so far in env `env`'s current trajectory. */
  length(env: number): number {
    return this.tracks[env]!.length
  }

  /**
   * Record one vector-env step (row `i` is env `i`) and return the trajectories it ended (a shared empty array
   * when none did).
   *
   * Shapes: `observations`, `nextObservations` [numEnvs * obsDim] (float32/float64/number[]); `actions`
   * [numEnvs * actDim]; `rewards`, `terminations`, `truncations` and the optional `extras` [numEnvs].
   * @throws ShapeMismatchError, DtypeMismatchError, NonFiniteValueError (naming the field and env index);
   *   nothing is recorded then.
   */
  addBatch(
    observations: ArrayLike<number>,
    actions: ArrayLike<number>,
    rewards: ArrayLike<number>,
    nextObservations: ArrayLike<number>,
    terminations: ArrayLike<number | boolean>,
    truncations: ArrayLike<number | boolean>,
    extras?: Extras
  ): ReadonlyArray<Trajectory.Trajectory> {
    const e = this.numEnvs
    const od = this.obsDim
    const ad = this.actDim
    Columns.checkStep(ADD_BATCH, this, e, observations, actions, rewards, nextObservations, terminations, truncations)
    const logProbs = extras?.logProbs
    const values = extras?.values
    if (logProbs !== undefined && logProbs.length !== e) throw new ShapeMismatchError({ where: "EpisodeBuffer.addBatch logProbs", expected: e, actual: logProbs.length })
    if (values !== undefined && values.length !== e) throw new ShapeMismatchError({ where: "EpisodeBuffer.addBatch values", expected: e, actual: values.length })
    let done: Array<Trajectory.Trajectory> | undefined
    for (let i = 0; i < e; i++) {
      const t = this.tracks[i]!
      if (t.length === t.rew.length) this.grow(t)
      const s = t.length
      Columns.copy(observations, i * od, t.obs, s * od, od)
      Columns.copy(actions, i * ad, t.act, s * ad, ad)
      t.rew[s] = rewards[i]!
      t.logp[s] = logProbs === undefined ? Number.NaN : logProbs[i]!
      t.val[s] = values === undefined ? Number.NaN : values[i]!
      t.length = s + 1
      Columns.copy(nextObservations, i * od, this.lastNext, i * od, od)
      const term = bit(terminations[i])
      const trunc = bit(truncations[i])
      if (term || trunc) {
        ;(done ??= []).push(this.emit(i, term, trunc))
        t.length = 0
      }
    }
    return done ?? NONE
  }

  private emit(env: number, terminated: boolean, truncated: boolean): Trajectory.Trajectory {
    const t = this.tracks[env]!
    const od = this.obsDim
    const ad = this.actDim
    const steps: Array<Trajectory.Step> = []
    for (let s = 0; s < t.length; s++) {
      const last = s === t.length - 1
      const lp = t.logp[s]!
      const v = t.val[s]!
      steps.push({
        observation: t.obs.slice(s * od, (s + 1) * od),
        action: ad === 1 ? t.act[s]! : t.act.slice(s * ad, (s + 1) * ad),
        reward: t.rew[s]!,
        terminated: last && terminated,
        truncated: last && truncated,
        ...(Number.isNaN(lp) ? {} : { logProb: lp }),
        ...(Number.isNaN(v) ? {} : { value: v })
      })
    }
    return Trajectory.fromSteps(this.envId, steps, { finalObservation: this.lastNext.slice(env * od, (env + 1) * od) })
  }

  /** The in-progress trajectories of envs with at least one step (flags false), without clearing them. */
  partial(): Array<Trajectory.Trajectory> {
    const out: Array<Trajectory.Trajectory> = []
    for (let i = 0; i < this.numEnvs; i++) if (this.tracks[i]!.length > 0) out.push(this.emit(i, false, false))
    return out
  }

  /** {@link partial}, then clear: the next steps of each env start a new record. */
  drain(): Array<Trajectory.Trajectory> {
    const out = this.partial()
    this.clear()
    return out
  }

  /** Drop every in-progress step. */
  clear(): void {
    for (const t of this.tracks) t.length = 0
  }

  /** The file kind `ReplayFile.load` checks (`"episode"`). */
  static readonly kind: string = "episode"

  /** The file contents (for `ReplayFile.save`): the in-progress trajectories of every sub-env, copied. */
  contents(): Contents {
    const lengths = Int32Array.from(this.tracks, (t) => t.length)
    const total = lengths.reduce((a, b) => a + b, 0)
    const od = this.obsDim
    const ad = this.actDim
    const obs = new Float32Array(total * od)
    const act = Columns.allocate(this.actionDtype, total * ad) as Int32Array | Float32Array
    const rew = new Float64Array(total)
    const logp = new Float64Array(total)
    const val = new Float64Array(total)
    let at = 0
    for (const t of this.tracks) {
      obs.set(t.obs.subarray(0, t.length * od), at * od)
      act.set(t.act.subarray(0, t.length * ad), at * ad)
      rew.set(t.rew.subarray(0, t.length), at)
      logp.set(t.logp.subarray(0, t.length), at)
      val.set(t.val.subarray(0, t.length), at)
      at += t.length
    }
    return {
      kind: EpisodeBuffer.kind,
      capacity: this.numEnvs,
      size: total,
      pointer: 0,
      shapes: { observation: [od], action: [ad] },
      options: { envId: this.envId, numEnvs: this.numEnvs, actionDtype: this.actionDtype },
      counters: {},
      columns: [
        ["lengths", lengths],
        ["observations", obs],
        ["actions", act],
        ["rewards", rew],
        ["logProbs", logp],
        ["values", val],
        ["lastNext", this.lastNext]
      ]
    }
  }

  /** Restore from a decoded file (used by `ReplayFile.load`). */
  static restore(d: Decoded): EpisodeBuffer {
    const h = d.header
    const o = h.options
    let buf: EpisodeBuffer
    try {
      buf = new EpisodeBuffer({
        envId: o["envId"] as string,
        numEnvs: o["numEnvs"] as number,
        obsDim: h.shapes["observation"]?.[0] ?? -1,
        actDim: h.shapes["action"]?.[0] ?? -1,
        actionDtype: o["actionDtype"] as Columns.ActionDtype
      })
    } catch (e) {
      return d.corrupt(`invalid options: ${(e as Error).message}`)
    }
    const { numEnvs: e, obsDim: od, actDim: ad } = buf
    const lengths = d.column("lengths", "int32", e)
    let total = 0
    for (let i = 0; i < e; i++) {
      if (lengths[i]! < 0) d.corrupt(`negative length ${lengths[i]} for env ${i}`)
      total += lengths[i]!
    }
    if (total !== h.size) d.corrupt(`lengths sum to ${total}, header size is ${h.size}`)
    const obs = d.column("observations", "float32", total * od)
    const act = d.column("actions", buf.actionDtype, total * ad)
    const rew = d.column("rewards", "float64", total)
    const logp = d.column("logProbs", "float64", total)
    const val = d.column("values", "float64", total)
    buf.lastNext.set(d.column("lastNext", "float32", e * od))
    let at = 0
    for (let i = 0; i < e; i++) {
      const t = buf.tracks[i]!
      const len = lengths[i]!
      while (t.rew.length < len) buf.grow(t)
      t.obs.set(obs.subarray(at * od, (at + len) * od))
      t.act.set(act.subarray(at * ad, (at + len) * ad))
      t.rew.set(rew.subarray(at, at + len))
      t.logp.set(logp.subarray(at, at + len))
      t.val.set(val.subarray(at, at + len))
      t.length = len
      at += len
    }
    return buf
  }
}

/** The `kind` of an episode buffer's file. */
export const KIND = EpisodeBuffer.kind

/**
 * An episode buffer for `numEnvs` vector-env sub-envs (see {@link EpisodeBuffer}): each sub-env's steps grow in
 * typed-array columns (`initialLength` rows to start, doubled when full) until the episode ends, then leave as a
 * `Trajectory`.
 * @returns fails with InvalidOptionError for numEnvs/obsDim/actDim/initialLength < 1 or an unknown action dtype.
 */
export const make = (options: Options): Effect.Effect<EpisodeBuffer, InvalidOptionError> =>
  construct(EpisodeBuffer)(options)

/**
 * {@link make} for plain (non-Effect) code: the same checks, synchronously.
 * @throws InvalidOptionError (the error {@link make} fails with)
 */
export const create = (options: Options): EpisodeBuffer => new EpisodeBuffer(options)

/** @deprecated use {@link create} (same function). */
export const unsafeMake = create


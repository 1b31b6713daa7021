/**
 * The DRRN text policy for {@link SelfPlay}: plays the games through their text views (`GameText` of
 * `@autodidact/envs`: the observation states the seat, i.e. the role, the private cards and the public history in
 * words; the actions are the admissible commands) and learns by the same magnetic-mirror-descent step as the tabular
 * policy, distilled into the network.
 *
 * **Policy**: {@link DrrnPolicy} (He et al., arXiv:1511.04636), `π(a | s) = softmax_a f(s) · g(a)` over the admissible
 * commands, with the state text `task = <game name>`, `observation = GameTextView.observation(state, seat)` and no
 * episode history (the observation already holds the whole information state). Defaults sized for the games: 1024
 * hash buckets, 64 hidden, 32 embed, positional words, no relational features.
 *
 * **Update** (one per batch; Sokota et al., "A Unified Approach to Reinforcement Learning, Quantal Response
 * Equilibria, and Two-Player Zero-Sum Games", arXiv:2206.05825, MMD with function approximation): for every
 * observation text `s` visited in the batch, the tabular MMD (or policy-gradient) step of {@link SelfPlay}'s module
 * docs gives a target distribution from the probabilities that generated the batch and the estimator's advantages:
 * `θ'(a) = (log π(a|s) + η q̂(a) + αη log ρ(a|s)) / (1 + αη)`, `target = softmax θ'` (ρ: uniform, or with a moving
 * magnet a frozen copy of the network). The network is then fitted to the targets by `fitSteps` Adam steps
 * (learning rate `fitRate`, global-norm clip `maxGradNorm`) on the cross-entropy `Σ_s w_s · CE(target_s, π_θ(·|s))`
 * with the visited texts weighted equally (`w_s = 1 / #texts`), so a network that can represent the targets performs
 * exactly the tabular step. Within a batch the parameters do not move, so each distinct text is scored once per batch
 * (the handle is cached by text).
 *
 * **Average policy**: as the tabular policy, every visited text accumulates `w · n_s · π(·|s)`; `evalPolicy:
 * "average"` reads this table (texts never visited fall back to the current network), `"current"` the network.
 *
 * **Exact analysis**: {@link SelfPlay.tabulate} queries any acting policy at every information state of a small game
 * (one representative state each: the text is a function of the information state), giving the per-information-state
 * table the CLI turns into a solvers `TabularPolicy` for NashConv.
 *
 * **Errors**: `InvalidOptionError` naming a bad {@link Config} field; `InvalidOptionError` when a game's text view
 * lists a different number of commands than legal actions (a broken view).
 * @see https://arxiv.org/abs/1511.04636 (DRRN), https://arxiv.org/abs/2206.05825 (MMD)
 * @since 0.4.0
 */
import { InvalidOptionError, Rng } from "@autodidact/core"
import type { Game as GameNs } from "@autodidact/envs"
import { GameText } from "@autodidact/envs"
import { Base64 } from "effect/encoding"
import { Result, Schema } from "effect"
import * as Adam from "../Adam.js"
import * as DrrnPolicy from "../text/DrrnPolicy.js"
import { accumulate, type ActingPolicy, type Decision, type LearnOptions, type LearnStep } from "./SelfPlayShapes.js"

type Game = GameNs.Game

/** The trainer's shapes (`SelfPlayShapes`, re-exported by `SelfPlay` too). */
export type { ActingPolicy, Decision, LearnOptions, LearnStep }

/** Network sizes and the fitting of each update's targets. */
export interface Config {
  /** Hash buckets of the sparse text features. Default 1024. */
  readonly buckets: number
  /** Hidden width of both towers. Default 64. */
  readonly hidden: number
  /** Embedding width. Default 32. */
  readonly embed: number
  /**
   * Adam learning rate of the fit. Default 0.001 (with 0.01 the fit overshoots: its error exceeds the MMD step it
   * fits).
   */
  readonly fitRate: number
  /** Adam steps per update fitting the batch's targets. Default 16. */
  readonly fitSteps: number
  /** Global gradient-norm clip of each fit step. Default 1. */
  readonly maxGradNorm: number
}

/** The defaults (see {@link Config}). */
export const defaults: Config = { buckets: 1024, hidden: 64, embed: 32, fitRate: 0.001, fitSteps: 16, maxGradNorm: 1 }

/** Check a config over {@link defaults}; throws `InvalidOptionError` naming the first bad field. */
export const validate = (partial: Partial<Config> | undefined): Config => {
  const c: Config = { ...defaults, ...(partial ?? {}) }
  for (const k of ["buckets", "hidden", "embed", "fitSteps"] as const) {
    if (!Number.isSafeInteger(c[k]) || c[k] <= 0) throw new InvalidOptionError({ option: `drrn.${k}`, value: c[k], reason: "must be a positive integer" })
  }
  for (const k of ["fitRate", "maxGradNorm"] as const) {
    if (!(c[k] > 0 && Number.isFinite(c[k]))) throw new InvalidOptionError({ option: `drrn.${k}`, value: c[k], reason: "must be finite and > 0" })
  }
  return c
}

const drrnConfig = (c: Config): Partial<DrrnPolicy.Config> => ({ buckets: c.buckets, hidden: c.hidden, embed: c.embed, positional: true, grid: false, history: 0, relational: false })

const views = new WeakMap<Game, GameText.GameTextView>()
/** The (cached) text view of `game`. */
export const viewOf = (game: Game): GameText.GameTextView => {
  let v = views.get(game)
  if (v === undefined) {
    v = GameText.textView(game)
    views.set(game, v)
  }
  return v
}

/** What the network reads at a decision: the game's name as the task, the seat's observation, the commands. */
export const inputOf = (d: Decision): DrrnPolicy.Input & { readonly key: string } => {
  const view = viewOf(d.game)
  const observation = view.observation(d.state, d.seat)
  const admissible = view.commands(d.state)
  if (admissible.length !== d.legal.length) {
    throw new InvalidOptionError({ option: "game", value: d.game.info.name, reason: `its text view lists ${admissible.length} commands for ${d.legal.length} legal actions` })
  }
  return { key: `${d.game.info.name}\u0000${observation}`, task: d.game.info.name, observation, admissible }
}

/** The network's probabilities at `input` into `out` (a fresh copy). */
const score = (net: DrrnPolicy.Drrn, enc: DrrnPolicy.Encoded): Float64Array => {
  DrrnPolicy.forward(net, enc)
  return Float64Array.from(DrrnPolicy.probsOf(net).subarray(0, enc.actions.length))
}

/** One distinct observation text of a batch: its encoding, probabilities, and the batch's sums. */
export interface Visit {
  readonly key: string
  readonly enc: DrrnPolicy.Encoded
  /** π(·|s) that generated the batch (the trainer reads it for the entropy row). */
  readonly probs: Float64Array
  readonly grad: Float64Array
  readonly count: Float64Array
  visits: number
}

/**
 * A frozen DRRN (an opponent-pool entry, or the evaluated policy): probabilities by observation text, memoized (the
 * parameters never change); with `average`, texts in that table read the average policy instead.
 */
export class FrozenDrrn implements ActingPolicy {
  private readonly net: DrrnPolicy.Drrn
  private readonly memo = new Map<string, Float64Array>()
  constructor(readonly config: Config, readonly params: Float32Array, readonly average?: ReadonlyMap<string, Float64Array>) {
    this.net = DrrnPolicy.fromParams({ ...DrrnPolicy.defaults, ...drrnConfig(config) }, params)
    DrrnPolicy.setImplementation(this.net, { actionMemo: true })
  }
  probabilities(d: Decision, out: Float64Array): unknown {
    const input = inputOf(d)
    let p = this.average?.get(input.key) ?? this.memo.get(input.key)
    if (p === undefined) {
      p = score(this.net, DrrnPolicy.encode(this.net, input))
      if (this.memo.size >= 200_000) this.memo.clear()
      this.memo.set(input.key, p)
    }
    out.set(p)
    return undefined
  }
}

const cross = (o: LearnOptions, v: Visit, logRho: Float64Array | undefined, target: Float64Array): void => {
  const A = v.probs.length
  const n = v.visits
  const eta = o.learningRate * Math.min(1, n / (o.fullStepVisits ?? 1))
  let all = 0
  for (let k = 0; k < A; k++) all += v.grad[k]!
  const mean = all / n
  let m = -Infinity
  for (let k = 0; k < A; k++) {
    const logPi = Math.log(Math.max(v.probs[k]!, 1e-300))
    let t: number
    if (o.update === "mmd") {
      const c = v.count[k]!
      const q = c > 0 ? v.grad[k]! / c : o.unsampled === "mean" ? mean : 0
      t = (logPi + eta * q + o.magnet * eta * (logRho === undefined ? 0 : logRho[k]!)) / (1 + o.magnet * eta)
    } else t = logPi + (eta * v.grad[k]!) / n
    target[k] = t
    if (t > m) m = t
  }
  let z = 0
  for (let k = 0; k < A; k++) {
    target[k] = Math.exp(target[k]! - m)
    z += target[k]!
  }
  for (let k = 0; k < A; k++) target[k] = target[k]! / z
}

/** The DRRN self-play policy (see the module docs). */
export class Policy {
  readonly config: Config
  readonly net: DrrnPolicy.Drrn
  adam: Adam.AdamState
  /** Parameters of the moving magnet (undefined: the uniform magnet). */
  magnet: DrrnPolicy.Drrn | undefined
  /** Σ over updates of `w · n_s · π(·|s)` by observation key (the unnormalized average policy). */
  readonly avg = new Map<string, Float64Array>()
  private readonly batch = new Map<string, Visit>()
  private grad: Float64Array

  /** A fresh network drawn from `rng`. */
  constructor(config: Partial<Config> | undefined, rng: Rng) {
    this.config = validate(config)
    this.net = DrrnPolicy.make({ ...drrnConfig(this.config), rng })
    // the action tower's hidden layer memoized per command while the parameters stand (paramsChanged after each step)
    DrrnPolicy.setImplementation(this.net, { actionMemo: true })
    this.adam = Adam.make(this.net.params.length, { eps: 1e-8 })
    this.grad = new Float64Array(this.net.params.length)
  }

  probabilities(d: Decision, out: Float64Array): Visit {
    const input = inputOf(d)
    let v = this.batch.get(input.key)
    if (v === undefined) {
      const enc = DrrnPolicy.encode(this.net, input)
      const probs = score(this.net, enc)
      const A = probs.length
      v = { key: input.key, enc, probs, grad: new Float64Array(A), count: new Float64Array(A), visits: 0 }
      this.batch.set(input.key, v)
    }
    out.set(v.probs)
    return v
  }

  learn(steps: ReadonlyArray<LearnStep>, o: LearnOptions): void {
    const touched = accumulate<Visit>(steps, o.update)
    const w = o.averageWeight ?? 1
    const targets = touched.map((v) => {
      const target = new Float64Array(v.probs.length)
      const logRho = this.magnet === undefined ? undefined : score(this.magnet, v.enc).map((p) => Math.log(Math.max(p, 1e-6)))
      cross(o, v, logRho, target)
      let a = this.avg.get(v.key)
      if (a === undefined) {
        a = new Float64Array(v.probs.length)
        this.avg.set(v.key, a)
      }
      for (let k = 0; k < a.length; k++) a[k] = a[k]! + w * v.visits * v.probs[k]!
      return target
    })
    this.batch.clear()
    if (touched.length === 0) return
    const grad = this.grad
    const d = new Float64Array(64)
    const scale = 1 / touched.length
    for (let it = 0; it < this.config.fitSteps; it++) {
      grad.fill(0)
      for (let i = 0; i < touched.length; i++) {
        const v = touched[i]!
        const target = targets[i]!
        DrrnPolicy.forward(this.net, v.enc)
        const p = DrrnPolicy.probsOf(this.net)
        const dl = d.length >= target.length ? d : new Float64Array(target.length)
        // d CE / d logits = π_θ − target
        for (let k = 0; k < target.length; k++) dl[k] = scale * (p[k]! - target[k]!)
        DrrnPolicy.backward(this.net, v.enc, dl, grad)
      }
      Adam.clipGradNorm(grad, this.config.maxGradNorm)
      Adam.step(this.adam, this.net.params, grad, this.config.fitRate)
      DrrnPolicy.paramsChanged(this.net)
    }
  }

  /** Move the magnet to the current network (`ρ ← π`; the moving-magnet MMD variant). */
  moveMagnet(): void {
    this.magnet = DrrnPolicy.clone(this.net)
    DrrnPolicy.setImplementation(this.magnet, { actionMemo: true })
  }

  /** The normalized average policy by observation key. */
  averageTable(): Map<string, Float64Array> {
    const out = new Map<string, Float64Array>()
    for (const [k, a] of this.avg) {
      let z = 0
      for (let i = 0; i < a.length; i++) z += a[i]!
      out.set(k, z > 0 ? a.map((x) => x / z) : a.map(() => 1 / a.length))
    }
    return out
  }

  /** A frozen copy: the current network, or (with `"average"`) the average table over it. */
  frozen(which: "current" | "average"): FrozenDrrn {
    return new FrozenDrrn(this.config, Float32Array.from(this.net.params), which === "average" ? this.averageTable() : undefined)
  }

  snapshot(): ActingPolicy {
    return this.frozen("current")
  }
}

// ---------------------------------------------------------------------------------------------------------------
// JSON
// ---------------------------------------------------------------------------------------------------------------

const f32ToB64 = (a: Float32Array): string => Base64.encode(new Uint8Array(a.buffer, a.byteOffset, a.byteLength))

/** Decode base64 little-endian float32s of length `n`; throws `InvalidOptionError` naming `what` otherwise. */
const b64ToF32 = (s: string, n: number, what: string): Float32Array => {
  const r = Base64.decode(s)
  if (Result.isFailure(r) || r.success.byteLength !== 4 * n) {
    throw new InvalidOptionError({ option: what, value: s.length > 40 ? `${s.slice(0, 40)}…` : s, reason: `is not ${n} base64 float32s` })
  }
  const out = new Float32Array(n)
  new Uint8Array(out.buffer).set(r.success)
  return out
}

/** The JSON of a {@link Policy} (parameters, Adam moments and magnet as base64 little-endian float32). */
export const PolicyJson = Schema.Struct({
  config: Schema.Record(Schema.String, Schema.Unknown),
  params: Schema.String,
  adamM: Schema.String,
  adamV: Schema.String,
  adamStep: Schema.Number,
  magnet: Schema.NullOr(Schema.String),
  avg: Schema.Array(Schema.Struct({ key: Schema.String, sums: Schema.Array(Schema.Number) }))
})
export type PolicyJson = typeof PolicyJson.Type

/** The JSON of a {@link FrozenDrrn} (a pool entry). */
export const FrozenJson = Schema.Struct({ config: Schema.Record(Schema.String, Schema.Unknown), params: Schema.String })
export type FrozenJson = typeof FrozenJson.Type

/** {@link Policy} → JSON. */
export const toJson = (p: Policy): PolicyJson => ({
  config: { ...p.config },
  params: f32ToB64(p.net.params),
  adamM: f32ToB64(p.adam.m),
  adamV: f32ToB64(p.adam.v),
  adamStep: p.adam.step,
  magnet: p.magnet === undefined ? null : f32ToB64(p.magnet.params),
  avg: [...p.avg].map(([key, a]) => ({ key, sums: Array.from(a) }))
})

/** Restore `json` into `p` (same config); throws `InvalidOptionError` for a config or length mismatch. */
export const restore = (p: Policy, json: PolicyJson): void => {
  const c = validate(json.config as Partial<Config>)
  for (const k of ["buckets", "hidden", "embed"] as const) {
    if (c[k] !== p.config[k]) throw new InvalidOptionError({ option: `drrn.${k}`, value: p.config[k], reason: `the checkpoint's network has ${k} ${c[k]}` })
  }
  const n = p.net.params.length
  p.net.params.set(b64ToF32(json.params, n, "params"))
  p.adam.m.set(b64ToF32(json.adamM, n, "adamM"))
  p.adam.v.set(b64ToF32(json.adamV, n, "adamV"))
  p.adam.step = json.adamStep
  DrrnPolicy.paramsChanged(p.net)
  p.magnet = json.magnet === null ? undefined : DrrnPolicy.fromParams(p.net.config, b64ToF32(json.magnet, n, "magnet"))
  if (p.magnet !== undefined) DrrnPolicy.setImplementation(p.magnet, { actionMemo: true })
  p.avg.clear()
  for (const r of json.avg) p.avg.set(r.key, Float64Array.from(r.sums))
}

/** {@link FrozenDrrn} → JSON. */
export const frozenToJson = (f: FrozenDrrn): FrozenJson => ({ config: { ...f.config }, params: f32ToB64(f.params) })

/** JSON → {@link FrozenDrrn}; throws `InvalidOptionError` for a bad config or parameter length. */
export const frozenFromJson = (json: FrozenJson): FrozenDrrn => {
  const c = validate(json.config as Partial<Config>)
  const n = DrrnPolicy.layout({ ...DrrnPolicy.defaults, ...drrnConfig(c) }).reduce((s, l) => s + l.size, 0)
  return new FrozenDrrn(c, b64ToF32(json.params, n, "params"))
}

/** A fresh policy for seat/policy index `i` of a run seeded `seed` (its own generator, independent of play). */
export const make = (config: Partial<Config> | undefined, seed: number, i: number): Policy => new Policy(config, Rng.make(seed).spawn(i + 1)[i]!)

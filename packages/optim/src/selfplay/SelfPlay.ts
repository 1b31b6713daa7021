/**
 * Self-play reinforcement learning in extensive-form games (the `Game`/`State` interface of `@autodidact/envs`):
 * sampled episodes with one shared policy in every seat (or one policy per seat), optionally against an opponent pool
 * of past checkpoints, advantages from a registered estimator (`rae`, `mars`, `at-grpo`, `grpo`, ...), and a tabular
 * softmax policy over information states, so that learned policies can be analysed exactly (NashConv) by the caller.
 *
 * **The loop** (one *update*): play `episodesPerUpdate` episodes, cycling over `games` (a mixed batch); chance moves
 * are sampled from `chanceOutcomes()`, player moves from the policy. Each learner seat of each episode is one
 * trajectory (its own decisions, reward 0 except its terminal return on its last decision) with role
 * `"<game>/<seat>"`; the trajectories of one game form one advantage group. The estimator `algo` turns them into
 * per-step advantages; the policy learns from (decision, action, advantage).
 *
 * **The tabular update** (per information state `I` visited `n_I` times in the batch, with probabilities `π` that
 * generated the batch):
 * - `update: "mmd"` (default) — Magnetic Mirror Descent (Sokota et al., "A Unified Approach to Reinforcement Learning,
 *   Quantal Response Equilibria, and Two-Player Zero-Sum Games", arXiv:2206.05825, Eq. 2 in behavioral form with
 *   q-values) with magnet ρ (uniform by default) and q-values estimated from the sampled steps: `q̂(a)` is the mean
 *   advantage of the batch's steps at `I` that took `a` (self-normalized importance weighting; an action not taken
 *   reads 0, the estimator's baseline, or with `unsampled: "mean"` the mean over `I`'s steps). The closed form `π' ∝ (π · ρ^{αη} · e^{η q̂})^{1/(1+αη)}` is, in logits,
 *   `θ' = (θ + η q̂ + αη log ρ) / (1 + αη)` (η = `learningRate`, α = `magnet`). MMD's last iterate converges to the
 *   α-regularized (quantal response) equilibrium, which approaches a Nash equilibrium as α → 0; plain self-play
 *   policy gradient instead cycles in zero-sum games. With `unsampled: "mean"` a baseline constant within a batch
 *   for a role (GRPO's group mean) cancels and the estimators differ only by scale and by how their baseline moves
 *   from sample to sample (RAE's per-trajectory EMA); with `"baseline"` the baseline is what an untried action is
 *   compared with.
 * - `magnetEvery: K` moves the magnet to the current policy every K updates (`log ρ ← log π`; the moving-magnet
 *   variant of the same paper), so the fixed point is a Nash equilibrium and a strong α (low noise) costs no bias.
 * - `critic: β` replaces the batch's per-action means by moving averages across updates; `fullStepVisits: m` scales
 *   the step of a state seen n < m times in the batch by n / m (rarely reached states average over more samples).
 * - `update: "pg"` — softmax policy gradient per state: `θ' = θ + (η / n_I) Σ A (e_a − π)`.
 * - Every visited row also accumulates `n_I · π` into its *average policy* (the frequency-weighted average of the
 *   iterates, fictitious-play style); `evalPolicy` picks which of the two the evaluation hook and `act` see.
 *
 * **Opponents**: `"latest"` plays the current policy in every seat (all seats learn); `"uniform"` / `"winrate"` put
 * one learner seat (cycling) against snapshots taken every `poolEvery` updates (at most `poolSize`, oldest dropped),
 * sampled uniformly or with weight `1 − winRate + 0.1` (prioritized fictitious self-play: the opponents the learner
 * beats least are drawn most); only the learner's seat learns. Until the pool has an entry, episodes are self-play.
 *
 * **Policies** ({@link SelfPlayPolicy}): the trainer sees a policy only through `probabilities(decision)` and
 * `learn(steps)`, with the decision carrying the game, the seat (the role), the legal actions and the state:
 * {@link TabularSoftmax} (`policy: "tabular"`) or the DRRN text policy over the games' text views (`policy: "drrn"`,
 * {@link SelfPlayDrrn}: the same MMD step per visited text, distilled into the network). {@link tabulate} turns any
 * acting policy into a table over a small game's information states, so a DRRN is analysed exactly too.
 * The tabular policy keys rows by seat and information state (`informationStateString`, or `observationString` for
 * perfect-information games, where the history would blow the table up): with a tabular policy `"shared"` and
 * `"per-seat"` learn the same rows and give identical runs.
 *
 * **Checkpoints**: {@link toCheckpoint} / {@link fromCheckpoint} (Schema {@link CheckpointJson}) capture the whole
 * run (policy rows, average policy, pool, RAE baselines, generator state; for a DRRN run its weights, Adam moments,
 * magnet and average table as `drrn`, pool entries' networks as their `drrn`), so a run resumes bit-identically;
 * `@autodidact/optim/node`'s `SelfPlayFiles` writes them atomically.
 *
 * **Errors**: `InvalidOptionError` (an option out of range, an unknown game), {@link SeatNotToMoveError},
 * `IllegalActionError` of envs (from {@link applyMove}), {@link CheckpointGameMismatchError} (a checkpoint of other
 * games), `AdvantageInputError` / `UnknownEstimatorError` of {@link Advantages}.
 *
 * @example
 * ```ts
 * import { GameRegistry } from "@autodidact/envs"
 * import { SelfPlay } from "@autodidact/optim"
 * const result = SelfPlay.trainSync([GameRegistry.loadGame("kuhn_poker")], { algo: "rae", totalSteps: 200_000, seed: 1 })
 * result.session.policyView().actionProbabilities("kuhn_poker", 0, "0", [0, 1]) // the Jack's check/bet
 * ```
 * @see https://arxiv.org/abs/2506.24119 (SPIRAL), https://arxiv.org/abs/2206.05825 (MMD)
 * @since 0.3.0
 */
import { InvalidOptionError, Rng, RngState, Statistics } from "@autodidact/core"
import type { Game as GameNs } from "@autodidact/envs"
import { IllegalActionError } from "@autodidact/envs"
import { Effect, Schema } from "effect"
import * as Advantages from "../Advantages.js"
import * as SelfPlayDrrn from "./SelfPlayDrrn.js"

import { accumulate, type ActingPolicy, type Decision, type LearnOptions, type LearnStep, type UpdateRule } from "./SelfPlayShapes.js"

type Game = GameNs.Game
type State = GameNs.State

// ---------------------------------------------------------------------------------------------------------------
// Options, errors
// ---------------------------------------------------------------------------------------------------------------

/** Who sits in the other seats. */
export type Opponents = "latest" | "uniform" | "winrate"
/** The tabular update rule. */
export type { UpdateRule } from "./SelfPlayShapes.js"

/** Trainer options (see the module docs). */
export interface Options {
  /** Registered advantage estimator (`Advantages.names()`); default `"rae"` (SPIRAL). */
  readonly algo: string
  readonly seed: number
  /** Budget: player decisions played (every seat, opponents included). */
  readonly totalSteps: number
  /** Episodes per update (the batch). Default 256. */
  readonly episodesPerUpdate: number
  /** η of the update. Default 0.05. */
  readonly learningRate: number
  /** α, the strength of MMD's uniform magnet (0: unregularized Hedge). Default 0.02. */
  readonly magnet: number
  /**
   * Visits of a state in one batch from which it takes the full step η; a state seen n < this times steps by
   * η · n / fullStepVisits (rarely reached states average their noisy estimates over several updates). Default 1.
   */
  readonly fullStepVisits: number
  /**
   * β in [0, 1) of a tabular critic: each (state, action)'s advantage estimate becomes an exponential moving average
   * over updates (`q ← q + (1 − (1 − β)^c) (mean of the batch's c samples − q)`), so rarely reached states learn from
   * more than one batch's few samples; 0 (default) uses each batch's means alone.
   */
  readonly critic: number
  /**
   * Updates between moves of MMD's magnet to the current policy (0, default: the fixed uniform magnet). A moving
   * magnet removes the regularization's bias, so a larger `magnet` (less noise) still converges to Nash.
   */
  readonly magnetEvery: number
  /**
   * `q̂` of an action not taken at a state in this batch: `"baseline"` (default) reads 0, the estimator's baseline,
   * so that a state seen once still learns which of its actions beat the baseline; `"mean"` reads the mean over the
   * state's steps (then a baseline cancels exactly, and a state seen once in a batch does not move).
   */
  readonly unsampled: "baseline" | "mean"
  readonly update: UpdateRule
  readonly opponents: Opponents
  /** Updates between snapshots into the opponent pool. Default 10. */
  readonly poolEvery: number
  /** Largest pool (oldest dropped). Default 20. */
  readonly poolSize: number
  /** One policy in every seat, or one per seat. Default `"shared"`. */
  readonly sharing: "shared" | "per-seat"
  /** Which policy evaluation and `act` see: the average of the iterates or the last iterate. Default `"average"`. */
  readonly evalPolicy: "current" | "average"
  /** Weights of the iterates in the average policy: all equal, or the t-th weighted t (as CFR+'s average). Default linear. */
  readonly averaging: "uniform" | "linear"
  /** Updates between calls of the evaluation hook (0: only at the end). Default 10. */
  readonly evalEvery: number
  /** Discount of the estimators' step returns. Default 1 (games end with one terminal reward). */
  readonly gamma: number
  /** RAE's EMA decay. Default 0.95 (SPIRAL). */
  readonly emaDecay: number
  /** Updates between `saveCheckpoint` calls (also at the end and on interruption). Default 50. */
  readonly checkpointEvery: number
  /**
   * The policy class: `"tabular"` ({@link TabularSoftmax}, default) or `"drrn"` (the DRRN text policy over the games'
   * text views, {@link SelfPlayDrrn}; `critic` must then be 0).
   */
  readonly policy: "tabular" | "drrn"
  /** Network and fitting options of the DRRN policy (`SelfPlayDrrn.Config` over its defaults). */
  readonly drrn: Partial<SelfPlayDrrn.Config>
}

/** The defaults. */
export const defaults: Options = {
  algo: "rae",
  seed: 0,
  totalSteps: 100_000,
  episodesPerUpdate: 256,
  learningRate: 0.05,
  magnet: 0.02,
  fullStepVisits: 1,
  critic: 0,
  magnetEvery: 0,
  unsampled: "baseline",
  update: "mmd",
  opponents: "latest",
  poolEvery: 10,
  poolSize: 20,
  sharing: "shared",
  evalPolicy: "average",
  averaging: "linear",
  evalEvery: 10,
  gamma: 1,
  emaDecay: 0.95,
  checkpointEvery: 50,
  policy: "tabular",
  drrn: {}
}

/**
 * A move by a seat that is not the one to move.
 * @category errors
 */
export class SeatNotToMoveError extends Schema.TaggedError<SeatNotToMoveError>()("SeatNotToMoveError", {
  game: Schema.String,
  seat: Schema.Number,
  toMove: Schema.Number
}) {
  override get message() {
    return `${this.game}: seat ${this.seat} is not to move (the player to move is ${this.toMove === -1 ? "chance" : this.toMove === -4 ? "nobody: the game is over" : `seat ${this.toMove}`})`
  }
}

/**
 * A checkpoint (or policy file) written for other games than the ones asked for.
 * @category errors
 */
export class CheckpointGameMismatchError extends Schema.TaggedError<CheckpointGameMismatchError>()("CheckpointGameMismatchError", {
  expected: Schema.Array(Schema.String),
  found: Schema.Array(Schema.String)
}) {
  override get message() {
    return `the policy was trained on ${this.found.join(", ")}, not on ${this.expected.join(", ")}`
  }
}

/**
 * Apply `seat`'s `action` to `state`, checking that `seat` is to move and `action` is legal.
 * @throws SeatNotToMoveError, IllegalActionError (of `@autodidact/envs`), both naming the value.
 */
export const applyMove = (game: Game, state: State, seat: number, action: number): void => {
  const toMove = state.currentPlayer()
  if (toMove !== seat) throw new SeatNotToMoveError({ game: game.info.name, seat, toMove })
  const legal = state.legalActions()
  if (!legal.includes(action)) throw new IllegalActionError({ game: game.info.name, action, legal: [...legal], history: [...state.history()] })
  state.applyAction(action)
}

/** A chance outcome of `state` drawn with its probability (one uniform draw of `rng`). */
export const sampleChance = (state: State, rng: Rng): number => {
  const outcomes = state.chanceOutcomes()
  const u = rng.random()
  let acc = 0
  for (const [a, p] of outcomes) {
    acc += p
    if (acc > u) return a
  }
  return outcomes[outcomes.length - 1]![0]
}

const bad = (option: string, value: unknown, reason: string) => new InvalidOptionError({ option, value, reason })

/** Check options (merged over {@link defaults}); throws `InvalidOptionError` naming the first bad one. */
export const validate = (o: Options): Options => {
  const posInt = (k: keyof Options) => {
    const v = o[k] as number
    if (!Number.isSafeInteger(v) || v <= 0) throw bad(k, v, "must be a positive integer")
  }
  posInt("totalSteps")
  posInt("episodesPerUpdate")
  posInt("poolEvery")
  posInt("poolSize")
  posInt("checkpointEvery")
  posInt("fullStepVisits")
  if (!Number.isSafeInteger(o.magnetEvery) || o.magnetEvery < 0) throw bad("magnetEvery", o.magnetEvery, "must be an integer ≥ 0")
  if (!Number.isSafeInteger(o.evalEvery) || o.evalEvery < 0) throw bad("evalEvery", o.evalEvery, "must be an integer ≥ 0")
  if (!Number.isSafeInteger(o.seed) || o.seed < 0) throw bad("seed", o.seed, "must be a non-negative integer")
  if (!(o.learningRate > 0 && Number.isFinite(o.learningRate))) throw bad("learningRate", o.learningRate, "must be finite and > 0")
  if (!(o.magnet >= 0 && Number.isFinite(o.magnet))) throw bad("magnet", o.magnet, "must be finite and ≥ 0")
  if (!(o.critic >= 0 && o.critic < 1)) throw bad("critic", o.critic, "must be in [0, 1)")
  if (!(o.gamma >= 0 && o.gamma <= 1)) throw bad("gamma", o.gamma, "must be in [0, 1]")
  if (!(o.emaDecay >= 0 && o.emaDecay <= 1)) throw bad("emaDecay", o.emaDecay, "must be in [0, 1]")
  if (o.update !== "mmd" && o.update !== "pg") throw bad("update", o.update, "must be mmd or pg")
  if (!["latest", "uniform", "winrate"].includes(o.opponents)) throw bad("opponents", o.opponents, "must be latest, uniform or winrate")
  if (o.sharing !== "shared" && o.sharing !== "per-seat") throw bad("sharing", o.sharing, "must be shared or per-seat")
  if (o.unsampled !== "baseline" && o.unsampled !== "mean") throw bad("unsampled", o.unsampled, "must be baseline or mean")
  if (o.averaging !== "uniform" && o.averaging !== "linear") throw bad("averaging", o.averaging, "must be uniform or linear")
  if (o.evalPolicy !== "current" && o.evalPolicy !== "average") throw bad("evalPolicy", o.evalPolicy, "must be current or average")
  if (o.policy !== "tabular" && o.policy !== "drrn") throw bad("policy", o.policy, "must be tabular or drrn")
  if (o.policy === "drrn") {
    SelfPlayDrrn.validate(o.drrn)
    if (o.critic !== 0) throw bad("critic", o.critic, "the per-action critic is tabular; use 0 with the drrn policy")
  }
  if (!Advantages.names().includes(o.algo)) throw new Advantages.UnknownEstimatorError({ name: o.algo, known: Advantages.names() })
  if (Advantages.traits(o.algo).needs?.values === true || Advantages.traits(o.algo).needs?.stateKeys === true) {
    throw bad("algo", o.algo, "needs critic values or state keys, which the self-play trainer does not provide")
  }
  return o
}

// ---------------------------------------------------------------------------------------------------------------
// Policies
// ---------------------------------------------------------------------------------------------------------------

export type { ActingPolicy, Decision, LearnOptions, LearnStep } from "./SelfPlayShapes.js"

/** A trainable self-play policy ({@link TabularSoftmax}, or the DRRN text policy of {@link SelfPlayDrrn}). */
export interface SelfPlayPolicy extends ActingPolicy {
  /** Learn from one batch of steps (their handles from this policy's `probabilities` in the same batch). */
  learn(steps: ReadonlyArray<LearnStep>, options: LearnOptions): void
  /** A frozen copy, for the opponent pool. */
  snapshot(): ActingPolicy
}

/** What a {@link Session} needs of its policies: a handle carrying the probabilities, a magnet, frozen copies. */
export interface SessionPolicy extends SelfPlayPolicy {
  probabilities(decision: Decision, out: Float64Array): { readonly probs: Float64Array }
  /** Move MMD's magnet to the current policy. */
  moveMagnet(): void
  /** A frozen copy of the current policy or of the average of its iterates. */
  frozen(which: "current" | "average"): ActingPolicy
}

/** The tabular key of `seat`'s view of `state`: `<seat>|<information state>` (observation for perfect information). */
export const infoKey = (game: Game, state: State, seat: number): string =>
  `${seat}|${game.info.perfectInformation ? state.observationString(seat) : state.informationStateString(seat)}`

/** One row of a tabular policy. */
export interface Row {
  readonly actions: Int32Array
  readonly logits: Float64Array
  readonly probs: Float64Array
  /** Σ over updates of `n_I · π`: the unnormalized average policy. */
  readonly avg: Float64Array
  /** Batch scratch: summed gradient (or advantage per action), steps per action, visits. */
  readonly grad: Float64Array
  readonly count: Float64Array
  /** The critic's per-action estimates (with `critic` > 0) and whether each has been set. */
  readonly q: Float64Array
  readonly qSeen: Uint8Array
  /** log ρ of MMD's magnet at this state (zeros: the uniform magnet, up to a constant). */
  readonly logMagnet: Float64Array
  visits: number
}

const softmaxInto = (logits: Float64Array, out: Float64Array): void => {
  let m = -Infinity
  for (let k = 0; k < logits.length; k++) if (logits[k]! > m) m = logits[k]!
  let z = 0
  for (let k = 0; k < logits.length; k++) {
    const e = Math.exp(logits[k]! - m)
    out[k] = e
    z += e
  }
  for (let k = 0; k < logits.length; k++) out[k] = out[k]! / z
}

const newRow = (legal: ReadonlyArray<number>): Row => {
  const n = legal.length
  return { actions: Int32Array.from(legal), logits: new Float64Array(n), probs: new Float64Array(n).fill(1 / n), avg: new Float64Array(n), grad: new Float64Array(n), count: new Float64Array(n), q: new Float64Array(n), qSeen: new Uint8Array(n), logMagnet: new Float64Array(n), visits: 0 }
}

/** A frozen tabular policy: probabilities by key (unknown keys: uniform). */
export class FrozenTabular implements ActingPolicy {
  constructor(readonly games: ReadonlyMap<string, ReadonlyMap<string, Float64Array>>) {}
  probabilities(d: Decision, out: Float64Array): unknown {
    const p = this.games.get(d.game.info.name)?.get(infoKey(d.game, d.state, d.seat))
    const n = d.legal.length
    if (p === undefined || p.length !== n) for (let k = 0; k < n; k++) out[k] = 1 / n
    else for (let k = 0; k < n; k++) out[k] = p[k]!
    return undefined
  }
}

/**
 * Tabular softmax policy: one row of logits per (game, seat, information state), created uniform on first visit;
 * learns by MMD or softmax policy gradient (module docs), keeps the average policy.
 */
export class TabularSoftmax implements SessionPolicy {
  /** Rows by game name, then by {@link infoKey}. */
  readonly tables = new Map<string, Map<string, Row>>()

  row(game: Game, state: State, seat: number, legal: ReadonlyArray<number>): Row {
    let table = this.tables.get(game.info.name)
    if (table === undefined) {
      table = new Map()
      this.tables.set(game.info.name, table)
    }
    const key = infoKey(game, state, seat)
    let row = table.get(key)
    if (row === undefined) {
      row = newRow(legal)
      table.set(key, row)
    }
    return row
  }

  probabilities(d: Decision, out: Float64Array): Row {
    const row = this.row(d.game, d.state, d.seat, d.legal)
    out.set(row.probs)
    return row
  }

  learn(steps: ReadonlyArray<LearnStep>, o: LearnOptions): void {
    const touched = accumulate<Row>(steps, o.update)
    const w = o.averageWeight ?? 1
    const m = o.fullStepVisits ?? 1
    for (const row of touched) {
      const n = row.visits
      const A = row.logits.length
      // a state seen fewer than `fullStepVisits` times in the batch takes a proportionally smaller step
      const eta = o.learningRate * Math.min(1, n / m)
      const decay = 1 / (1 + o.magnet * eta)
      if (o.update === "mmd") {
        // q̂(a): the mean advantage of the steps that took a (self-normalized importance weighting); an action not
        // taken at I in this batch gets the mean over all of I's steps, so only the sampled differences move π
        let all = 0
        for (let k = 0; k < A; k++) all += row.grad[k]!
        const mean = all / n
        const beta = o.critic ?? 0
        if (beta > 0) {
          // the critic: an exponential moving average of each action's batch-mean advantage across updates (the
          // first estimate of an action sets it); actions never taken yet read the mean of this batch
          for (let k = 0; k < A; k++) {
            const c = row.count[k]!
            if (c === 0) continue
            const target = row.grad[k]! / c
            if (row.qSeen[k] === 0) {
              row.q[k] = target
              row.qSeen[k] = 1
            } else row.q[k] = row.q[k]! + (1 - Math.pow(1 - beta, c)) * (target - row.q[k]!)
          }
        }
        for (let k = 0; k < A; k++) {
          const c = row.count[k]!
          const fallback = o.unsampled === "mean" ? mean : 0
          const q = beta > 0 ? (row.qSeen[k] === 1 ? row.q[k]! : fallback) : c > 0 ? row.grad[k]! / c : fallback
          row.avg[k] = row.avg[k]! + w * n * row.probs[k]!
          row.logits[k] = (row.logits[k]! + eta * q + o.magnet * eta * row.logMagnet[k]!) * decay
          row.grad[k] = 0
          row.count[k] = 0
        }
      } else {
        for (let k = 0; k < A; k++) {
          row.avg[k] = row.avg[k]! + w * n * row.probs[k]!
          row.logits[k] = row.logits[k]! + (eta * row.grad[k]!) / n
          row.grad[k] = 0
        }
      }
      row.visits = 0
      softmaxInto(row.logits, row.probs)
    }
  }

  /**
   * Move MMD's magnet to the current policy at every state (`log ρ ← log π`, floored at log 1e-6): the moving-magnet
   * variant of Sokota et al. (arXiv:2206.05825, Sec. 5), whose fixed points are Nash equilibria rather than the
   * α-regularized (quantal response) equilibrium.
   */
  moveMagnet(): void {
    for (const table of this.tables.values()) {
      for (const row of table.values()) for (let k = 0; k < row.probs.length; k++) row.logMagnet[k] = Math.log(Math.max(1e-6, row.probs[k]!))
    }
  }

  /** The probabilities of every row (current, or the normalized average; a never-updated row is uniform). */
  frozen(which: "current" | "average"): FrozenTabular {
    const games = new Map<string, Map<string, Float64Array>>()
    for (const [g, table] of this.tables) {
      const m = new Map<string, Float64Array>()
      for (const [k, row] of table) m.set(k, which === "current" ? Float64Array.from(row.probs) : averageOf(row))
      games.set(g, m)
    }
    return new FrozenTabular(games)
  }

  snapshot(): ActingPolicy {
    return this.frozen("current")
  }
}

const averageOf = (row: Row): Float64Array => {
  let z = 0
  for (let k = 0; k < row.avg.length; k++) z += row.avg[k]!
  const out = new Float64Array(row.avg.length)
  for (let k = 0; k < out.length; k++) out[k] = z > 0 ? row.avg[k]! / z : 1 / out.length
  return out
}

// ---------------------------------------------------------------------------------------------------------------
// The session
// ---------------------------------------------------------------------------------------------------------------

/** What the evaluation hook sees: the evaluated policy (per `evalPolicy`) and the run's counters. */
export interface PolicyView extends ActingPolicy {
  readonly update: number
  readonly globalStep: number
  readonly episodes: number
  readonly wallSeconds: number
  /** Probabilities at a tabular key ({@link infoKey} without the seat: the information-state string) for `seat`. */
  actionProbabilities(game: string, seat: number, infoState: string, legal: ReadonlyArray<number>): Float64Array
}

/** A row per update. */
export interface UpdateRow {
  readonly kind: "update"
  readonly globalStep: number
  readonly wallSeconds: number
  readonly update: number
  readonly episodes: number
  /** Mean entropy (nats) of the rows updated. */
  readonly entropy: number
  /** Mean |advantage| over the batch's steps. */
  readonly meanAbsAdvantage: number
  /** Mean return of seat 0 over the batch. */
  readonly seat0Return: number
  readonly poolSize: number
  readonly learningRate: number
}

/** Callbacks, run synchronously inside the loop. */
export interface Hooks {
  readonly onUpdate?: ((row: UpdateRow) => void) | undefined
  /** Every `evalEvery` updates and at the end: rows to record (e.g. NashConv by the caller's best response). */
  readonly evaluate?: ((view: PolicyView) => ReadonlyArray<Record<string, unknown>>) | undefined
  readonly onEvaluation?: ((row: Record<string, unknown>) => void) | undefined
  /** Every `checkpointEvery` updates, at the end and on interruption. */
  readonly saveCheckpoint?: ((checkpoint: CheckpointJson) => void) | undefined
  /** Stop at the next update boundary. */
  readonly signal?: AbortSignal | undefined
}

interface PoolEntry {
  readonly id: number
  readonly update: number
  readonly policy: ActingPolicy
  games: number
  score: number
}

interface StepRecord {
  readonly handle: unknown
  readonly actionIndex: number
  readonly probability: number
  readonly policy: number
}

/** A self-play run, advanced one update at a time ({@link train} / {@link trainSync} loop over it). */
export class Session {
  readonly options: Options
  readonly policies: ReadonlyArray<SessionPolicy>
  update = 0
  globalStep = 0
  episodes = 0
  wallOffset = 0
  baselines = new Map<string, number>()
  pool: Array<PoolEntry> = []
  nextPoolId = 0
  rng: Rng
  private readonly started = performance.now()
  private readonly buf = new Float64Array(4096)

  constructor(readonly games: ReadonlyArray<Game>, options: Partial<Options>) {
    this.options = validate({ ...defaults, ...options })
    if (games.length === 0) throw bad("games", 0, "need at least one game")
    const np = games[0]!.info.numPlayers
    for (const g of games) {
      if (g.info.numPlayers !== np) throw bad("games", g.info.name, `all games of a batch must have the same number of players (${np})`)
      if (g.info.numDistinctActions > this.buf.length) throw bad("games", g.info.name, "too many distinct actions")
    }
    this.rng = Rng.make(this.options.seed)
    const n = this.options.sharing === "shared" ? 1 : np
    this.policies = Array.from({ length: n }, (_, i) => (this.options.policy === "drrn" ? SelfPlayDrrn.make(this.options.drrn, this.options.seed, i) : new TabularSoftmax()))
  }

  get numPlayers(): number {
    return this.games[0]!.info.numPlayers
  }

  wallSeconds(): number {
    return this.wallOffset + (performance.now() - this.started) / 1000
  }

  policyFor(seat: number): SessionPolicy {
    return this.policies[this.options.sharing === "shared" ? 0 : seat]!
  }

  private samplePool(): PoolEntry {
    if (this.options.opponents === "uniform" || this.pool.length === 1) return this.pool[this.rng.integers(this.pool.length)]!
    const w = this.pool.map((e) => 1 - (e.games > 0 ? e.score / e.games : 0.5) + 0.1)
    const z = w.reduce((a, b) => a + b, 0)
    return this.pool[this.rng.categorical(w.map((x) => x / z))]!
  }

  /** Play one batch and learn from it; returns the update row. */
  step(): UpdateRow {
    const o = this.options
    const np = this.numPlayers
    const groups = new Map<string, Array<Advantages.TrajectoryInput>>()
    const groupSteps = new Map<string, Array<Array<StepRecord>>>()
    let seat0Return = 0
    const perSeat: Array<Array<StepRecord>> = Array.from({ length: np }, () => [])
    for (let e = 0; e < o.episodesPerUpdate; e++) {
      const game = this.games[this.episodes % this.games.length]!
      const name = game.info.name
      let learnerSeat = -1
      let opponent: PoolEntry | undefined
      if (o.opponents !== "latest" && this.pool.length > 0) {
        learnerSeat = this.episodes % np
        opponent = this.samplePool()
      }
      for (const s of perSeat) s.length = 0
      const state = game.newInitialState()
      while (!state.isTerminal()) {
        if (state.isChanceNode()) {
          state.applyAction(sampleChance(state, this.rng))
          continue
        }
        const seat = state.currentPlayer()
        const legal = state.legalActions()
        const learning = opponent === undefined || seat === learnerSeat
        const acting: ActingPolicy = learning ? this.policyFor(seat) : opponent!.policy
        const handle = acting.probabilities({ game, seat, state, legal }, this.buf)
        const k = this.rng.categorical(this.buf.subarray(0, legal.length))
        if (learning) perSeat[seat]!.push({ handle, actionIndex: k, probability: this.buf[k]!, policy: o.sharing === "shared" ? 0 : seat })
        state.applyAction(legal[k]!)
        this.globalStep++
      }
      const returns = state.returns()
      seat0Return += returns[0]!
      if (opponent !== undefined) {
        const r = returns[learnerSeat]!
        opponent.games++
        opponent.score += r > 0 ? 1 : r === 0 ? 0.5 : 0
      }
      let group = groups.get(name)
      let steps = groupSteps.get(name)
      if (group === undefined || steps === undefined) {
        group = []
        steps = []
        groups.set(name, group)
        groupSteps.set(name, steps)
      }
      for (let seat = 0; seat < np; seat++) {
        const s = perSeat[seat]!
        if (s.length === 0) continue
        const rewards = new Float64Array(s.length)
        rewards[s.length - 1] = returns[seat]!
        group.push({ rewards, role: `${name}/${seat}` })
        steps.push([...s])
      }
      this.episodes++
    }
    // advantages, by game group
    const batch = [...groups.values()].filter((g) => g.length > 0)
    const stepLists = [...groupSteps.values()].filter((g) => g.length > 0)
    const advOptions: Advantages.Options = { ...Advantages.defaults, gamma: o.gamma, emaDecay: o.emaDecay, roleBaselines: this.baselines }
    let advantages: Advantages.Result
    if (o.algo === "rae") {
      const r = Advantages.raeWithBaselines(batch, advOptions)
      advantages = r.advantages
      this.baselines = r.baselines
    } else advantages = Advantages.get(o.algo)(batch, advOptions)
    const learn: Array<Array<LearnStep>> = this.policies.map(() => [])
    let absAdv = 0
    let count = 0
    stepLists.forEach((trajs, g) =>
      trajs.forEach((steps, i) => {
        const adv = advantages[g]![i]!
        steps.forEach((s, t) => {
          learn[s.policy]!.push({ handle: s.handle, actionIndex: s.actionIndex, probability: s.probability, advantage: adv[t]! })
          absAdv += Math.abs(adv[t]!)
          count++
        })
      })
    )
    let entropy = 0
    let rows = 0
    this.policies.forEach((p, i) => {
      const steps = learn[i]!
      p.learn(steps, { ...o, averageWeight: o.averaging === "linear" ? this.update + 1 : 1 })
      const seen = new Set<unknown>()
      for (const s of steps) {
        if (seen.has(s.handle)) continue
        seen.add(s.handle)
        const row = s.handle as { readonly probs: Float64Array }
        let h = 0
        for (let k = 0; k < row.probs.length; k++) if (row.probs[k]! > 0) h -= row.probs[k]! * Math.log(row.probs[k]!)
        entropy += h
        rows++
      }
    })
    this.update++
    if (o.magnetEvery > 0 && this.update % o.magnetEvery === 0) for (const p of this.policies) p.moveMagnet()
    if (o.opponents !== "latest" && this.update % o.poolEvery === 0) {
      this.pool.push({ id: this.nextPoolId++, update: this.update, policy: this.merged("current"), games: 0, score: 0 })
      if (this.pool.length > o.poolSize) this.pool.shift()
    }
    return {
      kind: "update",
      globalStep: this.globalStep,
      wallSeconds: this.wallSeconds(),
      update: this.update,
      episodes: this.episodes,
      entropy: rows > 0 ? entropy / rows : 0,
      meanAbsAdvantage: count > 0 ? absAdv / count : 0,
      seat0Return: seat0Return / o.episodesPerUpdate,
      poolSize: this.pool.length,
      learningRate: o.learningRate
    }
  }

  /**
   * One frozen policy over every seat (per-seat tabular policies merged: seat s's rows from policy s; per-seat DRRNs:
   * a {@link SeatPolicies} dispatching by seat).
   */
  merged(which: "current" | "average"): ActingPolicy {
    if (this.policies.length === 1) return this.policies[0]!.frozen(which)
    if (this.options.policy === "drrn") return new SeatPolicies(this.policies.map((p) => p.frozen(which)))
    const games = new Map<string, Map<string, Float64Array>>()
    this.policies.forEach((p, seat) => {
      for (const [g, table] of (p.frozen(which) as FrozenTabular).games) {
        let m = games.get(g)
        if (m === undefined) {
          m = new Map()
          games.set(g, m)
        }
        for (const [k, v] of table) if (k.startsWith(`${seat}|`)) m.set(k, v)
      }
    })
    return new FrozenTabular(games)
  }

  /**
   * The evaluated policy (per `evalPolicy`) with the run's counters. A DRRN's `actionProbabilities` tabulates the
   * network over a game's information states ({@link tabulate}) on the first call for that game.
   */
  policyView(which: "current" | "average" = this.options.evalPolicy): PolicyView {
    const frozen = this.merged(which)
    const tables = frozen instanceof FrozenTabular ? frozen.games : new Map<string, ReadonlyMap<string, Float64Array>>()
    const tableOf = (name: string): ReadonlyMap<string, Float64Array> | undefined => {
      if (frozen instanceof FrozenTabular || tables.has(name)) return tables.get(name)
      const game = this.games.find((g) => g.info.name === name)
      if (game === undefined) return undefined
      const t = tabulate(game, frozen)
      ;(tables as Map<string, ReadonlyMap<string, Float64Array>>).set(name, t)
      return t
    }
    const view: PolicyView = {
      update: this.update,
      globalStep: this.globalStep,
      episodes: this.episodes,
      wallSeconds: this.wallSeconds(),
      probabilities: (d, out) => frozen.probabilities(d, out),
      actionProbabilities: (game, seat, infoState, legal) => {
        const p = tableOf(game)?.get(`${seat}|${infoState}`)
        return p !== undefined && p.length === legal.length ? Float64Array.from(p) : new Float64Array(legal.length).fill(1 / legal.length)
      }
    }
    return view
  }
}

/** Per-seat policies as one acting policy: seat s plays `policies[s]`. */
export class SeatPolicies implements ActingPolicy {
  constructor(readonly policies: ReadonlyArray<ActingPolicy>) {}
  probabilities(d: Decision, out: Float64Array): unknown {
    return this.policies[d.seat]!.probabilities(d, out)
  }
}

/**
 * `policy` queried once at every information state of `game` (a depth-first walk of the whole tree, chance outcomes of
 * probability 0 skipped), keyed by {@link infoKey}: the table a {@link FrozenTabular} (and a solvers `TabularPolicy`)
 * holds, so any acting policy, e.g. a DRRN, can be analysed exactly. For games whose tree has at most `maxNodes` nodes
 * (default 2 000 000); throws `InvalidOptionError` naming the game beyond that.
 */
export const tabulate = (game: Game, policy: ActingPolicy, maxNodes = 2_000_000): Map<string, Float64Array> => {
  const table = new Map<string, Float64Array>()
  const buf = new Float64Array(Math.max(1, game.info.numDistinctActions))
  let nodes = 0
  const walk = (state: State): void => {
    if (++nodes > maxNodes) throw bad("game", game.info.name, `its tree has more than ${maxNodes} nodes: too large to tabulate`)
    if (state.isTerminal()) return
    if (state.isChanceNode()) {
      for (const [a, p] of state.chanceOutcomes()) if (p > 0) walk(state.child(a))
      return
    }
    const seat = state.currentPlayer()
    const legal = state.legalActions()
    const key = infoKey(game, state, seat)
    if (!table.has(key)) {
      policy.probabilities({ game, seat, state, legal }, buf)
      table.set(key, Float64Array.from(buf.subarray(0, legal.length)))
    }
    for (const a of legal) walk(state.child(a))
  }
  walk(game.newInitialState())
  return table
}

// ---------------------------------------------------------------------------------------------------------------
// Checkpoints
// ---------------------------------------------------------------------------------------------------------------

const RowJson = Schema.Struct({
  key: Schema.String,
  actions: Schema.Array(Schema.Number),
  logits: Schema.Array(Schema.Number),
  avg: Schema.Array(Schema.Number),
  q: Schema.Array(Schema.Number),
  qSeen: Schema.Array(Schema.Number),
  logMagnet: Schema.Array(Schema.Number)
})
const TableJson = Schema.Struct({ policy: Schema.Number, game: Schema.String, rows: Schema.Array(RowJson) })
const FrozenJson = Schema.Struct({ game: Schema.String, rows: Schema.Array(Schema.Struct({ key: Schema.String, probs: Schema.Array(Schema.Number) })) })

/** The JSON form of a self-play run (policy, average policy, pool, baselines, generator state, counters). */
export const CheckpointJson = Schema.Struct({
  format: Schema.Literal("autodidact.selfplay-tabular"),
  version: Schema.Literal(1),
  games: Schema.Array(Schema.String),
  options: Schema.Record(Schema.String, Schema.Unknown),
  update: Schema.Number,
  globalStep: Schema.Number,
  episodes: Schema.Number,
  wallSeconds: Schema.Number,
  rng: RngState,
  baselines: Schema.Array(Schema.Struct({ role: Schema.String, value: Schema.Number })),
  tables: Schema.Array(TableJson),
  pool: Schema.Array(
    Schema.Struct({
      id: Schema.Number,
      update: Schema.Number,
      games: Schema.Number,
      score: Schema.Number,
      tables: Schema.Array(FrozenJson),
      /** A DRRN run's entry: the frozen network of each policy (one, or one per seat). */
      drrn: Schema.optional(Schema.Array(SelfPlayDrrn.FrozenJson))
    })
  ),
  nextPoolId: Schema.Number,
  /** A DRRN run's policies (index as in `tables`); absent for a tabular run. */
  drrn: Schema.optional(Schema.Array(Schema.Struct({ policy: Schema.Number, state: SelfPlayDrrn.PolicyJson })))
})
export type CheckpointJson = typeof CheckpointJson.Type

/** The session's full state as JSON ({@link CheckpointJson}). */
export const toCheckpoint = (s: Session): CheckpointJson => ({
  format: "autodidact.selfplay-tabular",
  version: 1,
  games: s.games.map((g) => g.info.name),
  options: { ...s.options },
  update: s.update,
  globalStep: s.globalStep,
  episodes: s.episodes,
  wallSeconds: s.wallSeconds(),
  rng: s.rng.getState(),
  baselines: [...s.baselines].map(([role, value]) => ({ role, value })),
  tables: s.policies.flatMap((p, policy) =>
    !(p instanceof TabularSoftmax) ? [] : [...p.tables].map(([game, table]) => ({
      policy,
      game,
      rows: [...table].map(([key, r]) => ({
        key,
        actions: Array.from(r.actions),
        logits: Array.from(r.logits),
        avg: Array.from(r.avg),
        q: Array.from(r.q),
        qSeen: Array.from(r.qSeen),
        logMagnet: Array.from(r.logMagnet)
      }))
    }))
  ),
  pool: s.pool.map((e) => ({
    id: e.id,
    update: e.update,
    games: e.games,
    score: e.score,
    tables: e.policy instanceof FrozenTabular ? [...e.policy.games].map(([game, m]) => ({ game, rows: [...m].map(([key, p]) => ({ key, probs: Array.from(p) })) })) : [],
    ...(e.policy instanceof FrozenTabular ? {} : { drrn: frozenDrrns(e.policy).map(SelfPlayDrrn.frozenToJson) })
  })),
  nextPoolId: s.nextPoolId,
  ...(s.options.policy === "drrn" ? { drrn: s.policies.map((p, policy) => ({ policy, state: SelfPlayDrrn.toJson(p as SelfPlayDrrn.Policy) })) } : {})
})

const frozenDrrns = (p: ActingPolicy): Array<SelfPlayDrrn.FrozenDrrn> =>
  p instanceof SeatPolicies ? p.policies.flatMap(frozenDrrns) : p instanceof SelfPlayDrrn.FrozenDrrn ? [p] : []

/** Decode a checkpoint's JSON (Schema-checked); fails with `Schema.SchemaError`. */
export const decodeCheckpoint = (json: unknown): Effect.Effect<CheckpointJson, Schema.SchemaError> => Schema.decodeUnknownEffect(CheckpointJson)(json)

/** {@link decodeCheckpoint}, synchronous: throws `Schema.SchemaError`. */
export const decodeCheckpointSync = (json: unknown): CheckpointJson => Schema.decodeUnknownSync(CheckpointJson)(json)

/**
 * A session of `games` restored from `ckpt`, continuing it exactly (options from the checkpoint, overridden by
 * `options`, e.g. a larger `totalSteps`). Throws {@link CheckpointGameMismatchError} when the checkpoint holds
 * other games.
 */
export const fromCheckpoint = (games: ReadonlyArray<Game>, ckpt: CheckpointJson, options: Partial<Options> = {}): Session => {
  const names = games.map((g) => g.info.name)
  if (names.join(",") !== ckpt.games.join(",")) throw new CheckpointGameMismatchError({ expected: names, found: [...ckpt.games] })
  const s = new Session(games, { ...(ckpt.options as Partial<Options>), ...options })
  s.update = ckpt.update
  s.globalStep = ckpt.globalStep
  s.episodes = ckpt.episodes
  s.wallOffset = ckpt.wallSeconds
  s.rng = Rng.fromState(ckpt.rng)
  s.baselines = new Map(ckpt.baselines.map((b) => [b.role, b.value]))
  for (const t of ckpt.tables) {
    const table = new Map<string, Row>()
    for (const r of t.rows) {
      const row = newRow(r.actions)
      row.logits.set(r.logits)
      row.avg.set(r.avg)
      row.q.set(r.q)
      row.qSeen.set(r.qSeen)
      row.logMagnet.set(r.logMagnet)
      softmaxInto(row.logits, row.probs)
      table.set(r.key, row)
    }
    const p = s.policies[t.policy]
    if (p instanceof TabularSoftmax) p.tables.set(t.game, table)
  }
  if (s.options.policy === "drrn") {
    if (ckpt.drrn === undefined || ckpt.drrn.length !== s.policies.length) throw bad("checkpoint", ckpt.drrn?.length ?? 0, `a drrn run needs ${s.policies.length} DRRN policies in its checkpoint`)
    for (const d of ckpt.drrn) SelfPlayDrrn.restore(s.policies[d.policy] as SelfPlayDrrn.Policy, d.state)
  }
  s.pool = ckpt.pool.map((e) => {
    const drrn = e.drrn?.map(SelfPlayDrrn.frozenFromJson)
    return {
      id: e.id,
      update: e.update,
      games: e.games,
      score: e.score,
      policy: drrn !== undefined
        ? drrn.length === 1 ? drrn[0]! : new SeatPolicies(drrn)
        : new FrozenTabular(new Map(e.tables.map((t) => [t.game, new Map(t.rows.map((r) => [r.key, Float64Array.from(r.probs)]))])))
    }
  })
  s.nextPoolId = ckpt.nextPoolId
  return s
}

// ---------------------------------------------------------------------------------------------------------------
// Training faces
// ---------------------------------------------------------------------------------------------------------------

/** What a run returns. */
export interface TrainResult {
  readonly session: Session
  readonly stopReason: "budget" | "aborted"
  readonly evaluations: ReadonlyArray<Record<string, unknown>>
}

type TrainError = InvalidOptionError | Advantages.AdvantageInputError | Advantages.UnknownEstimatorError

const runEval = (s: Session, hooks: Hooks, evaluations: Array<Record<string, unknown>>) => {
  if (hooks.evaluate === undefined) return
  for (const row of hooks.evaluate(s.policyView())) {
    evaluations.push(row)
    hooks.onEvaluation?.(row)
  }
}

/**
 * Train (Effect): updates until `totalSteps` decisions are played or `signal` aborts, yielding between updates (so
 * that an interruption, e.g. Ctrl-C in the CLI, lands between updates; the run's checkpoint is saved first).
 * Pass `resume` to continue a restored session. Fails with `InvalidOptionError`, `AdvantageInputError`,
 * `UnknownEstimatorError`.
 */
export const train = (
  games: ReadonlyArray<Game>,
  options: Partial<Options> = {},
  hooks: Hooks = {},
  resume?: Session
): Effect.Effect<TrainResult, TrainError> =>
  Effect.gen(function* () {
    const s = resume ?? (yield* Effect.try({ try: () => new Session(games, options), catch: (e) => e as TrainError }))
    const evaluations: Array<Record<string, unknown>> = []
    const save = () => hooks.saveCheckpoint?.(toCheckpoint(s))
    let stopReason: TrainResult["stopReason"] = "budget"
    const loop = Effect.gen(function* () {
      while (s.globalStep < s.options.totalSteps) {
        if (hooks.signal?.aborted === true) {
          stopReason = "aborted"
          break
        }
        const row = yield* Effect.try({ try: () => s.step(), catch: (e) => e as TrainError })
        hooks.onUpdate?.(row)
        if (s.options.evalEvery > 0 && s.update % s.options.evalEvery === 0) runEval(s, hooks, evaluations)
        if (s.update % s.options.checkpointEvery === 0) save()
        yield* Effect.yieldNow
      }
    })
    yield* loop.pipe(Effect.onInterrupt(() => Effect.sync(save)))
    if (s.options.evalEvery === 0 || s.update % s.options.evalEvery !== 0) runEval(s, hooks, evaluations)
    save()
    return { session: s, stopReason, evaluations }
  })

/** The plain, synchronous face of {@link train}: throws the same tagged errors. */
export const trainSync = (games: ReadonlyArray<Game>, options: Partial<Options> = {}, hooks: Hooks = {}, resume?: Session): TrainResult =>
  Effect.runSync(train(games, options, hooks, resume))

// ---------------------------------------------------------------------------------------------------------------
// Matches against fixed opponents
// ---------------------------------------------------------------------------------------------------------------

/** A player for {@link playMatch}: the action for `seat` at `state` (a legal one). */
export type Player = (game: Game, state: State, seat: number, rng: Rng) => number

/** A {@link Player} sampling from an {@link ActingPolicy} (or taking its most likely action with `greedy`). */
export const policyPlayer = (policy: ActingPolicy, greedy = false): Player => {
  const buf = new Float64Array(4096)
  return (game, state, seat, rng) => {
    const legal = state.legalActions()
    policy.probabilities({ game, seat, state, legal }, buf)
    if (greedy) {
      let best = 0
      for (let k = 1; k < legal.length; k++) if (buf[k]! > buf[best]! + 1e-12) best = k
      return legal[best]!
    }
    return legal[rng.categorical(buf.subarray(0, legal.length))]!
  }
}

/** The uniform random player. */
export const randomPlayer: Player = (_game, state, _seat, rng) => {
  const legal = state.legalActions()
  return legal[rng.integers(legal.length)]!
}

/** Wins, draws and losses of the learner, with Wilson 95% intervals of each rate and the mean return. */
export interface MatchReport {
  readonly episodes: number
  readonly wins: number
  readonly draws: number
  readonly losses: number
  readonly winRate: number
  readonly drawRate: number
  readonly lossRate: number
  readonly winCi: readonly [number, number]
  readonly drawCi: readonly [number, number]
  readonly lossCi: readonly [number, number]
  readonly meanReturn: number
}

/** A rate's 95% Wilson score interval `[lo, hi]` (core `Statistics.wilsonInterval`). */
const wilson = (successes: number, n: number): readonly [number, number] => {
  const i = Statistics.wilsonInterval(successes, n)
  return [i.low, i.high]
}

/**
 * Play `episodes` games of `learner` against `opponent` (a two-or-more-player game; the learner's seat cycles
 * `k mod numPlayers`, so half the games as first player in a two-player game); chance sampled. A win is a return
 * above 0 (the learner's return in zero-sum games), a draw exactly 0. Moves go through {@link applyMove}: a player
 * returning an illegal action throws `IllegalActionError` naming it.
 */
export const playMatch = (game: Game, learner: Player, opponent: Player, episodes: number, seed: number): MatchReport => {
  if (!Number.isSafeInteger(episodes) || episodes <= 0) throw bad("episodes", episodes, "must be a positive integer")
  const rng = Rng.make(seed)
  const np = game.info.numPlayers
  let wins = 0
  let draws = 0
  let losses = 0
  let total = 0
  for (let e = 0; e < episodes; e++) {
    const seat = e % np
    const state = game.newInitialState()
    while (!state.isTerminal()) {
      if (state.isChanceNode()) {
        state.applyAction(sampleChance(state, rng))
        continue
      }
      const p = state.currentPlayer()
      applyMove(game, state, p, (p === seat ? learner : opponent)(game, state, p, rng))
    }
    const r = state.returns()[seat]!
    total += r
    if (r > 0) wins++
    else if (r === 0) draws++
    else losses++
  }
  return {
    episodes,
    wins,
    draws,
    losses,
    winRate: wins / episodes,
    drawRate: draws / episodes,
    lossRate: losses / episodes,
    winCi: wilson(wins, episodes),
    drawCi: wilson(draws, episodes),
    lossCi: wilson(losses, episodes),
    meanReturn: total / episodes
  }
}

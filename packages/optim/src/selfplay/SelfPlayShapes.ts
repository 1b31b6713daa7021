/**
 * The shapes a self-play policy shares with the trainer ({@link SelfPlay}): the decision it sees, the probabilities it
 * is asked for, the steps and options it learns from, and the batch statistics both policies accumulate
 * ({@link accumulate}). Their own module so that the policies (`SelfPlay`'s tabular
 * softmax, `SelfPlayDrrn`'s text network) and the trainer import one definition; `SelfPlay` re-exports them.
 * @since 0.3.0
 */
import type { Game as GameNs } from "@autodidact/envs"

type Game = GameNs.Game
type State = GameNs.State

/** The update rule of a learning step: magnetic mirror descent (`"mmd"`) or the plain policy gradient (`"pg"`). */
export type UpdateRule = "mmd" | "pg"

/** A decision to take: what a policy sees. */
export interface Decision {
  readonly game: Game
  /** The seat to move (the role). */
  readonly seat: number
  readonly state: State
  /** Legal actions, ascending. */
  readonly legal: ReadonlyArray<number>
}

/** What a policy can be asked in play: probabilities of `decision.legal` (`out[k]` for `legal[k]`, summing to 1). */
export interface ActingPolicy {
  /** Fill `out[0 .. legal.length)`; returns a handle that {@link SelfPlayPolicy.learn} understands. */
  probabilities(decision: Decision, out: Float64Array): unknown
}

/** One learning step: the decision's handle, the action's index in `legal`, its probability then, the advantage. */
export interface LearnStep {
  readonly handle: unknown
  readonly actionIndex: number
  readonly probability: number
  readonly advantage: number
}

/** What {@link SelfPlayPolicy.learn} is told: the update rule, η, α, and the weight of this iterate in the average. */
export interface LearnOptions {
  readonly learningRate: number
  readonly magnet: number
  readonly update: UpdateRule
  /** Weight of the current iterate in the average policy (1: uniform averaging; the update index: linear). */
  readonly averageWeight?: number | undefined
  /** Visits in the batch from which a state takes the full step η (fewer: η · n / fullStepVisits). Default 1. */
  readonly fullStepVisits?: number | undefined
  /** β of the per-action critic (0: the batch's means alone). Default 0. */
  readonly critic?: number | undefined
  /** The q̂ of an action not taken at a state in the batch: 0 (the estimator's baseline, default) or the state's mean. */
  readonly unsampled?: "baseline" | "mean" | undefined
}


/** A state's batch statistics that both self-play policies keep (the tabular row, the DRRN's visited text). */
export interface BatchStats {
  /** Steps of the batch at this state. */
  visits: number
  /** π(·|s) that generated the batch. */
  readonly probs: Float64Array
  /** MMD: summed advantage per action; policy gradient: the summed softmax gradient. */
  readonly grad: Float64Array
  /** Steps per action (MMD). */
  readonly count: Float64Array
}

/**
 * Add a batch's steps to their states' statistics (each step's `handle` is its state's {@link BatchStats}): under
 * `"mmd"` the advantage is summed per action and the action counted; under `"pg"` the softmax policy gradient
 * `A · (1[k = a] − π_k)` is summed. Returns the states visited for the first time in this batch, in order.
 */
export const accumulate = <S extends BatchStats>(steps: ReadonlyArray<LearnStep>, update: UpdateRule): Array<S> => {
  const touched: Array<S> = []
  for (const s of steps) {
    const v = s.handle as S
    if (v.visits === 0) touched.push(v)
    v.visits++
    if (update === "mmd") {
      v.grad[s.actionIndex] = v.grad[s.actionIndex]! + s.advantage
      v.count[s.actionIndex] = v.count[s.actionIndex]! + 1
    } else for (let k = 0; k < v.grad.length; k++) v.grad[k] = v.grad[k]! + s.advantage * ((k === s.actionIndex ? 1 : 0) - v.probs[k]!)
  }
  return touched
}

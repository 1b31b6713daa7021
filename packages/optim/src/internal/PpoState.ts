/**
 * PPO's training state: everything needed to continue a run (what a checkpoint stores) and the fresh state of a new
 * run. The `TrainState` and `initialState` of the public {@link Ppo} namespace (re-exported there); `Checkpoint`
 * imports it from here, so that `Checkpoint` and `Ppo` do not import each other.
 * @internal
 * @since 0.2.0
 */
import { Rng } from "@autodidact/core"
import * as ActorCritic from "../ppo/ActorCritic.js"
import * as Adam from "../Adam.js"
import type { Options } from "./PpoOptions.js"

/** Everything needed to continue a run (what a checkpoint stores). */
export interface TrainState {
  readonly options: Options
  readonly agent: ActorCritic.ActorCritic
  readonly adam: Adam.AdamState
  readonly actionRng: Rng
  readonly shuffleRng: Rng
  /** Completed updates. */
  iteration: number
  /** Environment steps so far (all envs). */
  globalStep: number
  /** Training wall-clock seconds so far (summed over resumed runs). */
  wallSeconds: number
  /** Returns of the most recent finished episodes (at most the `stopWhen` window, default 100). */
  recentReturns: Array<number>
}

/** The initial training state for `options` on an env with these sizes (weights from `Rng.make(seed)`). */
export const initialState = (options: Options, obsDim: number, numActions: number): TrainState => {
  const root = Rng.make(options.seed)
  const [initRng, actionRng, shuffleRng] = root.spawn(3) as [Rng, Rng, Rng]
  const agent = ActorCritic.make({ obsDim, numActions, hidden: options.hidden, rng: initRng, engine: options.engine })
  return {
    options,
    agent,
    adam: Adam.make(agent.params.length, { eps: options.adamEps }),
    actionRng,
    shuffleRng,
    iteration: 0,
    globalStep: 0,
    wallSeconds: 0,
    recentReturns: []
  }
}

/**
 * PPO steps 1 and 2 (CleanRL `ppo.py`): collect `numSteps` steps of `numEnvs` envs with the current policy into a
 * preallocated rollout buffer, reporting finished episodes, then GAE advantages and λ-returns (Schulman et al. 2016,
 * arXiv:1506.02438) through `Gae.computeInto` of `@autodidact/kernels`.
 * @internal
 * @since 0.2.0
 */
import { InvalidOptionError } from "@autodidact/core"
import type { VectorEnv } from "@autodidact/envs"
import { Gae } from "@autodidact/kernels"
import * as ActorCritic from "../ppo/ActorCritic.js"
import type { Hooks } from "./PpoHooks.js"
import type { TrainState } from "./PpoState.js"

/** Arithmetic mean of `xs` (NaN for none). */
export const mean = (xs: ReadonlyArray<number>): number => xs.reduce((a, b) => a + b, 0) / xs.length

/** Rollout storage, `[numSteps, numEnvs]` row-major (CleanRL's `obs`, `actions`, `logprobs`, ...). */
export interface Buffer {
  readonly obs: Float32Array // [T, N, obsDim]
  readonly actions: Int32Array
  readonly logprobs: Float32Array
  readonly rewards: Float32Array
  readonly dones: Float32Array
  readonly values: Float32Array
  readonly truncations: Float32Array
  readonly finalValues: Float32Array
  readonly advantages: Float32Array
  readonly returns: Float32Array
  readonly nextObs: Float32Array // [N, obsDim]
  readonly nextDone: Float32Array // [N]
  readonly nextValue: Float32Array // [N]
  readonly envActions: Int32Array
  readonly episodeReturn: Float64Array
  readonly episodeLength: Int32Array
}

/** A zeroed rollout buffer for `T` steps of `N` envs with `D`-dimensional observations (allocated once per run). */
export const makeBuffer = (T: number, N: number, D: number): Buffer => ({
  obs: new Float32Array(T * N * D),
  actions: new Int32Array(T * N),
  logprobs: new Float32Array(T * N),
  rewards: new Float32Array(T * N),
  dones: new Float32Array(T * N),
  values: new Float32Array(T * N),
  truncations: new Float32Array(T * N),
  finalValues: new Float32Array(T * N),
  advantages: new Float32Array(T * N),
  returns: new Float32Array(T * N),
  nextObs: new Float32Array(N * D),
  nextDone: new Float32Array(N),
  nextValue: new Float32Array(N),
  envActions: new Int32Array(N),
  episodeReturn: new Float64Array(N),
  episodeLength: new Int32Array(N)
})

/** Copy the first `n` numbers of `src` into `dst` (observations into the float32 buffer). */
export const copyObs = (src: ArrayLike<number>, dst: Float32Array, n: number): void => {
  for (let k = 0; k < n; k++) dst[k] = src[k]!
}

/** Episode bookkeeping shared by the rollout and the loop. */
export interface Tracker {
  readonly started: number
  readonly window: number
  episodes: number
  solvedAt: number | undefined
}

// ---------------------------------------------------------------------------------------------------------------
// 1. Rollout: numSteps steps of numEnvs envs with the current policy (CleanRL: `for step in range(0, args.num_steps)`)
// ---------------------------------------------------------------------------------------------------------------

/** Collect one rollout into `buf`; returns false when stopped early (solved or aborted). */
export const rollout = (env: VectorEnv.VectorEnv, s: TrainState, buf: Buffer, wall: () => number, actionStart: number, tr: Tracker, hooks: Hooks): boolean => {
  const { numSteps: T, numEnvs: N } = s.options
  const D = s.agent.obsDim
  const agent = s.agent
  for (let t = 0; t < T; t++) {
    s.globalStep += N
    const row = t * N
    buf.obs.set(buf.nextObs, row * D) // obs[step] = next_obs
    buf.dones.set(buf.nextDone, row) // dones[step] = next_done
    // action, logprob, _, value = agent.get_action_and_value(next_obs)
    ActorCritic.act(agent, buf.nextObs, N, s.actionRng, buf.actions, buf.logprobs, buf.values, row)
    for (let i = 0; i < N; i++) buf.envActions[i] = buf.actions[row + i]! + actionStart
    const out = env.step(buf.envActions)
    copyObs(out.observations as ArrayLike<number>, buf.nextObs, N * D)
    for (let i = 0; i < N; i++) {
      const r = out.rewards[i]!
      buf.rewards[row + i] = r
      const ended = out.terminations[i] === 1 || out.truncations[i] === 1
      buf.nextDone[i] = ended ? 1 : 0
      buf.truncations[row + i] = out.truncations[i] === 1 && out.terminations[i] !== 1 ? 1 : 0
      buf.episodeReturn[i] += r
      buf.episodeLength[i]++
      if (!ended) continue
      if (s.options.bootstrapTruncated && buf.truncations[row + i] === 1) {
        const finalObs = out.infos.finalObservation?.[i] as ArrayLike<number> | undefined
        if (finalObs === undefined) throw new InvalidOptionError({ option: "bootstrapTruncated", value: true, reason: "the vector env gives no infos.finalObservation (use autoresetMode SameStep)" })
        ActorCritic.values(agent, finalObs, 1, buf.finalValues, row + i)
      }
      // RecordEpisodeStatistics: report the finished episode
      const episodeReturn = buf.episodeReturn[i]!
      tr.episodes++
      s.recentReturns.push(episodeReturn)
      if (s.recentReturns.length > tr.window) s.recentReturns.shift()
      hooks.onEpisode?.({
        kind: "episode",
        globalStep: s.globalStep,
        episodeReturn,
        episodeLength: buf.episodeLength[i]!,
        wallSeconds: wall()
      })
      buf.episodeReturn[i] = 0
      buf.episodeLength[i] = 0
      const goal = s.options.stopWhen
      if (goal !== undefined && s.recentReturns.length >= tr.window && mean(s.recentReturns) >= goal.meanReturn) tr.solvedAt = s.globalStep
    }
    if (tr.solvedAt !== undefined || hooks.signal?.aborted === true) return false
  }
  // next_value = agent.get_value(next_obs)
  ActorCritic.values(agent, buf.nextObs, N, buf.nextValue)
  return true
}

// ---------------------------------------------------------------------------------------------------------------
// 2. GAE (Schulman et al. 2016): advantages and λ-returns, bootstrapped from next_value / next_done
// ---------------------------------------------------------------------------------------------------------------

/** GAE advantages and λ-returns of the rollout in `buf` (CleanRL's bootstrap from `next_value`/`next_done`), into `buf.advantages`/`buf.returns`. */
export const advantages = (s: TrainState, buf: Buffer): void =>
  Gae.computeInto(
    {
      numSteps: s.options.numSteps,
      numEnvs: s.options.numEnvs,
      gamma: s.options.gamma,
      lambda: s.options.gaeLambda,
      rewards: buf.rewards,
      values: buf.values,
      dones: buf.dones,
      nextValue: buf.nextValue,
      nextDone: buf.nextDone,
      ...(s.options.bootstrapTruncated ? { truncations: buf.truncations, finalValues: buf.finalValues } : {})
    },
    buf.advantages,
    buf.returns
  )

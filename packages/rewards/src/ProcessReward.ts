/**
 * Process rewards for multi-turn agents: Monte Carlo step targets (AgentPRM), a PRM trained on them, and step-level
 * advantages that combine PRM scores with episode outcomes.
 *
 * **Details**
 * - Targets (AgentPRM, Xi et al. 2025, Sec. 3): for a trajectory sampled from a policy, the target of step t (state
 *   s_t, action a_t) is the success rate of `k` continuations of the same policy from the state after a_t, reached
 *   by replaying the prefix ({@link Search.restore}); a step that completes the task gets 1, a step that ends the
 *   episode unsuccessfully 0. That is a Monte Carlo estimate of Q^π(s_t, a_t) for the 0/1 success reward.
 * - Features ({@link featurize}): hashed unigrams and bigrams of the task, the state text and the action, and
 *   crossed (action word × task word) and (action word × state word) features, in `dim` buckets (feature hashing,
 *   Weinberger et al. 2009), L2-normalized.
 * - The PRM is an MLP trained pointwise with BCE on the soft targets (`ProcessRewardModel.train` in
 *   `@autodidact/rewards/train`), served as a `RewardModel` by `ProcessRewardModel.model` (`scoreSteps` = predicted
 *   success probability of each step).
 * - {@link stepAdvantages}: per step `A_t = outcomeWeight · (R − mean R) / (std R + ε) + processWeight · (Q_t − Q_{t−1})`,
 *   Q_{−1} the group mean of Q_0 — the episode's group-normalized outcome (GRPO) plus the PRM's progress, a
 *   potential-based difference that leaves the optimal policy unchanged (Ng et al. 1999).
 * @see Choudhury, "Process Reward Models for LLM Agents: Practical Framework and Directions" (AgentPRM: Monte Carlo
 *   targets), arXiv:2502.10325
 * @see Xi et al., "AgentPRM: Process Reward Models for LLM Agents via Step-Wise Promise and Progress", arXiv:2511.08325
 * @since 0.1.0
 */
import type { Rng } from "@autodidact/core"
import type { TextEnv as TextEnvModule } from "@autodidact/envs"
import { GroupNorm } from "@autodidact/kernels"
type TextEnv = TextEnvModule.TextEnv
import * as Search from "./Search.js"

const WORD = /[a-z0-9]+/g
const fnv = (s: string): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193)
  return h >>> 0
}
const words = (s: string): Array<string> => s.toLowerCase().match(WORD) ?? []

/**
 * Hashed n-gram features of a step (task, state, action): a float32 vector `[dim]` (default 4096), L2-normalized
 * (all zeros when there are no words). Unigrams and bigrams of the task, the observation, the history (the state
 * text after ` || `, see `Search.stateText`) and the action, plus crossed action×task, action×history and
 * task×history words, each hashed (32-bit FNV-1a) to a bucket with a ±1 sign (feature hashing, Weinberger et al.
 * 2009, arXiv:0902.2206).
 */
export const featurize = (task: string, state: string, action: string, dim = 4096): Float32Array => {
  const x = new Float32Array(dim)
  const add = (key: string) => {
    const h = fnv(key)
    x[h % dim]! += (h & 0x80000000) === 0 ? 1 : -1
  }
  const tw = words(task), aw = words(action)
  const [obs = "", hist = ""] = state.split(" || ")
  const sw = words(obs), hw = words(hist)
  for (const [p, ws] of [["t", tw], ["s", sw], ["h", hw], ["a", aw]] as const) {
    for (let i = 0; i < ws.length; i++) {
      add(`${p}:${ws[i]}`)
      if (i + 1 < ws.length) add(`${p}:${ws[i]}_${ws[i + 1]}`)
    }
  }
  for (const a of aw) {
    for (const t of tw) add(`at:${a}|${t}`)
    for (const h of hw) add(`ah:${a}|${h}`)
  }
  for (const t of tw) for (const h of hw) add(`th:${t}|${h}`)
  let n = 0
  for (let i = 0; i < dim; i++) n += x[i]! * x[i]!
  n = Math.sqrt(n) || 1
  for (let i = 0; i < dim; i++) x[i]! /= n
  return x
}

/** One training example. */
export interface StepTarget {
  readonly task: string
  readonly state: string
  readonly action: string
  /** Monte Carlo success rate of continuations after the action. */
  readonly target: number
}

/** Options of {@link monteCarloTargets}. */
export interface TargetOptions {
  /** Continuations per step (AgentPRM's K). */
  readonly k: number
  readonly maxSteps: number
  readonly rng: Rng
}

/**
 * Sample one trajectory on `task` with `policy` (at most `options.maxSteps` actions) and label each step with its
 * Monte Carlo success rate (AgentPRM, Choudhury 2025, arXiv:2502.10325, §3): the fraction of `options.k`
 * continuations of `policy` from the state after the step that succeed, in `[0, 1]`; the last step of an ended
 * episode gets its own 0/1 success. Costs about `k · L²/2` env steps for an episode of `L` actions (each
 * continuation replays its prefix). Returns the episode and one target per step.
 */
export const monteCarloTargets = (env: TextEnv, task: Search.Task, policy: Search.Policy, options: TargetOptions): { episode: Search.Episode; targets: Array<StepTarget> } => {
  const ep = Search.rollout(env, task, policy, options.rng, options.maxSteps)
  const targets: Array<StepTarget> = []
  for (let t = 0; t < ep.actions.length; t++) {
    const prefix = ep.actions.slice(0, t + 1)
    let q: number
    if (t === ep.actions.length - 1 && ep.done) q = ep.success ? 1 : 0
    else {
      let wins = 0
      for (let j = 0; j < options.k; j++) if (Search.rollout(env, task, policy, options.rng, options.maxSteps, prefix).success) wins++
      q = wins / options.k
    }
    targets.push({ task: ep.task, state: Search.stateText(ep.observations[t]!, ep.actions.slice(0, t)), action: ep.actions[t]!, target: q })
  }
  return { episode: ep, targets }
}

/** Options of {@link stepAdvantages}. */
export interface AdvantageOptions {
  readonly outcomeWeight?: number | undefined
  readonly processWeight?: number | undefined
  readonly epsilon?: number | undefined
}

/**
 * Step-level advantages for a group of `n` episodes of one task: group-normalized outcome plus PRM progress,
 * `A_{i,t} = outcomeWeight · (R_i − mean R) / (std R + ε) + processWeight · (Q_{i,t} − Q_{i,t−1})`, `Q_{i,−1}` the
 * group mean of the first-step scores, weights default 1, ε default 1e-6. The outcome term is the project's one
 * group-relative rule (`@autodidact/kernels` `GroupNorm.normalizeInto`): sample std (n − 1), and a group of one episode
 * has outcome advantage 0.
 *
 * Shapes: `prm[i]` `[L_i]` (PRM score of each step of episode i), `outcomes` `[n]` (returns or 0/1 successes);
 * returns `[n][L_i]` advantages (float64). Sources: GRPO's group normalization (Shao et al. 2024, arXiv:2402.03300)
 * and potential-based progress (Ng et al. 1999; Xi et al. 2025, arXiv:2511.08325).
 */
export const stepAdvantages = (
  prm: ReadonlyArray<ArrayLike<number>>,
  outcomes: ArrayLike<number>,
  options: AdvantageOptions = {}
): Array<Float64Array> => {
  const wo = options.outcomeWeight ?? 1, wp = options.processWeight ?? 1, eps = options.epsilon ?? 1e-6
  const n = outcomes.length
  const outcome = new Float64Array(n)
  GroupNorm.normalizeInto(outcomes, new Int32Array(n), Int32Array.of(n), 1, eps, true, new Float64Array(1), new Float64Array(1), outcome)
  let q0 = 0, m = 0
  for (const row of prm) if (row.length > 0) {
    q0 += row[0]!
    m++
  }
  q0 = m === 0 ? 0 : q0 / m
  return prm.map((row, i) => {
    const a = new Float64Array(row.length)
    const o = wo * outcome[i]!
    for (let t = 0; t < row.length; t++) a[t] = o + wp * (row[t]! - (t === 0 ? q0 : row[t - 1]!))
    return a
  })
}

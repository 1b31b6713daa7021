/**
 * Evaluate a policy: run it for N full episodes on a single environment and report per-episode returns and
 * lengths with their mean and (population) standard deviation.
 *
 * **Details**
 * - `greedy: true` (default) takes the argmax of the logits; `greedy: false` samples from the policy with a
 *   generator seeded by `seed` (reproducible).
 * - Episode k is reset with `seed + k` when `seed` is given (default 0), so two evaluations of the same policy
 *   see the same initial states.
 * - The environment must have a `Box` observation space (flattened to float32) and a `Discrete` action space.
 *
 * @example
 * ```ts
 * const env = Registry.make("CartPole-v1")
 * const report = yield* Evaluate.run(result.agent, env, { episodes: 10 })
 * console.log(report.mean, report.std)
 * ```
 * @since 0.1.0
 */
import { InvalidOptionError, NonFiniteValueError, Rng } from "@autodidact/core"
import type { Env } from "@autodidact/envs"
import { Effect } from "effect"
import * as ActorCritic from "./ppo/ActorCritic.js"

/** Options of {@link run}. */
export interface Options {
  /** Number of episodes, default 10. */
  readonly episodes?: number | undefined
  /** Argmax actions (default true) or sampled ones. */
  readonly greedy?: boolean | undefined
  /** Base seed: episode k resets with `seed + k`; also seeds sampling. Default 0. */
  readonly seed?: number | undefined
  /** Safety cap on steps per episode (default 1e6) for envs without a time limit. */
  readonly maxSteps?: number | undefined
}

/** Per-episode results and summary statistics. */
export interface Report {
  readonly returns: ReadonlyArray<number>
  readonly lengths: ReadonlyArray<number>
  readonly mean: number
  readonly std: number
  readonly meanLength: number
}

/**
 * Run `agent` for `episodes` episodes (default 10) on `env`, greedily by default (argmax of the logits; `greedy:
 * false` samples), resetting episode k with `seed + k` (default seed 0) and cutting episodes at `maxSteps` (default
 * 10^6). Returns the per-episode `returns` and `lengths` and their `mean`, `std` (population) and `meanLength`.
 * Fails with `InvalidOptionError` for a non-positive `episodes` or an env whose spaces are not Box observations and
 * Discrete actions of the agent's sizes, and `NonFiniteValueError` for a NaN/infinite reward.
 */
export const run = (
  agent: ActorCritic.ActorCritic,
  env: Env.AnyEnv,
  options: Options = {}
): Effect.Effect<Report, InvalidOptionError | NonFiniteValueError> =>
  Effect.gen(function* () {
    const episodes = options.episodes ?? 10
    const seed = options.seed ?? 0
    const greedy = options.greedy ?? true
    const maxSteps = options.maxSteps ?? 1_000_000
    if (!Number.isInteger(episodes) || episodes < 1) return yield* new InvalidOptionError({ option: "episodes", value: episodes, reason: "must be a positive integer" })
    const obsSpace = env.observationSpace
    const actSpace = env.actionSpace
    if (obsSpace._tag !== "Box" || actSpace._tag !== "Discrete") {
      return yield* new InvalidOptionError({ option: "env", value: `${obsSpace._tag} → ${actSpace._tag}`, reason: "needs a Box observation space and a Discrete action space" })
    }
    const D = obsSpace.shape.reduce((a, b) => a * b, 1)
    if (D !== agent.obsDim || actSpace.n !== agent.numActions) {
      return yield* new InvalidOptionError({ option: "env", value: `${D} → ${actSpace.n}`, reason: `the policy expects ${agent.obsDim} observation dims and ${agent.numActions} actions` })
    }
    const rng = Rng.make(seed)
    const obs = new Float32Array(D)
    const action = new Int32Array(1)
    const logp = new Float32Array(1)
    const value = new Float32Array(1)
    const returns: Array<number> = []
    const lengths: Array<number> = []
    for (let k = 0; k < episodes; k++) {
      const first = env.reset({ seed: seed + k }).observation as ArrayLike<number>
      for (let i = 0; i < D; i++) obs[i] = first[i]!
      let total = 0
      let length = 0
      let done = false
      while (!done && length < maxSteps) {
        if (greedy) ActorCritic.actGreedy(agent, obs, 1, action)
        else ActorCritic.act(agent, obs, 1, rng, action, logp, value)
        const out = env.step(action[0]! + actSpace.start)
        if (!Number.isFinite(out.reward)) return yield* new NonFiniteValueError({ where: "Evaluate.reward", value: out.reward, index: length })
        total += out.reward
        length++
        done = out.terminated || out.truncated
        const next = out.observation as ArrayLike<number>
        for (let i = 0; i < D; i++) obs[i] = next[i]!
      }
      returns.push(total)
      lengths.push(length)
      yield* Effect.yieldNow
    }
    const mean = returns.reduce((a, b) => a + b, 0) / episodes
    const std = Math.sqrt(returns.reduce((a, b) => a + (b - mean) ** 2, 0) / episodes)
    return { returns, lengths, mean, std, meanLength: lengths.reduce((a, b) => a + b, 0) / episodes }
  })

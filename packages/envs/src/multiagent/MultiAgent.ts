/**
 * Multi-agent environments with PettingZoo's semantics: the AEC (agent-environment cycle) API, the Parallel API,
 * the converters between them, an adapter from any extensive-form `Game`, and the conformance check `checkAecEnv`.
 * One namespace over the modules that hold each concept: `AecEnv`, `ParallelEnv`, `Conversions`, `GameEnv` (in
 * `src/multiagent/`) and `CheckAecEnv` (in `src/checks/`).
 *
 * **Details**
 * - `AecEnv`: one agent acts at a time (`agentSelection`). `last()` gives that agent's observation, its
 *   reward accumulated since it last acted (PettingZoo's `_cumulative_rewards`), termination, truncation and info.
 *   `step(action)` acts for it; an agent that is terminated or truncated must be stepped with `null` (a "dead
 *   step"), which removes it from `agents`. `rewards`, `terminations`, `truncations`, `infos` are keyed by the
 *   live agents.
 * - `ParallelEnv`: all live agents act at once; `reset` returns `{ observations, infos }`, `step(actions)`
 *   returns `{ observations, rewards, terminations, truncations, infos }` keyed by the agents live before the step;
 *   agents that terminated or were truncated leave `agents`.
 * - `aecToParallel` / `parallelToAec` follow PettingZoo's `aec_to_parallel_wrapper` /
 *   `parallel_to_aec_wrapper`: the former needs the AEC agents to act in cycles (every live agent once per parallel
 *   step, deaths only at the end of a cycle); the latter buffers actions and steps the parallel env when the last
 *   agent of the cycle acts.
 * - `gameToAec`: agents `player_0..player_{N-1}`; chance nodes are sampled with the env's `Rng`;
 *   observations are `{ observation, action_mask }` as in PettingZoo's classic envs, `observation` being the
 *   information-state string (or a tensor from `encode`), `action_mask` a `Uint8Array(numDistinctActions)` with the
 *   legal actions of the agent to act (all zeros for the others). Rewards are changes of `returns()` (the final
 *   utilities for terminal-reward games). `gameToParallel` plays one move per step (only the acting agent's
 *   action is read), except for normal-form games, where all players move in one step.
 * - {@link checkAecEnv} (formerly `apiTest`): PettingZoo's `api_test` — agent iteration, observations in their spaces, action masks, dict
 *   keys, dead-step rules, reward accumulation, seeding determinism — failing with `ApiTestError` listing the
 *   findings.
 *
 * **Gotchas**
 * - Stepping a live agent with an illegal action throws the game's `IllegalActionError`; stepping it with `null`
 *   throws `InvalidActionError`; stepping a dead agent with a non-null action throws `InvalidActionError`.
 *
 * @example
 * ```ts
 * import { GameRegistry, MultiAgent } from "@autodidact/envs"
 * const env = MultiAgent.gameToAec(GameRegistry.loadGame("tic_tac_toe"))
 * env.reset({ seed: 0 })
 * while (env.agents.length > 0) {
 *   const { observation, termination, truncation } = env.last()
 *   env.step(termination || truncation ? null : observation.action_mask.indexOf(1))
 * }
 * ```
 * @see https://pettingzoo.farama.org/api/aec/ and https://pettingzoo.farama.org/api/parallel/
 * @see https://github.com/Farama-Foundation/PettingZoo/blob/master/pettingzoo/utils/conversions.py
 * @see https://github.com/Farama-Foundation/PettingZoo/blob/master/pettingzoo/test/api_test.py
 * @since 0.1.0
 */
export {
  apiTest,
  type AecCheckReport,
  type ApiTestOptions,
  type ApiTestReport,
  checkAecEnv,
  type CheckAecEnvOptions
} from "../checks/CheckAecEnv.js"
export { type AecEnv, ApiTestError, type LastResult, type ResetOptions } from "./AecEnv.js"
export { aecToParallel, parallelToAec } from "./Conversions.js"
export {
  GameAecEnv,
  type GameEnvOptions,
  GameParallelEnv,
  gameToAec,
  gameToParallel,
  type MaskedObservation,
  OBSERVATION_CHARSET
} from "./GameEnv.js"
export type { ParallelEnv, ParallelStepResult } from "./ParallelEnv.js"

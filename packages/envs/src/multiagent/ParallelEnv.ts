/**
 * PettingZoo's Parallel API: all live agents act at once (Terry et al. 2021, arXiv:2009.14471).
 *
 * **Details**
 * - `reset` returns `{ observations, infos }` keyed by the live agents; `step(actions)` takes one action per live
 *   agent and returns `{ observations, rewards, terminations, truncations, infos }` keyed by the agents live before
 *   the step; agents that terminated or were truncated leave `agents`.
 *
 * @see https://pettingzoo.farama.org/api/parallel/
 * @since 0.2.0
 */
import type { Space } from "@autodidact/core"
import type { Info } from "../Env.js"
import type { ResetOptions } from "./AecEnv.js"

/** What `ParallelEnv.step` returns. */
export interface ParallelStepResult<Obs> {
  /** Observation of each agent live before the step. */
  readonly observations: { readonly [agent: string]: Obs }
  /** Reward of each agent live before the step. */
  readonly rewards: { readonly [agent: string]: number }
  /** Termination flag of each agent live before the step. */
  readonly terminations: { readonly [agent: string]: boolean }
  /** Truncation flag of each agent live before the step. */
  readonly truncations: { readonly [agent: string]: boolean }
  /** Info of each agent live before the step. */
  readonly infos: { readonly [agent: string]: Info }
}

/** PettingZoo's `ParallelEnv`. */
export interface ParallelEnv<Obs = unknown, Act = unknown> {
  /** `name` and env-specific facts. */
  readonly metadata: { readonly name: string; readonly [key: string]: unknown }
  /** Every agent that may ever act, in a fixed order. */
  readonly possibleAgents: ReadonlyArray<string>
  /** Live agents. */
  readonly agents: ReadonlyArray<string>
  /** The observation space of `agent`. */
  observationSpace(agent: string): Space.Space
  /** The action space of `agent`. */
  actionSpace(agent: string): Space.Space
  /** Start an episode; observations and infos of every live agent. */
  reset(options?: ResetOptions): { readonly observations: { readonly [agent: string]: Obs }; readonly infos: { readonly [agent: string]: Info } }
  /**
   * One action per live agent (`null` for none); agents that end leave `agents`.
   * @throws InvalidActionError (or the game's IllegalActionError) for a missing or illegal action.
   */
  step(actions: { readonly [agent: string]: Act | null }): ParallelStepResult<Obs>
  /** Release resources. */
  close(): void
}

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
  readonly observations: { readonly [agent: string]: Obs }
  readonly rewards: { readonly [agent: string]: number }
  readonly terminations: { readonly [agent: string]: boolean }
  readonly truncations: { readonly [agent: string]: boolean }
  readonly infos: { readonly [agent: string]: Info }
}

/** PettingZoo's `ParallelEnv`. */
export interface ParallelEnv<Obs = unknown, Act = unknown> {
  readonly metadata: { readonly name: string; readonly [key: string]: unknown }
  readonly possibleAgents: ReadonlyArray<string>
  readonly agents: ReadonlyArray<string>
  observationSpace(agent: string): Space.Space
  actionSpace(agent: string): Space.Space
  reset(options?: ResetOptions): { readonly observations: { readonly [agent: string]: Obs }; readonly infos: { readonly [agent: string]: Info } }
  step(actions: { readonly [agent: string]: Act | null }): ParallelStepResult<Obs>
  close(): void
}

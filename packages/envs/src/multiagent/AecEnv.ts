/**
 * PettingZoo's AEC (agent-environment cycle) API: one agent acts at a time (Terry et al. 2021, "PettingZoo: Gym for
 * Multi-Agent Reinforcement Learning", arXiv:2009.14471).
 *
 * **Details**
 * - `agentSelection` is the agent to act. `last()` gives its observation, its reward accumulated since it last acted
 *   (PettingZoo's `_cumulative_rewards`), termination, truncation and info.
 * - `step(action)` acts for it; an agent that is terminated or truncated must be stepped with `null` (a "dead
 *   step"), which removes it from `agents`.
 * - `rewards`, `terminations`, `truncations`, `infos` are keyed by the live agents; `rewards` holds the rewards of the
 *   last step only.
 *
 * **Gotchas**
 * - Implementations throw `InvalidActionError` for a `null` action of a live agent and for a non-null action of a
 *   dead one, as PettingZoo's `_was_dead_step` rule; {@link ApiTestError} reports broken API rules.
 * - Check a new implementation with `CheckAecEnv.checkAecEnv` (PettingZoo's `api_test`).
 *
 * @see https://pettingzoo.farama.org/api/aec/
 * @since 0.2.0
 */
import { Schema } from "effect"
import type { Space } from "@autodidact/core"
import type { Info } from "../Env.js"

/** Options of `reset`. */
export interface ResetOptions {
  /** Re-seed the env's generator (chance nodes, sampling): a non-negative safe integer. */
  readonly seed?: number | undefined
  /** Env-specific options. */
  readonly options?: { readonly [key: string]: unknown } | undefined
}

/** What `last()` returns. */
export interface LastResult<Obs> {
  /** `observe(agentSelection)`. */
  readonly observation: Obs
  /** Reward accumulated since this agent last acted. */
  readonly reward: number
  /** Whether the selected agent terminated (it must be stepped with `null`). */
  readonly termination: boolean
  /** Whether the selected agent was truncated (it must be stepped with `null`). */
  readonly truncation: boolean
  /** The selected agent's info. */
  readonly info: Info
}

/** PettingZoo's `AECEnv`. */
export interface AecEnv<Obs = unknown, Act = unknown> {
  /** `name` and env-specific facts (e.g. `is_parallelizable`). */
  readonly metadata: { readonly name: string; readonly [key: string]: unknown }
  /** Every agent that may ever act, in a fixed order. */
  readonly possibleAgents: ReadonlyArray<string>
  /** Live agents. */
  readonly agents: ReadonlyArray<string>
  /** The agent to act. */
  readonly agentSelection: string
  /** Rewards of the last step, per live agent. */
  readonly rewards: { readonly [agent: string]: number }
  /** Termination flags, per live agent. */
  readonly terminations: { readonly [agent: string]: boolean }
  /** Truncation flags, per live agent. */
  readonly truncations: { readonly [agent: string]: boolean }
  /** Infos, per live agent. */
  readonly infos: { readonly [agent: string]: Info }
  /** The observation space of `agent`. */
  observationSpace(agent: string): Space.Space
  /** The action space of `agent`. */
  actionSpace(agent: string): Space.Space
  /** Start an episode: every possible agent is live, rewards 0, `agentSelection` the first to act. */
  reset(options?: ResetOptions): void
  /** What `agent` observes now (a member of its observation space). */
  observe(agent: string): Obs
  /** The selected agent's observation, accumulated reward, flags and info. */
  last(): LastResult<Obs>
  /** Act for `agentSelection`; `null` for a terminated or truncated agent. */
  step(action: Act | null): void
  /** Release resources. */
  close(): void
}

/** An env broke an API rule (thrown by the converters and by `checkAecEnv`, listing each broken rule). */
export class ApiTestError extends Schema.TaggedError<ApiTestError>()("ApiTestError", {
  env: Schema.String,
  findings: Schema.Array(Schema.String)
}) {
  override get message() {
    return `${this.env} fails the multi-agent API test:\n- ${this.findings.join("\n- ")}`
  }
}

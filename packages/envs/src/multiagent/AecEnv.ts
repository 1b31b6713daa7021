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
  readonly seed?: number | undefined
  readonly options?: { readonly [key: string]: unknown } | undefined
}

/** What `last()` returns. */
export interface LastResult<Obs> {
  readonly observation: Obs
  /** Reward accumulated since this agent last acted. */
  readonly reward: number
  readonly termination: boolean
  readonly truncation: boolean
  readonly info: Info
}

/** PettingZoo's `AECEnv`. */
export interface AecEnv<Obs = unknown, Act = unknown> {
  readonly metadata: { readonly name: string; readonly [key: string]: unknown }
  readonly possibleAgents: ReadonlyArray<string>
  /** Live agents. */
  readonly agents: ReadonlyArray<string>
  /** The agent to act. */
  readonly agentSelection: string
  /** Rewards of the last step, per live agent. */
  readonly rewards: { readonly [agent: string]: number }
  readonly terminations: { readonly [agent: string]: boolean }
  readonly truncations: { readonly [agent: string]: boolean }
  readonly infos: { readonly [agent: string]: Info }
  observationSpace(agent: string): Space.Space
  actionSpace(agent: string): Space.Space
  reset(options?: ResetOptions): void
  observe(agent: string): Obs
  last(): LastResult<Obs>
  /** Act for `agentSelection`; `null` for a terminated or truncated agent. */
  step(action: Act | null): void
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

/**
 * The text-agent environment contract shared by every text environment (TextHousehold, text Sokoban, text
 * FrozenLake, ...): an `Env<string, string>` whose observations and actions are text, plus what multi-turn agent RL
 * needs on top of Gymnasium's API.
 *
 * **Details**
 * - `task` is the goal of the current episode in words ("put a clean mug in the coffeemachine").
 * - `admissibleActions()` lists the commands that are valid now (ALFWorld's `admissible_commands`); `step(action)`
 *   with a command outside the list is an invalid action (see {@link InvalidActionPolicy}).
 * - Group rollouts: `reset({ seed, options })` with the same seed and options yields an identical initial state every
 *   time, so N rollouts of one task start from the same place (GRPO/GiGPO groups).
 * - `stateKey()` is a hashable string naming the full environment state (not just the observation), so that steps of
 *   different trajectories in the same state can be grouped as anchor states (GiGPO, arXiv:2505.10978, Sec. 3.2).
 * - `toMessages(trajectory)` renders an episode as chat turns (system: the rules and the task; user: each
 *   observation with its admissible actions; assistant: each chosen action), the one view an LLM policy and the
 *   trajectory exporters share.
 *
 * @see Shridhar et al., "ALFWorld: Aligning Text and Embodied Environments for Interactive Learning", arXiv:2010.03768
 * @see Feng et al., "Group-in-Group Policy Optimization for LLM Agent Training", arXiv:2505.10978
 * @since 0.1.0
 */
import { InvalidActionError, type Trajectory } from "@autodidact/core"
import type { Env } from "../Env.js"
import type { EnvSnapshot, Restorable } from "../Snapshot.js"

/** One chat turn (OpenAI-style roles). */
export interface ChatMessage {
  /** Who speaks: the rules (`system`), the environment (`user`) or the agent (`assistant`). */
  readonly role: "system" | "user" | "assistant"
  /** The text of the turn. */
  readonly content: string
}

/**
 * What a text environment does with an action that is not admissible:
 * - `"penalize"` (default, as verl-agent): the state does not change, the step counts toward the step limit, the reward
 *   is `invalidActionPenalty` (e.g. -0.1) and `info.invalidAction` is true;
 * - `"error"`: throw `InvalidActionError` naming the action and the admissible list.
 */
export type InvalidActionPolicy = "penalize" | "error"

/** A text environment. */
export interface TextEnv extends Env<string, string> {
  /** The goal of the current episode, in words. */
  readonly task: string
  /** Commands that are valid in the current state (a fresh or cached array; do not mutate). */
  admissibleActions(): ReadonlyArray<string>
  /** A hashable key of the full current state, for anchor-state grouping. */
  stateKey(): string
  /** The episode as chat turns: system (rules + task), then user (observation + admissible actions) / assistant (action). */
  toMessages(trajectory: Trajectory.Trajectory): Array<ChatMessage>
  /** Optional ({@link isRestorableTextEnv}): the full state as an immutable value (see `Snapshot`). @since 0.2.0 */
  snapshot?(): EnvSnapshot
  /** Optional ({@link isRestorableTextEnv}): return to a state saved by `snapshot()`. @since 0.2.0 */
  restore?(snapshot: EnvSnapshot): void
}

/** A text environment with `snapshot()`/`restore()` (TextHousehold, TextSokoban, TextFrozenLake). @since 0.2.0 */
export type RestorableTextEnv = TextEnv & Restorable

/** Whether an environment implements the text contract with `snapshot()`/`restore()`. @since 0.2.0 */
export const isRestorableTextEnv = (env: unknown): env is RestorableTextEnv =>
  isTextEnv(env) && typeof env.snapshot === "function" && typeof env.restore === "function"

/** Whether an environment implements the text contract. */
export const isTextEnv = (env: unknown): env is TextEnv =>
  typeof env === "object" && env !== null && "admissibleActions" in env && "stateKey" in env && "toMessages" in env

/**
 * Index of a named command in `names` (matched ignoring case and surrounding white space), or -1 when it is not one
 * of them and `policy` is `"penalize"`; for the grid text environments whose admissible actions are a fixed list of
 * names (`"Up"`, `"Down"`, ...).
 * @throws InvalidActionError when `action` is not a string, or is not one of `names` under `policy: "error"`.
 */
export const namedActionIndex = (
  envId: string,
  action: unknown,
  names: ReadonlyArray<string>,
  policy: InvalidActionPolicy
): number => {
  if (typeof action !== "string") throw new InvalidActionError({ envId, action, space: `one of ${names.join(", ")}` })
  const a = action.trim().toLowerCase()
  const index = names.findIndex((name) => name.toLowerCase() === a)
  if (index < 0 && policy === "error") throw new InvalidActionError({ envId, action, space: `one of ${names.join(", ")}` })
  return index
}

/** Printable ASCII plus newline: the charset of the observation and action spaces. */
export const TEXT_CHARSET = "\n" + Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join("")

/**
 * Chat turns of a text-env trajectory (shared by the text environments): system = `system` + "Your task is to: "
 * + `task`; per step a user turn with the observation and, when `step.info.offeredActions` is a string array, the
 * admissible list; an assistant turn with the action.
 */
export const textMessages = (system: string, task: string, trajectory: Trajectory.Trajectory): Array<ChatMessage> => {
  const out: Array<ChatMessage> = [{ role: "system", content: `${system}\nYour task is to: ${task}` }]
  for (const step of trajectory.steps) {
    const offered = step.info?.["offeredActions"]
    const list = Array.isArray(offered)
      ? `\nYour admissible actions of the current situation are: [${offered.map((a) => `'${String(a)}'`).join(", ")}].`
      : ""
    out.push({ role: "user", content: `${String(step.observation)}${list}` })
    out.push({ role: "assistant", content: String(step.action) })
  }
  return out
}

/**
 * What the grid text environments (`TextSokoban`, `TextFrozenLake`) share: a Gymnasium grid env inside, its grid
 * rendered as text in RAGEN's symbols, and a fixed list of named actions (Wang et al. 2025, "RAGEN: Understanding
 * Self-Evolution in LLM Agents via Multi-Turn Reinforcement Learning", arXiv:2504.20073).
 *
 * **Details**
 * - Spaces: observations are `Text(1..4096)` over printable ASCII, newline and `√`; actions `Text(0..256)`.
 * - `step(name)`: the name is matched ignoring case and surrounding white space ({@link namedActionIndex}); a valid
 *   one is applied by the subclass's `move`, an invalid one (under `"penalize"`) leaves the state as it is and
 *   earns `invalidActionPenalty`. Both count as a step; `truncated` after `maxSteps` steps ({@link TextEpisode}).
 *   The step info always carries `offeredActions` and `admissibleActions` (the action names).
 * - `toMessages` renders an episode with {@link textMessages} and the subclass's system prompt.
 *
 * Internal (not exported from the package): the public classes are `TextSokoban.TextSokoban` and
 * `TextFrozenLake.TextFrozenLake`.
 * @internal
 * @since 0.2.0
 */
import type { Rng, Trajectory } from "@autodidact/core"
import { ResetNeededError, Space } from "@autodidact/core"
import type { EnvSpec, Info, Metadata, ResetOptions, ResetResult, StepResult } from "../Env.js"
import { type EnvSnapshot, OwnedSnapshot, ownPayload, type Restorable } from "../Snapshot.js"
import {
  type ChatMessage,
  type InvalidActionPolicy,
  namedActionIndex,
  TEXT_CHARSET,
  type TextEnv,
  textMessages
} from "./TextEnv.js"
import { TextEpisode, type TextEpisodeOptions, textEpisodeSettings } from "./TextEpisode.js"

/** What a valid move did (reward and termination of the inner env, and the step's info). */
export interface GridMove {
  readonly reward: number
  readonly terminated: boolean
  readonly info: Info
}

/** A text environment over a grid env with a fixed list of named actions. */
export abstract class GridTextEnv implements TextEnv, Restorable {
  readonly observationSpace: Space.Text = Space.text(4096, { minLength: 1, charset: TEXT_CHARSET + "√" })
  readonly actionSpace: Space.Text = Space.text(256, { minLength: 0, charset: TEXT_CHARSET })
  readonly metadata: Metadata = { renderModes: ["ansi"] }
  spec: EnvSpec | undefined = undefined
  abstract readonly task: string
  readonly maxSteps: number
  readonly invalidActionPolicy: InvalidActionPolicy
  readonly invalidActionPenalty: number
  protected readonly episode: TextEpisode

  /** @throws InvalidOptionError for a bad `maxSteps`, policy or penalty (see {@link textEpisodeSettings}). */
  constructor(
    private readonly envId: string,
    private readonly actionNames: ReadonlyArray<string>,
    private readonly systemPrompt: string,
    options: TextEpisodeOptions,
    defaults: { readonly maxSteps: number; readonly invalidActionPenalty: number }
  ) {
    const settings = textEpisodeSettings(options, defaults)
    this.maxSteps = settings.maxSteps
    this.invalidActionPolicy = settings.invalidActionPolicy
    this.invalidActionPenalty = settings.invalidActionPenalty
    this.episode = new TextEpisode(envId, settings.maxSteps)
  }

  abstract get npRandom(): Rng
  abstract reset(options?: ResetOptions): ResetResult<string>
  abstract stateKey(): string
  /** The grid in RAGEN's symbols, one row per line. */
  protected abstract text(): string
  /** Apply action `index` (into the action names) to the inner env. */
  protected abstract move(index: number): GridMove
  /** The info of an invalid action (the state does not change). */
  protected abstract invalidInfo(): Info
  /** The subclass's state (inner env snapshot, cached grid) for {@link snapshot}: a value nothing mutates later. */
  protected abstract saveInner(): unknown
  /** Put back what {@link saveInner} returned. */
  protected abstract restoreInner(saved: unknown): void

  get unwrapped(): this {
    return this
  }

  /** The action names; every one is always admissible. */
  admissibleActions(): ReadonlyArray<string> {
    return this.actionNames
  }

  /**
   * Apply a named action.
   * @throws ResetNeededError before `reset` or after the end; InvalidActionError for a non-string, or a string that
   *   names no action under `invalidActionPolicy: "error"`.
   */
  step(action: string): StepResult<string> {
    this.episode.assertRunning()
    const names = this.actionNames
    const d = namedActionIndex(this.envId, action, names, this.invalidActionPolicy)
    let reward = this.invalidActionPenalty
    let terminated = false
    let info: Info
    if (d >= 0) {
      const m = this.move(d)
      reward = m.reward
      terminated = m.terminated
      info = m.info
    } else info = this.invalidInfo()
    const truncated = this.episode.advance(terminated)
    return {
      observation: this.text(),
      reward,
      terminated,
      truncated,
      info: { ...info, offeredActions: names, admissibleActions: names }
    }
  }

  /** The grid in RAGEN's symbols; undefined before the first reset. */
  render(): string | undefined {
    return this.episode.started ? this.text() : undefined
  }

  /** Chat turns: system (rules, legend, task), then observation (+ actions) / action per step. */
  toMessages(trajectory: Trajectory.Trajectory): Array<ChatMessage> {
    return textMessages(this.systemPrompt, trajectory.task ?? this.task, trajectory)
  }

  close(): void {
    this.episode.end()
  }

  /**
   * The full state (inner env with its generator, step count, running flag) as an immutable value; see `Snapshot`.
   * @throws ResetNeededError before the first reset.
   * @since 0.2.0
   */
  snapshot(): EnvSnapshot {
    if (!this.episode.started) throw new ResetNeededError({ envId: this.envId, reason: "snapshot before reset" })
    const payload: GridTextState = { steps: this.episode.steps, running: this.episode.running, inner: this.saveInner() }
    return new OwnedSnapshot(this.envId, this, payload)
  }

  /**
   * Return to a state saved by {@link snapshot}.
   * @throws SnapshotMismatchError for a snapshot this instance did not take.
   * @since 0.2.0
   */
  restore(snapshot: EnvSnapshot): void {
    const p = ownPayload<GridTextState>(this, this.envId, snapshot)
    this.restoreInner(p.inner)
    this.episode.steps = p.steps
    this.episode.running = p.running
  }
}

/** What a grid text env snapshot holds. */
interface GridTextState {
  readonly steps: number
  readonly running: boolean
  readonly inner: unknown
}

/**
 * `Sokoban-6x6-1box-v0`: Sokoban as a text game in RAGEN's configuration: generated 6 × 6 rooms with one box,
 * the grid as text, and four named actions.
 *
 * **When to use**
 * - Multi-turn LLM-agent RL on the RAGEN Sokoban benchmark (Wang et al. 2025), or a grid/one-hot policy on the same
 *   levels through {@link TextSokoban.gridObservation} / `info.grid`.
 *
 * **Details**
 * - Levels: {@link Sokoban.Sokoban} with `generate: { width: 6, height: 6, numBoxes: 1 }` (reverse-play generator,
 *   RAGEN's `dim_room = (6, 6)`, `num_boxes = 1`), drawn from `npRandom`, so `reset({ seed })` is reproducible.
 * - Observation: the grid, one row per line, in RAGEN's symbols (`SokobanEnvConfig.grid_lookup`): `#` wall, `_`
 *   floor, `O` target, `X` box, `√` box on target, `P` player, `S` player on target. The reset observation is
 *   preceded by a one-line legend ({@link LEGEND}); step observations are the grid alone (the legend is also in
 *   the system turn of {@link TextSokoban.toMessages}).
 * - Actions: `"Up"`, `"Down"`, `"Left"`, `"Right"` (RAGEN's `action_lookup` 1-4, gym-sokoban push actions 1-4: move,
 *   pushing a box when one is in the way), matched ignoring case and surrounding whitespace. `admissibleActions()`
 *   is always all four.
 * - Reward: gym-sokoban's, which RAGEN inherits: −0.1 per step, +1 when a box reaches a target, −1 when one leaves,
 *   +10 when all boxes are on targets (`terminated`). `truncated` after `maxSteps` (default 100, RAGEN's
 *   `max_steps`).
 * - Invalid action (not one of the four): `"penalize"` (default): no move, reward `invalidActionPenalty` (default
 *   −0.1, RAGEN's `invalid_act_score`), the step counts, `info.invalidAction = true`; `"error"`: `InvalidActionError`.
 * - `info`: `grid` (`Uint8Array(36)`, gym-sokoban cell codes 0 wall, 1 floor, 2 target, 3 box on target, 4 box,
 *   5 player, 6 player on target, row-major), `boxesOnTarget`, `won`, `invalidAction`, `admissibleActions`,
 *   `offeredActions`.
 * - `stateKey()`: `player|box cells` (walls and targets are fixed per level).
 *
 * **Gotchas**
 * - The levels come from this package's generator, not RAGEN's `generate_room` stream: same distribution family,
 *   different levels for the same seed.
 * - RAGEN's text render separates nothing between cells; some RAGEN versions put spaces/tabs around each symbol.
 *
 * @see Wang et al., "RAGEN: Understanding Self-Evolution in LLM Agents via Multi-Turn Reinforcement Learning",
 *   arXiv:2504.20073 (https://github.com/RAGEN-AI/RAGEN, `ragen/env/sokoban/config.py`)
 * @see https://github.com/mpSchrader/gym-sokoban (rewards)
 * @category environments
 * @since 0.1.0
 */
import { InvalidOptionError, ResetNeededError, Space } from "@autodidact/core"
import type { Rng, Trajectory } from "@autodidact/core"
import type { EnvSpec, Info, Metadata, ResetOptions, ResetResult, StepResult } from "../Env.js"
import { Sokoban } from "../sokoban/Sokoban.js"
import { type ChatMessage, type InvalidActionPolicy, namedActionIndex, type TextEnv } from "./TextEnv.js"
import { TEXT_CHARSET, textMessages } from "./TextHousehold.js"

/** RAGEN's symbols by gym-sokoban cell code (0 wall ... 6 player on target). */
export const SYMBOLS = ["#", "_", "O", "√", "X", "P", "S"] as const
/** Action names (push up/down/left/right). */
export const ACTION_NAMES = ["Up", "Down", "Left", "Right"] as const
/** The legend that precedes the first observation. */
export const LEGEND = "Symbols: # wall, _ floor, O target, X box, √ box on target, P player, S player on target."

/** Rules that open every conversation of {@link TextSokoban.toMessages}. */
export const SYSTEM_PROMPT =
  "You are solving the Sokoban puzzle. You are the player P and need to push the box X onto the target O; " +
  "you can push a box but not pull it, and walls # block you. " +
  `${LEGEND} Reply with one action: Up, Down, Left or Right.`

/** Options (also the registry kwargs). */
export interface TextSokobanOptions {
  /** Room width and height including walls (default 6). */
  readonly size?: number | undefined
  /** Boxes (default 1). */
  readonly numBoxes?: number | undefined
  /** Steps after which `truncated` is set (default 100); `Infinity` disables. */
  readonly maxSteps?: number | undefined
  /** Default `"penalize"`. */
  readonly invalidActionPolicy?: InvalidActionPolicy | undefined
  /** Reward of an invalid action (default −0.1). */
  readonly invalidActionPenalty?: number | undefined
}

const ENV_ID = "Sokoban-6x6-1box-v0"

/**
 * Text Sokoban (`Sokoban-6x6-1box-v0`).
 * @throws InvalidOptionError from the constructor for a bad size, box count, maxSteps, policy or penalty.
 * @category environments
 */
export class TextSokoban implements TextEnv {
  readonly observationSpace: Space.Text = Space.text(4096, { minLength: 1, charset: TEXT_CHARSET + "√" })
  readonly actionSpace: Space.Text = Space.text(256, { minLength: 0, charset: TEXT_CHARSET })
  readonly metadata: Metadata = { renderModes: ["ansi"] }
  spec: EnvSpec | undefined = undefined
  readonly task: string
  readonly maxSteps: number
  readonly invalidActionPolicy: InvalidActionPolicy
  readonly invalidActionPenalty: number
  /** The underlying `Sokoban` (grid observations, unlimited steps; this wrapper counts steps). */
  readonly inner: Sokoban
  private grid: Uint8Array = new Uint8Array(0)
  private steps = 0
  private running = false
  private started = false

  constructor(options: TextSokobanOptions = {}) {
    const size = options.size ?? 6
    if (!Number.isInteger(size) || size < 5 || size > 32) {
      throw new InvalidOptionError({ option: "size", value: size, reason: "expected an integer in [5, 32]" })
    }
    const numBoxes = options.numBoxes ?? 1
    if (!Number.isInteger(numBoxes) || numBoxes < 1) {
      throw new InvalidOptionError({ option: "numBoxes", value: numBoxes, reason: "expected a positive integer" })
    }
    const maxSteps = options.maxSteps ?? 100
    if (!(maxSteps === Infinity || (Number.isInteger(maxSteps) && maxSteps > 0))) {
      throw new InvalidOptionError({ option: "maxSteps", value: maxSteps, reason: "must be a positive integer or Infinity" })
    }
    const policy = options.invalidActionPolicy ?? "penalize"
    if (policy !== "penalize" && policy !== "error") {
      throw new InvalidOptionError({ option: "invalidActionPolicy", value: policy, reason: 'expected "penalize" or "error"' })
    }
    const penalty = options.invalidActionPenalty ?? -0.1
    if (!Number.isFinite(penalty)) {
      throw new InvalidOptionError({ option: "invalidActionPenalty", value: penalty, reason: "expected a finite number" })
    }
    this.inner = new Sokoban({ generate: { width: size, height: size, numBoxes }, maxSteps: Infinity })
    this.maxSteps = maxSteps
    this.invalidActionPolicy = policy
    this.invalidActionPenalty = penalty
    this.task = numBoxes === 1 ? "push the box onto the target." : `push all ${numBoxes} boxes onto the targets.`
  }

  get npRandom(): Rng {
    return this.inner.npRandom
  }

  get unwrapped(): TextSokoban {
    return this
  }

  /** The current grid as gym-sokoban cell codes (`Uint8Array(size * size)`, a copy). */
  gridObservation(): Uint8Array {
    return this.grid.slice()
  }

  private text(): string {
    const w = this.inner.width
    let s = ""
    for (let r = 0; r < this.inner.height; r++) {
      if (r > 0) s += "\n"
      for (let c = 0; c < w; c++) s += SYMBOLS[this.grid[r * w + c]!]
    }
    return s
  }

  /**
   * Start an episode on a new generated level (or `options.level`, as `Sokoban`).
   * @throws GenerationError when generation fails; InvalidSeedError for a bad seed.
   */
  reset(options?: ResetOptions): ResetResult<string> {
    const r = this.inner.reset(options)
    this.grid = r.observation as Uint8Array
    this.steps = 0
    this.running = true
    this.started = true
    return {
      observation: `${LEGEND}\n${this.text()}`,
      info: { ...r.info, grid: this.grid, won: false, admissibleActions: ACTION_NAMES }
    }
  }

  admissibleActions(): ReadonlyArray<string> {
    return ACTION_NAMES
  }

  /**
   * Apply `"Up"`, `"Down"`, `"Left"` or `"Right"`.
   * @throws ResetNeededError before `reset` or after the end; InvalidActionError for a non-string, or any other
   *   string under `invalidActionPolicy: "error"`.
   */
  step(action: string): StepResult<string> {
    if (!this.running) {
      throw new ResetNeededError({ envId: ENV_ID, reason: this.started ? "the episode has ended" : "step before reset" })
    }
    const d = namedActionIndex(ENV_ID, action, ACTION_NAMES, this.invalidActionPolicy)
    this.steps++
    let reward = this.invalidActionPenalty
    let terminated = false
    let info: Info
    if (d >= 0) {
      const r = this.inner.step(1 + d)
      this.grid = r.observation as Uint8Array
      reward = r.reward
      terminated = r.terminated
      info = { ...r.info, grid: this.grid, won: terminated, invalidAction: false }
    } else {
      info = { grid: this.grid, boxesOnTarget: this.boxesOnTarget(), won: false, invalidAction: true }
    }
    const truncated = this.steps >= this.maxSteps
    if (terminated || truncated) this.running = false
    return {
      observation: this.text(),
      reward,
      terminated,
      truncated,
      info: { ...info, offeredActions: ACTION_NAMES, admissibleActions: ACTION_NAMES }
    }
  }

  private boxesOnTarget(): number {
    let n = 0
    for (let i = 0; i < this.grid.length; i++) if (this.grid[i] === 3) n++
    return n
  }

  /** `player|box,box,...` (cell indices). "" before the first reset. */
  stateKey(): string {
    if (!this.started) return ""
    const s = this.inner.state
    return `${s.player}|${Array.from(s.boxes).join(",")}`
  }

  /** The grid in RAGEN's symbols; undefined before the first reset. */
  render(): string | undefined {
    return this.started ? this.text() : undefined
  }

  /** Chat turns: system (rules, legend, task), then observation (+ actions) / action per step. */
  toMessages(trajectory: Trajectory.Trajectory): Array<ChatMessage> {
    return textMessages(SYSTEM_PROMPT, trajectory.task ?? this.task, trajectory)
  }

  close(): void {
    this.running = false
    this.inner.close()
  }
}

/**
 * Construct `Sokoban-6x6-1box-v0` (the registry's entry point).
 * @category constructors
 */
export const make = (options: TextSokobanOptions = {}): TextSokoban => new TextSokoban(options)

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
import { InvalidOptionError } from "@autodidact/core"
import type { Rng } from "@autodidact/core"
import type { Info, ResetOptions, ResetResult } from "../Env.js"
import type { EnvSnapshot } from "../Snapshot.js"
import { Sokoban } from "../sokoban/Sokoban.js"
import { type GridMove, GridTextEnv } from "./GridTextEnv.js"
import type { InvalidActionPolicy } from "./TextEnv.js"

/** RAGEN's symbols by gym-sokoban cell code (0 wall ... 6 player on target). */
export const SYMBOLS = ["#", "_", "O", "√", "X", "P", "S"] as const
/**
 * A `width × height` grid in RAGEN's symbols, one row per line, from each cell's gym-sokoban code (`codeAt(i)`, i =
 * `row * width + col`).
 */
export const renderGrid = (width: number, height: number, codeAt: (i: number) => number): string => {
  let s = ""
  for (let r = 0; r < height; r++) {
    if (r > 0) s += "\n"
    for (let c = 0; c < width; c++) s += SYMBOLS[codeAt(r * width + c)]
  }
  return s
}

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
export class TextSokoban extends GridTextEnv {
  /** "push the box onto the target." (or "push all N boxes onto the targets."). */
  readonly task: string
  /** The underlying `Sokoban` (grid observations, unlimited steps; this wrapper counts steps). */
  readonly inner: Sokoban
  private grid: Uint8Array = new Uint8Array(0)

  /** @throws InvalidOptionError (see the class docs). */
  constructor(options: TextSokobanOptions = {}) {
    super(ENV_ID, ACTION_NAMES, SYSTEM_PROMPT, options, { maxSteps: 100, invalidActionPenalty: -0.1 })
    const size = options.size ?? 6
    if (!Number.isInteger(size) || size < 5 || size > 32) {
      throw new InvalidOptionError({ option: "size", value: size, reason: "expected an integer in [5, 32]" })
    }
    const numBoxes = options.numBoxes ?? 1
    if (!Number.isInteger(numBoxes) || numBoxes < 1) {
      throw new InvalidOptionError({ option: "numBoxes", value: numBoxes, reason: "expected a positive integer" })
    }
    this.inner = new Sokoban({ generate: { width: size, height: size, numBoxes }, maxSteps: Infinity })
    this.task = numBoxes === 1 ? "push the box onto the target." : `push all ${numBoxes} boxes onto the targets.`
  }

  /** The inner `Sokoban`'s generator (levels are drawn from it). */
  get npRandom(): Rng {
    return this.inner.npRandom
  }

  /** The current grid as gym-sokoban cell codes (`Uint8Array(size * size)`, a copy). */
  gridObservation(): Uint8Array {
    return this.grid.slice()
  }

  protected text(): string {
    return renderGrid(this.inner.width, this.inner.height, (i) => this.grid[i]!)
  }

  /**
   * Start an episode on a new generated level (or `options.level`, as `Sokoban`).
   * @throws GenerationError when generation fails; InvalidSeedError for a bad seed.
   */
  reset(options?: ResetOptions): ResetResult<string> {
    const r = this.inner.reset(options)
    this.grid = r.observation as Uint8Array
    this.episode.begin()
    return {
      observation: `${LEGEND}\n${this.text()}`,
      info: { ...r.info, grid: this.grid, won: false, admissibleActions: ACTION_NAMES }
    }
  }

  protected move(index: number): GridMove {
    const r = this.inner.step(1 + index)
    this.grid = r.observation as Uint8Array
    return { reward: r.reward, terminated: r.terminated, info: { ...r.info, grid: this.grid, won: r.terminated, invalidAction: false } }
  }

  protected invalidInfo(): Info {
    return { grid: this.grid, boxesOnTarget: this.boxesOnTarget(), won: false, invalidAction: true }
  }

  private boxesOnTarget(): number {
    let n = 0
    for (let i = 0; i < this.grid.length; i++) if (this.grid[i] === 3) n++
    return n
  }

  protected saveInner(): unknown {
    // the grid array is replaced, never mutated, by each move: sharing it is safe
    return { inner: this.inner.snapshot(), grid: this.grid } satisfies SokobanSaved
  }

  protected restoreInner(saved: unknown): void {
    const s = saved as SokobanSaved
    this.inner.restore(s.inner)
    this.grid = s.grid
  }

  /** `player|box,box,...` (cell indices). "" before the first reset. */
  stateKey(): string {
    if (!this.episode.started) return ""
    const s = this.inner.state
    return `${s.player}|${Array.from(s.boxes).join(",")}`
  }

  /** Ends the episode and closes the inner `Sokoban`. */
  override close(): void {
    super.close()
    this.inner.close()
  }
}

interface SokobanSaved {
  readonly inner: EnvSnapshot
  readonly grid: Uint8Array
}

/**
 * Construct `Sokoban-6x6-1box-v0` (the registry's entry point).
 * @category constructors
 */
export const make = (options: TextSokobanOptions = {}): TextSokoban => new TextSokoban(options)

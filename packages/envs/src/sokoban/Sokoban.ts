/**
 * `Sokoban-v0`: the box-pushing puzzle with gym-sokoban's rules, rewards and action set.
 *
 * **When to use**
 * - Planning and model-free RL on Boxoban levels (`levels`), on one fixed level (`level`), or on an endless stream
 *   of generated levels (`generate`, the default: 10 × 10 rooms with 4 boxes, as gym-sokoban's `SokobanEnv`).
 *
 * **Details**
 * - Actions: `Discrete(9)`, gym-sokoban's `ACTION_LOOKUP`: 0 no-op, 1 push up, 2 push down, 3 push left, 4 push right,
 *   5 move up, 6 move down, 7 move left, 8 move right. A *push* action moves the player and, when a box is in the
 *   way and the cell behind it is floor or goal, pushes it; otherwise it moves like a *move* action. A *move* action
 *   never pushes: the player steps only onto free floor or goal. Walls, the grid's edge and a second box block;
 *   boxes are never pulled. (gym-sokoban's `Sokoban-v0` uses the same 9-action `SokobanEnv`.)
 * - Reward per step (gym-sokoban `_calc_reward`): −0.1; +1 when the number of boxes on goals went up, −1 when it went
 *   down; +10 more when every box is on a goal. So the solving push earns −0.1 + 1 + 10 = 10.9.
 * - `terminated` when every box is on a goal; `truncated` when the step count reaches `maxSteps` (gym-sokoban's
 *   `max_steps`, default 120; `Infinity` disables it), independently of `terminated`, as Gymnasium's `TimeLimit`.
 * - Observations (`observationMode`):
 *   - `"grid"` (default): `Uint8Array(height * width)`, row-major cell codes of gym-sokoban's `room_state`:
 *     0 wall, 1 floor, 2 goal, 3 box on goal, 4 box, 5 player, 6 player on goal (gym-sokoban's `room_state` writes
 *     5 for the player on a goal too and tells them apart only when rendering; code 6 is that render index);
 *     space `Box(0, 6, [height, width], "uint8")`.
 *   - `"onehot"`: `Float32Array(7 * height * width)`, channels-first: channel `c` is 1 where the grid code is `c`;
 *     space `Box(0, 1, [7, height, width], "float32")`.
 * - `info`: `actionName`, `movedPlayer`, `movedBox`, `boxesOnTarget`, `allBoxesOnTarget`, `maxStepsUsed`.
 * - Levels: `reset` picks `levels[npRandom.integers(levels.length)]`, or generates one from `npRandom`, so a seeded
 *   reset is reproducible; `reset({ options: { level } })` plays a given level once. All levels must have the
 *   observation space's size.
 * - `step` allocates only the observation and the result records.
 *
 * **Gotchas**
 * - Out of bounds counts as wall (gym-sokoban indexes NumPy arrays, where a negative index wraps; levels are walled
 *   so it never matters there).
 *
 * @example
 * ```ts
 * import { Sokoban, SokobanLevel } from "@autodidact/envs"
 * const env = new Sokoban.Sokoban({ level: SokobanLevel.fromRows(["#####", "#@$.#", "#####"]) })
 * env.reset({ seed: 0 })
 * env.step(4).reward // 10.9: pushed the only box onto the goal
 * ```
 * @see https://github.com/mpSchrader/gym-sokoban (gym-sokoban by Max-Philipp Schrader: `sokoban_env.py`)
 * @see Guez et al. 2018, "An investigation of model-free planning", arXiv:1901.03559 (Boxoban levels)
 * @see Racanière et al. 2017, "Imagination-Augmented Agents for Deep Reinforcement Learning", arXiv:1707.06203
 * @category environments
 * @since 0.1.0
 */
import { InvalidActionError, InvalidOptionError, ResetNeededError, Rng, Space } from "@autodidact/core"
import type { Env, EnvSpec, Info, Metadata, ResetOptions, ResetResult, StepResult } from "../Env.js"
import { type EnvSnapshot, OwnedSnapshot, ownPayload, type Restorable } from "../Snapshot.js"
import * as SokobanGenerator from "./SokobanGenerator.js"
import { type Level, renderLevel } from "./SokobanLevel.js"

/** gym-sokoban's action names, indexed by action id. */
export const ACTIONS = [
  "no operation",
  "push up",
  "push down",
  "push left",
  "push right",
  "move up",
  "move down",
  "move left",
  "move right"
] as const

/** Grid cell codes of the `"grid"` observation (gym-sokoban `room_state`, plus 6 for the player on a goal). */
export const CELL = { wall: 0, floor: 1, goal: 2, boxOnGoal: 3, box: 4, player: 5, playerOnGoal: 6 } as const

/** Options of {@link Sokoban}. At most one of `level`, `levels`, `generate`; none means `generate: {}`. */
export interface SokobanOptions {
  /** Play this level at every reset. */
  readonly level?: Level | undefined
  /** Play a level drawn uniformly with `npRandom.integers(levels.length)` at each reset. */
  readonly levels?: ReadonlyArray<Level> | undefined
  /** Generate a level from `npRandom` at each reset (default when no level is given: 10 × 10, 4 boxes). */
  readonly generate?: SokobanGenerator.GenerateOptions | undefined
  /** `"grid"` (default) or `"onehot"`. */
  readonly observationMode?: "grid" | "onehot" | undefined
  /** Steps after which `truncated` is set (default 120, gym-sokoban's `max_steps`); `Infinity` disables. */
  readonly maxSteps?: number | undefined
}

const ENV_ID = "Sokoban-v0"
const DR = [-1, 1, 0, 0] as const
const DC = [0, 0, -1, 1] as const

/**
 * The Sokoban environment (`Sokoban-v0`).
 * @throws InvalidOptionError from the constructor for conflicting or invalid options (several level sources, an
 *   empty `levels`, levels of different sizes, a bad `observationMode` or `maxSteps`).
 * @category environments
 */
export class Sokoban implements Env<Uint8Array | Float32Array, number>, Restorable {
  /** `Box(0, 6, [height, width], uint8)` (grid) or `Box(0, 1, [7, height, width], float32)` (one-hot). */
  readonly observationSpace: Space.Box
  /** `Discrete(9)`: gym-sokoban's {@link ACTIONS}. */
  readonly actionSpace: Space.Discrete = Space.discrete(ACTIONS.length)
  /** ANSI rendering. */
  readonly metadata: Metadata = { renderModes: ["ansi"], renderFps: 4 }
  /** Set by `make`. */
  spec: EnvSpec | undefined = undefined
  /** Grid width in cells (walls included). */
  readonly width: number
  /** Grid height in cells (walls included). */
  readonly height: number
  /** Observation encoding (see the module docs). */
  readonly observationMode: "grid" | "onehot"
  /** Steps after which `truncated` is set (`Infinity`: never). */
  readonly maxSteps: number

  private rng: Rng | undefined
  private readonly levels: ReadonlyArray<Level> | undefined
  private readonly generateOptions: SokobanGenerator.GenerateOptions | undefined
  private level: Level | undefined
  private readonly walls: Uint8Array
  private readonly goal: Uint8Array
  private readonly box: Uint8Array
  private player = 0
  private numBoxes = 0
  private boxesOnTarget = 0
  private steps = 0
  private running = false

  /**
   * At most one level source: `level`, `levels`, or `generate` (the default: 10 × 10 rooms with 4 boxes).
   * @throws InvalidOptionError (see the class docs).
   */
  constructor(options: SokobanOptions = {}) {
    const sources = [options.level, options.levels, options.generate].filter((x) => x !== undefined).length
    if (sources > 1) {
      throw new InvalidOptionError({ option: "level/levels/generate", value: sources, reason: "give at most one level source" })
    }
    if (options.levels !== undefined && options.levels.length === 0) {
      throw new InvalidOptionError({ option: "levels", value: [], reason: "needs at least one level" })
    }
    const mode = options.observationMode ?? "grid"
    if (mode !== "grid" && mode !== "onehot") {
      throw new InvalidOptionError({ option: "observationMode", value: mode, reason: 'must be "grid" or "onehot"' })
    }
    const maxSteps = options.maxSteps ?? 120
    if (!(maxSteps === Infinity || (Number.isInteger(maxSteps) && maxSteps > 0))) {
      throw new InvalidOptionError({ option: "maxSteps", value: maxSteps, reason: "must be a positive integer or Infinity" })
    }
    this.observationMode = mode
    this.maxSteps = maxSteps
    if (options.level !== undefined) this.levels = [options.level]
    else if (options.levels !== undefined) this.levels = options.levels
    else this.generateOptions = options.generate ?? {}
    const first = this.levels?.[0]
    this.width = first?.width ?? this.generateOptions?.width ?? 10
    this.height = first?.height ?? this.generateOptions?.height ?? 10
    for (const l of this.levels ?? []) this.checkSize(l, "levels")
    const n = this.width * this.height
    this.walls = new Uint8Array(n)
    this.goal = new Uint8Array(n)
    this.box = new Uint8Array(n)
    this.observationSpace = mode === "grid"
      ? Space.box(0, 6, [this.height, this.width], "uint8")
      : Space.box(0, 1, [7, this.height, this.width], "float32")
  }

  private checkSize(level: Level, option: string): void {
    if (level.width !== this.width || level.height !== this.height) {
      throw new InvalidOptionError({
        option,
        value: `${level.id}: ${level.height}x${level.width}`,
        reason: `every level must be ${this.height}x${this.width} (height x width)`
      })
    }
  }

  /** The environment's generator; seeded from entropy on first use when no reset seeded it. */
  get npRandom(): Rng {
    if (this.rng === undefined) this.rng = Rng.fromEntropy()
    return this.rng
  }

  /** This env (it wraps nothing). */
  get unwrapped(): Env<unknown, unknown> {
    return this as Env<unknown, unknown>
  }

  /** The level of the current episode (undefined before the first reset). */
  get currentLevel(): Level | undefined {
    return this.level
  }

  /** The current box cells (sorted) and player cell, e.g. to hand to the solver. */
  get state(): { readonly boxes: Int32Array; readonly player: number } {
    const boxes = new Int32Array(this.numBoxes)
    let j = 0
    for (let i = 0; i < this.box.length; i++) if (this.box[i] === 1) boxes[j++] = i
    return { boxes, player: this.player }
  }

  /**
   * Start an episode. `options.level` (a `Level` of the env's size) plays that level instead of drawing one.
   * @throws InvalidOptionError for a level of the wrong size; GenerationError when generation fails.
   */
  reset(options?: ResetOptions): ResetResult<Uint8Array | Float32Array> {
    if (options?.seed !== undefined) this.rng = Rng.make(options.seed)
    const level = this.pickLevel(options?.options?.["level"] as Level | undefined, this)
    this.level = level
    this.walls.set(level.walls)
    this.goal.fill(0)
    this.box.fill(0)
    for (let i = 0; i < level.goals.length; i++) this.goal[level.goals[i]!] = 1
    this.boxesOnTarget = 0
    for (let i = 0; i < level.boxes.length; i++) {
      this.box[level.boxes[i]!] = 1
      this.boxesOnTarget += this.goal[level.boxes[i]!]!
    }
    this.numBoxes = level.boxes.length
    this.player = level.player
    this.steps = 0
    this.running = true
    return { observation: this.observe(), info: { levelId: level.id, boxesOnTarget: this.boxesOnTarget } }
  }

  /**
   * The level a reset plays: `given` (checked to have this env's size), else one of `levels` drawn with
   * `npRandom.integers(levels.length)` (no draw when there is one), else a generated one. `rng` supplies `npRandom`
   * (this env, or a row of the batched `SokobanBatch`), read only when a draw is needed.
   * @throws InvalidOptionError for a level of the wrong size; GenerationError when generation fails.
   * @since 0.2.0
   */
  pickLevel(given: Level | undefined, rng: { readonly npRandom: Rng }): Level {
    if (given !== undefined) {
      this.checkSize(given, "reset options.level")
      return given
    }
    if (this.levels !== undefined) {
      return this.levels.length === 1 ? this.levels[0]! : this.levels[rng.npRandom.integers(this.levels.length)]!
    }
    return SokobanGenerator.generate(rng.npRandom, this.generateOptions)
  }

  /**
   * Apply one action (0–8, see {@link ACTIONS}).
   * @throws InvalidActionError for anything but an integer in [0, 9); ResetNeededError before `reset` or after the
   *   episode ended.
   */
  step(action: number): StepResult<Uint8Array | Float32Array> {
    if (!this.running) {
      throw new ResetNeededError({ envId: ENV_ID, reason: this.level === undefined ? "step before reset" : "the episode has ended" })
    }
    if (!Number.isInteger(action) || action < 0 || action >= ACTIONS.length) {
      throw new InvalidActionError({ envId: ENV_ID, action, space: "Discrete(9)" })
    }
    this.steps++
    let movedPlayer = false
    let movedBox = false
    const before = this.boxesOnTarget
    if (action > 0) {
      const d = (action - 1) % 4
      const w = this.width
      const r = Math.floor(this.player / w) + DR[d]!
      const c = (this.player % w) + DC[d]!
      if (r >= 0 && r < this.height && c >= 0 && c < w) {
        const next = r * w + c
        if (this.box[next] === 1) {
          const r2 = r + DR[d]!
          const c2 = c + DC[d]!
          if (action < 5 && r2 >= 0 && r2 < this.height && c2 >= 0 && c2 < w) {
            const beyond = r2 * w + c2
            if (this.walls[beyond] === 0 && this.box[beyond] === 0) {
              this.box[next] = 0
              this.box[beyond] = 1
              this.boxesOnTarget += this.goal[beyond]! - this.goal[next]!
              this.player = next
              movedPlayer = true
              movedBox = true
            }
          }
        } else if (this.walls[next] === 0) {
          this.player = next
          movedPlayer = true
        }
      }
    }
    const won = this.boxesOnTarget === this.numBoxes
    let reward = -0.1
    if (this.boxesOnTarget > before) reward += 1
    else if (this.boxesOnTarget < before) reward -= 1
    if (won) reward += 10
    const truncated = this.steps >= this.maxSteps
    if (won || truncated) this.running = false
    const info: Info = {
      actionName: ACTIONS[action],
      movedPlayer,
      movedBox,
      boxesOnTarget: this.boxesOnTarget,
      allBoxesOnTarget: won,
      maxStepsUsed: truncated
    }
    return { observation: this.observe(), reward, terminated: won, truncated, info }
  }

  private observe(): Uint8Array | Float32Array {
    const n = this.width * this.height
    if (this.observationMode === "grid") {
      const obs = new Uint8Array(n)
      for (let i = 0; i < n; i++) obs[i] = this.cellCode(i)
      return obs
    }
    const obs = new Float32Array(7 * n)
    for (let i = 0; i < n; i++) obs[this.cellCode(i) * n + i] = 1
    return obs
  }

  private cellCode(i: number): number {
    if (i === this.player) return this.goal[i] === 1 ? 6 : 5
    if (this.walls[i] === 1) return 0
    if (this.box[i] === 1) return this.goal[i] === 1 ? 3 : 4
    return this.goal[i] === 1 ? 2 : 1
  }

  /** The current state as text in the level format (`#` wall, `@`/`+` player, `$`/`*` box, `.` goal). */
  render(): string | undefined {
    if (this.level === undefined) return undefined
    return renderLevel(this.level, this.state)
  }

  /**
   * The full state (level, boxes, player, step count, generator) as an immutable value; see `Snapshot`.
   * @throws ResetNeededError before the first reset.
   * @since 0.2.0
   */
  snapshot(): EnvSnapshot {
    const level = this.level
    if (level === undefined) throw new ResetNeededError({ envId: ENV_ID, reason: "snapshot before reset" })
    const payload: SokobanState = {
      rng: this.npRandom.clone(),
      level,
      box: this.box.slice(),
      player: this.player,
      numBoxes: this.numBoxes,
      boxesOnTarget: this.boxesOnTarget,
      steps: this.steps,
      running: this.running
    }
    return new OwnedSnapshot(ENV_ID, this, payload)
  }

  /**
   * Return to a state saved by {@link snapshot} (its level too, when the env has been reset since).
   * @throws SnapshotMismatchError for a snapshot this instance did not take.
   * @since 0.2.0
   */
  restore(snapshot: EnvSnapshot): void {
    const p = ownPayload<SokobanState>(this, ENV_ID, snapshot)
    if (p.level !== this.level) {
      this.level = p.level
      this.walls.set(p.level.walls)
      this.goal.fill(0)
      for (let i = 0; i < p.level.goals.length; i++) this.goal[p.level.goals[i]!] = 1
    }
    this.rng = p.rng.clone()
    this.box.set(p.box)
    this.player = p.player
    this.numBoxes = p.numBoxes
    this.boxesOnTarget = p.boxesOnTarget
    this.steps = p.steps
    this.running = p.running
  }

  /** Ends the episode; nothing else to release. */
  close(): void {
    this.running = false
  }
}

/** What a Sokoban snapshot holds (private copies). */
interface SokobanState {
  readonly rng: Rng
  readonly level: Level
  readonly box: Uint8Array
  readonly player: number
  readonly numBoxes: number
  readonly boxesOnTarget: number
  readonly steps: number
  readonly running: boolean
}

/**
 * Construct `Sokoban-v0` (the registry's entry point).
 * @category constructors
 */
export const make = (options: SokobanOptions = {}): Sokoban => new Sokoban(options)

/**
 * `SokobanBatch`: `numEnvs` Sokoban-v0 environments as arrays, stepped in one loop: bit-identical to `SyncVectorEnv`
 * over `make("Sokoban-v0", kwargs)` (gym-sokoban's rules and rewards as {@link Sokoban}, truncation at
 * `min(maxSteps, maxEpisodeSteps)` = 120 by default) with the same seeds, actions and autoreset mode.
 *
 * **Details**
 * - Per-row state in flat arrays of `numEnvs * height * width` cells (`walls`, `goals`, `boxes`, 0/1) plus the
 *   player cell, box count and boxes on goals per row. A step touches at most three cells, and updates only those
 *   cells of the observation row (grid codes or one-hot channels) instead of re-rendering it.
 * - `observations`: `Uint8Array(numEnvs * height * width)` (grid) or `Float32Array(numEnvs * 7 * height * width)`
 *   (one-hot); actions an `Int32Array(numEnvs)` of 0–8 (`Sokoban.ACTIONS`).
 * - Levels as `Sokoban`: `level`, `levels` (drawn per reset from the row's generator) or `generate` (a level
 *   generated per reset: ~ms each, far slower than a step); `reset({ options: { level } })` plays that level in
 *   every reset row. Infos (`actionName`, `movedPlayer`, ...; reset: `levelId`, `boxesOnTarget`) are built only when
 *   `infos` is read.
 *
 * @see https://github.com/mpSchrader/gym-sokoban (gym-sokoban by Max-Philipp Schrader: `sokoban_env.py`)
 * @since 0.2.0
 */
import type { Rng } from "@autodidact/core"
import type { Info } from "../Env.js"
import { type BatchedOptions, BatchedVectorEnv, NEXT_STEP } from "../vector/BatchedVectorEnv.js"
import type { Batch, VectorStepResult } from "../vector/VectorEnv.js"
import { ACTIONS, Sokoban, type SokobanOptions } from "./Sokoban.js"
import type { Level } from "./SokobanLevel.js"

/** Options of {@link SokobanBatch}: the env's kwargs plus the batch's. */
export interface SokobanBatchOptions extends SokobanOptions, BatchedOptions {}

const DR = new Int32Array([-1, 1, 0, 0])
const DC = new Int32Array([0, 0, -1, 1])

/**
 * `numEnvs` Sokoban environments held in typed arrays.
 * @category models
 */
export class SokobanBatch extends BatchedVectorEnv {
  /** Grid width in cells. */
  readonly width: number
  /** Grid height in cells. */
  readonly height: number
  /** `"grid"` or `"onehot"` (see `Sokoban`). */
  readonly observationMode: "grid" | "onehot"
  private readonly template: Sokoban
  private readonly cells: number
  private readonly limit: number
  private readonly sokobanMaxSteps: number
  private readonly walls: Uint8Array
  private readonly goals: Uint8Array
  private readonly boxes: Uint8Array
  private readonly player: Int32Array
  private readonly numBoxes: Int32Array
  private readonly boxesOnTarget: Int32Array
  private readonly levels: Array<Level | undefined>
  // step info of each row's last step
  private readonly lastAction: Int32Array
  private readonly movedPlayer: Uint8Array
  private readonly movedBox: Uint8Array
  private readonly lastBoxesOnTarget: Int32Array
  private readonly lastWon: Uint8Array
  private readonly lastMaxUsed: Uint8Array
  private readonly rowRng: { row: number; readonly npRandom: Rng }

  /**
   * @param numEnvs number of sub-envs (positive integer).
   * @throws InvalidOptionError for a bad `numEnvs`, `maxEpisodeSteps` (default: none beyond `maxSteps`), mode, or the
   *   options `Sokoban` rejects.
   */
  constructor(numEnvs: number, options: SokobanBatchOptions = {}) {
    const template = new Sokoban(options)
    super("SokobanBatch(Sokoban-v0)", numEnvs, template.observationSpace, template.actionSpace, options.maxEpisodeSteps ?? Infinity, options)
    this.template = template
    this.width = template.width
    this.height = template.height
    this.observationMode = template.observationMode
    this.cells = this.width * this.height
    this.sokobanMaxSteps = template.maxSteps
    this.limit = Math.min(template.maxSteps, this.maxEpisodeSteps)
    const total = numEnvs * this.cells
    this.walls = new Uint8Array(total)
    this.goals = new Uint8Array(total)
    this.boxes = new Uint8Array(total)
    this.player = new Int32Array(numEnvs)
    this.numBoxes = new Int32Array(numEnvs)
    this.boxesOnTarget = new Int32Array(numEnvs)
    this.levels = new Array<Level | undefined>(numEnvs).fill(undefined)
    this.lastAction = new Int32Array(numEnvs)
    this.movedPlayer = new Uint8Array(numEnvs)
    this.movedBox = new Uint8Array(numEnvs)
    this.lastBoxesOnTarget = new Int32Array(numEnvs)
    this.lastWon = new Uint8Array(numEnvs)
    this.lastMaxUsed = new Uint8Array(numEnvs)
    const rng = (i: number) => this.rng(i)
    this.rowRng = {
      row: 0,
      get npRandom() {
        return rng(this.row)
      }
    }
  }

  protected resetRow(i: number, options: { readonly [key: string]: unknown } | undefined): void {
    this.rowRng.row = i
    const level = this.template.pickLevel(options?.["level"] as Level | undefined, this.rowRng)
    this.levels[i] = level
    const o = i * this.cells
    this.walls.set(level.walls, o)
    this.goals.fill(0, o, o + this.cells)
    this.boxes.fill(0, o, o + this.cells)
    for (let k = 0; k < level.goals.length; k++) this.goals[o + level.goals[k]!] = 1
    let onTarget = 0
    for (let k = 0; k < level.boxes.length; k++) {
      this.boxes[o + level.boxes[k]!] = 1
      onTarget += this.goals[o + level.boxes[k]!]!
    }
    this.boxesOnTarget[i] = onTarget
    this.numBoxes[i] = level.boxes.length
    this.player[i] = level.player
    for (let c = 0; c < this.cells; c++) this.writeCell(i, c)
  }

  /** Row i's code of cell c (`Sokoban.CELL`). */
  private cellCode(i: number, c: number): number {
    const j = i * this.cells + c
    if (c === this.player[i]) return this.goals[j] === 1 ? 6 : 5
    if (this.walls[j] === 1) return 0
    if (this.boxes[j] === 1) return this.goals[j] === 1 ? 3 : 4
    return this.goals[j] === 1 ? 2 : 1
  }

  /** Write cell c of row i's observation. */
  private writeCell(i: number, c: number): void {
    const code = this.cellCode(i, c)
    if (this.observationMode === "grid") (this.observations as Uint8Array)[i * this.cells + c] = code
    else {
      const obs = this.observations as Float32Array
      const n = this.cells
      const o = i * 7 * n + c
      for (let ch = 0; ch < 7; ch++) obs[o + ch * n] = 0
      obs[o + code * n] = 1
    }
  }

  protected resetInfo(i: number): Info {
    return { levelId: this.levels[i]!.id, boxesOnTarget: this.boxesOnTarget[i]! }
  }

  protected stepInfo(i: number): Info {
    return {
      actionName: ACTIONS[this.lastAction[i]!],
      movedPlayer: this.movedPlayer[i] === 1,
      movedBox: this.movedBox[i] === 1,
      boxesOnTarget: this.lastBoxesOnTarget[i]!,
      allBoxesOnTarget: this.lastWon[i] === 1,
      maxStepsUsed: this.lastMaxUsed[i] === 1
    }
  }

  /**
   * Apply every row's action (0–8, `Sokoban.ACTIONS`) in one loop, as `Sokoban.step`; autoreset as `autoresetMode`
   * says. Returns the shared buffers.
   * @throws InvalidActionError when `actions` is not `numEnvs` values in 0–8; ResetNeededError (see the base).
   */
  step(actions: Batch): VectorStepResult {
    this.beginStep(actions)
    const act = actions as Int32Array
    const n = this.numEnvs
    const w = this.width
    const h = this.height
    const cells = this.cells
    const walls = this.walls
    const goals = this.goals
    const boxes = this.boxes
    const player = this.player
    const bot = this.boxesOnTarget
    const rew = this.rewards
    const term = this.terminations
    const trunc = this.truncations
    const el = this.elapsed
    const need = this.needsReset
    const nextStep = this.mode === NEXT_STEP
    const limit = this.limit
    const sokobanMax = this.sokobanMaxSteps
    for (let i = 0; i < n; i++) {
      if (nextStep && need[i] === 1) {
        this.autoresetRow(i)
        continue
      }
      const action = act[i]!
      const steps = el[i]! + 1
      el[i] = steps
      const o = i * cells
      const p = player[i]!
      const before = bot[i]!
      let movedPlayer = 0
      let movedBox = 0
      if (action > 0) {
        const d = (action - 1) & 3
        const pr = (p / w) | 0
        const r = pr + DR[d]!
        const c = (p - pr * w) + DC[d]!
        if (r >= 0 && r < h && c >= 0 && c < w) {
          const next = r * w + c
          if (boxes[o + next] === 1) {
            const r2 = r + DR[d]!
            const c2 = c + DC[d]!
            if (action < 5 && r2 >= 0 && r2 < h && c2 >= 0 && c2 < w) {
              const beyond = r2 * w + c2
              if (walls[o + beyond] === 0 && boxes[o + beyond] === 0) {
                boxes[o + next] = 0
                boxes[o + beyond] = 1
                bot[i] = before + goals[o + beyond]! - goals[o + next]!
                player[i] = next
                movedPlayer = 1
                movedBox = 1
                this.writeCell(i, beyond)
                this.writeCell(i, next)
                this.writeCell(i, p)
              }
            }
          } else if (walls[o + next] === 0) {
            player[i] = next
            movedPlayer = 1
            this.writeCell(i, next)
            this.writeCell(i, p)
          }
        }
      }
      const after = bot[i]!
      const won = after === this.numBoxes[i]
      let reward = -0.1
      if (after > before) reward += 1
      else if (after < before) reward -= 1
      if (won) reward += 10
      rew[i] = reward
      const truncated = steps >= limit
      term[i] = won ? 1 : 0
      trunc[i] = truncated ? 1 : 0
      this.lastAction[i] = action
      this.movedPlayer[i] = movedPlayer
      this.movedBox[i] = movedBox
      this.lastBoxesOnTarget[i] = after
      this.lastWon[i] = won ? 1 : 0
      this.lastMaxUsed[i] = steps >= sokobanMax ? 1 : 0
      if (won || truncated) this.endRow(i)
    }
    return this.finishStep()
  }
}

/**
 * `numEnvs` batched Sokoban-v0 sub-envs (the registry's `vectorEntryPoint` for `Sokoban-v0`).
 * @category constructors
 */
export const make = (numEnvs: number, options: SokobanBatchOptions = {}): SokobanBatch => new SokobanBatch(numEnvs, options)

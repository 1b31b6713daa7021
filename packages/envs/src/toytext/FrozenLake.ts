/**
 * `FrozenLake-v1`: walk from the start `S` to the goal `G` over frozen tiles `F` without falling into a hole `H`,
 * on ice that may be slippery.
 *
 * A port of Gymnasium 1.4's `gymnasium/envs/toy_text/frozen_lake.py` (`FrozenLakeEnv`, `generate_random_map`,
 * `is_valid`) and `gymnasium/envs/toy_text/utils.py` (`categorical_sample`): the transition table `P` is built
 * entry for entry in Gymnasium's order (duplicates included), and `step` samples it with the same draw, so a seeded
 * episode matches Gymnasium's.
 *
 * **Details**
 * - Observation `Discrete(nrow * ncol)`: `row * ncol + col`. Action `Discrete(4)`: 0 left, 1 down, 2 right, 3 up.
 * - `P[s][a]` is a list of `[probability, nextState, reward, terminated]`. On slippery ice the intended direction
 *   has probability `successRate` (default 1/3) and each perpendicular direction `(1 - successRate) / 2`, listed
 *   for directions `(a - 1) mod 4, a, (a + 1) mod 4`; on dry ice one entry with probability 1. Entering `G` gives
 *   `rewardSchedule[0]` (default 1), entering `H` gives `rewardSchedule[1]` (0), anything else
 *   `rewardSchedule[2]` (0); entering `G` or `H` terminates. From `G`/`H` every action is `[1, s, 0, true]`.
 * - Step info is `{ prob }` (the probability of the sampled transition), reset info `{ prob: 1 }`.
 * - `make("FrozenLake-v1")` adds `TimeLimit(100)`; `FrozenLake8x8-v1` uses the 8x8 map and 200 steps.
 *
 * **Gotchas**
 * - Custom maps are validated: rectangular, only `S`/`F`/`H`/`G`, exactly one `S`, at least one `G`; else
 *   {@link InvalidMapError} names the row and column.
 *
 * @example
 * ```ts
 * import { FrozenLake } from "@autodidact/envs"
 * const env = new FrozenLake.FrozenLakeEnv({ mapName: "4x4", isSlippery: false })
 * env.reset({ seed: 0 }).observation // 0
 * env.step(2).observation // 1 (moved right)
 * ```
 * @see https://github.com/Farama-Foundation/Gymnasium/blob/v1.4.0/gymnasium/envs/toy_text/frozen_lake.py
 * @since 0.1.0
 */
import { InvalidActionError, InvalidOptionError, ResetNeededError, Rng, Space } from "@autodidact/core"
import { Schema } from "effect"
import type { Env, EnvSpec, Info, Metadata, ResetOptions, ResetResult, StepResult } from "../Env.js"
import { type EnvSnapshot, OwnedSnapshot, ownPayload, type Restorable } from "../Snapshot.js"

/** Action 0: move left (column - 1). */
export const LEFT = 0
/** Action 1: move down (row + 1). */
export const DOWN = 1
/** Action 2: move right (column + 1). */
export const RIGHT = 2
/** Action 3: move up (row - 1). */
export const UP = 3

/** Gymnasium's built-in maps. */
export const MAPS: { readonly [name: string]: ReadonlyArray<string> } = {
  "4x4": ["SFFF", "FHFH", "FFFH", "HFFG"],
  "8x8": ["SFFFFFFF", "FFFFFFFF", "FFFHFFFF", "FFFFFHFF", "FFFHFFFF", "FHHFFFHF", "FHFFHFHF", "FFFHFFFG"]
}

/**
 * A map that is not rectangular, holds a character other than `S`/`F`/`H`/`G`, or lacks exactly one `S` or any
 * `G`. `row`/`column` locate the problem (-1 when it is about the whole map).
 * @category errors
 */
export class InvalidMapError extends Schema.TaggedError<InvalidMapError>()("InvalidMapError", {
  row: Schema.Number,
  column: Schema.Number,
  reason: Schema.String
}) {
  override get message() {
    const where = this.row < 0 ? "map" : this.column < 0 ? `map row ${this.row}` : `map row ${this.row}, column ${this.column}`
    return `Invalid FrozenLake ${where}: ${this.reason}`
  }
}

/** One entry of the transition table: `[probability, nextState, reward, terminated]`. */
export type Transition = readonly [probability: number, nextState: number, reward: number, terminated: boolean]

/** Constructor options (Gymnasium's `FrozenLakeEnv(desc, map_name, is_slippery, success_rate, reward_schedule)`). */
export interface FrozenLakeOptions {
  /** Rows of the map, e.g. `["SFFF", "FHFH", "FFFH", "HFFG"]`; overrides `mapName`. */
  readonly desc?: ReadonlyArray<string> | undefined
  /** `"4x4"` (default) or `"8x8"`; `null` with no `desc`: a random 8x8 map ({@link generateRandomMap}). */
  readonly mapName?: "4x4" | "8x8" | null | undefined
  /** Default true. */
  readonly isSlippery?: boolean | undefined
  /** Probability of moving in the intended direction on slippery ice, in [0, 1]. Default 1/3. */
  readonly successRate?: number | undefined
  /** Rewards for entering `[goal, hole, frozen]`. Default `[1, 0, 0]`. */
  readonly rewardSchedule?: readonly [number, number, number] | undefined
}

/**
 * Check that a map is usable: non-empty, rectangular, only `S`/`F`/`H`/`G`, exactly one `S`, at least one `G`.
 * @throws InvalidMapError naming the offending row and column.
 */
export const validateMap = (desc: ReadonlyArray<string>): void => {
  if (!Array.isArray(desc) || desc.length === 0) {
    throw new InvalidMapError({ row: -1, column: -1, reason: "expected a non-empty array of row strings" })
  }
  const ncol = typeof desc[0] === "string" ? desc[0].length : 0
  let starts = 0
  let goals = 0
  desc.forEach((row, r) => {
    if (typeof row !== "string") throw new InvalidMapError({ row: r, column: -1, reason: "row is not a string" })
    if (row.length !== ncol || ncol === 0) {
      throw new InvalidMapError({ row: r, column: -1, reason: `row "${row}" has ${row.length} columns, expected ${ncol}` })
    }
    for (let c = 0; c < row.length; c++) {
      const ch = row[c]!
      if (ch === "S") starts++
      else if (ch === "G") goals++
      else if (ch !== "F" && ch !== "H") {
        throw new InvalidMapError({ row: r, column: c, reason: `character ${JSON.stringify(ch)} is not one of S, F, H, G` })
      }
    }
  })
  if (starts !== 1) throw new InvalidMapError({ row: -1, column: -1, reason: `expected exactly one S, found ${starts}` })
  if (goals === 0) throw new InvalidMapError({ row: -1, column: -1, reason: "expected at least one G" })
}

/**
 * Whether a path of non-hole tiles leads from the top-left corner to a `G` (Gymnasium's `is_valid`, depth-first).
 */
export const isValid = (board: ReadonlyArray<string>, maxSize: number): boolean => {
  const frontier: Array<[number, number]> = [[0, 0]]
  const discovered = new Set<number>()
  const dirs: ReadonlyArray<readonly [number, number]> = [[1, 0], [0, 1], [-1, 0], [0, -1]]
  while (frontier.length > 0) {
    const [r, c] = frontier.pop()!
    if (discovered.has(r * maxSize + c)) continue
    discovered.add(r * maxSize + c)
    for (const [dx, dy] of dirs) {
      const rn = r + dx
      const cn = c + dy
      if (rn < 0 || rn >= maxSize || cn < 0 || cn >= maxSize) continue
      const ch = board[rn]![cn]
      if (ch === "G") return true
      if (ch !== "H") frontier.push([rn, cn])
    }
  }
  return false
}

/**
 * A random `size` x `size` map with a valid path, as Gymnasium's `generate_random_map(size, p, seed)`: each tile is
 * `F` with probability `p` (else `H`), drawn row by row with `np_random.choice(["F", "H"], p=[p, 1 - p])`;
 * the corners are set to `S` and `G`; redrawn until {@link isValid}.
 * @param size side length (integer >= 2). @param p probability of a frozen tile, in (0, 1] (values above 1 act as 1).
 * @param seed NumPy-compatible seed; omitted: fresh entropy.
 * @throws InvalidOptionError when `size` < 2 or `p` <= 0 or not finite.
 */
export const generateRandomMap = (size = 8, p = 0.8, seed?: number): Array<string> => {
  if (!Number.isInteger(size) || size < 2) throw new InvalidOptionError({ option: "size", value: size, reason: "expected an integer >= 2" })
  if (!(p > 0) || !Number.isFinite(p)) throw new InvalidOptionError({ option: "p", value: p, reason: "expected a number in (0, 1]" })
  const rng = seed === undefined ? Rng.fromEntropy() : Rng.make(seed)
  const pf = Math.min(1, p)
  // numpy Generator.choice: cdf = cumsum([p, 1 - p]); cdf /= cdf[-1]; index = searchsorted(cdf, u, "right")
  const total = pf + (1 - pf)
  const cdf0 = pf / total
  for (;;) {
    const rows: Array<Array<string>> = []
    for (let r = 0; r < size; r++) {
      const row: Array<string> = []
      for (let c = 0; c < size; c++) row.push(rng.random() < cdf0 ? "F" : "H")
      rows.push(row)
    }
    rows[0]![0] = "S"
    rows[size - 1]![size - 1] = "G"
    const board = rows.map((r) => r.join(""))
    if (isValid(board, size)) return board
  }
}

/**
 * Build Gymnasium's transition table `P[s][a]` for a (validated) map.
 * @throws InvalidMapError for an invalid map; InvalidOptionError for a `successRate` outside [0, 1].
 */
export const transitionTable = (
  desc: ReadonlyArray<string>,
  isSlippery = true,
  successRate = 1.0 / 3.0,
  rewardSchedule: readonly [number, number, number] = [1, 0, 0]
): Array<Array<Array<Transition>>> => {
  validateMap(desc)
  if (!(successRate >= 0 && successRate <= 1)) {
    throw new InvalidOptionError({ option: "successRate", value: successRate, reason: "expected a probability in [0, 1]" })
  }
  const nrow = desc.length
  const ncol = desc[0]!.length
  const failRate = (1.0 - successRate) / 2.0
  const toS = (row: number, col: number) => row * ncol + col
  const inc = (row: number, col: number, a: number): [number, number] => {
    if (a === LEFT) col = Math.max(col - 1, 0)
    else if (a === DOWN) row = Math.min(row + 1, nrow - 1)
    else if (a === RIGHT) col = Math.min(col + 1, ncol - 1)
    else if (a === UP) row = Math.max(row - 1, 0)
    return [row, col]
  }
  const update = (row: number, col: number, a: number): [number, number, boolean] => {
    const [nr, nc] = inc(row, col, a)
    const letter = desc[nr]![nc]!
    const reward = letter === "G" ? rewardSchedule[0] : letter === "H" ? rewardSchedule[1] : rewardSchedule[2]
    return [toS(nr, nc), reward, letter === "G" || letter === "H"]
  }
  const P: Array<Array<Array<Transition>>> = []
  for (let row = 0; row < nrow; row++) {
    for (let col = 0; col < ncol; col++) {
      const s = toS(row, col)
      const perAction: Array<Array<Transition>> = []
      for (let a = 0; a < 4; a++) {
        const li: Array<Transition> = []
        const letter = desc[row]![col]!
        if (letter === "G" || letter === "H") li.push([1.0, s, 0, true])
        else if (isSlippery) {
          for (const b of [(a + 3) % 4, a, (a + 1) % 4]) li.push([b === a ? successRate : failRate, ...update(row, col, b)])
        } else li.push([1.0, ...update(row, col, a)])
        perAction.push(li)
      }
      P[s] = perAction
    }
  }
  return P
}

/**
 * The FrozenLake environment (unwrapped; `make("FrozenLake-v1")` adds the checker and `TimeLimit(100)`).
 * @category models
 */
export class FrozenLakeEnv implements Env<number, number>, Restorable {
  /** `Discrete(nrow * ncol)`: the cell `row * ncol + col`. */
  readonly observationSpace: Space.Discrete
  /** `Discrete(4)`: {@link LEFT}, {@link DOWN}, {@link RIGHT}, {@link UP}. */
  readonly actionSpace: Space.Discrete = Space.discrete(4)
  /** ANSI rendering at 4 fps. */
  readonly metadata: Metadata = { renderModes: ["ansi"], renderFps: 4 }
  /** Set by `make`. */
  spec: EnvSpec | undefined = undefined
  /** Map rows. */
  readonly desc: ReadonlyArray<string>
  /** Rows of the map. */
  readonly nrow: number
  /** Columns of the map. */
  readonly ncol: number
  /** Transition table `P[s][a]` (Gymnasium's `self.P`). */
  readonly P: ReadonlyArray<ReadonlyArray<ReadonlyArray<Transition>>>
  /** Initial-state distribution (one-hot on `S`). */
  readonly initialStateDistrib: Float64Array
  /** Current state `row * ncol + col` (-1 before the first reset). */
  s = -1
  /** Last action taken (undefined after reset), for rendering. */
  lastAction: number | undefined = undefined
  private rng: Rng | undefined = undefined
  private ended = false

  /**
   * @throws InvalidMapError for an invalid `desc`; InvalidOptionError for an unknown `mapName`, a `successRate`
   *   outside [0, 1] or a malformed `rewardSchedule`.
   */
  constructor(options: FrozenLakeOptions = {}) {
    let desc = options.desc
    if (desc === undefined) {
      const name = options.mapName === undefined ? "4x4" : options.mapName
      if (name === null) desc = generateRandomMap()
      else {
        desc = MAPS[name]
        if (desc === undefined) {
          throw new InvalidOptionError({ option: "mapName", value: name, reason: `expected one of ${Object.keys(MAPS).join(", ")}` })
        }
      }
    }
    const schedule = options.rewardSchedule ?? [1, 0, 0]
    if (!Array.isArray(schedule) || schedule.length !== 3 || !schedule.every((x) => typeof x === "number" && Number.isFinite(x))) {
      throw new InvalidOptionError({ option: "rewardSchedule", value: schedule, reason: "expected 3 finite numbers [goal, hole, frozen]" })
    }
    const slippery = options.isSlippery ?? true
    if (typeof slippery !== "boolean") throw new InvalidOptionError({ option: "isSlippery", value: slippery, reason: "expected a boolean" })
    this.P = transitionTable(desc, slippery, options.successRate ?? 1.0 / 3.0, schedule)
    this.desc = [...desc]
    this.nrow = desc.length
    this.ncol = desc[0]!.length
    this.observationSpace = Space.discrete(this.nrow * this.ncol)
    this.initialStateDistrib = new Float64Array(this.nrow * this.ncol)
    this.desc.forEach((row, r) => [...row].forEach((ch, c) => ch === "S" && (this.initialStateDistrib[r * this.ncol + c] = 1)))
  }

  /** Gymnasium's `np_random`; seeded from entropy on first use unless `reset({ seed })` came first. */
  get npRandom(): Rng {
    return (this.rng ??= Rng.fromEntropy())
  }

  /** This env (it wraps nothing). */
  get unwrapped(): Env<unknown, unknown> {
    return this as Env<unknown, unknown>
  }

  /**
   * Start an episode on the `S` tile (one `categorical_sample` draw). Returns the state index and `{ prob: 1 }`.
   * @throws InvalidSeedError for a bad seed.
   */
  reset(options?: ResetOptions): ResetResult<number> {
    if (options?.seed !== undefined) this.rng = Rng.make(options.seed)
    this.s = this.npRandom.categorical(this.initialStateDistrib)
    this.lastAction = undefined
    this.ended = false
    return { observation: this.s, info: { prob: 1 } }
  }

  /**
   * Sample `P[s][action]` with one uniform draw (`categorical_sample`) and move.
   * Returns the next state, the entry's reward and terminated flag, truncated false, and info `{ prob }`.
   * @throws InvalidActionError when `action` is not an integer in [0, 4).
   * @throws ResetNeededError before the first reset or after termination.
   */
  step(action: number): StepResult<number> {
    if (!(action === 0 || action === 1 || action === 2 || action === 3)) {
      throw new InvalidActionError({ envId: this.spec?.id ?? "FrozenLake-v1", action, space: "Discrete(4)" })
    }
    if (this.s < 0 || this.ended) {
      throw new ResetNeededError({
        envId: this.spec?.id ?? "FrozenLake-v1",
        reason: this.s < 0 ? "step() called before reset()" : "the episode has terminated"
      })
    }
    const transitions = this.P[this.s]![action]!
    const u = this.npRandom.random()
    let acc = 0
    let k = 0
    for (let i = 0; i < transitions.length; i++) {
      acc += transitions[i]![0]
      if (acc > u) {
        k = i
        break
      }
    }
    const [p, next, reward, terminated] = transitions[k]!
    this.s = next
    this.lastAction = action
    if (terminated) this.ended = true
    const info: Info = { prob: p }
    return { observation: next, reward, terminated, truncated: false, info }
  }

  /**
   * Gymnasium's ANSI rendering: the last action in parentheses (or an empty line after reset), then the map with
   * the current tile highlighted in red (`\x1b[41m`...`\x1b[0m`). Undefined before the first reset.
   */
  render(): string | undefined {
    if (this.s < 0) return undefined
    const row = Math.floor(this.s / this.ncol)
    const col = this.s % this.ncol
    const lines = this.desc.map((line, r) =>
      r === row ? `${line.slice(0, col)}\x1b[41m${line[col]}\x1b[0m${line.slice(col + 1)}` : line
    )
    const head = this.lastAction === undefined ? "\n" : `  (${["Left", "Down", "Right", "Up"][this.lastAction]})\n`
    return head + lines.join("\n") + "\n"
  }

  /** Nothing to release. */
  close(): void {}

  /**
   * The state (cell, last action, ended flag, generator) as an immutable value; see `Snapshot`.
   * @throws ResetNeededError before the first reset.
   * @since 0.2.0
   */
  snapshot(): EnvSnapshot {
    const envId = this.spec?.id ?? "FrozenLake-v1"
    if (this.s < 0) throw new ResetNeededError({ envId, reason: "snapshot before reset" })
    const payload: FrozenLakeState = { rng: this.npRandom.clone(), s: this.s, lastAction: this.lastAction, ended: this.ended }
    return new OwnedSnapshot(envId, this, payload)
  }

  /**
   * Return to a state saved by {@link snapshot}.
   * @throws SnapshotMismatchError for a snapshot this instance did not take.
   * @since 0.2.0
   */
  restore(snapshot: EnvSnapshot): void {
    const p = ownPayload<FrozenLakeState>(this, this.spec?.id ?? "FrozenLake-v1", snapshot)
    this.rng = p.rng.clone()
    this.s = p.s
    this.lastAction = p.lastAction
    this.ended = p.ended
  }
}

/** What a FrozenLake snapshot holds. */
interface FrozenLakeState {
  readonly rng: Rng
  readonly s: number
  readonly lastAction: number | undefined
  readonly ended: boolean
}

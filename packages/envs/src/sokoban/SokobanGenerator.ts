/**
 * Procedural Sokoban levels by reverse playing, as gym-sokoban's `room_utils.generate_room` does (the generator of
 * Racanière et al. 2017).
 *
 * **When to use**
 * - To draw an endless, seeded stream of solvable levels for training (`Sokoban-v0` with `generate: {...}`).
 *
 * **Details** (each attempt; up to `maxAttempts` attempts)
 * 1. Topology: a random walk of `walkSteps` steps from a random interior cell; at each step the direction changes
 *    with probability `pChangeDirection`, and one of gym-sokoban's five 3×3 masks (a line, a column, three L/square
 *    shapes) centred on the walker is carved into floor. The border is wall. The floor is connected by construction.
 * 2. Placement: the player on a random floor cell, then `numBoxes` goals on distinct other floor cells, each with a
 *    box on it (the solved state).
 * 3. Reverse play: a depth-first search over *reverse* moves (walk, or walk while pulling the box behind the player)
 *    from the solved state, to depth `searchDepth` and at most `maxStates` distinct states. Each state scores
 *    `boxSwaps × Σ |box − its goal|₁` (Manhattan displacement of each box from the goal it started on, times the
 *    number of times the pulled box changed), and 0 while any box still stands on a goal; the best state wins.
 *    An attempt with best score 0 is retried.
 * - Every level is solvable: the pulls, reversed, are pushes that bring every box back onto a goal.
 * - Reproducible: every draw comes from the given `Rng` (NumPy-compatible PCG64), so the same seed gives the same
 *   levels. The draws are not NumPy's `random` module stream of gym-sokoban, so levels differ from gym-sokoban's.
 *
 * **Gotchas**
 * - Differences from gym-sokoban: the swap counter counts changes of the pulled box as intended (gym-sokoban passes
 *   the parent's `last_pull` down, a known quirk); the default state budget is 20,000 instead of 300,000 states
 *   (levels come out in milliseconds; raise `maxStates` for more displaced boxes).
 *
 * @example
 * ```ts
 * import { Rng } from "@autodidact/core"
 * import { SokobanGenerator } from "@autodidact/envs"
 * const level = SokobanGenerator.generate(Rng.make(0), { width: 10, height: 10, numBoxes: 4 })
 * ```
 * @see https://github.com/mpSchrader/gym-sokoban/blob/master/gym_sokoban/envs/room_utils.py (gym-sokoban)
 * @see Racanière et al. 2017, "Imagination-Augmented Agents for Deep Reinforcement Learning", arXiv:1707.06203
 *   (appendix: level generation by reverse play)
 * @category generators
 * @since 0.1.0
 */
import type { Rng } from "@autodidact/core"
import { Effect, Schema } from "effect"
import type { Level } from "./SokobanLevel.js"

/** Options of {@link generate}. */
export interface GenerateOptions {
  /** Columns including the wall border, ≥ 5 (default 10). */
  readonly width?: number | undefined
  /** Rows including the wall border, ≥ 5 (default 10). */
  readonly height?: number | undefined
  /** Boxes (= goals), ≥ 1 (default 4). */
  readonly numBoxes?: number | undefined
  /** Random-walk steps carving the room (default `floor(1.7 × (width + height))`, gym-sokoban's `num_gen_steps`). */
  readonly walkSteps?: number | undefined
  /** Probability of a new random direction at each walk step (default 0.35). */
  readonly pChangeDirection?: number | undefined
  /** Depth limit of the reverse-play search (default 300, gym-sokoban's `ttl`). */
  readonly searchDepth?: number | undefined
  /** Distinct states the reverse-play search may visit (default 20,000). */
  readonly maxStates?: number | undefined
  /** Attempts before failing (default 16). */
  readonly maxAttempts?: number | undefined
  /** Id of the generated level (default `"generated"`). */
  readonly id?: string | undefined
}

/**
 * No acceptable level within `maxAttempts` attempts, or options that cannot produce one.
 * @category errors
 */
export class GenerationError extends Schema.TaggedError<GenerationError>()("GenerationError", {
  attempts: Schema.Number,
  reason: Schema.String
}) {
  override get message() {
    return `Sokoban level generation failed after ${this.attempts} attempt(s): ${this.reason}`
  }
}

// gym-sokoban's masks, row-major 3×3
const MASKS = [
  [0, 0, 0, 1, 1, 1, 0, 0, 0],
  [0, 1, 0, 0, 1, 0, 0, 1, 0],
  [0, 0, 0, 1, 1, 0, 0, 1, 0],
  [0, 0, 0, 1, 1, 0, 1, 1, 0],
  [0, 0, 0, 0, 1, 1, 0, 1, 0]
] as const
const DR = [1, 0, -1, 0] as const
const DC = [0, 1, 0, -1] as const

/** Reverse-play search state (mutated in place with undo). */
class ReversePlay {
  readonly boxAt: Int32Array // box id + 1, or 0
  readonly pos: Int32Array // box id → cell
  readonly origin: Int32Array // box id → its goal
  readonly off: Int32Array
  readonly explored = new Set<number>()
  readonly z1: Int32Array
  readonly z2: Int32Array
  bestScore = 0
  bestPlayer = -1
  readonly bestPos: Int32Array
  onGoal = 0

  constructor(
    readonly width: number,
    readonly floor: Uint8Array,
    readonly isGoal: Uint8Array,
    goals: ReadonlyArray<number>,
    public player: number,
    readonly maxStates: number,
    rng: Rng
  ) {
    const n = floor.length
    const k = goals.length
    this.boxAt = new Int32Array(n)
    this.pos = Int32Array.from(goals)
    this.origin = Int32Array.from(goals)
    this.bestPos = Int32Array.from(goals)
    for (let i = 0; i < k; i++) this.boxAt[goals[i]!] = i + 1
    this.onGoal = k
    this.off = Int32Array.of(-width, width, -1, 1)
    this.z1 = new Int32Array(2 * n)
    this.z2 = new Int32Array(2 * n)
    for (let i = 0; i < 2 * n; i++) {
      this.z1[i] = rng.nextUint32() | 0
      this.z2[i] = rng.nextUint32() | 0
    }
  }

  private key(): number {
    const n = this.floor.length
    let a = this.z1[n + this.player]!
    let b = this.z2[n + this.player]!
    for (let i = 0; i < this.pos.length; i++) {
      a ^= this.z1[this.pos[i]!]!
      b ^= this.z2[this.pos[i]!]!
    }
    return (a >>> 0) * 1048576 + (b & 0xfffff)
  }

  private score(swaps: number): number {
    if (this.onGoal > 0) return 0
    let d = 0
    for (let i = 0; i < this.pos.length; i++) {
      const p = this.pos[i]!
      const o = this.origin[i]!
      d += Math.abs(Math.floor(p / this.width) - Math.floor(o / this.width)) + Math.abs((p % this.width) - (o % this.width))
    }
    return swaps * d
  }

  search(swaps: number, lastPulled: number, ttl: number): void {
    if (ttl <= 0 || this.explored.size >= this.maxStates) return
    const key = this.key()
    if (this.explored.has(key)) return
    this.explored.add(key)
    const s = this.score(swaps)
    if (s > this.bestScore) {
      this.bestScore = s
      this.bestPlayer = this.player
      this.bestPos.set(this.pos)
    }
    const { off, floor, boxAt, isGoal, pos } = this
    for (let action = 0; action < 8; action++) {
      const o = off[action % 4]!
      const p = this.player
      const next = p + o
      if (floor[next] === 0 || boxAt[next] !== 0) continue
      this.player = next
      const behind = p - o
      const id = action < 4 ? boxAt[behind]! - 1 : -1
      if (id >= 0) {
        // pull the box behind the player onto the player's old cell
        boxAt[behind] = 0
        boxAt[p] = id + 1
        pos[id] = p
        this.onGoal += isGoal[p]! - isGoal[behind]!
        this.search(id === lastPulled ? swaps : swaps + 1, id, ttl - 1)
        boxAt[p] = 0
        boxAt[behind] = id + 1
        pos[id] = behind
        this.onGoal -= isGoal[p]! - isGoal[behind]!
      } else {
        this.search(swaps, lastPulled, ttl - 1)
      }
      this.player = p
    }
  }
}

const positive = (name: string, value: number, min: number): GenerationError | undefined =>
  Number.isInteger(value) && value >= min ? undefined : new GenerationError({ attempts: 0, reason: `${name} must be an integer ≥ ${min}, got ${value}` })

const attempt = (
  rng: Rng,
  width: number,
  height: number,
  numBoxes: number,
  walkSteps: number,
  pChange: number,
  searchDepth: number,
  maxStates: number,
  id: string
): Level | string => {
  const n = width * height
  const floor = new Uint8Array(n)
  // 1. topology
  let dir = rng.integers(4)
  let r = rng.integers(1, height - 1)
  let c = rng.integers(1, width - 1)
  for (let s = 0; s < walkSteps; s++) {
    if (rng.random() < pChange) dir = rng.integers(4)
    r = Math.max(Math.min(r + DR[dir]!, height - 2), 1)
    c = Math.max(Math.min(c + DC[dir]!, width - 2), 1)
    const mask = MASKS[rng.integers(MASKS.length)]!
    for (let i = 0; i < 9; i++) {
      if (mask[i] === 1) floor[(r - 1 + Math.floor(i / 3)) * width + (c - 1 + (i % 3))] = 1
    }
  }
  for (let x = 0; x < width; x++) floor[x] = floor[(height - 1) * width + x] = 0
  for (let y = 0; y < height; y++) floor[y * width] = floor[y * width + width - 1] = 0
  // 2. placement
  const free: Array<number> = []
  for (let i = 0; i < n; i++) if (floor[i] === 1) free.push(i)
  if (free.length <= numBoxes + 1) return `room has ${free.length} floor cells, needs more than ${numBoxes + 1}`
  const player = free.splice(rng.integers(free.length), 1)[0]!
  const goals: Array<number> = []
  for (let b = 0; b < numBoxes; b++) goals.push(free.splice(rng.integers(free.length), 1)[0]!)
  const isGoal = new Uint8Array(n)
  for (const g of goals) isGoal[g] = 1
  // 3. reverse play
  const play = new ReversePlay(width, floor, isGoal, goals, player, maxStates, rng)
  play.search(0, -1, searchDepth)
  if (play.bestScore <= 0) return "reverse play found no state with every box off its goal"
  const walls = new Uint8Array(n)
  for (let i = 0; i < n; i++) walls[i] = 1 - floor[i]!
  return {
    id,
    width,
    height,
    walls,
    goals: Int32Array.from(goals).sort(),
    boxes: Int32Array.from(play.bestPos).sort(),
    player: play.bestPlayer
  }
}

/**
 * Generate one solvable level, drawing from `rng` (advances it).
 *
 * @param rng - the generator (e.g. an environment's `npRandom`).
 * @param options - sizes and search limits, see {@link GenerateOptions}.
 * @returns a level of `height × width` cells with `numBoxes` boxes, none on a goal, the border all wall.
 * @throws GenerationError when the options are invalid (width/height < 5, numBoxes < 1, ...) or no attempt of
 *   `maxAttempts` succeeded. Never loops unboundedly: each attempt visits at most `maxStates` states.
 * @category generators
 */
export const generate = (rng: Rng, options: GenerateOptions = {}): Level => {
  const width = options.width ?? 10
  const height = options.height ?? 10
  const numBoxes = options.numBoxes ?? 4
  const walkSteps = options.walkSteps ?? Math.floor(1.7 * (width + height))
  const pChange = options.pChangeDirection ?? 0.35
  const searchDepth = options.searchDepth ?? 300
  const maxStates = options.maxStates ?? 20_000
  const maxAttempts = options.maxAttempts ?? 16
  const invalid = positive("width", width, 5) ?? positive("height", height, 5) ?? positive("numBoxes", numBoxes, 1) ??
    positive("walkSteps", walkSteps, 1) ?? positive("searchDepth", searchDepth, 1) ??
    positive("maxStates", maxStates, 1) ?? positive("maxAttempts", maxAttempts, 1) ??
    (pChange >= 0 && pChange <= 1
      ? undefined
      : new GenerationError({ attempts: 0, reason: `pChangeDirection must be in [0, 1], got ${pChange}` }))
  if (invalid !== undefined) throw invalid
  let reason = ""
  for (let a = 0; a < maxAttempts; a++) {
    const result = attempt(rng, width, height, numBoxes, walkSteps, pChange, searchDepth, maxStates, options.id ?? "generated")
    if (typeof result !== "string") return result
    reason = result
  }
  throw new GenerationError({ attempts: maxAttempts, reason })
}

/**
 * {@link generate} as an Effect, failing with {@link GenerationError}.
 * @category generators
 */
export const generateEffect = (rng: Rng, options: GenerateOptions = {}): Effect.Effect<Level, GenerationError> =>
  Effect.try({
    try: () => generate(rng, options),
    catch: (e) => (e instanceof GenerationError ? e : new GenerationError({ attempts: 0, reason: String(e) }))
  })

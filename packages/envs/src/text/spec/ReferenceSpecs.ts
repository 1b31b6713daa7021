/**
 * Two text environments re-expressed as {@link TextEnvSpec}s, each step-for-step equal to its hand-written twin under
 * the same seeds and commands (observations, rewards, terminated/truncated, `stateKey`): {@link frozenLakeSpec}
 * (`TextFrozenLake-v1` on a fixed map: the transition distributions are Gymnasium's table, `FrozenLake.transitionTable`,
 * sampled by the compiler with one draw per step as `categorical_sample`) and {@link sokobanSpec} (`Sokoban-6x6-1box-v0`:
 * levels from the same generator, gym-sokoban's push rule and rewards written as spec rules).
 *
 * They are references for writing specs and the tests of the compiler; the hand-written envs stay the fast path
 * (`bench/spec.ts` prints the ratio).
 * @since 0.3.0
 */
import { Schema } from "effect"
import * as FrozenLake from "../../toytext/FrozenLake.js"
import * as SokobanGenerator from "../../sokoban/SokobanGenerator.js"
import * as TextFrozenLake from "../TextFrozenLake.js"
import * as TextSokoban from "../TextSokoban.js"
import type { Outcomes, TextEnvSpec } from "./TextEnvSpec.js"

const Cell = Schema.Int.pipe(Schema.check(Schema.isGreaterThanOrEqualTo(0)))

/** A FrozenLake state: the map (rows of `S`/`F`/`H`/`G`) and the cell `row * ncol + col`. */
export const FrozenLakeState = Schema.Struct({ desc: Schema.Array(Schema.String), cell: Cell })
/** A FrozenLake state. */
export type FrozenLakeState = typeof FrozenLakeState.Type

/**
 * `TextFrozenLake-v1` on a fixed map as a spec (`desc`, or `mapName` "4x4" (default) / "8x8"; slippery by default).
 * @throws InvalidMapError for an invalid map.
 */
export const frozenLakeSpec = (
  options: { readonly desc?: ReadonlyArray<string>; readonly mapName?: "4x4" | "8x8"; readonly isSlippery?: boolean; readonly maxSteps?: number } = {}
): TextEnvSpec<FrozenLakeState> => {
  const desc = [...(options.desc ?? FrozenLake.MAPS[options.mapName ?? "4x4"]!)]
  const table = FrozenLake.transitionTable(desc, options.isSlippery ?? true)
  const ncol = desc[0]!.length
  const letter = (cell: number) => desc[Math.floor(cell / ncol)]![cell % ncol]!
  const starts: Array<number> = []
  for (let s = 0; s < table.length; s++) if (letter(s) === "S") starts.push(s)
  const state = (cell: number): FrozenLakeState => ({ desc, cell })
  return {
    id: "TextFrozenLake-spec-v1",
    rules: TextFrozenLake.SYSTEM_PROMPT,
    state: FrozenLakeState,
    // Gymnasium: one categorical draw over the start cells
    initial: () => starts.map((s) => [1 / starts.length, state(s)] as const),
    task: () => "reach the goal G without falling into a hole.",
    actions: TextFrozenLake.ACTION_NAMES,
    transition: (s, command): Outcomes<FrozenLakeState> =>
      table[s.cell]![TextFrozenLake.ACTION_NAMES.indexOf(command as typeof TextFrozenLake.ACTION_NAMES[number])]!.map(([p, next]) => [p, state(next)] as const),
    reward: (_s, _c, next) => (letter(next.cell) === "G" ? 1 : 0),
    terminated: (s) => letter(s.cell) === "G" || letter(s.cell) === "H",
    success: (s) => letter(s.cell) === "G",
    observe: (s) => TextFrozenLake.renderMap(desc, s.cell),
    resetPrefix: TextFrozenLake.LEGEND,
    stateKey: (s) => String(s.cell),
    maxSteps: options.maxSteps ?? 100,
    invalidActionPenalty: 0
  }
}

/** A Sokoban state: the room (walls 0/1 per cell, row-major), goal cells, box cells (sorted), the player's cell. */
export const SokobanState = Schema.Struct({
  width: Cell,
  height: Cell,
  walls: Schema.Array(Schema.Literals([0, 1])),
  goals: Schema.Array(Cell),
  boxes: Schema.Array(Cell),
  player: Cell
})
/** A Sokoban state. */
export type SokobanState = typeof SokobanState.Type

const DR = [-1, 1, 0, 0]
const DC = [0, 0, -1, 1]

const onGoals = (s: SokobanState): number => s.boxes.filter((b) => s.goals.includes(b)).length

/**
 * `Sokoban-6x6-1box-v0` as a spec: levels from `SokobanGenerator.generate(rng, { width: size, height: size, numBoxes })`
 * (the same draws as the hand-written env), the push rule (a box moves when the cell beyond it is free; never
 * pulled) and gym-sokoban's rewards (−0.1 per step, ±1 when a box enters or leaves a target, +10 when all are on).
 */
export const sokobanSpec = (options: { readonly size?: number; readonly numBoxes?: number; readonly maxSteps?: number } = {}): TextEnvSpec<SokobanState> => {
  const size = options.size ?? 6
  const numBoxes = options.numBoxes ?? 1
  return {
    id: "Sokoban-spec-v0",
    rules: TextSokoban.SYSTEM_PROMPT,
    state: SokobanState,
    initial: (rng) => {
      const level = SokobanGenerator.generate(rng, { width: size, height: size, numBoxes })
      return {
        width: level.width,
        height: level.height,
        walls: Array.from(level.walls, (w) => (w === 1 ? 1 : 0)),
        goals: Array.from(level.goals),
        boxes: Array.from(level.boxes),
        player: level.player
      }
    },
    task: () => (numBoxes === 1 ? "push the box onto the target." : `push all ${numBoxes} boxes onto the targets.`),
    actions: TextSokoban.ACTION_NAMES,
    transition: (s, command) => {
      const d = TextSokoban.ACTION_NAMES.indexOf(command as typeof TextSokoban.ACTION_NAMES[number])
      const r = Math.floor(s.player / s.width) + DR[d]!
      const c = (s.player % s.width) + DC[d]!
      if (r < 0 || r >= s.height || c < 0 || c >= s.width) return s
      const next = r * s.width + c
      if (s.boxes.includes(next)) {
        const r2 = r + DR[d]!
        const c2 = c + DC[d]!
        if (r2 < 0 || r2 >= s.height || c2 < 0 || c2 >= s.width) return s
        const beyond = r2 * s.width + c2
        if (s.walls[beyond] === 1 || s.boxes.includes(beyond)) return s
        return { ...s, boxes: s.boxes.map((b) => (b === next ? beyond : b)).sort((a, b) => a - b), player: next }
      }
      return s.walls[next] === 1 ? s : { ...s, player: next }
    },
    reward: (s, _c, next) => {
      const before = onGoals(s)
      const after = onGoals(next)
      return -0.1 + (after > before ? 1 : after < before ? -1 : 0) + (after === next.goals.length ? 10 : 0)
    },
    terminated: (s) => onGoals(s) === s.goals.length,
    success: (s) => onGoals(s) === s.goals.length,
    observe: (s) =>
      TextSokoban.renderGrid(s.width, s.height, (i) => {
        const goal = s.goals.includes(i)
        if (i === s.player) return goal ? 6 : 5
        if (s.walls[i] === 1) return 0
        if (s.boxes.includes(i)) return goal ? 3 : 4
        return goal ? 2 : 1
      }),
    resetPrefix: TextSokoban.LEGEND,
    stateKey: (s) => `${s.player}|${s.boxes.join(",")}`,
    maxSteps: options.maxSteps ?? 100,
    invalidActionPenalty: -0.1
  }
}

/**
 * `TextFrozenLake-v1`: FrozenLake as a text game in RAGEN's notation: the map as text and four named actions, with
 * exactly `FrozenLake-v1`'s dynamics (a {@link FrozenLake.FrozenLakeEnv} inside).
 *
 * **Details**
 * - Map: `desc`/`mapName` as `FrozenLake-v1` (default the 4x4 map, slippery), or `randomMap: { size, p }` for a new
 *   `generateRandomMap(size, p, seed)` at every reset, the seed drawn from `npRandom` (RAGEN draws a random map per
 *   episode: `size = 4`, `p = 0.8`).
 * - Observation: one row per line in RAGEN's symbols (`FrozenLakeEnvConfig.grid_lookup`): `P` player, `_` frozen
 *   (the start tile too), `O` hole, `G` goal, `X` player in a hole, `√` player on the goal. The reset observation is
 *   preceded by a one-line legend ({@link LEGEND}).
 * - Actions: `"Left"`, `"Down"`, `"Right"`, `"Up"` (FrozenLake's 0-3; RAGEN's `action_lookup` 1-4), matched ignoring
 *   case and surrounding whitespace; `admissibleActions()` is all four.
 * - Reward, termination, slipperiness: `FrozenLake-v1`'s (1 on reaching `G`, holes terminate with 0), seeded the same
 *   way, so a seeded episode with the same actions matches `FrozenLake-v1`'s. `truncated` after `maxSteps` (default
 *   100, `FrozenLake-v1`'s TimeLimit).
 * - Invalid action: `"penalize"` (default): no move, reward `invalidActionPenalty` (default 0), counted,
 *   `info.invalidAction = true`; `"error"`: `InvalidActionError`.
 * - `info`: `cell` (`row * ncol + col`), `prob`, `won`, `invalidAction`, `admissibleActions`, `offeredActions`.
 * - `stateKey()`: the cell index (with a random map, the map too, so cells of different maps differ).
 *
 * @see Wang et al., "RAGEN", arXiv:2504.20073 (`ragen/env/frozen_lake/config.py`)
 * @see https://github.com/Farama-Foundation/Gymnasium/blob/v1.4.0/gymnasium/envs/toy_text/frozen_lake.py
 * @category environments
 * @since 0.1.0
 */
import { InvalidOptionError, Rng } from "@autodidact/core"
import type { Info, ResetOptions, ResetResult } from "../Env.js"
import type { EnvSnapshot } from "../Snapshot.js"
import * as FrozenLake from "../toytext/FrozenLake.js"
import { type GridMove, GridTextEnv } from "./GridTextEnv.js"
import type { InvalidActionPolicy } from "./TextEnv.js"

/** Action names by FrozenLake action id (0 left, 1 down, 2 right, 3 up). */
export const ACTION_NAMES = ["Left", "Down", "Right", "Up"] as const
/** The legend that precedes the first observation. */
export const LEGEND = "Symbols: P player, _ frozen, O hole, G goal, X player in hole, √ player on goal."

/** Rules that open every conversation of {@link TextFrozenLake.toMessages}. */
export const SYSTEM_PROMPT =
  "You are walking on a frozen lake. Reach the goal G without falling into a hole O; the ice may be slippery, so " +
  `you may move sideways instead of the intended direction. ${LEGEND} Reply with one action: Left, Down, Right or Up.`

/** Options (also the registry kwargs). */
export interface TextFrozenLakeOptions {
  /** A fixed map (rows of `S`/`F`/`H`/`G`); overrides `mapName`. */
  readonly desc?: ReadonlyArray<string> | undefined
  /** `"4x4"` (default) or `"8x8"`. */
  readonly mapName?: "4x4" | "8x8" | undefined
  /** A new random map at every reset (RAGEN: `{ size: 4, p: 0.8 }`); overrides `desc`/`mapName`. */
  readonly randomMap?: { readonly size: number; readonly p: number } | undefined
  /** Default true. */
  readonly isSlippery?: boolean | undefined
  /** Steps after which `truncated` is set (default 100); `Infinity` disables. */
  readonly maxSteps?: number | undefined
  /** Default `"penalize"`. */
  readonly invalidActionPolicy?: InvalidActionPolicy | undefined
  /** Reward of an invalid action (default 0). */
  readonly invalidActionPenalty?: number | undefined
}

const ENV_ID = "TextFrozenLake-v1"

/**
 * The map with the player on `cell` in RAGEN's symbols, one row per line (see the module docs): `P` player, `_`
 * frozen (the start too), `O` hole, `G` goal, `X` player in a hole, `√` player on the goal.
 */
export const renderMap = (desc: ReadonlyArray<string>, cell: number): string => {
  const ncol = desc[0]!.length
  let out = ""
  for (let r = 0; r < desc.length; r++) {
    if (r > 0) out += "\n"
    for (let c = 0; c < ncol; c++) {
      const ch = desc[r]![c]!
      if (r * ncol + c === cell) out += ch === "H" ? "X" : ch === "G" ? "√" : "P"
      else out += ch === "H" ? "O" : ch === "G" ? "G" : "_"
    }
  }
  return out
}

/**
 * Text FrozenLake (`TextFrozenLake-v1`).
 * @throws InvalidOptionError / InvalidMapError from the constructor for bad options or maps.
 * @category environments
 */
export class TextFrozenLake extends GridTextEnv {
  /** "reach the goal G without falling into a hole." */
  readonly task = "reach the goal G without falling into a hole."
  private readonly options: TextFrozenLakeOptions
  /** The underlying `FrozenLakeEnv` (replaced at each reset when `randomMap` is set). */
  inner: FrozenLake.FrozenLakeEnv
  private rng: Rng | undefined = undefined

  /** @throws InvalidOptionError / InvalidMapError (see the class docs). */
  constructor(options: TextFrozenLakeOptions = {}) {
    super(ENV_ID, ACTION_NAMES, SYSTEM_PROMPT, options, { maxSteps: 100, invalidActionPenalty: 0 })
    const rm = options.randomMap
    if (rm !== undefined && (!Number.isInteger(rm.size) || rm.size < 2 || !(rm.p > 0 && rm.p <= 1))) {
      throw new InvalidOptionError({ option: "randomMap", value: rm, reason: "expected { size: integer >= 2, p in (0, 1] }" })
    }
    this.options = options
    this.inner = this.build(rm === undefined ? undefined : FrozenLake.generateRandomMap(rm.size, rm.p, 0))
  }

  private build(desc: ReadonlyArray<string> | undefined): FrozenLake.FrozenLakeEnv {
    const o = this.options
    return new FrozenLake.FrozenLakeEnv({
      ...(desc ?? o.desc) !== undefined ? { desc: desc ?? o.desc } : { mapName: o.mapName ?? "4x4" },
      isSlippery: o.isSlippery ?? true
    })
  }

  /** The generator: the inner env's for a fixed map; for random maps, the one that draws map seeds. */
  get npRandom(): Rng {
    if (this.options.randomMap === undefined) return this.inner.npRandom
    return (this.rng ??= Rng.fromEntropy())
  }

  protected text(): string {
    return renderMap(this.inner.desc, this.inner.s)
  }

  /**
   * Start an episode (on a new random map when `randomMap` is set).
   * @throws InvalidSeedError for a bad seed.
   */
  reset(options?: ResetOptions): ResetResult<string> {
    const rm = this.options.randomMap
    let r: ResetResult<number>
    if (rm !== undefined) {
      if (options?.seed !== undefined) this.rng = Rng.make(options.seed)
      const rng = this.npRandom
      this.inner = this.build(FrozenLake.generateRandomMap(rm.size, rm.p, rng.integers(0x7fffffff)))
      r = this.inner.reset({ seed: rng.integers(0x7fffffff) })
    } else {
      r = this.inner.reset(options?.seed === undefined ? {} : { seed: options.seed })
    }
    this.episode.begin()
    return { observation: `${LEGEND}\n${this.text()}`, info: { ...r.info, cell: r.observation, won: false, admissibleActions: ACTION_NAMES } }
  }

  protected move(index: number): GridMove {
    const r = this.inner.step(index)
    const won = this.inner.desc[Math.floor(r.observation / this.inner.ncol)]![r.observation % this.inner.ncol] === "G"
    return { reward: r.reward, terminated: r.terminated, info: { ...r.info, cell: r.observation, won, invalidAction: false } }
  }

  protected invalidInfo(): Info {
    return { cell: this.inner.s, won: false, invalidAction: true }
  }

  protected saveInner(): unknown {
    const saved: FrozenLakeSaved = {
      inner: this.inner,
      state: this.inner.snapshot(),
      mapRng: this.options.randomMap === undefined ? undefined : this.npRandom.clone()
    }
    return saved
  }

  protected restoreInner(saved: unknown): void {
    const s = saved as FrozenLakeSaved
    // with random maps `inner` is a new env per episode: the snapshot keeps the one it was taken on
    this.inner = s.inner
    this.inner.restore(s.state)
    if (s.mapRng !== undefined) this.rng = s.mapRng.clone()
  }

  /** The cell index, prefixed by the map rows when maps are random. "" before the first reset. */
  stateKey(): string {
    if (!this.episode.started) return ""
    return this.options.randomMap === undefined ? String(this.inner.s) : `${this.inner.desc.join("/")}|${this.inner.s}`
  }
}

interface FrozenLakeSaved {
  readonly inner: FrozenLake.FrozenLakeEnv
  readonly state: EnvSnapshot
  readonly mapRng: Rng | undefined
}

/**
 * Construct `TextFrozenLake-v1` (the registry's entry point).
 * @category constructors
 */
export const make = (options: TextFrozenLakeOptions = {}): TextFrozenLake => new TextFrozenLake(options)

/**
 * `TextHousehold-v0`: an ALFWorld-style household text game, procedurally generated from a seed: go to receptacles,
 * open them, take objects, clean/heat/cool them, turn on lamps and put things where the task says.
 *
 * **When to use**
 * - Multi-turn LLM-agent RL (GRPO/GiGPO groups: same seed and options give the same task) without a Python ALFWorld
 *   install; the command grammar, observation texts and task types follow ALFWorld so prompts transfer.
 * - Scripted-expert data: {@link TextHousehold.expertAction} gives the next command of a hand-coded expert that
 *   solves every task from any state (ALFWorld's `expert_plan`).
 *
 * **Details**
 * - One room per episode (ALFWorld's scenes are single rooms): kitchen, livingroom, bedroom or bathroom, with
 *   receptacles (`cabinet 1`, `countertop 1`, `drawer 3`, `fridge 1`, `microwave 1`, `sinkbasin 1`,
 *   `stoveburner 2`, `coffeemachine 1`, `desk 1`, `sidetable 1`, `dresser 1`, `shelf 2`, `bed 1`, `garbagecan 1`,
 *   ...; see `TextHouseholdWorld.RECEPTACLE_TYPES`). Openable ones (cabinet, drawer, fridge, microwave, safe) start
 *   closed. Objects (49 ALFRED types) are cleanable, heatable and/or coolable; `desklamp N` is a light source.
 * - Tasks: ALFWorld's six types with its two phrasings each: `pick_and_place_simple` ("put a mug in cabinet."),
 *   `look_at_obj_in_light` ("examine the book with the desklamp."), `pick_clean_then_place_in_recep` ("put a clean
 *   mug in coffeemachine."), `pick_heat_then_place_in_recep` ("put a hot apple in fridge."),
 *   `pick_cool_then_place_in_recep` ("put a cool tomato in microwave."), `pick_two_obj_and_place` ("put two
 *   cellphone in sofa."). Goals: an object of the type, in the state, in an instance of the receptacle type (two of
 *   them in the same instance for `pick_two`); for the lamp task, holding the object while a desk lamp at the agent's
 *   receptacle is on.
 * - Commands (ALFWorld's, current version): `look`, `inventory`, `go to R`, `open R`, `close R`, `take O from R`,
 *   `move O to R` (ALFWorld ≥ 0.3 spelling; older versions said `put O in/on R`), `heat O with microwave N`,
 *   `cool O with fridge N`, `clean O with sinkbasin N`, `use desklamp N`, `examine R`, `examine O`.
 *   Matching ignores case, surrounding whitespace and repeated spaces.
 * - `admissibleActions()`: every valid command in the current state, sorted (ALFWorld's `admissible_commands`):
 *   `go to` every receptacle but the current one; at a receptacle `examine` it, `open`/`close` it if openable,
 *   `take` each visible object (hand empty; the receptacle open or not openable), `move` the held object to it (if
 *   accessible), `heat`/`cool`/`clean` the held object (if it has the property) at a microwave/fridge/sinkbasin,
 *   `use` a lamp standing on it; `examine` the held object; `look`; `inventory`. The agent holds one object at most.
 * - Observations: ALFWorld's texts ("You arrive at fridge 1. The fridge 1 is closed.", "You pick up the mug 1 from
 *   the countertop 1.", "Nothing happens."). The first observation is the welcome banner, the room and
 *   "Your task is to: ...".
 * - Reward: 1 on the step that completes the task (`terminated`), else 0; an invalid action gets
 *   `invalidActionPenalty` (default 0: ALFWorld's reward is sparse; verl-agent adds its invalid-action penalty in the
 *   trainer). `truncated` after `maxSteps` steps (default 50, verl-agent's ALFWorld limit); invalid steps count.
 * - Invalid actions (`invalidActionPolicy`): `"penalize"` (default) answers "Nothing happens.", leaves the state,
 *   sets `info.invalidAction = true`; `"error"` throws `InvalidActionError`.
 * - `info` (reset and step): `task`, `taskType`, `won`, `admissibleActions` (valid in the new state), and on steps
 *   `invalidAction` and `offeredActions` (the list the action was checked against), which {@link toMessages} uses.
 * - Splits (`split`: `"train"` default, `"seen"`, `"unseen"`), see `TextHouseholdWorld`: `unseen` uses room layouts
 *   and (object, receptacle) goal pairs that never occur in `train`/`seen`; `seen` draws other task instances of the
 *   train distribution (ALFWorld's `valid_seen`).
 * - Seeding: `reset({ seed })` re-seeds `npRandom`; the task comes from `Rng.make([salt, split, k])` with
 *   `k = options.taskIndex` when given (task `k` of the split, independent of the seed) else one draw of `npRandom`.
 *   Same seed and options: identical task, state, observation and admissible actions.
 * - `stateKey()`: `location|held|open flags|per object: location and clean/hot/cool bits|lamp flags` (the whole
 *   dynamic state; the layout is fixed per task), equal for equal states reached by different paths.
 * - Difficulty: `difficulty: "default"` draws each receptacle type's count from its room template (about 10-25
 *   receptacles, ALFWorld scenes have 10-30) with `numDistractors` (default 12) extra objects; `"easy"` keeps one of
 *   each required receptacle type (about 6-9) and `numDistractors` defaults to 3; `"hard"` is a house of
 *   `HARD_ROOMS` (4) rooms of different types in a row, each furnished as `"default"` (about 40-90 receptacles in all),
 *   joined by doorways: `go to R` reaches the receptacles of the current room, `go to <room>` walks through a doorway
 *   into a neighbouring room (its middle); the agent starts at the end of the row farther from the task objects, which
 *   start outside the rooms of the goal receptacle and appliance the expert uses (its type's first instance) and, like
 *   the other objects, mostly inside closed receptacles (`HARD_HIDDEN`); 16 distractors by default. The scripted
 *   expert needs 2.0× the default's mean steps on the same task indices (12.35 vs 6.07 on train, 12.59 vs 6.17 on
 *   unseen; tested) and still solves every task; a random policy meets the 50-step limit. Splits as above: every
 *   room's layout is of the split. `stateKey()` is prefixed by the room (`room:location|...`). `houseRooms` (1 to 4,
 *   per reset too) is a ladder for curricula: the expert's mean steps on 40 unseen tasks are 7.1, 9.2, 10.8 and 12.7
 *   for 1 to 4 rooms; `numDistractors` can also be set per reset, and so can `difficulty` itself (an env built
 *   `"default"` can play an `"easy"` room or a `"hard"` house in one episode and back): together a ladder from a small
 *   room to the full house for curricula (optim `TextTasks.Setup.ladder`).
 *
 * **Gotchas** (differences from ALFWorld/TextWorld)
 * - Procedurally generated scenes instead of ALFRED's 120 AI2-THOR scenes and 3,553 PDDL problems; object and
 *   receptacle catalogues are ALFRED's names but placement rules are simplified (class-based acceptance lists).
 * - ALFWorld's scenes are single rooms; the `"hard"` house, its doorways and `go to <room>` are this env's own.
 * - No `slice`, no `floorlamp`, no `help`; `heat`/`cool` need not open the appliance; an object can be moved into any
 *   accessible receptacle; `examine O` reveals the clean/hot/cool state; receptacles are listed in catalogue order,
 *   not ALFWorld's scene order; observations use "a" before every name as ALFWorld does ("a apple 1").
 * - `make` wraps the env (`Checked`, `TimeLimit(50)`), hiding `admissibleActions`/`stateKey`/`toMessages`: use
 *   `env.unwrapped` (an instance of {@link TextHousehold}) or `info.admissibleActions`. The action space is
 *   `Text(256)` over printable ASCII, so `Checked` throws on non-ASCII commands before the env sees them.
 *
 * @example
 * ```ts
 * import { TextHousehold } from "@autodidact/envs"
 * const env = new TextHousehold.TextHousehold({ split: "train" })
 * const { observation } = env.reset({ seed: 0 })
 * let r = env.step(env.expertAction())
 * while (!r.terminated && !r.truncated) r = env.step(env.expertAction())
 * r.reward // 1
 * ```
 * @see Shridhar et al., "ALFWorld: Aligning Text and Embodied Environments for Interactive Learning", arXiv:2010.03768
 * @see https://github.com/alfworld/alfworld (TextWorld PDDL game logic and grammar, `alfred.twl2`/`alfred.twg`)
 * @see Feng et al., "Group-in-Group Policy Optimization for LLM Agent Training", arXiv:2505.10978 (verl-agent setup)
 * @category environments
 * @since 0.1.0
 */
import { InvalidActionError, InvalidOptionError, ResetNeededError, Rng, Space } from "@autodidact/core"
import type { Trajectory } from "@autodidact/core"
import type { EnvSpec, Info, Metadata, ResetOptions, ResetResult, StepResult } from "../Env.js"
import { type EnvSnapshot, OwnedSnapshot, ownPayload, type Restorable } from "../Snapshot.js"
import { type ChatMessage, type InvalidActionPolicy, TEXT_CHARSET, type TextEnv, textMessages } from "./TextEnv.js"
import { TextEpisode, textEpisodeSettings } from "./TextEpisode.js"
import * as World from "./TextHouseholdWorld.js"

export type { Difficulty, Split, TaskType } from "./TextHouseholdWorld.js"
export { SPLITS, TASK_TYPES, TaskGenerationError } from "./TextHouseholdWorld.js"
/** Re-exported from `TextEnv`, their home since 0.2.0 (the text envs share them). */
export { TEXT_CHARSET, textMessages } from "./TextEnv.js"


/** Constructor options (also the registry kwargs). */
export interface TextHouseholdOptions {
  /** `"train"` (default), `"seen"` or `"unseen"`; overridable per reset with `options.split`. */
  readonly split?: World.Split | undefined
  /** `"default"` (ALFWorld-sized rooms) or `"easy"` (small rooms, few distractors). */
  readonly difficulty?: World.Difficulty | undefined
  /** Extra objects besides the task objects, integer in [0, 200] (default 12, 3 when easy, 16 when hard); overridable per reset with `options.numDistractors`. */
  readonly numDistractors?: number | undefined
  /**
   * `"hard"` only: rooms of the house, integer in [1, `HARD_ROOMS`] (default `HARD_ROOMS`, 4); overridable per reset
   * with `options.houseRooms` (a difficulty ladder for curricula such as EnvGen's).
   */
  readonly houseRooms?: number | undefined
  /** Restrict the task types (default all six). */
  readonly taskTypes?: ReadonlyArray<World.TaskType> | undefined
  /** Steps after which `truncated` is set (default 50); `Infinity` disables. */
  readonly maxSteps?: number | undefined
  /** Default `"penalize"`. */
  readonly invalidActionPolicy?: InvalidActionPolicy | undefined
  /** Reward of an invalid action under `"penalize"` (default 0). */
  readonly invalidActionPenalty?: number | undefined
}

const ENV_ID = "TextHousehold-v0"
const SPLIT_CODE: Record<World.Split, number> = { train: 0, seen: 1, unseen: 2 }
const TASK_SALT = 0x484f4d45

const checkDistractors = (option: string, value: unknown): number => {
  if (!(typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= 200)) {
    throw new InvalidOptionError({ option, value, reason: "expected an integer in [0, 200]" })
  }
  return value
}

/** Distractor objects of a difficulty when none are given: 3 easy, 12 default, 16 hard. */
const defaultDistractors = (difficulty: World.Difficulty): number => (difficulty === "easy" ? 3 : difficulty === "hard" ? 16 : 12)

/** A per-reset `options.difficulty`: one of the three (a room-size and house ladder for curricula). */
const checkResetDifficulty = (value: unknown): World.Difficulty => {
  if (value !== "easy" && value !== "default" && value !== "hard") {
    throw new InvalidOptionError({ option: "options.difficulty", value, reason: 'expected "easy", "default" or "hard"' })
  }
  return value
}

const checkHouseRooms = (option: string, value: unknown, difficulty: World.Difficulty): number | undefined => {
  if (value === undefined) return undefined
  if (difficulty !== "hard") throw new InvalidOptionError({ option, value, reason: `applies to difficulty "hard" only (this ${option.startsWith("options.") ? "episode" : "env"} is "${difficulty}")` })
  if (!(typeof value === "number" && Number.isInteger(value) && value >= 1 && value <= World.HARD_ROOMS)) {
    throw new InvalidOptionError({ option, value, reason: `expected an integer in [1, ${World.HARD_ROOMS}]` })
  }
  return value
}

// operation codes of admissible commands
const LOOK = 0
const INVENTORY = 1
const GOTO = 2
const OPEN = 3
const CLOSE = 4
const TAKE = 5
const MOVE = 6
const HEAT = 7
const COOL = 8
const CLEAN = 9
const USE = 10
const EXAMINE_R = 11
const EXAMINE_O = 12
const GOTO_ROOM = 13

// object state bits
const CLEAN_BIT = 1
const HOT_BIT = 2
const COOL_BIT = 4

const MICROWAVE = World.receptacleTypeIndex("microwave")
const FRIDGE = World.receptacleTypeIndex("fridge")
const SINK = World.receptacleTypeIndex("sinkbasin")

/** ALFWorld-style instructions that open every conversation of {@link TextHousehold.toMessages}. */
export const SYSTEM_PROMPT =
  "You are an expert agent operating in the ALFRED embodied household environment. " +
  "At each turn you see what happened and the list of admissible actions; reply with exactly one of the admissible actions."

const normalize = (action: string): string => action.trim().toLowerCase().replace(/\s+/g, " ")

/** "a X", "a X, and a Y", "a X, a Y, and a Z" (ALFWorld's listing, "a" before every name), or "nothing". */
const listing = (names: ReadonlyArray<string>): string => {
  if (names.length === 0) return "nothing"
  if (names.length === 1) return `a ${names[0]}`
  let s = ""
  for (let i = 0; i < names.length - 1; i++) s += `a ${names[i]}, `
  return `${s}and a ${names[names.length - 1]}`
}

/**
 * The household environment (`TextHousehold-v0`).
 * @throws InvalidOptionError from the constructor for an unknown split, difficulty, task type, policy, or a bad
 *   `numDistractors`/`maxSteps`/`invalidActionPenalty`.
 * @category environments
 */
export class TextHousehold implements TextEnv, Restorable {
  /** `Text(1..16384)` over printable ASCII and newline. */
  readonly observationSpace: Space.Text = Space.text(16384, { minLength: 1, charset: TEXT_CHARSET })
  /** `Text(0..256)` over printable ASCII and newline (a command). */
  readonly actionSpace: Space.Text = Space.text(256, { minLength: 0, charset: TEXT_CHARSET })
  /** ANSI rendering. */
  readonly metadata: Metadata = { renderModes: ["ansi"] }
  /** Set by `make`. */
  spec: EnvSpec | undefined = undefined
  /** Steps after which `truncated` is set (default 50; `Infinity`: never). */
  readonly maxSteps: number
  /** What a non-admissible command does (default `"penalize"`). */
  readonly invalidActionPolicy: InvalidActionPolicy
  /** Reward of a non-admissible command under `"penalize"` (default 0). */
  readonly invalidActionPenalty: number

  private readonly options: World.GenerateOptions
  private rng: Rng | undefined = undefined
  private w: World.World | undefined = undefined
  /** Object indices sorted by name (listing order). */
  private objOrder: Array<number> = []
  private isOpen = new Uint8Array(0)
  private objLoc = new Int16Array(0)
  private objState = new Uint8Array(0)
  private loc = -1
  /** The room the agent is in (index into `w.house.rooms`; always 0 without a house). */
  private room = 0
  private held = -1
  private readonly episode: TextEpisode
  private isWon = false
  // admissible-command cache
  private cache: Array<string> | undefined = undefined
  private cacheOp: Array<number> = []
  private cacheA: Array<number> = []
  private cacheB: Array<number> = []

  /** @throws InvalidOptionError (see the class docs). */
  constructor(options: TextHouseholdOptions = {}) {
    const split = options.split ?? "train"
    if (!World.SPLITS.includes(split)) {
      throw new InvalidOptionError({ option: "split", value: split, reason: 'expected "train", "seen" or "unseen"' })
    }
    const difficulty = options.difficulty ?? "default"
    if (difficulty !== "default" && difficulty !== "easy" && difficulty !== "hard") {
      throw new InvalidOptionError({ option: "difficulty", value: difficulty, reason: 'expected "default", "easy" or "hard"' })
    }
    const numDistractors = checkDistractors("numDistractors", options.numDistractors ?? defaultDistractors(difficulty))
    const houseRooms = checkHouseRooms("houseRooms", options.houseRooms, difficulty)
    const taskTypes = options.taskTypes
    if (taskTypes !== undefined && (taskTypes.length === 0 || taskTypes.some((t) => !World.TASK_TYPES.includes(t)))) {
      throw new InvalidOptionError({ option: "taskTypes", value: taskTypes, reason: `expected a non-empty subset of ${World.TASK_TYPES.join(", ")}` })
    }
    const settings = textEpisodeSettings(options, { maxSteps: 50, invalidActionPenalty: 0 })
    this.options = { split, difficulty, numDistractors, taskTypes, houseRooms }
    this.maxSteps = settings.maxSteps
    this.invalidActionPolicy = settings.invalidActionPolicy
    this.invalidActionPenalty = settings.invalidActionPenalty
    this.episode = new TextEpisode(ENV_ID, settings.maxSteps)
  }

  /** The environment's generator; seeded from entropy on first use when no reset seeded it. */
  get npRandom(): Rng {
    return (this.rng ??= Rng.fromEntropy())
  }

  /** This env (it wraps nothing). */
  get unwrapped(): TextHousehold {
    return this
  }

  /** The current episode's generated world (layout, task, initial placement); undefined before the first reset. */
  get world(): World.World | undefined {
    return this.w
  }

  /** The goal in words ("put a clean mug in coffeemachine."); "" before the first reset. */
  get task(): string {
    return this.w?.task ?? ""
  }

  /** Whether the task has been completed in this episode. */
  get won(): boolean {
    return this.isWon
  }

  /** Steps taken in this episode. */
  get elapsedSteps(): number {
    return this.episode.steps
  }

  /**
   * Start an episode. `options`: `split` (overrides the constructor's), `taskIndex` (integer ≥ 0: task `k` of the
   * split, independent of the seed), `taskTypes`, `numDistractors`, `difficulty` (`"easy"`, `"default"` or
   * `"hard"`: this episode's room size or house, with that difficulty's distractors and rooms unless `numDistractors`
   * / `houseRooms` are given; a ladder for curricula such as EnvGen's) and (hard episodes only) `houseRooms`, each
   * overriding the constructor's for this episode.
   * @throws InvalidOptionError for a bad split/taskIndex/taskTypes/numDistractors/difficulty/houseRooms; InvalidSeedError for a bad seed.
   */
  reset(options?: ResetOptions): ResetResult<string> {
    if (options?.seed !== undefined) this.rng = Rng.make(options.seed)
    const o = options?.options ?? {}
    const split = (o["split"] as World.Split | undefined) ?? this.options.split
    if (!World.SPLITS.includes(split)) {
      throw new InvalidOptionError({ option: "options.split", value: split, reason: 'expected "train", "seen" or "unseen"' })
    }
    const taskIndex = o["taskIndex"]
    if (taskIndex !== undefined && !(Number.isInteger(taskIndex) && (taskIndex as number) >= 0 && (taskIndex as number) <= 0xffffffff)) {
      throw new InvalidOptionError({ option: "options.taskIndex", value: taskIndex, reason: "expected an integer in [0, 2^32)" })
    }
    const taskTypes = (o["taskTypes"] as ReadonlyArray<World.TaskType> | undefined) ?? this.options.taskTypes
    if (taskTypes !== undefined && (!Array.isArray(taskTypes) || taskTypes.length === 0 || taskTypes.some((t) => !World.TASK_TYPES.includes(t)))) {
      throw new InvalidOptionError({ option: "options.taskTypes", value: taskTypes, reason: "expected a non-empty subset of the six task types" })
    }
    const k = taskIndex === undefined ? this.npRandom.integers(0x7fffffff) : (taskIndex as number)
    const gen = Rng.make([TASK_SALT, SPLIT_CODE[split], k])
    const difficulty = o["difficulty"] === undefined ? this.options.difficulty : checkResetDifficulty(o["difficulty"])
    const own = difficulty === this.options.difficulty // the constructor's distractors and rooms apply
    const numDistractors = o["numDistractors"] !== undefined
      ? checkDistractors("options.numDistractors", o["numDistractors"])
      : own ? this.options.numDistractors : defaultDistractors(difficulty)
    const houseRooms = o["houseRooms"] !== undefined
      ? checkHouseRooms("options.houseRooms", o["houseRooms"], difficulty)
      : own ? this.options.houseRooms : undefined
    const w = World.generate(gen, { ...this.options, difficulty, split, taskTypes, numDistractors, houseRooms }, Rng.make)
    this.w = w
    const nObj = w.objectNames.length
    this.objOrder = Array.from({ length: nObj }, (_, i) => i).sort((a, b) => {
      const x = w.objectNames[a]!
      const y = w.objectNames[b]!
      return x < y ? -1 : x > y ? 1 : 0
    })
    this.isOpen = new Uint8Array(w.receptacleNames.length)
    this.objLoc = Int16Array.from(w.objectLocations)
    this.objState = new Uint8Array(nObj)
    this.loc = -1
    this.room = w.house?.start ?? 0
    this.held = -1
    this.episode.begin()
    this.isWon = false
    this.cache = undefined
    const observation = `-= Welcome to TextWorld, ALFRED! =-\n\n${this.roomText()}\n\nYour task is to: ${w.task}`
    return {
      observation,
      info: { task: w.task, taskType: w.taskType, split, won: false, admissibleActions: this.admissibleActions() }
    }
  }

  private roomText(): string {
    const w = this.w!
    const house = w.house
    if (house === undefined) return `You are in the middle of a room. Looking quickly around you, you see ${listing(w.receptacleNames)}.`
    const here = w.receptacleNames.filter((_, r) => house.receptacleRooms[r] === this.room)
    const doors = this.adjacentRooms().map((j) => `doorway to the ${house.rooms[j]}`)
    return `You are in the middle of the ${house.rooms[this.room]}. Looking quickly around you, you see ${listing([...here, ...doors])}.`
  }

  /** Rooms sharing a doorway with the current one (the row's neighbours), in row order. */
  private adjacentRooms(): Array<number> {
    const n = this.w!.house?.rooms.length ?? 1
    return [this.room - 1, this.room + 1].filter((j) => j >= 0 && j < n)
  }

  /** Whether receptacle `r` is in the current room (always, without a house). */
  private inRoom(r: number): boolean {
    const house = this.w!.house
    return house === undefined || house.receptacleRooms[r] === this.room
  }

  private accessible(r: number): boolean {
    return !World.RECEPTACLE_TYPES[this.w!.receptacleTypes[r]!]!.openable || this.isOpen[r] === 1
  }

  private contents(r: number): Array<string> {
    const out: Array<string> = []
    const order = this.objOrder
    for (let i = 0; i < order.length; i++) if (this.objLoc[order[i]!] === r) out.push(this.w!.objectNames[order[i]!]!)
    return out
  }

  private describe(r: number): string {
    const name = this.w!.receptacleNames[r]!
    if (World.RECEPTACLE_TYPES[this.w!.receptacleTypes[r]!]!.openable) {
      if (this.isOpen[r] === 0) return `The ${name} is closed.`
      return `The ${name} is open. In it, you see ${listing(this.contents(r))}.`
    }
    return `On the ${name}, you see ${listing(this.contents(r))}.`
  }

  /** Valid commands in the current state, sorted; cached until the state changes (do not mutate). */
  admissibleActions(): ReadonlyArray<string> {
    if (this.cache !== undefined) return this.cache
    const w = this.w
    if (w === undefined) return []
    const acts: Array<string> = []
    const ops: Array<number> = []
    const as: Array<number> = []
    const bs: Array<number> = []
    const add = (s: string, op: number, a: number, b: number) => {
      acts.push(s)
      ops.push(op)
      as.push(a)
      bs.push(b)
    }
    add("look", LOOK, -1, -1)
    add("inventory", INVENTORY, -1, -1)
    const names = w.receptacleNames
    for (let r = 0; r < names.length; r++) if (r !== this.loc && this.inRoom(r)) add(`go to ${names[r]}`, GOTO, r, -1)
    if (w.house !== undefined) for (const j of this.adjacentRooms()) add(`go to ${w.house.rooms[j]}`, GOTO_ROOM, j, -1)
    const h = this.held
    if (h >= 0) add(`examine ${w.objectNames[h]}`, EXAMINE_O, h, -1)
    const r = this.loc
    if (r >= 0) {
      const rn = names[r]!
      const rt = w.receptacleTypes[r]!
      add(`examine ${rn}`, EXAMINE_R, r, -1)
      if (World.RECEPTACLE_TYPES[rt]!.openable) {
        if (this.isOpen[r] === 0) add(`open ${rn}`, OPEN, r, -1)
        else add(`close ${rn}`, CLOSE, r, -1)
      }
      const acc = this.accessible(r)
      for (let o = 0; o < this.objLoc.length; o++) {
        if (this.objLoc[o] !== r) continue
        const ot = w.objectTypes[o]!
        if (ot < 0) add(`use ${w.objectNames[o]}`, USE, o, r)
        else if (h < 0 && acc) add(`take ${w.objectNames[o]} from ${rn}`, TAKE, o, r)
      }
      if (h >= 0) {
        const hn = w.objectNames[h]!
        if (acc) add(`move ${hn} to ${rn}`, MOVE, h, r)
        const ht = World.OBJECT_TYPES[w.objectTypes[h]!]!
        if (rt === MICROWAVE && ht.heatable) add(`heat ${hn} with ${rn}`, HEAT, h, r)
        if (rt === FRIDGE && ht.coolable) add(`cool ${hn} with ${rn}`, COOL, h, r)
        if (rt === SINK && ht.cleanable) add(`clean ${hn} with ${rn}`, CLEAN, h, r)
      }
    }
    const idx = Array.from({ length: acts.length }, (_, i) => i).sort((x, y) => (acts[x]! < acts[y]! ? -1 : acts[x]! > acts[y]! ? 1 : 0))
    this.cache = idx.map((i) => acts[i]!)
    this.cacheOp = idx.map((i) => ops[i]!)
    this.cacheA = idx.map((i) => as[i]!)
    this.cacheB = idx.map((i) => bs[i]!)
    return this.cache
  }

  /**
   * Execute one command (see the module docs for the grammar).
   * @throws ResetNeededError before `reset` or after the episode ended; InvalidActionError for a non-string action,
   *   or a non-admissible one under `invalidActionPolicy: "error"`.
   */
  step(action: string): StepResult<string> {
    this.episode.assertRunning()
    if (typeof action !== "string") throw new InvalidActionError({ envId: ENV_ID, action, space: "Text (a command)" })
    const offered = this.admissibleActions()
    const cmd = normalize(action)
    let i = -1
    for (let j = 0; j < offered.length; j++) {
      if (offered[j] === cmd) {
        i = j
        break
      }
    }
    if (i < 0 && this.invalidActionPolicy === "error") {
      throw new InvalidActionError({ envId: ENV_ID, action, space: `admissible commands: ${offered.join(" | ")}` })
    }
    let observation: string
    let reward = 0
    if (i < 0) {
      observation = "Nothing happens."
      reward = this.invalidActionPenalty
    } else {
      observation = this.apply(this.cacheOp[i]!, this.cacheA[i]!, this.cacheB[i]!)
      if (this.checkGoal()) {
        this.isWon = true
        reward = 1
      }
    }
    const terminated = this.isWon
    const truncated = this.episode.advance(terminated)
    const info: Info = {
      task: this.w!.task,
      taskType: this.w!.taskType,
      won: this.isWon,
      invalidAction: i < 0,
      offeredActions: offered,
      admissibleActions: this.admissibleActions()
    }
    return { observation, reward, terminated, truncated, info }
  }

  private apply(op: number, a: number, b: number): string {
    const w = this.w!
    switch (op) {
      case LOOK:
        return this.loc < 0 ? this.roomText() : `You are facing the ${w.receptacleNames[this.loc]}. Next to it, you see nothing.`
      case INVENTORY:
        return this.held < 0 ? "You are not carrying anything." : `You are carrying: a ${w.objectNames[this.held]}.`
      case GOTO:
        this.loc = a
        this.cache = undefined
        return `You arrive at ${w.receptacleNames[a]}. ${this.describe(a)}`
      case GOTO_ROOM:
        this.room = a
        this.loc = -1
        this.cache = undefined
        return `You walk through the doorway into the ${w.house!.rooms[a]}. ${this.roomText()}`
      case OPEN:
        this.isOpen[a] = 1
        this.cache = undefined
        return `You open the ${w.receptacleNames[a]}. ${this.describe(a)}`
      case CLOSE:
        this.isOpen[a] = 0
        this.cache = undefined
        return `You close the ${w.receptacleNames[a]}.`
      case TAKE:
        this.objLoc[a] = -1
        this.held = a
        this.cache = undefined
        return `You pick up the ${w.objectNames[a]} from the ${w.receptacleNames[b]}.`
      case MOVE:
        this.objLoc[a] = b
        this.held = -1
        this.cache = undefined
        return `You move the ${w.objectNames[a]} to the ${w.receptacleNames[b]}.`
      case HEAT:
        this.objState[a] = (this.objState[a]! & ~COOL_BIT) | HOT_BIT
        return `You heat the ${w.objectNames[a]} using the ${w.receptacleNames[b]}.`
      case COOL:
        this.objState[a] = (this.objState[a]! & ~HOT_BIT) | COOL_BIT
        return `You cool the ${w.objectNames[a]} using the ${w.receptacleNames[b]}.`
      case CLEAN:
        this.objState[a] = this.objState[a]! | CLEAN_BIT
        return `You clean the ${w.objectNames[a]} using the ${w.receptacleNames[b]}.`
      case USE:
        this.objState[a] = this.objState[a]! ^ 1
        return `You turn ${this.objState[a] === 1 ? "on" : "off"} the ${w.objectNames[a]}.`
      case EXAMINE_R:
        return this.describe(a)
      default: {
        const s = this.objState[a]!
        const adj = [s & CLEAN_BIT ? "clean" : "", s & HOT_BIT ? "hot" : "", s & COOL_BIT ? "cool" : ""].filter((x) => x !== "")
        return adj.length === 0 ? `There's nothing special about ${w.objectNames[a]}.` : `This is a ${adj.join(", ")} ${w.objectNames[a]}.`
      }
    }
  }

  private requiredBit(): number {
    const t = this.w!.taskType
    return t === "pick_clean_then_place_in_recep" ? CLEAN_BIT
      : t === "pick_heat_then_place_in_recep" ? HOT_BIT
      : t === "pick_cool_then_place_in_recep" ? COOL_BIT
      : 0
  }

  private goalTypeIndex(): number {
    return World.objectTypeIndex(this.w!.goalObject)
  }

  /** Whether the goal holds in the current state. */
  private checkGoal(): boolean {
    const w = this.w!
    const gt = this.goalTypeIndex()
    if (w.taskType === "look_at_obj_in_light") {
      if (this.held < 0 || w.objectTypes[this.held] !== gt || this.loc < 0) return false
      for (let o = 0; o < this.objLoc.length; o++) {
        if (w.objectTypes[o] === -1 && this.objLoc[o] === this.loc && this.objState[o] === 1) return true
      }
      return false
    }
    const rt = World.receptacleTypeIndex(w.goalReceptacle)
    const bit = this.requiredBit()
    const need = w.taskType === "pick_two_obj_and_place" ? 2 : 1
    const counts = new Map<number, number>()
    for (let o = 0; o < this.objLoc.length; o++) {
      const r = this.objLoc[o]!
      if (r < 0 || w.objectTypes[o] !== gt || w.receptacleTypes[r] !== rt) continue
      if ((this.objState[o]! & bit) !== bit) continue
      const c = (counts.get(r) ?? 0) + 1
      if (c >= need) return true
      counts.set(r, c)
    }
    return false
  }

  /**
   * The full dynamic state as a string: `location|held|open flags|object locations and state bits`; equal states
   * give equal keys whatever the path. "" before the first reset.
   */
  stateKey(): string {
    if (this.w === undefined) return ""
    let s = this.w.house === undefined ? `${this.loc}|${this.held}|` : `${this.room}:${this.loc}|${this.held}|`
    for (let r = 0; r < this.isOpen.length; r++) s += this.isOpen[r] === 1 ? "1" : "0"
    s += "|"
    for (let o = 0; o < this.objLoc.length; o++) s += `${this.objLoc[o]}.${this.objState[o]},`
    return s
  }

  /**
   * The next command of a hand-coded expert that completes the task from the current state (ALFWorld's
   * `expert_plan`): fetch a goal object (opening receptacles on the way), clean/heat/cool it at the appliance when the
   * task asks, then go to the goal receptacle (the first instance of its type) and move it there, or turn on the lamp
   * while holding it. Always an admissible command.
   * @throws ResetNeededError before the first reset.
   */
  expertAction(): string {
    const w = this.w
    if (w === undefined) throw new ResetNeededError({ envId: ENV_ID, reason: "expertAction before reset" })
    const gt = this.goalTypeIndex()
    const names = w.receptacleNames
    const house = w.house
    const goTo = (r: number): string => {
      if (house === undefined || house.receptacleRooms[r] === this.room) return `go to ${names[r]}`
      // one doorway toward the receptacle's room (rooms are in a row)
      return `go to ${house.rooms[house.receptacleRooms[r]! < this.room ? this.room - 1 : this.room + 1]}`
    }
    const takeFrom = (o: number): string => {
      const r = this.objLoc[o]!
      if (this.loc !== r) return goTo(r)
      if (!this.accessible(r)) return `open ${names[r]}`
      return `take ${w.objectNames[o]} from ${names[r]}`
    }
    const putIn = (r: number): string => {
      if (this.loc !== r) return goTo(r)
      if (!this.accessible(r)) return `open ${names[r]}`
      return `move ${w.objectNames[this.held]} to ${names[r]}`
    }
    const firstOfType = (ti: number): number => w.receptacleTypes.indexOf(ti)
    // drop a non-goal object first
    if (this.held >= 0 && w.objectTypes[this.held] !== gt) {
      let r = this.loc
      if (r < 0) for (r = 0; !this.inRoom(r); r++);
      return putIn(r)
    }
    if (w.taskType === "look_at_obj_in_light") {
      if (this.held < 0) {
        let o = 0
        while (w.objectTypes[o] !== gt) o++
        return takeFrom(o)
      }
      let lamp = 0
      while (w.objectTypes[lamp] !== -1) lamp++
      if (this.loc !== this.objLoc[lamp]) return goTo(this.objLoc[lamp]!)
      return `use ${w.objectNames[lamp]}`
    }
    const bit = this.requiredBit()
    const target = firstOfType(World.receptacleTypeIndex(w.goalReceptacle))
    if (this.held < 0) {
      // a goal object not already done (in the target with the required state)
      let pick = -1
      for (let o = 0; o < this.objLoc.length; o++) {
        if (w.objectTypes[o] !== gt) continue
        if (this.objLoc[o] === target && (this.objState[o]! & bit) === bit) continue
        pick = o
        break
      }
      return takeFrom(pick)
    }
    const h = this.held
    if ((this.objState[h]! & bit) !== bit) {
      const appliance = firstOfType(bit === CLEAN_BIT ? SINK : bit === HOT_BIT ? MICROWAVE : FRIDGE)
      if (this.loc !== appliance) return goTo(appliance)
      return `${bit === CLEAN_BIT ? "clean" : bit === HOT_BIT ? "heat" : "cool"} ${w.objectNames[h]} with ${names[appliance]}`
    }
    return putIn(target)
  }

  /** The state as text: task, location, inventory, and every receptacle with its contents; undefined before reset. */
  render(): string | undefined {
    const w = this.w
    if (w === undefined) return undefined
    const lines = [
      `Task: ${w.task} (${w.taskType}, ${w.room}, split ${w.split})`,
      `Location: ${w.house === undefined ? "" : `${w.house.rooms[this.room]}, `}${this.loc < 0 ? "middle of the room" : w.receptacleNames[this.loc]}; holding: ${this.held < 0 ? "nothing" : w.objectNames[this.held]}; steps: ${this.episode.steps}`
    ]
    for (let r = 0; r < w.receptacleNames.length; r++) {
      const openable = World.RECEPTACLE_TYPES[w.receptacleTypes[r]!]!.openable
      const items = this.contents(r).map((n) => {
        const o = w.objectNames.indexOf(n)
        const s = this.objState[o]!
        if (w.objectTypes[o] === -1) return `${n} (${s === 1 ? "on" : "off"})`
        const adj = [s & CLEAN_BIT ? "clean" : "", s & HOT_BIT ? "hot" : "", s & COOL_BIT ? "cool" : ""].filter((x) => x !== "")
        return adj.length === 0 ? n : `${n} (${adj.join(", ")})`
      })
      lines.push(`  ${w.receptacleNames[r]}${openable ? (this.isOpen[r] === 1 ? " [open]" : " [closed]") : ""}: ${items.join(", ")}`)
    }
    return lines.join("\n")
  }

  /**
   * The episode as chat turns: system ({@link SYSTEM_PROMPT} and the task), then per step a user turn (the
   * observation, plus "Your admissible actions of the current situation are: [...]" when the step's info carries
   * `offeredActions`, as this env's step info does) and an assistant turn (the action).
   */
  toMessages(trajectory: Trajectory.Trajectory): Array<ChatMessage> {
    return textMessages(SYSTEM_PROMPT, trajectory.task ?? this.task, trajectory)
  }

  /** Ends the episode; nothing else to release. */
  close(): void {
    this.episode.end()
  }

  /**
   * The full state (world, agent, receptacles, objects, step count, generator) as an immutable value; see
   * `Snapshot`. Copies three small typed arrays and the generator state; the world and the admissible-command cache
   * are shared (both are replaced, never mutated).
   * @throws ResetNeededError before the first reset.
   * @since 0.2.0
   */
  snapshot(): EnvSnapshot {
    const w = this.w
    if (w === undefined) throw new ResetNeededError({ envId: ENV_ID, reason: "snapshot before reset" })
    const payload: HouseholdState = {
      rng: this.npRandom.clone(),
      w,
      objOrder: this.objOrder,
      isOpen: this.isOpen.slice(),
      objLoc: this.objLoc.slice(),
      objState: this.objState.slice(),
      loc: this.loc,
      room: this.room,
      held: this.held,
      isWon: this.isWon,
      steps: this.episode.steps,
      running: this.episode.running,
      cache: this.cache,
      cacheOp: this.cacheOp,
      cacheA: this.cacheA,
      cacheB: this.cacheB
    }
    return new OwnedSnapshot(ENV_ID, this, payload)
  }

  /**
   * Return to a state saved by {@link snapshot} (its task too, when the env has been reset since).
   * @throws SnapshotMismatchError for a snapshot this instance did not take.
   * @since 0.2.0
   */
  restore(snapshot: EnvSnapshot): void {
    const p = ownPayload<HouseholdState>(this, ENV_ID, snapshot)
    this.rng = p.rng.clone()
    if (this.w !== p.w) {
      this.w = p.w
      this.objOrder = p.objOrder
      this.isOpen = p.isOpen.slice()
      this.objLoc = p.objLoc.slice()
      this.objState = p.objState.slice()
    } else {
      this.isOpen.set(p.isOpen)
      this.objLoc.set(p.objLoc)
      this.objState.set(p.objState)
    }
    this.loc = p.loc
    this.room = p.room
    this.held = p.held
    this.isWon = p.isWon
    this.episode.steps = p.steps
    this.episode.running = p.running
    this.cache = p.cache
    this.cacheOp = p.cacheOp
    this.cacheA = p.cacheA
    this.cacheB = p.cacheB
  }
}

/** What a TextHousehold snapshot holds (typed arrays are private copies). */
interface HouseholdState {
  readonly rng: Rng
  readonly w: World.World
  readonly objOrder: Array<number>
  readonly isOpen: Uint8Array
  readonly objLoc: Int16Array
  readonly objState: Uint8Array
  readonly loc: number
  readonly room: number
  readonly held: number
  readonly isWon: boolean
  readonly steps: number
  readonly running: boolean
  readonly cache: Array<string> | undefined
  readonly cacheOp: Array<number>
  readonly cacheA: Array<number>
  readonly cacheB: Array<number>
}

/**
 * Construct `TextHousehold-v0` (the registry's entry point).
 * @category constructors
 */
export const make = (options: TextHouseholdOptions = {}): TextHousehold => new TextHousehold(options)

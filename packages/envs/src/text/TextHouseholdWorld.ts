/**
 * The world model of `TextHousehold-v0`: receptacle and object catalogues (after ALFRED/ALFWorld's), room templates,
 * the train/unseen split hashes, and the seeded task generator.
 *
 * **Details**
 * - Four room types as ALFWorld's scenes: kitchen, livingroom, bedroom, bathroom. A *layout* is a room type plus a
 *   variant number in [0, 100000); the variant seeds the receptacle counts (each type's count in its template range).
 * - Splits: a layout is *unseen* when `fnv1a("layout|room|variant") % 5 === 0`; an (object type, receptacle type) pair
 *   is *unseen* when `fnv1a("pair|object|receptacle") % 5 === 0` (about 1 in 5 of each). `train` and `seen` draw
 *   only seen layouts, seen goal pairs and seen initial placements; `unseen` draws only unseen layouts and unseen goal
 *   pairs. So no train/seen episode ever contains an unseen layout, an unseen goal pair, or an object initially placed
 *   in a receptacle type that forms an unseen pair with it.
 * - The task is drawn first (type uniform over the six ALFWorld types), then a room type that supports it, a layout of
 *   the split, a goal pair of the split, then the placements. Object instance numbers ("mug 1", "mug 2") are assigned
 *   in a random order so the number does not reveal the task object.
 *
 * @see Shridhar et al., "ALFWorld: Aligning Text and Embodied Environments for Interactive Learning", arXiv:2010.03768
 * @see Shridhar et al., "ALFRED: A Benchmark for Interpreting Grounded Instructions for Everyday Tasks", arXiv:1912.01734
 * @category internals
 * @since 0.1.0
 */
import type { Rng } from "@autodidact/core"
import { Schema } from "effect"

/** ALFWorld's six task types (`alfworld/data/json_2.1.1/*` directory prefixes). */
export const TASK_TYPES = [
  "pick_and_place_simple",
  "look_at_obj_in_light",
  "pick_clean_then_place_in_recep",
  "pick_heat_then_place_in_recep",
  "pick_cool_then_place_in_recep",
  "pick_two_obj_and_place"
] as const
/** One of ALFWorld's six task types ({@link TASK_TYPES}). */
export type TaskType = typeof TASK_TYPES[number]

/** Episode splits, as ALFWorld's `train`, `valid_seen` (here `seen`) and `valid_unseen` (here `unseen`). */
export type Split = "train" | "seen" | "unseen"
/** Every split, in order. */
export const SPLITS: ReadonlyArray<Split> = ["train", "seen", "unseen"]

/** Room types (ALFWorld scene categories). */
export const ROOMS = ["kitchen", "livingroom", "bedroom", "bathroom"] as const
/** One of the {@link ROOMS}. */
export type Room = typeof ROOMS[number]

/** Object classes used by receptacle acceptance lists. */
type ObjClass = "food" | "dish" | "utensil" | "bottle" | "small" | "media" | "decor" | "soft" | "bath"

/** An object type: name, class, properties and the rooms it occurs in. */
export interface ObjectType {
  /** ALFRED object name, lower case (`mug`, `apple`, ...). */
  readonly name: string
  /** Class that receptacles accept. */
  readonly cls: ObjClass
  /** Whether `clean O with sinkbasin N` applies. */
  readonly cleanable: boolean
  /** Whether `heat O with microwave N` applies. */
  readonly heatable: boolean
  /** Whether `cool O with fridge N` applies. */
  readonly coolable: boolean
  /** Rooms where it occurs. */
  readonly rooms: ReadonlyArray<Room>
}

const K: Room = "kitchen"
const L: Room = "livingroom"
const B: Room = "bedroom"
const T: Room = "bathroom"

const obj = (name: string, cls: ObjClass, props: string, rooms: ReadonlyArray<Room>): ObjectType => ({
  name,
  cls,
  cleanable: props.includes("c"),
  heatable: props.includes("h"),
  coolable: props.includes("o"),
  rooms
})

/** Pickupable object types (ALFRED object names; properties from ALFWorld's task definitions). */
export const OBJECT_TYPES: ReadonlyArray<ObjectType> = [
  obj("apple", "food", "cho", [K]),
  obj("bread", "food", "ho", [K]),
  obj("egg", "food", "ho", [K]),
  obj("potato", "food", "cho", [K]),
  obj("tomato", "food", "cho", [K]),
  obj("lettuce", "food", "co", [K]),
  obj("mug", "dish", "cho", [K, B]),
  obj("cup", "dish", "cho", [K]),
  obj("plate", "dish", "cho", [K, L]),
  obj("bowl", "dish", "co", [K, L, B]),
  obj("pan", "dish", "co", [K]),
  obj("pot", "dish", "co", [K]),
  obj("kettle", "dish", "c", [K]),
  obj("knife", "utensil", "c", [K]),
  obj("butterknife", "utensil", "c", [K]),
  obj("fork", "utensil", "c", [K]),
  obj("spoon", "utensil", "c", [K]),
  obj("spatula", "utensil", "c", [K]),
  obj("ladle", "utensil", "c", [K]),
  obj("dishsponge", "bath", "c", [K, T]),
  obj("saltshaker", "bottle", "", [K]),
  obj("peppershaker", "bottle", "", [K]),
  obj("soapbottle", "bottle", "", [K, T]),
  obj("winebottle", "bottle", "o", [K]),
  obj("soapbar", "bath", "c", [T]),
  obj("cloth", "soft", "c", [T, B]),
  obj("towel", "soft", "", [T]),
  obj("handtowel", "soft", "", [T]),
  obj("toiletpaper", "bath", "", [T]),
  obj("spraybottle", "bath", "", [T]),
  obj("candle", "decor", "", [T, L]),
  obj("tissuebox", "bath", "", [T, L]),
  obj("remotecontrol", "small", "", [L]),
  obj("keychain", "small", "", [L, B]),
  obj("creditcard", "small", "", [L, B]),
  obj("cellphone", "small", "", [L, B]),
  obj("watch", "small", "", [L]),
  obj("pen", "small", "", [B]),
  obj("pencil", "small", "", [B]),
  obj("cd", "small", "", [B]),
  obj("alarmclock", "small", "", [B]),
  obj("newspaper", "media", "", [L]),
  obj("book", "media", "", [L, B]),
  obj("laptop", "media", "", [L, B]),
  obj("statue", "decor", "", [L]),
  obj("vase", "decor", "", [L]),
  obj("box", "decor", "", [L]),
  obj("pillow", "soft", "", [L, B]),
  obj("teddybear", "soft", "", [B])
]

/** A receptacle type: name, openable, accepted object classes (or explicit types), per-room count ranges. */
export interface ReceptacleType {
  /** ALFRED receptacle name, lower case (`cabinet`, `fridge`, ...). */
  readonly name: string
  /** Whether it starts closed and takes `open`/`close`. */
  readonly openable: boolean
  /** "in" or "on" (task phrasing only; ALFWorld's command itself is `move X to Y`). */
  readonly prep: "in" | "on"
  /** Object classes or object type names it accepts. */
  readonly accepts: ReadonlyArray<string>
  /** Inclusive count range per room type where it occurs. */
  readonly counts: Partial<Record<Room, readonly [number, number]>>
}

const rec = (
  name: string,
  openable: boolean,
  prep: "in" | "on",
  accepts: ReadonlyArray<string>,
  counts: Partial<Record<Room, readonly [number, number]>>
): ReceptacleType => ({ name, openable, prep, accepts, counts })

/** Receptacle types (ALFRED receptacle names) and their room templates. */
export const RECEPTACLE_TYPES: ReadonlyArray<ReceptacleType> = [
  rec("cabinet", true, "in", ["dish", "bottle", "decor", "bath", "soft"], { kitchen: [3, 10], livingroom: [0, 4], bathroom: [2, 4] }),
  rec("countertop", false, "on", ["food", "dish", "utensil", "bottle", "small", "bath"], { kitchen: [1, 3], bathroom: [1, 1] }),
  rec("drawer", true, "in", ["utensil", "small", "media", "soft", "bath"], {
    kitchen: [2, 7],
    livingroom: [1, 4],
    bedroom: [2, 8],
    bathroom: [0, 4]
  }),
  rec("fridge", true, "in", ["food", "dish", "bottle"], { kitchen: [1, 1] }),
  rec("microwave", true, "in", ["food", "dish"], { kitchen: [1, 1] }),
  rec("sinkbasin", false, "in", ["food", "dish", "utensil", "bath"], { kitchen: [1, 1], bathroom: [1, 2] }),
  rec("stoveburner", false, "on", ["pan", "pot", "kettle"], { kitchen: [2, 4] }),
  rec("coffeemachine", false, "on", ["mug", "cup"], { kitchen: [1, 1] }),
  rec("toaster", false, "on", ["bread"], { kitchen: [0, 1] }),
  rec("diningtable", false, "on", ["food", "dish", "utensil", "bottle", "small", "media", "decor"], { kitchen: [0, 1], livingroom: [0, 1] }),
  rec("shelf", false, "on", ["dish", "bottle", "small", "media", "decor", "bath"], {
    kitchen: [0, 3],
    livingroom: [1, 4],
    bedroom: [1, 5],
    bathroom: [0, 3]
  }),
  rec("garbagecan", false, "in", ["food", "bottle", "small", "media", "bath", "soft"], {
    kitchen: [1, 1],
    livingroom: [1, 1],
    bedroom: [1, 1],
    bathroom: [1, 1]
  }),
  rec("sofa", false, "on", ["soft", "small", "media"], { livingroom: [1, 1] }),
  rec("armchair", false, "on", ["soft", "small", "media"], { livingroom: [1, 2], bedroom: [0, 1] }),
  rec("coffeetable", false, "on", ["dish", "small", "media", "decor"], { livingroom: [1, 1] }),
  rec("sidetable", false, "on", ["dish", "small", "media", "decor"], { livingroom: [1, 2], bedroom: [1, 2] }),
  rec("tvstand", false, "on", ["small", "media", "decor"], { livingroom: [0, 1] }),
  rec("safe", true, "in", ["small"], { livingroom: [0, 1], bedroom: [0, 1] }),
  rec("desk", false, "on", ["dish", "small", "media", "decor"], { bedroom: [1, 2] }),
  rec("dresser", false, "on", ["dish", "small", "media", "decor"], { livingroom: [0, 1], bedroom: [0, 1] }),
  rec("bed", false, "on", ["soft", "small", "media"], { bedroom: [1, 1] }),
  rec("laundryhamper", false, "in", ["soft"], { bedroom: [0, 1] }),
  rec("toilet", false, "on", ["bath", "decor"], { bathroom: [1, 1] }),
  rec("bathtubbasin", false, "in", ["bath", "soft"], { bathroom: [0, 1] }),
  rec("towelholder", false, "on", ["towel"], { bathroom: [1, 1] }),
  rec("handtowelholder", false, "on", ["handtowel"], { bathroom: [0, 1] }),
  rec("toiletpaperhanger", false, "on", ["toiletpaper"], { bathroom: [1, 1] })
]

/** Receptacle types a desk lamp may stand on. */
export const LAMP_STANDS: ReadonlyArray<string> = ["desk", "sidetable", "dresser"]
/** The light source of `look_at_obj_in_light` (ALFWorld also has `floorlamp`; here only `desklamp`). */
export const LAMP = "desklamp"

const OBJ_INDEX = new Map(OBJECT_TYPES.map((o, i) => [o.name, i]))
const REC_INDEX = new Map(RECEPTACLE_TYPES.map((r, i) => [r.name, i]))

/** Index of an object type by name (-1 when unknown). */
export const objectTypeIndex = (name: string): number => OBJ_INDEX.get(name) ?? -1
/** Index of a receptacle type by name (-1 when unknown). */
export const receptacleTypeIndex = (name: string): number => REC_INDEX.get(name) ?? -1

/** Whether receptacle type `r` accepts object type `o` at generation time. */
export const accepts = (r: ReceptacleType, o: ObjectType): boolean => r.accepts.includes(o.cls) || r.accepts.includes(o.name)

/** 32-bit FNV-1a of a string (the split hash). */
export const fnv1a = (s: string): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i)
    h = Math.imul(h, 0x01000193) >>> 0
  }
  return h >>> 0
}

/** Whether a layout (room type, variant) belongs to the unseen split. */
export const isUnseenLayout = (room: Room, variant: number): boolean => fnv1a(`layout|${room}|${variant}`) % 5 === 0
/** Whether an (object type, receptacle or lamp type) pair belongs to the unseen split. */
export const isUnseenPair = (object: string, receptacle: string): boolean => fnv1a(`pair|${object}|${receptacle}`) % 5 === 0

const NR = RECEPTACLE_TYPES.length
// precomputed split and acceptance tables, [object type * NR + receptacle type]
const UNSEEN = new Uint8Array(OBJECT_TYPES.length * NR)
const ACCEPTS = new Uint8Array(OBJECT_TYPES.length * NR)
const UNSEEN_LAMP = new Uint8Array(OBJECT_TYPES.length)
OBJECT_TYPES.forEach((o, oi) => {
  RECEPTACLE_TYPES.forEach((r, ri) => {
    UNSEEN[oi * NR + ri] = isUnseenPair(o.name, r.name) ? 1 : 0
    ACCEPTS[oi * NR + ri] = accepts(r, o) ? 1 : 0
  })
  UNSEEN_LAMP[oi] = isUnseenPair(o.name, LAMP) ? 1 : 0
})

/** Number of layout variants per room type. */
export const LAYOUT_VARIANTS = 100_000

/**
 * Generation difficulty: `"default"` (ALFWorld-like: one room, about 10-30 receptacles), `"easy"` (one of each required
 * type) or `"hard"` (a house of {@link HARD_ROOMS} rooms of different types in a row, joined by doorways; each room as
 * `"default"`; the agent starts at the far end of the row from the task's room; objects mostly hidden in closed receptacles).
 */
export type Difficulty = "default" | "easy" | "hard"

/** Rooms of a `"hard"` house. */
export const HARD_ROOMS = 4
/** Under `"hard"`, the probability that an object is placed in an openable (closed) receptacle when it fits one. */
export const HARD_HIDDEN = 0.95

/** Options of {@link generate}. */
export interface GenerateOptions {
  /** Which split's layouts and (object, receptacle) pairs to draw from. */
  readonly split: Split
  /** How many receptacles the room gets. */
  readonly difficulty: Difficulty
  /** Objects besides the task objects (and the lamp). */
  readonly numDistractors: number
  /** Restrict to these task types (default all six). */
  readonly taskTypes?: ReadonlyArray<TaskType> | undefined
  /**
   * `"hard"` only: rooms of the house, integer in [1, {@link HARD_ROOMS}] (default {@link HARD_ROOMS}); the task's room
   * and `houseRooms - 1` others, in a random row; the other rules (hidden objects, task objects away from the goal's
   * room where the house allows) are the same, so the room count is a difficulty ladder (EnvGen's parameter levels).
   */
  readonly houseRooms?: number | undefined
}

/** A generated episode: static layout plus the initial dynamic state. */
export interface World {
  /** The split it was generated for. */
  readonly split: Split
  /** The room type. */
  readonly room: Room
  /** Index of the room layout within its split (layouts of `unseen` never occur in `train`/`seen`). */
  readonly layoutVariant: number
  /** The task type. */
  readonly taskType: TaskType
  /** Goal object type name. */
  readonly goalObject: string
  /** Goal receptacle type name, or `"desklamp"` for `look_at_obj_in_light`. */
  readonly goalReceptacle: string
  /** Task text, e.g. "put a clean mug in coffeemachine." */
  readonly task: string
  /** Receptacle names ("cabinet 1"), in catalogue order of their types, then by number. */
  readonly receptacleNames: ReadonlyArray<string>
  /** Receptacle type index per receptacle. */
  readonly receptacleTypes: Int16Array
  /** Object names ("mug 2"), lamps included. */
  readonly objectNames: ReadonlyArray<string>
  /** Object type index per object; -1 for a lamp. */
  readonly objectTypes: Int16Array
  /** Initial receptacle index per object. */
  readonly objectLocations: Int16Array
  /**
   * `"hard"` only: the house's rooms in their row (room types, each once; rooms `i` and `i + 1` share a doorway), the
   * room the agent starts in (the end of the row farther from the first task object; the task objects start outside
   * the room of the goal receptacle's first instance), the room of each receptacle, and each
   * room's layout variant (all of the split).
   */
  readonly house?: {
    readonly rooms: ReadonlyArray<Room>
    readonly start: number
    readonly receptacleRooms: Int8Array
    readonly layoutVariants: ReadonlyArray<number>
  } | undefined
}

/**
 * Generation found no layout/pair combination for the options (only with a `taskTypes` restriction that no room of
 * the split can host, which the default catalogues never cause).
 * @category errors
 */
export class TaskGenerationError extends Schema.TaggedError<TaskGenerationError>()("TaskGenerationError", {
  split: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `TextHousehold task generation failed (split ${this.split}): ${this.reason}`
  }
}

const roomSupports = (room: Room, task: TaskType): boolean => {
  const has = (name: string) => (RECEPTACLE_TYPES[REC_INDEX.get(name)!]!.counts[room]?.[1] ?? 0) > 0
  switch (task) {
    case "pick_heat_then_place_in_recep":
      return has("microwave")
    case "pick_cool_then_place_in_recep":
      return has("fridge")
    case "pick_clean_then_place_in_recep":
      return has("sinkbasin")
    case "look_at_obj_in_light":
      return LAMP_STANDS.some(has)
    default:
      return true
  }
}

const layoutCounts = (room: Room, variant: number, difficulty: Difficulty, rngMake: (seed: Array<number>) => Rng): Array<number> => {
  const lr = rngMake([0x4c41594f, ROOMS.indexOf(room), variant])
  return RECEPTACLE_TYPES.map((r) => {
    const range = r.counts[room]
    if (range === undefined) return 0
    const n = range[0] + lr.integers(range[1] - range[0] + 1)
    return difficulty === "easy" ? Math.min(n, range[0] > 0 ? 1 : 0) : n
  })
}

const needs = (task: TaskType, o: ObjectType): boolean =>
  task === "pick_clean_then_place_in_recep" ? o.cleanable
  : task === "pick_heat_then_place_in_recep" ? o.heatable
  : task === "pick_cool_then_place_in_recep" ? o.coolable
  : true

const applianceOf = (task: TaskType): string | undefined =>
  task === "pick_clean_then_place_in_recep" ? "sinkbasin"
  : task === "pick_heat_then_place_in_recep" ? "microwave"
  : task === "pick_cool_then_place_in_recep" ? "fridge"
  : undefined

const taskText = (task: TaskType, o: string, r: string, prep: string, alt: boolean): string => {
  switch (task) {
    case "pick_and_place_simple":
      return alt ? `put some ${o} ${prep} ${r}.` : `put a ${o} ${prep} ${r}.`
    case "look_at_obj_in_light":
      return alt ? `look at ${o} under the ${r}.` : `examine the ${o} with the ${r}.`
    case "pick_clean_then_place_in_recep":
      return alt ? `clean some ${o} and put it ${prep} ${r}.` : `put a clean ${o} ${prep} ${r}.`
    case "pick_heat_then_place_in_recep":
      return alt ? `heat some ${o} and put it ${prep} ${r}.` : `put a hot ${o} ${prep} ${r}.`
    case "pick_cool_then_place_in_recep":
      return alt ? `cool some ${o} and put it ${prep} ${r}.` : `put a cool ${o} ${prep} ${r}.`
    case "pick_two_obj_and_place":
      return alt ? `find two ${o} and put them ${prep} ${r}.` : `put two ${o} ${prep} ${r}.`
  }
}

/**
 * Generate one episode from `rng` (all draws come from it, plus fixed-seed layout generators).
 * @throws TaskGenerationError when the options leave nothing to generate.
 */
export const generate = (rng: Rng, options: GenerateOptions, rngMake: (seed: Array<number>) => Rng): World => {
  const unseen = options.split === "unseen"
  const types = options.taskTypes ?? TASK_TYPES
  if (types.length === 0) throw new TaskGenerationError({ split: options.split, reason: "taskTypes is empty" })
  for (let attempt = 0; attempt < 200; attempt++) {
    const taskType = types[rng.integers(types.length)]!
    const rooms = ROOMS.filter((r) => roomSupports(r, taskType))
    const room = rooms[rng.integers(rooms.length)]!
    const drawVariant = (r: Room) => {
      let v = rng.integers(LAYOUT_VARIANTS)
      while (isUnseenLayout(r, v) !== unseen) v = rng.integers(LAYOUT_VARIANTS)
      return v
    }
    const variant = drawVariant(room)
    const hard = options.difficulty === "hard"
    // a hard house: the task's room and houseRooms - 1 (default HARD_ROOMS - 1) rooms of other types, in a random row
    const houseRooms: Array<Room> = [room]
    const houseVariants: Array<number> = [variant]
    if (hard) {
      const others = rng.shuffle(ROOMS.filter((r) => r !== room))
      for (const r of others.slice(0, (options.houseRooms ?? HARD_ROOMS) - 1)) {
        houseRooms.push(r)
        houseVariants.push(drawVariant(r))
      }
    }
    const perRoom = houseRooms.map((r, i) => layoutCounts(r, houseVariants[i]!, hard ? "default" : options.difficulty, rngMake))
    const counts = RECEPTACLE_TYPES.map((_, ti) => perRoom.reduce((a, c) => a + c[ti]!, 0))
    const row = hard ? rng.shuffle(Array.from({ length: houseRooms.length }, (_, i) => i)) : [0]
    const present = (name: string) => (counts[REC_INDEX.get(name)!] ?? 0) > 0
    const appliance = applianceOf(taskType)
    if (appliance !== undefined && !present(appliance)) continue
    const lampStands = LAMP_STANDS.filter(present)
    if (taskType === "look_at_obj_in_light" && lampStands.length === 0) continue
    const pool = OBJECT_TYPES.filter((o) => o.rooms.some((r) => houseRooms.includes(r)))
    const u = unseen ? 1 : 0
    // where an object may be placed initially (split-respecting for train/seen)
    const placeableCache = new Map<string, Array<ReceptacleType>>()
    const placeable = (o: ObjectType): Array<ReceptacleType> => {
      let p = placeableCache.get(o.name)
      if (p === undefined) {
        const base = OBJ_INDEX.get(o.name)! * NR
        p = RECEPTACLE_TYPES.filter((_, ri) => counts[ri]! > 0 && ACCEPTS[base + ri] === 1 && (unseen || UNSEEN[base + ri] === 0))
        placeableCache.set(o.name, p)
      }
      return p
    }
    // candidate goal pairs
    const pairs: Array<readonly [ObjectType, string]> = []
    for (const o of pool) {
      if (!needs(taskType, o)) continue
      const oi = OBJ_INDEX.get(o.name)!
      if (taskType === "look_at_obj_in_light") {
        if (UNSEEN_LAMP[oi] === u && placeable(o).length > 0) pairs.push([o, LAMP])
        continue
      }
      const base = oi * NR
      for (let ri = 0; ri < NR; ri++) {
        if (counts[ri] === 0 || ACCEPTS[base + ri] === 0 || UNSEEN[base + ri] !== u) continue
        const r = RECEPTACLE_TYPES[ri]!
        if (r.name === appliance) continue
        // the task objects must start somewhere other than the goal receptacle type
        const pl = placeable(o)
        if (pl.length === 0 || (pl.length === 1 && pl[0] === r)) continue
        pairs.push([o, r.name])
      }
    }
    if (pairs.length === 0) continue
    const [goalObj, goalRec] = pairs[rng.integers(pairs.length)]!
    // receptacles (catalogue order, numbered through the house in the row's order)
    const recNames: Array<string> = []
    const recTypes: Array<number> = []
    const recRooms: Array<number> = []
    RECEPTACLE_TYPES.forEach((r, ti) => {
      let k = 1
      row.forEach((h, pos) => {
        for (let j = 0; j < perRoom[h]![ti]!; j++) {
          recNames.push(`${r.name} ${k++}`)
          recTypes.push(ti)
          recRooms.push(pos)
        }
      })
    })
    const instancesOf = (name: string): Array<number> => {
      const ti = REC_INDEX.get(name)!
      const out: Array<number> = []
      for (let i = 0; i < recTypes.length; i++) if (recTypes[i] === ti) out.push(i)
      return out
    }
    // objects: [type index (-1 lamp), receptacle]
    const objs: Array<[number, number]> = []
    // hard: the task objects start outside the rooms of the goal receptacle and of the appliance the expert uses (each
    // its type's first instance), or at least outside the goal's room, where the house allows, and in an instance as far
    // along the row from the goal's room as the chosen receptacle type allows
    const firstRoom = (name: string | undefined) => (name === undefined || name === LAMP ? -1 : recRooms[instancesOf(name)[0]!]!)
    const goalRoom = firstRoom(goalRec)
    const awayRooms = hard && goalRoom >= 0 ? [[goalRoom, firstRoom(appliance)].filter((r) => r >= 0), [goalRoom]] : []
    const place = (o: ObjectType, avoid: string | undefined, away: ReadonlyArray<ReadonlyArray<number>> = []) => {
      let options2 = placeable(o).filter((r) => r.name !== avoid)
      let outside: ReadonlyArray<number> = []
      for (const rooms of away) {
        const ok = (i: number) => !rooms.includes(recRooms[i]!)
        const fits = options2.filter((r) => instancesOf(r.name).some(ok))
        if (fits.length > 0) {
          options2 = fits
          outside = rooms
          break
        }
      }
      if (hard) {
        // most objects hidden: an openable receptacle when one fits, with probability HARD_HIDDEN
        const closed = options2.filter((r) => r.openable)
        if (closed.length > 0 && closed.length < options2.length) options2 = rng.random() < HARD_HIDDEN ? closed : options2.filter((r) => !r.openable)
      }
      const r = options2[rng.integers(options2.length)]!
      let inst = instancesOf(r.name)
      if (outside.length > 0) {
        inst = inst.filter((i) => !outside.includes(recRooms[i]!))
        // as far along the row from the goal's room as this receptacle type allows
        const far = Math.max(...inst.map((i) => Math.abs(recRooms[i]! - outside[0]!)))
        inst = inst.filter((i) => Math.abs(recRooms[i]! - outside[0]!) === far)
      }
      objs.push([OBJ_INDEX.get(o.name)!, inst[rng.integers(inst.length)]!])
    }
    const avoidFor = (o: ObjectType) => (o.name === goalObj.name && goalRec !== LAMP ? goalRec : undefined)
    const nTask = taskType === "pick_two_obj_and_place" ? 2 + rng.integers(2) : 1 + rng.integers(2)
    for (let i = 0; i < nTask; i++) place(goalObj, avoidFor(goalObj), awayRooms)
    for (let i = 0; i < options.numDistractors; i++) {
      const o = pool[rng.integers(pool.length)]!
      if (placeable(o).filter((r) => r.name !== avoidFor(o)).length === 0) continue
      place(o, avoidFor(o))
    }
    if (lampStands.length > 0 && (taskType === "look_at_obj_in_light" || rng.random() < 0.5)) {
      let stands = lampStands.flatMap(instancesOf)
      // hard: the lamp of a look-at task stands outside the first task object's room where the house allows
      const objectRoom = recRooms[objs[0]![1]]!
      if (hard && taskType === "look_at_obj_in_light" && stands.some((i) => recRooms[i] !== objectRoom)) stands = stands.filter((i) => recRooms[i] !== objectRoom)
      objs.push([-1, stands[rng.integers(stands.length)]!])
    }
    // instance numbers in a random order per type
    const order = rng.shuffle(Array.from({ length: objs.length }, (_, i) => i))
    const seen = new Map<number, number>()
    const numbers = new Array<number>(objs.length)
    for (const i of order) {
      const t = objs[i]![0]
      const n = (seen.get(t) ?? 0) + 1
      seen.set(t, n)
      numbers[i] = n
    }
    const objectNames = objs.map(([t], i) => `${t < 0 ? LAMP : OBJECT_TYPES[t]!.name} ${numbers[i]}`)
    const goalRecType = goalRec === LAMP ? undefined : RECEPTACLE_TYPES[REC_INDEX.get(goalRec)!]!
    const task = taskText(taskType, goalObj.name, goalRec, goalRecType?.prep ?? "in", rng.random() < 0.5)
    return {
      split: options.split,
      room,
      layoutVariant: variant,
      taskType,
      goalObject: goalObj.name,
      goalReceptacle: goalRec,
      task,
      receptacleNames: recNames,
      receptacleTypes: Int16Array.from(recTypes),
      objectNames,
      objectTypes: Int16Array.from(objs.map(([t]) => t)),
      objectLocations: Int16Array.from(objs.map(([, r]) => r)),
      ...(hard ? { house: { rooms: row.map((h) => houseRooms[h]!), start: recRooms[objs[0]![1]]! < row.length / 2 ? row.length - 1 : 0, receptacleRooms: Int8Array.from(recRooms), layoutVariants: row.map((h) => houseVariants[h]!) } } : {})
    }
  }
  throw new TaskGenerationError({ split: options.split, reason: "no room layout of this split supports the requested task types" })
}

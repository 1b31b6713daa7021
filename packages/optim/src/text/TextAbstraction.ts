/**
 * Entity abstraction and relational features for text agents: what {@link DrrnPolicy} adds to its bag of words so
 * that a policy trained on some objects, receptacles and levels transfers to unseen ones.
 *
 * **When to use**: through `DrrnPolicy` (`relational: true`, the default). The functions are exported for tests and
 * for other featurizers.
 *
 * **Details**
 * - Delexicalization (entity abstraction): the task's object type, target receptacle type and the tool its type
 *   implies (`sinkbasin` to clean, `microwave` to heat, `fridge` to cool, `desklamp` to look) are replaced in the
 *   task, the observations and every action by the placeholder words `taskobj`, `tasktgt`, `tasktool`, so "take
 *   mug 1 from cabinet 2" under "put a clean mug in coffeemachine." and "take apple 3 from fridge 1" under "put a
 *   clean apple in countertop." share their features. Abstracting entity names before learning is the standard
 *   remedy for unseen objects in text games: Adolphs & Hofmann, "LeDeepChef: Deep Reinforcement Learning Agent for
 *   Families of Text-Based Games", AAAI 2020 (arXiv:1909.01646), abstract recipe ingredients and directions to
 *   generalize to unseen TextWorld cooking games; Ammanabrolu & Riedl, "Playing Text-Adventure Games with Graph-Based
 *   Deep Reinforcement Learning", NAACL 2019 (arXiv:1812.01628), track entities and their relations in a knowledge
 *   graph built from the observations.
 * - Episode summary (household tasks, {@link householdSummary}): a small belief state read off every observation of
 *   the episode so far (ALFWorld's texts): where the agent is, the receptacles visited and opened, where objects of
 *   the task type and desk lamps were seen, what the agent holds, which objects were cleaned/heated/cooled, how many
 *   task objects were put in a target receptacle. It is the "graph" of Ammanabrolu & Riedl reduced to what the six
 *   task types need.
 * - Relational features (household): the state gets `phase` keys (task type × holds the task object × it is
 *   treated × one was seen × how many are placed) and each action gets indicator keys (verb; mentions the task
 *   object / target / tool; `go to` a receptacle visited or not, where the task object or a lamp was seen; `take` /
 *   `move` / `heat|cool|clean` of the task object, into the target, matching the task type), each also conjoined
 *   with the phase, so that the action tower can score "what to do next" without depending on entity identities.
 * - Houses of rooms (`TextHousehold-v0`'s `"hard"` difficulty; only when an observation names a room, so a single
 *   room's features are unchanged): the summary also keeps the current room and each room's listing (receptacles,
 *   doorways); the state gets how many receptacles of this room are still unexplored (unvisited, or closed and
 *   never opened) and whether the task object, the target and the tool are known to be here, also conjoined with the
 *   phase; each `go to <room>` gets whether that room was entered, and whether the rooms through that doorway hold
 *   something unexplored, the task object, the target or the tool — the room graph KG-DQN would build, reduced to
 *   what a search for hidden objects needs. The house also names the next subgoal alike for every task type
 *   (`search`, `fetch`, `tool`, `deliver`): whether this room and each doorway's rooms serve it, and every action key
 *   conjoined with it (`nx:`), so that walking an object to its target through the house, learnt on whichever task
 *   type reaches the house first, transfers to the others (a two-object task after its first placement searches like
 *   a pick task). On the hard house (1M env steps, seeds 1–5, greedy, 200 unseen tasks) this took unseen success
 *   from 0.745 to 0.793 on the mean and two-object tasks from 0.597 to 0.707 (the weakest seed: 0.475 → 0.725).
 * - Expanded commands (skills/options, household): a command no primitive pattern matches gets `verb:<word>`;
 *   when a registered {@link ActionDescriber} (a generic hook, e.g. `@autodidact/skills`' options wrapper, which
 *   this package does not import) gives its expansion into primitive steps, it also gets its first step's keys and
 *   keys of the whole expansion (takes the task object, reaches the target, places it, ...), so that a learner can
 *   tell a skill call that starts where the task object was seen and ends by placing it from one that does not
 *   (the options framework: Sutton, Precup & Singh, "Between MDPs and semi-MDPs", Artificial Intelligence 1999).
 * - Sokoban grids (RAGEN symbols `# _ O X √ P S`, actions Up/Down/Left/Right): egocentric features, i.e. the 5 × 5
 *   window around the player and the box and target positions relative to the player (state), and per action the
 *   two cells ahead, whether the move pushes the box, whether a push brings the box closer to the target (Manhattan)
 *   or into a non-target corner, and whether a move brings the player closer to the cell behind the box from
 *   which the needed push starts (action). Only local geometry and Manhattan distances: no search, no solver.
 * - Every key is a string; {@link DrrnPolicy} hashes it like a word feature.
 *
 * **Gotchas**: the household parser knows `TextHousehold-v0`'s (ALFWorld's) task templates and observation texts
 * only; on any other task text the household part returns nothing and the policy falls back to plain words.
 *
 * @see https://arxiv.org/abs/1909.01646 (LeDeepChef)
 * @see https://arxiv.org/abs/1812.01628 (KG-DQN)
 * @since 0.1.0
 */

// ---------------------------------------------------------------------------------------------------------------
// Household tasks
// ---------------------------------------------------------------------------------------------------------------

/** The task types of `TextHousehold-v0` (ALFWorld's six). */
export type HouseholdTaskType = "pick" | "look" | "clean" | "heat" | "cool" | "two"

/** A parsed household task: object type, target receptacle type (undefined for `look`) and implied tool. */
export interface HouseholdTask {
  readonly type: HouseholdTaskType
  readonly object: string
  readonly target: string | undefined
  readonly tool: string | undefined
}

/** Placeholder words of the delexicalized text. */
export const PLACEHOLDER = { object: "taskobj", target: "tasktgt", tool: "tasktool" } as const

const TOOL: Record<HouseholdTaskType, string | undefined> = { pick: undefined, two: undefined, look: "desklamp", clean: "sinkbasin", heat: "microwave", cool: "fridge" }

const TEMPLATES: ReadonlyArray<readonly [RegExp, HouseholdTaskType]> = [
  [/put a clean (\w+) (?:in|on) (\w+)\./, "clean"],
  [/clean some (\w+) and put it (?:in|on) (\w+)\./, "clean"],
  [/put a hot (\w+) (?:in|on) (\w+)\./, "heat"],
  [/heat some (\w+) and put it (?:in|on) (\w+)\./, "heat"],
  [/put a cool (\w+) (?:in|on) (\w+)\./, "cool"],
  [/cool some (\w+) and put it (?:in|on) (\w+)\./, "cool"],
  [/put two (\w+) (?:in|on) (\w+)\./, "two"],
  [/find two (\w+) and put them (?:in|on) (\w+)\./, "two"],
  [/examine the (\w+) with the (\w+)\./, "look"],
  [/look at (\w+) under the (\w+)\./, "look"],
  [/put (?:a|some) (\w+) (?:in|on) (\w+)\./, "pick"]
]

/** Parse an ALFWorld-style task sentence ("put a clean mug in coffeemachine."); undefined when none matches. */
export const parseHouseholdTask = (task: string): HouseholdTask | undefined => {
  const text = task.toLowerCase()
  for (const [re, type] of TEMPLATES) {
    const m = re.exec(text)
    if (m === null) continue
    if (type === "look") return { type, object: m[1]!, target: undefined, tool: m[2]! }
    return { type, object: m[1]!, target: m[2]!, tool: TOOL[type] }
  }
  return undefined
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/**
 * Replace the task's entity words (whole words, case-insensitive) by {@link PLACEHOLDER} words. A receptacle that
 * is both the target and the tool becomes `tasktgt`.
 */
export const delexicalize = (task: HouseholdTask, text: string): string => {
  const map = new Map<string, string>()
  if (task.tool !== undefined) map.set(task.tool, PLACEHOLDER.tool)
  if (task.target !== undefined) map.set(task.target, PLACEHOLDER.target)
  map.set(task.object, PLACEHOLDER.object)
  const re = new RegExp(`\\b(${[...map.keys()].map(escape).join("|")})\\b`, "gi")
  return text.replace(re, (w) => map.get(w.toLowerCase()) ?? w)
}

/** The belief state read off an episode's observations (see the module docs). */
export interface HouseholdSummary {
  /** Current receptacle ("cabinet 1"), undefined before the first `go to`. */
  location: string | undefined
  readonly visited: Set<string>
  readonly opened: Set<string>
  /** Receptacles last seen closed and not opened since. */
  readonly closed: Set<string>
  /** Receptacle → object instances last seen in/on it. */
  readonly contents: Map<string, Set<string>>
  /** Held object instance ("mug 1"). */
  held: string | undefined
  /** Object instances cleaned, heated or cooled (by verb). */
  readonly treated: Map<string, Set<string>>
  /** Task objects moved into a target receptacle. */
  placed: number
  /**
   * A house of rooms (`TextHousehold-v0`'s `"hard"` difficulty): the room the agent stands in, undefined when no
   * observation named one (a single room).
   */
  room: string | undefined
  /** Room → the receptacles and the doorways (neighbouring rooms) its listing showed; empty without a house. */
  readonly rooms: Map<string, { readonly receptacles: ReadonlyArray<string>; readonly doors: ReadonlyArray<string> }>
}

const typeOf = (name: string): string => name.replace(/ \d+$/, "")
const ITEM = /a (\w+ \d+)/g

const readContents = (s: HouseholdSummary, rec: string, text: string): void => {
  const set = new Set<string>()
  for (const m of text.matchAll(ITEM)) set.add(m[1]!)
  s.contents.set(rec, set)
}

const ROOM = /You are in the middle of the (\w+)\. Looking quickly around you, you see (.*)\./
const DOOR = /doorway to the (\w+)/g

/** Update `s` with one observation text. */
export const observe = (task: HouseholdTask, s: HouseholdSummary, obs: string): void => {
  let m = ROOM.exec(obs)
  if (m !== null) {
    // a house's room listing (on reset, on walking through a doorway, on `look` in the middle of a room)
    s.room = m[1]!
    s.location = undefined
    const receptacles = [...m[2]!.matchAll(ITEM)].map((x) => x[1]!)
    const doors = [...m[2]!.matchAll(DOOR)].map((x) => x[1]!)
    s.rooms.set(m[1]!, { receptacles, doors })
    return
  }
  m = /You arrive at (\w+ \d+)\. (.*)/.exec(obs)
  if (m !== null) {
    const rec = m[1]!
    s.location = rec
    s.visited.add(rec)
    if (/ is closed\./.test(m[2]!)) {
      s.closed.add(rec)
      if (!s.contents.has(rec)) s.contents.set(rec, new Set())
    } else readContents(s, rec, m[2]!)
    return
  }
  m = /You open the (\w+ \d+)\. (.*)/.exec(obs)
  if (m !== null) {
    s.opened.add(m[1]!)
    s.closed.delete(m[1]!)
    readContents(s, m[1]!, m[2]!)
    return
  }
  m = /You close the (\w+ \d+)\./.exec(obs)
  if (m !== null) {
    s.closed.add(m[1]!)
    return
  }
  m = /You pick up the (\w+ \d+) from the (\w+ \d+)\./.exec(obs)
  if (m !== null) {
    s.held = m[1]!
    s.contents.get(m[2]!)?.delete(m[1]!)
    return
  }
  m = /You move the (\w+ \d+) to the (\w+ \d+)\./.exec(obs)
  if (m !== null) {
    s.held = undefined
    if (!s.contents.has(m[2]!)) s.contents.set(m[2]!, new Set())
    s.contents.get(m[2]!)!.add(m[1]!)
    if (typeOf(m[1]!) === task.object && typeOf(m[2]!) === task.target) s.placed++
    return
  }
  m = /You (heat|cool|clean) the (\w+ \d+) using/.exec(obs)
  if (m !== null) {
    if (!s.treated.has(m[1]!)) s.treated.set(m[1]!, new Set())
    s.treated.get(m[1]!)!.add(m[2]!)
  }
}

/** The summary after the observations `observations` (oldest first). */
export const householdSummary = (task: HouseholdTask, observations: ReadonlyArray<string>): HouseholdSummary => {
  const s: HouseholdSummary = {
    location: undefined,
    visited: new Set(),
    opened: new Set(),
    closed: new Set(),
    contents: new Map(),
    held: undefined,
    treated: new Map(),
    placed: 0,
    room: undefined,
    rooms: new Map()
  }
  for (const o of observations) observe(task, s, o)
  return s
}

const has = (s: HouseholdSummary, rec: string, type: string): boolean => {
  const c = s.contents.get(rec)
  if (c === undefined) return false
  for (const o of c) if (typeOf(o) === type) return true
  return false
}

/** Whether a task object was last seen in `rec`, not counting one already placed in the target of a "two" task. */
const taskObjectAt = (task: HouseholdTask, s: HouseholdSummary, rec: string): boolean =>
  has(s, rec, task.object) && !(task.type === "two" && typeOf(rec) === task.target)

/**
 * What an action the household parser does not recognize stands for: the primitive commands it expands to, in
 * order (a skill/option command → its steps). The first step is a command as the env spells it (`go to cabinet 1`);
 * later steps may name an entity *type* where the instance is chosen when the step runs (`take mug from cabinet 1`).
 * Undefined when the action is unknown to the describer.
 */
export type ActionDescriber = (action: string) => ReadonlyArray<string> | undefined

const describers: Array<ActionDescriber> = []

/**
 * Register an {@link ActionDescriber} (e.g. an options wrapper's `describeAction`, so that skill commands get the
 * relational keys of their expansion; `@autodidact/optim` knows nothing of skills). Returns the function that
 * unregisters it. The registry is process-wide and consulted only for actions no primitive pattern matches, so a
 * describer never changes the features of a primitive command.
 */
export const registerActionDescriber = (describer: ActionDescriber): (() => void) => {
  describers.push(describer)
  return () => {
    const i = describers.indexOf(describer)
    if (i >= 0) describers.splice(i, 1)
  }
}

/** The expansion of `action` by the first registered describer that knows it; undefined when none does. */
export const describeAction: ActionDescriber = (action) => {
  for (const d of describers) {
    const r = d(action)
    if (r !== undefined) return r
  }
  return undefined
}

const ARG = "(\\w+(?: \\d+)?)"
const GO = new RegExp(`^go to ${ARG}$`)
const TAKE = new RegExp(`^take ${ARG} from ${ARG}$`)
const MOVE = new RegExp(`^move ${ARG} to ${ARG}$`)
const TREAT = new RegExp(`^(heat|cool|clean) ${ARG} with ${ARG}$`)
const USE = new RegExp(`^use ${ARG}$`)

/**
 * Keys of an expanded (skill) command: the keys of its first step as that primitive command would get them (when it
 * is one), shared with the primitive, and again prefixed `skf:` (skill-specific), and `skx:` keys of the whole expansion: its length, and whether some step takes the task
 * object, reaches (goes to) the target / the tool, moves the task object into the target, applies the task's
 * treatment to the task object, uses a desk lamp. Steps may name types instead of instances.
 */
const expansionKeys = (
  task: HouseholdTask,
  treatVerb: string | undefined,
  steps: ReadonlyArray<string>,
  keysOf: (text: string) => Array<string> | undefined
): Array<string> => {
  const f: Array<string> = [`skx:len:${Math.min(steps.length, 6)}`]
  for (const k of keysOf(steps[0]!) ?? []) f.push(k, `skf:${k}`)
  let takes = false, reachesTgt = false, reachesTool = false, places = false, treats = false, lamp = false
  for (const st of steps) {
    let m: RegExpExecArray | null
    if ((m = GO.exec(st)) !== null) {
      const t = typeOf(m[1]!)
      if (t === task.target) reachesTgt = true
      if (t === task.tool) reachesTool = true
    } else if ((m = TAKE.exec(st)) !== null) {
      if (typeOf(m[1]!) === task.object) takes = true
    } else if ((m = MOVE.exec(st)) !== null) {
      if (typeOf(m[1]!) === task.object && typeOf(m[2]!) === task.target) places = true
    } else if ((m = TREAT.exec(st)) !== null) {
      if (m[1] === treatVerb && typeOf(m[2]!) === task.object) treats = true
    } else if ((m = USE.exec(st)) !== null) {
      if (typeOf(m[1]!) === "desklamp") lamp = true
    }
  }
  f.push(`skx:takes-obj:${takes ? 1 : 0}`, `skx:reaches-tgt:${reachesTgt ? 1 : 0}`, `skx:places:${places ? 1 : 0}`)
  if (task.tool !== undefined) f.push(`skx:reaches-tool:${reachesTool ? 1 : 0}`)
  if (treatVerb !== undefined) f.push(`skx:treats:${treats ? 1 : 0}`)
  if (task.type === "look") f.push(`skx:lamp:${lamp ? 1 : 0}`)
  return f
}

/**
 * State and per-action relational keys of a household decision. An action no primitive pattern matches gets
 * `verb:<first word>`, and, when `describe` (default: the registered describers, {@link describeAction}) knows its
 * expansion, the keys of {@link ActionDescriber}'s first step and of the whole expansion (`skf:`, `skx:` keys).
 */
export const householdFeatures = (
  task: HouseholdTask,
  s: HouseholdSummary,
  actions: ReadonlyArray<string>,
  describe: ActionDescriber | undefined = describeAction
): { readonly state: Array<string>; readonly actions: Array<Array<string>> } => {
  const treatVerb = task.type === "clean" || task.type === "heat" || task.type === "cool" ? task.type : undefined
  const holdsObj = s.held !== undefined && typeOf(s.held) === task.object
  const treated = holdsObj && treatVerb !== undefined && (s.treated.get(treatVerb)?.has(s.held!) ?? false)
  const recClass = (rec: string): string => {
    const t = typeOf(rec)
    return t === task.target ? "tgt" : t === task.tool ? "tool" : "other"
  }
  let objKnown = false
  let lampKnown = false
  for (const rec of s.contents.keys()) {
    if (taskObjectAt(task, s, rec)) objKnown = true
    if (has(s, rec, "desklamp")) lampKnown = true
  }
  const phase = `${task.type}|h${holdsObj ? 1 : s.held !== undefined ? 2 : 0}|t${treated ? 1 : 0}|k${objKnown ? 1 : 0}|p${Math.min(s.placed, 2)}|l${lampKnown ? 1 : 0}`
  const loc = s.location
  const here = loc === undefined ? "none" : recClass(loc)
  const state = [
    `hh:type:${task.type}`,
    `hh:phase:${phase}`,
    `hh:at:${here}`,
    `hh:phase-at:${phase}|${here}|${loc !== undefined && s.closed.has(loc) ? "closed" : "open"}`,
    `hh:visited:${Math.min(s.visited.size, 6)}`
  ]
  // the next subgoal, whatever the task type (houses only): search for / fetch a task object, bring it to the tool,
  // deliver it to the target (a "two" task after its first placement searches again, like a "pick" task's start)
  const next: NextSubgoal = s.held !== undefined && !holdsObj
    ? "other"
    : !holdsObj
    ? (objKnown ? "fetch" : "search")
    : task.type === "look" || (treatVerb !== undefined && !treated)
    ? "tool"
    : "deliver"
  const house = s.room !== undefined ? roomKnowledge(task, s, phase, next) : undefined
  if (house !== undefined) state.push(...house.state)
  const keysOf = (text: string): Array<string> | undefined => {
    const f: Array<string> = []
    let m: RegExpExecArray | null
    let room: Array<string> | undefined
    if ((m = /^go to (\w+ \d+)$/.exec(text)) !== null) {
      const r = m[1]!
      const cls = recClass(r)
      const visited = s.visited.has(r)
      const unknown = !visited || (s.closed.has(r) && !s.opened.has(r))
      f.push(`go:${cls}`, `go:visited:${visited ? 1 : 0}`, `go:unknown:${unknown ? 1 : 0}`, `go:${cls}:unknown:${unknown ? 1 : 0}`)
      const objThere = taskObjectAt(task, s, r)
      f.push(`go:obj:${objThere ? 1 : 0}`)
      if (task.type === "look") f.push(`go:lamp:${has(s, r, "desklamp") ? 1 : 0}`)
    } else if (house !== undefined && (m = /^go to (\w+)$/.exec(text)) !== null && (room = house.roomKeys(m[1]!)) !== undefined) {
      f.push(...room)
    } else if ((m = /^(open|close) (\w+ \d+)$/.exec(text)) !== null) {
      f.push(`${m[1]}:${recClass(m[2]!)}`, `${m[1]}:opened-before:${s.opened.has(m[2]!) ? 1 : 0}`)
    } else if ((m = /^take (\w+ \d+) from (\w+ \d+)$/.exec(text)) !== null) {
      const isObj = typeOf(m[1]!) === task.object
      f.push(`take:obj:${isObj ? 1 : 0}`, `take:obj:${isObj ? 1 : 0}:from:${recClass(m[2]!)}`)
    } else if ((m = /^move (\w+ \d+) to (\w+ \d+)$/.exec(text)) !== null) {
      const isObj = typeOf(m[1]!) === task.object
      f.push(`move:obj:${isObj ? 1 : 0}:to:${recClass(m[2]!)}`)
    } else if ((m = /^(heat|cool|clean) (\w+ \d+) with (\w+ \d+)$/.exec(text)) !== null) {
      const isObj = typeOf(m[2]!) === task.object
      const done = s.treated.get(m[1]!)?.has(m[2]!) ?? false
      f.push(`treat:obj:${isObj ? 1 : 0}:match:${m[1] === treatVerb ? 1 : 0}:done:${done ? 1 : 0}`)
    } else if ((m = /^use (\w+ \d+)$/.exec(text)) !== null) {
      f.push(`use:${typeOf(m[1]!) === "desklamp" ? "lamp" : "other"}`)
    } else if ((m = /^examine (\w+ \d+)$/.exec(text)) !== null) {
      const t = typeOf(m[1]!)
      f.push(`examine:${t === task.object ? "obj" : s.contents.has(m[1]!) || s.visited.has(m[1]!) ? "rec" : "other"}`)
    } else return undefined
    return f
  }
  const out = actions.map((a) => {
    const text = a.toLowerCase()
    let f = keysOf(text)
    if (f === undefined) {
      f = [`verb:${text.split(" ")[0] ?? ""}`]
      const steps = describe?.(a)
      if (steps !== undefined && steps.length > 0) f.push(...expansionKeys(task, treatVerb, steps.map((x) => x.toLowerCase()), keysOf))
    }
    const n = f.length
    for (let i = 0; i < n; i++) f.push(`ph:${phase}|${f[i]}`)
    if (house !== undefined) for (let i = 0; i < n; i++) f.push(`nx:${next}|${f[i]}`)
    return f
  })
  return { state, actions: out }
}

/**
 * The next subgoal of a household task, the same name for every task type: `search` (no task object held or known),
 * `fetch` (one was seen), `tool` (held; the tool comes next: a clean/heat/cool task's appliance before the treatment,
 * a look task's lamp), `deliver` (held and ready for the target), `other` (holding something else).
 */
type NextSubgoal = "search" | "fetch" | "tool" | "deliver" | "other"

/**
 * Room-level keys of a house (`s.room` set): what the current room still hides and, for each `go to <room>`, what
 * lies through that doorway. Rooms form a graph read off their listings; the region through a doorway is every room
 * reachable from the neighbour without passing back through the current room. A room is unexplored when it was never
 * entered or some receptacle of it is unvisited or closed and never opened.
 */
const roomKnowledge = (
  task: HouseholdTask,
  s: HouseholdSummary,
  phase: string,
  next: NextSubgoal
): { readonly state: Array<string>; readonly roomKeys: (room: string) => Array<string> | undefined } => {
  const here = s.room!
  const unknownIn = (room: string): number => {
    const r = s.rooms.get(room)
    if (r === undefined) return Infinity
    let n = 0
    for (const rec of r.receptacles) if (!s.visited.has(rec) || (s.closed.has(rec) && !s.opened.has(rec))) n++
    return n
  }
  const objIn = (room: string): boolean => s.rooms.get(room)?.receptacles.some((rec) => taskObjectAt(task, s, rec)) ?? false
  const lampIn = (room: string): boolean => s.rooms.get(room)?.receptacles.some((rec) => has(s, rec, "desklamp")) ?? false
  const recIn = (room: string, type: string | undefined): boolean =>
    type !== undefined && (s.rooms.get(room)?.receptacles.some((rec) => typeOf(rec) === type) ?? false)
  // the tool of a look task is the desk lamp, an object: where one was seen
  const toolIn = (room: string): boolean => (task.type === "look" ? lampIn(room) : recIn(room, task.tool))
  const region = (start: string): Array<string> => {
    const seen = new Set([here, start])
    const out = [start]
    for (let i = 0; i < out.length; i++) {
      for (const d of s.rooms.get(out[i]!)?.doors ?? []) {
        if (!seen.has(d)) {
          seen.add(d)
          out.push(d)
        }
      }
    }
    return out
  }
  /** What the rooms `rs` hold for each subgoal: something unexplored, a task object, the tool, the target. */
  const holds = (rs: ReadonlyArray<string>): Record<Exclude<NextSubgoal, "other">, boolean> => ({
    search: rs.some((r) => unknownIn(r) > 0),
    fetch: rs.some(objIn),
    tool: rs.some(toolIn),
    deliver: rs.some((r) => recIn(r, task.target))
  })
  const bit = (b: boolean): number => (b ? 1 : 0)
  const serves = (h: ReturnType<typeof holds>): boolean => next !== "other" && h[next]
  const u = unknownIn(here)
  const inHere = holds([here])
  const flags = `o${bit(inHere.fetch)}t${bit(inHere.deliver)}${task.tool !== undefined ? `x${bit(inHere.tool)}` : ""}`
  const state = [
    `hh:room-unknown:${Math.min(u, 3)}`,
    `hh:room-has:${flags}`,
    `hh:phase-room:${phase}|u${Math.min(u, 1)}|${flags}`,
    `hh:next-here:${next}|${bit(serves(inHere))}`
  ]
  const doors = new Set(s.rooms.get(here)?.doors ?? [])
  const roomKeys = (room: string): Array<string> | undefined => {
    if (!doors.has(room)) return undefined
    const through = holds(region(room))
    const f = [
      "goroom",
      `goroom:visited:${bit(s.rooms.has(room))}`,
      `goroom:unexplored:${bit(through.search)}`,
      `goroom:obj:${bit(through.fetch)}`,
      `goroom:tgt:${bit(through.deliver)}`,
      `goroom:next:${next}|${bit(serves(through))}`
    ]
    if (task.tool !== undefined) f.push(`goroom:tool:${bit(through.tool)}`)
    return f
  }
  return { state, roomKeys }
}

// ---------------------------------------------------------------------------------------------------------------
// Sokoban grids
// ---------------------------------------------------------------------------------------------------------------

const DIRS: Record<string, readonly [number, number]> = { up: [0, -1], down: [0, 1], left: [-1, 0], right: [1, 0] }
const GRID_LINE = /^[#_OX√PS]+$/

/** The grid lines of a RAGEN Sokoban observation (lines made only of `# _ O X √ P S`), or undefined. */
export const parseSokobanGrid = (observation: string): Array<string> | undefined => {
  const lines = observation.split("\n").map((l) => l.trim()).filter((l) => GRID_LINE.test(l))
  return lines.length >= 3 ? lines : undefined
}

const sign = (x: number) => (x > 0 ? 1 : x < 0 ? -1 : 0)

/**
 * Egocentric state keys and per-action local keys of a Sokoban grid (see the module docs); undefined when the grid
 * has no player or no box or an action is not a direction.
 */
export const sokobanFeatures = (
  grid: ReadonlyArray<string>,
  actions: ReadonlyArray<string>
): { readonly state: Array<string>; readonly actions: Array<Array<string>> } | undefined => {
  const at = (x: number, y: number): string => (y >= 0 && y < grid.length && x >= 0 && x < grid[y]!.length ? grid[y]![x]! : "#")
  let px = -1, py = -1, bx = -1, by = -1, tx = -1, ty = -1
  for (let y = 0; y < grid.length; y++) {
    for (let x = 0; x < grid[y]!.length; x++) {
      const c = grid[y]![x]!
      if (c === "P" || c === "S") {
        px = x
        py = y
      }
      if (c === "X" || c === "√") {
        bx = x
        by = y
      }
      if (c === "O" || c === "S" || c === "√") {
        tx = x
        ty = y
      }
    }
  }
  if (px < 0 || bx < 0 || tx < 0) return undefined
  const dirs = actions.map((a) => DIRS[a.trim().toLowerCase()])
  if (dirs.some((d) => d === undefined)) return undefined
  const state: Array<string> = [`sk:box:${bx - px},${by - py}`, `sk:tgt:${tx - px},${ty - py}`, `sk:boxtgt:${tx - bx},${ty - by}`]
  for (let dy = -2; dy <= 2; dy++) for (let dx = -2; dx <= 2; dx++) if (dx !== 0 || dy !== 0) state.push(`sk:win:${dx},${dy}:${at(px + dx, py + dy)}`)
  const isWall = (x: number, y: number) => at(x, y) === "#"
  const free = (c: string) => c === "_" || c === "O"
  // push positions: the cell behind the box for each push direction that reduces the box-target distance
  const pushFrom: Array<[number, number]> = []
  if (tx !== bx) pushFrom.push([bx - sign(tx - bx), by])
  if (ty !== by) pushFrom.push([bx, by - sign(ty - by)])
  const distPush = (x: number, y: number) => Math.min(...pushFrom.map(([qx, qy]) => Math.abs(qx - x) + Math.abs(qy - y)))
  const out = dirs.map((d) => {
    const [dx, dy] = d!
    const c1 = at(px + dx, py + dy)
    const c2 = at(px + 2 * dx, py + 2 * dy)
    const f = [`sk:c1:${c1}`, `sk:c1c2:${c1}${c2}`]
    if (c1 === "X" || c1 === "√") {
      if (!free(c2)) f.push("sk:push:blocked")
      else {
        const nbx = bx + dx, nby = by + dy
        const before = Math.abs(tx - bx) + Math.abs(ty - by)
        const after = Math.abs(tx - nbx) + Math.abs(ty - nby)
        const onTarget = nbx === tx && nby === ty
        const corner = !onTarget && (isWall(nbx - 1, nby) || isWall(nbx + 1, nby)) && (isWall(nbx, nby - 1) || isWall(nbx, nby + 1))
        f.push(`sk:push:${sign(after - before)}`, `sk:push:target:${onTarget ? 1 : 0}`, `sk:push:corner:${corner ? 1 : 0}`)
      }
    } else if (c1 === "#") f.push("sk:move:wall")
    else if (pushFrom.length > 0) {
      f.push(`sk:move:push-pos:${sign(distPush(px + dx, py + dy) - distPush(px, py))}`)
      f.push(`sk:move:box:${sign(Math.abs(bx - px - dx) + Math.abs(by - py - dy) - Math.abs(bx - px) - Math.abs(by - py))}`)
    }
    return f
  })
  return { state, actions: out }
}

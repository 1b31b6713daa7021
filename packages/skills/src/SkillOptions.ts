/**
 * Skills as options (Sutton, Precup & Singh 1999): a wrapper over a text environment whose action set is the
 * environment's admissible commands plus `skill NAME ARG...` commands; a skill command runs the skill in the sandbox,
 * where it drives the environment through two granted host functions, until it returns or the episode ends.
 *
 * **Details**
 * - Guest API: `observe()` → `{ observation, admissible, task, done }`; `act(command)` → `{ observation, reward,
 *   admissible, done, won }`. `act` checks the command against the environment's admissible commands: an inadmissible
 *   command (or any `act` after the episode ended, or more than `maxPrimitiveSteps`) is refused with `HostCallError`,
 *   which ends the skill; the primitive steps it took stand.
 * - `step(action)` is an Effect (the sandbox is asynchronous). For a primitive command it steps the environment
 *   (`info.primitiveSteps = 1`); for a skill command it returns the last primitive step's observation and flags, the
 *   summed reward, `info.primitiveSteps`, `info.skill`, `info.skillResult` or `info.skillError`. A skill that takes
 *   no step returns the current observation with reward 0 (a wasted decision, as an invalid command would be).
 * - `admissibleActions()`: the environment's commands followed by the grounded skill commands, which each
 *   {@link SkillOption}'s `ground(env)` lists (argument tuples that make sense now, e.g. object types in the room).
 *   Arguments are single words (TextHousehold object and receptacle types are); the last parameter takes the rest.
 *
 * @see Sutton, Precup, Singh, "Between MDPs and semi-MDPs", Artificial Intelligence 112 (1999)
 * @since 0.1.0
 */
import type { Env, TextEnv as TextEnvModule } from "@autodidact/envs"
import { Effect } from "effect"
import * as Sandbox from "./Sandbox.js"
import type * as Skill from "./Skill.js"

type TextEnv = TextEnvModule.TextEnv
type StepResult<O> = Env.StepResult<O>
import type { SkillLibrary, SkillNotFoundError } from "./SkillLibrary.js"

/** A library skill offered as an option, with the argument names in command order and a grounding. */
export interface SkillOption {
  readonly name: string
  /** Parameter names, in the order the command spells them (`skill put-in apple fridge` → `["object", "receptacle"]`). */
  readonly params: ReadonlyArray<string>
  /** Argument tuples offered in the current state (each one becomes an admissible `skill NAME a b` command). */
  readonly ground: (env: TextEnv) => ReadonlyArray<ReadonlyArray<string>>
}

/** The parse of a skill command. */
export interface SkillCommand {
  readonly name: string
  readonly args: Record<string, string>
}

/**
 * A text environment with skill commands. Wraps a `TextEnv` (which it owns: `reset` is passed through).
 *
 * @category models
 * @since 0.1.0
 */
export class SkillOptionsEnv {
  private lastObservation = ""
  private done = false

  constructor(
    readonly env: TextEnv,
    readonly library: SkillLibrary,
    readonly options: ReadonlyArray<SkillOption>,
    readonly config: { readonly maxPrimitiveSteps?: number } = {}
  ) {}

  /** Reset the wrapped environment. */
  reset(options?: Parameters<TextEnv["reset"]>[0]) {
    const r = this.env.reset(options)
    this.lastObservation = r.observation
    this.done = false
    return r
  }

  /** Primitive commands, then grounded skill commands. */
  admissibleActions(): ReadonlyArray<string> {
    const out = [...this.env.admissibleActions()]
    for (const o of this.options) for (const args of o.ground(this.env)) out.push(["skill", o.name, ...args].join(" "))
    return out
  }

  /** Only the grounded skill commands. */
  skillActions(): ReadonlyArray<string> {
    return this.admissibleActions().filter((a) => a.startsWith("skill "))
  }

  /** Parse `skill NAME a b ...` (undefined for a primitive command or an unknown skill). */
  parse(action: string): SkillCommand | undefined {
    const words = action.trim().split(/\s+/)
    if (words[0] !== "skill" || words.length < 2) return undefined
    const opt = this.options.find((o) => o.name === words[1])
    if (opt === undefined) return undefined
    const rest = words.slice(2)
    const args: Record<string, string> = {}
    opt.params.forEach((p, i) => {
      const v = i === opt.params.length - 1 ? rest.slice(i).join(" ") : rest[i]
      if (v !== undefined && v !== "") args[p] = v
    })
    return { name: opt.name, args }
  }

  /** One decision: a primitive command or a whole skill. */
  step(action: string): Effect.Effect<StepResult<string>, SkillNotFoundError> {
    const cmd = this.parse(action)
    if (cmd === undefined) {
      return Effect.sync(() => {
        const r = this.env.step(action)
        this.lastObservation = r.observation
        this.done = r.terminated || r.truncated
        return { ...r, info: { ...r.info, primitiveSteps: 1 } }
      })
    }
    return this.runSkill(cmd)
  }

  private runSkill(cmd: SkillCommand): Effect.Effect<StepResult<string>, SkillNotFoundError> {
    const maxSteps = this.config.maxPrimitiveSteps ?? 100
    let steps = 0
    let reward = 0
    let last: StepResult<string> | undefined
    const observe: Sandbox.HostFunction = () => ({
      observation: this.lastObservation,
      admissible: [...this.env.admissibleActions()],
      task: this.env.task,
      done: this.done
    })
    const act: Sandbox.HostFunction = (command) => {
      if (typeof command !== "string") throw new Sandbox.HostCallError({ fn: "act", reason: "the command must be a string" })
      if (this.done) throw new Sandbox.HostCallError({ fn: "act", reason: "the episode has ended" })
      if (steps >= maxSteps) throw new Sandbox.HostCallError({ fn: "act", reason: `more than ${maxSteps} primitive steps` })
      if (!this.env.admissibleActions().includes(command)) {
        throw new Sandbox.HostCallError({ fn: "act", reason: `inadmissible command ${JSON.stringify(command)}` })
      }
      const r = this.env.step(command)
      steps++
      reward += r.reward
      last = r
      this.lastObservation = r.observation
      this.done = r.terminated || r.truncated
      return { observation: r.observation, reward: r.reward, admissible: [...this.env.admissibleActions()], done: this.done, won: r.info["won"] === true }
    }
    return this.library.call(cmd.name, cmd.args, { observe, act }).pipe(
      Effect.map((result) => ({ ok: true as const, result })),
      Effect.catchIf(Sandbox.isSandboxError, (e) => Effect.succeed({ ok: false as const, error: `${e._tag}: ${e.message}` })),
      Effect.map((out) => {
        const info = {
          ...(last?.info ?? {}),
          primitiveSteps: steps,
          skill: cmd.name,
          ...(out.ok ? { skillResult: out.result } : { skillError: out.error })
        }
        return {
          observation: last?.observation ?? this.lastObservation,
          reward,
          terminated: last?.terminated ?? false,
          truncated: last?.truncated ?? false,
          info
        }
      })
    )
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// TextHousehold skills

const stringParams = (names: ReadonlyArray<string>) => ({
  type: "object",
  properties: Object.fromEntries(names.map((n) => [n, { type: "string" }])),
  required: [...names]
})

const common = String.raw`
function firstWithPrefix(list, prefix) { for (var i = 0; i < list.length; i++) if (list[i].indexOf(prefix) === 0) return list[i]; return null; }
function heldObject(adm, type) {
  // the held object is the one "examine O" names that is not a receptacle we stand at (objects end in a number)
  for (var i = 0; i < adm.length; i++) { var m = /^move (\S+ \d+) to /.exec(adm[i]); if (m) return m[1]; }
  var ex = adm.filter(function (a) { return a.indexOf("examine " + type + " ") === 0; });
  return ex.length > 0 ? ex[0].slice(8) : null;
}
`

/** `find-and-take`: visit receptacles (opening closed ones) until an object of the type can be taken; take it. */
export const findAndTake: Skill.SkillSpec = {
  name: "find-and-take",
  description: "find an object of a type by visiting receptacles, opening closed ones, and take it",
  parameters: stringParams(["object"]),
  result: { type: "object" },
  tags: ["TextHousehold-v0"],
  provenance: { author: "autodidact", note: "hand-written example skill" },
  source: common + String.raw`
function main(a) {
  var x = a.object;
  var o = observe();
  if (o.done) return { ok: false, reason: "done" };
  var t = firstWithPrefix(o.admissible, "take " + x + " ");
  if (t) { act(t); return { ok: true, object: t.split(" from ")[0].slice(5) }; }
  if (firstWithPrefix(o.admissible, "move ") !== null) return { ok: false, reason: "hands full" };
  var here = o.admissible.filter(function (s) { return s.indexOf("open ") === 0; });
  if (here.length > 0) {
    var r0 = act(here[0]);
    t = firstWithPrefix(r0.admissible, "take " + x + " ");
    if (t) { act(t); return { ok: true, object: t.split(" from ")[0].slice(5) }; }
  }
  var targets = o.admissible.filter(function (s) { return s.indexOf("go to ") === 0; }).map(function (s) { return s.slice(6); });
  for (var i = 0; i < targets.length; i++) {
    var r = act("go to " + targets[i]);
    if (r.done) return { ok: false, reason: "done" };
    if (r.admissible.indexOf("open " + targets[i]) >= 0) { r = act("open " + targets[i]); if (r.done) return { ok: false, reason: "done" }; }
    t = firstWithPrefix(r.admissible, "take " + x + " ");
    if (t) { act(t); return { ok: true, object: t.split(" from ")[0].slice(5) }; }
  }
  return { ok: false, reason: "not found" };
}`,
  tests: [
    {
      name: "takes it where it stands",
      input: { object: "apple" },
      expected: { ok: true, object: "apple 1" },
      host: {
        observe: [{ observation: "", admissible: ["go to fridge 1", "take apple 1 from countertop 1"], done: false }],
        act: [{ observation: "You pick up the apple 1 from the countertop 1.", admissible: [], done: false }]
      }
    },
    {
      name: "opens a closed receptacle on the way",
      input: { object: "egg" },
      expected: { ok: true, object: "egg 2" },
      host: {
        observe: [{ observation: "", admissible: ["go to countertop 1", "go to fridge 1", "look"], done: false }],
        act: [
          { admissible: ["go to fridge 1", "look"], done: false },
          { admissible: ["go to countertop 1", "open fridge 1"], done: false },
          { admissible: ["close fridge 1", "take egg 2 from fridge 1"], done: false },
          { admissible: [], done: false }
        ]
      }
    },
    {
      name: "refuses with full hands",
      input: { object: "egg" },
      expected: { ok: false, reason: "hands full" },
      host: { observe: [{ observation: "", admissible: ["go to fridge 1", "move mug 1 to countertop 1"], done: false }] }
    }
  ]
}

/** `heat-object` / `cool-object` / `clean-object`: take the held object to the appliance and apply it. */
const applyWith = (verb: "heat" | "cool" | "clean", appliance: string): Skill.SkillSpec => ({
  name: `${verb}-object`,
  description: `${verb} the held object of a type with the ${appliance}`,
  parameters: stringParams(["object"]),
  result: { type: "object" },
  tags: ["TextHousehold-v0"],
  provenance: { author: "autodidact", note: "hand-written example skill" },
  source: common + String.raw`
function main(a) {
  var x = a.object;
  var o = observe();
  if (o.done) return { ok: false, reason: "done" };
  var adm = o.admissible;
  var v = firstWithPrefix(adm, "${verb} " + x + " ");
  if (!v) {
    var g = firstWithPrefix(adm, "go to ${appliance} ");
    if (!g) return { ok: false, reason: "no ${appliance}" };
    var r = act(g);
    if (r.done) return { ok: false, reason: "done" };
    v = firstWithPrefix(r.admissible, "${verb} " + x + " ");
  }
  if (!v) return { ok: false, reason: "not holding a ${verb}able " + x };
  act(v);
  return { ok: true };
}`,
  tests: [
    {
      name: "goes to the appliance and applies it",
      input: { object: "apple" },
      expected: { ok: true },
      host: {
        observe: [{ observation: "", admissible: [`examine apple 1`, `go to ${appliance} 1`, "look"], done: false }],
        act: [{ admissible: [`${verb} apple 1 with ${appliance} 1`, "look"], done: false }, { admissible: [], done: false }]
      }
    },
    {
      name: "fails without the object",
      input: { object: "apple" },
      expected: { ok: false, reason: `not holding a ${verb}able apple` },
      host: {
        observe: [{ observation: "", admissible: [`go to ${appliance} 1`, "look"], done: false }],
        act: [{ admissible: ["look"], done: false }]
      }
    }
  ]
})

export const heatObject = applyWith("heat", "microwave")
export const coolObject = applyWith("cool", "fridge")
export const cleanObject = applyWith("clean", "sinkbasin")

/** `put-in`: take the held object to the first receptacle of a type (opening it) and move it there. */
export const putIn: Skill.SkillSpec = {
  name: "put-in",
  description: "put the held object of a type in or on a receptacle of a type, opening it if needed",
  parameters: stringParams(["object", "receptacle"]),
  result: { type: "object" },
  tags: ["TextHousehold-v0"],
  provenance: { author: "autodidact", note: "hand-written example skill" },
  source: common + String.raw`
function main(a) {
  var x = a.object, y = a.receptacle;
  var o = observe();
  if (o.done) return { ok: false, reason: "done" };
  var adm = o.admissible;
  if (!firstWithPrefix(adm, "move " + x + " ") && !firstWithPrefix(adm, "examine " + x + " ")) return { ok: false, reason: "not holding " + x };
  var m = adm.filter(function (s) { return s.indexOf("move " + x + " ") === 0 && s.indexOf(" to " + y + " ") > 0; })[0];
  if (!m) {
    var g = firstWithPrefix(adm, "go to " + y + " ");
    var o2 = adm.filter(function (s) { return s.indexOf("open " + y + " ") === 0; })[0];
    if (g) { var r = act(g); if (r.done) return { ok: false, reason: "done" }; adm = r.admissible; }
    else if (!o2) return { ok: false, reason: "no " + y };
    var op = adm.filter(function (s) { return s.indexOf("open " + y + " ") === 0; })[0];
    if (op) { var r2 = act(op); if (r2.done) return { ok: false, reason: "done" }; adm = r2.admissible; }
    m = adm.filter(function (s) { return s.indexOf("move " + x + " ") === 0 && s.indexOf(" to " + y + " ") > 0; })[0];
  }
  if (!m) return { ok: false, reason: "cannot put " + x + " in " + y };
  var last = act(m);
  return { ok: true, won: last.won === true };
}`,
  tests: [
    {
      name: "goes, opens and moves",
      input: { object: "mug", receptacle: "cabinet" },
      expected: { ok: true, won: true },
      host: {
        observe: [{ observation: "", admissible: ["examine mug 1", "go to cabinet 1", "look"], done: false }],
        act: [
          { admissible: ["examine cabinet 1", "examine mug 1", "open cabinet 1"], done: false },
          { admissible: ["close cabinet 1", "move mug 1 to cabinet 1"], done: false },
          { admissible: [], done: true, won: true }
        ]
      }
    },
    {
      name: "not holding it",
      input: { object: "mug", receptacle: "cabinet" },
      expected: { ok: false, reason: "not holding mug" },
      host: { observe: [{ observation: "", admissible: ["go to cabinet 1", "look"], done: false }] }
    }
  ]
}

/** The example TextHousehold skills. */
export const householdSkills: ReadonlyArray<Skill.SkillSpec> = [findAndTake, heatObject, coolObject, cleanObject, putIn]

const typeOf = (name: string) => name.replace(/ \d+$/, "")

/** Object types and receptacle types of a TextHousehold state, read from its `render()` text; the held object's type. */
export const householdVocabulary = (env: TextEnv): { objects: Array<string>; receptacles: Array<string>; held: string | undefined } => {
  const objects = new Set<string>()
  const receptacles = new Set<string>()
  for (const a of env.admissibleActions()) {
    const m = /^go to (.+)$/.exec(a)
    if (m !== null) receptacles.add(typeOf(m[1]!))
  }
  const text = env.render() ?? ""
  const held = /holding: ([^;]+);/.exec(text)?.[1]
  for (const line of text.split("\n")) {
    const m = /^\s+(\S+ \d+)(?: \[(?:open|closed)\])?: (.*)$/.exec(line)
    if (m === null) continue
    receptacles.add(typeOf(m[1]!))
    for (const item of m[2]!.split(/,\s*/)) if (/^\S+ \d+/.test(item)) objects.add(typeOf(/^(\S+ \d+)/.exec(item)![1]!))
  }
  return {
    objects: [...objects].sort(),
    receptacles: [...receptacles].sort(),
    held: held === undefined || held === "nothing" ? undefined : typeOf(held)
  }
}

/**
 * Options over the example skills for TextHousehold: `find-and-take O` for each object type in the room when the
 * hands are empty; `heat/cool/clean-object O` and `put-in O R` for the held object's type (each receptacle type).
 */
export const householdOptions = (names: ReadonlyArray<string> = householdSkills.map((s) => s.name)): Array<SkillOption> => {
  const all: Array<SkillOption> = [
    { name: "find-and-take", params: ["object"], ground: (env) => {
      const v = householdVocabulary(env)
      return v.held === undefined ? v.objects.filter((o) => o !== "desklamp").map((o) => [o]) : []
    } },
    ...(["heat", "cool", "clean"] as const).map((verb): SkillOption => ({
      name: `${verb}-object`,
      params: ["object"],
      ground: (env) => {
        const v = householdVocabulary(env)
        return v.held === undefined ? [] : [[v.held]]
      }
    })),
    { name: "put-in", params: ["object", "receptacle"], ground: (env) => {
      const v = householdVocabulary(env)
      return v.held === undefined ? [] : v.receptacles.map((r) => [v.held!, r])
    } }
  ]
  return all.filter((o) => names.includes(o.name))
}

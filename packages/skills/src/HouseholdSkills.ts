/**
 * Hand-written example skills for `TextHousehold-v0` (ALFWorld-style household tasks) and their groundings as
 * options: `find-and-take O`, `heat-object O`, `cool-object O`, `clean-object O` and `put-in O R`, each a sandboxed
 * JavaScript skill with scripted-host tests, in the form a Voyager skill library admits (Wang et al. 2023,
 * "Voyager: An Open-Ended Embodied Agent with Large Language Models", arXiv:2305.16291).
 *
 * **When to use**: seed a `SkillLibrary` for TextHousehold (`for (const s of householdSkills) yield*
 * library.admit(s)`), then wrap the environment in `SkillOptions.SkillOptionsEnv(env, library, householdOptions())`
 * so a policy can choose a skill as a temporally extended action (an option, Sutton, Precup & Singh 1999).
 *
 * **Details**: a skill drives the environment through the two host functions of `SkillOptions` (`observe()`,
 * `act(command)`); it returns `{ ok: true, ... }` or `{ ok: false, reason }`. Object and receptacle names in
 * arguments are types (`apple`, `cabinet`); the skill picks the instance (`apple 1`) from the admissible commands.
 *
 * **Gotchas**: the groundings read TextHousehold's `render()` text ({@link householdVocabulary}); another
 * environment needs its own groundings.
 *
 * @see Sutton, Precup, Singh, "Between MDPs and semi-MDPs", Artificial Intelligence 112 (1999)
 * @since 0.1.0
 */
import type { TextEnv as TextEnvModule } from "@autodidact/envs"
import type * as Skill from "./Skill.js"

type TextEnv = TextEnvModule.TextEnv

const stringParams = (names: ReadonlyArray<string>) => ({
  type: "object",
  properties: Object.fromEntries(names.map((n) => [n, { type: "string" }])),
  required: [...names]
})

/** Helpers every household skill's source starts with. */
const common = String.raw`
function firstWithPrefix(list, prefix) { for (var i = 0; i < list.length; i++) if (list[i].indexOf(prefix) === 0) return list[i]; return null; }
function heldObject(adm, type) {
  // the held object is the one "examine O" names that is not a receptacle we stand at (objects end in a number)
  for (var i = 0; i < adm.length; i++) { var m = /^move (\S+ \d+) to /.exec(adm[i]); if (m) return m[1]; }
  var ex = adm.filter(function (a) { return a.indexOf("examine " + type + " ") === 0; });
  return ex.length > 0 ? ex[0].slice(8) : null;
}
`

/**
 * A household skill spec: string parameters `params` (in command order), an object result, tagged
 * `TextHousehold-v0`, hand-written provenance, its `main` after the {@link common} helpers.
 */
const householdSkill = (
  name: string,
  description: string,
  params: ReadonlyArray<string>,
  main: string,
  tests: ReadonlyArray<Skill.SkillTest>
): Skill.SkillSpec => ({
  name,
  description,
  parameters: stringParams(params),
  result: { type: "object" },
  tags: ["TextHousehold-v0"],
  provenance: { author: "autodidact", note: "hand-written example skill" },
  source: common + main,
  tests
})

/** `find-and-take`: visit receptacles (opening closed ones) until an object of the type can be taken; take it. */
export const findAndTake: Skill.SkillSpec = householdSkill(
  "find-and-take",
  "find an object of a type by visiting receptacles, opening closed ones, and take it",
  ["object"],
  String.raw`
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
  [
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
)

/** `heat-object` / `cool-object` / `clean-object`: take the held object to the appliance and apply it. */
const applyWith = (verb: "heat" | "cool" | "clean", appliance: string): Skill.SkillSpec => householdSkill(
  `${verb}-object`,
  `${verb} the held object of a type with the ${appliance}`,
  ["object"],
  String.raw`
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
  [
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
)

/** `heat-object O`: go to the microwave if needed and heat the held object of type O. */
export const heatObject: Skill.SkillSpec = applyWith("heat", "microwave")
/** `cool-object O`: go to the fridge if needed and cool the held object of type O. */
export const coolObject: Skill.SkillSpec = applyWith("cool", "fridge")
/** `clean-object O`: go to the sink basin if needed and clean the held object of type O. */
export const cleanObject: Skill.SkillSpec = applyWith("clean", "sinkbasin")

/** `put-in`: take the held object to the first receptacle of a type (opening it) and move it there. */
export const putIn: Skill.SkillSpec = householdSkill(
  "put-in",
  "put the held object of a type in or on a receptacle of a type, opening it if needed",
  ["object", "receptacle"],
  String.raw`
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
  [
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
)

/** The example TextHousehold skills, in the order {@link householdOptions} offers them. */
export const householdSkills: ReadonlyArray<Skill.SkillSpec> = [findAndTake, heatObject, coolObject, cleanObject, putIn]

const typeOf = (name: string) => name.replace(/ \d+$/, "")

/**
 * Object types and receptacle types of a TextHousehold state, read from its `render()` text and its `go to`
 * commands, each sorted and without instance numbers (`apple`, not `apple 1`); `held` is the held object's type, or
 * `undefined` with empty hands.
 */
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
 * `names` keeps only the options with those names (default: all of {@link householdSkills}); admit the skills of the
 * same names to the library the options env calls, or a skill command fails with `SkillNotFoundError`.
 */
export const householdOptions = (names: ReadonlyArray<string> = householdSkills.map((s) => s.name)): Array<Skill.SkillOption> => {
  const all: Array<Skill.SkillOption> = [
    { name: "find-and-take", params: ["object"], ground: (env) => {
      const v = householdVocabulary(env)
      return v.held === undefined ? v.objects.filter((o) => o !== "desklamp").map((o) => [o]) : []
    } },
    ...(["heat", "cool", "clean"] as const).map((verb): Skill.SkillOption => ({
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

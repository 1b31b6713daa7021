/**
 * Skill discovery from successful trajectories: mine frequent delexicalized action n-grams (entity instances such as
 * `cabinet 3` replaced by variables numbered in order of appearance, so `go to {0} ; open {0} ; take {1} from {0}`),
 * compile the top ones into parameterized JavaScript macro skills, verify each on held-out episodes (run from the
 * expert's state, it must reach the expert's state n steps later), and admit those that pass and shorten episodes.
 *
 * **Details**
 * - Entities are `word number` tokens (TextHousehold's object and receptacle instance names). A macro's parameters
 *   are the entity *types* of the variables of its first step (`skill macro-go-open-take cabinet`); later variables
 *   bind to the first admissible command that fits. Each step is matched against the admissible commands in the
 *   guest; no fitting command ends the skill with `{ ok: false, step }`.
 * - A macro's admission test replays its first training occurrence as scripted `observe`/`act` replies.
 * - Verification: for up to `maxChecks` occurrences in held-out expert episodes, reset the env to the episode,
 *   replay the expert prefix, run the macro through {@link SkillOptionsEnv}, and compare `stateKey()` with the expert's
 *   after the same n-gram. The success rate is the macro's verifier score.
 * - Options: {@link macroOption} grounds a macro from what the agent sees (applicable first-step instances, goal or
 *   visible types, ranked by goal relevance, capped); {@link patternOption} is the older type-only grounding.
 * - Composition: {@link composeSkills} builds a skill that calls admitted skills in order through `callSkill`.
 *
 * @see Sutton, Precup, Singh 1999 (options); cf. frequent-subsequence macro-actions (e.g. Durugkar et al. 2016)
 * @since 0.1.0
 */
import type { TextEnv as TextEnvModule } from "@autodidact/envs"
import { Effect } from "effect"
import type * as Skill from "./Skill.js"
import type { SkillLibrary } from "./SkillLibrary.js"
import type { SkillOption } from "./Skill.js"
import { SkillOptionsEnv } from "./SkillOptions.js"

type TextEnv = TextEnvModule.TextEnv

const ENTITY = /\S+ \d+/g

/** One recorded expert episode: actions, the admissible commands before each action (and after the last), state keys. */
export interface Episode {
  readonly reset: { readonly seed: number; readonly options: Record<string, unknown> }
  readonly actions: ReadonlyArray<string>
  readonly admissible: ReadonlyArray<ReadonlyArray<string>>
  readonly stateKeys: ReadonlyArray<string>
  readonly won: boolean
  /** The task text (for goal-bound variables); absent in episodes recorded before it was kept. */
  readonly task?: string
}

/** Roll out `policy` (e.g. the env's expert) from a reset; records what discovery needs. */
export const rollout = (
  env: TextEnv,
  reset: Episode["reset"],
  policy: (env: TextEnv) => string,
  maxSteps = 100
): Episode => {
  env.reset(reset)
  const task = env.task
  const actions: Array<string> = []
  const admissible: Array<ReadonlyArray<string>> = [[...env.admissibleActions()]]
  const stateKeys: Array<string> = [env.stateKey()]
  let won = false
  for (let t = 0; t < maxSteps; t++) {
    const a = policy(env)
    const r = env.step(a)
    actions.push(a)
    admissible.push([...env.admissibleActions()])
    stateKeys.push(env.stateKey())
    if (r.terminated || r.truncated) {
      won = r.info["won"] === true || (r.terminated && r.reward > 0)
      break
    }
  }
  return { reset, actions, admissible, stateKeys, won, task }
}

/** Delexicalize a window of actions: the template key and the entity instances in variable order. */
export const delexicalize = (actions: ReadonlyArray<string>): { steps: Array<string>; entities: Array<string> } => {
  const entities: Array<string> = []
  const steps = actions.map((a) =>
    a.replace(ENTITY, (e) => {
      let i = entities.indexOf(e)
      if (i < 0) i = entities.push(e) - 1
      return `{${i}}`
    })
  )
  return { steps, entities }
}

const typeOf = (instance: string) => instance.replace(/ \d+$/, "")
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** Match a step template (`take {1} from {0}`) against a command; the instances by variable, or undefined. */
export const matchStep = (template: string, command: string): Map<number, string> | undefined => {
  const { re, vars } = compileStep(template)
  const mm = re.exec(command)
  if (mm === null) return undefined
  const out = new Map<number, string>()
  for (const [k, v] of vars.entries()) {
    const prev = out.get(v)
    if (prev !== undefined && prev !== mm[k + 1]) return undefined
    out.set(v, mm[k + 1]!)
  }
  return out
}

const compiled = new Map<string, { readonly re: RegExp; readonly vars: ReadonlyArray<number> }>()
/** A step template's anchored regular expression and its variables in order (memoized: templates are few). */
const compileStep = (template: string) => {
  let c = compiled.get(template)
  if (c === undefined) {
    const vars: Array<number> = []
    const re = template.split(/(\{\d+\})/).map((p) => {
      const m = /^\{(\d+)\}$/.exec(p)
      if (m === null) return escapeRe(p)
      vars.push(Number(m[1]))
      return "(\\S+ \\d+)"
    }).join("")
    c = { re: new RegExp(`^${re}$`), vars }
    if (compiled.size < 10_000) compiled.set(template, c)
  }
  return c
}

/** A mined pattern. */
export interface Pattern {
  readonly steps: ReadonlyArray<string>
  /** Number of occurrences in the training episodes. */
  readonly count: number
  /** Number of distinct training episodes it occurs in. */
  readonly episodes: number
  /** Occurrences: episode index and start position. */
  readonly occurrences: ReadonlyArray<{ readonly episode: number; readonly start: number }>
}

/** Frequent delexicalized n-grams (length `minN..maxN`) of successful episodes, by `count * (n - 1)` (steps saved). */
export const minePatterns = (
  episodes: ReadonlyArray<Episode>,
  options: { readonly minN?: number; readonly maxN?: number; readonly minEpisodes?: number; readonly top?: number } = {}
): Array<Pattern> => {
  const minN = options.minN ?? 2
  const maxN = options.maxN ?? 4
  const table = new Map<string, { steps: Array<string>; occ: Array<{ episode: number; start: number }>; eps: Set<number> }>()
  episodes.forEach((ep, e) => {
    if (!ep.won) return
    for (let n = minN; n <= maxN; n++) {
      for (let s = 0; s + n <= ep.actions.length; s++) {
        const { steps } = delexicalize(ep.actions.slice(s, s + n))
        const key = steps.join(" ; ")
        let row = table.get(key)
        if (row === undefined) table.set(key, row = { steps, occ: [], eps: new Set() })
        row.occ.push({ episode: e, start: s })
        row.eps.add(e)
      }
    }
  })
  return [...table.values()]
    .filter((r) => r.eps.size >= (options.minEpisodes ?? 3))
    .map((r) => ({ steps: r.steps, count: r.occ.length, episodes: r.eps.size, occurrences: r.occ }))
    .sort((a, b) => b.count * (b.steps.length - 1) - a.count * (a.steps.length - 1) || (a.steps.join() < b.steps.join() ? -1 : 1))
    .slice(0, options.top ?? 10)
}

/** Variables of a pattern in order of appearance (the macro's parameters: entity types, `x0`, `x1`, ...). */
export const patternParams = (steps: ReadonlyArray<string>): Array<number> =>
  [...new Set(steps.flatMap((st) => [...st.matchAll(/\{(\d+)\}/g)].map((m) => Number(m[1]))))]

const MACRO_RUNTIME = String.raw`
function esc(s) { return s.replace(/[.*+?^${"$"}{}()|[\]\\]/g, "\\$&"); }
var COMPILED = Object.create(null);
function compile(template) {
  var c = COMPILED[template];
  if (c) return c;
  var vars = [];
  var re = template.split(/(\{\d+\})/).map(function (p) { var m = /^\{(\d+)\}$/.exec(p); if (!m) return esc(p); vars.push(m[1]); return "(\\S+ \\d+)"; }).join("");
  c = { re: new RegExp("^" + re + "$"), vars: vars };
  COMPILED[template] = c;
  return c;
}
function fit(template, cmd, bind, types) {
  var c = compile(template), vars = c.vars;
  var mm = c.re.exec(cmd);
  if (!mm) return null;
  var nb = {};
  for (var k = 0; k < vars.length; k++) {
    var v = vars[k], inst = mm[k + 1];
    var prev = bind[v] !== undefined ? bind[v] : nb[v];
    if (prev !== undefined) { if (prev !== inst) return null; }
    else if (types[v] !== undefined && inst !== types[v] && inst.indexOf(types[v] + " ") !== 0) return null;
    nb[v] = inst;
  }
  return nb;
}
function main(a) {
  var types = {};
  for (var i = 0; i < PARAMS.length; i++) { var g = a ? a["x" + PARAMS[i]] : undefined; if (typeof g === "string" && g !== "" && g !== "-") types[PARAMS[i]] = g; }
  var o = observe();
  if (o.done) return { ok: false, step: 0 };
  var adm = o.admissible, bind = {}, n = 0;
  for (var s = 0; s < STEPS.length; s++) {
    var cmd = null, nb = null;
    for (var j = 0; j < adm.length && cmd === null; j++) { nb = fit(STEPS[s], adm[j], bind, types); if (nb) cmd = adm[j]; }
    if (cmd === null) return { ok: false, step: s };
    for (var v in nb) bind[v] = nb[v];
    var r = act(cmd); n++;
    if (r.done) return { ok: true, steps: n, done: true };
    adm = r.admissible;
  }
  return { ok: true, steps: n };
}`

/** Whether the macro, given the occurrence's entity types, picks the expert's commands there (first fitting command). */
export const replaysAt = (steps: ReadonlyArray<string>, ep: Episode, start: number): boolean => {
  const { entities } = delexicalize(ep.actions.slice(start, start + steps.length))
  const bind = new Map<number, string>()
  for (const [i, st] of steps.entries()) {
    const pick = ep.admissible[start + i]!.find((c) => {
      const m = matchStep(st, c)
      return m !== undefined && [...m].every(([v, inst]) => (bind.get(v) ?? inst) === inst && typeOf(inst) === typeOf(entities[v]!))
    })
    if (pick !== ep.actions[start + i]) return false
    for (const [v, inst] of matchStep(st, pick)!) bind.set(v, inst)
  }
  return true
}

/** The macro skill of a pattern (its test replays the first occurrence in `episodes` that it reproduces). */
export const patternToSkill = (pattern: Pattern, episodes: ReadonlyArray<Episode>, name: string, tags: ReadonlyArray<string> = []): Skill.SkillSpec => {
  const params = patternParams(pattern.steps)
  const first = pattern.occurrences.find((o) => replaysAt(pattern.steps, episodes[o.episode]!, o.start)) ?? pattern.occurrences[0]!
  const ep = episodes[first.episode]!
  const n = pattern.steps.length
  const { entities } = delexicalize(ep.actions.slice(first.start, first.start + n))
  const input = Object.fromEntries(params.map((p) => [`x${p}`, typeOf(entities[p]!)]))
  const types = variableTypes(pattern, episodes)
  return {
    name,
    description: `macro: ${pattern.steps.join("; ")} (mined from ${pattern.count} occurrences in ${pattern.episodes} episodes)`,
    // each parameter's `enum`: the entity types the variable took in training (what `macroOf` gives back as varTypes)
    parameters: {
      type: "object",
      properties: Object.fromEntries(params.map((p) => [`x${p}`, { type: "string", description: "an entity type", ...(types[p] ? { enum: types[p] } : {}) }]))
    },
    result: { type: "object" },
    source: `var STEPS = ${JSON.stringify(pattern.steps)};\nvar PARAMS = ${JSON.stringify(params.map(String))};\n${MACRO_RUNTIME}\n`,
    tests: [{
      name: "replays its first occurrence",
      input,
      expected: { ok: true, steps: n },
      host: {
        observe: [{ observation: "", admissible: ep.admissible[first.start], done: false }],
        act: Array.from({ length: n }, (_, i) => ({ observation: "", admissible: ep.admissible[first.start + i + 1], done: false }))
      }
    }],
    provenance: { author: "discovery", episodeId: `seed ${ep.reset.seed}`, note: `n-gram at step ${first.start}` },
    tags: ["discovered", ...tags]
  }
}

/** A discovered macro read back from its skill spec. */
export interface Macro {
  readonly steps: ReadonlyArray<string>
  /** Entity types per variable, from the parameters' `enum`s (empty for specs written before they were recorded). */
  readonly varTypes: Record<number, ReadonlyArray<string>>
}

/**
 * The macro of a skill written by {@link patternToSkill} (its source starts with `var STEPS = [...]`), so that a saved
 * library's discovered skills can become options again ({@link macroOption}(spec.name, m.steps, m.varTypes));
 * undefined for any other skill.
 */
export const macroOf = (spec: Skill.SkillSpec): Macro | undefined => {
  const m = /^var STEPS = (\[.*?\]);\n/.exec(spec.source)
  if (m === null) return undefined
  let steps: unknown
  try {
    steps = JSON.parse(m[1]!)
  } catch {
    return undefined
  }
  if (!Array.isArray(steps) || steps.length === 0 || !steps.every((x) => typeof x === "string")) return undefined
  const props = (spec.parameters["properties"] ?? {}) as Record<string, { enum?: unknown }>
  const varTypes: Record<number, ReadonlyArray<string>> = {}
  for (const v of patternParams(steps as Array<string>)) {
    const e = props[`x${v}`]?.enum
    if (Array.isArray(e) && e.every((x) => typeof x === "string")) varTypes[v] = e as Array<string>
  }
  return { steps: steps as Array<string>, varTypes }
}

/** The entity types each variable of a pattern took in its occurrences (the candidates its option grounds with). */
export const variableTypes = (pattern: Pattern, episodes: ReadonlyArray<Episode>): Record<number, ReadonlyArray<string>> => {
  const out: Record<number, Set<string>> = {}
  for (const o of pattern.occurrences) {
    const { entities } = delexicalize(episodes[o.episode]!.actions.slice(o.start, o.start + pattern.steps.length))
    entities.forEach((e, v) => (out[v] ??= new Set()).add(typeOf(e)))
  }
  return Object.fromEntries(Object.entries(out).map(([v, ts]) => [v, [...ts].sort()]))
}

/**
 * The option of a macro: the first step's variables are grounded by the admissible commands that fit it; each other
 * variable by the entity types present now (in the admissible commands and the `render()` text) that it took in the
 * training occurrences (`varTypes`; any present type when absent); at most `maxGroundings` tuples, evenly sampled.
 */
export const patternOption = (
  name: string,
  steps: ReadonlyArray<string>,
  varTypes: Record<number, ReadonlyArray<string>> = {},
  maxGroundings = 16
): SkillOption => {
  const params = patternParams(steps)
  const rest = params.filter((p) => !steps[0]!.includes(`{${p}}`))
  return {
    name,
    params: params.map((p) => `x${p}`),
    ground: (env) => {
      const adm = env.admissibleActions()
      const present = new Set<string>()
      for (const text of [...adm, env.render() ?? ""]) for (const m of text.matchAll(ENTITY)) present.add(typeOf(m[0]))
      const firsts = new Map<string, Map<number, string>>()
      for (const c of adm) {
        const m = matchStep(steps[0]!, c)
        if (m !== undefined) firsts.set([...m.values()].map(typeOf).join(" "), m)
      }
      const candidates = rest.map((v) => [...present].filter((t) => varTypes[v] === undefined || varTypes[v]!.includes(t)).sort())
      const all: Array<Array<string>> = []
      for (const m of firsts.values()) {
        const partial = (i: number, acc: ReadonlyArray<string>): void => {
          if (all.length >= 10_000) return
          if (i === rest.length) {
            all.push(params.map((p) => typeOf(m.get(p) ?? acc[rest.indexOf(p)]!)))
            return
          }
          for (const w of candidates[i]!) partial(i + 1, [...acc, w])
        }
        partial(0, [])
      }
      if (all.length <= maxGroundings) return all
      return Array.from({ length: maxGroundings }, (_, i) => all[Math.floor(i * all.length / maxGroundings)]!)
    }
  }
}

const taskWords = (task: string): Set<string> => new Set(task.toLowerCase().match(/[a-z0-9]+/g) ?? [])

/** Grounding options of {@link macroOption}. */
export interface MacroGrounding {
  /** Most argument tuples offered per state (default 4), the most goal-relevant first. */
  readonly maxGroundings?: number
  /** Restrict later variables to the entity types they took in training (default true). */
  readonly trainingTypesOnly?: boolean
}

/**
 * The option of a macro, grounded from what the agent can see (the admissible commands and the task text; never
 * the hidden world state):
 * - the variables of the first step are bound to the *instances* of each admissible command that fits it (so the
 *   first step is applicable by construction, and `go to {0}` becomes one call per reachable receptacle);
 * - every other variable to an entity *type* named in the task or present in the admissible commands, among the
 *   types it took in training (`varTypes`; any such type when `trainingTypesOnly` is false or `varTypes` lacks it);
 * - tuples are ranked by how many arguments the task names (goal relevance), ties in admissible order, and at most
 *   `maxGroundings` are offered. Duplicate tuples are dropped; a 1-step pattern gets no option (it would only repeat
 *   a primitive).
 */
export const macroOption = (
  name: string,
  steps: ReadonlyArray<string>,
  varTypes: Record<number, ReadonlyArray<string>> = {},
  config: MacroGrounding = {}
): SkillOption => {
  const params = patternParams(steps)
  const first = new Set(patternParams([steps[0]!]))
  const rest = params.filter((p) => !first.has(p))
  const cap = config.maxGroundings ?? 4
  const onlyTraining = config.trainingTypesOnly ?? true
  return {
    name,
    params: params.map((p) => `x${p}`),
    expand: (args) => steps.map((st) => st.replace(/\{(\d+)\}/g, (w, v: string) => args[params.indexOf(Number(v))] ?? w)),
    ground: (env) => {
      if (steps.length < 2) return []
      const adm = env.admissibleActions()
      const goal = taskWords(env.task)
      const present = new Set<string>()
      for (const text of adm) for (const m of text.matchAll(ENTITY)) present.add(typeOf(m[0]))
      const candidates = rest.map((v) =>
        [...new Set([...present, ...goal])].filter((t) => (goal.has(t) || present.has(t)) && (!onlyTraining || varTypes[v] === undefined || varTypes[v]!.includes(t)))
      )
      const seen = new Set<string>()
      const scored: Array<{ args: Array<string>; score: number; order: number }> = []
      for (const c of adm) {
        const m = matchStep(steps[0]!, c)
        if (m === undefined) continue
        const expand = (i: number, acc: ReadonlyArray<string>): void => {
          if (scored.length >= 10_000) return
          if (i === rest.length) {
            const args = params.map((p) => first.has(p) ? m.get(p)! : acc[rest.indexOf(p)]!)
            const key = args.join("\u0000")
            if (seen.has(key)) return
            seen.add(key)
            const score = args.filter((a) => goal.has(typeOf(a))).length
            scored.push({ args, score, order: scored.length })
            return
          }
          for (const w of candidates[i]!) expand(i + 1, [...acc, w])
        }
        expand(0, [])
      }
      scored.sort((a, b) => b.score - a.score || a.order - b.order)
      return scored.slice(0, cap).map((x) => x.args)
    }
  }
}

/**
 * A composite skill (skills calling skills, Voyager-style): calls `parts` in order through `callSkill`, passing
 * each the composite's arguments; stops at the first part that fails (`ok: false`) or ends the episode (`done`).
 * Returns `{ ok: true, parts, results }`, or `{ ok: false, parts: <how many ran>, failed: <the part> }`. Its admission test checks, on a scripted host whose episode has
 * ended, that the first part's refusal stops the composite (the children's host I/O is scripted, see
 * `SkillLibrary.check`); the parts must be admitted first.
 */
export const composeSkills = (name: string, parts: ReadonlyArray<string>, description?: string): Skill.SkillSpec => ({
  name,
  description: description ?? `composite: ${parts.join(" then ")}`,
  parameters: { type: "object" },
  result: { type: "object" },
  source: `var PARTS = ${JSON.stringify(parts)};
function main(a) {
  var results = [];
  for (var i = 0; i < PARTS.length; i++) {
    var r = callSkill(PARTS[i], a);
    results.push(r);
    if (!r || r.ok !== true) return { ok: false, parts: i + 1, failed: PARTS[i] };
    if (r.done) return { ok: true, parts: i + 1, results: results, done: true };
  }
  return { ok: true, parts: PARTS.length, results: results };
}`,
  tests: [{
    name: "stops at the first failing part",
    input: {},
    expected: { ok: false, parts: 1, failed: parts[0] },
    host: { observe: [{ observation: "", admissible: [], done: true }] }
  }],
  provenance: { author: "discovery", note: `composed of ${parts.join(", ")}` },
  tags: ["composite"]
})

/** Outcome of discovery for one pattern. */
export interface Discovered {
  readonly name: string
  readonly steps: ReadonlyArray<string>
  /** Entity types each variable took in training (the option's grounding candidates). */
  readonly varTypes: Record<number, ReadonlyArray<string>>
  readonly count: number
  readonly checks: number
  readonly successRate: number
  /** Mean decisions saved per held-out expert episode (greedy replacement of verified occurrences). */
  readonly savedPerEpisode: number
  readonly admitted: boolean
  readonly reason?: string
}

/**
 * Mine `train` episodes, verify on `heldOut` (replayed in `env`), admit to `library` those with success rate
 * ≥ `threshold` (default 0.8) that save decisions on held-out episodes.
 */
export const discover = (
  library: SkillLibrary,
  env: TextEnv,
  train: ReadonlyArray<Episode>,
  heldOut: ReadonlyArray<Episode>,
  options: { readonly top?: number; readonly maxN?: number; readonly maxChecks?: number; readonly threshold?: number; readonly prefix?: string } = {}
) =>
  Effect.gen(function*() {
    const patterns = minePatterns(train, { top: options.top ?? 8, maxN: options.maxN ?? 4 })
    const out: Array<Discovered> = []
    for (const [i, p] of patterns.entries()) {
      const name = `${options.prefix ?? "macro"}${i}-${p.steps.map((s) => s.split(" ")[0]).join("-")}`.slice(0, 64)
      const spec = patternToSkill(p, train, name)
      const varTypes = variableTypes(p, train)
      const admittedTrial = yield* Effect.result(library.admit(spec))
      if (admittedTrial._tag === "Failure") {
        out.push({ name, steps: p.steps, varTypes, count: p.count, checks: 0, successRate: 0, savedPerEpisode: 0, admitted: false, reason: String(admittedTrial.failure.reason) })
        continue
      }
      const wrapped = new SkillOptionsEnv(env, library, [patternOption(name, p.steps, varTypes)])
      // held-out occurrences
      const n = p.steps.length
      let checks = 0
      let ok = 0
      let saved = 0
      for (const ep of heldOut) {
        if (!ep.won) continue
        let t = 0
        while (t + n <= ep.actions.length) {
          const key = delexicalize(ep.actions.slice(t, t + n)).steps.join(" ; ")
          if (key !== p.steps.join(" ; ")) {
            t++
            continue
          }
          if (checks >= (options.maxChecks ?? 20)) {
            t += n
            saved += 0
            continue
          }
          checks++
          wrapped.reset(ep.reset)
          for (let s = 0; s < t; s++) env.step(ep.actions[s]!)
          const { entities } = delexicalize(ep.actions.slice(t, t + n))
          const args = patternParams(p.steps).map((v) => typeOf(entities[v]!))
          yield* wrapped.step(["skill", name, ...args].join(" "))
          if (env.stateKey() === ep.stateKeys[t + n]) {
            ok++
            saved += n - 1
          }
          t += n
        }
      }
      const rate = checks === 0 ? 0 : ok / checks
      const perEp = heldOut.length === 0 ? 0 : saved / heldOut.length
      const admitted = rate >= (options.threshold ?? 0.8) && perEp > 0
      if (!admitted) yield* library.remove(name)
      out.push({
        name,
        steps: p.steps,
        varTypes,
        count: p.count,
        checks,
        successRate: rate,
        savedPerEpisode: perEp,
        admitted,
        ...(admitted ? {} : { reason: checks === 0 ? "no held-out occurrence" : `held-out success ${rate.toFixed(2)}` })
      })
    }
    return out
  })

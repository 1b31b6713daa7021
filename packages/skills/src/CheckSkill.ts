/**
 * A conformance check for skills (the {@link Skill.SkillSpec} contract), in the spirit of Gymnasium's `check_env`:
 * one call tells a contributor whether a new skill is admissible, runs in the sandbox as documented, and keeps the
 * promises a caller relies on. Every call runs in a synchronous QuickJS runner ({@link SyncSandbox}: the worker
 * sandbox's guest API, limits and typed errors, in-process and cheap).
 *
 * **Properties** (each finding starts with the property's name)
 * - `metadata`: the spec decodes with the `SkillSpec` schema; the name is a valid skill name
 *   ({@link Skill.isValidName}); the description is not blank; `parameters` is an object schema for LLM tool calling
 *   (`type: "object"`, `properties` an object, every `required` name among the properties); `result` is a schema
 *   object; `entry`, when given, is an identifier; there is at least one test.
 * - `compile`: the source compiles in the sandbox and defines the entry function.
 * - `tests`: every own test (with its scripted host) returns its `expected` value (deep JSON equality) — the test
 *   stage of `SkillLibrary.check`.
 * - `parameters`: at least one test input conforms to the `parameters` schema (the documented input is exercised;
 *   tests of bad arguments may add inputs that do not).
 * - `result`: every value the skill returns in its tests conforms to the `result` schema (a subset of JSON Schema:
 *   `type`, `const`, `enum`, `anyOf`/`oneOf`/`allOf`/`not`, `properties`, `required`, `additionalProperties`,
 *   `items`, numeric and string bounds, `pattern`).
 * - `limits`: no test call ends in `SkillTimeoutError`, `SkillMemoryError` or `SkillStackOverflowError` under the
 *   runner's limits (`timeoutMs`, default 2000 ms); a bad-argument probe that does is a `bad-arguments` finding.
 * - `determinism`: the same input and the same host replies give the same result and the same host calls (no
 *   `Math.random`, clock or other hidden input).
 * - `bad-arguments`: calls with bad arguments (`undefined`, `null`, `42`, `"x"`, `{}`, `[]`, and each required
 *   parameter missing or set to `null`) end in a typed guest error (`SkillRuntimeError`, `HostCallError`) or a value
 *   conforming to `result` — never a hang, an exhausted limit or an untyped exception.
 * - `isolation`: running the tests in reverse order on the same runner gives the same results as in order (no state
 *   carried between calls), and a run leaves the host's `globalThis` keys and the spec itself unchanged (with
 *   `asOptions` and `env`, grounding leaves the environment unchanged too).
 * - `option` (with `options.asOptions`, the skill's groundings as options, {@link Skill.SkillOption}): each has the
 *   skill's name and parameter names among the `parameters` properties, covering the required ones; in
 *   `options.env` (a reset text environment) `ground(env)` returns argument tuples of strings, one per parameter,
 *   the same twice; `expand`, when given, returns commands (strings) for the first tuple; neither throws, and
 *   neither changes the environment (`stateKey()` and `render()` unchanged) — the grounding runs on every step of
 *   an options environment, so it must only read.
 * - `admission`: with `options.library`, the library's own admission check (`SkillLibrary.check`, including its
 *   verifier) accepts the spec.
 *
 * A broken contract throws {@link SkillCheckError} listing every finding; success returns a {@link SkillCheckReport}.
 *
 * @example
 * ```ts
 * import { CheckSkill, HouseholdSkills } from "@autodidact/skills"
 * const report = await CheckSkill.checkSkill(HouseholdSkills.putIn) // throws SkillCheckError on failure
 * report.calls // sandbox calls made
 * ```
 * @see https://github.com/Farama-Foundation/Gymnasium/blob/v1.4.0/gymnasium/utils/env_checker.py (the model)
 * @see Wang et al., "Voyager: An Open-Ended Embodied Agent with Large Language Models", arXiv:2305.16291
 * @since 0.1.0
 */
import type { TextEnv } from "@autodidact/envs"
import { Effect, Schema } from "effect"
import { deepEqual, violation } from "./internal/Json.js"
import { clip } from "./internal/Text.js"
import * as Sandbox from "./Sandbox.js"
import * as Skill from "./Skill.js"
import { scriptedHost } from "./SkillLibrary.js"
import * as SyncSandbox from "./SyncSandbox.js"

/**
 * The skill breaks its contract; `findings` lists every problem found, each as `property: what was wrong`.
 * @category errors
 * @since 0.1.0
 */
export class SkillCheckError extends Schema.TaggedError<SkillCheckError>()("SkillCheckError", {
  skill: Schema.String,
  findings: Schema.Array(Schema.String)
}) {
  override get message() {
    return `skill ${JSON.stringify(this.skill)} failed the skill check:\n${this.findings.map((f) => `  - ${f}`).join("\n")}`
  }
}

/** The properties {@link checkSkill} checks, in order. */
export const properties = [
  "metadata",
  "compile",
  "tests",
  "parameters",
  "result",
  "limits",
  "determinism",
  "bad-arguments",
  "isolation",
  "option",
  "admission"
] as const
export type Property = (typeof properties)[number]

/** What ran the skill: anything with `SyncSandbox`'s `run` (throws a `SandboxError` on failure). */
export interface Runner {
  run(request: Sandbox.RunRequest): unknown
}

/** A library whose admission check to apply: `SkillLibrary` (Effect) or `SkillLibrary.open`'s plain face. */
export interface AdmissionCheck {
  check(spec: Skill.SkillSpec): Effect.Effect<unknown, unknown> | Promise<unknown>
}

/** Options of {@link checkSkill}. */
export interface CheckSkillOptions {
  /** The runner (reuse one across skills to save the QuickJS load). Default: a fresh `SyncSandbox` with `timeoutMs`. */
  readonly runner?: Runner | undefined
  /** Time limit of the default runner's calls, in ms. Default 2000. */
  readonly timeoutMs?: number | undefined
  /** Check these groundings of the skill as options (property `option`); `env` is where they are grounded. */
  readonly asOptions?: ReadonlyArray<Skill.SkillOption> | undefined
  /** A text environment, reset, for grounding `asOptions` (without it only their names and parameters are checked). */
  readonly env?: TextEnv.TextEnv | undefined
  /** Also apply this library's admission check (its verifier included). */
  readonly library?: AdmissionCheck | undefined
}

/** What {@link checkSkill} checked. */
export interface SkillCheckReport {
  readonly skill: string
  /** Every property checked (all of {@link properties}; `option` only with `asOptions`, `admission` with `library`). */
  readonly checked: ReadonlyArray<Property>
  /** Own tests run (each at least three times: in order, again, and in reverse). */
  readonly tests: number
  /** Bad-argument probes run. */
  readonly probes: number
  /** Sandbox calls made. */
  readonly calls: number
}

const LIMIT_TAGS = new Set(["SkillTimeoutError", "SkillMemoryError", "SkillStackOverflowError"])
const show = (x: unknown): string => clip(JSON.stringify(x) ?? String(x), 160)
const isObject = (x: unknown): x is Record<string, unknown> => x !== null && typeof x === "object" && !Array.isArray(x)
const decodeSpec = Schema.decodeUnknownExit(Skill.SkillSpec)

type Outcome =
  | { readonly ok: true; readonly value: unknown; readonly calls: ReadonlyArray<unknown> }
  | { readonly ok: false; readonly error: unknown; readonly calls: ReadonlyArray<unknown> }

const describeError = (e: unknown): string =>
  Sandbox.isSandboxError(e) ? `${e._tag}: ${e.message}` : `untyped ${e instanceof Error ? `${e.name}: ${e.message}` : show(e)}`

/**
 * Check `spec` against the skill contract (see the module docs for the properties).
 *
 * @returns a report of what was checked.
 * @throws SkillCheckError (the Promise rejects) listing every finding when any property fails.
 * @category checks
 * @since 0.1.0
 */
export const checkSkill = async (spec: Skill.SkillSpec, options: CheckSkillOptions = {}): Promise<SkillCheckReport> => {
  const findings: Array<string> = []
  const fail = (p: Property, m: string) => findings.push(`${p}: ${m}`)
  const name = typeof (spec as { name?: unknown } | undefined)?.name === "string" ? spec.name : "(unnamed)"
  const done = (report: Omit<SkillCheckReport, "skill" | "checked">): SkillCheckReport => {
    if (findings.length > 0) throw new SkillCheckError({ skill: name, findings })
    const skip = (p: Property) => (p === "admission" && options.library === undefined) || (p === "option" && options.asOptions === undefined)
    return { skill: name, checked: properties.filter((p) => !skip(p)), ...report }
  }

  // metadata
  const decoded = decodeSpec(spec)
  if (decoded._tag === "Failure") {
    fail("metadata", `the spec does not decode as a SkillSpec: ${clip(String(decoded.cause), 300)}`)
    return done({ tests: 0, probes: 0, calls: 0 })
  }
  if (!Skill.isValidName(spec.name)) fail("metadata", `invalid skill name ${show(spec.name)} (want /^[A-Za-z][A-Za-z0-9_-]{0,63}$/)`)
  if (spec.description.trim() === "") fail("metadata", `the description is blank: ${show(spec.description)}`)
  const params = spec.parameters
  if (params["type"] !== "object") fail("metadata", `parameters.type is ${show(params["type"])}, not "object" (tool calling passes one object)`)
  if (params["properties"] !== undefined && !isObject(params["properties"])) fail("metadata", `parameters.properties is not an object: ${show(params["properties"])}`)
  const props = isObject(params["properties"]) ? params["properties"] : {}
  const required = params["required"]
  if (required !== undefined && !(Array.isArray(required) && required.every((r) => typeof r === "string"))) {
    fail("metadata", `parameters.required is not an array of names: ${show(required)}`)
  }
  const requiredNames = Array.isArray(required) ? required.filter((r): r is string => typeof r === "string") : []
  for (const r of requiredNames) if (!(r in props)) fail("metadata", `parameters.required names ${show(r)}, which is not among the properties ${show(Object.keys(props))}`)
  if (Object.keys(spec.result).length === 0) fail("metadata", "result is an empty schema (say what the skill returns)")
  if (spec.entry !== undefined && !/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(spec.entry)) fail("metadata", `entry ${show(spec.entry)} is not an identifier`)
  if (spec.tests.length === 0) fail("metadata", "the skill has no tests (admission needs at least one)")

  const snapshot = JSON.stringify(spec)
  // Effect registers its own global (`~effect/Fiber/currentFiber`) the first time a fiber runs asynchronously in a
  // process: run one first, so that it is not taken for the skill's doing
  await Effect.runPromise(Effect.void)
  const globalsBefore = Object.keys(globalThis).sort()
  let runner = options.runner
  const ownRunner = runner === undefined
  if (runner === undefined) runner = await Effect.runPromise(SyncSandbox.make({ timeoutMs: options.timeoutMs ?? 2000 }))
  let calls = 0
  const call = async (args: unknown, host: Readonly<Record<string, ReadonlyArray<unknown>>> | undefined, label: string): Promise<Outcome> => {
    const log: Array<unknown> = []
    calls++
    const poisoned = (runner as { isPoisoned?: boolean }).isPoisoned === true
    if (ownRunner && poisoned) runner = await Effect.runPromise(SyncSandbox.make({ timeoutMs: options.timeoutMs ?? 2000 }))
    try {
      const value = runner!.run({
        source: spec.source,
        ...(spec.entry !== undefined ? { entry: spec.entry } : {}),
        args,
        host: scriptedHost(host, { label, onCall: (fn, a) => log.push([fn, a]) })
      })
      return { ok: true, value, calls: log }
    } catch (error) {
      return { ok: false, error, calls: log }
    }
  }
  const limitHit = (o: Outcome, what: string): boolean => {
    if (o.ok || !(Sandbox.isSandboxError(o.error) && LIMIT_TAGS.has(o.error._tag))) return false
    fail("limits", `${what}: ${describeError(o.error)}`)
    return true
  }

  // compile
  try {
    calls++
    runner.run({ source: spec.source, compileOnly: true })
  } catch (e) {
    fail("compile", `the source does not compile: ${describeError(e)}`)
    return done({ tests: 0, probes: 0, calls })
  }
  {
    const entry = spec.entry ?? "main"
    const defined = await (async () => {
      calls++
      try {
        return runner!.run({ source: `${spec.source}\n;function __checkSkillEntryType() { return typeof globalThis[${JSON.stringify(entry)}] }`, entry: "__checkSkillEntryType" })
      } catch (e) {
        return describeError(e)
      }
    })()
    if (defined !== "function") fail("compile", `the source does not define the entry function ${show(entry)} (typeof is ${show(defined)})`)
  }

  // tests, result, limits, determinism
  const labelOf = (i: number) => spec.tests[i]!.name ?? `test ${i}`
  const first: Array<Outcome> = []
  for (const [i, t] of spec.tests.entries()) {
    const o = await call(t.input, t.host, `test ${show(labelOf(i))}'s script`)
    first.push(o)
    if (limitHit(o, `test ${show(labelOf(i))}`)) continue
    if (!o.ok) fail("tests", `test ${show(labelOf(i))} with input ${show(t.input)}: ${describeError(o.error)}`)
    else {
      if (!deepEqual(o.value, t.expected)) fail("tests", `test ${show(labelOf(i))} with input ${show(t.input)}: expected ${show(t.expected)}, got ${show(o.value)}`)
      const bad = violation(spec.result, o.value)
      if (bad !== undefined) fail("result", `test ${show(labelOf(i))} returned ${show(o.value)}, outside the result schema (${bad})`)
    }
  }
  const sameOutcome = (a: Outcome, b: Outcome): boolean =>
    a.ok === b.ok && deepEqual(a.calls, b.calls) &&
    (a.ok ? deepEqual(a.value, (b as { value: unknown }).value) : describeError(a.error) === describeError((b as { error: unknown }).error))
  const showOutcome = (o: Outcome) => `${o.ok ? `returned ${show(o.value)}` : describeError(o.error)} after host calls ${show(o.calls)}`
  for (const [i, t] of spec.tests.entries()) {
    const again = await call(t.input, t.host, `test ${show(labelOf(i))}'s script`)
    if (!sameOutcome(first[i]!, again)) {
      fail("determinism", `test ${show(labelOf(i))} with input ${show(t.input)} ran twice: ${showOutcome(first[i]!)}, then ${showOutcome(again)}`)
    }
  }

  // parameters
  if (spec.tests.length > 0 && !spec.tests.some((t) => violation(spec.parameters, t.input) === undefined)) {
    fail("parameters", `no test input conforms to the parameters schema (e.g. ${show(spec.tests[0]!.input)}: ${violation(spec.parameters, spec.tests[0]!.input)})`)
  }

  // bad-arguments
  const valid = spec.tests.find((t) => violation(spec.parameters, t.input) === undefined)?.input
  const probes: Array<unknown> = [undefined, null, 42, "x", {}, []]
  if (isObject(valid)) {
    for (const r of requiredNames) {
      const { [r]: _, ...missing } = valid
      probes.push(missing, { ...valid, [r]: null })
    }
  }
  const probeHost = spec.tests.find((t) => t.input === valid)?.host ?? spec.tests[0]?.host
  for (const args of probes) {
    const o = await call(args, probeHost, "the bad-argument probe's script")
    const what = `bad arguments ${args === undefined ? "undefined" : show(args)}`
    if (!o.ok && Sandbox.isSandboxError(o.error) && LIMIT_TAGS.has(o.error._tag)) fail("bad-arguments", `${what}: ${describeError(o.error)}`)
    else if (!o.ok && !Sandbox.isSandboxError(o.error)) fail("bad-arguments", `${what}: ${describeError(o.error)} (not a typed sandbox error)`)
    else if (o.ok) {
      const bad = violation(spec.result, o.value)
      if (bad !== undefined) fail("bad-arguments", `${what} returned ${show(o.value)}, outside the result schema (${bad})`)
    }
  }

  // isolation
  for (let i = spec.tests.length - 1; i >= 0; i--) {
    const t = spec.tests[i]!
    const o = await call(t.input, t.host, `test ${show(labelOf(i))}'s script`)
    if (!sameOutcome(first[i]!, o)) {
      fail("isolation", `test ${show(labelOf(i))} run after the later tests: ${showOutcome(o)}, but ${showOutcome(first[i]!)} when run in order`)
    }
  }
  const globalsAfter = Object.keys(globalThis).sort()
  if (!deepEqual(globalsBefore, globalsAfter)) {
    const added = globalsAfter.filter((k) => !globalsBefore.includes(k))
    const removed = globalsBefore.filter((k) => !globalsAfter.includes(k))
    fail("isolation", `the host's globalThis changed: added ${show(added)}, removed ${show(removed)}`)
  }
  if (JSON.stringify(spec) !== snapshot) fail("isolation", `running the skill changed its spec: ${show(JSON.parse(snapshot))} became ${show(spec)}`)

  // option
  for (const [i, o] of (options.asOptions ?? []).entries()) {
    const what = `option ${i} (${show(o.name)})`
    if (o.name !== spec.name) fail("option", `${what} is named ${show(o.name)}, not ${show(spec.name)}`)
    for (const p of o.params) if (!(p in props)) fail("option", `${what} has parameter ${show(p)}, which is not among the properties ${show(Object.keys(props))}`)
    for (const r of requiredNames) if (!o.params.includes(r)) fail("option", `${what} does not pass the required parameter ${show(r)}`)
    const env = options.env
    if (env === undefined) continue
    const state = () => {
      try {
        return JSON.stringify([env.stateKey(), env.render()])
      } catch (e) {
        return `unreadable: ${String(e)}`
      }
    }
    const before = state()
    const attempt = <A>(f: () => A, call: string): A | undefined => {
      try {
        return f()
      } catch (e) {
        fail("option", `${what}: ${call} threw ${e instanceof Error ? `${e.name}: ${e.message}` : show(e)}`)
        return undefined
      }
    }
    const a = attempt(() => o.ground(env), "ground(env)")
    const b = attempt(() => o.ground(env), "ground(env)")
    if (a !== undefined) {
      const bad = Array.isArray(a) ? a.find((t) => !Array.isArray(t) || t.length !== o.params.length || !t.every((x) => typeof x === "string")) : a
      if (!Array.isArray(a) || bad !== undefined) {
        fail("option", `${what}: ground(env) returned ${show(bad)}, not a tuple of ${o.params.length} strings (${show(o.params)})`)
      } else if (b !== undefined && !deepEqual(a, b)) fail("option", `${what}: ground(env) twice gave ${show(a)}, then ${show(b)}`)
      const first = Array.isArray(a) ? a[0] : undefined
      if (o.expand !== undefined && first !== undefined) {
        const steps = attempt(() => o.expand!(first), `expand(${show(first)})`)
        if (steps !== undefined && !(Array.isArray(steps) && steps.every((x) => typeof x === "string"))) {
          fail("option", `${what}: expand(${show(first)}) returned ${show(steps)}, not an array of commands`)
        }
      }
    }
    const after = state()
    if (after !== before) fail("isolation", `${what}: grounding changed the environment: ${clip(before, 80)} became ${clip(after, 80)}`)
  }

  // admission
  if (options.library !== undefined) {
    try {
      const r = options.library.check(spec)
      await (Effect.isEffect(r) ? Effect.runPromise(r) : r)
    } catch (e) {
      fail("admission", `the library refused it: ${e instanceof Error ? e.message : show(e)}`)
    }
  }
  return done({ tests: spec.tests.length, probes: probes.length, calls })
}

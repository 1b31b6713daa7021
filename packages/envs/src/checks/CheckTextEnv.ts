/**
 * A conformance check for text environments: the {@link TextEnv} contract (`src/text/TextEnv.ts`) on top of
 * Gymnasium's `check_env` rules, as ALFWorld-style multi-turn agent RL needs them (admissible commands, group
 * rollouts from one seed, anchor-state keys, chat rendering). It plays admissible actions from `reset({ seed })` and
 * records each broken rule as a finding `property: what was wrong (offending value)`.
 *
 * **When to use**: in the test of a new text env, on the bare env or on `Registry.make(id)` of its registration.
 *
 * **Gotchas**
 * - The env is reset and stepped; pass a fresh one. The invalid-action probe is `"xyzzy plugh"`: pass another
 *   `invalidAction` if that command can be admissible in your env.
 *
 * **Checks** (the finding's property name first)
 * - `contract`: the env, or its `unwrapped` env (what `Registry.make` wraps), has `task`, `admissibleActions`,
 *   `stateKey` and `toMessages`; `reset`/`step` are called on the env given (wrappers included), the text members on
 *   the text env.
 * - `spaces`: `observationSpace` and `actionSpace` are `Text` spaces.
 * - `reset`: `reset({ seed })` returns `{ observation, info }`; `task` is then a non-empty string.
 * - `observation`: every observation (reset and step) is a string in `observationSpace`.
 * - `admissibleActions`: while the episode runs, a non-empty array of non-empty strings, each in `actionSpace`.
 * - `step`: stepping an admissible action does not throw, returns the five fields, and is not flagged
 *   `info.invalidAction`.
 * - `reward`: every reward is a finite number.
 * - `flags`: `terminated` and `truncated` are booleans.
 * - `info`: every info is a plain object.
 * - `stateKey`: a string; equal for the two resets with the same seed.
 * - `determinism`: the same seed gives the same task, observation, admissible actions and state key, and the same
 *   admissible actions give the same trajectory (the contract's group rollouts).
 * - `invalidAction`: a command outside `admissibleActions()` gets the contract's {@link InvalidActionPolicy}: under
 *   `"error"` it throws `InvalidActionError`; under `"penalize"` the state key does not change, the reward is
 *   `invalidActionPenalty` (when the env or the options give it), `info.invalidAction` is true, and (when
 *   `maxSteps` is known) a run of invalid actions is truncated after `maxSteps` steps, since invalid steps count.
 *   The policy, penalty and step limit are read from the options, else from the text env's `invalidActionPolicy`,
 *   `invalidActionPenalty` and `maxSteps` properties (all built-ins have them); without a policy either outcome is
 *   accepted, but not another exception.
 * - `snapshot` (only for envs with `snapshot()`/`restore()`, `isRestorableTextEnv`): after a few steps from
 *   `reset({ seed })`, `snapshot()`, play admissible actions, `restore`, and play the same actions again: the same
 *   observations, rewards, flags, admissible actions and state keys (the text env is stepped directly, so that a
 *   wrapper's own counters do not interfere).
 * - `toMessages`: the trajectory played renders as one `system` turn that contains the task, then a `user` turn per
 *   step that contains its observation and an `assistant` turn whose content is its action.
 * - `unexpected`: the env threw where no call was expected to fail (a getter such as `task`): reported as a
 *   finding instead of escaping the check.
 *
 * @example
 * ```ts
 * import { CheckTextEnv, Registry } from "@autodidact/envs"
 * const report = CheckTextEnv.checkTextEnv(Registry.make("TextFrozenLake-v1"))
 * report.steps // admissible steps played; throws TextEnvCheckError listing the findings on failure
 * ```
 * @see https://github.com/Farama-Foundation/Gymnasium/blob/v1.4.0/gymnasium/utils/env_checker.py
 * @see Shridhar et al., "ALFWorld: Aligning Text and Embodied Environments for Interactive Learning", arXiv:2010.03768
 * @since 0.2.0
 */
import { Rng, Space, Trajectory } from "@autodidact/core"
import { Effect, Schema } from "effect"
import type { AnyEnv, StepResult } from "../Env.js"
import { countOption, errorText, Findings, isInfo, seedOption, serialize, show } from "../internal/CheckCommon.js"
import { type InvalidActionPolicy, isRestorableTextEnv, isTextEnv, type TextEnv } from "../text/TextEnv.js"

/**
 * The text env breaks the contract; `findings` lists every problem found (as `property: message`).
 * @category errors
 */
export class TextEnvCheckError extends Schema.TaggedError<TextEnvCheckError>()("TextEnvCheckError", {
  envId: Schema.String,
  findings: Schema.Array(Schema.String)
}) {
  override get message() {
    return `${this.envId} failed the text env check:\n${this.findings.map((f) => `  - ${f}`).join("\n")}`
  }
}

/** Options of {@link checkTextEnv}. */
export interface CheckTextEnvOptions {
  /** Seed of every reset. Default 123. */
  readonly seed?: number | undefined
  /** Admissible steps played (fewer when the episode ends first). Default 20. */
  readonly steps?: number | undefined
  /** A command that is not admissible after `reset({ seed })`. Default `"xyzzy plugh"`. */
  readonly invalidAction?: string | undefined
  /** The policy the env must follow; default the env's `invalidActionPolicy` property (else either is accepted). */
  readonly invalidActionPolicy?: InvalidActionPolicy | undefined
  /** The reward of an invalid action under `"penalize"`; default the env's `invalidActionPenalty` property. */
  readonly invalidActionPenalty?: number | undefined
  /** The step limit (invalid steps count); default the env's `maxSteps` property. Checked when at most 500. */
  readonly maxSteps?: number | undefined
}

/** What {@link checkTextEnv} saw. */
export interface TextCheckReport {
  /** Admissible steps played in the first rollout. */
  readonly steps: number
  /** How the invalid command was handled: `"penalize"` or `"error"`. */
  readonly invalidAction: InvalidActionPolicy
  /** Invalid steps played until truncation (0 when `maxSteps` is unknown or the policy is `"error"`). */
  readonly invalidSteps: number
}

const envIdOf = (env: AnyEnv): string => {
  try {
    return env.spec?.id ?? env.unwrapped?.constructor?.name ?? "TextEnv"
  } catch {
    return "TextEnv"
  }
}
const numberProp = (x: object, key: string): number | undefined => {
  const v = (x as { readonly [k: string]: unknown })[key]
  return typeof v === "number" ? v : undefined
}
const isTagged = (e: unknown, tag: string): boolean => typeof e === "object" && e !== null && (e as { _tag?: unknown })._tag === tag

/**
 * Check `env` against the text-env contract (see the module docs for the properties). `env` may be a text env or
 * a wrapper around one (`Registry.make("TextFrozenLake-v1")`). The env is reset and stepped.
 * @returns the admissible steps played, the invalid-action policy seen, and the invalid steps played.
 * @throws TextEnvCheckError listing every finding (deduplicated, at most 50); InvalidOptionError for a `steps`
 *   or `seed` that is not a non-negative integer.
 */
export const checkTextEnv = (env: TextEnv | AnyEnv, options: CheckTextEnvOptions = {}): TextCheckReport => {
  const seed = seedOption(options.seed, 123)
  const steps = countOption("steps", options.steps, 20)
  const invalid = options.invalidAction ?? "xyzzy plugh"
  const findings = new Findings()
  const add = (property: string, message: string) => findings.add(property, message)
  const envId = envIdOf(env)
  const fail = (): never => {
    throw new TextEnvCheckError({ envId, findings: findings.list() })
  }

  const body = (): TextCheckReport => {    const text: TextEnv | undefined = isTextEnv(env) ? env : isTextEnv(env.unwrapped) ? env.unwrapped : undefined
    if (text === undefined) {
      add("contract", "neither the env nor its unwrapped env has task, admissibleActions, stateKey and toMessages")
      return fail()
    }
    for (const [what, space] of [["observationSpace", env.observationSpace], ["actionSpace", env.actionSpace]] as const) {
      if (space?._tag !== "Text") add("spaces", `${what} is not a Text space: ${show(space)}`)
    }
    if (!findings.empty) fail()
    const policy = options.invalidActionPolicy ?? (text as { invalidActionPolicy?: InvalidActionPolicy }).invalidActionPolicy
    const penalty = options.invalidActionPenalty ?? numberProp(text, "invalidActionPenalty")
    // The step limit: the text env's own, or the TimeLimit of a wrapper made by `Registry.make` when that is sooner.
    const limits = [numberProp(text, "maxSteps"), env === text ? undefined : env.spec?.maxEpisodeSteps].filter((x) => x !== undefined)
    const maxSteps = options.maxSteps ?? (limits.length > 0 ? Math.min(...limits) : undefined)

    const attempt = <A>(property: string, what: string, f: () => A): A | undefined => {
      try {
        return f()
      } catch (e) {
        add(property, `${what} threw: ${errorText(e)}`)
        return undefined
      }
    }
    const checkObservation = (obs: unknown, when: string) => {
      if (typeof obs !== "string") add("observation", `${when}: observation is not a string: ${show(obs)}`)
      else if (!Space.contains(env.observationSpace, obs)) add("observation", `${when}: observation is not in ${Space.describe(env.observationSpace)}: ${show(obs)}`)
    }
    const admissible = (when: string): ReadonlyArray<string> | undefined => {
      const acts = attempt("admissibleActions", `${when}: admissibleActions()`, () => text.admissibleActions())
      if (acts === undefined) return undefined
      if (!Array.isArray(acts) || acts.length === 0) {
        add("admissibleActions", `${when}: expected a non-empty array of commands, got ${show(acts)}`)
        return undefined
      }
      const bad = acts.find((a) => typeof a !== "string" || a.length === 0 || !Space.contains(env.actionSpace, a))
      if (bad !== undefined) add("admissibleActions", `${when}: ${show(bad)} is not a non-empty string in ${Space.describe(env.actionSpace)}`)
      return acts
    }
    const stateKey = (when: string): string | undefined => {
      const k = attempt("stateKey", `${when}: stateKey()`, () => text.stateKey())
      if (k !== undefined && typeof k !== "string") add("stateKey", `${when}: stateKey() is not a string: ${show(k)}`)
      return typeof k === "string" ? k : undefined
    }
    const checkStep = (r: unknown, when: string): r is StepResult<string> => {
      if (r === null || typeof r !== "object") {
        add("step", `${when} returned ${show(r)}, not { observation, reward, terminated, truncated, info }`)
        return false
      }
      const s = r as StepResult<unknown>
      checkObservation(s.observation, when)
      if (typeof s.reward !== "number" || !Number.isFinite(s.reward)) add("reward", `${when}: reward is not a finite number: ${show(s.reward)}`)
      if (typeof s.terminated !== "boolean") add("flags", `${when}: terminated is not a boolean: ${show(s.terminated)}`)
      if (typeof s.truncated !== "boolean") add("flags", `${when}: truncated is not a boolean: ${show(s.truncated)}`)
      if (!isInfo(s.info)) add("info", `${when}: info is not an object: ${show(s.info)}`)
      return isInfo(s.info)
    }
    /** `reset({ seed })` checked; its observation, or undefined when it failed. */
    const doReset = (when: string): { readonly observation: unknown } | undefined => {
      const r = attempt("reset", `${when}: reset({ seed: ${seed} })`, () => env.reset({ seed }))
      if (r === undefined) return undefined
      if (r === null || typeof r !== "object" || !("observation" in r)) {
        add("reset", `${when}: reset({ seed: ${seed} }) did not return { observation, info }: ${show(r)}`)
        return undefined
      }
      checkObservation(r.observation, `${when}: reset`)
      if (!isInfo(r.info)) add("info", `${when}: reset info is not an object: ${show(r.info)}`)
      if (typeof text.task !== "string" || text.task.length === 0) add("reset", `${when}: task is not a non-empty string: ${show(text.task)}`)
      return { observation: r.observation }
    }

    /** Reset, then play up to `steps` admissible actions chosen by `Rng.make(seed)`; the record of what was seen. */
    const rollout = (when: string): { record: Array<string>; trajectory: Array<Trajectory.Step>; task: string } | undefined => {
      const first = doReset(when)
      if (first === undefined) return undefined
      const rng = Rng.make(seed)
      const task = text.task
      let obs = first.observation
      let acts = admissible(`${when}: after reset`)
      const record = [serialize([task, obs, acts, stateKey(`${when}: after reset`)])]
      const trajectory: Array<Trajectory.Step> = []
      for (let t = 0; t < steps && acts !== undefined; t++) {
        const action = acts[rng.integers(acts.length)]!
        const r = attempt("step", `${when}: step ${t} with admissible action ${show(action)}`, () => env.step(action))
        if (r === undefined || !checkStep(r, `${when}: step ${t}`)) return undefined
        if (r.info["invalidAction"] === true) add("step", `${when}: step ${t}: the admissible action ${show(action)} was flagged info.invalidAction`)
        trajectory.push({ observation: obs, action, reward: r.reward, terminated: r.terminated, truncated: r.truncated, info: r.info })
        obs = r.observation
        const done = r.terminated || r.truncated
        acts = done ? undefined : admissible(`${when}: after step ${t}`)
        record.push(serialize([action, r.observation, r.reward, r.terminated, r.truncated, acts, stateKey(`${when}: after step ${t}`)]))
        if (done) break
      }
      return { record, trajectory, task }
    }

    const a = rollout("rollout 1")
    if (a === undefined) return fail()
    // Determinism: a second rollout from the same seed (when the first broke no rule).
    const b = findings.empty ? rollout("rollout 2") : undefined
    if (b !== undefined) {
      if (a.record[0] !== b.record[0]) {
        add("determinism", `two resets with seed ${seed} differ (task, observation, admissible actions, state key): ${a.record[0]!.slice(0, 120)} vs ${b.record[0]!.slice(0, 120)}`)
        if (serialize(JSON.parse(a.record[0]!)[3]) !== serialize(JSON.parse(b.record[0]!)[3])) {
          add("stateKey", `two resets with seed ${seed} gave different state keys: ${show(JSON.parse(a.record[0]!)[3])} vs ${show(JSON.parse(b.record[0]!)[3])}`)
        }
      } else {
        const i = a.record.findIndex((x, k) => x !== b.record[k])
        if (i >= 0 || a.record.length !== b.record.length) {
          const k = i >= 0 ? i : Math.min(a.record.length, b.record.length)
          add("determinism", `the same seed and admissible actions diverged at step ${k - 1}: ${(a.record[k] ?? "(none)").slice(0, 120)} vs ${(b.record[k] ?? "(none)").slice(0, 120)}`)
        }
      }
    }

    // snapshot()/restore(): the same actions from a restored state reproduce the same future.
    if (findings.empty && isRestorableTextEnv(text)) {
      const replay = (rng: Rng, when: string): Array<string> | undefined => {
        const out: Array<string> = []
        for (let t = 0; t < steps; t++) {
          const acts = admissible(`${when}: before step ${t}`)
          if (acts === undefined) break
          const action = acts[rng.integers(acts.length)]!
          const r = attempt("snapshot", `${when}: step ${t} with ${show(action)}`, () => text.step(action))
          if (r === undefined) return undefined
          out.push(serialize([action, r.observation, r.reward, r.terminated, r.truncated, text.admissibleActions(), text.stateKey()]))
          if (r.terminated || r.truncated) break
        }
        return out
      }
      let ready = doReset("snapshot") !== undefined
      if (ready) {
        const lead = replay(Rng.make(seed + 1), "snapshot: lead-in")
        // a lead-in that ended the episode: snapshot right after a new reset instead
        const last = lead?.[lead.length - 1]
        if (last !== undefined && ((JSON.parse(last) as Array<unknown>)[3] === true || (JSON.parse(last) as Array<unknown>)[4] === true)) {
          ready = doReset("snapshot: after the lead-in ended") !== undefined
        }
      }
      if (ready) {
        const snap = attempt("snapshot", "snapshot()", () => text.snapshot())
        if (snap !== undefined) {
          const first = replay(Rng.make(seed + 2), "snapshot: after snapshot()")
          const restored = attempt("snapshot", "restore(snapshot)", () => text.restore(snap))
          const second = restored === undefined && findings.empty ? replay(Rng.make(seed + 2), "snapshot: after restore()") : undefined
          if (first !== undefined && second !== undefined) {
            const k = first.findIndex((x, i) => x !== second[i])
            if (k >= 0 || first.length !== second.length) {
              const at = k >= 0 ? k : Math.min(first.length, second.length)
              add("snapshot", `after restore the same actions diverged at step ${at}: ${(first[at] ?? "(none)").slice(0, 120)} vs ${(second[at] ?? "(none)").slice(0, 120)}`)
            }
          }
        }
      }
    }

    // toMessages over the first rollout's trajectory.
    const traj = Trajectory.fromSteps(envId, a.trajectory, { task: a.task, seed })
    const messages = attempt("toMessages", "toMessages(trajectory)", () => text.toMessages(traj))
    if (messages !== undefined) {
      const want = 1 + 2 * a.trajectory.length
      if (!Array.isArray(messages) || messages.length !== want) {
        add("toMessages", `expected ${want} turns (system, then user/assistant per step), got ${Array.isArray(messages) ? messages.length : show(messages)}`)
      } else {
        const bad = messages.findIndex((m) => typeof m?.content !== "string")
        if (bad >= 0) add("toMessages", `turn ${bad} has no string content: ${show(messages[bad])}`)
        else {
          if (messages[0]!.role !== "system" || !messages[0]!.content.includes(a.task)) add("toMessages", `turn 0 is not a system turn that contains the task ${show(a.task)}: ${show(messages[0])}`)
          a.trajectory.forEach((s, t) => {
            const user = messages[1 + 2 * t]!
            const assistant = messages[2 + 2 * t]!
            if (user.role !== "user" || !user.content.includes(String(s.observation))) add("toMessages", `turn ${1 + 2 * t} is not a user turn that contains the observation of step ${t}: ${show(user)}`)
            if (assistant.role !== "assistant" || assistant.content !== s.action) add("toMessages", `turn ${2 + 2 * t} is not an assistant turn whose content is the action ${show(s.action)}: ${show(assistant)}`)
          })
        }
      }
    }

    // The invalid-action policy, from a fresh reset.
    let seen: InvalidActionPolicy = policy ?? "penalize"
    let invalidSteps = 0
    if (doReset("invalid action") !== undefined) {
      const acts = admissible("invalid action: after reset") ?? []
      if (acts.some((x) => x.trim().toLowerCase() === invalid.trim().toLowerCase())) {
        add("invalidAction", `the probe ${show(invalid)} is admissible after reset({ seed: ${seed} }); pass another as options.invalidAction`)
      } else {
        const key = stateKey("invalid action: after reset")
        let r: StepResult<string> | undefined
        let thrown: unknown = undefined
        try {
          r = env.step(invalid) as StepResult<string>
        } catch (e) {
          thrown = e
        }
        if (thrown !== undefined) {
          seen = "error"
          if (!isTagged(thrown, "InvalidActionError")) add("invalidAction", `step(${show(invalid)}) threw ${errorText(thrown)}, not InvalidActionError`)
          else if (policy === "penalize") add("invalidAction", `step(${show(invalid)}) threw InvalidActionError under invalidActionPolicy "penalize"`)
          if (stateKey("invalid action: after the refused step") !== key) add("invalidAction", `step(${show(invalid)}) threw but changed the state key`)
        } else if (r !== undefined && checkStep(r, `invalid action: step(${show(invalid)})`)) {
          seen = "penalize"
          if (policy === "error") add("invalidAction", `step(${show(invalid)}) did not throw InvalidActionError under invalidActionPolicy "error"`)
          if (r.info["invalidAction"] !== true) add("invalidAction", `step(${show(invalid)}): info.invalidAction is ${show(r.info["invalidAction"])}, expected true`)
          const after = stateKey(`invalid action: after step(${show(invalid)})`)
          if (after !== key) add("invalidAction", `step(${show(invalid)}) changed the state key from ${show(key)} to ${show(after)}`)
          if (penalty !== undefined && r.reward !== penalty) add("invalidAction", `step(${show(invalid)}) gave reward ${r.reward}, expected invalidActionPenalty ${penalty}`)
          if (maxSteps !== undefined && Number.isInteger(maxSteps) && maxSteps > 0 && maxSteps <= 500 && !r.terminated) {
            // Invalid steps count toward the step limit: the maxSteps-th one truncates.
            invalidSteps = 1
            let last = r
            while (!last.truncated && !last.terminated && invalidSteps < maxSteps + 1) {
              const next = attempt("invalidAction", `invalid step ${invalidSteps}`, () => env.step(invalid) as StepResult<string>)
              if (next === undefined) break
              last = next
              invalidSteps++
            }
            if (!last.truncated || invalidSteps !== maxSteps) {
              add("invalidAction", `${invalidSteps} invalid steps ended with truncated ${show(last.truncated)}; expected truncation at step maxSteps = ${maxSteps} (invalid steps count)`)
            }
          }
        }
      }
    }
    if (!findings.empty) fail()
    return { steps: a.trajectory.length, invalidAction: seen, invalidSteps }
  }
  try {
    return body()
  } catch (e) {
    if (e instanceof TextEnvCheckError) throw e
    add("unexpected", `the env threw outside the calls the check guards: ${errorText(e)}`)
    return fail()
  }
}

/** {@link checkTextEnv} as an Effect: fails with {@link TextEnvCheckError}, succeeds with the report. */
export const check = (env: TextEnv | AnyEnv, options: CheckTextEnvOptions = {}): Effect.Effect<TextCheckReport, TextEnvCheckError> =>
  Effect.try({
    try: () => checkTextEnv(env, options),
    catch: (e) => e instanceof TextEnvCheckError ? e : new TextEnvCheckError({ envId: "TextEnv", findings: [`check: ${errorText(e)}`] })
  })

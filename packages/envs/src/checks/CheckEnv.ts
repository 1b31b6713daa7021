/**
 * A conformance check for environments (Gymnasium's `gymnasium/utils/env_checker.py` `check_env`): one call tells
 * a contributor whether a new environment keeps the {@link Env} contract.
 *
 * **Checks**
 * - `spaces`: `observationSpace` and `actionSpace` are valid spaces (decode with the core `Space` schema).
 * - `reset`: `reset({ seed })` returns `{ observation, info }`, the observation is in the observation space, `info`
 *   is a plain object; a reset without a seed works too.
 * - `determinism`: the same seed gives the same first observation and, for the same sampled actions, the same
 *   trajectory (observations, rewards, flags) — Gymnasium's `check_reset_seed` plus a step check.
 * - `step`: returns the five fields with the right types: observation in the space, finite numeric reward,
 *   boolean `terminated`/`truncated`, object `info`.
 * - `render`: does not throw and returns a string or undefined.
 *
 * Problems that break the contract are errors; `checkEnv` throws {@link EnvCheckError} listing all of them.
 * Softer issues (no render modes, `npRandom` missing) are returned as warnings.
 *
 * @example
 * ```ts
 * import { CheckEnv, Registry } from "@autodidact/envs"
 * const warnings = CheckEnv.checkEnv(Registry.make("CartPole-v1")) // [] (throws EnvCheckError on failure)
 * ```
 * @see https://github.com/Farama-Foundation/Gymnasium/blob/v1.4.0/gymnasium/utils/env_checker.py
 * @since 0.1.0
 */
import { Rng, Space, Trajectory } from "@autodidact/core"
import { Effect, Schema } from "effect"
import type { AnyEnv, ResetResult, StepResult } from "../Env.js"
import { isInfo, isSpace, same, show } from "../internal/CheckCommon.js"

/** One finding of {@link checkEnv}. */
export interface Finding {
  /** `error` breaks the contract (thrown by `checkEnv`); `warning` is returned. */
  readonly level: "error" | "warning"
  /** Which check: `spaces`, `reset`, `determinism`, `step`, `render`, `seeding`. */
  readonly check: string
  /** What was wrong, with the offending value. */
  readonly message: string
}

/**
 * The environment breaks the contract; `findings` lists every problem found (as `check: message`).
 * @category errors
 */
export class EnvCheckError extends Schema.TaggedError<EnvCheckError>()("EnvCheckError", {
  envId: Schema.String,
  findings: Schema.Array(Schema.String)
}) {
  override get message() {
    return `${this.envId} failed the environment check:\n${this.findings.map((f) => `  - ${f}`).join("\n")}`
  }
}

/** Options of {@link checkEnv}. */
export interface CheckEnvOptions {
  /** Seed of the determinism check. Default 123. */
  readonly seed?: number | undefined
  /** Steps compared in the determinism check. Default 50. */
  readonly steps?: number | undefined
  /** Skip the render check (Gymnasium's `skip_render_check`). Default false. */
  readonly skipRenderCheck?: boolean | undefined
}

/**
 * Run the checks on `env` (which is reset and stepped; pass a fresh instance). Returns the warnings.
 * @throws EnvCheckError when any check fails, listing every failure.
 */
export const checkEnv = (env: AnyEnv, options: CheckEnvOptions = {}): Array<Finding> => {
  const findings = collectFindings(env, options)
  const errors = findings.filter((f) => f.level === "error")
  if (errors.length > 0) {
    throw new EnvCheckError({
      envId: env.spec?.id ?? env.unwrapped?.constructor?.name ?? "env",
      findings: errors.map((f) => `${f.check}: ${f.message}`)
    })
  }
  return findings
}

/** {@link checkEnv} as an Effect: fails with {@link EnvCheckError}, succeeds with the warnings. */
export const check = (env: AnyEnv, options: CheckEnvOptions = {}): Effect.Effect<Array<Finding>, EnvCheckError> =>
  Effect.try({
    try: () => checkEnv(env, options),
    catch: (e) => e instanceof EnvCheckError ? e : new EnvCheckError({ envId: "env", findings: [String(e)] })
  })

/** Every finding (errors and warnings), without throwing. */
export const collectFindings = (env: AnyEnv, options: CheckEnvOptions = {}): Array<Finding> => {
  const out: Array<Finding> = []
  const error = (check: string, message: string) => out.push({ level: "error", check, message })
  const warn = (check: string, message: string) => out.push({ level: "warning", check, message })
  const seed = options.seed ?? 123
  const steps = options.steps ?? 50

  const spacesOk = isSpace(env.observationSpace) && isSpace(env.actionSpace)
  if (!isSpace(env.observationSpace)) error("spaces", `observationSpace is not a valid space: ${show(env.observationSpace)}`)
  if (!isSpace(env.actionSpace)) error("spaces", `actionSpace is not a valid space: ${show(env.actionSpace)}`)
  if (!spacesOk) return out

  const checkReset = (r: ResetResult<unknown> | undefined, what: string): boolean => {
    if (r === null || typeof r !== "object" || !("observation" in r)) {
      error("reset", `${what} did not return { observation, info }: ${show(r)}`)
      return false
    }
    let ok = true
    if (!Space.contains(env.observationSpace, r.observation)) {
      error("reset", `${what} returned an observation outside ${Space.describe(env.observationSpace)}: ${show(r.observation)}`)
      ok = false
    }
    if (!isInfo(r.info)) {
      error("reset", `${what} returned an info that is not an object: ${show(r.info)}`)
      ok = false
    }
    return ok
  }
  const checkStep = (r: StepResult<unknown>, t: number): boolean => {
    if (r === null || typeof r !== "object") {
      error("step", `step ${t} returned ${show(r)}, not { observation, reward, terminated, truncated, info }`)
      return false
    }
    let ok = true
    const fail = (m: string) => {
      error("step", `step ${t}: ${m}`)
      ok = false
    }
    if (!Space.contains(env.observationSpace, r.observation)) {
      fail(`observation outside ${Space.describe(env.observationSpace)}: ${show(r.observation)}`)
    }
    if (typeof r.reward !== "number") fail(`reward is not a number: ${show(r.reward)}`)
    else if (!Number.isFinite(r.reward)) fail(`reward is not finite: ${r.reward}`)
    if (typeof r.terminated !== "boolean") fail(`terminated is not a boolean: ${show(r.terminated)}`)
    if (typeof r.truncated !== "boolean") fail(`truncated is not a boolean: ${show(r.truncated)}`)
    if (!isInfo(r.info)) fail(`info is not an object: ${show(r.info)}`)
    return ok
  }
  const attempt = <A>(check: string, what: string, f: () => A): A | undefined => {
    try {
      return f()
    } catch (e) {
      error(check, `${what} threw: ${e instanceof Error ? e.message : String(e)}`)
      return undefined
    }
  }

  const actionRng = Rng.make(seed)
  const actions = Array.from({ length: steps }, () => Space.sample(env.actionSpace, actionRng))
  const rollout = (): { first: unknown; steps: Array<StepResult<unknown>> } | undefined => {
    const r = attempt("reset", `reset({ seed: ${seed} })`, () => env.reset({ seed }))
    if (r === undefined || !checkReset(r, `reset({ seed: ${seed} })`)) return undefined
    const first = Trajectory.toJsonValue(r.observation)
    const taken: Array<StepResult<unknown>> = []
    for (let t = 0; t < steps; t++) {
      const s = attempt("step", `step ${t} with action ${show(actions[t])}`, () => env.step(actions[t]))
      if (s === undefined || !checkStep(s, t)) return undefined
      taken.push({ ...s, observation: Trajectory.toJsonValue(s.observation) })
      if (s.terminated || s.truncated) break
    }
    return { first, steps: taken }
  }

  const a = rollout()
  const b = a === undefined ? undefined : rollout()
  if (a !== undefined && b !== undefined) {
    if (!same(a.first, b.first)) {
      error("determinism", `reset({ seed: ${seed} }) gave different observations: ${show(a.first)} vs ${show(b.first)}`)
    } else {
      const n = Math.min(a.steps.length, b.steps.length)
      for (let t = 0; t < n; t++) {
        const x = a.steps[t]!
        const y = b.steps[t]!
        if (!same([x.observation, x.reward, x.terminated, x.truncated], [y.observation, y.reward, y.terminated, y.truncated])) {
          error("determinism", `same seed and actions diverged at step ${t}: ${show(x)} vs ${show(y)}`)
          break
        }
      }
      if (a.steps.length !== b.steps.length) {
        error("determinism", `same seed and actions gave episodes of ${a.steps.length} and ${b.steps.length} steps`)
      }
    }
  }
  const unseeded = attempt("reset", "reset() without a seed", () => env.reset())
  if (unseeded !== undefined) checkReset(unseeded, "reset()")

  if (env.npRandom === undefined) warn("seeding", "npRandom is undefined; seeded resets cannot be reproduced")
  if (!options.skipRenderCheck) {
    if (env.metadata === undefined || env.metadata.renderModes.length === 0) warn("render", "metadata.renderModes is empty")
    const text = attempt("render", "render()", () => env.render())
    if (text !== undefined && typeof text !== "string") error("render", `render() returned ${show(text)}, not a string or undefined`)
  }
  return out
}

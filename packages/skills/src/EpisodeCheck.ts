/**
 * Execution checks for written skills (Voyager's self-verification, Wang et al. 2023, arXiv:2305.16291, Sec. 2.3): a
 * {@link Verify} function runs a candidate skill that passed the library's own checks and says whether to admit it;
 * {@link episodeCheck} is one that runs the candidate on real episodes of a text environment.
 *
 * **When to use**: pass a `verify` to `SkillWriter.write` so that a skill that passes its own scripted tests but
 * fails in the environment is not admitted; the reason of a rejection is fed back to the model.
 *
 * @see Wang et al., "Voyager: An Open-Ended Embodied Agent with Large Language Models", arXiv:2305.16291
 * @since 0.1.0
 */
import type { TextEnv as TextEnvModule } from "@autodidact/envs"
import { Effect } from "effect"
import { clip, oneLine } from "./internal/Text.js"
import * as Sandbox from "./Sandbox.js"
import type * as Skill from "./Skill.js"
import type { SkillLibrary } from "./SkillLibrary.js"

type TextEnv = TextEnvModule.TextEnv

/** The result of a verification: `true`/`false`, or `{ ok, reason }` (the reason is fed back to the model). */
export type CheckResult = boolean | { readonly ok: boolean; readonly reason?: string }

/**
 * An execution check or critic (Voyager's self-verification), run on a candidate that passed the library's check and
 * before it is admitted. A failure of the effect counts as a rejection with the error as the reason.
 */
export type Verify = (spec: Skill.SkillSpec, library: SkillLibrary) => Effect.Effect<CheckResult, unknown>

/** One episode of {@link episodeCheck}. */
export interface EpisodeCase {
  readonly id?: string
  readonly reset: { readonly seed?: number; readonly options?: Record<string, unknown> }
  /** Primitive commands replayed before the skill runs (e.g. an expert prefix). */
  readonly prefix?: ReadonlyArray<string>
  /** The skill's argument. */
  readonly args: unknown
  /** Success test on the outcome: `true`, or the reason it failed (fed back to the model). */
  readonly expect: (outcome: { readonly result: unknown; readonly env: TextEnv; readonly steps: number; readonly won: boolean }) => true | string
}

/**
 * A {@link Verify} that runs the candidate on real episodes of `env` (reset, replay `prefix`, call the skill with
 * `observe`/`act` — the `SkillOptions` guest API — and `callSkill` to admitted skills), and accepts it when every
 * case's `expect` holds. A failure reason names the case and shows the last commands and observation.
 */
export const episodeCheck = (env: TextEnv, cases: ReadonlyArray<EpisodeCase>, options: { readonly maxPrimitiveSteps?: number } = {}): Verify =>
(spec, library) =>
  Effect.gen(function*() {
    const maxSteps = options.maxPrimitiveSteps ?? 100
    for (const [i, c] of cases.entries()) {
      const label = c.id ?? `episode ${i + 1}`
      const reset = env.reset({ ...(c.reset.seed !== undefined ? { seed: c.reset.seed } : {}), ...(c.reset.options !== undefined ? { options: c.reset.options } : {}) })
      const state = { observation: reset.observation, done: false, won: false, steps: 0, trace: [] as Array<string> }
      for (const a of c.prefix ?? []) {
        const r = env.step(a)
        state.observation = r.observation
        if (r.terminated || r.truncated) return { ok: false, reason: `${label}: the prefix ended the episode` }
      }
      const observe: Sandbox.HostFunction = () => ({ observation: state.observation, admissible: [...env.admissibleActions()], task: env.task, done: state.done })
      const act: Sandbox.HostFunction = (command) => {
        if (typeof command !== "string") throw new Sandbox.HostCallError({ fn: "act", reason: "the command must be a string" })
        if (state.done) throw new Sandbox.HostCallError({ fn: "act", reason: "the episode has ended" })
        if (state.steps >= maxSteps) throw new Sandbox.HostCallError({ fn: "act", reason: `more than ${maxSteps} primitive steps` })
        if (!env.admissibleActions().includes(command)) throw new Sandbox.HostCallError({ fn: "act", reason: `inadmissible command ${JSON.stringify(command)}` })
        const r = env.step(command)
        state.steps++
        state.trace.push(command)
        state.observation = r.observation
        state.done = r.terminated || r.truncated
        state.won = state.won || r.info["won"] === true
        return { observation: r.observation, reward: r.reward, admissible: [...env.admissibleActions()], done: state.done, won: r.info["won"] === true }
      }
      const callSkill: Sandbox.HostFunction = (name, args) => {
        if (typeof name !== "string") throw new Sandbox.HostCallError({ fn: "callSkill", reason: "the skill name must be a string" })
        return Effect.runPromise(
          library.call(name, args, { observe, act }).pipe(
            Effect.mapError((e) => new Sandbox.HostCallError({ fn: "callSkill", reason: `${name}: ${e._tag}: ${"message" in e ? e.message : ""}` }))
          )
        )
      }
      const context = () =>
        `; commands: ${state.trace.length === 0 ? "(none)" : state.trace.slice(-8).join("; ")}${state.trace.length > 8 ? ` (last 8 of ${state.trace.length})` : ""}; last observation: ${
          oneLine(state.observation, 200)
        }`
      const run = yield* Effect.result(
        library.sandbox.run({ source: spec.source, ...(spec.entry !== undefined ? { entry: spec.entry } : {}), args: c.args, host: { observe, act, callSkill } })
      )
      if (run._tag === "Failure") return { ok: false, reason: `${label}: ${run.failure._tag}: ${run.failure.message}${context()}` }
      const verdict = c.expect({ result: run.success, env, steps: state.steps, won: state.won })
      if (verdict !== true) return { ok: false, reason: `${label}: ${verdict}; result ${clip(JSON.stringify(run.success) ?? "undefined", 300)}${context()}` }
    }
    return true
  })


/**
 * `train --skills DIR` / `eval` of such a run: the discovered macro skills of a skill library directory as options
 * (`@autodidact/skills` `SkillOptions`) in `TextHousehold-v0`. Each library skill written by discovery
 * (`Discovery.macroOf`) becomes a `macroOption` (3 groundings at most); at most `maxSkillActions` skill commands are
 * offered per state; skills run in process on a `SyncSandbox`; skill commands get the relational features of their
 * expansion (`TextAbstraction.registerActionDescriber`, released with the scope). The learner's step budget and
 * episode lengths count decisions (a skill call is one), as the trainer sees them.
 * @since 0.1.0
 */
import { TextEnv } from "@autodidact/envs"
import { type GroupRollout, TextAbstraction } from "@autodidact/optim"
import { Embedder } from "@autodidact/memory"
import { Discovery, Sandbox, SkillLibrary, SkillOptions, SyncSandbox } from "@autodidact/skills"
import { Data, Effect, Option, Schema, type Scope } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"

/** The library cannot give options: missing, unreadable, or without discovered macros. */
export class SkillOptionsError extends Data.TaggedError("SkillOptionsError")<{ readonly library: string; readonly reason: string }> {
  override get message() {
    return `--skills ${JSON.stringify(this.library)}: ${this.reason}`
  }
}

/** What a run records in `config.json` under `skills`. */
export const SkillsConfig = Schema.Struct({
  /** Absolute path of the library directory. */
  library: Schema.String,
  /** The macro skills offered as options, in library order. */
  macros: Schema.Array(Schema.String),
  /** Skill commands offered per state. */
  maxSkillActions: Schema.Number
})
export type SkillsConfig = typeof SkillsConfig.Type

/** The options of a library, and a wrapper for envs (each wrapped env registers its action describer). */
export interface SkillEnv {
  readonly config: SkillsConfig
  readonly wrap: (env: GroupRollout.TextEnv) => GroupRollout.TextEnv
  /** Decisions, skill calls among them, and primitive env steps, over every wrapped env so far. */
  readonly usage: () => { readonly decisions: number; readonly skillDecisions: number; readonly primitiveSteps: number }
}

/**
 * Open `library` for the scope. Fails with {@link SkillOptionsError} when it is not a directory or holds no
 * discovered macro (make some with `autodidact skills discover --library DIR`).
 */
export const open = (library: string, maxSkillActions: number): Effect.Effect<SkillEnv, SkillOptionsError, Scope.Scope> =>
  Effect.gen(function*() {
    if (!Number.isSafeInteger(maxSkillActions) || maxSkillActions < 1) {
      return yield* new SkillOptionsError({ library, reason: `--max-skill-actions must be a positive integer, got ${maxSkillActions}` })
    }
    if (!fs.existsSync(library) || !fs.statSync(library).isDirectory()) {
      return yield* new SkillOptionsError({ library, reason: "not a directory (make a library with `autodidact skills discover --library DIR`)" })
    }
    const lib = yield* SkillLibrary.SkillLibrary.makeScoped({ directory: library }).pipe(
      Effect.provide(Sandbox.layer()),
      Effect.provide(Embedder.layerHashed()),
      Effect.mapError((e) => new SkillOptionsError({ library, reason: `${e._tag}: ${e.message}` }))
    )
    const options: Array<SkillOptions.SkillOption> = []
    for (const name of lib.names()) {
      const macro = Discovery.macroOf(lib.active(name)!)
      if (macro !== undefined) options.push(Discovery.macroOption(name, macro.steps, macro.varTypes, { maxGroundings: 3 }))
    }
    if (options.length === 0) {
      return yield* new SkillOptionsError({ library, reason: `none of its ${lib.names().length} skills is a discovered macro (run \`autodidact skills discover --library ${library}\`)` })
    }
    const runner = yield* SyncSandbox.make({ timeoutMs: 10_000 }).pipe(Effect.mapError((e) => new SkillOptionsError({ library, reason: e.message })))
    const wrapped: Array<SkillOptions.SyncSkillOptionsEnv> = []
    yield* Effect.acquireRelease(
      Effect.sync(() => TextAbstraction.registerActionDescriber(SkillOptions.describeAny(wrapped))),
      (unregister) => Effect.sync(unregister)
    )
    return {
      config: { library: path.resolve(library), macros: options.map((o) => o.name), maxSkillActions },
      usage: () => {
        let decisions = 0, skillDecisions = 0, primitiveSteps = 0
        for (const w of wrapped) {
          decisions += w.counters.decisions
          skillDecisions += w.counters.skillDecisions
          primitiveSteps += w.counters.primitiveSteps
        }
        return { decisions, skillDecisions, primitiveSteps }
      },
      wrap: (env) => {
        // skills wrap the full text-env contract (they read its state to run skills); a rollout's env type is a Pick
        if (!TextEnv.isTextEnv(env)) throw new SkillOptionsError({ library, reason: "skills need an env that implements the whole TextEnv contract" })
        const w = new SkillOptions.SyncSkillOptionsEnv(env, lib, options, runner, { maxSkillActions })
        wrapped.push(w)
        return w
      }
    }
  })

/**
 * Open the library a run was trained with (its `config.json` `skills` entry); fails with {@link SkillOptionsError}
 * when the library's macros are no longer the ones the policy learnt to call.
 */
export const reopen = (recorded: SkillsConfig): Effect.Effect<SkillEnv, SkillOptionsError, Scope.Scope> =>
  Effect.gen(function*() {
    const env = yield* open(recorded.library, recorded.maxSkillActions)
    const now = env.config.macros.join(", ")
    if (now !== recorded.macros.join(", ")) {
      return yield* new SkillOptionsError({ library: recorded.library, reason: `its macros changed since training (trained with ${recorded.macros.join(", ")}; now ${now})` })
    }
    return env
  })

/**
 * The `skills` entry of a run's `config.json`: `Option.none()` when the run was trained without skills; a malformed
 * entry fails with {@link SkillOptionsError} (evaluating without the options would not be the trained agent).
 */
export const fromConfig = (config: Record<string, unknown>): Effect.Effect<Option.Option<SkillsConfig>, SkillOptionsError> =>
  config["skills"] === undefined
    ? Effect.succeed(Option.none())
    : Schema.decodeUnknownEffect(SkillsConfig)(config["skills"]).pipe(
      Effect.map(Option.some),
      Effect.mapError((e) => new SkillOptionsError({ library: "(config.json)", reason: `malformed skills entry: ${e.message}` }))
    )

/**
 * `autodidact skills ...`: work with a skill library directory (`<name>.js` + `<name>.json` per skill, see
 * `@autodidact/skills` `SkillLibrary`) from the shell, so that a library can be reviewed and checked in a pull request.
 *
 * - `list` — every skill: active version, versions, usage statistics, tags, description.
 * - `show NAME [--version N]` — one skill's metadata and source.
 * - `admit --spec FILE.json [--source FILE.js]` — admit a new skill or version (compile, own tests in the sandbox);
 *   a failing spec fails with `AdmissionError` naming the stage and reason, and never replaces a working version.
 * - `check` — re-run every skill's admission checks (compile + its own tests) on the active versions; fails with
 *   {@link SkillCheckError} listing the skills that no longer pass.
 * - `retrieve QUERY [--k N] [--tag T ...]` — nearest skills by description embedding (memory's hashed embedder).
 * - `call NAME [--args JSON] [--host JSON]` — run the active version in the sandbox with scripted host replies
 *   (the same form as a test's `host`: each function name maps to the values successive calls return).
 * - `rollback NAME --version N`, `remove NAME`.
 * - `discover [--difficulty easy|default]` — mine TextHousehold-v0 expert episodes for macro skills, verify them on
 *   held-out episodes and admit those that pass (`Discovery.discover`), into the library.
 *
 * The library is `--library DIR` (default `skills`); every write is atomic (`AtomicFile`).
 * @since 0.1.0
 */
import { TextHousehold } from "@autodidact/envs"
import { Embedder } from "@autodidact/memory"
import { Discovery, Sandbox, Skill, SkillLibrary, type SkillOptions } from "@autodidact/skills"
import { Data, Effect, Layer, Option, Schema } from "effect"
import * as fs from "node:fs"
import * as Output from "../Output.js"
import type { Configs } from "../Commands.js"

/** A spec file (or its source file, or a JSON flag value) that cannot be read or does not decode. */
export class SkillInputError extends Data.TaggedError("SkillInputError")<{
  /** The file path, or the flag (`--args`, `--host`). */
  readonly input: string
  readonly reason: string
}> {
  override get message() {
    return `${this.input}: ${this.reason}`
  }
}

/** `skills check`: some skills of the library no longer pass their admission checks. */
export class SkillCheckError extends Data.TaggedError("SkillCheckError")<{
  readonly failed: ReadonlyArray<string>
  readonly total: number
}> {
  override get message() {
    return `${this.failed.length} of ${this.total} skills fail their checks: ${this.failed.join(", ")}`
  }
}

/** What `skills discover` can fail with besides input errors (an expert replay that ends early). */
export type DiscoverError = SkillLibrary.AdmissionError | SkillLibrary.SkillStorageError | SkillLibrary.SkillNotFoundError | SkillOptions.EpisodeEndedError

/** Sandbox pool + hashed embedder, closed when the command ends. */
const services = Layer.mergeAll(Sandbox.layer(), Embedder.layerHashed())

/** Open the library at `directory` for the duration of `f`. */
const withLibrary = <A, E>(directory: string, f: (lib: SkillLibrary.SkillLibrary) => Effect.Effect<A, E, Sandbox.Sandbox | Embedder.Embedder>) =>
  Effect.scoped(Effect.flatMap(SkillLibrary.SkillLibrary.makeScoped({ directory }), f)).pipe(Effect.provide(services))

const decodeSpec = Schema.decodeUnknownEffect(Skill.SkillSpec)

const readText = (path: string) =>
  Effect.try({ try: () => fs.readFileSync(path, "utf8"), catch: (e) => new SkillInputError({ input: path, reason: e instanceof Error ? e.message : String(e) }) })

/** A file's text; an empty (or white-space-only) file is a {@link SkillInputError}, not an empty spec or source. */
const readNonEmpty = (path: string) =>
  Effect.flatMap(readText(path), (text) => (text.trim().length === 0 ? Effect.fail(new SkillInputError({ input: path, reason: "is empty" })) : Effect.succeed(text)))

const parseJson = (input: string, text: string) =>
  Effect.try({ try: () => JSON.parse(text) as unknown, catch: (e) => new SkillInputError({ input, reason: `not JSON: ${e instanceof Error ? e.message : String(e)}` }) })

/** Read a spec JSON file; `sourceFile`, when given, supplies (or replaces) its `source`. */
export const readSpec = (specFile: string, sourceFile: Option.Option<string>) =>
  Effect.gen(function*() {
    const raw = yield* parseJson(specFile, yield* readNonEmpty(specFile))
    if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return yield* new SkillInputError({ input: specFile, reason: "expected a JSON object (a skill spec)" })
    const withSource = Option.isSome(sourceFile) ? { ...raw, source: yield* readNonEmpty(sourceFile.value) } : raw
    return yield* decodeSpec(withSource).pipe(Effect.mapError((e) => new SkillInputError({ input: specFile, reason: `not a skill spec: ${e.message}` })))
  })

/** The usage row of a record (what `list` prints). */
const listRow = (r: Skill.SkillRecord) => {
  const spec = r.versions.find((v) => v.version === r.active)!.spec
  return {
    name: r.name,
    active: r.active,
    versions: r.versions.length,
    calls: r.stats.calls,
    successRate: r.stats.calls === 0 ? null : r.stats.successes / r.stats.calls,
    meanReturn: r.stats.calls === 0 ? null : r.stats.meanReturn,
    tags: (spec.tags ?? []).join(","),
    description: spec.description
  }
}

/** `autodidact skills list` */
export const handleSkillsList = (config: Configs["skills list"]): Effect.Effect<void, unknown> =>
  withLibrary(config.library, (lib) =>
    Effect.sync(() => Output.printTable(config.json, `Skills in ${config.library}`, lib.names().map((n) => listRow(lib.get(n)!))))
  )

/** `autodidact skills show` */
export const handleSkillsShow = (config: Configs["skills show"]): Effect.Effect<void, unknown> =>
    withLibrary(config.library, (lib) =>
      Effect.gen(function*() {
        const record = lib.get(config.name)
        if (record === undefined) return yield* new SkillLibrary.SkillNotFoundError({ name: config.name })
        const wanted = Option.getOrElse(config.version, () => record.active)
        const version = record.versions.find((v) => v.version === wanted)
        if (version === undefined) return yield* new SkillLibrary.SkillNotFoundError({ name: config.name, version: wanted })
        const { spec } = version
        if (config.json) {
          process.stdout.write(JSON.stringify({ ...listRow(record), version }) + "\n")
          return
        }
        const fields: Record<string, unknown> = {
          description: spec.description,
          parameters: spec.parameters,
          result: spec.result,
          tests: spec.tests.length,
          author: spec.provenance.author,
          episode: spec.provenance.episodeId,
          note: spec.provenance.note,
          tags: (spec.tags ?? []).join(","),
          admittedAt: version.admittedAt,
          verifierScore: version.verifierScore,
          versions: record.versions.map((v) => v.version).join(","),
          calls: record.stats.calls,
          successes: record.stats.successes
        }
        const shown = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined && v !== ""))
        Output.printSummary(false, `Skill ${spec.name}, version ${version.version}${version.version === record.active ? " (active)" : ""}`, shown)
        process.stdout.write(`${spec.source.endsWith("\n") ? spec.source : spec.source + "\n"}`)
      })
    )

/** `autodidact skills admit` */
export const handleSkillsAdmit = (config: Configs["skills admit"]): Effect.Effect<void, unknown> =>
    Effect.gen(function*() {
      const spec = yield* readSpec(config.spec, config.source)
      yield* withLibrary(config.library, (lib) =>
        Effect.gen(function*() {
          const v = yield* lib.admit(spec)
          Output.printSummary(config.json, "Admitted", {
            name: spec.name,
            version: v.version,
            tests: spec.tests.length,
            ...(v.verifierScore !== undefined ? { verifierScore: v.verifierScore } : {}),
            library: config.library
          })
        })
      )
    })

/** `autodidact skills check` */
export const handleSkillsCheck = (config: Configs["skills check"]): Effect.Effect<void, unknown> =>
  withLibrary(config.library, (lib) =>
    Effect.gen(function*() {
      const rows: Array<{ name: string; active: number; ok: boolean; stage: string; reason: string }> = []
      for (const name of lib.names()) {
        const record = lib.get(name)!
        const r = yield* Effect.result(lib.check(lib.active(name)!))
        rows.push(
          r._tag === "Success"
            ? { name, active: record.active, ok: true, stage: "", reason: "" }
            : { name, active: record.active, ok: false, stage: r.failure.stage, reason: r.failure.reason }
        )
      }
      Output.printTable(config.json, `Admission checks of ${config.library}`, rows)
      const failed = rows.filter((r) => !r.ok).map((r) => r.name)
      if (failed.length > 0) return yield* new SkillCheckError({ failed, total: rows.length })
    })
  )

/** `autodidact skills retrieve` */
export const handleSkillsRetrieve = (config: Configs["skills retrieve"]): Effect.Effect<void, unknown> =>
    withLibrary(config.library, (lib) =>
      Effect.gen(function*() {
        const hits = yield* lib.retrieve(config.query, { k: config.k, ...(config.tag.length > 0 ? { tags: config.tag } : {}) })
        Output.printTable(
          config.json,
          `Skills nearest to ${JSON.stringify(config.query)}`,
          hits.map((h, rank) => ({ rank: rank + 1, name: h.name, score: Number(h.score.toFixed(4)), description: h.spec.description }))
        )
      })
    )

/** `autodidact skills call` */
export const handleSkillsCall = (config: Configs["skills call"]): Effect.Effect<void, unknown> =>
    Effect.gen(function*() {
      const args = yield* parseJson("--args", config.args)
      const script = yield* parseJson("--host", config.host).pipe(
        Effect.flatMap(Schema.decodeUnknownEffect(Schema.Record(Schema.String, Schema.Array(Schema.Unknown)))),
        Effect.mapError((e) => e._tag === "SkillInputError" ? e : new SkillInputError({ input: "--host", reason: `expected an object of arrays: ${e.message}` }))
      )
      const calls: Array<{ fn: string; args: ReadonlyArray<unknown> }> = []
      const host = SkillLibrary.scriptedHost(script, { label: "the --host script", onCall: (fn, args) => calls.push({ fn, args }) })
      yield* withLibrary(config.library, (lib) =>
        Effect.gen(function*() {
          const result = yield* lib.call(config.name, args, host)
          Output.printSummary(config.json, `${config.name}(${config.args})`, { result, hostCalls: calls.map((c) => `${c.fn}(${c.args.map((x) => JSON.stringify(x)).join(", ")})`).join("; ") })
        })
      )
    })

/** `autodidact skills rollback` */
export const handleSkillsRollback = (config: Configs["skills rollback"]): Effect.Effect<void, unknown> =>
    withLibrary(config.library, (lib) =>
      Effect.gen(function*() {
        const before = lib.get(config.name)?.active
        yield* lib.rollback(config.name, config.version)
        Output.printSummary(config.json, "Rolled back", { name: config.name, from: before, active: config.version })
      })
    )

/** `autodidact skills remove` */
export const handleSkillsRemove = (config: Configs["skills remove"]): Effect.Effect<void, unknown> =>
    withLibrary(config.library, (lib) =>
      Effect.gen(function*() {
        if (lib.get(config.name) === undefined) return yield* new SkillLibrary.SkillNotFoundError({ name: config.name })
        yield* lib.remove(config.name)
        Output.printSummary(config.json, "Removed", { name: config.name, library: config.library })
      })
    )

/** `autodidact skills discover` */
export const handleSkillsDiscover = (config: Configs["skills discover"]): Effect.Effect<void, unknown> =>
    Effect.gen(function*() {
      for (const [flag, value, min] of [["--train", config.train, 1], ["--held-out", config.heldOut, 1], ["--top", config.top, 1], ["--max-n", config.maxN, 2]] as const) {
        if (!(Number.isInteger(value) && value >= min)) return yield* new SkillInputError({ input: flag, reason: `expected an integer ≥ ${min}, got ${value}` })
      }
      if (!(config.threshold >= 0 && config.threshold <= 1)) return yield* new SkillInputError({ input: "--threshold", reason: `expected a rate in [0, 1], got ${config.threshold}` })
      const env = new TextHousehold.TextHousehold({ difficulty: config.difficulty })
      const expert = () => env.expertAction()
      const train = Array.from({ length: config.train }, (_, k) => Discovery.rollout(env, { seed: k, options: { taskIndex: k } }, expert))
      const held = Array.from({ length: config.heldOut }, (_, k) => Discovery.rollout(env, { seed: k, options: { taskIndex: k, split: "seen" } }, expert))
      yield* withLibrary(config.library, (lib) =>
        Effect.gen(function*() {
          const found = yield* Discovery.discover(lib, env, train, held, { top: config.top, maxN: config.maxN, threshold: config.threshold })
          Output.printTable(
            config.json,
            `Discovered on TextHousehold-v0 (${config.difficulty}); admitted ones are in ${config.library}`,
            found.map((f) => ({
              name: f.name,
              steps: f.steps.join(" ; "),
              count: f.count,
              checks: f.checks,
              successRate: f.successRate,
              savedPerEpisode: Number(f.savedPerEpisode.toFixed(3)),
              admitted: f.admitted,
              reason: f.reason ?? ""
            }))
          )
        })
      )
    })

/** `autodidact skills ...` */

/**
 * An experience library: a numbered list of short natural-language experiences that an LLM agent reads in its
 * prompt, edited by ADD / MODIFY / DELETE operations in batches, every batch producing a new versioned snapshot. The
 * "token prior" that Training-Free GRPO learns instead of weights ({@link TrainingFreeGrpo}).
 *
 * **When to use**: to keep what an agent learned across epochs and runs, inspect it (every version is kept) and
 * inject it into a prompt ({@link render}).
 *
 * **Details**
 * - Experiences get increasing integer ids (`[G0]`, `[G1]`, ... in the prompt, as the Training-Free GRPO prompts
 *   number them); ids are never reused, so an operation that names an id always means the same experience.
 * - {@link applyOperations} is pure: a batch of operations on a snapshot gives the next snapshot plus what was
 *   applied and what was skipped (an unknown id, empty content, a duplicate) and why. A batch that changes nothing
 *   does not create a version.
 * - The service ({@link ExperienceLibrary}) serializes updates (one at a time) and keeps every snapshot. Layers:
 *   {@link layerMemory} (a process-local list), {@link layerFile} (a JSON file rewritten atomically on every update:
 *   temp file, fsync, rename, fsync of the directory, so a crash leaves the previous version), and
 *   `ExperienceLibraryStore.layer` in `@autodidact/llm` (the experience store of `@autodidact/memory`). Any other
 *   backend plugs in through {@link make}.
 *
 * **Gotchas**: one writer per file; two processes updating the same file would overwrite each other's versions.
 *
 * @example
 * ```ts
 * import { ExperienceLibrary } from "@autodidact/llm"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function* () {
 *   const library = yield* ExperienceLibrary.ExperienceLibrary
 *   yield* library.apply([{ op: "ADD", content: "Look inside closed receptacles before giving up." }])
 *   return ExperienceLibrary.render(yield* library.current)
 * })
 * Effect.runPromise(program.pipe(Effect.provide(ExperienceLibrary.layerFile("./library.json"))))
 * ```
 * @see Cai et al., "Training-Free Group Relative Policy Optimization", arXiv:2510.08191 (Sec. 3, the experience library)
 * @since 0.1.0
 */
import { AtomicFile } from "@autodidact/core/node"
import { Context, Effect, Layer, Ref, Schema, Semaphore } from "effect"
import * as fs from "node:fs"

// ---------------------------------------------------------------------------------------------------------------
// Data
// ---------------------------------------------------------------------------------------------------------------

/** One experience. */
export const Experience = Schema.Struct({ id: Schema.Number, text: Schema.String })
/** @category models */
export type Experience = typeof Experience.Type

/** A version of the library. Version 0 is the empty library. */
export const Snapshot = Schema.Struct({
  version: Schema.Number,
  nextId: Schema.Number,
  experiences: Schema.Array(Experience),
  /** Free-form provenance of this version ("tfgrpo epoch 2", ...). */
  note: Schema.optional(Schema.String)
})
/** @category models */
export type Snapshot = typeof Snapshot.Type

/** The empty library (version 0). */
export const empty: Snapshot = { version: 0, nextId: 0, experiences: [] }

/** One edit. `NONE` is accepted (and counted) so that a model's "no change" answer is a valid batch. */
export type Operation =
  | { readonly op: "ADD"; readonly content: string }
  | { readonly op: "MODIFY"; readonly id: number; readonly content: string }
  | { readonly op: "DELETE"; readonly id: number }
  | { readonly op: "NONE" }

/** What a batch did. */
export interface ApplyResult {
  readonly snapshot: Snapshot
  readonly applied: ReadonlyArray<Operation>
  readonly skipped: ReadonlyArray<{ readonly operation: Operation; readonly reason: string }>
  /** Whether a new version was created. */
  readonly changed: boolean
}

/** Longest experience kept (characters); longer content is cut. */
export const MaxExperienceLength = 2000

const normalize = (s: string): string => s.trim().replace(/\s+/g, " ").slice(0, MaxExperienceLength)

/**
 * Apply a batch of operations to `snapshot`, in order. Skips (and reports) MODIFY/DELETE of an unknown id, empty
 * content and an ADD of text already in the library (ignoring case and white space). A batch with at least one
 * effective change gives version + 1.
 */
export const applyOperations = (snapshot: Snapshot, ops: ReadonlyArray<Operation>, note?: string): ApplyResult => {
  const list: Array<Experience> = snapshot.experiences.slice()
  let nextId = snapshot.nextId
  const applied: Array<Operation> = []
  const skipped: Array<{ operation: Operation; reason: string }> = []
  let changed = false
  const has = (text: string) => list.some((e) => e.text.toLowerCase() === text.toLowerCase())
  for (const op of ops) {
    switch (op.op) {
      case "NONE":
        applied.push(op)
        break
      case "ADD": {
        const text = normalize(op.content)
        if (text.length === 0) skipped.push({ operation: op, reason: "empty content" })
        else if (has(text)) skipped.push({ operation: op, reason: "already in the library" })
        else {
          list.push({ id: nextId++, text })
          applied.push(op)
          changed = true
        }
        break
      }
      case "MODIFY": {
        const text = normalize(op.content)
        const i = list.findIndex((e) => e.id === op.id)
        if (i < 0) skipped.push({ operation: op, reason: `no experience G${op.id}` })
        else if (text.length === 0) skipped.push({ operation: op, reason: "empty content" })
        else if (list[i]!.text === text) skipped.push({ operation: op, reason: "unchanged" })
        else {
          list[i] = { id: op.id, text }
          applied.push(op)
          changed = true
        }
        break
      }
      case "DELETE": {
        const i = list.findIndex((e) => e.id === op.id)
        if (i < 0) skipped.push({ operation: op, reason: `no experience G${op.id}` })
        else {
          list.splice(i, 1)
          applied.push(op)
          changed = true
        }
        break
      }
    }
  }
  const next: Snapshot = changed
    ? { version: snapshot.version + 1, nextId, experiences: list, ...(note === undefined ? {} : { note }) }
    : snapshot
  return { snapshot: next, applied, skipped, changed }
}

/**
 * The library as a prompt block: a heading and one `[G<id>] text` line per experience; `""` when empty (so a prompt
 * without experiences is exactly the prompt of a policy that never learned).
 */
export const render = (snapshot: Snapshot, heading = "Experiences learned from earlier attempts:"): string =>
  snapshot.experiences.length === 0 ? "" : `${heading}\n${snapshot.experiences.map((e) => `[G${e.id}] ${e.text}`).join("\n")}`

// ---------------------------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------------------------

/**
 * The backend could not read or write the library (`location` is a path or a store id).
 * @category errors
 */
export class LibraryStorageError extends Schema.TaggedError<LibraryStorageError>()("LibraryStorageError", {
  location: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `experience library at ${this.location}: ${this.reason}`
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Service
// ---------------------------------------------------------------------------------------------------------------

/**
 * The experience library service.
 * @category services
 */
export class ExperienceLibrary extends Context.Service<
  ExperienceLibrary,
  {
    /** The latest snapshot. */
    readonly current: Effect.Effect<Snapshot, LibraryStorageError>
    /** Apply a batch of operations (one new version if anything changed). */
    readonly apply: (ops: ReadonlyArray<Operation>, note?: string) => Effect.Effect<ApplyResult, LibraryStorageError>
    /** Every snapshot, oldest first (version 0, the empty library, included). */
    readonly history: Effect.Effect<ReadonlyArray<Snapshot>, LibraryStorageError>
    /** Where the library lives (a path, a store id, "memory"). */
    readonly location: string
  }
>()("@autodidact/llm/ExperienceLibrary") {}

/** Add one experience (a batch of one ADD, a new version) through the service in context; fails with {@link LibraryStorageError} when the version cannot be stored. */
export const add = (content: string): Effect.Effect<ApplyResult, LibraryStorageError, ExperienceLibrary> =>
  Effect.flatMap(Effect.service(ExperienceLibrary), (l) => l.apply([{ op: "ADD", content }]))

/** Replace the text of experience `id` (a batch of one MODIFY; an unknown id is counted as skipped, no error) through the service in context; fails with {@link LibraryStorageError} when the version cannot be stored. */
export const modify = (id: number, content: string): Effect.Effect<ApplyResult, LibraryStorageError, ExperienceLibrary> =>
  Effect.flatMap(Effect.service(ExperienceLibrary), (l) => l.apply([{ op: "MODIFY", id, content }]))

/** Delete experience `id` (a batch of one DELETE; an unknown id is counted as skipped, no error) through the service in context; fails with {@link LibraryStorageError} when the version cannot be stored. */
export const remove = (id: number): Effect.Effect<ApplyResult, LibraryStorageError, ExperienceLibrary> =>
  Effect.flatMap(Effect.service(ExperienceLibrary), (l) => l.apply([{ op: "DELETE", id }]))

/** A storage backend: load every stored version (oldest first; empty when nothing is stored) and persist a new one. */
export interface Backend {
  readonly location: string
  readonly load: Effect.Effect<ReadonlyArray<Snapshot>, LibraryStorageError>
  /** Persist `snapshot`, the new latest version; `all` is every version including it. Must be atomic. */
  readonly save: (snapshot: Snapshot, all: ReadonlyArray<Snapshot>) => Effect.Effect<void, LibraryStorageError>
}

/**
 * Build the service over a backend: loads the stored versions once (the latest is current, empty when none), then
 * serializes updates (a semaphore) and persists each new version before it becomes current, so a failed write
 * leaves the library unchanged. Fails with {@link LibraryStorageError} when the backend cannot load; updates fail
 * with it when it cannot save.
 * @see Cai et al., "Training-Free Group Relative Policy Optimization", arXiv:2510.08191 (Sec. 3, the experience library)
 * @since 0.1.0
 */
export const make = (backend: Backend): Effect.Effect<ExperienceLibrary["Service"], LibraryStorageError> =>
  Effect.gen(function* () {
    const loaded = yield* backend.load
    const versions = yield* Ref.make<ReadonlyArray<Snapshot>>(loaded.length === 0 ? [empty] : loaded)
    const lock = yield* Semaphore.make(1)
    const latest = (vs: ReadonlyArray<Snapshot>) => vs[vs.length - 1]!
    return ExperienceLibrary.of({
      location: backend.location,
      current: Effect.map(Ref.get(versions), latest),
      history: Ref.get(versions),
      apply: (ops, note) =>
        lock.withPermits(1)(
          Effect.gen(function* () {
            const vs = yield* Ref.get(versions)
            const result = applyOperations(latest(vs), ops, note)
            if (!result.changed) return result
            const all = [...vs, result.snapshot]
            yield* backend.save(result.snapshot, all)
            yield* Ref.set(versions, all)
            return result
          })
        )
    })
  })

/** A process-local library starting from `initial` (default empty); versions live as long as the layer. @since 0.1.0 */
export const layerMemory = (initial: Snapshot = empty): Layer.Layer<ExperienceLibrary> =>
  Layer.effect(
    ExperienceLibrary,
    make({ location: "memory", load: Effect.succeed(initial.version === 0 && initial.experiences.length === 0 ? [] : [initial]), save: () => Effect.void }).pipe(
      Effect.orDie
    )
  )

const FileFormat = Schema.Struct({ format: Schema.Literal("autodidact.experience-library/1"), versions: Schema.Array(Snapshot) })

const reasonOf = (e: unknown): string => (e instanceof Error ? e.message : String(e))

/**
 * Read the versions stored in a library file written by {@link layerFile}, oldest first (`[]` when the file does not
 * exist). Fails with {@link LibraryStorageError} naming the file for an unreadable file or one that is not a library.
 * @since 0.1.0
 */
export const readFile = (path: string): Effect.Effect<ReadonlyArray<Snapshot>, LibraryStorageError> =>
  Effect.gen(function* () {
    if (!fs.existsSync(path)) return []
    const text = yield* Effect.try({
      try: () => fs.readFileSync(path, "utf8"),
      catch: (e) => new LibraryStorageError({ location: path, reason: `read failed: ${reasonOf(e)}` })
    })
    const json = yield* Effect.try({
      try: () => JSON.parse(text) as unknown,
      catch: (e) => new LibraryStorageError({ location: path, reason: `not valid JSON (${reasonOf(e)})` })
    })
    const file = yield* Schema.decodeUnknownEffect(FileFormat)(json).pipe(
      Effect.mapError((e) => new LibraryStorageError({ location: path, reason: `not a library file: ${e.message.slice(0, 300)}` }))
    )
    return file.versions
  })

/**
 * A library in a JSON file holding every version; each update rewrites the file atomically (core's `AtomicFile`).
 * A missing file is an empty library; a corrupt one fails with {@link LibraryStorageError}.
 */
export const layerFile = (path: string, io: Partial<AtomicFile.Io> = {}): Layer.Layer<ExperienceLibrary, LibraryStorageError> =>
  Layer.effect(
    ExperienceLibrary,
    make({
      location: path,
      load: readFile(path),
      save: (_snapshot, all) =>
        AtomicFile.write(path, Buffer.from(JSON.stringify({ format: "autodidact.experience-library/1", versions: all }), "utf8"), io).pipe(
          Effect.mapError((e) => new LibraryStorageError({ location: path, reason: `write failed: ${e.reason}` }))
        )
    })
  )

/**
 * The skill library: admission (compile, own tests in the sandbox, optional verifier), versions with rollback,
 * retrieval by description embedding, composition through a granted `callSkill`, and durable storage as a directory
 * of plain files (one `<name>.js` with the active source and one `<name>.json` with the metadata and every version),
 * written atomically with `AtomicFile` — the same layout `export`/`import` use, so a library is reviewable in a PR.
 *
 * **Why files and not the ExperienceStore**: skills are few (thousands), change rarely and are reviewed by people;
 * a directory of atomic files is durable, diffable, and needs no database. Retrieval embeds descriptions in memory
 * with memory's `Embedder` service (the local hashed embedder by default) into a {@link SkillIndex.SkillIndex}: one
 * contiguous `Float32Array` matrix searched exactly with `@autodidact/kernels`' resident WebAssembly SIMD top-k (see
 * {@link SkillLibrary.retrieve}).
 *
 * **Details**
 * - `admit(spec)`: a new skill or a new version is admitted only if it compiles, passes all its tests in the sandbox
 *   and (if given) the verifier; otherwise the result is `{ admitted: false, reason }` and the active version is
 *   unchanged. Admitted versions are numbered 1, 2, ...; `rollback(name, version)` makes any of them active.
 * - `call(name, args, host)`: runs the active version in the sandbox with the caller's host functions plus
 *   `callSkill(name, args)`, which calls another admitted skill (host functions are passed on); a cycle (a skill
 *   already on the call stack) or a depth above `maxCallDepth` is refused with `HostCallError`.
 *
 * @see Wang et al., "Voyager: An Open-Ended Embodied Agent with Large Language Models", arXiv:2305.16291 (Sec. 2.2)
 * @since 0.1.0
 */
import { AtomicFile } from "@autodidact/core/node"
import { Embedder } from "@autodidact/memory"
import type { EmbedderError } from "@autodidact/memory"
import { Cause, Data, Effect, Exit, Layer, Schema, Scope } from "effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { deepEqual } from "./internal/Json.js"
import * as Sandbox from "./Sandbox.js"
import * as Skill from "./Skill.js"
import * as SkillIndex from "./SkillIndex.js"
import type * as SyncSandbox from "./SyncSandbox.js"

/**
 * Why a skill was not admitted, by `stage`: `"name"` (not a valid skill name), `"compile"` (the source does not
 * parse in the sandbox), `"test"` (one of its own tests failed: `reason` says which and what it returned) or
 * `"verifier"` (the library's verifier rejected it or scored it below the threshold). The library is unchanged.
 */
export class AdmissionError extends Data.TaggedError("AdmissionError")<{
  readonly name: string
  readonly stage: "name" | "compile" | "test" | "verifier"
  readonly reason: string
}> {
  override get message() {
    return `skill ${JSON.stringify(this.name)} not admitted at the ${this.stage} stage: ${this.reason}`
  }
}

/** A skill or version that does not exist. */
export class SkillNotFoundError extends Data.TaggedError("SkillNotFoundError")<{
  readonly name: string
  readonly version?: number
}> {
  override get message() {
    return this.version === undefined ? `no skill named ${JSON.stringify(this.name)}` : `skill ${JSON.stringify(this.name)} has no version ${this.version}`
  }
}

/** Reading or writing the library's directory failed; `path` is the file involved. The in-memory state is unchanged. */
export class SkillStorageError extends Data.TaggedError("SkillStorageError")<{ readonly path: string; readonly reason: string }> {
  override get message() {
    return `${this.path}: ${this.reason}`
  }
}

/**
 * A verifier: a rule function or a reward-model-like scorer. Return `true`/`false`, or a score that must reach
 * `threshold` (default 0.5).
 */
export type Verifier = (spec: Skill.SkillSpec, sandbox: Sandbox.Sandbox["Service"]) => Effect.Effect<boolean | number, unknown>

/** Library options. */
export interface LibraryOptions {
  /** Directory for durable storage (omit for an in-memory library). */
  readonly directory?: string
  readonly verifier?: Verifier
  readonly verifierThreshold?: number
  /** Maximum nesting of `callSkill` (default 4). */
  readonly maxCallDepth?: number
  /**
   * Retrieval engine: `"auto"` (default) uses the resident WebAssembly SIMD index when available (`AUTODIDACT_WASM_SIMD=0`
   * disables it), `"scan"` always scans. Both return the same hits.
   */
  readonly retrievalEngine?: "auto" | "scan"
}

/** A retrieval hit. */
export interface Hit {
  readonly name: string
  readonly score: number
  readonly spec: Skill.SkillSpec
}

const now = () => new Date().toISOString()
const decodeRecord = Schema.decodeUnknownSync(Skill.SkillRecord)


/**
 * Host functions that replay scripted replies (a skill test's `host`, or `autodidact skills call --host`): each name
 * maps to the values its successive calls return; a call past the end fails with `HostCallError` ("<label> has no
 * more replies"). `onCall` sees every call with its arguments.
 */
export const scriptedHost = (
  script: Readonly<Record<string, ReadonlyArray<unknown>>> | undefined,
  options: { readonly label?: string; readonly onCall?: (fn: string, args: ReadonlyArray<unknown>) => void } = {}
): Record<string, Sandbox.HostFunction> => {
  const out: Record<string, Sandbox.HostFunction> = {}
  for (const [name, values] of Object.entries(script ?? {})) {
    let i = 0
    out[name] = (...args) => {
      options.onCall?.(name, args)
      if (i >= values.length) throw new Sandbox.HostCallError({ fn: name, reason: `${options.label ?? "the test script"} has no more replies` })
      return values[i++]
    }
  }
  return out
}

/**
 * A Voyager-style skill library (Wang et al. 2023, "Voyager: An Open-Ended Embodied Agent with Large Language
 * Models", arXiv:2305.16291) over a sandbox and an embedder: skills are admitted only after their name, compilation,
 * own tests and the optional verifier pass (`admit`, failing with {@link AdmissionError}); each admission is a new
 * version, and `rollback` makes an earlier one active; `call` runs the active version in the sandbox with granted
 * host functions; `retrieve(query, { k })` returns the `k` skills whose description embeddings are nearest the
 * query's (dot product: cosine for L2-normalized embedders). With `directory`, every change is written there
 * (atomic writes) and read back by {@link SkillLibrary.make}; storage failures are {@link SkillStorageError}s.
 *
 * @category models
 * @since 0.1.0
 */
export class SkillLibrary {
  private readonly records = new Map<string, Skill.SkillRecord>()
  /** Description vectors (one contiguous matrix) and the resident top-k index built from it on demand. */
  readonly vectors: SkillIndex.SkillIndex
  readonly maxCallDepth: number

  private constructor(
    readonly sandbox: Sandbox.Sandbox["Service"],
    readonly embedder: Embedder.Embedder["Service"],
    readonly options: LibraryOptions
  ) {
    this.maxCallDepth = options.maxCallDepth ?? 4
    this.vectors = new SkillIndex.SkillIndex(options.retrievalEngine !== undefined ? { engine: options.retrievalEngine } : {})
  }

  /**
   * Open a library (loading `directory` if it exists). Needs `Sandbox` and `Embedder`. The resident retrieval index
   * (WebAssembly memory) is released by {@link dispose}, or when the library is garbage-collected; use
   * {@link makeScoped} to release it when a scope closes.
   */
  static make = (options: LibraryOptions = {}) =>
    Effect.gen(function*() {
      const lib = new SkillLibrary(yield* Sandbox.Sandbox, yield* Embedder.Embedder, options)
      if (options.directory !== undefined) yield* lib.importDirectory(options.directory, { persist: false })
      return lib
    })

  /**
   * Open a library for plain (non-Effect) code: a sandbox pool and an embedder of its own (the hashed embedder of
   * memory by default), every method a Promise that rejects with the same tagged errors as the Effect methods; call
   * `close()` when done. See {@link open}.
   */
  static open = (options: OpenOptions = {}): Promise<OpenLibrary> => open(options)

  /** {@link make}, with the resident retrieval index released when the scope closes. */
  static makeScoped = (
    options: LibraryOptions = {}
  ): Effect.Effect<SkillLibrary, SkillStorageError | AdmissionError, Sandbox.Sandbox | Embedder.Embedder | Scope.Scope> =>
    Effect.acquireRelease(SkillLibrary.make(options), (lib) => Effect.sync(() => lib.dispose()))

  /** Release the resident retrieval index now (the library stays usable: the next retrieval rebuilds it). */
  dispose(): void {
    this.vectors.dispose()
  }

  /** Names of all skills. */
  names(): ReadonlyArray<string> {
    return [...this.records.keys()].sort()
  }

  /** The stored record (versions, active version, stats). */
  get(name: string): Skill.SkillRecord | undefined {
    return this.records.get(name)
  }

  /** The active spec of a skill. */
  active(name: string): Skill.SkillSpec | undefined {
    const r = this.records.get(name)
    return r?.versions.find((v) => v.version === r.active)?.spec
  }

  /** Check a spec without admitting it: name, compilation, own tests, verifier. */
  check(spec: Skill.SkillSpec): Effect.Effect<number | undefined, AdmissionError> {
    return Effect.gen({ self: this }, function*() {
      const fail = (stage: AdmissionError["stage"], reason: string) => new AdmissionError({ name: spec.name, stage, reason })
      if (!Skill.isValidName(spec.name)) return yield* fail("name", `invalid skill name ${JSON.stringify(spec.name)}`)
      yield* this.sandbox.run({ source: spec.source, compileOnly: true }).pipe(Effect.mapError((e) => fail("compile", e.message)))
      if (spec.tests.length === 0) return yield* fail("test", "a skill needs at least one test")
      for (const [i, t] of spec.tests.entries()) {
        const label = t.name ?? `test ${i}`
        // the scripted host is shared with nested `callSkill`s, so a composite skill's test scripts its children's I/O
        const scripted = scriptedHost(t.host)
        const got = yield* this.sandbox
          .run({ source: spec.source, ...(spec.entry !== undefined ? { entry: spec.entry } : {}), args: t.input, host: { ...scripted, callSkill: this.callSkillHost([spec.name], scripted) } })
          .pipe(Effect.mapError((e) => fail("test", `${label}: ${e._tag}: ${e.message}`)))
        if (!deepEqual(got, t.expected)) return yield* fail("test", `${label}: expected ${JSON.stringify(t.expected)}, got ${JSON.stringify(got)}`)
      }
      if (this.options.verifier === undefined) return undefined
      const v = yield* this.options.verifier(spec, this.sandbox).pipe(Effect.mapError((e) => fail("verifier", String(e))))
      const threshold = this.options.verifierThreshold ?? 0.5
      if (v === false || (typeof v === "number" && !(v >= threshold))) return yield* fail("verifier", `rejected (${String(v)})`)
      return typeof v === "number" ? v : undefined
    })
  }

  /** Admit a new skill or a new version; a failing spec never replaces a working version. */
  admit(spec: Skill.SkillSpec): Effect.Effect<Skill.SkillVersion, AdmissionError | SkillStorageError> {
    return Effect.gen({ self: this }, function*() {
      const score = yield* this.check(spec)
      const prev = this.records.get(spec.name)
      const version: Skill.SkillVersion = {
        version: (prev?.versions.reduce((m, v) => Math.max(m, v.version), 0) ?? 0) + 1,
        spec,
        admittedAt: now(),
        ...(score !== undefined ? { verifierScore: score } : {})
      }
      const record: Skill.SkillRecord = {
        name: spec.name,
        active: version.version,
        versions: [...(prev?.versions ?? []), version],
        stats: prev?.stats ?? { calls: 0, successes: 0, meanReturn: 0 }
      }
      yield* this.put(record)
      return version
    })
  }

  /** Make `version` the active version. */
  rollback(name: string, version: number): Effect.Effect<void, SkillNotFoundError | SkillStorageError> {
    const r = this.records.get(name)
    if (r === undefined || !r.versions.some((v) => v.version === version)) return Effect.fail(new SkillNotFoundError({ name, version }))
    return this.put({ ...r, active: version })
  }

  /** Remove a skill and every version (and its files, for a library with a directory); a no-op for an unknown name. */
  remove(name: string): Effect.Effect<void, SkillStorageError> {
    return Effect.try({
      try: () => {
        this.records.delete(name)
        this.vectors.delete(name)
        if (this.options.directory !== undefined) {
          for (const ext of [".json", ".js"]) fs.rmSync(nodePath.join(this.options.directory, `${name}${ext}`), { force: true })
        }
      },
      catch: (e) => new SkillStorageError({ path: this.options.directory ?? "", reason: String(e) })
    })
  }

  /** Record the outcome of a use (for usage statistics: calls, successes, mean return). */
  recordUse(name: string, outcome: { readonly success: boolean; readonly return?: number }): Effect.Effect<void, SkillNotFoundError | SkillStorageError> {
    const r = this.records.get(name)
    if (r === undefined) return Effect.fail(new SkillNotFoundError({ name }))
    const calls = r.stats.calls + 1
    const ret = outcome.return ?? 0
    return this.put({
      ...r,
      stats: { calls, successes: r.stats.successes + (outcome.success ? 1 : 0), meanReturn: r.stats.meanReturn + (ret - r.stats.meanReturn) / calls }
    })
  }

  /** Call the active version of a skill with the caller's host functions (plus `callSkill`). */
  call(name: string, args: unknown, host: Readonly<Record<string, Sandbox.HostFunction>> = {}): Effect.Effect<unknown, Sandbox.SandboxError | SkillNotFoundError> {
    return this.callAt([], name, args, host)
  }

  private callAt(
    stack: ReadonlyArray<string>,
    name: string,
    args: unknown,
    host: Readonly<Record<string, Sandbox.HostFunction>>
  ): Effect.Effect<unknown, Sandbox.SandboxError | SkillNotFoundError> {
    const spec = this.active(name)
    if (spec === undefined) return Effect.fail(new SkillNotFoundError({ name }))
    const path = [...stack, name]
    return this.sandbox.run({
      source: spec.source,
      ...(spec.entry !== undefined ? { entry: spec.entry } : {}),
      args,
      host: { ...host, callSkill: this.callSkillHost(path, host) },
      // called from a running skill's `callSkill`: that skill's worker waits for this call
      ...(stack.length > 0 ? { nested: true } : {})
    })
  }

  private callSkillHost(path: ReadonlyArray<string>, host: Readonly<Record<string, Sandbox.HostFunction>>): Sandbox.HostFunction {
    return (name, args) => {
      if (typeof name !== "string") throw new Sandbox.HostCallError({ fn: "callSkill", reason: "the skill name must be a string" })
      if (path.includes(name)) throw new Sandbox.HostCallError({ fn: "callSkill", reason: `cycle: ${[...path, name].join(" -> ")}` })
      if (path.length >= this.maxCallDepth) throw new Sandbox.HostCallError({ fn: "callSkill", reason: `call depth above ${this.maxCallDepth}` })
      return Effect.runPromise(
        this.callAt(path, name, args, host).pipe(
          Effect.mapError((e) => new Sandbox.HostCallError({ fn: "callSkill", reason: `${name}: ${e._tag}: ${"message" in e ? e.message : ""}` }))
        )
      )
    }
  }

  /**
   * {@link call}, synchronously, on an in-process {@link SyncSandbox.SyncSandbox} (host functions must be synchronous;
   * `callSkill` nests synchronously with the same cycle and depth checks). Throws a `SandboxError` or
   * {@link SkillNotFoundError}.
   */
  callSync(runner: SyncSandbox.SyncSandbox, name: string, args: unknown, host: Readonly<Record<string, Sandbox.HostFunction>> = {}): unknown {
    return this.callSyncAt(runner, [], name, args, host)
  }

  private callSyncAt(
    runner: SyncSandbox.SyncSandbox,
    stack: ReadonlyArray<string>,
    name: string,
    args: unknown,
    host: Readonly<Record<string, Sandbox.HostFunction>>
  ): unknown {
    const spec = this.active(name)
    if (spec === undefined) throw new SkillNotFoundError({ name })
    const path = [...stack, name]
    const callSkill: Sandbox.HostFunction = (child, childArgs) => {
      if (typeof child !== "string") throw new Sandbox.HostCallError({ fn: "callSkill", reason: "the skill name must be a string" })
      if (path.includes(child)) throw new Sandbox.HostCallError({ fn: "callSkill", reason: `cycle: ${[...path, child].join(" -> ")}` })
      if (path.length >= this.maxCallDepth) throw new Sandbox.HostCallError({ fn: "callSkill", reason: `call depth above ${this.maxCallDepth}` })
      try {
        return this.callSyncAt(runner, path, child, childArgs, host)
      } catch (e) {
        const tag = (e as { _tag?: string })._tag ?? "Error"
        throw new Sandbox.HostCallError({ fn: "callSkill", reason: `${child}: ${tag}: ${e instanceof Error ? e.message : String(e)}` })
      }
    }
    return runner.run({ source: spec.source, ...(spec.entry !== undefined ? { entry: spec.entry } : {}), args, host: { ...host, callSkill } })
  }

  /**
   * The `k` skills (default 5) whose descriptions are nearest to `query`: score = dot product of the embeddings
   * (cosine for memory's L2-normalized embedders), summed in doubles; best first, ties by name. `k ≤ 0` gives `[]`,
   * `k` above the library size gives every skill, a fractional `k` is floored. `tags` (all required) and `filter`
   * restrict the skills; only those are scored.
   *
   * Unfiltered retrievals search the resident WebAssembly SIMD index (rebuilt lazily after admit/remove/rollback/
   * import) and rescore its candidates in doubles with a proof that no other skill can rank higher (see
   * {@link SkillIndex}); filtered ones, and every retrieval when WebAssembly SIMD is unavailable, scan the contiguous
   * matrix. Both give the same hits as a plain scan.
   */
  retrieve(query: string, options: { readonly k?: number; readonly tags?: ReadonlyArray<string>; readonly filter?: (r: Skill.SkillRecord) => boolean } = {}) {
    return Effect.gen({ self: this }, function*() {
      const [q] = yield* this.embedder.embed([query])
      const k = options.k ?? 5
      if (!(k > 0)) return []
      const { filter, tags } = options
      const accept = filter === undefined && tags === undefined ? undefined : (name: string) => {
        if (filter !== undefined && !filter(this.records.get(name)!)) return false
        if (tags !== undefined) {
          const own = this.active(name)!.tags
          if (!tags.every((t) => own?.includes(t))) return false
        }
        return true
      }
      // a query of another length than the stored vectors is an embedder defect (SkillIndexDimensionError): a die
      const top = yield* Effect.sync(() => this.vectors.search(q!, k, accept))
      const hits: Array<Hit> = top.map((h) => ({ name: h.name, score: h.score, spec: this.active(h.name)! }))
      return hits
    })
  }

  /** Write every skill as `<name>.js` + `<name>.json` into `directory`. */
  exportDirectory(directory: string): Effect.Effect<void, SkillStorageError> {
    return Effect.forEach([...this.records.values()], (r) => this.writeFiles(directory, r), { discard: true })
  }

  /**
   * Load `<name>.json` files from `directory` (the `.js` file, if present, must match the active source: it is what a
   * reviewer reads). Loaded skills are re-checked only when `recheck` is set.
   */
  importDirectory(
    directory: string,
    options: { readonly persist?: boolean; readonly recheck?: boolean } = {}
  ): Effect.Effect<ReadonlyArray<string>, SkillStorageError | AdmissionError> {
    return Effect.gen({ self: this }, function*() {
      const names: Array<string> = []
      if (!fs.existsSync(directory)) return names
      for (const file of fs.readdirSync(directory).filter((f) => f.endsWith(".json")).sort()) {
        const path = nodePath.join(directory, file)
        const record = yield* Effect.try({
          try: () => decodeRecord(JSON.parse(fs.readFileSync(path, "utf8"))),
          catch: (e) => new SkillStorageError({ path, reason: String(e) })
        })
        const jsPath = nodePath.join(directory, `${record.name}.js`)
        const active = record.versions.find((v) => v.version === record.active)
        if (active === undefined) return yield* new SkillStorageError({ path, reason: `active version ${record.active} missing` })
        if (fs.existsSync(jsPath) && fs.readFileSync(jsPath, "utf8") !== active.spec.source) {
          return yield* new SkillStorageError({ path: jsPath, reason: "the .js file differs from the active version's source in the .json" })
        }
        if (options.recheck === true) yield* this.check(active.spec)
        if (options.persist === false) yield* this.index(record)
        else yield* this.put(record)
        names.push(record.name)
      }
      return names
    })
  }

  private index(record: Skill.SkillRecord): Effect.Effect<void> {
    const spec = record.versions.find((v) => v.version === record.active)!.spec
    return this.embedder.embed([`${spec.name.replace(/[-_]/g, " ")}: ${spec.description}`]).pipe(
      Effect.orDie,
      Effect.flatMap(([v]) =>
        Effect.sync(() => {
          // a vector of another length is an embedder defect (SkillIndexDimensionError), not an admission failure
          this.vectors.set(record.name, v)
          this.records.set(record.name, record)
        })
      )
    )
  }

  private put(record: Skill.SkillRecord): Effect.Effect<void, SkillStorageError> {
    const write = this.options.directory !== undefined ? this.writeFiles(this.options.directory, record) : Effect.void
    return Effect.andThen(write, this.index(record))
  }

  private writeFiles(directory: string, record: Skill.SkillRecord): Effect.Effect<void, SkillStorageError> {
    return Effect.try({
      try: () => {
        const active = record.versions.find((v) => v.version === record.active)!
        // metadata first: it is the source of truth (it holds every version's source)
        AtomicFile.writeSync(nodePath.join(directory, `${record.name}.json`), JSON.stringify(record, null, 2) + "\n")
        AtomicFile.writeSync(nodePath.join(directory, `${record.name}.js`), active.spec.source)
      },
      catch: (e) => new SkillStorageError({ path: directory, reason: String(e) })
    })
  }
}

/**
 * Options of {@link open} (`SkillLibrary.open`): the library's options plus its own sandbox and embedder.
 *
 * @category models
 * @since 0.1.0
 */
export interface OpenOptions extends LibraryOptions {
  /** Limits of the worker sandbox (time, memory, stack, pool size); see `Sandbox.SandboxOptions`. */
  readonly sandbox?: Sandbox.SandboxOptions | undefined
  /**
   * The embedder of skill descriptions: memory's `PlainEmbedder` (`{ dimension, model, embed(texts) }`) or an
   * `Embedder` layer. Default: `Embedder.layerHashed()` (local, deterministic, 256 dimensions).
   */
  readonly embedder?: Embedder.PlainEmbedder | Layer.Layer<Embedder.Embedder, unknown> | undefined
}

/**
 * The skill library for plain code: {@link SkillLibrary}'s methods with Promises (rejecting with the same
 * `AdmissionError`, `SkillNotFoundError`, `SkillStorageError`, sandbox errors and `EmbedderError`: `instanceof` and
 * `_tag` work), synchronous where the Effect class is. `close()` stops the sandbox workers and releases the index.
 *
 * @category models
 * @since 0.1.0
 */
export interface OpenLibrary {
  /** The Effect-face library behind it (one implementation). */
  readonly library: SkillLibrary
  names(): ReadonlyArray<string>
  get(name: string): Skill.SkillRecord | undefined
  active(name: string): Skill.SkillSpec | undefined
  check(spec: Skill.SkillSpec): Promise<number | undefined>
  admit(spec: Skill.SkillSpec): Promise<Skill.SkillVersion>
  call(name: string, args: unknown, host?: Readonly<Record<string, Sandbox.HostFunction>>): Promise<unknown>
  retrieve(
    query: string,
    options?: { readonly k?: number; readonly tags?: ReadonlyArray<string>; readonly filter?: (r: Skill.SkillRecord) => boolean }
  ): Promise<ReadonlyArray<Hit>>
  rollback(name: string, version: number): Promise<void>
  remove(name: string): Promise<void>
  recordUse(name: string, outcome: { readonly success: boolean; readonly return?: number }): Promise<void>
  exportDirectory(directory: string): Promise<void>
  importDirectory(directory: string, options?: { readonly persist?: boolean; readonly recheck?: boolean }): Promise<ReadonlyArray<string>>
  /** Stop the sandbox workers and release the retrieval index; idempotent. */
  close(): Promise<void>
}

/**
 * Open a skill library for plain code (also `SkillLibrary.open`), loading `directory` when it exists.
 *
 * @example
 * ```ts
 * import { SkillLibrary } from "@autodidact/skills"
 *
 * const lib = await SkillLibrary.SkillLibrary.open({ directory: "skills" })
 * await lib.admit(spec)                                   // AdmissionError names the stage and the reason
 * const out = await lib.call("walk-to", { target: "fridge 1" }, { act: (a) => `you did: ${a}` })
 * await lib.close()
 * ```
 * @returns rejects with SkillStorageError or AdmissionError (a directory that cannot be read), or the embedder
 *   layer's error.
 * @category constructors
 * @since 0.1.0
 */
export const open = async (options: OpenOptions = {}): Promise<OpenLibrary> => {
  const { sandbox, embedder, ...libraryOptions } = options
  const services = Layer.mergeAll(
    Sandbox.layer(sandbox ?? {}),
    embedder === undefined ? Embedder.layerHashed() : Embedder.layerFrom(embedder)
  )
  const scope = Scope.makeUnsafe()
  // the services are built in the library's own scope (not the call's): they live until `close()`
  const exit = await Effect.runPromiseExit(
    Layer.buildWithScope(services, scope).pipe(
      Effect.flatMap((context) => SkillLibrary.makeScoped(libraryOptions).pipe(Effect.provideContext(context))),
      Scope.provide(scope)
    )
  )
  if (Exit.isFailure(exit)) {
    await Effect.runPromise(Scope.close(scope, exit))
    throw Cause.squash(exit.cause)
  }
  const lib = exit.value
  const run = <A, E>(e: Effect.Effect<A, E>): Promise<A> => Effect.runPromise(e)
  let closed = false
  return {
    library: lib,
    names: () => lib.names(),
    get: (name) => lib.get(name),
    active: (name) => lib.active(name),
    check: (spec) => run(lib.check(spec)),
    admit: (spec) => run(lib.admit(spec)),
    call: (name, args, host) => run(lib.call(name, args, host)),
    retrieve: (query, o) => run<ReadonlyArray<Hit>, EmbedderError>(lib.retrieve(query, o)),
    rollback: (name, version) => run(lib.rollback(name, version)),
    remove: (name) => run(lib.remove(name)),
    recordUse: (name, outcome) => run(lib.recordUse(name, outcome)),
    exportDirectory: (directory) => run(lib.exportDirectory(directory)),
    importDirectory: (directory, o) => run(lib.importDirectory(directory, o)),
    close: async () => {
      if (closed) return
      closed = true
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  }
}

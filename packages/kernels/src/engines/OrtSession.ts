/**
 * One ONNX Runtime session wrapper for every package: `onnxruntime-node` loaded lazily, a model opened from a path
 * or from bytes, its declared inputs and outputs checked, feeds checked before the runtime sees them, typed errors
 * naming the model and the input, and `session.release()` called when the session's scope closes.
 *
 * **When to use**: whenever a package runs an ONNX model (a reward model in `@autodidact/rewards`, a sentence
 * embedder in `@autodidact/memory`, a kernel graph in {@link OrtEngine}). Import it through the entry point
 * `@autodidact/kernels/ort`: ONNX Runtime itself is imported only when the first session is created, so importing
 * the wrapper costs nothing for a user who never opens a model.
 *
 * **Details**
 * - Two faces over one implementation: {@link create} (a Promise; the caller calls `release()`) and {@link open}
 *   (an `Effect` with `Scope`: `Effect.acquireRelease(create, release)`); {@link run} is the Effect face of
 *   `session.run`.
 * - A path source is read once (a missing file is `OrtLoadError` kind `"missing"`, an empty one `"corrupted"`) and
 *   the session is created **from the path**, so ONNX Runtime resolves external-data files next to the model; the
 *   bytes are kept for graph inspection ({@link embeddingRows}). A byte source is used as is.
 * - Execution providers: `"auto"` (default) is `["cuda", "cpu"]` when this `onnxruntime-node` build bundles CUDA,
 *   else `["cpu"]` ({@link detectProviders}); an explicit list is passed through. When a list with `"cuda"` fails to
 *   create a session, the session is created again without it (`cpuFallback`, default true) and
 *   {@link OrtSession.providerNote} says why.
 * - `expectInputs` / `expectOutputs` check the declared graph at load (names, element types, ranks, fixed
 *   dimensions); a mismatch is `OrtLoadError` kind `"graph"`, and the session created before the check is released
 *   first, so a failed load never leaves a session in use.
 * - Feeds ({@link checkFeeds}): every declared input fed, no unknown input, element types, ranks, fixed dimensions, and
 *   symbolic dimensions (e.g. `batch`) equal across inputs; the first mismatch is an {@link OrtInputError} naming the
 *   input, what was expected and what was given.
 *
 * **Gotchas**
 * - Int64 inputs are `BigInt64Array` tensors (the Hugging Face `input_ids`/`attention_mask` layout). Build tensors
 *   with `session.runtime.Tensor` (the lazily loaded module) so that no static import of `onnxruntime-node` is needed.
 * - Running after `release()` (or after the scope closed) is an {@link OrtRunError} ("session released").
 *
 * @example
 * ```ts
 * import { OrtSession } from "@autodidact/kernels/ort"
 * import { Effect } from "effect"
 * const scores = Effect.scoped(Effect.gen(function* () {
 *   const s = yield* OrtSession.open("../shared/data/onnx/feature_rm.onnx")
 *   const out = yield* OrtSession.run(s, { features: new s.runtime.Tensor("float32", new Float32Array(16), [1, 16]) })
 *   return out["reward"]!.data // Float32Array [1]
 * }))
 * ```
 * @see https://onnxruntime.ai/docs/api/js/ (onnxruntime-node: InferenceSession.create, run, release)
 * @since 0.1.0
 */
import { MissingPeerError, OptionalPeer } from "@autodidact/core"
import { readFile } from "node:fs/promises"
import { Effect, Schema } from "effect"
import type { Scope } from "effect"
import type * as Ort from "onnxruntime-node"

/** The `onnxruntime-node` module, as loaded by {@link loadRuntime}. */
export type Runtime = typeof Ort
/** An ONNX Runtime tensor. */
export type Tensor = Ort.Tensor
/** A raw ONNX Runtime inference session. */
export type InferenceSession = Ort.InferenceSession

// ---------------------------------------------------------------------------------------------------------------------
// Errors

/**
 * A model could not be loaded: `onnxruntime-node` is not installed or does not load (`"unavailable"`), the file is
 * missing or unreadable (`"missing"`), the file is empty or not a loadable ONNX model (`"corrupted"`), or the graph
 * is not the expected one (`"graph"`).
 * @category errors
 */
export class OrtLoadError extends Schema.TaggedError<OrtLoadError>()("OrtLoadError", {
  model: Schema.String,
  kind: Schema.Literals(["unavailable", "missing", "corrupted", "graph"]),
  reason: Schema.String,
  cause: Schema.optional(Schema.Unknown)
}) {
  override get message() {
    return `cannot load ONNX model ${this.model} (${this.kind}): ${this.reason}`
  }
}

/**
 * Feeds do not match the model's declared inputs (unknown or missing input, element type, rank, dimension).
 * @category errors
 */
export class OrtInputError extends Schema.TaggedError<OrtInputError>()("OrtInputError", {
  model: Schema.String,
  input: Schema.String,
  expected: Schema.String,
  actual: Schema.String
}) {
  override get message() {
    return `input "${this.input}" of ${this.model} does not match: expected ${this.expected}, got ${this.actual}`
  }
}

/**
 * The runtime failed while running a loaded model, or the session was already released.
 * @category errors
 */
export class OrtRunError extends Schema.TaggedError<OrtRunError>()("OrtRunError", {
  model: Schema.String,
  reason: Schema.String,
  cause: Schema.optional(Schema.Unknown)
}) {
  override get message() {
    return `inference with ${this.model} failed: ${this.reason}`
  }
}

/** The first line of an error's message, at most 300 characters. */
export const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e)).split("\n")[0]!.slice(0, 300)

// ---------------------------------------------------------------------------------------------------------------------
// The runtime, loaded lazily

let runtime: Promise<Runtime> | undefined

/** The entry point that needs `onnxruntime-node` (named in `MissingPeerError`). */
export const ENTRY_POINT = "@autodidact/kernels/ort"

/** The `onnxruntime-node` range this entry point is built against. */
export const ORT_RANGE = "^1.30.0"

/**
 * Import `onnxruntime-node` with core's `OptionalPeer.load` (`importer` and `peer` are a test seam; no caching).
 * @throws (rejects with) OrtLoadError kind `"unavailable"`: when the package is not installed its `cause` is the
 *   `MissingPeerError` (`{ peer: "onnxruntime-node", entryPoint: "@autodidact/kernels/ort", install }`) and its reason
 *   that error's message (the install command); else the import error.
 */
export const loadRuntimeWith = (importer: () => Promise<unknown>, peer = "onnxruntime-node"): Promise<Runtime> =>
  OptionalPeer.load(peer, ENTRY_POINT, importer, ORT_RANGE).then(
    (m) => ((m as { InferenceSession?: unknown }).InferenceSession !== undefined ? m : (m as { default: Runtime }).default) as Runtime,
    (e: unknown) => {
      const reason = e instanceof MissingPeerError ? e.message : `cannot import ${peer} (install it: npm install ${peer}@${ORT_RANGE}): ${messageOf(e)}`
      throw new OrtLoadError({ model: peer, kind: "unavailable", reason, cause: e })
    }
  )

/**
 * Import `onnxruntime-node` once (later calls share the promise).
 * @throws (rejects with) OrtLoadError kind `"unavailable"` naming the package when it cannot be imported (see
 *   {@link loadRuntimeWith}); a later call tries again.
 */
export const loadRuntime = (): Promise<Runtime> => {
  runtime ??= loadRuntimeWith(() => import("onnxruntime-node")).catch((e: unknown) => {
    runtime = undefined
    throw e
  })
  return runtime
}

/** The execution providers `"auto"` resolves to and why: CUDA first when this `onnxruntime-node` build bundles it. */
export const detectProviders = (ort: Runtime): { readonly providers: ReadonlyArray<"cuda" | "cpu">; readonly reason: string } => {
  let backends: ReadonlyArray<{ name: string; bundled: boolean }>
  try {
    backends = ort.listSupportedBackends()
  } catch (e) {
    return { providers: ["cpu"], reason: `ort.listSupportedBackends() failed (${messageOf(e)}); using cpu` }
  }
  const cuda = backends.find((b) => b.name === "cuda")
  if (cuda?.bundled === true) return { providers: ["cuda", "cpu"], reason: "the CUDA execution provider is bundled; cuda first, cpu for unsupported ops" }
  return { providers: ["cpu"], reason: cuda === undefined ? "no CUDA execution provider in this build; cpu only" : "the CUDA execution provider is not bundled (bundled: false); cpu only" }
}

// ---------------------------------------------------------------------------------------------------------------------
// Specs and checks

/** A declared input or output: name, element type (`"float32"`, `"int64"`, ...), shape (numbers fixed, strings symbolic). */
export interface TensorSpec {
  readonly name: string
  readonly type: string
  readonly shape: ReadonlyArray<number | string>
}

const specOf = (m: Ort.InferenceSession.ValueMetadata): TensorSpec =>
  m.isTensor
    ? { name: m.name, type: m.type, shape: m.shape.map((d) => (typeof d === "number" && d >= 0 ? d : String(d))) }
    : { name: m.name, type: "non-tensor", shape: [] }

const showShape = (shape: ReadonlyArray<number | string>): string => `[${shape.join(", ")}]`

/**
 * Check one input's dimensions (and, when `length` is given, its data's element count) against its declared shape
 * (pure), before a tensor is built from them (ONNX Runtime throws an untyped error while building a tensor whose data
 * length does not match its dimensions): dimensions that are not non-negative integers, another rank, a fixed
 * dimension of another size, or a data length other than the product of `dims`. Returns the first mismatch as an
 * `OrtInputError` naming the input, the expected shape (with the declared one) and the received one, or undefined.
 *
 * @example
 * ```ts
 * OrtSession.checkDims("m", { name: "x", type: "float32", shape: ["batch", 16] }, [2, 16], 30)
 * // OrtInputError { input: "x", expected: "[2, 16] (32 values; declared [batch, 16])", actual: "[2, 15] (30 values)" }
 * ```
 */
export const checkDims = (
  model: string,
  spec: { readonly name: string; readonly shape: ReadonlyArray<number | string> },
  dims: ReadonlyArray<number>,
  length?: number
): OrtInputError | undefined => {
  const declared = `declared ${showShape(spec.shape)}`
  const fail = (expected: string, actual: string) => new OrtInputError({ model, input: spec.name, expected, actual })
  if (!dims.every((d) => Number.isInteger(d) && d >= 0)) return fail(`non-negative integer dimensions (${declared})`, showShape(dims))
  if (dims.length !== spec.shape.length) return fail(`rank ${spec.shape.length} (${declared})`, `rank ${dims.length} ${showShape(dims)}`)
  const want = spec.shape.map((d, i) => (typeof d === "number" ? d : dims[i]!))
  for (let i = 0; i < want.length; i++) {
    if (want[i] !== dims[i]) return fail(`${showShape(want)} (${declared})`, showShape(dims))
  }
  if (length === undefined) return undefined
  const size = dims.reduce((a, b) => a * b, 1)
  if (size !== length) {
    // the shape the data would have with the same leading dimensions, when it divides evenly
    const lead = dims.slice(0, -1).reduce((a, b) => a * b, 1)
    const got = dims.length >= 1 && lead > 0 && length % lead === 0 ? `${showShape([...dims.slice(0, -1), length / lead])} (${length} values)` : `${length} values`
    return fail(`${showShape(dims)} (${size} values; ${declared})`, got)
  }
  return undefined
}

/**
 * Check feeds against declared inputs (pure): every declared input fed and no other, element types, then each
 * feed's dimensions ({@link checkDims}: rank, fixed dimensions), and each symbolic dimension equal across the inputs
 * that share it. Returns the first mismatch, or undefined when the feeds fit.
 */
export const checkFeeds = (
  model: string,
  inputs: ReadonlyArray<TensorSpec>,
  feeds: Readonly<Record<string, { readonly type: string; readonly dims: ReadonlyArray<number> }>>
): OrtInputError | undefined => {
  const declared = inputs.map((i) => i.name)
  for (const key of Object.keys(feeds)) {
    if (!declared.includes(key)) {
      return new OrtInputError({ model, input: key, expected: `one of the inputs ${declared.join(", ")}`, actual: `an unknown input "${key}"` })
    }
  }
  for (const spec of inputs) {
    const feed = feeds[spec.name]
    if (feed === undefined) return new OrtInputError({ model, input: spec.name, expected: `a ${spec.type} tensor ${showShape(spec.shape)}`, actual: "no feed" })
    if (feed.type !== spec.type) return new OrtInputError({ model, input: spec.name, expected: `element type ${spec.type}`, actual: `element type ${feed.type}` })
    const bad = checkDims(model, spec, feed.dims)
    if (bad !== undefined) return bad
  }
  // symbolic dimensions shared between inputs (e.g. batch) must agree
  const bound = new Map<string, number>()
  for (const spec of inputs) {
    const feed = feeds[spec.name]!
    for (let d = 0; d < spec.shape.length; d++) {
      const sym = spec.shape[d]!
      if (typeof sym !== "string" || sym === "" || sym === "-1") continue
      const seen = bound.get(sym)
      if (seen === undefined) bound.set(sym, feed.dims[d]!)
      else if (seen !== feed.dims[d]) {
        return new OrtInputError({ model, input: spec.name, expected: `dimension "${sym}" = ${seen} as in the other inputs`, actual: showShape(feed.dims) })
      }
    }
  }
  return undefined
}

/** What is wrong with the declared graph, or undefined (see {@link OpenOptions.expectInputs}). */
const checkGraph = (inputs: ReadonlyArray<TensorSpec>, outputNames: ReadonlyArray<string>, options: OpenOptions): string | undefined => {
  for (const want of options.expectInputs ?? []) {
    const got = inputs.find((i) => i.name === want.name)
    if (got === undefined) return `the model has no input "${want.name}" (inputs: ${inputs.map((i) => i.name).join(", ")})`
    if (got.type !== want.type) return `input "${want.name}" has element type ${got.type}, expected ${want.type}`
    if (got.shape.length !== want.shape.length) return `input "${want.name}" has shape ${showShape(got.shape)}, expected ${showShape(want.shape)}`
    for (let d = 0; d < want.shape.length; d++) {
      const a = got.shape[d]!, b = want.shape[d]!
      if (typeof a === "number" && typeof b === "number" && a !== b) return `input "${want.name}" has shape ${showShape(got.shape)}, expected ${showShape(want.shape)}`
    }
  }
  for (const out of options.expectOutputs ?? []) {
    if (!outputNames.includes(out)) return `the model has no output "${out}" (outputs: ${outputNames.join(", ")})`
  }
  return undefined
}

// ---------------------------------------------------------------------------------------------------------------------
// Sessions

/** Options of {@link create} / {@link open}. */
export interface OpenOptions {
  /** A name for messages (default: the path, or `"<bytes>"`). */
  readonly name?: string | undefined
  /** `"auto"` (default: CUDA first when bundled, else CPU) or an explicit list, e.g. `["cpu"]`. */
  readonly executionProviders?: "auto" | ReadonlyArray<string> | undefined
  /** Retry without `"cuda"` when a session with it cannot be created (default true). */
  readonly cpuFallback?: boolean | undefined
  /** Other ONNX Runtime session options (threads, log level, ...); default `{ graphOptimizationLevel: "all" }`. */
  readonly sessionOptions?: Omit<Ort.InferenceSession.SessionOptions, "executionProviders"> | undefined
  /** Inputs the model must declare (names and element types; shapes checked where both are numbers). */
  readonly expectInputs?: ReadonlyArray<TensorSpec> | undefined
  /** Output names the model must declare. */
  readonly expectOutputs?: ReadonlyArray<string> | undefined
}

/** An open session (see the module docs). */
export interface OrtSession {
  /** The name used in messages (the path by default). */
  readonly name: string
  /** The model bytes (kept for graph inspection, e.g. {@link embeddingRows}). */
  readonly bytes: Uint8Array
  readonly inputs: ReadonlyArray<TensorSpec>
  readonly outputs: ReadonlyArray<TensorSpec>
  /** The execution providers the session was created with. */
  readonly executionProviders: ReadonlyArray<string>
  /** Why these providers (CUDA bundled or not, a failed CUDA session). */
  readonly providerNote: string
  /** The loaded `onnxruntime-node` module (build tensors with `runtime.Tensor`). */
  readonly runtime: Runtime
  /** The raw session (for what this wrapper does not cover). */
  readonly session: InferenceSession
  /** True once {@link OrtSession.release} ran. */
  readonly released: boolean
  /** Check `feeds` against the declared inputs (see {@link checkFeeds}). */
  check(feeds: Readonly<Record<string, Tensor>>): OrtInputError | undefined
  /**
   * Check and run; `fetches` limits the outputs computed.
   * @throws (rejects with) OrtInputError for feeds that do not fit, OrtRunError when the runtime fails or the session
   *   was released.
   */
  run(feeds: Readonly<Record<string, Tensor>>, fetches?: ReadonlyArray<string>): Promise<Record<string, Tensor>>
  /** Release the native session (idempotent). */
  release(): Promise<void>
}

const readModel = async (path: string, name: string): Promise<Uint8Array> => {
  let b: Buffer
  try {
    b = await readFile(path)
  } catch (e) {
    const missing = (e as NodeJS.ErrnoException).code === "ENOENT"
    throw new OrtLoadError({ model: name, kind: "missing", reason: missing ? `model file not found: ${path}` : `cannot read ${path}: ${messageOf(e)}`, cause: e })
  }
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength)
}

/**
 * Open a model (plain face): the caller must call `release()` when done.
 *
 * `source`: a file path or the model bytes. Execution providers, graph checks: see {@link OpenOptions}.
 * @throws (rejects with) OrtLoadError: `"unavailable"` (no `onnxruntime-node`), `"missing"` (file not found or
 *   unreadable), `"corrupted"` (empty, or not a loadable ONNX model), `"graph"` (not the expected inputs/outputs;
 *   the session is released before the error).
 */
export const create = async (source: string | Uint8Array, options: OpenOptions = {}): Promise<OrtSession> => {
  const name = options.name ?? (typeof source === "string" ? source : "<bytes>")
  const ort = await loadRuntime()
  const bytes = typeof source === "string" ? await readModel(source, name) : source
  if (bytes.byteLength === 0) throw new OrtLoadError({ model: name, kind: "corrupted", reason: typeof source === "string" ? `the model file is empty: ${source}` : "the model bytes are empty" })
  const detected = options.executionProviders === undefined || options.executionProviders === "auto" ? detectProviders(ort) : undefined
  let providers: ReadonlyArray<string> = detected?.providers ?? [...(options.executionProviders as ReadonlyArray<string>)]
  let providerNote = detected?.reason ?? "set by the executionProviders option"
  const base = options.sessionOptions ?? { graphOptimizationLevel: "all" as const }
  const make = (eps: ReadonlyArray<string>) =>
    typeof source === "string"
      ? ort.InferenceSession.create(source, { ...base, executionProviders: [...eps] })
      : ort.InferenceSession.create(source, { ...base, executionProviders: [...eps] })
  let session: InferenceSession
  try {
    try {
      session = await make(providers)
    } catch (e) {
      if (options.cpuFallback === false || !providers.includes("cuda")) throw e
      const rest = providers.filter((p) => p !== "cuda")
      session = await make(rest.length > 0 ? rest : ["cpu"])
      providers = rest.length > 0 ? rest : ["cpu"]
      providerNote = `a session with the CUDA execution provider failed (${messageOf(e)}); cpu only`
    }
  } catch (e) {
    throw new OrtLoadError({ model: name, kind: "corrupted", reason: `not a loadable ONNX model (${messageOf(e)})`, cause: e })
  }
  const inputs = session.inputMetadata.map(specOf)
  const outputs = session.outputMetadata.map(specOf)
  const problem = checkGraph(inputs, session.outputNames, options)
  if (problem !== undefined) {
    await session.release()
    throw new OrtLoadError({ model: name, kind: "graph", reason: problem })
  }
  let released = false
  const check = (feeds: Readonly<Record<string, Tensor>>) => checkFeeds(name, inputs, feeds)
  return {
    name,
    bytes,
    inputs,
    outputs,
    executionProviders: providers,
    providerNote,
    runtime: ort,
    session,
    get released() {
      return released
    },
    check,
    run: async (feeds, fetches) => {
      const err = check(feeds)
      if (err !== undefined) throw err
      if (released) throw new OrtRunError({ model: name, reason: "session released (its scope is closed)" })
      try {
        return { ...(await (fetches === undefined ? session.run(feeds as Ort.InferenceSession.FeedsType) : session.run(feeds as Ort.InferenceSession.FeedsType, [...fetches]))) }
      } catch (e) {
        throw new OrtRunError({ model: name, reason: messageOf(e), cause: e })
      }
    },
    release: async () => {
      if (released) return
      released = true
      await session.release()
    }
  }
}

/**
 * Open a model as a scoped resource (Effect face): created with {@link create}, released (`session.release()`) when
 * the scope closes.
 * @returns fails with OrtLoadError (see {@link create}).
 */
export const open = (source: string | Uint8Array, options: OpenOptions = {}): Effect.Effect<OrtSession, OrtLoadError, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: () => create(source, options),
      catch: (e) => (e instanceof OrtLoadError ? e : new OrtLoadError({ model: options.name ?? String(source), kind: "corrupted", reason: messageOf(e), cause: e }))
    }),
    (s) => Effect.promise(() => s.release()).pipe(Effect.ignore)
  )

/**
 * Check and run `feeds` on `session` (Effect face of `session.run`).
 * @returns fails with OrtInputError (feeds that do not fit, naming the input) or OrtRunError (runtime failure, or
 *   a released session).
 */
export const run = (
  session: OrtSession,
  feeds: Readonly<Record<string, Tensor>>,
  fetches?: ReadonlyArray<string>
): Effect.Effect<Record<string, Tensor>, OrtInputError | OrtRunError> =>
  Effect.tryPromise({
    try: () => session.run(feeds, fetches),
    catch: (e) => (e instanceof OrtInputError || e instanceof OrtRunError ? e : new OrtRunError({ model: session.name, reason: messageOf(e), cause: e }))
  })

// ---------------------------------------------------------------------------------------------------------------------
// Graph inspection: a minimal protobuf walk of ModelProto -> GraphProto (nodes, initializers).
// ModelProto.graph = 7; GraphProto.node = 1, .initializer = 5; NodeProto.input = 1, .output = 2, .op_type = 4;
// TensorProto.dims = 1 (int64, packed or not), .name = 8.

interface Field {
  readonly no: number
  readonly wire: number
  readonly value: number
  readonly start: number
  readonly end: number
}

function* fields(buf: Uint8Array, start = 0, end = buf.length): Generator<Field> {
  let p = start
  const varint = (): number => {
    let result = 0
    let mul = 1
    for (;;) {
      if (p >= end) throw new Error("truncated varint")
      const b = buf[p++]!
      result += (b & 0x7f) * mul
      if ((b & 0x80) === 0) return result
      mul *= 128
      if (mul > 2 ** 63) throw new Error("varint too long")
    }
  }
  while (p < end) {
    const key = varint()
    const no = Math.floor(key / 8)
    const wire = key % 8
    if (wire === 0) {
      yield { no, wire, value: varint(), start: p, end: p }
    } else if (wire === 2) {
      const len = varint()
      if (p + len > end) throw new Error("truncated field")
      yield { no, wire, value: len, start: p, end: p + len }
      p += len
    } else if (wire === 1) {
      p += 8
    } else if (wire === 5) {
      p += 4
    } else {
      throw new Error(`unsupported wire type ${wire}`)
    }
    if (p > end) throw new Error("truncated field")
  }
}

const decoder = new TextDecoder()
const str = (buf: Uint8Array, f: Field): string => decoder.decode(buf.subarray(f.start, f.end))

/** The values of a packed repeated varint field. */
const packedVarints = (buf: Uint8Array, f: Field): Array<number> => {
  const out: Array<number> = []
  let value = 0
  let mul = 1
  for (let i = f.start; i < f.end; i++) {
    const b = buf[i]!
    value += (b & 0x7f) * mul
    if ((b & 0x80) === 0) {
      out.push(value)
      value = 0
      mul = 1
    } else {
      mul *= 128
    }
  }
  return out
}

/**
 * The number of rows of the embedding table that `input` indexes (the initializer of a `Gather` whose indices are
 * `input`, directly or through `Cast`), read from the serialized ONNX model without decoding the weights; undefined
 * when the graph has none. Used to check a tokenizer's vocabulary against a text model.
 * @throws Error for bytes that are not a well-formed protobuf.
 */
export const embeddingRows = (bytes: Uint8Array, input = "input_ids"): number | undefined => {
  const nodes: Array<{ op: string; inputs: Array<string>; outputs: Array<string> }> = []
  const tables = new Map<string, ReadonlyArray<number>>()
  for (const g of fields(bytes)) {
    if (g.no !== 7 || g.wire !== 2) continue
    for (const f of fields(bytes, g.start, g.end)) {
      if (f.wire !== 2) continue
      if (f.no === 1) {
        const node = { op: "", inputs: [] as Array<string>, outputs: [] as Array<string> }
        for (const n of fields(bytes, f.start, f.end)) {
          if (n.wire !== 2) continue
          if (n.no === 1) node.inputs.push(str(bytes, n))
          else if (n.no === 2) node.outputs.push(str(bytes, n))
          else if (n.no === 4) node.op = str(bytes, n)
        }
        nodes.push(node)
      } else if (f.no === 5) {
        let name = ""
        const dims: Array<number> = []
        for (const t of fields(bytes, f.start, f.end)) {
          if (t.no === 8 && t.wire === 2) name = str(bytes, t)
          else if (t.no === 1 && t.wire === 0) dims.push(t.value)
          else if (t.no === 1 && t.wire === 2) dims.push(...packedVarints(bytes, t))
        }
        tables.set(name, dims)
      }
    }
  }
  const aliases = new Set([input])
  for (const n of nodes) if (n.op === "Cast" && aliases.has(n.inputs[0] ?? "")) for (const o of n.outputs) aliases.add(o)
  for (const n of nodes) {
    if (n.op !== "Gather" || !aliases.has(n.inputs[1] ?? "")) continue
    const dims = tables.get(n.inputs[0] ?? "")
    if (dims !== undefined && dims.length >= 1) return dims[0]
  }
  return undefined
}

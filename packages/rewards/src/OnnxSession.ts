/**
 * An ONNX model opened with `onnxruntime-node` as a scoped resource: the session is created once, checked, and
 * released when the scope closes.
 *
 * **When to use**
 * Load any ONNX reward model (exported by PyTorch, by {@link OnnxExport}, or by another tool) and run it with feeds
 * that are checked against the model's declared inputs before the runtime sees them.
 *
 * **Details**
 * - `open(source)` takes a file path or the model bytes. A missing file, a file that is not a valid ONNX model, or a
 *   model whose inputs/outputs are not the `expect`ed ones fails with {@link ModelLoadError}; a session created
 *   before a failed check is released before the error is raised, so a failed load never leaves a session in use.
 * - Execution providers: `"auto"` (default) uses CUDA when `onnxruntime-node` reports it bundled (a CUDA build),
 *   else the bundled CPU provider; an explicit list is passed through. The chosen list is `executionProviders`.
 * - `run(feeds)` checks every feed (names, element types, ranks, fixed dimensions; symbolic dimensions such as
 *   `batch` are dynamic) and fails with {@link InputMismatchError} naming the first mismatch.
 *
 * **Gotchas**
 * - Int64 inputs are `BigInt64Array` tensors (the Hugging Face `input_ids`/`attention_mask` layout).
 * - Running after the scope closed fails with {@link InferenceError} ("session released").
 *
 * @example
 * ```ts
 * import { OnnxSession } from "@autodidact/rewards"
 * import { Effect } from "effect"
 * import * as ort from "onnxruntime-node"
 * const program = Effect.scoped(Effect.gen(function* () {
 *   const s = yield* OnnxSession.open("../shared/data/onnx/feature_rm.onnx")
 *   const out = yield* s.run({ features: new ort.Tensor("float32", new Float32Array(16), [1, 16]) })
 *   return out["reward"]!.data
 * }))
 * ```
 * @since 0.1.0
 */
import { readFile } from "node:fs/promises"
import { Effect } from "effect"
import type { Scope } from "effect"
import * as ort from "onnxruntime-node"
import { InferenceError, InputMismatchError, messageOf, ModelLoadError } from "./RewardError.js"

/** A declared input or output: name, element type, shape (numbers fixed, strings symbolic/dynamic). */
export interface TensorSpec {
  readonly name: string
  readonly type: string
  readonly shape: ReadonlyArray<number | string>
}

/** Options of {@link open}. */
export interface OpenOptions {
  /** A name for messages (default: the path, or "<bytes>"). */
  readonly name?: string | undefined
  /** `"auto"` (default) or an explicit list of execution providers, e.g. `["cuda", "cpu"]`. */
  readonly executionProviders?: "auto" | ReadonlyArray<string> | undefined
  /** Inputs the model must declare (names and element types; shapes checked where both are numbers). */
  readonly expectInputs?: ReadonlyArray<TensorSpec> | undefined
  /** Output names the model must declare. */
  readonly expectOutputs?: ReadonlyArray<string> | undefined
}

/** An open session. */
export interface OnnxSession {
  readonly name: string
  /** The model bytes (kept for graph inspection, e.g. the embedding size of a text model). */
  readonly bytes: Uint8Array
  readonly inputs: ReadonlyArray<TensorSpec>
  readonly outputs: ReadonlyArray<TensorSpec>
  readonly executionProviders: ReadonlyArray<string>
  /** Check `feeds` against the declared inputs. */
  check(feeds: Readonly<Record<string, ort.Tensor>>): Effect.Effect<void, InputMismatchError>
  /** Check and run. */
  run(feeds: Readonly<Record<string, ort.Tensor>>): Effect.Effect<Record<string, ort.Tensor>, InputMismatchError | InferenceError>
}

/** The execution providers `"auto"` resolves to here: CUDA first when bundled, then CPU. */
export const autoProviders = (): Array<string> => {
  try {
    return ort.listSupportedBackends().some((b) => b.name === "cuda" && b.bundled) ? ["cuda", "cpu"] : ["cpu"]
  } catch {
    return ["cpu"]
  }
}

const specOf = (m: ort.InferenceSession.ValueMetadata): TensorSpec =>
  m.isTensor
    ? { name: m.name, type: m.type, shape: m.shape.map((d) => (typeof d === "number" && d >= 0 ? d : String(d))) }
    : { name: m.name, type: "non-tensor", shape: [] }

const showShape = (shape: ReadonlyArray<number | string>): string => `[${shape.join(", ")}]`

/** Check feeds against declared inputs (pure; exported for tests and other runtimes). */
export const checkFeeds = (
  name: string,
  inputs: ReadonlyArray<TensorSpec>,
  feeds: Readonly<Record<string, { readonly type: string; readonly dims: ReadonlyArray<number> }>>
): InputMismatchError | undefined => {
  const declared = inputs.map((i) => i.name)
  for (const key of Object.keys(feeds)) {
    if (!declared.includes(key)) {
      return new InputMismatchError({ model: name, input: key, expected: `one of the inputs ${declared.join(", ")}`, actual: `an unknown input "${key}"` })
    }
  }
  for (const spec of inputs) {
    const feed = feeds[spec.name]
    if (feed === undefined) {
      return new InputMismatchError({ model: name, input: spec.name, expected: `a ${spec.type} tensor ${showShape(spec.shape)}`, actual: "no feed" })
    }
    if (feed.type !== spec.type) {
      return new InputMismatchError({ model: name, input: spec.name, expected: `element type ${spec.type}`, actual: `element type ${feed.type}` })
    }
    if (feed.dims.length !== spec.shape.length) {
      return new InputMismatchError({ model: name, input: spec.name, expected: `rank ${spec.shape.length} ${showShape(spec.shape)}`, actual: `rank ${feed.dims.length} ${showShape(feed.dims)}` })
    }
    for (let d = 0; d < spec.shape.length; d++) {
      const want = spec.shape[d]!
      if (typeof want === "number" && feed.dims[d] !== want) {
        return new InputMismatchError({ model: name, input: spec.name, expected: `dimension ${d} = ${want} ${showShape(spec.shape)}`, actual: showShape(feed.dims) })
      }
    }
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
        return new InputMismatchError({ model: name, input: spec.name, expected: `dimension "${sym}" = ${seen} as in the other inputs`, actual: showShape(feed.dims) })
      }
    }
  }
  return undefined
}

const validate = (name: string, session: ort.InferenceSession, options: OpenOptions): string | undefined => {
  const inputs = session.inputMetadata.map(specOf)
  for (const want of options.expectInputs ?? []) {
    const got = inputs.find((i) => i.name === want.name)
    if (got === undefined) return `the model has no input "${want.name}" (inputs: ${inputs.map((i) => i.name).join(", ")})`
    if (got.type !== want.type) return `input "${want.name}" has element type ${got.type}, expected ${want.type}`
    if (got.shape.length !== want.shape.length) return `input "${want.name}" has shape ${showShape(got.shape)}, expected ${showShape(want.shape)}`
    for (let d = 0; d < want.shape.length; d++) {
      const a = got.shape[d]!, b = want.shape[d]!
      if (typeof a === "number" && typeof b === "number" && a !== b) {
        return `input "${want.name}" has shape ${showShape(got.shape)}, expected ${showShape(want.shape)}`
      }
    }
  }
  for (const out of options.expectOutputs ?? []) {
    if (!session.outputNames.includes(out)) return `the model has no output "${out}" (outputs: ${session.outputNames.join(", ")})`
  }
  return undefined
}

/**
 * Open a model as a scoped resource (released when the scope closes).
 * @category constructors
 */
export const open = (source: string | Uint8Array, options: OpenOptions = {}): Effect.Effect<OnnxSession, ModelLoadError, Scope.Scope> => {
  const name = options.name ?? (typeof source === "string" ? source : "<bytes>")
  const providers = options.executionProviders === undefined || options.executionProviders === "auto"
    ? autoProviders()
    : [...options.executionProviders]
  const acquire = Effect.gen(function* () {
    const bytes = typeof source === "string"
      ? yield* Effect.tryPromise({
        try: () => readFile(source),
        catch: (e) => new ModelLoadError({ model: name, reason: (e as NodeJS.ErrnoException).code === "ENOENT" ? `file not found: ${source}` : messageOf(e) })
      }).pipe(Effect.map((b) => new Uint8Array(b.buffer, b.byteOffset, b.byteLength)))
      : source
    if (bytes.byteLength === 0) return yield* new ModelLoadError({ model: name, reason: "the model file is empty" })
    const session = yield* Effect.tryPromise({
      try: () => ort.InferenceSession.create(bytes, { executionProviders: providers, graphOptimizationLevel: "all" }),
      catch: (e) => new ModelLoadError({ model: name, reason: `not a loadable ONNX model (${messageOf(e)})` })
    })
    const problem = validate(name, session, options)
    if (problem !== undefined) {
      yield* Effect.promise(() => session.release())
      return yield* new ModelLoadError({ model: name, reason: problem })
    }
    return { session, bytes }
  })
  return Effect.acquireRelease(acquire, ({ session }) => Effect.promise(() => session.release()).pipe(Effect.ignore)).pipe(
    Effect.map(({ bytes, session }) => {
      let released = false
      const inputs = session.inputMetadata.map(specOf)
      const outputs = session.outputMetadata.map(specOf)
      const check = (feeds: Readonly<Record<string, ort.Tensor>>): Effect.Effect<void, InputMismatchError> => {
        const err = checkFeeds(name, inputs, feeds)
        return err === undefined ? Effect.void : Effect.fail(err)
      }
      const self: OnnxSession = {
        name,
        bytes,
        inputs,
        outputs,
        executionProviders: providers,
        check,
        run: (feeds) =>
          Effect.flatMap(check(feeds), () =>
            released
              ? Effect.fail(new InferenceError({ model: name, reason: "session released (its scope is closed)" }))
              : Effect.tryPromise({
                try: async () => ({ ...(await session.run(feeds as Record<string, ort.Tensor>)) }),
                catch: (e) => new InferenceError({ model: name, reason: messageOf(e) })
              }))
      }
      return [self, () => { released = true }] as const
    }),
    Effect.tap(([, markReleased]) => Effect.addFinalizer(() => Effect.sync(markReleased))),
    Effect.map(([self]) => self)
  )
}

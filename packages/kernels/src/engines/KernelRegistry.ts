/**
 * A kernel registry in the style of TensorFlow.js (`registerKernel({ kernelName, backendName, kernelFunc })`), so a
 * user can plug a faster implementation for their backend without forking.
 *
 * **When to use**
 *
 * Register a kernel when you have a faster implementation of one of Autodidact's kernels (a native addon, a GPU
 * shader) for one backend. Every kernel module's Effect entry point (`Gae.run`, `Softmax.logSoftmax`, ...)
 * goes through {@link run}.
 *
 * **Details**
 * - Engine: `RunOptions.engine` or `AUTODIDACT_KERNEL_ENGINE`: `backend` (default), `tfjs`, `typed-array`,
 *   `onnxruntime`, `wasm-simd`.
 * - No layer is needed: the `Backend` service (TensorFlow.js, `@autodidact/kernels/tfjs`) is read when provided; without
 *   it the backend is {@link NO_BACKEND} and the default engines below answer (no TensorFlow.js is loaded).
 * - **Default dispatch** (`backend`) for kernel `k` on the `Backend` service's backend `b` (or {@link NO_BACKEND})
 *   ({@link defaultEngineOf}): 1. a kernel registered for `(k, b)`; 2. on native `tensorflow`, the built-in
 *   TensorFlow.js kernel (not measured here: no GPU, no tfjs-node); 3. else the first available engine of
 *   {@link defaultEngines}`[k]`, the engines in the order they measured on `autodidact bench kernels` (fastest first):
 *   `onnxruntime` for top-k (and for log-softmax while `OrtEngine.layer` is provided), `wasm-simd` wherever WebAssembly SIMD
 *   loads (offered by the `WasmSimd` module on import, no layer needed), else the `typed-array` kernel. TensorFlow.js on
 *   `wasm`/`cpu` was slower than the typed-array kernel on every case measured, so it is never a default there;
 *   `engine: "tfjs"` still runs it.
 * - `tfjs`: 1. a kernel registered for `(k, b)`; 2. the built-in TensorFlow.js kernel on `b`; 3. the typed-array
 *   reference. `onnxruntime` / `wasm-simd`: the kernel registered there (by `OrtEngine.layer` / `WasmSimd.layer`),
 *   else as `tfjs` (logged once per kernel). `typed-array`: the reference.
 * - If the chosen implementation (other than the reference) throws anything but a {@link KernelInputError} (bad input is the caller's error and is never
 *   retried), the failure is logged with `Effect.logWarning` naming the kernel, the backend and the reason, and the
 *   typed-array reference answers. The returned {@link Dispatched} says which implementation ran and why.
 * - The registry is process-global (like TensorFlow.js's), keyed `kernelName/backendName`; registering the same pair
 *   again replaces the previous kernel (the returned function restores it).
 *
 * **Gotchas**: a registered kernel must return the same output shape and types as the reference; parity is the
 * registrant's job (`test/parity.ts` shows how the built-ins are checked).
 *
 * @example
 * ```ts
 * import { KernelRegistry, Softmax } from "@autodidact/kernels"
 * KernelRegistry.registerKernel({
 *   kernelName: Softmax.kernelName,
 *   backendName: "tensorflow",
 *   kernelFunc: (inputs: Softmax.SoftmaxInput) => Softmax.logSoftmaxSync(inputs) // your faster version here
 * })
 * ```
 * @see https://github.com/tensorflow/tfjs/blob/master/tfjs-core/src/kernel_registry.ts
 * @since 0.1.0
 */
import { Effect, Option } from "effect"
import { Backend } from "./BackendTag.js"
import { KernelBackendError, KernelInputError, REFERENCE } from "../KernelError.js"

/** What a kernel function receives besides its inputs. */
export interface KernelContext {
  /**
   * The TensorFlow.js module (`@tensorflow/tfjs-core`, typed `Backend.Tf` in `@autodidact/kernels/tfjs`) with
   * `backendName` active, while a `Backend` layer (`@autodidact/kernels/tfjs`) is provided; `undefined` otherwise.
   * Typed loosely so that this entry point's types do not need TensorFlow.js installed.
   */
  readonly tf: any
  readonly backendName: string
}

/** A kernel implementation for one backend. */
export interface KernelConfig<I = any, O = any> {
  readonly kernelName: string
  readonly backendName: string
  /** May return a Promise (asynchronous engines such as ONNX Runtime); those run only through {@link run}. */
  readonly kernelFunc: (inputs: I, context: KernelContext) => O
}

/**
 * The built-in implementation of a kernel: the typed-array reference. Its TensorFlow.js implementation is offered by
 * `@autodidact/kernels/tfjs` when imported ({@link provideTfjsKernel}).
 */
export interface Builtin<I, O, E = KernelInputError> {
  readonly kernelName: string
  readonly reference: (inputs: I) => O
  /** Errors other than {@link KernelInputError} that mean bad input (rethrown, never a fallback). */
  readonly isInputError?: ((e: unknown) => e is E) | undefined
}

/** Which implementation answered a {@link run}, and why. */
export interface Dispatched<O> {
  readonly output: O
  /**
   * `registered` (a {@link registerKernel} kernel, or an engine's kernel picked by the default dispatch; `backendName`
   * names the engine), `tfjs` (built-in on the backend) or `typed-array`.
   */
  readonly implementation: "registered" | "tfjs" | "typed-array"
  readonly backendName: string
  /** Set when a backend implementation failed and the reference answered instead. */
  readonly fallbackReason?: string | undefined
}

const KEY = Symbol.for("@autodidact/kernels/KernelRegistry")
const registry: Map<string, KernelConfig> = ((globalThis as { [KEY]?: Map<string, KernelConfig> })[KEY] ??= new Map())
const keyOf = (kernelName: string, backendName: string) => `${kernelName}/${backendName}`

/**
 * Register `config.kernelFunc` as kernel `kernelName` on `backendName`; returns a function that restores what was
 * registered before.
 */
export const registerKernel = <I, O>(config: KernelConfig<I, O>): () => void => {
  const key = keyOf(config.kernelName, config.backendName)
  const previous = registry.get(key)
  registry.set(key, config)
  return () => {
    if (previous === undefined) registry.delete(key)
    else registry.set(key, previous)
  }
}

/** Remove the kernel registered for `(kernelName, backendName)`, if any. */
export const unregisterKernel = (kernelName: string, backendName: string): void => {
  registry.delete(keyOf(kernelName, backendName))
}

/** The kernel registered for `(kernelName, backendName)`, if any. */
export const getKernel = <I = any, O = any>(kernelName: string, backendName: string): KernelConfig<I, O> | undefined =>
  registry.get(keyOf(kernelName, backendName))

/** Every kernel registered for a backend. */
export const getKernelsForBackend = (backendName: string): ReadonlyArray<KernelConfig> =>
  [...registry.values()].filter((k) => k.backendName === backendName)

const TFJS_KEY = Symbol.for("@autodidact/kernels/KernelRegistry/tfjs")
const tfjsKernels: Map<string, (tf: any, inputs: any) => unknown> = ((globalThis as { [TFJS_KEY]?: Map<string, (tf: any, inputs: any) => unknown> })[TFJS_KEY] ??= new Map())

/**
 * Offer `kernelFunc` as the built-in TensorFlow.js implementation of `kernelName` (what the `tfjs` engine runs on the
 * `Backend` service's backend). `@autodidact/kernels/tfjs` calls it for every kernel when it is imported.
 */
export const provideTfjsKernel = <I, O>(kernelName: string, kernelFunc: (tf: any, inputs: I) => O): void => {
  tfjsKernels.set(kernelName, kernelFunc as (tf: any, inputs: any) => unknown)
}

/** The built-in TensorFlow.js implementation of `kernelName`, if `@autodidact/kernels/tfjs` was imported. */
export const tfjsKernelOf = (kernelName: string): ((tf: any, inputs: any) => unknown) | undefined => tfjsKernels.get(kernelName)

/**
 * The backend name the dispatch uses when no `Backend` layer is provided (TensorFlow.js not in use): the default
 * engines of {@link defaultEngines} still apply; the `tfjs` engine answers with the reference.
 */
export const NO_BACKEND = "none"

const isPromiseLike = (x: unknown): x is PromiseLike<unknown> =>
  typeof x === "object" && x !== null && typeof (x as { then?: unknown }).then === "function"

const reasonOf = (e: unknown): string => (e instanceof Error ? `${e.name}: ${e.message}` : String(e)).split("\n")[0]!.slice(0, 300)

/**
 * Synchronous dispatch (see the module docs for the order). `onFallback` receives the {@link KernelBackendError} of a
 * failed backend implementation before the reference runs. {@link KernelInputError}s are rethrown.
 */
export const dispatchSync = <I, O, E>(
  builtin: Builtin<I, O, E>,
  inputs: I,
  context: KernelContext,
  onFallback: (error: KernelBackendError) => void = () => {}
): Dispatched<O> => {
  const { backendName } = context
  if (backendName !== REFERENCE) {
    const registered = getKernel<I, O>(builtin.kernelName, backendName)
    try {
      if (registered !== undefined) {
        const output: unknown = registered.kernelFunc(inputs, context)
        if (isPromiseLike(output)) {
          output.then(undefined, () => {}) // its outcome is not used; never an unhandled rejection
          throw new Error("the registered kernel is asynchronous; use KernelRegistry.run")
        }
        return { output: output as O, implementation: "registered", backendName }
      }
      const tfjs = tfjsKernels.get(builtin.kernelName)
      if (tfjs === undefined || context.tf === undefined) {
        throw new Error(`no TensorFlow.js kernel for ${builtin.kernelName} (import @autodidact/kernels/tfjs and provide its Backend.layer)`)
      }
      return { output: tfjs(context.tf, inputs) as O, implementation: "tfjs", backendName }
    } catch (e) {
      if (e instanceof KernelInputError || builtin.isInputError?.(e) === true) throw e
      const error = new KernelBackendError({ kernel: builtin.kernelName, backend: backendName, reason: reasonOf(e) })
      onFallback(error)
      return { output: builtin.reference(inputs), implementation: "typed-array", backendName: REFERENCE, fallbackReason: error.message }
    }
  }
  return { output: builtin.reference(inputs), implementation: "typed-array", backendName: REFERENCE }
}

/** Registry backend name of the ONNX Runtime engine (`OrtEngine`). */
export const ONNXRUNTIME = "onnxruntime"

/** Registry backend name of the WebAssembly SIMD kernels (`WasmSimd`). */
export const WASM_SIMD = "wasm-simd"

/** The environment variable that picks the engine of {@link run}: `backend` (default), `tfjs`, `typed-array`, `onnxruntime`, `wasm-simd`. */
export const ENGINE_ENV_VAR = "AUTODIDACT_KERNEL_ENGINE"

/** Engines {@link run} can use. */
export const engines = ["backend", "tfjs", "typed-array", "onnxruntime", "wasm-simd"] as const
export type Engine = (typeof engines)[number]

/** An engine the default dispatch can pick for a kernel (on every backend but native `tensorflow`). */
export type DefaultEngine = typeof ONNXRUNTIME | typeof WASM_SIMD | typeof REFERENCE

/**
 * The default dispatch's engine preference per kernel (fastest first), on every TensorFlow.js backend but native
 * `tensorflow`: the order measured by `autodidact bench kernels` on the development machine (x86-64, 2 cores, Node 20,
 * no GPU; the table is in the package README). TensorFlow.js on `wasm`/`cpu` is slower than the typed-array kernel on
 * every case there, so it is never a default; on native `tensorflow` (tfjs-node / GPU, not measured here) the built-in
 * TensorFlow.js kernels stay the default.
 *
 * - `onnxruntime`: for top-k always (a process-wide engine `OrtEngine` offers on import, created on first use;
 *   `AUTODIDACT_ORT_DEFAULT=0` opts out): its multithreaded SGEMM measured 3–6× faster than wasm-simd for 32 queries;
 *   for log-softmax only while `OrtEngine.layer` is provided (its kernels registered): faster at [4096, 32], but a
 *   `session.run` per call costs more than the whole wasm-simd kernel at the small batches an env loop uses. KL: a tie,
 *   so wasm-simd.
 * - `wasm-simd` is available wherever WebAssembly SIMD is (unless `AUTODIDACT_WASM_SIMD=0`), without a layer.
 * - `typed-array` is always available (the references: the column-blocked returns/GAE scans and the one-pass segment
 *   sums beat both wasm-simd and NumPy here).
 */
export const defaultEngines: { readonly [kernelName: string]: ReadonlyArray<DefaultEngine> } = {
  Returns: [REFERENCE],
  Gae: [REFERENCE],
  LogSoftmax: [ONNXRUNTIME, WASM_SIMD, REFERENCE],
  Categorical: [WASM_SIMD, REFERENCE],
  Kl: [WASM_SIMD, REFERENCE],
  PpoLoss: [WASM_SIMD, REFERENCE],
  GroupNorm: [WASM_SIMD, REFERENCE],
  Rloo: [REFERENCE],
  TopK: [ONNXRUNTIME, WASM_SIMD, REFERENCE],
  SumTree: [REFERENCE]
}

/** A kernel an engine offers to the default dispatch without a user registration (see {@link provideEngineKernel}). */
interface EngineKernel {
  readonly kernelFunc: (inputs: any) => unknown
  /** Whether the engine can run here (e.g. WebAssembly SIMD is supported); checked on every dispatch. */
  readonly available: () => boolean
}

const ENGINE_KEY = Symbol.for("@autodidact/kernels/KernelRegistry/engines")
const engineKernels: Map<string, EngineKernel> = ((globalThis as { [ENGINE_KEY]?: Map<string, EngineKernel> })[ENGINE_KEY] ??= new Map())

/**
 * Offer `kernelFunc` as engine `engine`'s implementation of `kernelName` to the default dispatch (used by the
 * WebAssembly SIMD kernels, which need no scoped resource). Unlike {@link registerKernel} it does not override a
 * user's registration and is consulted only where {@link defaultEngines} lists the engine.
 */
export const provideEngineKernel = (engine: DefaultEngine, kernelName: string, kernelFunc: (inputs: any) => unknown, available: () => boolean): void => {
  engineKernels.set(keyOf(kernelName, engine), { kernelFunc, available })
}

/**
 * The engine the default dispatch ({@link run} with `engine: "backend"`) picks for `kernelName` on `backendName`:
 * a kernel the user registered for the backend (`registered`), on `tensorflow` the built-in TensorFlow.js kernel
 * (`tfjs`), else the first engine of {@link defaultEngines} that is available here (registered, or provided and
 * available), else `typed-array`. Pure: the answer `bench kernels` prints.
 */
export const defaultEngineOf = (kernelName: string, backendName: string): { readonly engine: "registered" | "tfjs" | DefaultEngine; readonly kernelFunc?: (inputs: any, context: KernelContext) => unknown } => {
  const own = getKernel(kernelName, backendName)
  if (own !== undefined) return { engine: "registered", kernelFunc: own.kernelFunc }
  if (backendName === "tensorflow") return { engine: "tfjs" }
  for (const engine of defaultEngines[kernelName] ?? [REFERENCE]) {
    if (engine === REFERENCE) return { engine }
    const registered = getKernel(kernelName, engine)
    if (registered !== undefined) return { engine, kernelFunc: registered.kernelFunc }
    const provided = engineKernels.get(keyOf(kernelName, engine))
    if (provided !== undefined && provided.available()) return { engine, kernelFunc: provided.kernelFunc }
  }
  return { engine: REFERENCE }
}

/** Options of {@link run}. */
export interface RunOptions {
  /**
   * `backend`: the default dispatch ({@link defaultEngineOf}: a kernel registered for the `Backend` service's
   * backend, else on native `tensorflow` TensorFlow.js, else the fastest available engine of {@link defaultEngines});
   * `tfjs`: the built-in TensorFlow.js kernel on the `Backend` service's backend (a kernel registered for that
   * backend first); `typed-array`: the reference directly; `onnxruntime`: the kernel
   * registered for backend `"onnxruntime"` (provide `OrtEngine.layer`), else the `Backend` path; `wasm-simd`: the
   * kernel registered for backend `"wasm-simd"` (provide `WasmSimd.layer`), else the `Backend` path. Default: the
   * `AUTODIDACT_KERNEL_ENGINE` environment variable, else `backend`.
   */
  readonly engine?: Engine | undefined
}

const warnedOnce = new Set<string>()

/** The engine {@link run} uses for `options` (the option, else `AUTODIDACT_KERNEL_ENGINE`, else `backend`). */
export const resolveEngine = (options: RunOptions = {}, env: { readonly [key: string]: string | undefined } = typeof process === "undefined" ? {} : process.env): { readonly engine: Engine; readonly warning?: string } => {
  if (options.engine !== undefined) return { engine: options.engine }
  const fromEnv = env[ENGINE_ENV_VAR]
  if (fromEnv === undefined || fromEnv === "") return { engine: "backend" }
  if ((engines as ReadonlyArray<string>).includes(fromEnv)) return { engine: fromEnv as Engine }
  return { engine: "backend", warning: `${ENGINE_ENV_VAR}=${fromEnv} is not one of ${engines.join(", ")}; using backend` }
}

/**
 * Run a kernel on the selected engine (see {@link RunOptions.engine}): a registered kernel (which may return a
 * Promise, as the ONNX Runtime ones do), else the built-in TensorFlow.js implementation on the `Backend` service's
 * backend, falling back to the typed-array reference with a logged warning when the chosen implementation fails.
 * Fails with {@link KernelInputError} on bad input.
 */
export const run = <I, O, E = KernelInputError>(
  builtin: Builtin<I, O, E>,
  inputs: I,
  options: RunOptions = {}
): Effect.Effect<Dispatched<O>, KernelInputError | E> =>
  Effect.gen(function* () {
    const provided = yield* Effect.serviceOption(Backend)
    const backend: { readonly name: string; readonly tf: unknown } = Option.isSome(provided) ? provided.value : { name: NO_BACKEND, tf: undefined }
    const { engine, warning } = resolveEngine(options)
    if (warning !== undefined && !warnedOnce.has(warning)) {
      warnedOnce.add(warning)
      yield* Effect.logWarning(warning)
    }
    let backendName: string = engine === "typed-array" || (engine === "tfjs" && backend.tf === undefined) ? REFERENCE : backend.name
    if (engine === "tfjs" && backend.tf === undefined) {
      const note = `${builtin.kernelName}: engine tfjs needs a TensorFlow.js backend (import @autodidact/kernels/tfjs and provide Backend.layer); running the ${REFERENCE} reference`
      if (!warnedOnce.has(note)) {
        warnedOnce.add(note)
        yield* Effect.logWarning(note)
      }
    }
    let chosen: ((inputs: I, context: KernelContext) => O | PromiseLike<O>) | undefined
    if (engine === ONNXRUNTIME || engine === WASM_SIMD) {
      if (getKernel(builtin.kernelName, engine) !== undefined) backendName = engine
      else {
        const provider = engine === ONNXRUNTIME ? "OrtEngine.layer; only TopK, LogSoftmax and Kl have one" : "WasmSimd.layer"
        if (backend.tf === undefined) backendName = REFERENCE
        const note = `${builtin.kernelName}: no kernel registered for engine ${engine} (provide ${provider}); running on ${backendName === REFERENCE ? `the ${REFERENCE} reference` : `backend ${backend.name}`}`
        if (!warnedOnce.has(note)) {
          warnedOnce.add(note)
          yield* Effect.logWarning(note)
        }
      }
    } else if (engine === "backend") {
      const pick = defaultEngineOf(builtin.kernelName, backend.name)
      if (pick.engine === REFERENCE) backendName = REFERENCE
      else if (pick.engine !== "registered" && pick.engine !== "tfjs") {
        backendName = pick.engine
        chosen = pick.kernelFunc as (inputs: I, context: KernelContext) => O
      }
    }
    const context: KernelContext = { tf: backend.tf, backendName }
    const registered = chosen !== undefined
      ? { kernelFunc: chosen }
      : backendName === REFERENCE
      ? undefined
      : getKernel<I, O | PromiseLike<O>>(builtin.kernelName, backendName)
    let fallback: KernelBackendError | undefined
    let result: Dispatched<O>
    if (registered !== undefined) {
      // a registered kernel, synchronous or not: outcome is the output or what it threw/rejected with
      const outcome = yield* Effect.suspend((): Effect.Effect<{ ok: true; output: O } | { ok: false; error: unknown }> => {
        try {
          const out = registered.kernelFunc(inputs, context)
          if (!isPromiseLike(out)) return Effect.succeed({ ok: true, output: out })
          return Effect.promise(() =>
            Promise.resolve(out).then((output) => ({ ok: true as const, output }), (error: unknown) => ({ ok: false as const, error }))
          )
        } catch (error) {
          return Effect.succeed({ ok: false, error })
        }
      })
      if (outcome.ok) result = { output: outcome.output, implementation: "registered", backendName }
      else {
        const e = outcome.error
        if (e instanceof KernelInputError) return yield* Effect.fail(e)
        if (builtin.isInputError?.(e) === true) return yield* Effect.fail(e as E)
        fallback = new KernelBackendError({ kernel: builtin.kernelName, backend: backendName, reason: reasonOf(e) })
        const reason = fallback.message
        result = yield* Effect.suspend((): Effect.Effect<Dispatched<O>, KernelInputError | E> => {
          try {
            return Effect.succeed({ output: builtin.reference(inputs), implementation: "typed-array", backendName: REFERENCE, fallbackReason: reason })
          } catch (e2) {
            if (e2 instanceof KernelInputError) return Effect.fail(e2)
            return builtin.isInputError?.(e2) === true ? Effect.fail(e2 as E) : Effect.die(e2)
          }
        })
      }
    } else {
      result = yield* Effect.suspend((): Effect.Effect<Dispatched<O>, KernelInputError | E> => {
        try {
          return Effect.succeed(dispatchSync(builtin, inputs, context, (e) => (fallback = e)))
        } catch (e) {
          if (e instanceof KernelInputError) return Effect.fail(e)
          return builtin.isInputError?.(e) === true ? Effect.fail(e as E) : Effect.die(e)
        }
      })
    }
    if (fallback !== undefined) {
      yield* Effect.logWarning(`${fallback.message}; falling back to the ${REFERENCE} reference`)
    }
    return result
  })

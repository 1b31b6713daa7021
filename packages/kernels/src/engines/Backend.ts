/**
 * TensorFlow.js backend selection as an Effect service.
 *
 * **When to use**
 *
 * Provide {@link Backend.layer} once at the edge of a program that runs tensor code (the CLI does), and read the
 * chosen `tf` module from the {@link Backend} service instead of importing a backend by hand.
 *
 * **Details**
 * - Preference order: `tensorflow` (native TensorFlow through `@tensorflow/tfjs-node-gpu` or `@tensorflow/tfjs-node`,
 *   when either is installed), then `wasm` (`@tensorflow/tfjs-backend-wasm`, SIMD, loads offline from
 *   `node_modules`), then `cpu` (`@tensorflow/tfjs-backend-cpu`, plain JavaScript).
 * - `AUTODIDACT_TF_BACKEND=tensorflow|wasm|cpu` (or the `force` option) forces one backend; if it cannot be loaded
 *   the layer fails with {@link BackendUnavailableError} rather than silently falling back.
 * - The service says which backend was picked and why (`reason`), and what was tried before (`tried`).
 * - Production mode (`tf.enableProdMode()`) is switched on: no per-op NaN checks, no "install tfjs-node" banner.
 *
 * **Gotchas**
 * - The TensorFlow.js engine is process-global: selecting a backend affects every user of `@tensorflow/tfjs-core`
 *   in the process. There is nothing to release (tensors are owned and disposed by their creators), so the layer is
 *   not a scoped resource.
 * - `@tensorflow/tfjs-core` 4.22 loaded through Node's CommonJS entry registers no gradient functions; selecting a
 *   backend also loads the `@tensorflow/tfjs` umbrella package, which registers them (see {@link registerGradients}),
 *   so `tf.grad` / `tf.valueAndGrads` work on the selected backend (`PpoLoss.lossAndGradientTf` relies on it).
 *
 * @example
 * ```ts
 * import { Backend } from "@autodidact/kernels"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function* () {
 *   const { name, tf, reason } = yield* Backend.Backend
 *   console.log(name, reason) // "wasm" "@tensorflow/tfjs-node is not installed; ..."
 *   return tf.sum(tf.tensor1d([1, 2, 3])).dataSync()[0]
 * })
 * Effect.runPromise(Effect.provide(program, Backend.layer))
 * ```
 * @see https://www.tensorflow.org/js/guide/platform_environment (TensorFlow.js backends)
 * @since 0.1.0
 */
import * as tfCore from "@tensorflow/tfjs-core"
import { Context, Effect, Layer, Schema } from "effect"

/** The TensorFlow.js module type (`@tensorflow/tfjs-core`). */
export type Tf = typeof tfCore

/** Backends Autodidact knows, in order of preference. */
export const names = ["tensorflow", "wasm", "cpu"] as const
export type BackendName = (typeof names)[number]

/** The environment variable that forces a backend. */
export const ENV_VAR = "AUTODIDACT_TF_BACKEND"

/**
 * A forced backend could not be loaded or initialized, or no backend at all could be (or the name is unknown).
 * @category errors
 */
export class BackendUnavailableError extends Schema.TaggedError<BackendUnavailableError>()("BackendUnavailableError", {
  backend: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `TensorFlow.js backend "${this.backend}" is unavailable: ${this.reason}`
  }
}

/** A backend that was tried and rejected, with why. */
export interface Attempt {
  readonly name: BackendName
  readonly error: string
}

/** What the {@link Backend} service holds. */
export interface BackendShape {
  /** The active TensorFlow.js backend. */
  readonly name: BackendName
  /** The `@tensorflow/tfjs-core` module, with `name` active. */
  readonly tf: Tf
  /** Why this backend was picked (forced by option/env var, or the first available in preference order). */
  readonly reason: string
  /** Backends tried before this one and why they were rejected. */
  readonly tried: ReadonlyArray<Attempt>
}

/**
 * The selected TensorFlow.js backend.
 * @category services
 */
export class Backend extends Context.Service<Backend, BackendShape>()("@autodidact/kernels/Backend") {}

/** Options of {@link select}. */
export interface SelectOptions {
  /** Force a backend (overrides the environment variable). */
  readonly force?: BackendName | undefined
  /** Environment to read `AUTODIDACT_TF_BACKEND` from (default `process.env`). */
  readonly env?: { readonly [key: string]: string | undefined } | undefined
}

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e)).split("\n")[0]!.slice(0, 200)

/** Load a module by a specifier TypeScript does not resolve (optional native packages). */
const importOptional = (specifier: string): Promise<unknown> => import(specifier)

/**
 * Register TensorFlow.js's gradient functions (for `tf.grad`, `tf.valueAndGrads`, `tf.variableGrads`). The CommonJS
 * entry of `@tensorflow/tfjs-core` that Node loads registers none; the `@tensorflow/tfjs` umbrella package does, into
 * the same process-global registry. Idempotent.
 */
export const registerGradients = async (): Promise<void> => {
  await import("@tensorflow/tfjs")
}

const tryLoad = async (name: BackendName): Promise<void> => {
  switch (name) {
    case "tensorflow": {
      let lastError: unknown
      for (const pkg of ["@tensorflow/tfjs-node-gpu", "@tensorflow/tfjs-node"]) {
        try {
          await importOptional(pkg)
          lastError = undefined
          break
        } catch (e) {
          lastError = e
        }
      }
      if (lastError !== undefined) throw new Error(`neither @tensorflow/tfjs-node-gpu nor @tensorflow/tfjs-node is importable (${message(lastError)})`)
      break
    }
    case "wasm":
      await import("@tensorflow/tfjs-backend-wasm")
      break
    case "cpu":
      await import("@tensorflow/tfjs-backend-cpu")
      break
  }
  await registerGradients()
  tfCore.enableProdMode()
  const ok = await tfCore.setBackend(name)
  if (!ok || tfCore.getBackend() !== name) throw new Error(`tf.setBackend("${name}") failed to initialize`)
  await tfCore.ready()
}

/**
 * Select and initialize a backend: the forced one (option or `AUTODIDACT_TF_BACKEND`), else the first available of
 * `tensorflow`, `wasm`, `cpu`.
 *
 * Fails with {@link BackendUnavailableError} when the forced backend (or an unknown name) cannot be loaded.
 */
export const select = (options: SelectOptions = {}): Effect.Effect<BackendShape, BackendUnavailableError> =>
  Effect.gen(function* () {
    const fromEnv = (options.env ?? process.env)[ENV_VAR]
    const forced = options.force ?? (fromEnv === undefined || fromEnv === "" ? undefined : fromEnv)
    if (forced !== undefined) {
      if (!(names as ReadonlyArray<string>).includes(forced)) {
        return yield* new BackendUnavailableError({ backend: forced, reason: `unknown backend; expected one of ${names.join(", ")}` })
      }
      const name = forced as BackendName
      yield* Effect.tryPromise({
        try: () => tryLoad(name),
        catch: (e) => new BackendUnavailableError({ backend: name, reason: message(e) })
      })
      const why = options.force !== undefined ? "forced by the force option" : `forced by ${ENV_VAR}=${name}`
      return { name, tf: tfCore, reason: why, tried: [] }
    }
    const tried: Array<Attempt> = []
    for (const name of names) {
      const result = yield* Effect.result(Effect.tryPromise({ try: () => tryLoad(name), catch: (e) => message(e) }))
      if (result._tag === "Success") {
        const why = tried.length === 0
          ? `${name} is the first available backend`
          : `${name} is the first available backend (${tried.map((t) => `${t.name}: ${t.error}`).join("; ")})`
        return { name, tf: tfCore, reason: why, tried }
      }
      tried.push({ name, error: result.failure })
    }
    return yield* new BackendUnavailableError({
      backend: "any",
      reason: tried.map((t) => `${t.name}: ${t.error}`).join("; ")
    })
  })

/** The {@link Backend} service selected by {@link select} with default options (honours `AUTODIDACT_TF_BACKEND`). */
export const layer: Layer.Layer<Backend, BackendUnavailableError> = Layer.effect(Backend, select())

/** A {@link Backend} layer with explicit options (e.g. `{ force: "cpu" }` in tests). */
export const layerWith = (options: SelectOptions): Layer.Layer<Backend, BackendUnavailableError> =>
  Layer.effect(Backend, select(options))

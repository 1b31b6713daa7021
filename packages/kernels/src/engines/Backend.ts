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
 * - Part of `@autodidact/kernels/tfjs`: importing it loads `@tensorflow/tfjs-core` (an optional peer dependency;
 *   missing, the import fails with `MissingPeerError`). The backends are optional peers too: `@tensorflow/tfjs-backend-wasm`
 *   (which brings `-cpu`) or `@tensorflow/tfjs-backend-cpu`; with neither installed, selection fails with
 *   `MissingPeerError` naming `@tensorflow/tfjs-backend-wasm`.
 * - Gradients (`tf.grad`, `tf.valueAndGrads`; only `PpoLossTf.lossAndGradientTf` uses them): `@tensorflow/tfjs-core`
 *   registers none by itself. Selecting a backend registers them (see {@link registerGradients}) from tfjs-core's own
 *   ESM files where a bundler resolves them (browsers), else from the `@tensorflow/tfjs` umbrella package when it is
 *   installed (Node). Without either, the `tfjs` engine of `PpoLoss` fails and the dispatch answers with the reference.
 *
 * @example
 * ```ts
 * import { Backend } from "@autodidact/kernels/tfjs"
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
import { MissingPeerError, OptionalPeer } from "@autodidact/core"
import { Effect, Layer } from "effect"
import type { Attempt, BackendName, BackendShape, Tf } from "./BackendTag.js"
import { Backend, BackendUnavailableError, ENV_VAR, names } from "./BackendTag.js"

export { Backend, BackendUnavailableError, ENV_VAR, names } from "./BackendTag.js"
export type { Attempt, BackendName, BackendShape, Tf } from "./BackendTag.js"

/** The entry point that needs the TensorFlow.js peers (named in {@link MissingPeerError}). */
export const ENTRY_POINT = "@autodidact/kernels/tfjs"

/** The `@tensorflow/tfjs-*` version range the entry point is built against (shown in install commands). */
export const TFJS_RANGE = "^4.22.0"

/**
 * Load `@tensorflow/tfjs-core` (`importer` and `peer` are a test seam). Rejects with {@link MissingPeerError} naming it
 * when it is not installed.
 */
export const loadCore = (importer: () => Promise<unknown> = () => import("@tensorflow/tfjs-core"), peer = "@tensorflow/tfjs-core"): Promise<Tf> =>
  OptionalPeer.load(peer, ENTRY_POINT, importer, TFJS_RANGE).then((m) => {
    const mod = m as Tf & { readonly default?: Tf }
    return typeof mod.setBackend === "function" ? mod : mod.default!
  })

const tfCore: Tf = await loadCore()

/** Options of {@link select}. */
export interface SelectOptions {
  /** Force a backend (overrides the environment variable). */
  readonly force?: BackendName | undefined
  /** Environment to read `AUTODIDACT_TF_BACKEND` from (default `process.env`; `{}` where there is no `process`). */
  readonly env?: { readonly [key: string]: string | undefined } | undefined
  /** @internal test seam: how the backend packages are imported. */
  readonly importers?: Importers | undefined
}

const processEnv = (): { readonly [key: string]: string | undefined } =>
  typeof process === "undefined" ? {} : process.env

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e)).split("\n")[0]!.slice(0, 200)

/** Load a module by a specifier TypeScript does not resolve (optional packages that are not even optional peers). */
const importOptional = (specifier: string): Promise<unknown> => import(specifier)

let gradients: Promise<boolean> | undefined

/**
 * Register TensorFlow.js's gradient functions (for `tf.grad`, `tf.valueAndGrads`, `tf.variableGrads`) into the
 * process-global registry, once; resolves to whether they are registered. `@tensorflow/tfjs-core` registers none
 * itself: its `dist/register_all_gradients` module does, but it ships only as extension-less ESM that a bundler
 * resolves and Node does not; under Node the `@tensorflow/tfjs` umbrella package (142 MB, not a dependency: install it
 * only if you need TF.js autodiff there) registers them. Never fails.
 */
export const registerGradients = (): Promise<boolean> =>
  (gradients ??= (async () => {
    try {
      await import("@tensorflow/tfjs-core/dist/register_all_gradients.js")
      return true
    } catch {
      try {
        await importOptional("@tensorflow/tfjs")
        return true
      } catch {
        return false
      }
    }
  })())

/** The npm package of each backend (the native one has two alternatives). */
export const packages: { readonly [K in BackendName]: string } = {
  tensorflow: "@tensorflow/tfjs-node",
  wasm: "@tensorflow/tfjs-backend-wasm",
  cpu: "@tensorflow/tfjs-backend-cpu"
}

/** How {@link select} imports each backend package (a test seam: replace one to simulate a missing package). */
export interface Importers {
  readonly wasm?: (() => Promise<unknown>) | undefined
  readonly cpu?: (() => Promise<unknown>) | undefined
}

const tryLoad = async (name: BackendName, importers: Importers = {}): Promise<void> => {
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
      await OptionalPeer.load(packages.wasm, ENTRY_POINT, importers.wasm ?? (() => import("@tensorflow/tfjs-backend-wasm")), TFJS_RANGE)
      break
    case "cpu":
      await OptionalPeer.load(packages.cpu, ENTRY_POINT, importers.cpu ?? (() => import("@tensorflow/tfjs-backend-cpu")), TFJS_RANGE)
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
 * Fails with {@link BackendUnavailableError} when the forced backend (or an unknown name) cannot be loaded, and with
 * {@link MissingPeerError} naming `@tensorflow/tfjs-backend-wasm` when no backend is forced and neither
 * `@tensorflow/tfjs-backend-wasm` nor `@tensorflow/tfjs-backend-cpu` (nor tfjs-node) is installed.
 */
export const select = (options: SelectOptions = {}): Effect.Effect<BackendShape, BackendUnavailableError | MissingPeerError> =>
  Effect.gen(function* () {
    const importers = options.importers ?? {}
    const fromEnv = (options.env ?? processEnv())[ENV_VAR]
    const forced = options.force ?? (fromEnv === undefined || fromEnv === "" ? undefined : fromEnv)
    if (forced !== undefined) {
      if (!(names as ReadonlyArray<string>).includes(forced)) {
        return yield* new BackendUnavailableError({ backend: forced, reason: `unknown backend; expected one of ${names.join(", ")}` })
      }
      const name = forced as BackendName
      yield* Effect.tryPromise({
        try: () => tryLoad(name, importers),
        catch: (e) => new BackendUnavailableError({ backend: name, reason: message(e) })
      })
      const why = options.force !== undefined ? "forced by the force option" : `forced by ${ENV_VAR}=${name}`
      return { name, tf: tfCore, reason: why, tried: [] }
    }
    const tried: Array<Attempt> = []
    const missing: Array<MissingPeerError> = []
    for (const name of names) {
      const result = yield* Effect.result(Effect.tryPromise({
        try: () => tryLoad(name, importers),
        catch: (e) => {
          if (e instanceof MissingPeerError) missing.push(e)
          return message(e)
        }
      }))
      if (result._tag === "Success") {
        const why = tried.length === 0
          ? `${name} is the first available backend`
          : `${name} is the first available backend (${tried.map((t) => `${t.name}: ${t.error}`).join("; ")})`
        return { name, tf: tfCore, reason: why, tried }
      }
      tried.push({ name, error: result.failure })
    }
    if (missing.length === 2) {
      // neither JavaScript backend is installed: name the one to install
      return yield* new MissingPeerError({ peer: packages.wasm, entryPoint: ENTRY_POINT, install: `npm install ${packages.wasm}@${TFJS_RANGE}` })
    }
    return yield* new BackendUnavailableError({
      backend: "any",
      reason: tried.map((t) => `${t.name}: ${t.error}`).join("; ")
    })
  })

/**
 * Plain face of {@link select}: resolves to the selected backend (`{ name, tf, reason, tried }`), rejects with
 * {@link BackendUnavailableError} or {@link MissingPeerError}.
 */
export const load = (options: SelectOptions = {}): Promise<BackendShape> => Effect.runPromise(select(options))

/** The {@link Backend} service selected by {@link select} with default options (honours `AUTODIDACT_TF_BACKEND`). */
export const layer: Layer.Layer<Backend, BackendUnavailableError | MissingPeerError> = Layer.effect(Backend, select())

/** A {@link Backend} layer with explicit options (e.g. `{ force: "cpu" }` in tests). */
export const layerWith = (options: SelectOptions): Layer.Layer<Backend, BackendUnavailableError | MissingPeerError> =>
  Layer.effect(Backend, select(options))

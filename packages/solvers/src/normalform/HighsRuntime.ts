/**
 * The HiGHS runtime behind the {@link Highs} service: loads the optional peer `highs` (WebAssembly) through core's
 * `OptionalPeer` loader, once per process, when the layer is built. Reached through `@autodidact/solvers/lp` as the
 * `Highs` namespace: everything of the main entry's `Highs` (service, problem types, LP writer) plus {@link layer},
 * {@link make} and {@link loadRuntime}.
 *
 * **Errors**: building the layer fails with `MissingPeerError` (`peer: "highs"`, `install: "npm install
 * highs@^1.15.3"`) when `highs` is not installed, and with `LpSolveError` (`status: "Load error"`) when the module
 * loads but its WebAssembly cannot start.
 *
 * @example
 * ```ts
 * import { MetaSolvers, PayoffTensor } from "@autodidact/solvers"
 * import { Highs } from "@autodidact/solvers/lp"
 * import { Effect } from "effect"
 * const nash = await Effect.runPromise(
 *   MetaSolvers.zeroSumNash(PayoffTensor.zeroSum([[0, -1, 1], [1, 0, -1], [-1, 1, 0]])).pipe(Effect.provide(Highs.layer))
 * )
 * ```
 * @since 0.1.0
 */
import { MissingPeerError, OptionalPeer } from "@autodidact/core"
import type { Highs as HighsRuntime } from "highs"
import { Effect, Layer } from "effect"
import { Highs, type HighsShape, LpSolveError, solveWith } from "./Highs.js"

export * from "./Highs.js"

/** The entry point that needs `highs` (named in `MissingPeerError`). */
export const ENTRY_POINT = "@autodidact/solvers/lp"
/** The `highs` version range this package is built against. */
export const PEER_RANGE = "^1.15.3"

/** The loader function out of the `highs` module (its ESM build default-exports it; a CommonJS interop nests it). */
const loaderOf = (mod: unknown): () => Promise<HighsRuntime> => {
  const d = (mod as { default?: unknown }).default
  return (typeof d === "function" ? d : (d as { default: unknown }).default) as () => Promise<HighsRuntime>
}

const loadFailed = (e: unknown) =>
  new LpSolveError({ status: "Load error", problem: "HiGHS WebAssembly module", reason: e instanceof Error ? e.message : String(e) })

/**
 * Load a HiGHS runtime with `importer` (a test seam: `() => import("highs")` by default) through
 * `OptionalPeer.load`, uncached. Fails with `MissingPeerError` when the module is not installed, `LpSolveError`
 * (`Load error`) when it cannot start.
 */
export const loadRuntimeWith = (importer: () => Promise<unknown>): Effect.Effect<HighsRuntime, LpSolveError | MissingPeerError> =>
  Effect.tryPromise({
    try: async () => loaderOf(await OptionalPeer.load("highs", ENTRY_POINT, importer, PEER_RANGE))(),
    catch: (e) => (e instanceof MissingPeerError ? e : loadFailed(e))
  })

let runtimePromise: Promise<HighsRuntime> | undefined

/** Load the HiGHS WebAssembly runtime once per process (later calls share the same instance; a failure is not cached). */
export const loadRuntime: Effect.Effect<HighsRuntime, LpSolveError | MissingPeerError> = Effect.suspend(() => {
  if (runtimePromise === undefined) {
    runtimePromise = Effect.runPromise(loadRuntimeWith(() => import("highs"))).catch((e: unknown) => {
      runtimePromise = undefined
      throw e
    })
  }
  const promise = runtimePromise
  return Effect.tryPromise({ try: () => promise, catch: (e) => (e instanceof MissingPeerError || e instanceof LpSolveError ? e : loadFailed(e)) })
})

/** Build the service from the process-wide runtime. */
export const make: Effect.Effect<HighsShape, LpSolveError | MissingPeerError> = Effect.map(loadRuntime, (runtime) => ({
  solve: solveWith(runtime),
  version: `${runtime.version.major}.${runtime.version.minor}.${runtime.version.patch}`
}))

/** The {@link Highs} service, backed by the process-wide WebAssembly runtime. */
export const layer: Layer.Layer<Highs, LpSolveError | MissingPeerError> = Layer.effect(Highs, make)

/**
 * The seam between the browser-safe `Registry.makeVec` and the Node-only `AsyncVectorEnv` (worker threads): the
 * registry asks for an async vector env through the constructor installed here, which the module
 * `vector/AsyncVectorEnv.ts` installs when it is loaded (it is reached from `@autodidact/envs/node`). The main
 * entry never imports `node:worker_threads` itself. Internal.
 * @since 0.2.0
 */
import type { AutoresetMode, VectorEnv } from "../vector/VectorEnv.js"

/** What `makeVec` passes to the async constructor (a subset of `AsyncVectorEnvOptions`). */
export interface AsyncVectorRequest {
  readonly envId: string
  readonly numEnvs: number
  readonly kwargs: { readonly [key: string]: unknown }
  readonly autoresetMode: AutoresetMode
  readonly workers: number | undefined
  readonly modules: ReadonlyArray<string> | undefined
}

let factory: ((request: AsyncVectorRequest) => VectorEnv) | undefined

/**
 * Install the async vector-env constructor (called once by `vector/AsyncVectorEnv.ts` at load); `undefined`
 * uninstalls it (tests of the "node entry not loaded" path, which share a process with files that load it).
 */
export const installAsyncVectorEnv = (make: ((request: AsyncVectorRequest) => VectorEnv) | undefined): void => {
  factory = make
}

/** The installed constructor, or `undefined` when `@autodidact/envs/node` has not been loaded in this thread. */
export const asyncVectorEnv = (): ((request: AsyncVectorRequest) => VectorEnv) | undefined => factory

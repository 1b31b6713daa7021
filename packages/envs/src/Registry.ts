/**
 * The environment registry: versioned ids (`CartPole-v1`) mapped to constructors and registration facts, and
 * `make`, which builds an environment with the standard wrappers (Gymnasium's `gymnasium/envs/registration.py`).
 *
 * **Details**
 * - `make(id, kwargs)` calls the entry point with the spec's kwargs overridden by `kwargs`, sets `spec` on the
 *   unwrapped env, then wraps it in Gymnasium's order: the checker ({@link Wrappers.Checked}: Gymnasium's
 *   `PassiveEnvChecker` + `OrderEnforcing`), then `TimeLimit(maxEpisodeSteps)` when the spec has one.
 * - Ids follow Gymnasium's `[namespace/]Name[-vN]`. An unknown name or version fails with
 *   {@link UnknownEnvError}, listing the registered versions of that name or the closest names ("did you mean").
 * - Built in: `CartPole-v1` (500 steps, threshold 475), `FrozenLake-v1` (4x4, 100 steps, 0.70),
 *   `FrozenLake8x8-v1` (8x8, 200 steps, 0.85), as in `gymnasium/envs/__init__.py`.
 * - Multi-agent (PettingZoo AEC) envs have their own ids in the same syntax, built by `makeAec(id, kwargs)` and listed
 *   by `aecIds()`: the text views of the games, `kuhn_poker-text-v0`, `leduc_poker-text-v0`, `tic_tac_toe-text-v0`,
 *   `connect_four-text-v0`, `liars_dice-text-v0`, `negotiation-text-v0` (kwargs: the game's parameters, e.g.
 *   `{ players: 3 }`). `make` of such an id fails with a pointer to `makeAec`.
 * - `makeVec(id, n, options)` builds a `SyncVectorEnv` or `AsyncVectorEnv` of `n` copies (Gymnasium's `make_vec`), or
 *   with `vectorizationMode: "batched"` the id's structure-of-arrays vector env (`vectorEntryPoint`).
 *   `AsyncVectorEnv` runs on Node worker threads and lives in `@autodidact/envs/node`: `vectorizationMode: "async"`
 *   works once that entry point is loaded in the process (import `makeVec` from it, or import it once); the main
 *   entry itself has no Node built-in in its import graph and bundles for browsers.
 *
 * **Gotchas**
 * - The registry is per process (and per worker thread): an `AsyncVectorEnv` of a user-registered id needs the
 *   module that registers it (`modules` option), since functions cannot cross threads.
 *
 * @example
 * ```ts
 * import { Registry } from "@autodidact/envs"
 * const env = Registry.make("CartPole-v1")
 * const { observation } = env.reset({ seed: 42 })
 * const r = env.step(1) // { observation, reward: 1, terminated: false, truncated: false, info: {} }
 * ```
 * @see https://github.com/Farama-Foundation/Gymnasium/blob/v1.4.0/gymnasium/envs/registration.py
 * @since 0.1.0
 */
import { InvalidOptionError } from "@autodidact/core"
import { registerBuiltins } from "./internal/BuiltinEnvs.js"
import { asyncVectorEnv } from "./internal/AsyncVectorHook.js"
import { ids, make, type Kwargs, lookup } from "./internal/Registrations.js"
import { SyncVectorEnv } from "./vector/SyncVectorEnv.js"
import type { AutoresetMode, VectorEnv } from "./vector/VectorEnv.js"

export {
  aecIds,
  type AecRegistration,
  has,
  hasAec,
  ids,
  type Kwargs,
  make,
  makeAec,
  type MakeOptions,
  parseId,
  type ParsedId,
  register,
  registerAec,
  type Registration,
  spec,
  type VectorEntryOptions,
  UnknownEnvError
} from "./internal/Registrations.js"

registerBuiltins()

/** Options of {@link makeVec}. */
export interface MakeVecOptions {
  /**
   * `"sync"` (default): one thread; `"async"`: Node worker threads, available once `@autodidact/envs/node` is
   * loaded (its `makeVec` is this function with that guaranteed); `"batched"`: the id's structure-of-arrays vector
   * env (`vectorEntryPoint`: `CartPole-v1`, `FrozenLake-v1`, `FrozenLake8x8-v1`, `Sokoban-v0`), bit-identical to
   * `"sync"` and many times faster.
   */
  readonly vectorizationMode?: "sync" | "async" | "batched" | undefined
  /** Default `"NextStep"` (Gymnasium's default). */
  readonly autoresetMode?: AutoresetMode | undefined
  /** Kwargs of every sub-env. */
  readonly kwargs?: Kwargs | undefined
  /** Async only: number of worker threads (default `min(numEnvs, os.availableParallelism())`). */
  readonly workers?: number | undefined
  /** Async only: modules each worker imports before `make` (to register user envs). */
  readonly modules?: ReadonlyArray<string> | undefined
}

/**
 * `numEnvs` copies of `make(id, kwargs)` as one vector environment (Gymnasium's `make_vec`).
 * @throws UnknownEnvError when `id` is not registered; InvalidOptionError when `numEnvs` is not a positive integer,
 *   when `vectorizationMode` is `"async"` and `@autodidact/envs/node` has not been loaded (no worker threads), or
 *   `"batched"` for an id without a `vectorEntryPoint`.
 */
export const makeVec = (id: string, numEnvs: number, options: MakeVecOptions = {}): VectorEnv => {
  lookup(id)
  if (!Number.isInteger(numEnvs) || numEnvs <= 0) {
    throw new InvalidOptionError({ option: "numEnvs", value: numEnvs, reason: "expected a positive integer" })
  }
  const kwargs = options.kwargs ?? {}
  const autoresetMode = options.autoresetMode ?? "NextStep"
  if (options.vectorizationMode === "batched") {
    const reg = lookup(id)
    if (reg.vectorEntryPoint === undefined) {
      throw new InvalidOptionError({
        option: "vectorizationMode",
        value: "batched",
        reason: `${id} has no batched implementation; ids that have one: ${ids().filter((k) => lookup(k).vectorEntryPoint !== undefined).join(", ")}`
      })
    }
    return reg.vectorEntryPoint(numEnvs, { ...reg.kwargs, ...kwargs }, { autoresetMode, maxEpisodeSteps: reg.maxEpisodeSteps })
  }
  if (options.vectorizationMode === "async") {
    const makeAsync = asyncVectorEnv()
    if (makeAsync === undefined) {
      throw new InvalidOptionError({
        option: "vectorizationMode",
        value: "async",
        reason: "worker threads are Node-only: import { makeVec } from \"@autodidact/envs/node\" (or import that entry once)"
      })
    }
    return makeAsync({
      envId: id,
      numEnvs,
      kwargs,
      autoresetMode,
      workers: options.workers,
      modules: options.modules
    })
  }
  return new SyncVectorEnv(Array.from({ length: numEnvs }, () => () => make(id, kwargs)), { autoresetMode })
}

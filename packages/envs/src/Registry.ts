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
 * - `makeVec(id, n, options)` builds a `SyncVectorEnv` or `AsyncVectorEnv` of `n` copies (Gymnasium's `make_vec`).
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
import { Schema } from "effect"
import { AsyncVectorEnv } from "./vector/AsyncVectorEnv.js"
import * as CartPole from "./classic/CartPole.js"
import type { AnyEnv, Env, EnvSpec } from "./Env.js"
import * as FrozenLake from "./toytext/FrozenLake.js"
import * as Sokoban from "./sokoban/Sokoban.js"
import * as TextFrozenLake from "./text/TextFrozenLake.js"
import * as TextHousehold from "./text/TextHousehold.js"
import * as TextSokoban from "./text/TextSokoban.js"
import { SyncVectorEnv } from "./vector/SyncVectorEnv.js"
import type { AutoresetMode, VectorEnv } from "./vector/VectorEnv.js"
import { Checked, TimeLimit } from "./wrappers/Wrappers.js"

/**
 * `make`/`spec` of an id that is not registered (unknown name, or a version that does not exist).
 * `suggestions` holds the registered versions of the same name, else the closest registered ids.
 * @category errors
 */
export class UnknownEnvError extends Schema.TaggedError<UnknownEnvError>()("UnknownEnvError", {
  id: Schema.String,
  reason: Schema.String,
  suggestions: Schema.Array(Schema.String)
}) {
  override get message() {
    return `${this.reason}${this.suggestions.length > 0 ? `; did you mean: ${this.suggestions.join(", ")}?` : ""}`
  }
}

/** Keyword arguments of an entry point. */
export type Kwargs = { readonly [key: string]: unknown }

/** A registration: the spec plus the constructor. */
export interface Registration extends EnvSpec {
  /** Builds the unwrapped environment from the merged kwargs. */
  readonly entryPoint: (kwargs: Kwargs) => AnyEnv
  /** Skip the `Checked` wrapper (Gymnasium's `disable_env_checker`). Default false. */
  readonly disableEnvChecker?: boolean | undefined
}

/** Parsed parts of an id `[namespace/]name[-vN]` (Gymnasium's `parse_env_id`). */
export interface ParsedId {
  readonly namespace: string | undefined
  readonly name: string
  readonly version: number | undefined
}

const ID_RE = /^(?:(?<namespace>[\w:.-]+)\/)?(?:(?<name>[\w:.-]+?))(?:-v(?<version>\d+))?$/

/**
 * Split an id into namespace, name and version.
 * @throws InvalidOptionError when the id does not match `[namespace/]Name[-vN]`.
 */
export const parseId = (id: string): ParsedId => {
  const m = ID_RE.exec(id)
  if (m === null || m.groups === undefined) {
    throw new InvalidOptionError({ option: "env id", value: id, reason: "expected [namespace/]Name[-vN], e.g. CartPole-v1" })
  }
  const g = m.groups
  return {
    namespace: g["namespace"],
    name: g["name"]!,
    version: g["version"] === undefined ? undefined : Number(g["version"])
  }
}

const registry = new Map<string, Registration>()

/**
 * Register (or replace) an environment id.
 * @throws InvalidOptionError when the id is malformed or `maxEpisodeSteps` is not a positive integer.
 */
export const register = (registration: Registration): void => {
  parseId(registration.id)
  const m = registration.maxEpisodeSteps
  if (m !== undefined && (!Number.isInteger(m) || m <= 0)) {
    throw new InvalidOptionError({ option: "maxEpisodeSteps", value: m, reason: "expected a positive integer" })
  }
  registry.set(registration.id, registration)
}

/** Whether `id` is registered. */
export const has = (id: string): boolean => registry.has(id)

/** Registered ids, sorted. */
export const ids = (): Array<string> => [...registry.keys()].sort()

const editDistance = (a: string, b: string): number => {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!
    row[0] = i
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j]!
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1))
      prev = tmp
    }
  }
  return row[b.length]!
}

const lookup = (id: string): Registration => {
  const found = registry.get(id)
  if (found !== undefined) return found
  const parsed = parseId(id)
  const sameName = ids().filter((k) => {
    const p = parseId(k)
    return p.name === parsed.name && p.namespace === parsed.namespace
  })
  if (sameName.length > 0) {
    throw new UnknownEnvError({
      id,
      reason: parsed.version === undefined
        ? `Environment ${parsed.name} needs a version; registered versions: ${sameName.join(", ")}`
        : `Environment version v${parsed.version} for ${parsed.name} does not exist; registered versions: ${sameName.join(", ")}`,
      suggestions: sameName
    })
  }
  const lower = parsed.name.toLowerCase()
  const scored = ids()
    .map((k) => ({ k, d: editDistance(lower, parseId(k).name.toLowerCase()) }))
    .filter(({ d }) => d <= Math.max(2, Math.floor(parsed.name.length / 3)))
    .sort((a, b) => a.d - b.d)
    .slice(0, 3)
    .map(({ k }) => k)
  throw new UnknownEnvError({ id, reason: `Environment ${parsed.name} doesn't exist`, suggestions: scored })
}

/**
 * The registration facts of `id` (without the entry point).
 * @throws UnknownEnvError when `id` is not registered.
 */
export const spec = (id: string): EnvSpec => {
  const { entryPoint: _e, disableEnvChecker: _d, ...rest } = lookup(id)
  return rest
}

/** Options of {@link make} besides the env's own kwargs. */
export interface MakeOptions {
  /** Override the spec's `TimeLimit` (Gymnasium's `max_episode_steps`). */
  readonly maxEpisodeSteps?: number | undefined
  /** Skip the `Checked` wrapper. */
  readonly disableEnvChecker?: boolean | undefined
}

/**
 * Build the environment registered as `id` with `kwargs` (merged over the spec's), wrapped as Gymnasium's `make`
 * does: `TimeLimit(Checked(env))`.
 * @throws UnknownEnvError when `id` is not registered; whatever the entry point throws (InvalidOptionError, ...).
 */
export const make = <Obs = any, Act = any>(id: string, kwargs: Kwargs = {}, options: MakeOptions = {}): Env<Obs, Act> => {
  const reg = lookup(id)
  const merged = { ...reg.kwargs, ...kwargs }
  const maxEpisodeSteps = options.maxEpisodeSteps ?? reg.maxEpisodeSteps
  let env: AnyEnv = reg.entryPoint(merged)
  env.unwrapped.spec = {
    id: reg.id,
    maxEpisodeSteps,
    rewardThreshold: reg.rewardThreshold,
    nondeterministic: reg.nondeterministic ?? false,
    kwargs: merged
  }
  if (!(options.disableEnvChecker ?? reg.disableEnvChecker ?? false)) env = new Checked(env)
  if (maxEpisodeSteps !== undefined) env = new TimeLimit(env, maxEpisodeSteps)
  return env
}

/** Options of {@link makeVec}. */
export interface MakeVecOptions {
  /** `"sync"` (default): one thread; `"async"`: worker threads. */
  readonly vectorizationMode?: "sync" | "async" | undefined
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
 * @throws UnknownEnvError when `id` is not registered; InvalidOptionError when `numEnvs` is not a positive integer.
 */
export const makeVec = (id: string, numEnvs: number, options: MakeVecOptions = {}): VectorEnv => {
  lookup(id)
  if (!Number.isInteger(numEnvs) || numEnvs <= 0) {
    throw new InvalidOptionError({ option: "numEnvs", value: numEnvs, reason: "expected a positive integer" })
  }
  const kwargs = options.kwargs ?? {}
  const autoresetMode = options.autoresetMode ?? "NextStep"
  if (options.vectorizationMode === "async") {
    return new AsyncVectorEnv({
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

register({
  id: "CartPole-v1",
  entryPoint: (kwargs) => new CartPole.CartPoleEnv(kwargs as CartPole.CartPoleOptions),
  maxEpisodeSteps: 500,
  rewardThreshold: 475.0
})
register({
  id: "FrozenLake-v1",
  entryPoint: (kwargs) => new FrozenLake.FrozenLakeEnv(kwargs as FrozenLake.FrozenLakeOptions),
  kwargs: { mapName: "4x4" },
  maxEpisodeSteps: 100,
  rewardThreshold: 0.7
})
register({
  id: "FrozenLake8x8-v1",
  entryPoint: (kwargs) => new FrozenLake.FrozenLakeEnv(kwargs as FrozenLake.FrozenLakeOptions),
  kwargs: { mapName: "8x8" },
  maxEpisodeSteps: 200,
  rewardThreshold: 0.85
})

register({
  id: "Sokoban-v0",
  entryPoint: (kwargs) => new Sokoban.Sokoban(kwargs as Sokoban.SokobanOptions),
  maxEpisodeSteps: 120
})

register({
  id: "TextHousehold-v0",
  entryPoint: (kwargs) => new TextHousehold.TextHousehold(kwargs as TextHousehold.TextHouseholdOptions),
  maxEpisodeSteps: 50
})

register({
  id: "Sokoban-6x6-1box-v0",
  entryPoint: (kwargs) => new TextSokoban.TextSokoban(kwargs as TextSokoban.TextSokobanOptions),
  maxEpisodeSteps: 100
})

register({
  id: "TextFrozenLake-v1",
  entryPoint: (kwargs) => new TextFrozenLake.TextFrozenLake(kwargs as TextFrozenLake.TextFrozenLakeOptions),
  maxEpisodeSteps: 100
})

/**
 * The registration table behind {@link Registry}: ids, their entry points and facts, and `make`. Internal: the public
 * face is `Registry` (which re-exports all of this and adds `makeVec`); kept apart so that `AsyncVectorEnv` and its
 * worker can build envs by id without importing `Registry`, which imports them (no import circle).
 * @internal
 * @since 0.2.0
 */
import { InvalidOptionError } from "@autodidact/core"
import { Schema } from "effect"
import type { AnyEnv, Env, EnvSpec } from "../Env.js"
import type { AecEnv } from "../multiagent/AecEnv.js"
import { Checked } from "../wrappers/Checked.js"
import type { AutoresetMode, VectorEnv } from "../vector/VectorEnv.js"
import { TimeLimit } from "../wrappers/TimeLimit.js"

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
  /**
   * Builds a batched vector env of `numEnvs` copies, bit-identical to `SyncVectorEnv` over `make(id, kwargs)`
   * (`makeVec(id, n, { vectorizationMode: "batched" })`; Gymnasium's `vector_entry_point`). `maxEpisodeSteps` is the
   * spec's. Optional.
   */
  readonly vectorEntryPoint?: ((numEnvs: number, kwargs: Kwargs, options: VectorEntryOptions) => VectorEnv) | undefined
}

/** What `makeVec` passes to a {@link Registration.vectorEntryPoint} besides `numEnvs` and the kwargs. */
export interface VectorEntryOptions {
  /** The autoreset mode asked for. */
  readonly autoresetMode: AutoresetMode
  /** The spec's `maxEpisodeSteps` (`TimeLimit`), if any. */
  readonly maxEpisodeSteps: number | undefined
}

/** Parsed parts of an id `[namespace/]name[-vN]` (Gymnasium's `parse_env_id`). */
export interface ParsedId {
  /** The part before `/`, if any. */
  readonly namespace: string | undefined
  /** The name (`CartPole`). */
  readonly name: string
  /** The `N` of `-vN`, if any. */
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

/** The registration of `id`.
 * @throws UnknownEnvError when `id` is not registered (with "did you mean" suggestions).
 */
export const lookup = (id: string): Registration => {
  const found = registry.get(id)
  if (found !== undefined) return found
  if (aecRegistry.has(id)) {
    throw new UnknownEnvError({ id, reason: `${id} is a multi-agent (PettingZoo AEC) env: build it with Registry.makeAec("${id}")`, suggestions: [] })
  }
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
  // the id as the user typed it (version included), and every registered id when no name is close
  throw new UnknownEnvError({ id, reason: `Environment ${id} doesn't exist${scored.length > 0 ? "" : `; registered: ${ids().join(", ")}`}`, suggestions: scored })
}

/**
 * The registration facts of `id` (without the entry point).
 * @throws UnknownEnvError when `id` is not registered.
 */
export const spec = (id: string): EnvSpec => {
  const { entryPoint: _e, disableEnvChecker: _d, vectorEntryPoint: _v, ...rest } = lookup(id)
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

/** A multi-agent (PettingZoo AEC) registration: an id in the same `[namespace/]name[-vN]` syntax and its builder. */
export interface AecRegistration {
  /** `name-vN`, e.g. `kuhn_poker-text-v0`. */
  readonly id: string
  /** Builds the env from the merged kwargs. */
  readonly entryPoint: (kwargs: Kwargs) => AecEnv<any, any>
  /** Default kwargs. */
  readonly kwargs?: Kwargs | undefined
}

const aecRegistry = new Map<string, AecRegistration>()

/**
 * Register (or replace) a multi-agent AEC env id (kept apart from the Gymnasium ids: `ids()` does not list it,
 * `make` of it fails with a pointer to `makeAec`).
 * @throws InvalidOptionError when the id is malformed.
 */
export const registerAec = (registration: AecRegistration): void => {
  parseId(registration.id)
  aecRegistry.set(registration.id, registration)
}

/** Whether `id` is a registered AEC id. */
export const hasAec = (id: string): boolean => aecRegistry.has(id)

/** Registered AEC ids, sorted. */
export const aecIds = (): Array<string> => [...aecRegistry.keys()].sort()

/**
 * Build the AEC env registered as `id` with `kwargs` merged over the registration's.
 * @throws UnknownEnvError when `id` is not a registered AEC id (suggesting the closest); whatever the entry point
 *   throws (e.g. UnknownGameError for a bad game parameter).
 */
export const makeAec = <Obs = any, Act = any>(id: string, kwargs: Kwargs = {}): AecEnv<Obs, Act> => {
  const reg = aecRegistry.get(id)
  if (reg === undefined) {
    parseId(id)
    const lower = id.toLowerCase()
    const suggestions = aecIds()
      .map((k) => ({ k, d: editDistance(lower, k.toLowerCase()) }))
      .sort((a, b) => a.d - b.d)
      .slice(0, 3)
      .map(({ k }) => k)
    throw new UnknownEnvError({
      id,
      reason: registry.has(id) ? `${id} is a single-agent env: build it with Registry.make("${id}")` : `Multi-agent env ${id} doesn't exist; registered: ${aecIds().join(", ")}`,
      suggestions: registry.has(id) ? [] : suggestions
    })
  }
  return reg.entryPoint({ ...reg.kwargs, ...kwargs })
}

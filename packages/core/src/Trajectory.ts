/**
 * Step and episode records: the data every package exchanges (rollouts, stores, optimizers, dashboards).
 *
 * Field names follow Gymnasium (`observation`, `reward`, `terminated`, `truncated`, `info`) and the run-directory
 * contract of `docs/architecture.md`. Observations and actions are kept as `unknown` JSON-able values in the schema
 * (numbers, strings, arrays; use {@link toJsonValue} for typed arrays), so a trajectory can be written as a JSON line
 * and decoded back without a second definition.
 * @since 0.1.0
 */
import { Schema } from "effect"

/** Free-form per-step diagnostics (`info` dict in Gymnasium): string keys, JSON-able values. */
export const Info = Schema.Record(Schema.String, Schema.Unknown)
/** The type of {@link Info}. */
export type Info = { readonly [key: string]: unknown }

/** One environment transition `(s, a, r, s', terminated, truncated)`. */
export const Transition = Schema.Struct({
  observation: Schema.Unknown,
  action: Schema.Unknown,
  reward: Schema.Number,
  nextObservation: Schema.Unknown,
  terminated: Schema.Boolean,
  truncated: Schema.Boolean,
  info: Schema.optional(Info)
})
export type Transition = typeof Transition.Type

/** One step of a trajectory: what was observed, what was done, what followed; optimizers may add columns. */
export const Step = Schema.Struct({
  observation: Schema.Unknown,
  action: Schema.Unknown,
  reward: Schema.Number,
  terminated: Schema.Boolean,
  truncated: Schema.Boolean,
  logProb: Schema.optional(Schema.Number),
  value: Schema.optional(Schema.Number),
  advantage: Schema.optional(Schema.Number),
  return: Schema.optional(Schema.Number),
  info: Schema.optional(Info)
})
export type Step = typeof Step.Type

/**
 * A whole episode (or a truncated part of one): its steps plus episode-level facts.
 * `return` is the undiscounted sum of rewards; `finalObservation` is the observation after the last step.
 */
export const Trajectory = Schema.Struct({
  envId: Schema.String,
  seed: Schema.optional(Schema.Number),
  task: Schema.optional(Schema.String),
  policyVersion: Schema.optional(Schema.Number),
  steps: Schema.Array(Step),
  finalObservation: Schema.optional(Schema.Unknown),
  return: Schema.Number,
  length: Schema.Int,
  success: Schema.optional(Schema.Boolean)
})
export type Trajectory = typeof Trajectory.Type
/** Alias: an `Episode` is a `Trajectory` that ends in termination or truncation. */
export const Episode = Trajectory
export type Episode = Trajectory

/** Convert typed arrays (recursively) to plain number arrays so a value survives `JSON.stringify`. */
export const toJsonValue = (x: unknown): unknown => {
  if (ArrayBuffer.isView(x) && !(x instanceof DataView)) return Array.from(x as unknown as ArrayLike<number>)
  if (Array.isArray(x)) return x.map(toJsonValue)
  if (x !== null && typeof x === "object") {
    return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, toJsonValue(v)]))
  }
  return x
}

/**
 * Build a trajectory record from its steps: `return` is the undiscounted sum of the steps' rewards, `length` their
 * number; `extra` (seed, task, policy version, final observation, success) is copied as given. The steps are not
 * copied or checked (decode with {@link Trajectory} to validate a record read from disk).
 */
export const fromSteps = (
  envId: string,
  steps: ReadonlyArray<Step>,
  extra: { seed?: number; task?: string; policyVersion?: number; finalObservation?: unknown; success?: boolean } = {}
): Trajectory => ({
  envId,
  ...extra,
  steps,
  return: steps.reduce((a, s) => a + s.reward, 0),
  length: steps.length
})

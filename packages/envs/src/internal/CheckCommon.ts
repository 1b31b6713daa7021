/**
 * What the conformance checks (`CheckEnv`, `CheckAecEnv`, `CheckParallelEnv`, `CheckTextEnv`, `CheckVectorEnv`)
 * share: comparing and printing values (typed arrays as plain arrays), the info-object test, the legal actions of a
 * PettingZoo-style masked observation, and a collector of deduplicated `property: message` findings. Internal (not
 * exported from the package).
 * @internal
 * @since 0.2.0
 */
import { InvalidOptionError, Space, Trajectory } from "@autodidact/core"
import { Schema } from "effect"

/** Whether `x` decodes as a core `Space`. */
export const isSpace: (x: unknown) => x is Space.Space = Schema.is(Space.Space)

/** `x` as JSON, typed arrays as arrays (not cut: for comparing records). */
export const serialize = (x: unknown): string => JSON.stringify(Trajectory.toJsonValue(x)) ?? String(x)

/** Structural equality through JSON, typed arrays compared as arrays. */
export const same = (a: unknown, b: unknown): boolean => serialize(a) === serialize(b)

/** Whether `x` is a plain object (not null, not an array): Gymnasium's `info` dict. */
export const isInfo = (x: unknown): boolean => x !== null && typeof x === "object" && !Array.isArray(x)

/** `x` as JSON (typed arrays as arrays), cut to 120 characters. */
export const show = (x: unknown): string => {
  let s: string
  try {
    s = JSON.stringify(Trajectory.toJsonValue(x)) ?? String(x)
  } catch {
    s = String(x)
  }
  return s.length > 120 ? `${s.slice(0, 117)}...` : s
}

/** The message of a thrown value. */
export const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e))

/**
 * The legal actions of a PettingZoo masked observation `{ observation, action_mask }` (indices where the mask is 1),
 * or undefined when the observation has no `action_mask`.
 */
export const legalActions = (obs: unknown): Array<number> | undefined => {
  if (typeof obs !== "object" || obs === null || !("action_mask" in obs)) return undefined
  const mask = (obs as { readonly action_mask: ArrayLike<number> }).action_mask
  const legal: Array<number> = []
  for (let i = 0; i < mask.length; i++) if (mask[i] === 1) legal.push(i)
  return legal
}

/** Deduplicated findings `property: message`, at most `limit`. */
export class Findings {
  private readonly set = new Set<string>()
  constructor(private readonly limit = 50) {}
  /** Record that `property` was broken, with what was wrong. */
  add(property: string, message: string): void {
    if (this.set.size < this.limit) this.set.add(`${property}: ${message}`)
  }
  /** Whether nothing was recorded. */
  get empty(): boolean {
    return this.set.size === 0
  }
  /** The findings, in the order first seen. */
  list(): Array<string> {
    return [...this.set]
  }
}

/**
 * A count option of a check (`numCycles`, `steps`): `fallback` when undefined, else a non-negative safe integer.
 * @throws InvalidOptionError naming the option and the value otherwise.
 */
export const countOption = (option: string, value: number | undefined, fallback: number): number => {
  if (value === undefined) return fallback
  if (!Number.isSafeInteger(value) || value < 0) throw new InvalidOptionError({ option, value, reason: "expected a non-negative integer" })
  return value
}

/**
 * The seed option of a check: `fallback` when undefined, else a non-negative safe integer (what `reset({ seed })` takes).
 * @throws InvalidOptionError naming the value otherwise.
 */
export const seedOption = (value: number | undefined, fallback: number): number => countOption("seed", value, fallback)

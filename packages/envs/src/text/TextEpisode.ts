/**
 * The episode bookkeeping every text environment shares: the options `maxSteps` / `invalidActionPolicy` /
 * `invalidActionPenalty` with their checks, and the step counter with the running/ended state behind
 * `ResetNeededError` and `truncated`. Internal (not exported from the package); `TextHousehold`, `TextSokoban` and
 * `TextFrozenLake` use it so that the three enforce the same rules with the same messages.
 * @internal
 * @since 0.2.0
 */
import { InvalidOptionError, ResetNeededError } from "@autodidact/core"
import type { InvalidActionPolicy } from "./TextEnv.js"

/** The options every text environment takes (also registry kwargs). */
export interface TextEpisodeOptions {
  /** Steps after which `truncated` is set; a positive integer or `Infinity` (no limit). */
  readonly maxSteps?: number | undefined
  /** `"penalize"` (default) or `"error"`; see {@link InvalidActionPolicy}. */
  readonly invalidActionPolicy?: InvalidActionPolicy | undefined
  /** Reward of an invalid action under `"penalize"`; a finite number. */
  readonly invalidActionPenalty?: number | undefined
}

/** {@link TextEpisodeOptions} with the defaults filled in and checked. */
export interface TextEpisodeSettings {
  readonly maxSteps: number
  readonly invalidActionPolicy: InvalidActionPolicy
  readonly invalidActionPenalty: number
}

/**
 * Fill in and check the shared text-env options.
 * @param defaults the env's own `maxSteps` and `invalidActionPenalty` defaults (the policy defaults to `"penalize"`).
 * @throws InvalidOptionError when `maxSteps` is not a positive integer or `Infinity`, the policy is not `"penalize"`
 *   or `"error"`, or the penalty is not finite.
 */
export const textEpisodeSettings = (
  options: TextEpisodeOptions,
  defaults: { readonly maxSteps: number; readonly invalidActionPenalty: number }
): TextEpisodeSettings => {
  const maxSteps = options.maxSteps ?? defaults.maxSteps
  if (!(maxSteps === Infinity || (Number.isInteger(maxSteps) && maxSteps > 0))) {
    throw new InvalidOptionError({ option: "maxSteps", value: maxSteps, reason: "must be a positive integer or Infinity" })
  }
  const invalidActionPolicy = options.invalidActionPolicy ?? "penalize"
  if (invalidActionPolicy !== "penalize" && invalidActionPolicy !== "error") {
    throw new InvalidOptionError({ option: "invalidActionPolicy", value: invalidActionPolicy, reason: 'expected "penalize" or "error"' })
  }
  const invalidActionPenalty = options.invalidActionPenalty ?? defaults.invalidActionPenalty
  if (!Number.isFinite(invalidActionPenalty)) {
    throw new InvalidOptionError({ option: "invalidActionPenalty", value: invalidActionPenalty, reason: "expected a finite number" })
  }
  return { maxSteps, invalidActionPolicy, invalidActionPenalty }
}

/**
 * Where a text env's episode is: never started, running (with `steps` taken), or ended (terminated, truncated or
 * closed). Steps count valid and invalid actions alike (verl-agent's rule), so `truncated` comes after `maxSteps`
 * steps of any kind.
 */
export class TextEpisode {
  /** Steps taken in the current episode. */
  steps = 0
  /** Whether `reset` has been called at least once. */
  started = false
  /** Whether the current episode accepts steps. */
  running = false

  constructor(readonly envId: string, readonly maxSteps: number) {}

  /** A new episode: zero steps, running. */
  begin(): void {
    this.steps = 0
    this.running = true
    this.started = true
  }

  /** @throws ResetNeededError before the first `begin`, or after the episode ended. */
  assertRunning(): void {
    if (!this.running) {
      throw new ResetNeededError({ envId: this.envId, reason: this.started ? "the episode has ended" : "step before reset" })
    }
  }

  /** Count one step; returns `truncated` (`steps >= maxSteps`); the episode ends when `terminated` or truncated. */
  advance(terminated: boolean): boolean {
    this.steps++
    const truncated = this.steps >= this.maxSteps
    if (terminated || truncated) this.running = false
    return truncated
  }

  /** End the episode (`close`). */
  end(): void {
    this.running = false
  }
}

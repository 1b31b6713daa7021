/**
 * Search budgets shared by every search of this package (MCTS, best-first, beam, `SearchPolicy`): environment steps,
 * wall time and stored nodes. A search stops before the first operation that would exceed any of them, so a finite
 * `envSteps` or `nodes` budget is met exactly, never overshot.
 *
 * **Details**
 * - `envSteps`: `env.step` calls made by the search (expansions and rollouts; `restore` is not a step).
 * - `nodes`: nodes in the node store (distinct state keys, plus the root).
 * - `wallMs`: milliseconds since the search started, read from `clock` (default `performance.now`) between
 *   operations, so a search may end up to one operation past it.
 * - Each is a positive number or `Infinity`; at least one must be finite. Anything else (0, a negative number, NaN,
 *   a non-number) is an `InvalidOptionError` naming the field (`budget.envSteps`, ...) and the value.
 * @since 0.1.0
 */
import { InvalidOptionError } from "@autodidact/core"

/** Limits of one search. Omitted fields are unlimited; at least one must be finite. */
export interface Budget {
  /** `env.step` calls (expansions and rollouts): a positive integer or `Infinity`. */
  readonly envSteps?: number | undefined
  /** Nodes in the store, root included: a positive integer or `Infinity`. */
  readonly nodes?: number | undefined
  /** Wall-clock milliseconds: a positive number or `Infinity`. */
  readonly wallMs?: number | undefined
}

/** A checked budget: every field a positive number or `Infinity`. */
export interface Limits {
  readonly envSteps: number
  readonly nodes: number
  readonly wallMs: number
}

/** What ended a search. */
export type StopReason =
  /** A budget was reached. */
  | "envSteps" | "nodes" | "wallMs"
  /** Best-first/beam, and MCTS with `stopAtGoal`: a goal step was found. */
  | "solved"
  /** Best-first/beam: nothing left to expand. */
  | "exhausted"
  /** MCTS: `iterations` simulations done. */
  | "iterations"
  /** MCTS: `maxIdle` simulations in a row without an env step (converged, or every reachable edge expanded). */
  | "idle"

const check = (field: keyof Budget, value: unknown, integer: boolean): number => {
  if (value === undefined) return Infinity
  if (typeof value !== "number" || Number.isNaN(value) || value <= 0 || (integer && value !== Infinity && !Number.isInteger(value))) {
    throw new InvalidOptionError({
      option: `budget.${field}`,
      value,
      reason: integer ? "expected a positive integer or Infinity" : "expected a positive number or Infinity"
    })
  }
  return value
}

/**
 * Check a budget (see the module docs).
 * @throws InvalidOptionError naming the field and value for 0, a negative number, NaN or a non-number, and with
 *   option `budget` when every field is unlimited.
 */
export const validate = (budget: Budget): Limits => {
  if (typeof budget !== "object" || budget === null) {
    throw new InvalidOptionError({ option: "budget", value: budget, reason: "expected { envSteps?, nodes?, wallMs? }" })
  }
  const envSteps = check("envSteps", budget.envSteps, true)
  const nodes = check("nodes", budget.nodes, true)
  const wallMs = check("wallMs", budget.wallMs, false)
  if (envSteps === Infinity && nodes === Infinity && wallMs === Infinity) {
    throw new InvalidOptionError({ option: "budget", value: budget, reason: "give at least one finite limit (envSteps, nodes or wallMs)" })
  }
  return { envSteps, nodes, wallMs }
}

/**
 * The running account of one search against its budget (plain, mutable; the searches own one each).
 * @category models
 */
export class Meter {
  /** `env.step` calls so far. */
  envSteps = 0
  readonly limits: Limits
  private readonly start: number

  /** @throws InvalidOptionError for a bad budget (see {@link validate}). */
  constructor(budget: Budget, readonly clock: () => number = () => performance.now()) {
    this.limits = validate(budget)
    this.start = clock()
  }

  /** Milliseconds since the search started. */
  elapsedMs(): number {
    return this.clock() - this.start
  }

  /** Whether `steps` more env steps fit. */
  canStep(steps = 1): boolean {
    return this.envSteps + steps <= this.limits.envSteps
  }

  /**
   * The first limit that is reached with `nodes` nodes stored and `stepsNeeded` more env steps wanted, or undefined
   * when the search may go on.
   */
  exhausted(nodes: number, stepsNeeded = 1): StopReason | undefined {
    if (!this.canStep(stepsNeeded)) return "envSteps"
    if (nodes >= this.limits.nodes) return "nodes"
    if (this.limits.wallMs !== Infinity && this.elapsedMs() >= this.limits.wallMs) return "wallMs"
    return undefined
  }
}

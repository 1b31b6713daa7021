/**
 * Per-step signals beyond rewards that some advantage estimators read from a trajectory: the policy's entropy at each
 * step (AEPO), the log-ratio of an implicit process reward model to its reference (OPRL), the policy's log-probability
 * of the goal / ground truth before each step (IGPO), and external progress estimates (SPA). A trajectory that
 * carries them is an {@link Advantages.TrajectoryInput} with these optional fields ({@link SignalTrajectory});
 * estimators that ignore them are unaffected.
 *
 * **When to use**: an estimator that needs a signal declares it with {@link declare} (beside
 * `Advantages.register`); `MultiTurnTrainer` reads {@link needsOf} to attach what it can (entropies and log-ratios
 * from the DRRN policy) and refuses with a typed error what it cannot (goal log-probabilities, see `Igpo`);
 * `CheckEstimator.checkRegistered` generates the declared signals and asserts their absence is rejected.
 *
 * **Errors**: {@link validateSignals} throws `Advantages.AdvantageInputError`: reason `"missingValues"` (the signal
 * named in `detail`), `"lengthMismatch"` (not one value per step), `"nonFinite"` (NaN/∞, a negative entropy or a
 * positive log-probability, with the value and position).
 *
 * @since 0.3.0
 */
import * as Advantages from "../Advantages.js"

/** The per-step signal fields (each one value per step, the length of `rewards`). */
export interface StepSignals {
  /** Entropy H(π(·|s_t)) of the policy at each step, nats, ≥ 0 (AEPO). */
  readonly entropies?: ArrayLike<number> | undefined
  /** log π_φ(a_t|s_t) − log π_ref(a_t|s_t) of the step's action (OPRL's implicit process reward, before β). */
  readonly logRatios?: ArrayLike<number> | undefined
  /**
   * log P(goal | context before step t), ≤ 0: the policy's (length-normalized) log-probability of the ground truth
   * given the history up to, not including, step t's action (IGPO).
   */
  readonly goalLogProbs?: ArrayLike<number> | undefined
  /** Estimated progress (contribution to the outcome) of each step, any scale (SPA); optional for `spa`. */
  readonly progress?: ArrayLike<number> | undefined
}

/** A trajectory with the optional per-step signals. */
export type SignalTrajectory = Advantages.TrajectoryInput & StepSignals

/**
 * An estimator over trajectories that may carry the signals: the same function as `Advantages.Estimator` (each is
 * assignable to the other), typed so that a batch literal with signal fields type-checks.
 */
export type SignalEstimator = (batch: ReadonlyArray<ReadonlyArray<SignalTrajectory>>, options: Advantages.Options) => Advantages.Result

/** The name of a per-step signal. */
export type Signal = keyof StepSignals

/** Every signal name, in a fixed order. */
export const signals: ReadonlyArray<Signal> = ["entropies", "logRatios", "goalLogProbs", "progress"]

const declared = new Map<string, ReadonlyArray<Signal>>()

/**
 * Declare the signals the estimator `name` requires on every trajectory (replacing an earlier declaration). Returns a
 * function undoing it.
 */
export const declare = (name: string, needs: ReadonlyArray<Signal>): (() => void) => {
  const before = declared.get(name)
  declared.set(name, [...needs])
  return () => {
    if (before === undefined) declared.delete(name)
    else declared.set(name, before)
  }
}

/** The signals the estimator `name` requires (none when it declared none). */
export const needsOf = (name: string): ReadonlyArray<Signal> => declared.get(name) ?? []

/** The trajectory's signal (typed view of the optional field). */
export const signalOf = (tr: Advantages.TrajectoryInput, signal: Signal): ArrayLike<number> | undefined => (tr as SignalTrajectory)[signal]

/**
 * Check that every trajectory of `batch` carries each signal of `needs` with one finite value per step (entropies
 * ≥ 0, goal log-probabilities ≤ 0); signals not in `needs` are checked only when present. Throws
 * `Advantages.AdvantageInputError` naming `estimator`, the signal and the position.
 */
export const validateSignals = (estimator: string, batch: ReadonlyArray<Advantages.Group>, needs: ReadonlyArray<Signal>): void => {
  for (let g = 0; g < batch.length; g++) {
    const group = batch[g]!
    for (let i = 0; i < group.length; i++) {
      const tr = group[i]!
      const T = tr.rewards.length
      for (const signal of signals) {
        const xs = signalOf(tr, signal)
        if (xs === undefined) {
          if (needs.includes(signal)) throw new Advantages.AdvantageInputError({ reason: "missingValues", estimator, group: g, trajectory: i, detail: `missing ${signal}` })
          continue
        }
        if (xs.length !== T) {
          throw new Advantages.AdvantageInputError({ reason: "lengthMismatch", estimator, group: g, trajectory: i, detail: `${xs.length} ${signal} for ${T} rewards` })
        }
        for (let t = 0; t < T; t++) {
          const x = xs[t]!
          const bad = !Number.isFinite(x) || (signal === "entropies" && x < 0) || (signal === "goalLogProbs" && x > 0)
          if (bad) {
            const rule = signal === "entropies" ? " (must be finite and ≥ 0)" : signal === "goalLogProbs" ? " (must be finite and ≤ 0)" : ""
            throw new Advantages.AdvantageInputError({ reason: "nonFinite", estimator, group: g, trajectory: i, step: t, value: x, detail: `${signal}${rule}` })
          }
        }
      }
    }
  }
}

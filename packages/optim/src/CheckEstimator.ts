/**
 * A conformance check for advantage estimators ({@link Advantages.Estimator}), in the spirit of Gymnasium's
 * `check_env`: one call tells a contributor whether a new estimator keeps the contract of `Advantages` and the
 * invariances its family's definition guarantees. Inputs are generated from a seeded `Rng` (ragged and equal-length
 * groups, a one-member group, sparse 0/1 and continuous rewards, repeated state keys, critic values).
 *
 * **Checked on every estimator**
 * - `shape`: the result has one entry per group and per trajectory, each a `Float64Array` with one advantage per step.
 * - `finite`: finite input gives finite advantages, also on edge batches (one-member groups, all-equal returns,
 *   one-step trajectories, rewards of 1e6).
 * - `invalidInput`: an empty batch, an empty group, an empty trajectory, a NaN or infinite reward, `stateKeys` of the
 *   wrong length, bad options (γ = 1.5, γ = NaN, λ = −0.1, ε = −1, ω = NaN), and with `needs` the missing or
 *   mismatched `stateKeys` / `values` (NaN value), each throw {@link Advantages.AdvantageInputError} — not another
 *   error, and never a NaN result (the built-ins call `Advantages.validate` and `Advantages.validateOptions`).
 * - `determinism`: the same input gives bit-identical output.
 * - `purity`: the input batch is not modified.
 *
 * **Checked by family** ({@link Advantages.Family}; the built-ins declare theirs in the registry, see
 * {@link Advantages.traits}); R_i is trajectory i's undiscounted return, each property what the cited definition in
 * `Advantages` guarantees:
 * - `batchIndependence` (all but `"batch-normalized"`, `"custom"`): a group's advantages are those it gets alone.
 * - `trajectoryIndependence` (`"critic"`): a trajectory's advantages are those it gets alone.
 * - `perTrajectoryConstant` (`"group-normalized"`, `"group-centered"`): an outcome advantage, equal on every step.
 * - `singletonZero` (same): a one-member group gets 0 (the one rule of `Advantages`).
 * - `groupShiftInvariance` (same): adding c to every reward of a group of equal-length trajectories (R_i + T·c)
 *   leaves the advantages unchanged (GRPO, Dr. GRPO, RLOO subtract a group baseline).
 * - `groupZeroSum` (same): a group's per-trajectory advantages sum to 0 (mean- and leave-one-out baselines).
 * - `groupScaleInvariance` (`"group-normalized"`; `"anchor-state"` with `normalize: "std"`): scaling every reward by
 *   c ∈ {2, 0.25} leaves the advantages unchanged, checked at ε = 0 where the definition makes it exact.
 * - `groupScaleEquivariance` (`"group-centered"`; `"anchor-state"` with `normalize: "none"`): it scales them by c.
 * - `batchScaleInvariance`, `batchZeroMean` (`"batch-normalized"`, REINFORCE++): scaling every reward of the batch by
 *   c leaves the advantages unchanged (ε = 0); their mean over every step of the batch is 0.
 * - `discountedReturn` (`"critic"`, GAE, Schulman et al. arXiv:1506.02438 Eq. 18): with λ = 1, zero values and no
 *   bootstrap, `A_t = Σ_k γ^k r_{t+k}`; `tdError`: with λ = 0, `A_t = r_t + γ V(s_{t+1}) − V(s_t)`.
 *
 * {@link checkEstimator} throws {@link EstimatorCheckError} listing every finding as `<property>: <what was wrong,
 * with the offending value>`; on success it returns an {@link EstimatorCheckReport}.
 *
 * @example
 * ```ts
 * import { Advantages, CheckEstimator } from "@autodidact/optim"
 * CheckEstimator.checkEstimator(Advantages.get("grpo"), { name: "grpo", family: "group-normalized" })
 * CheckEstimator.checkRegistered("gae") // family and needs from the registry; throws EstimatorCheckError on failure
 * ```
 * @see https://github.com/Farama-Foundation/Gymnasium/blob/v1.4.0/gymnasium/utils/env_checker.py
 * @since 0.1.0
 */
import { Rng } from "@autodidact/core"
import { Effect, Schema } from "effect"
import * as Advantages from "./Advantages.js"
import * as StepSignals from "./estimators/StepSignals.js"

/** A property {@link checkEstimator} can assert (see the module docs). */
export type Property =
  | "shape"
  | "finite"
  | "invalidInput"
  | "determinism"
  | "purity"
  | "batchIndependence"
  | "trajectoryIndependence"
  | "perTrajectoryConstant"
  | "singletonZero"
  | "groupShiftInvariance"
  | "groupZeroSum"
  | "groupScaleInvariance"
  | "groupScaleEquivariance"
  | "batchScaleInvariance"
  | "batchZeroMean"
  | "discountedReturn"
  | "tdError"

/** The properties checked on every estimator. */
export const generalProperties: ReadonlyArray<Property> = ["shape", "finite", "invalidInput", "determinism", "purity"]

/** The properties a family's definition guarantees (`normalize` picks GiGPO's scale property). */
export const familyProperties = (family: Advantages.Family, normalize: "std" | "none" = "std"): Array<Property> => {
  const outcome: Array<Property> = ["batchIndependence", "perTrajectoryConstant", "singletonZero", "groupShiftInvariance", "groupZeroSum"]
  switch (family) {
    case "group-normalized":
      return [...outcome, "groupScaleInvariance"]
    case "group-centered":
      return [...outcome, "groupScaleEquivariance"]
    case "batch-normalized":
      return ["batchScaleInvariance", "batchZeroMean"]
    case "anchor-state":
      return ["batchIndependence", normalize === "std" ? "groupScaleInvariance" : "groupScaleEquivariance"]
    case "critic":
      return ["batchIndependence", "trajectoryIndependence", "discountedReturn", "tdError"]
    case "custom":
      return []
  }
}

/**
 * The estimator breaks the contract; `findings` lists every problem (`<property>: <what, with the value>`).
 * @category errors
 */
export class EstimatorCheckError extends Schema.TaggedError<EstimatorCheckError>()("EstimatorCheckError", {
  estimator: Schema.String,
  findings: Schema.Array(Schema.String)
}) {
  override get message() {
    return `${this.estimator} failed the advantage-estimator check:\n${this.findings.map((f) => `  - ${f}`).join("\n")}`
  }
}

/** Options of {@link checkEstimator}. */
export interface CheckEstimatorOptions {
  /** Name used in findings and errors. Default `"estimator"`. */
  readonly name?: string | undefined
  /** The estimator's family: which invariances to assert. Default `"custom"` (the general contract only). */
  readonly family?: Advantages.Family | undefined
  /** Inputs the estimator requires: then their absence must be rejected. */
  readonly needs?: Advantages.Traits["needs"]
  /**
   * Per-step signals the estimator requires ({@link StepSignals}, e.g. `["logRatios"]`): the generated trajectories
   * carry them (entropies in [0, 2), log-ratios in (−1, 1), goal log-probabilities in (−4, 0], progress in (−1, 1)),
   * and their absence, a wrong length or a NaN must be rejected. Default none (`checkRegistered`: the declared ones).
   */
  readonly signals?: ReadonlyArray<StepSignals.Signal> | undefined
  /** Extra properties to assert beside the general ones and the family's. */
  readonly properties?: ReadonlyArray<Property> | undefined
  /** Properties not to assert. */
  readonly skip?: ReadonlyArray<Property> | undefined
  /** Estimator options merged over `Advantages.defaults`. */
  readonly estimatorOptions?: Partial<Advantages.Options> | undefined
  /** Seed of the generated batches. Default 7. */
  readonly seed?: number | undefined
  /** Relative tolerance of the numeric comparisons: `|a − b| ≤ tol · max(1, |a|, |b|)`. Default 1e-9. */
  readonly tolerance?: number | undefined
}

/** What {@link checkEstimator} checked. */
export interface EstimatorCheckReport {
  readonly estimator: string
  readonly family: Advantages.Family
  /** The properties asserted, in order. */
  readonly properties: ReadonlyArray<Property>
  /** Calls of the estimator made. */
  readonly calls: number
}

type Batch = Array<Array<Advantages.TrajectoryInput>>

const show = (x: unknown): string => {
  if (x instanceof Error) return `${x.name}: ${x.message.split("\n")[0]}`
  const s = Array.isArray(x) || ArrayBuffer.isView(x) ? `[${Array.from(x as ArrayLike<unknown>).map(String).join(", ")}]` : String(x)
  return s.length > 120 ? `${s.slice(0, 117)}...` : s
}

const cloneBatch = (batch: Batch): Batch =>
  batch.map((g) =>
    g.map((t) => ({
      rewards: Array.from(t.rewards),
      ...(t.stateKeys === undefined ? {} : { stateKeys: [...t.stateKeys] }),
      ...(t.values === undefined ? {} : { values: Array.from(t.values) }),
      ...(t.bootstrapValue === undefined ? {} : { bootstrapValue: t.bootstrapValue }),
      ...Object.fromEntries(StepSignals.signals.flatMap((k) => {
        const xs = StepSignals.signalOf(t, k)
        return xs === undefined ? [] : [[k, Array.from(xs)]]
      }))
    }))
  )

const mapRewards = (batch: Batch, f: (r: number, g: number) => number, only?: number): Batch =>
  cloneBatch(batch).map((g, gi) =>
    only !== undefined && gi !== only ? g : g.map((t) => ({ ...t, rewards: Array.from(t.rewards, (r) => f(r, gi)) }))
  )

/**
 * The generated batches: `ragged` (trajectories of different lengths, a one-member group) and `even` (equal lengths
 * within each group, for the shift property), with rewards, repeated state keys, critic values and bootstraps.
 */
/** Generated values of a per-step signal (entropies ≥ 0, goal log-probabilities ≤ 0). */
const signalValues = (signal: StepSignals.Signal, T: number, draw: () => number): Array<number> =>
  Array.from({ length: T }, () => {
    const u = draw()
    return signal === "entropies" ? 2 * u : signal === "goalLogProbs" ? -4 * u : 2 * u - 1
  })

const makeBatches = (seed: number, signals: ReadonlyArray<StepSignals.Signal>): { ragged: Batch; even: Batch; edge: Batch } => {
  const rng = Rng.make(seed)
  const withSignals = (t: Advantages.TrajectoryInput): Advantages.TrajectoryInput =>
    signals.length === 0 ? t : { ...t, ...Object.fromEntries(signals.map((k) => [k, signalValues(k, t.rewards.length, () => rng.random())])) }
  const trajectory = (T: number, sparse: boolean): Advantages.TrajectoryInput => {
    const rewards = Array.from({ length: T }, () => sparse ? (rng.random() < 0.4 ? 1 : 0) : rng.uniform(-1, 1))
    return withSignals({
      rewards,
      stateKeys: Array.from({ length: T }, (_, t) => `s${t === 0 ? 0 : rng.integers(1, 4)}`),
      values: Array.from({ length: T }, () => rng.uniform(-1, 1)),
      bootstrapValue: rng.random() < 0.5 ? 0 : rng.uniform(-1, 1)
    })
  }
  const ragged: Batch = [
    [trajectory(3, false), trajectory(5, false), trajectory(2, false), trajectory(4, false)],
    [trajectory(4, false)],
    [trajectory(6, true), trajectory(1, false), trajectory(3, false)]
  ]
  const even: Batch = [
    [trajectory(3, false), trajectory(3, false), trajectory(3, false), trajectory(3, false)],
    [trajectory(2, false), trajectory(2, false), trajectory(2, false)],
    [trajectory(1, false)]
  ]
  const plain = (rewards: Array<number>, keys?: Array<string>): Advantages.TrajectoryInput =>
    withSignals({
      rewards,
      stateKeys: keys ?? rewards.map((_, t) => `e${t}`),
      values: rewards.map(() => 0)
    })
  const edge: Batch = [
    [plain([1, 0]), plain([0, 1])], // all-equal returns
    [plain([1])], // one member, one step
    [plain([1e6, 0, 1e6], ["a", "a", "a"]), plain([-1e6, 0, 0], ["a", "a", "a"])], // large rewards, one anchor state
    [plain([0]), plain([0]), plain([0])] // all zero
  ]
  return { ragged, even, edge }
}

/** Flatten a result's numbers (ignoring shape problems, reported by `shape`). */
const flat = (r: Advantages.Result): Array<number> => r.flatMap((g) => g.flatMap((a) => Array.from(a)))

/**
 * Run the checks on `estimator`. Returns what was checked.
 * @throws EstimatorCheckError when any property fails, listing every failure.
 */
export const checkEstimator = (estimator: Advantages.Estimator, options: CheckEstimatorOptions = {}): EstimatorCheckReport => {
  const name = options.name ?? "estimator"
  const family = options.family ?? "custom"
  const needs = options.needs ?? {}
  const signals = options.signals ?? []
  const o: Advantages.Options = { ...Advantages.defaults, ...options.estimatorOptions }
  const tol = options.tolerance ?? 1e-9
  const skip = new Set(options.skip ?? [])
  const properties = [...new Set([...generalProperties, ...familyProperties(family, o.normalize), ...(options.properties ?? [])])]
    .filter((p) => !skip.has(p))
  const findings: Array<string> = []
  let calls = 0
  const fail = (p: Property, what: string) => findings.push(`${p}: ${what}`)
  const { edge, even, ragged } = makeBatches(options.seed ?? 7, signals)

  /** Call the estimator on a valid batch; a throw is a finding of `p`. */
  const run = (p: Property, batch: Batch, opts: Advantages.Options = o): Advantages.Result | undefined => {
    calls++
    try {
      return estimator(batch, opts)
    } catch (e) {
      fail(p, `threw on a valid batch: ${show(e)}`)
      return undefined
    }
  }
  /** Shape errors as strings (empty when the shape is right). */
  const shapeErrors = (batch: Batch, r: unknown): Array<string> => {
    if (!Array.isArray(r)) return [`the result is not an array: ${show(r)}`]
    if (r.length !== batch.length) return [`the result has ${r.length} groups for ${batch.length}`]
    const out: Array<string> = []
    batch.forEach((g, gi) => {
      const rg: unknown = r[gi]
      if (!Array.isArray(rg)) return out.push(`result[${gi}] is not an array: ${show(rg)}`)
      if (rg.length !== g.length) return out.push(`result[${gi}] has ${rg.length} trajectories for ${g.length}`)
      g.forEach((t, i) => {
        const a: unknown = rg[i]
        if (!(a instanceof Float64Array)) out.push(`result[${gi}][${i}] is not a Float64Array: ${show(a)}`)
        else if (a.length !== t.rewards.length) out.push(`result[${gi}][${i}] has ${a.length} advantages for ${t.rewards.length} steps`)
      })
    })
    return out
  }
  const close = (a: number, b: number) => Math.abs(a - b) <= tol * Math.max(1, Math.abs(a), Math.abs(b))
  /** The first position where `a` and `f(b)` differ beyond the tolerance, as a string; undefined when equal. */
  const differ = (a: Advantages.Result, b: Advantages.Result, f: (x: number) => number = (x) => x): string | undefined => {
    for (let g = 0; g < a.length; g++) {
      for (let i = 0; i < a[g]!.length; i++) {
        const x = a[g]![i]!
        const y = b[g]?.[i]
        if (y === undefined || y.length !== x.length) return `[${g}][${i}] has another shape`
        for (let t = 0; t < x.length; t++) if (!close(f(x[t]!), y[t]!)) return `[${g}][${i}][${t}]: ${f(x[t]!)} vs ${y[t]!}`
      }
    }
    return undefined
  }
  const has = (p: Property) => properties.includes(p)

  // shape, finite, determinism, purity on the generated batches
  const base = new Map<Batch, Advantages.Result>()
  for (const [label, batch] of [["ragged", ragged], ["even", even], ["edge", edge]] as const) {
    const before = cloneBatch(batch)
    const r = run("shape", batch)
    if (r === undefined) continue
    const shape = shapeErrors(batch, r)
    if (shape.length > 0) {
      if (has("shape")) fail("shape", `${label} batch: ${shape.join("; ")}`)
      continue
    }
    base.set(batch, r)
    if (has("finite")) {
      const bad = r.flatMap((g, gi) => g.flatMap((a, i) => Array.from(a).flatMap((x, t) => Number.isFinite(x) ? [] : [`[${gi}][${i}][${t}] = ${x}`])))
      if (bad.length > 0) fail("finite", `${label} batch (finite rewards) gave non-finite advantages at ${bad.slice(0, 3).join(", ")}`)
    }
    if (has("purity")) {
      const d = JSON.stringify(before) === JSON.stringify(cloneBatch(batch))
      if (!d) fail("purity", `the ${label} input batch was modified by the call`)
    }
    if (has("determinism")) {
      const again = run("determinism", cloneBatch(before))
      if (again !== undefined) {
        const a = flat(r)
        const b = flat(again)
        const k = a.findIndex((x, j) => !Object.is(x, b[j]))
        if (k >= 0 || a.length !== b.length) fail("determinism", `${label} batch twice gave ${a[k]} then ${b[k]} at flat index ${k}`)
      }
    }
  }

  // invalid input → AdvantageInputError
  if (has("invalidInput")) {
    const t = (rewards: Array<number>, extra: Partial<StepSignals.SignalTrajectory> = {}): Advantages.TrajectoryInput => ({
      rewards,
      stateKeys: rewards.map((_, i) => `k${i}`),
      values: rewards.map(() => 0),
      ...Object.fromEntries(signals.map((k) => [k, signalValues(k, rewards.length, () => 0.5)])),
      ...extra
    })
    const cases: Array<[string, ReadonlyArray<Advantages.Group>, Advantages.Options]> = [
      ["empty batch", [], o],
      ["empty group", [[t([1])], []], o],
      ["empty trajectory", [[t([1]), t([])]], o],
      ["NaN reward", [[t([1, NaN]), t([0, 1])]], o],
      ["infinite reward", [[t([Infinity]), t([0])]], o],
      ["stateKeys of the wrong length", [[t([1, 0], { stateKeys: ["a"] }), t([0, 1])]], o],
      ["gamma = 1.5", [[t([1]), t([0])]], { ...o, gamma: 1.5 }],
      ["gamma = NaN", [[t([1]), t([0])]], { ...o, gamma: NaN }],
      ["lambda = -0.1", [[t([1]), t([0])]], { ...o, lambda: -0.1 }],
      ["eps = -1", [[t([1]), t([0])]], { ...o, eps: -1 }],
      ["omega = NaN", [[t([1]), t([0])]], { ...o, omega: NaN }]
    ]
    if (needs.stateKeys === true) cases.push(["missing stateKeys", [[t([1]), { rewards: [0] }]], o])
    if (needs.values === true) {
      cases.push(
        ["missing values", [[t([1]), { rewards: [0] }]], o],
        ["values of the wrong length", [[t([1, 0], { values: [0] }), t([0, 1])]], o],
        ["NaN value", [[t([1, 0], { values: [0, NaN] }), t([0, 1])]], o]
      )
    }
    for (const k of signals) {
      const without = Object.fromEntries(Object.entries(t([0])).filter(([key]) => key !== k)) as unknown as Advantages.TrajectoryInput
      cases.push(
        [`missing ${k}`, [[t([1]), without]], o],
        [`${k} of the wrong length`, [[t([1, 0], { [k]: [0] }), t([0, 1])]], o],
        [`NaN ${k}`, [[t([1, 0], { [k]: [0, NaN] }), t([0, 1])]], o]
      )
    }
    for (const [what, batch, opts] of cases) {
      calls++
      try {
        const r = estimator(batch, opts)
        fail("invalidInput", `${what} returned ${show(flat(Array.isArray(r) ? r : []))} instead of throwing AdvantageInputError`)
      } catch (e) {
        if (!(e instanceof Advantages.AdvantageInputError)) fail("invalidInput", `${what} threw ${show(e)} instead of AdvantageInputError`)
      }
    }
  }

  // family properties, on the batches whose shape was right
  const rr = base.get(ragged)
  const re = base.get(even)
  if (rr !== undefined) {
    if (has("batchIndependence")) {
      ragged.forEach((g, gi) => {
        const alone = run("batchIndependence", [g])
        const d = alone && differ([rr[gi]!], alone)
        if (d !== undefined) fail("batchIndependence", `group ${gi} alone differs from group ${gi} in the batch at ${d}`)
      })
    }
    if (has("trajectoryIndependence")) {
      ragged.forEach((g, gi) =>
        g.forEach((tr, i) => {
          const alone = run("trajectoryIndependence", [[tr]])
          const d = alone && differ([[rr[gi]![i]!]], alone)
          if (d !== undefined) fail("trajectoryIndependence", `trajectory [${gi}][${i}] alone differs at ${d}`)
        })
      )
    }
    if (has("perTrajectoryConstant")) {
      rr.forEach((g, gi) =>
        g.forEach((a, i) => {
          if (a.some((x) => !close(x, a[0]!))) fail("perTrajectoryConstant", `result[${gi}][${i}] varies across steps: ${show(a)}`)
        })
      )
    }
    if (has("singletonZero")) {
      ragged.forEach((g, gi) => {
        if (g.length === 1 && rr[gi]![0]!.some((x) => x !== 0)) fail("singletonZero", `one-member group ${gi} got ${show(rr[gi]![0]!)}`)
      })
    }
    if (has("groupZeroSum")) {
      rr.forEach((g, gi) => {
        const sum = g.reduce((s, a) => s + a[0]!, 0)
        const scale = g.reduce((s, a) => s + Math.abs(a[0]!), 0)
        if (Math.abs(sum) > tol * Math.max(1, scale)) fail("groupZeroSum", `group ${gi}'s advantages sum to ${sum}`)
      })
    }
    const scaled = (batchWide: boolean, invariant: boolean, p: Property) => {
      const o0 = { ...o, eps: 0 }
      const ref = run(p, ragged, o0)
      for (const c of [2, 0.25]) {
        const r = run(p, mapRewards(ragged, (x) => x * c), o0)
        const d = ref && r && differ(ref, r, invariant ? (x) => x : (x) => x * c)
        if (d !== undefined) {
          fail(p, `scaling every reward${batchWide ? " of the batch" : ""} by ${c} ${invariant ? "changed" : "did not scale"} the advantages (ε = 0) at ${d}`)
        }
      }
    }
    if (has("groupScaleInvariance")) scaled(false, true, "groupScaleInvariance")
    if (has("groupScaleEquivariance")) scaled(false, false, "groupScaleEquivariance")
    if (has("batchScaleInvariance")) scaled(true, true, "batchScaleInvariance")
    if (has("batchZeroMean")) {
      const all = flat(rr)
      const mean = all.reduce((s, x) => s + x, 0) / all.length
      if (!close(mean, 0)) fail("batchZeroMean", `the advantages' mean over the batch's ${all.length} steps is ${mean}`)
    }
    const returnsOf = (rewards: ArrayLike<number>, gamma: number) =>
      Array.from(rewards, (_, t) => {
        let s = 0
        for (let k = t; k < rewards.length; k++) s += gamma ** (k - t) * rewards[k]!
        return s
      })
    if (has("discountedReturn")) {
      const zeroed = cloneBatch(ragged).map((g) => g.map((t) => ({ ...t, values: Array.from(t.rewards, () => 0), bootstrapValue: 0 })))
      const r = run("discountedReturn", zeroed, { ...o, lambda: 1 })
      const expected = zeroed.map((g) => g.map((t) => Float64Array.from(returnsOf(t.rewards, o.gamma))))
      const d = r && differ(expected, r)
      if (d !== undefined) fail("discountedReturn", `with λ = 1 and zero values the advantage is not Σ γ^k r_{t+k} (expected vs got) at ${d}`)
    }
    if (has("tdError")) {
      const r = run("tdError", ragged, { ...o, lambda: 0 })
      const expected = ragged.map((g) =>
        g.map((t) =>
          Float64Array.from(t.rewards, (rw, s) => {
            const v = t.values ?? []
            const next = s + 1 < t.rewards.length ? v[s + 1]! : t.bootstrapValue ?? 0
            return rw + o.gamma * next - (v[s] ?? 0)
          })
        )
      )
      const d = r && differ(expected, r)
      if (d !== undefined) fail("tdError", `with λ = 0 the advantage is not r_t + γ V(s_{t+1}) − V(s_t) (expected vs got) at ${d}`)
    }
  }
  if (re !== undefined && has("groupShiftInvariance")) {
    even.forEach((_, gi) => {
      const r = run("groupShiftInvariance", mapRewards(even, (x) => x + 3.5, gi))
      const d = r && differ(re, r)
      if (d !== undefined) fail("groupShiftInvariance", `adding 3.5 to every reward of group ${gi} changed the advantages at ${d}`)
    })
  }

  if (findings.length > 0) throw new EstimatorCheckError({ estimator: name, findings })
  return { estimator: name, family, properties, calls }
}

/**
 * {@link checkEstimator} on the estimator registered under `name`, with its registered family and needs
 * ({@link Advantages.traits}) and its declared per-step signals ({@link StepSignals.needsOf}); `options` override them.
 */
export const checkRegistered = (name: string, options: CheckEstimatorOptions = {}): EstimatorCheckReport =>
  checkEstimator(Advantages.get(name), { name, ...Advantages.traits(name), signals: StepSignals.needsOf(name), ...options })

/** {@link checkEstimator} as an Effect: fails with {@link EstimatorCheckError}, succeeds with the report. */
export const check = (
  estimator: Advantages.Estimator,
  options: CheckEstimatorOptions = {}
): Effect.Effect<EstimatorCheckReport, EstimatorCheckError> =>
  Effect.try({
    try: () => checkEstimator(estimator, options),
    catch: (e) => e instanceof EstimatorCheckError ? e : new EstimatorCheckError({ estimator: options.name ?? "estimator", findings: [`check: ${String(e)}`] })
  })

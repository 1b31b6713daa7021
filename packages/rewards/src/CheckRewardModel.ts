/**
 * A conformance check for reward models ({@link RewardModel.RewardModelShape}, or a plain {@link RewardModel.Scorer}),
 * in the spirit of Gymnasium's `check_env`: one call tells a contributor whether a new model keeps the contract of
 * `RewardModel` (see `RewardModel.make`, which every built-in goes through). Candidates are generated (prompt,
 * response, task, 1–3 steps with state, action and history, and feature vectors of `features.dim` when given), or
 * taken from `options.candidates`.
 *
 * **Checks** (each finding is `<property>: <what was wrong, with the value>`)
 * - `outcomeScores`: `scoreOutcome(batch)` gives one finite number per candidate, within `range` when declared.
 * - `stepScores`: `scoreSteps(batch)` gives, per candidate, one finite number per step, within `range`.
 * - `batchConsistency`: scoring a batch equals scoring each candidate alone, within `tolerance` (relative,
 *   `|a − b| ≤ tol · max(1, |a|, |b|)`), for both faces.
 * - `determinism`: the same batch scored twice gives identical scores.
 * - `emptyBatch`: `[]` fails with `EmptyBatchError` on both faces, as does a candidate with no steps in `scoreSteps`.
 * - `unsupported`: a face the model declares it lacks (`outcome: false` / `steps: false`) fails with
 *   `InputMismatchError`.
 * - `invalidInput` (with `features`): a feature vector of the wrong width fails with `InputMismatchError`, a NaN
 *   feature with `NonFiniteInputError`.
 * Every expected failure must be that typed error (`_tag`), not another error, a defect (a throw) or a result.
 *
 * Bradley-Terry preference probabilities are derived from scores (`Calibration.pairProbabilities`, `σ(r_c − r_r)`),
 * not a method of the contract, so finite scores are all they need.
 *
 * @example
 * ```ts
 * import { CheckRewardModel, RewardModel } from "@autodidact/rewards"
 * const exact = RewardModel.rules("exact", { outcome: (c) => (c.response === "42" ? 1 : 0), step: () => 0 })
 * await CheckRewardModel.checkRewardModel(exact, { range: [0, 1] }) // throws RewardModelCheckError on failure
 * ```
 * @see https://github.com/Farama-Foundation/Gymnasium/blob/v1.4.0/gymnasium/utils/env_checker.py
 * @since 0.2.0
 */
import { Cause, Effect, Exit, Option, Schema } from "effect"
import type { Candidate, RewardModelShape, Scorer, StepView } from "./RewardModel.js"

/** A property {@link checkRewardModel} asserts (see the module docs). */
export type Property = "outcomeScores" | "stepScores" | "batchConsistency" | "determinism" | "emptyBatch" | "unsupported" | "invalidInput"

/**
 * The model breaks the contract; `findings` lists every problem (`<property>: <what, with the value>`).
 * @category errors
 */
export class RewardModelCheckError extends Schema.TaggedError<RewardModelCheckError>()("RewardModelCheckError", {
  model: Schema.String,
  findings: Schema.Array(Schema.String)
}) {
  override get message() {
    return `${this.model} failed the reward-model check:\n${this.findings.map((f) => `  - ${f}`).join("\n")}`
  }
}

/** Options of {@link checkRewardModel}. */
export interface CheckRewardModelOptions {
  /** Whether the model implements `scoreOutcome` (default true); false: it must fail with `InputMismatchError`. */
  readonly outcome?: boolean | undefined
  /** Whether the model implements `scoreSteps` (default true); false: it must fail with `InputMismatchError`. */
  readonly steps?: boolean | undefined
  /**
   * The model reads feature vectors of width `dim`: generated candidates carry them, and wrong-width and NaN
   * features must be rejected on the faces that read them (`outcome`, `steps`: default true each).
   */
  readonly features?: { readonly dim: number; readonly outcome?: boolean | undefined; readonly steps?: boolean | undefined } | undefined
  /** The documented score range `[min, max]` (inclusive), e.g. `[0, 1]` for `LlmJudge`. Default: any finite number. */
  readonly range?: readonly [number, number] | undefined
  /** Valid candidates to score instead of the generated ones (each with at least one step when `steps`). */
  readonly candidates?: ReadonlyArray<Candidate> | undefined
  /** Relative tolerance of `batchConsistency`. Default 1e-5 (float32 models). */
  readonly tolerance?: number | undefined
  /** Properties not to assert. */
  readonly skip?: ReadonlyArray<Property> | undefined
}

/** What {@link checkRewardModel} checked. */
export interface RewardModelCheckReport {
  readonly model: string
  /** The properties asserted, in order. */
  readonly properties: ReadonlyArray<Property>
  /** Candidates scored in the batch checks. */
  readonly candidates: number
  /** Calls of `scoreOutcome` / `scoreSteps` made. */
  readonly calls: number
}

/** Generated candidates: `n` of them, with text, a task, 1–3 steps and (with `dim`) features. */
export const candidates = (n: number, dim?: number): Array<Candidate> => {
  const vec = (seed: number) => (dim === undefined ? undefined : Array.from({ length: dim }, (_, j) => Math.round(Math.sin(seed * 12.9898 + j * 78.233) * 1000) / 1000))
  return Array.from({ length: n }, (_, i) => {
    const a = i + 2, b = 3 * i + 1
    const steps: Array<StepView> = Array.from({ length: 1 + (i % 3) }, (_, t) => ({
      state: `task ${i}: compute ${a}+${b}; step ${t}`,
      action: t % 2 === 0 ? `think ${a}` : `answer ${a + b + (i % 2)}`,
      history: Array.from({ length: t }, (_, k) => `act ${k}`),
      ...(dim === undefined ? {} : { features: vec(100 * i + t + 1)! })
    }))
    return {
      prompt: `What is ${a}+${b}?`,
      response: String(a + b + (i % 2)),
      task: `task ${i}`,
      steps,
      ...(dim === undefined ? {} : { features: vec(i + 1)! })
    }
  })
}

type Outcome<A> = { readonly ok: true; readonly value: A } | { readonly ok: false; readonly error: unknown; readonly defect: boolean }

const attempt = <A>(thunk: () => Effect.Effect<A, unknown>): Effect.Effect<Outcome<A>> =>
  Effect.map(Effect.exit(Effect.suspend(thunk)), (exit): Outcome<A> => {
    if (Exit.isSuccess(exit)) return { ok: true, value: exit.value }
    const e = Cause.findErrorOption(exit.cause)
    return Option.isSome(e) ? { ok: false, error: e.value, defect: false } : { ok: false, error: Cause.squash(exit.cause), defect: true }
  })

const show = (x: unknown): string => {
  const s = x instanceof Error ? `${(x as { _tag?: string })._tag ?? x.name}: ${x.message.split("\n")[0]}` : JSON.stringify(x) ?? String(x)
  return s.length > 160 ? `${s.slice(0, 157)}...` : s
}
const tagOf = (e: unknown): string | undefined =>
  e !== null && typeof e === "object" && "_tag" in e && typeof (e as { _tag: unknown })._tag === "string" ? (e as { _tag: string })._tag : undefined

/**
 * {@link checkRewardModel} as an Effect: fails with {@link RewardModelCheckError} listing every finding, succeeds
 * with the report.
 */
export const check = (
  model: RewardModelShape | Scorer,
  options: CheckRewardModelOptions = {}
): Effect.Effect<RewardModelCheckReport, RewardModelCheckError> =>
  Effect.gen(function* () {
    const rm: RewardModelShape = "model" in model ? model.model : model
    const name = rm.name
    const hasOutcome = options.outcome ?? true
    const hasSteps = options.steps ?? true
    const tol = options.tolerance ?? 1e-5
    const skip = new Set(options.skip ?? [])
    const properties = (["outcomeScores", "stepScores", "batchConsistency", "determinism", "emptyBatch", "unsupported", "invalidInput"] as const)
      .filter((p) => !skip.has(p))
      .filter((p) => p !== "outcomeScores" || hasOutcome)
      .filter((p) => p !== "stepScores" || hasSteps)
      .filter((p) => p !== "unsupported" || !hasOutcome || !hasSteps)
      .filter((p) => p !== "invalidInput" || options.features !== undefined)
    const has = (p: Property) => properties.includes(p)
    const findings: Array<string> = []
    const fail = (p: Property, what: string) => findings.push(`${p}: ${what}`)
    let calls = 0
    const outcome = (batch: ReadonlyArray<Candidate>) => attempt(() => (calls++, rm.scoreOutcome(batch)))
    const steps = (batch: ReadonlyArray<Candidate>) => attempt(() => (calls++, rm.scoreSteps(batch)))
    const batch = options.candidates ?? candidates(5, options.features?.dim)
    const [min, max] = options.range ?? [-Infinity, Infinity]
    const bad = (v: unknown) => typeof v !== "number" || !Number.isFinite(v) || v < min || v > max
    const what = options.range === undefined ? "finite" : `finite and in [${min}, ${max}]`
    const close = (a: number, b: number) => Math.abs(a - b) <= tol * Math.max(1, Math.abs(a), Math.abs(b))
    /** `expected` must be the typed error tag of `o`. */
    const expectError = (p: Property, label: string, o: Outcome<unknown>, expected: string) => {
      if (o.ok) fail(p, `${label} returned ${show(o.value)} instead of failing with ${expected}`)
      else if (o.defect) fail(p, `${label} died with ${show(o.error)} instead of failing with ${expected}`)
      else if (tagOf(o.error) !== expected) fail(p, `${label} failed with ${show(o.error)} instead of ${expected}`)
    }

    if (hasOutcome && (has("outcomeScores") || has("batchConsistency") || has("determinism"))) {
      const first = yield* outcome(batch)
      if (!first.ok) fail("outcomeScores", `scoreOutcome on ${batch.length} valid candidates failed: ${show(first.error)}`)
      else {
        const s: unknown = first.value
        if (!Array.isArray(s) || s.length !== batch.length) {
          fail("outcomeScores", `scoreOutcome gave ${show(s)} for ${batch.length} candidates`)
        } else {
          const i = s.findIndex(bad)
          if (i >= 0 && has("outcomeScores")) fail("outcomeScores", `score ${i} is ${s[i]}, not ${what}`)
          if (has("determinism")) {
            const again = yield* outcome(batch)
            const j = again.ok ? s.findIndex((x, k) => !Object.is(x, again.value[k])) : 0
            if (j >= 0) fail("determinism", `scoreOutcome twice: item ${j} gave ${s[j]} then ${again.ok ? again.value[j] : show(again.error)}`)
          }
          if (has("batchConsistency")) {
            for (let k = 0; k < batch.length; k++) {
              const alone = yield* outcome([batch[k]!])
              if (!alone.ok) fail("batchConsistency", `scoreOutcome of candidate ${k} alone failed: ${show(alone.error)}`)
              else if (!close(alone.value[0]!, s[k] as number)) fail("batchConsistency", `candidate ${k} scores ${alone.value[0]} alone but ${s[k]} in the batch`)
            }
          }
        }
      }
    }

    if (hasSteps && (has("stepScores") || has("batchConsistency") || has("determinism"))) {
      const first = yield* steps(batch)
      if (!first.ok) fail("stepScores", `scoreSteps on ${batch.length} valid candidates failed: ${show(first.error)}`)
      else {
        const s: unknown = first.value
        const shapeOk = Array.isArray(s) && s.length === batch.length &&
          s.every((r, k) => Array.isArray(r) && r.length === (batch[k]!.steps?.length ?? 0))
        if (!shapeOk) fail("stepScores", `scoreSteps gave ${show(s)} for step counts ${show(batch.map((c) => c.steps?.length ?? 0))}`)
        else {
          const rows = s as Array<Array<number>>
          if (has("stepScores")) {
            rows.forEach((r, k) => {
              const t = r.findIndex(bad)
              if (t >= 0) fail("stepScores", `candidate ${k} step ${t} scores ${r[t]}, not ${what}`)
            })
          }
          if (has("determinism")) {
            const again = yield* steps(batch)
            const a = rows.flat()
            const b = again.ok ? again.value.flat() : []
            const j = a.findIndex((x, k) => !Object.is(x, b[k]))
            if (j >= 0) fail("determinism", `scoreSteps twice: flat step ${j} gave ${a[j]} then ${again.ok ? b[j] : show(again.error)}`)
          }
          if (has("batchConsistency")) {
            for (let k = 0; k < batch.length; k++) {
              const alone = yield* steps([batch[k]!])
              if (!alone.ok) fail("batchConsistency", `scoreSteps of candidate ${k} alone failed: ${show(alone.error)}`)
              else {
                const t = rows[k]!.findIndex((x, u) => !close(x, alone.value[0]?.[u] ?? NaN))
                if (t >= 0) fail("batchConsistency", `candidate ${k} step ${t} scores ${alone.value[0]?.[t]} alone but ${rows[k]![t]} in the batch`)
              }
            }
          }
        }
      }
    }

    if (has("emptyBatch")) {
      if (hasOutcome) expectError("emptyBatch", "scoreOutcome([])", yield* outcome([]), "EmptyBatchError")
      if (hasSteps) {
        expectError("emptyBatch", "scoreSteps([])", yield* steps([]), "EmptyBatchError")
        expectError("emptyBatch", "scoreSteps of a candidate with no steps", yield* steps([batch[0]!, { ...batch[0]!, steps: [] }]), "EmptyBatchError")
      }
    }
    if (has("unsupported")) {
      if (!hasOutcome) expectError("unsupported", "scoreOutcome (declared unsupported)", yield* outcome(batch), "InputMismatchError")
      if (!hasSteps) expectError("unsupported", "scoreSteps (declared unsupported)", yield* steps(batch), "InputMismatchError")
    }
    const f = options.features
    if (has("invalidInput") && f !== undefined) {
      const c0 = batch[0]!
      const wide = Array.from({ length: f.dim + 1 }, () => 0.5)
      const nan = Array.from({ length: f.dim }, (_, j) => (j === f.dim - 1 ? NaN : 0.5))
      if (hasOutcome && f.outcome !== false) {
        expectError("invalidInput", `scoreOutcome with ${f.dim + 1} features`, yield* outcome([c0, { ...c0, features: wide }]), "InputMismatchError")
        expectError("invalidInput", "scoreOutcome with a NaN feature", yield* outcome([c0, { ...c0, features: nan }]), "NonFiniteInputError")
      }
      if (hasSteps && f.steps !== false) {
        const step0 = c0.steps![0]!
        expectError("invalidInput", `scoreSteps with ${f.dim + 1} step features`, yield* steps([c0, { ...c0, steps: [{ ...step0, features: wide }] }]), "InputMismatchError")
        expectError("invalidInput", "scoreSteps with a NaN step feature", yield* steps([c0, { ...c0, steps: [{ ...step0, features: nan }] }]), "NonFiniteInputError")
      }
    }

    if (findings.length > 0) return yield* Effect.fail(new RewardModelCheckError({ model: name, findings }))
    return { model: name, properties, candidates: batch.length, calls }
  })

/**
 * Run the checks on `model` (its Effect face, or a plain {@link Scorer}); resolves with what was checked.
 * Rejects with {@link RewardModelCheckError} listing every failure.
 */
export const checkRewardModel = (model: RewardModelShape | Scorer, options: CheckRewardModelOptions = {}): Promise<RewardModelCheckReport> =>
  Effect.runPromise(check(model, options))

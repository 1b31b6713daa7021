/**
 * The reward-model service: outcome rewards (one score per trajectory or prompt/response) and process rewards (one
 * score per step), batched, as one interface over rules/verifiers, ONNX models, TF.js models and ensembles.
 *
 * **When to use**
 * Read `RewardModel` from the context wherever rewards are needed (search, shaping, trainers); provide one of the
 * layers at the edge: {@link layer} for any {@link RewardModelShape}, `OnnxRewardModel.layerFeature` /
 * `layerText` for ONNX models (scoped: the session is released with the layer), {@link rules} for verifier
 * functions, {@link ensemble} for weighted or gated hybrids (R2E-Gym).
 *
 * **Details**
 * - A {@link Candidate} carries whatever a model reads: `prompt`/`response` text, a `features` vector, and/or the
 *   episode's `steps` (`state` text, `action`, optional step `features`).
 * - `scoreOutcome(batch)` returns one finite number per candidate; `scoreSteps(batch)` one finite number per step.
 * - Every implementation built by {@link make} fails with `EmptyBatchError` for an empty batch (or an episode with no
 *   steps in `scoreSteps`) and `NonFiniteScoreError` for NaN/±Infinity, naming the item (and step).
 * - An LLM judge over an OpenAI-compatible endpoint is `LlmJudge.make` / `LlmJudge.layer` (a {@link RewardModelShape} like any other).
 *
 * @example
 * ```ts
 * import { RewardModel } from "@autodidact/rewards"
 * import { Effect } from "effect"
 * const exact = RewardModel.rules("exact-match", { outcome: (c) => (c.response === "42" ? 1 : 0) })
 * const scores = Effect.runSync(exact.scoreOutcome([{ prompt: "6*7?", response: "42" }])) // [1]
 * ```
 * @see Pan et al., "Training Software Engineering Agents and Verifiers with SWE-Gym" / Jain et al., "R2E-Gym" (hybrid verifiers)
 * @since 0.1.0
 */
import { Context, Effect, Layer } from "effect"
import { EmptyBatchError, InputMismatchError, NonFiniteScoreError } from "./RewardError.js"
import type { NonFiniteInputError } from "./RewardError.js"
import { checkFinite } from "./internal/inputs.js"
import type { ScoreError } from "./RewardError.js"

/** One step of an episode as reward models see it. */
export interface StepView {
  /** The state text the action was taken in (observation, possibly with task/history). */
  readonly state: string
  readonly action: string
  /** The actions taken before this step, oldest first (when the caller knows them). */
  readonly history?: ReadonlyArray<string> | undefined
  /** Precomputed step features, for feature models. */
  readonly features?: ArrayLike<number> | undefined
}

/** What is scored: a prompt/response pair, a feature vector, an episode's steps, or several of these. */
export interface Candidate {
  readonly prompt?: string | undefined
  readonly response?: string | undefined
  readonly features?: ArrayLike<number> | undefined
  readonly task?: string | undefined
  readonly steps?: ReadonlyArray<StepView> | undefined
}

/** The service. */
export interface RewardModelShape {
  readonly name: string
  /** One score per candidate. */
  scoreOutcome(batch: ReadonlyArray<Candidate>): Effect.Effect<Array<number>, ScoreError>
  /** One score per step of each candidate. */
  scoreSteps(batch: ReadonlyArray<Candidate>): Effect.Effect<Array<Array<number>>, ScoreError>
}

/**
 * The reward model in the context: `scoreOutcome(batch)` → one score per candidate, `scoreSteps(batch)` → one score
 * per step of each candidate (the contract every implementation follows: rules, ONNX, TF.js, LLM judge, ensembles).
 * Build it with {@link layer} (scoped models such as ONNX sessions are released with the layer).
 * @category services
 */
export class RewardModel extends Context.Service<RewardModel, RewardModelShape>()("@autodidact/rewards/RewardModel") {}

/**
 * The {@link RewardModel} service from an effect that builds a model; scoped resources acquired by `build` (an ONNX
 * session, an HTTP client) are released when the layer's scope closes. Fails to build with `build`'s error `E`.
 * @category layers
 */
export const layer = <E, R>(build: Effect.Effect<RewardModelShape, E, R>) => Layer.effect(RewardModel, build)

/** Raw scorers of {@link make} (no validation needed: {@link make} adds it). */
export interface Scorers {
  readonly outcome?: ((batch: ReadonlyArray<Candidate>) => Effect.Effect<ArrayLike<number>, ScoreError>) | undefined
  /** Scores the flattened steps of the whole batch at once (`flat[i]` belongs to `owner[i]`). */
  readonly steps?: ((flat: ReadonlyArray<StepView>, owner: ReadonlyArray<Candidate>) => Effect.Effect<ArrayLike<number>, ScoreError>) | undefined
}

const unsupported = (model: string, what: string) =>
  new InputMismatchError({ model, input: what, expected: `a model that implements ${what}`, actual: "not implemented by this model" })

const finite = (model: string, scores: ArrayLike<number>, n: number, owners?: ReadonlyArray<readonly [number, number]>): Effect.Effect<Array<number>, ScoreError> => {
  if (scores.length !== n) {
    return Effect.fail(new InputMismatchError({ model, input: "scores", expected: `${n} scores`, actual: `${scores.length}` }))
  }
  const out = new Array<number>(n)
  for (let i = 0; i < n; i++) {
    const v = scores[i]!
    if (!Number.isFinite(v)) {
      const o = owners?.[i]
      return Effect.fail(new NonFiniteScoreError(o === undefined ? { model, index: i, value: String(v) } : { model, index: o[0], step: o[1], value: String(v) }))
    }
    out[i] = v
  }
  return Effect.succeed(out)
}

/**
 * A model from raw scorers, with the batch checks every implementation shares: an empty batch (or a candidate with
 * no steps in `scoreSteps`) is `EmptyBatchError`; a missing scorer is `InputMismatchError` ("not implemented by this
 * model"); a scorer returning another count than asked is `InputMismatchError`; a NaN/±Infinity score is
 * `NonFiniteScoreError` naming the item (and step). `scoreSteps` calls the step scorer once on the flattened steps
 * of the whole batch and splits the result back per candidate.
 * @category constructors
 */
export const make = (name: string, scorers: Scorers): RewardModelShape => ({
  name,
  scoreOutcome: (batch) => {
    if (batch.length === 0) return Effect.fail(new EmptyBatchError({ model: name, operation: "scoreOutcome" }))
    if (scorers.outcome === undefined) return Effect.fail(unsupported(name, "scoreOutcome"))
    return Effect.flatMap(scorers.outcome(batch), (s) => finite(name, s, batch.length))
  },
  scoreSteps: (batch) => {
    if (batch.length === 0) return Effect.fail(new EmptyBatchError({ model: name, operation: "scoreSteps" }))
    if (scorers.steps === undefined) return Effect.fail(unsupported(name, "scoreSteps"))
    const flat: Array<StepView> = []
    const owner: Array<Candidate> = []
    const where: Array<readonly [number, number]> = []
    for (let i = 0; i < batch.length; i++) {
      const steps = batch[i]!.steps ?? []
      if (steps.length === 0) return Effect.fail(new EmptyBatchError({ model: name, operation: `scoreSteps (item ${i} has no steps)` }))
      for (let t = 0; t < steps.length; t++) {
        flat.push(steps[t]!)
        owner.push(batch[i]!)
        where.push([i, t])
      }
    }
    return scorers.steps(flat, owner).pipe(
      Effect.flatMap((s) => finite(name, s, flat.length, where)),
      Effect.map((s) => {
        const out: Array<Array<number>> = []
        let k = 0
        for (const c of batch) {
          const n = c.steps!.length
          out.push(s.slice(k, k + n))
          k += n
        }
        return out
      })
    )
  }
})

/**
 * Rule/verifier functions as a reward model (exact match, unit tests passed, a task-success check, ...): `outcome`
 * scores one candidate, `step` one step of a candidate; synchronous, with the checks of {@link make} (a thrown
 * exception is a defect, not a typed failure).
 * @category constructors
 */
export const rules = (
  name: string,
  fns: {
    readonly outcome?: ((c: Candidate) => number) | undefined
    readonly step?: ((s: StepView, c: Candidate) => number) | undefined
  }
): RewardModelShape =>
  make(name, {
    outcome: fns.outcome === undefined ? undefined : (batch) => Effect.sync(() => batch.map(fns.outcome!)),
    steps: fns.step === undefined ? undefined : (flat, owner) => Effect.sync(() => flat.map((s, i) => fns.step!(s, owner[i]!)))
  })

/**
 * A model over feature vectors (`scoreRows` scores a row-major `[n, dim]` matrix), with featurizers for outcomes and
 * steps (default: the candidate's / step's `features`). Rows of the wrong length fail with `InputMismatchError`, a
 * NaN/±Infinity feature with `NonFiniteInputError` naming the row (the item, or the flattened step) and column.
 * @category constructors
 */
export const fromFeatures = (
  name: string,
  dim: number,
  scoreRows: (rows: Float32Array, n: number) => Effect.Effect<ArrayLike<number>, ScoreError>,
  featurize: {
    readonly outcome?: ((c: Candidate) => ArrayLike<number> | undefined) | undefined
    readonly step?: ((s: StepView, c: Candidate) => ArrayLike<number> | undefined) | undefined
  } = {}
): RewardModelShape => {
  const pack = (vectors: ReadonlyArray<ArrayLike<number> | undefined>, what: string): Effect.Effect<Float32Array, InputMismatchError | NonFiniteInputError> => {
    const rows = new Float32Array(vectors.length * dim)
    for (let i = 0; i < vectors.length; i++) {
      const v = vectors[i]
      if (v === undefined || v.length !== dim) {
        return Effect.fail(new InputMismatchError({ model: name, input: `${what} ${i} features`, expected: `a vector of length ${dim}`, actual: v === undefined ? "no features" : `length ${v.length}` }))
      }
      for (let j = 0; j < dim; j++) rows[i * dim + j] = v[j]!
    }
    const bad = checkFinite(name, `${what} features`, rows, dim)
    return bad === undefined ? Effect.succeed(rows) : Effect.fail(bad)
  }
  const fo = featurize.outcome ?? ((c: Candidate) => c.features)
  const fs = featurize.step ?? ((s: StepView) => s.features)
  return make(name, {
    outcome: (batch) => Effect.flatMap(pack(batch.map(fo), "item"), (rows) => scoreRows(rows, batch.length)),
    steps: (flat, owner) => Effect.flatMap(pack(flat.map((s, i) => fs(s, owner[i]!)), "step"), (rows) => scoreRows(rows, flat.length))
  })
}

/**
 * A model over texts (`scoreTexts`), rendering outcomes as `prompt + "\n" + response` and steps as
 * `state + "\n" + action` unless told otherwise.
 * @category constructors
 */
export const fromTexts = (
  name: string,
  scoreTexts: (texts: ReadonlyArray<string>) => Effect.Effect<ArrayLike<number>, ScoreError>,
  render: {
    readonly outcome?: ((c: Candidate) => string) | undefined
    readonly step?: ((s: StepView, c: Candidate) => string) | undefined
  } = {}
): RewardModelShape => {
  const ro = render.outcome ?? ((c: Candidate) => `${c.prompt ?? ""}\n${c.response ?? ""}`)
  const rs = render.step ?? ((s: StepView) => `${s.state}\n${s.action}`)
  return make(name, {
    outcome: (batch) => scoreTexts(batch.map(ro)),
    steps: (flat, owner) => scoreTexts(flat.map((s, i) => rs(s, owner[i]!)))
  })
}

/** How {@link ensemble} combines members. */
export type EnsembleMode =
  | { readonly _tag: "weighted"; readonly weights: ReadonlyArray<number> }
  | {
    /** R2E-Gym's hybrid: a gate (e.g. an execution-based verifier) must pass before the others' weighted score counts. */
    readonly _tag: "gated"
    /** Index of the gate member. */
    readonly gate: number
    /** Gate score at or above which a candidate passes. */
    readonly threshold: number
    /** Weights of all members (the gate's included; 0 to leave it out of the blend). */
    readonly weights: ReadonlyArray<number>
    /** The score of a candidate that fails the gate (default -1). */
    readonly rejected?: number | undefined
  }

/**
 * An ensemble: a weighted sum of members' scores, or gated (a gate member must reach `threshold`, as R2E-Gym's
 * hybrid of execution-based and execution-free verifiers), per candidate and per step.
 * @category constructors
 */
export const ensemble = (name: string, members: ReadonlyArray<RewardModelShape>, mode: EnsembleMode): RewardModelShape => {
  const combine = (cols: ReadonlyArray<ReadonlyArray<number>>): Array<number> => {
    const n = cols[0]!.length
    const out = new Array<number>(n)
    for (let i = 0; i < n; i++) {
      let s = 0
      for (let m = 0; m < cols.length; m++) s += mode.weights[m]! * cols[m]![i]!
      out[i] = mode._tag === "gated" && cols[mode.gate]![i]! < mode.threshold ? (mode.rejected ?? -1) : s
    }
    return out
  }
  return make(name, {
    outcome: (batch) => Effect.map(Effect.forEach(members, (m) => m.scoreOutcome(batch)), combine),
    steps: (flat, owner) =>
      Effect.map(
        Effect.forEach(members, (m) => Effect.map(m.scoreSteps(flat.map((s, i) => ({ ...owner[i]!, steps: [s] }))), (r) => r.map((x) => x[0]!))),
        combine
      )
  })
}

/**
 * The plain (Promise) face of a reward model, for code that does not run Effect programs: `score(batch)` → one score
 * per candidate, `scoreSteps(batch)` → one score per step of each candidate, `close()` releases what the model holds
 * (an ONNX session; nothing for rules). Rejections are the same tagged errors as the Effect face
 * (`EmptyBatchError`, `InputMismatchError`, `NonFiniteScoreError`, ...; `instanceof` and `_tag` work).
 * @category plain
 * @since 0.2.0
 */
export interface Scorer {
  readonly name: string
  /** The model's Effect face (for `Search`, `ensemble`, or a `RewardModel` layer). */
  readonly model: RewardModelShape
  score(batch: ReadonlyArray<Candidate>): Promise<Array<number>>
  scoreSteps(batch: ReadonlyArray<Candidate>): Promise<Array<Array<number>>>
  /** Release the model's resources; idempotent. Scoring after `close()` fails (for ONNX models with `InferenceError`). */
  close(): Promise<void>
}

/**
 * A {@link Scorer} over a model (`close` defaults to doing nothing); a thin shell: every call runs the model's own
 * `scoreOutcome` / `scoreSteps`.
 * @category plain
 * @since 0.2.0
 */
export const toScorer = (model: RewardModelShape, close: () => Promise<void> = () => Promise.resolve()): Scorer => {
  let closed: Promise<void> | undefined
  return {
    name: model.name,
    model,
    score: (batch) => Effect.runPromise(model.scoreOutcome(batch)),
    scoreSteps: (batch) => Effect.runPromise(model.scoreSteps(batch)),
    close: () => (closed ??= close())
  }
}

/**
 * Rule/verifier functions as a {@link Scorer} (see {@link rules}).
 * @category plain
 * @since 0.2.0
 */
export const createRules = (name: string, fns: Parameters<typeof rules>[1]): Scorer => toScorer(rules(name, fns))

/**
 * An ensemble of scorers or models as a {@link Scorer} (see {@link ensemble}); closing it does not close the members.
 * @category plain
 * @since 0.2.0
 */
export const createEnsemble = (name: string, members: ReadonlyArray<Scorer | RewardModelShape>, mode: EnsembleMode): Scorer =>
  toScorer(ensemble(name, members.map((m) => ("model" in m ? m.model : m)), mode))

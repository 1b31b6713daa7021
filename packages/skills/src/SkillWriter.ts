/**
 * A Voyager-style LLM skill writer: prompt a chat model (`effect/ai`'s `LanguageModel`) for one skill as JSON, decode it
 * into a {@link Skill.SkillSpec}, try to admit it, and on any failure prompt again with the previous code and the
 * exact error — Voyager's iterative prompting with execution errors, environment feedback and self-verification
 * (Wang et al. 2023, Sec. 2.2–2.3). A skill is stored only after it passed every check.
 *
 * **When to use**: with a model configured (e.g. `@autodidact/llm`'s `OpenAiCompat.layer`), to grow a
 * {@link SkillLibrary.SkillLibrary} from a task, trajectories and errors. Without a model, `Discovery` mines skills.
 *
 * **Details**
 * - This module is the feedback loop; its parts have their own modules, re-exported here under their old names:
 *   the prompt (`SkillPrompt`), parsing and decoding of the answer (`SkillAnswer`), and execution checks
 *   (`EpisodeCheck`).
 * - {@link write}`(library, request, options)`: the prompt ({@link buildPrompt}) holds the task, the environment's rules
 *   and the guest API ({@link GUEST_API}), example skills (the request's, else the `examples` nearest library skills
 *   by `SkillLibrary.retrieve(task)`: name, description, parameters, source — they may be called with `callSkill`),
 *   trajectories ({@link Trajectory}s or `Discovery.Episode`s: actions, observations when known, outcome) and the
 *   caller's earlier errors. The model answers with ONE JSON object: `name`, `description`, `parameters` and `result`
 *   (JSON Schema), `source` (defining `function main(a)`), `tests` (with scripted host replies) and optional `entry`
 *   and `tags` — in a ```json fence or bare ({@link parseAnswer}); a JSON object without `source` takes the source
 *   from a ```js fence. It is decoded with `Schema` into `Skill.SkillSpec`; provenance is set by the writer:
 *   author `llm:<model>` (`options.model`, else the response's model id, else `llm:writer`), `episodeId` the ids of
 *   the trajectories shown (comma-separated), `note` the attempt and task.
 * - Checks of one attempt, in order: parse → decode → `library.check` (name, compile, own tests, the library's
 *   verifier: `AdmissionError` stages) → the caller's `verify(spec, library)` (Voyager's self-verification: an LLM
 *   critic, a rule, or {@link episodeCheck}, which runs the candidate on caller-supplied episodes of a real text
 *   environment) → `library.admit`. With a `verify`, the library's check runs twice (once before `verify`, once in
 *   `admit`; both are cheap sandbox runs unless the library's own verifier is expensive).
 * - Retries (attempts): up to `maxAttempts` (default 4, Voyager's 4 rounds). Every failure becomes an
 *   {@link AttemptError} `{ stage, message }`; the next prompt gets a feedback section with the previous source (or
 *   answer) and that exact message (a failing test says `expected X, got Y`), plus one line per earlier failure.
 * - Model calls: an `AiError` that says `isRetryable` (transport, 429, 5xx) is retried up to `modelRetries` times
 *   (default 2) after `baseDelayMs · 2^k` ms (default 250, capped at `maxDelayMs`, default 4000; a provider's
 *   `retryAfter` is honoured up to the cap); a non-retryable one, or the last retry, fails the whole write with
 *   {@link SkillWriterError} `reason: "model"` naming the attempt.
 * - Retrieval of example skills embeds the task with the library's `Embedder`; its failure fails the write with the
 *   `EmbedderError`. A library storage failure at admission fails it with `SkillStorageError`.
 * - Outcome: `{ admitted, attempts }` when an attempt is admitted (a new version of an existing name is fine); when
 *   every attempt failed, {@link SkillWriterError} `reason: "exhausted"` with every attempt and error — never a
 *   silent `undefined`. A failed write leaves the library unchanged (a failing version never replaces a working one).
 * - Prompt size ({@link PromptLimits}, {@link defaultLimits}): every section is clipped (task 2 000 chars, environment
 *   4 000, each example source 2 000, at most 3 trajectories of at most 20 steps — the first 10 and the last 10 —
 *   with observations clipped to 160 chars and at most 25 admissible commands of the first state, each error 1 200,
 *   the previous source 6 000, at most 6 earlier errors), and the user message is capped at `maxPromptChars`
 *   (default 32 000 ≈ 8k tokens): trajectories, then examples, are dropped from the end until it fits, then the
 *   message is clipped. The system message (role, guest API, answer format, the clipped environment) adds at most
 *   about 7 000 chars.
 *
 * **Gotchas**: a model's tests are only as good as the model; give a `verify` (e.g. {@link episodeCheck} on a few real
 * episodes) so a skill that passes its own scripted tests but fails in the environment is not admitted.
 *
 * @example
 * ```ts
 * import { SkillLibrary, SkillWriter } from "@autodidact/skills"
 * import { Effect } from "effect"
 * const program = Effect.gen(function*() {
 *   const lib = yield* SkillLibrary.SkillLibrary.make()
 *   const { admitted, attempts } = yield* SkillWriter.write(lib, { task: "find an object of a type and take it" })
 *   return `${admitted.spec.name} v${admitted.version} after ${attempts.length} attempt(s)`
 * }) // needs Sandbox, Embedder and a LanguageModel layer (see the package README)
 * ```
 * @see Wang et al., "Voyager: An Open-Ended Embodied Agent with Large Language Models", arXiv:2305.16291 (Sec. 2.2–2.3)
 * @since 0.1.0
 */
import type { EmbedderError } from "@autodidact/memory"
import { Cause, Data, Duration, Effect } from "effect"
import { AiError, LanguageModel, type Prompt } from "effect/ai"
import type * as EpisodeCheck from "./EpisodeCheck.js"
import { oneLine } from "./internal/Text.js"
import type * as Skill from "./Skill.js"
import * as SkillAnswer from "./SkillAnswer.js"
import type { SkillLibrary, SkillStorageError } from "./SkillLibrary.js"
import * as SkillPrompt from "./SkillPrompt.js"

export { episodeCheck } from "./EpisodeCheck.js"
export type { CheckResult, EpisodeCase, Verify } from "./EpisodeCheck.js"
export { decodeAnswer, parseAnswer } from "./SkillAnswer.js"
export type { Parsed } from "./SkillAnswer.js"
export {
  buildPrompt,
  defaultLimits,
  examplesSection,
  feedbackSection,
  GUEST_API,
  renderTrajectory,
  systemPrompt,
  trajectoriesSection,
  trajectoryId,
  userPrompt
} from "./SkillPrompt.js"
export type { AttemptError, EpisodeTrajectory, Feedback, PromptLimits, PromptRequest, Stage, Trajectory, TrajectoryInput } from "./SkillPrompt.js"

type AttemptError = SkillPrompt.AttemptError
type PromptLimits = SkillPrompt.PromptLimits
type PromptRequest = SkillPrompt.PromptRequest

/** A request to write one skill: what the prompt shows ({@link PromptRequest}) plus examples, tags and a check. */
export interface WriteRequest extends PromptRequest {
  /** Example skills to show; default: the `options.examples` library skills nearest to `task`. */
  readonly examples?: ReadonlyArray<Skill.SkillSpec>
  /** Tags added to the written skill (e.g. the env id). */
  readonly tags?: ReadonlyArray<string>
  /** An execution check or critic, run before admission. */
  readonly verify?: EpisodeCheck.Verify
}

/** Writer options. */
export interface WriterOptions {
  /** Attempts (prompts answered and checked), default 4. */
  readonly maxAttempts?: number
  /** Retries of a retryable model error per attempt, default 2. */
  readonly modelRetries?: number
  /** First backoff delay in ms, default 250 (doubles per retry). */
  readonly baseDelayMs?: number
  /** Backoff cap in ms, default 4000. */
  readonly maxDelayMs?: number
  /** Model name for provenance (`llm:<model>`). */
  readonly model?: string
  /** Library skills retrieved as examples when the request gives none, default 3 (0: none). */
  readonly examples?: number
  readonly limits?: Partial<PromptLimits>
}

/** One attempt: prompt size, model usage, the decoded spec (if any) and the error (if it failed). */
export interface Attempt {
  readonly attempt: number
  readonly promptChars: number
  /** Model calls of this attempt (1 + retries). */
  readonly modelCalls: number
  /** Tokens reported by the provider (summed over the attempt's successful call; absent when none reported). */
  readonly inputTokens?: number
  readonly outputTokens?: number
  /** The model's answer (clipped to 20 000 chars). */
  readonly answer: string
  readonly spec?: Skill.SkillSpec
  readonly error?: AttemptError
}

/** A successful write. */
export interface WriteResult {
  readonly admitted: Skill.SkillVersion
  readonly attempts: ReadonlyArray<Attempt>
}

/**
 * The writer gave up: every attempt failed (`"exhausted"`: `errors` lists them all), or a model call failed after its
 * retries (`"model"`: `attempt` names the attempt, `cause` is the `AiError`).
 * @category errors
 */
export class SkillWriterError extends Data.TaggedError("SkillWriterError")<{
  readonly reason: "exhausted" | "model"
  readonly task: string
  /** The last attempt made (1-based). */
  readonly attempt: number
  readonly attempts: ReadonlyArray<Attempt>
  /** `attempt k (stage): message` for every failed attempt, then the model failure if any. */
  readonly errors: ReadonlyArray<string>
  readonly cause?: unknown
}> {
  override get message() {
    return this.reason === "model"
      ? `the model call of attempt ${this.attempt} failed: ${this.errors.at(-1) ?? ""}`
      : `no skill admitted after ${this.attempt} attempt(s):\n${this.errors.join("\n")}`
  }
}

/** A write option out of range. */
export class WriterOptionError extends Data.TaggedError("WriterOptionError")<{ readonly option: string; readonly value: unknown; readonly reason: string }> {}

const describe = (e: unknown): string => (e instanceof Error ? e.message : typeof e === "string" ? e : JSON.stringify(e) ?? String(e))

/** One model call with retries of retryable `AiError`s (see the module docs). */
const generate = (prompt: Prompt.RawInput, o: { readonly retries: number; readonly baseDelayMs: number; readonly maxDelayMs: number }) =>
  Effect.gen(function*() {
    for (let call = 1; ; call++) {
      const exit = yield* Effect.exit(LanguageModel.generateText({ prompt }))
      if (exit._tag === "Success") {
        const r = exit.value
        const meta = r.content.find((p) => p.type === "response-metadata")
        return {
          text: r.text,
          calls: call,
          inputTokens: r.usage.inputTokens.total,
          outputTokens: r.usage.outputTokens.total,
          modelId: meta !== undefined && meta.type === "response-metadata" ? meta.modelId : undefined
        }
      }
      if (Cause.hasInterruptsOnly(exit.cause)) return yield* Effect.interrupt
      const failure = exit.cause.reasons.find((r) => r._tag === "Fail")
      const error: unknown = failure !== undefined && failure._tag === "Fail" ? failure.error : Cause.squash(exit.cause)
      const retryable = AiError.isAiError(error) && error.isRetryable
      if (!retryable || call > o.retries) return yield* Effect.fail({ calls: call, retryable, error })
      const after = AiError.isAiError(error) && error.retryAfter !== undefined ? Duration.toMillis(error.retryAfter) : 0
      const delay = Math.min(o.maxDelayMs, Math.max(after, o.baseDelayMs * 2 ** (call - 1)))
      if (delay > 0) yield* Effect.sleep(delay)
    }
  })

const checkOption = (option: string, value: number, ok: boolean, reason: string) =>
  ok ? Effect.void : Effect.fail(new WriterOptionError({ option, value, reason }))

/**
 * Write one skill with the model and admit it into `library` (see the module docs). Needs `LanguageModel`.
 *
 * @category constructors
 * @since 0.1.0
 */
export const write = (
  library: SkillLibrary,
  request: WriteRequest,
  options: WriterOptions = {}
): Effect.Effect<WriteResult, SkillWriterError | WriterOptionError | SkillStorageError | EmbedderError, LanguageModel.LanguageModel> =>
  Effect.gen(function*() {
    const maxAttempts = options.maxAttempts ?? 4
    const retries = options.modelRetries ?? 2
    const baseDelayMs = options.baseDelayMs ?? 250
    const maxDelayMs = options.maxDelayMs ?? 4000
    const k = options.examples ?? 3
    yield* checkOption("maxAttempts", maxAttempts, Number.isInteger(maxAttempts) && maxAttempts >= 1, "must be an integer ≥ 1")
    yield* checkOption("modelRetries", retries, Number.isInteger(retries) && retries >= 0, "must be an integer ≥ 0")
    yield* checkOption("baseDelayMs", baseDelayMs, Number.isFinite(baseDelayMs) && baseDelayMs >= 0, "must be a finite number ≥ 0")
    yield* checkOption("maxDelayMs", maxDelayMs, maxDelayMs >= 0, "must be ≥ 0")
    yield* checkOption("examples", k, Number.isInteger(k) && k >= 0, "must be an integer ≥ 0")
    const limits: PromptLimits = { ...SkillPrompt.defaultLimits, ...options.limits }
    for (const [key, v] of Object.entries(limits)) yield* checkOption(`limits.${key}`, v, Number.isInteger(v) && v >= 0, "must be an integer ≥ 0")

    const examples = request.examples ?? (k > 0 && library.names().length > 0 ? (yield* library.retrieve(request.task, { k })).map((h) => h.spec) : [])
    const episodeIds = (request.trajectories ?? []).slice(0, limits.maxTrajectories).map(SkillPrompt.trajectoryId)
    const attempts: Array<Attempt> = []
    const failures: Array<AttemptError> = []
    const errorLines = () => attempts.flatMap((a) => (a.error !== undefined ? [`attempt ${a.attempt} (${a.error.stage}): ${a.error.message}`] : []))
    let feedback: SkillPrompt.Feedback | undefined
    let modelId: string | undefined = options.model

    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      const prompt = SkillPrompt.buildPrompt(request, examples, feedback, limits)
      const promptChars = prompt.reduce((n, m) => n + (typeof m.content === "string" ? m.content.length : 0), 0)
      const answer = yield* generate(prompt, { retries, baseDelayMs, maxDelayMs }).pipe(
        Effect.mapError((f) =>
          new SkillWriterError({
            reason: "model",
            task: request.task,
            attempt,
            attempts: [...attempts, { attempt, promptChars, modelCalls: f.calls, answer: "" }],
            errors: [...errorLines(), `attempt ${attempt} (model, ${f.calls} call(s)${f.retryable ? ", retryable" : ""}): ${describe(f.error)}`],
            cause: f.error
          })
        )
      )
      modelId ??= answer.modelId
      const base = {
        attempt,
        promptChars,
        modelCalls: answer.calls,
        ...(answer.inputTokens !== undefined ? { inputTokens: answer.inputTokens } : {}),
        ...(answer.outputTokens !== undefined ? { outputTokens: answer.outputTokens } : {}),
        answer: answer.text.slice(0, 20_000)
      }
      const provenance: Skill.Provenance = {
        author: `llm:${modelId ?? "writer"}`,
        ...(episodeIds.length > 0 ? { episodeId: episodeIds.join(",") } : {}),
        note: `SkillWriter attempt ${attempt}: ${oneLine(request.task, 200)}`
      }
      const outcome = yield* tryAttempt(library, request, answer.text, provenance)
      if (outcome._tag === "Admitted") {
        attempts.push({ ...base, spec: outcome.spec })
        return { admitted: outcome.version, attempts }
      }
      if (outcome._tag === "StorageError") return yield* outcome.error
      attempts.push({ ...base, ...(outcome.spec !== undefined ? { spec: outcome.spec } : {}), error: outcome.error })
      feedback = { attempt, code: outcome.spec?.source ?? answer.text, error: outcome.error, history: [...failures] }
      failures.push(outcome.error)
    }
    return yield* new SkillWriterError({ reason: "exhausted", task: request.task, attempt: maxAttempts, attempts, errors: errorLines() })
  })

type Outcome =
  | { readonly _tag: "Admitted"; readonly spec: Skill.SkillSpec; readonly version: Skill.SkillVersion }
  | { readonly _tag: "Rejected"; readonly spec?: Skill.SkillSpec; readonly error: AttemptError }
  | { readonly _tag: "StorageError"; readonly error: SkillStorageError }

/** Parse, decode, check, verify and admit one answer. */
const tryAttempt = (library: SkillLibrary, request: WriteRequest, text: string, provenance: Skill.Provenance): Effect.Effect<Outcome> =>
  Effect.gen(function*() {
    const parsed = SkillAnswer.parseAnswer(text)
    if (!parsed.ok) return { _tag: "Rejected", error: { stage: "parse", message: parsed.reason } } as const
    const decoded = yield* Effect.result(SkillAnswer.decodeAnswer(parsed, provenance, { name: request.name, tags: request.tags }))
    if (decoded._tag === "Failure") return { _tag: "Rejected", error: decoded.failure } as const
    const spec = decoded.success
    const rejected = (stage: SkillPrompt.Stage, message: string): Outcome => ({ _tag: "Rejected", spec, error: { stage, message } })
    if (request.verify !== undefined) {
      const checked = yield* Effect.result(library.check(spec))
      if (checked._tag === "Failure") return rejected(checked.failure.stage, checked.failure.reason)
      // a failing or throwing check is a rejection (its error fed back), not a crash of the writer
      const verdict = yield* Effect.exit(Effect.suspend(() => request.verify!(spec, library)))
      if (verdict._tag === "Failure") {
        if (Cause.hasInterruptsOnly(verdict.cause)) return yield* Effect.interrupt
        return rejected("check", `the check failed: ${describe(Cause.squash(verdict.cause))}`)
      }
      const v = verdict.value
      if (v === false) return rejected("check", "the execution check rejected the skill")
      if (v !== true && !v.ok) return rejected("check", v.reason ?? "the execution check rejected the skill")
    }
    const admitted = yield* Effect.result(library.admit(spec))
    if (admitted._tag === "Success") return { _tag: "Admitted", spec, version: admitted.success } as const
    const e = admitted.failure
    if (e._tag === "SkillStorageError") return { _tag: "StorageError", error: e } as const
    return rejected(e.stage, e.reason)
  })


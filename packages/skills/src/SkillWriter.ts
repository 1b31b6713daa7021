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
import type { TextEnv as TextEnvModule } from "@autodidact/envs"
import type { EmbedderError } from "@autodidact/memory"
import { Cause, Data, Duration, Effect, Schema } from "effect"
import { AiError, LanguageModel, type Prompt } from "effect/ai"
import type * as Discovery from "./Discovery.js"
import * as Sandbox from "./Sandbox.js"
import * as Skill from "./Skill.js"
import type { SkillLibrary, SkillStorageError } from "./SkillLibrary.js"

type TextEnv = TextEnvModule.TextEnv

// ---------------------------------------------------------------------------------------------------------------------
// Types

/** A trajectory given as plain steps (actions with the observations they produced). */
export interface Trajectory {
  readonly id?: string
  readonly task?: string
  /** Whether the episode was solved (undefined: unknown). */
  readonly won?: boolean
  /** The observation before the first action. */
  readonly initialObservation?: string
  readonly steps: ReadonlyArray<{ readonly action: string; readonly observation?: string }>
}

/** A recorded `Discovery.Episode`, optionally with an id and the observations after each action. */
export type EpisodeTrajectory = Discovery.Episode & { readonly id?: string; readonly observations?: ReadonlyArray<string> }

/** What the writer sees: successful or failed trajectories in either shape. */
export type TrajectoryInput = Trajectory | EpisodeTrajectory

/** The result of a verification: `true`/`false`, or `{ ok, reason }` (the reason is fed back to the model). */
export type CheckResult = boolean | { readonly ok: boolean; readonly reason?: string }

/**
 * An execution check or critic (Voyager's self-verification), run on a candidate that passed the library's check and
 * before it is admitted. A failure of the effect counts as a rejection with the error as the reason.
 */
export type Verify = (spec: Skill.SkillSpec, library: SkillLibrary) => Effect.Effect<CheckResult, unknown>

/** A request to write one skill. */
export interface WriteRequest {
  /** What the skill should do (Voyager's task), in words. */
  readonly task: string
  /** The environment's rules / extra guest API notes, appended to {@link GUEST_API}. */
  readonly environment?: string
  /** Force the skill's name (the model's name is replaced by it). */
  readonly name?: string
  /** Example skills to show; default: the `options.examples` library skills nearest to `task`. */
  readonly examples?: ReadonlyArray<Skill.SkillSpec>
  readonly trajectories?: ReadonlyArray<TrajectoryInput>
  /** Earlier errors (e.g. from running an earlier version), shown in the first prompt. */
  readonly errors?: ReadonlyArray<string>
  /** Tags added to the written skill (e.g. the env id). */
  readonly tags?: ReadonlyArray<string>
  /** An execution check or critic, run before admission. */
  readonly verify?: Verify
}

/** Prompt size limits (characters). */
export interface PromptLimits {
  readonly maxTaskChars: number
  readonly maxEnvironmentChars: number
  readonly maxExampleSourceChars: number
  readonly maxTrajectories: number
  /** Steps shown per trajectory: the first half and the last half, the middle elided. */
  readonly maxStepsPerTrajectory: number
  readonly maxObservationChars: number
  /** Admissible commands shown for a trajectory's first state. */
  readonly maxAdmissibleShown: number
  readonly maxErrorChars: number
  readonly maxPreviousSourceChars: number
  /** Earlier errors listed (the most recent). */
  readonly maxEarlierErrors: number
  /** Cap of the user message (see the module docs). */
  readonly maxPromptChars: number
}

/** The default limits (see the module docs). */
export const defaultLimits: PromptLimits = {
  maxTaskChars: 2000,
  maxEnvironmentChars: 4000,
  maxExampleSourceChars: 2000,
  maxTrajectories: 3,
  maxStepsPerTrajectory: 20,
  maxObservationChars: 160,
  maxAdmissibleShown: 25,
  maxErrorChars: 1200,
  maxPreviousSourceChars: 6000,
  maxEarlierErrors: 6,
  maxPromptChars: 32_000
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

/** Where an attempt failed. */
export type Stage = "parse" | "decode" | "name" | "compile" | "test" | "verifier" | "check"

/** Why an attempt failed (fed back verbatim, clipped, to the next prompt). */
export interface AttemptError {
  readonly stage: Stage
  readonly message: string
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

// ---------------------------------------------------------------------------------------------------------------------
// Prompt templates

/** The guest API of a text-environment skill (what `SkillOptions` and {@link episodeCheck} grant). */
export const GUEST_API = `Skills are plain JavaScript (ES2020) run in a QuickJS sandbox. A skill defines a global function \`main(a)\` that takes one JSON argument and returns a JSON value synchronously: no async/await, Promises, timers, require, import, fetch or process. The only way out is these host functions:
- observe() -> { observation: string, admissible: string[], task: string, done: boolean }
- act(command) -> { observation: string, reward: number, admissible: string[], done: boolean, won: boolean }. The command must be exactly one of the current admissible commands; anything else throws and ends the skill.
- callSkill(name, args) -> the result of another library skill (the example skills below), called with the same host functions.
Return an object such as { ok: true, ... } or { ok: false, reason: "..." } so callers can tell success from failure.`

const ANSWER_FORMAT = `Answer with ONE JSON object in a \`\`\`json fence and nothing else, with these fields:
{
  "name": "kebab-case-name",
  "description": "one sentence: what the skill does and when to use it",
  "parameters": { "type": "object", "properties": { ... }, "required": [ ... ] },
  "result": { "type": "object" },
  "source": "function main(a) { ... }",
  "tests": [
    { "name": "what it checks", "input": { ... }, "expected": <the exact return value>,
      "host": { "observe": [<reply 1>, ...], "act": [<reply 1>, <reply 2>, ...] } }
  ]
}
Each test calls main(input) with scripted host functions: the k-th call of observe() or act() returns the k-th reply listed for it (a call beyond the list fails the test), and the return value must deep-equal "expected". Write at least one test that follows the main path. "source" is a JSON string: escape its quotes and newlines. Helper functions may be defined in "source" next to main.`

/** The system message: the writer's role, the guest API and environment rules, the answer format. */
export const systemPrompt = (environment: string | undefined, limits: PromptLimits = defaultLimits): string => {
  const env = environment === undefined || environment.trim() === "" ? "" : `\n\nEnvironment:\n${clip(environment.trim(), limits.maxEnvironmentChars)}`
  return `You write reusable skills for an agent: small JavaScript programs, as in Voyager's skill library. A skill must be general (parameterized by object and receptacle types, not by one episode's instance numbers), check what it sees before acting, and stop with a clear result.

${GUEST_API}${env}

${ANSWER_FORMAT}`
}

/** The example-skills section (empty when none). */
export const examplesSection = (examples: ReadonlyArray<Skill.SkillSpec>, limits: PromptLimits = defaultLimits): string => {
  if (examples.length === 0) return ""
  const items = examples.map((s) =>
    `### ${s.name}\n${s.description}\nparameters: ${JSON.stringify(s.parameters)}\n\`\`\`js\n${clipMiddle(s.source.trim(), limits.maxExampleSourceChars)}\n\`\`\``
  )
  return `Existing skills (call them with callSkill(name, args), or imitate them):\n\n${items.join("\n\n")}`
}

const isEpisode = (t: TrajectoryInput): t is EpisodeTrajectory => "actions" in t

/** The id a trajectory is known by: its own, else `seed-S` (and `/task-K` for an episode reset with a `taskIndex`). */
export const trajectoryId = (t: TrajectoryInput, index: number): string => {
  if (t.id !== undefined) return t.id
  if (!isEpisode(t)) return `trajectory-${index + 1}`
  const task = t.reset.options["taskIndex"]
  return `seed-${t.reset.seed}${typeof task === "number" ? `/task-${task}` : ""}`
}

/** One trajectory as prompt text (steps elided in the middle beyond `maxStepsPerTrajectory`). */
export const renderTrajectory = (t: TrajectoryInput, index: number, limits: PromptLimits = defaultLimits): string => {
  const id = trajectoryId(t, index)
  const won = t.won
  const outcome = won === true ? "success" : won === false ? "failure" : "unknown outcome"
  const lines = [`### Trajectory ${id} (${outcome})`]
  if (t.task !== undefined) lines.push(`Task: ${clip(t.task, limits.maxObservationChars * 2)}`)
  const steps: Array<{ action: string; observation?: string }> = isEpisode(t)
    ? t.actions.map((action, i) => {
      const o = t.observations?.[i]
      return o === undefined ? { action } : { action, observation: o }
    })
    : t.steps.map((s) => (s.observation === undefined ? { action: s.action } : { action: s.action, observation: s.observation }))
  const initial = isEpisode(t) ? undefined : t.initialObservation
  if (initial !== undefined) lines.push(`Start: ${oneLine(initial, limits.maxObservationChars)}`)
  if (isEpisode(t) && t.admissible[0] !== undefined) {
    const adm = t.admissible[0]
    const shown = adm.slice(0, limits.maxAdmissibleShown)
    lines.push(`Admissible at the start: ${shown.join("; ")}${adm.length > shown.length ? ` (+${adm.length - shown.length} more)` : ""}`)
  }
  const n = steps.length
  const max = Math.max(2, limits.maxStepsPerTrajectory)
  const head = n > max ? Math.ceil(max / 2) : n
  const tail = n > max ? max - head : 0
  const render = (s: { action: string; observation?: string }, i: number) =>
    `${i + 1}. > ${s.action}${s.observation !== undefined ? `\n   ${oneLine(s.observation, limits.maxObservationChars)}` : ""}`
  for (let i = 0; i < head; i++) lines.push(render(steps[i]!, i))
  if (tail > 0) {
    lines.push(`... (${n - head - tail} steps omitted) ...`)
    for (let i = n - tail; i < n; i++) lines.push(render(steps[i]!, i))
  }
  if (n === 0) lines.push("(no steps)")
  return lines.join("\n")
}

/** The trajectories section (empty when none). */
export const trajectoriesSection = (trajectories: ReadonlyArray<TrajectoryInput>, limits: PromptLimits = defaultLimits): string => {
  const shown = trajectories.slice(0, limits.maxTrajectories)
  if (shown.length === 0) return ""
  const more = trajectories.length - shown.length
  return `Trajectories in this environment (successful ones show what works; failed ones what to avoid):\n\n${
    shown.map((t, i) => renderTrajectory(t, i, limits)).join("\n\n")
  }${more > 0 ? `\n\n(${more} more trajectories not shown)` : ""}`
}

/** What the previous attempt produced and why it failed. */
export interface Feedback {
  readonly attempt: number
  /** The previous skill's source, or the raw answer when it could not be decoded. */
  readonly code: string
  readonly error: AttemptError
  /** Earlier failures (oldest first), listed one line each. */
  readonly history: ReadonlyArray<AttemptError>
}

const STAGE_HINT: Record<Stage, string> = {
  parse: "the answer contained no valid JSON object",
  decode: "the JSON object does not have the required fields and types",
  name: "the name is invalid (use letters, digits, - and _, starting with a letter, at most 64 chars)",
  compile: "the source does not compile",
  test: "one of its own tests failed",
  verifier: "the library's verifier rejected it",
  check: "it failed when run for real (execution check / critique)"
}

/** The feedback section of a retry: the previous code and the exact error (Voyager's execution errors and critique). */
export const feedbackSection = (feedback: Feedback, limits: PromptLimits = defaultLimits): string => {
  const lines = [
    `Your previous answer (attempt ${feedback.attempt}) was rejected at stage "${feedback.error.stage}": ${STAGE_HINT[feedback.error.stage]}.`,
    `Error:\n${clip(feedback.error.message, limits.maxErrorChars)}`,
    `Previous code:\n\`\`\`js\n${clipMiddle(feedback.code, limits.maxPreviousSourceChars)}\n\`\`\``
  ]
  const earlier = feedback.history.slice(-limits.maxEarlierErrors)
  if (earlier.length > 0) lines.push(`Earlier failures:\n${earlier.map((e) => `- ${e.stage}: ${oneLine(e.message, 300)}`).join("\n")}`)
  lines.push("Fix the problem and answer with the complete corrected JSON object.")
  return lines.join("\n\n")
}

/** The user message: task, example skills, trajectories, earlier errors, feedback; capped at `maxPromptChars`. */
export const userPrompt = (
  input: {
    readonly task: string
    readonly name?: string | undefined
    readonly examples: ReadonlyArray<Skill.SkillSpec>
    readonly trajectories: ReadonlyArray<TrajectoryInput>
    readonly errors: ReadonlyArray<string>
    readonly feedback?: Feedback | undefined
  },
  limits: PromptLimits = defaultLimits
): string => {
  const render = (nTraj: number, nEx: number) => {
    const parts = [`Task: write a skill that will ${clip(input.task.trim(), limits.maxTaskChars)}`]
    if (input.name !== undefined) parts.push(`Name the skill "${input.name}".`)
    const ex = examplesSection(input.examples.slice(0, nEx), limits)
    if (ex !== "") parts.push(ex)
    const tr = trajectoriesSection(input.trajectories.slice(0, nTraj), limits)
    if (tr !== "") parts.push(tr)
    const errors = input.errors.slice(-limits.maxEarlierErrors)
    if (errors.length > 0) parts.push(`Errors seen earlier with this task:\n${errors.map((e) => `- ${clip(e, limits.maxErrorChars)}`).join("\n")}`)
    if (input.feedback !== undefined) parts.push(feedbackSection(input.feedback, limits))
    return parts.join("\n\n")
  }
  let nTraj = Math.min(input.trajectories.length, limits.maxTrajectories)
  let nEx = input.examples.length
  let text = render(nTraj, nEx)
  while (text.length > limits.maxPromptChars && (nTraj > 0 || nEx > 0)) {
    if (nTraj > 0) nTraj--
    else nEx--
    text = render(nTraj, nEx)
  }
  return clipMiddle(text, limits.maxPromptChars)
}

/** The whole prompt: a system message ({@link systemPrompt}) and a user message ({@link userPrompt}). */
export const buildPrompt = (
  request: WriteRequest,
  examples: ReadonlyArray<Skill.SkillSpec>,
  feedback: Feedback | undefined,
  limits: PromptLimits = defaultLimits
): Array<Prompt.MessageEncoded> => [
  { role: "system", content: systemPrompt(request.environment, limits) },
  {
    role: "user",
    content: userPrompt({
      task: request.task,
      name: request.name,
      examples,
      trajectories: request.trajectories ?? [],
      errors: request.errors ?? [],
      feedback
    }, limits)
  }
]

// ---------------------------------------------------------------------------------------------------------------------
// Parsing and decoding

/** A parsed answer: the JSON object and a separate ```js block if there was one. */
export type Parsed =
  | { readonly ok: true; readonly value: Record<string, unknown>; readonly code?: string }
  | { readonly ok: false; readonly reason: string }

const FENCE = /```([A-Za-z]*)[^\n]*\n([\s\S]*?)```/g

/**
 * Extract the skill object from an answer: the first fenced block (```json or unlabeled) that parses as a JSON
 * object, else the text from the first `{` to the last `}`. A ```js/```javascript block is returned as `code`.
 */
export const parseAnswer = (answer: string): Parsed => {
  const fences = [...answer.matchAll(FENCE)].map((m) => ({ lang: (m[1] ?? "").toLowerCase(), body: m[2] ?? "" }))
  const code = fences.find((f) => f.lang === "js" || f.lang === "javascript")?.body.trim()
  const withCode = (value: Record<string, unknown>): Parsed => (code !== undefined ? { ok: true, value, code } : { ok: true, value })
  let lastError: string | undefined
  const tryParse = (text: string): Record<string, unknown> | undefined => {
    try {
      const v: unknown = JSON.parse(text)
      if (v !== null && typeof v === "object" && !Array.isArray(v)) return v as Record<string, unknown>
      lastError = "the JSON value is not an object"
    } catch (e) {
      lastError = `invalid JSON: ${e instanceof Error ? e.message : String(e)}`
    }
    return undefined
  }
  for (const f of fences) {
    if (f.lang !== "" && f.lang !== "json") continue
    const v = tryParse(f.body.trim())
    if (v !== undefined) return withCode(v)
  }
  // bare: the balanced object from the first "{" (quotes respected), then the text up to the last "}"
  const start = answer.indexOf("{")
  if (start >= 0) {
    const end = balancedEnd(answer, start)
    const v = end !== undefined ? tryParse(answer.slice(start, end + 1)) : undefined
    if (v !== undefined) return withCode(v)
    const last = answer.lastIndexOf("}")
    const w = last > start && last !== end ? tryParse(answer.slice(start, last + 1)) : undefined
    if (w !== undefined) return withCode(w)
  }
  if (answer.trim() === "") return { ok: false, reason: "the answer is empty" }
  return { ok: false, reason: lastError ?? "the answer contains no JSON object" }
}

/** Index of the `}` closing the `{` at `start` (JSON strings skipped), or undefined. */
const balancedEnd = (text: string, start: number): number | undefined => {
  let depth = 0
  let inString = false
  for (let i = start; i < text.length; i++) {
    const c = text[i]
    if (inString) {
      if (c === "\\") i++
      else if (c === '"') inString = false
    } else if (c === '"') inString = true
    else if (c === "{") depth++
    else if (c === "}" && --depth === 0) return i
  }
  return undefined
}

const decodeSpec = Schema.decodeUnknownEffect(Skill.SkillSpec)

/**
 * Decode a parsed answer into a spec with the writer's provenance (any provenance in the answer is replaced; `name`
 * forced when given; tags merged).
 */
export const decodeAnswer = (
  parsed: { readonly value: Record<string, unknown>; readonly code?: string },
  provenance: Skill.Provenance,
  extra: { readonly name?: string | undefined; readonly tags?: ReadonlyArray<string> | undefined } = {}
): Effect.Effect<Skill.SkillSpec, AttemptError> => {
  const v = parsed.value
  const candidate: Record<string, unknown> = {
    name: extra.name ?? v["name"],
    description: v["description"],
    parameters: v["parameters"],
    result: v["result"],
    source: v["source"] ?? parsed.code,
    tests: v["tests"],
    provenance
  }
  if (v["entry"] !== undefined) candidate["entry"] = v["entry"]
  const tags = [...(Array.isArray(v["tags"]) ? v["tags"] : []), ...(extra.tags ?? [])]
  if (tags.length > 0) candidate["tags"] = [...new Set(tags)]
  return decodeSpec(candidate).pipe(
    Effect.mapError((e): AttemptError => ({ stage: "decode", message: e.message }))
  )
}

// ---------------------------------------------------------------------------------------------------------------------
// Execution check on real episodes

/** One episode of {@link episodeCheck}. */
export interface EpisodeCase {
  readonly id?: string
  readonly reset: { readonly seed?: number; readonly options?: Record<string, unknown> }
  /** Primitive commands replayed before the skill runs (e.g. an expert prefix). */
  readonly prefix?: ReadonlyArray<string>
  /** The skill's argument. */
  readonly args: unknown
  /** Success test on the outcome: `true`, or the reason it failed (fed back to the model). */
  readonly expect: (outcome: { readonly result: unknown; readonly env: TextEnv; readonly steps: number; readonly won: boolean }) => true | string
}

/**
 * A {@link Verify} that runs the candidate on real episodes of `env` (reset, replay `prefix`, call the skill with
 * `observe`/`act` — the `SkillOptions` guest API — and `callSkill` to admitted skills), and accepts it when every
 * case's `expect` holds. A failure reason names the case and shows the last commands and observation.
 */
export const episodeCheck = (env: TextEnv, cases: ReadonlyArray<EpisodeCase>, options: { readonly maxPrimitiveSteps?: number } = {}): Verify =>
(spec, library) =>
  Effect.gen(function*() {
    const maxSteps = options.maxPrimitiveSteps ?? 100
    for (const [i, c] of cases.entries()) {
      const label = c.id ?? `episode ${i + 1}`
      const reset = env.reset({ ...(c.reset.seed !== undefined ? { seed: c.reset.seed } : {}), ...(c.reset.options !== undefined ? { options: c.reset.options } : {}) })
      const state = { observation: reset.observation, done: false, won: false, steps: 0, trace: [] as Array<string> }
      for (const a of c.prefix ?? []) {
        const r = env.step(a)
        state.observation = r.observation
        if (r.terminated || r.truncated) return { ok: false, reason: `${label}: the prefix ended the episode` }
      }
      const observe: Sandbox.HostFunction = () => ({ observation: state.observation, admissible: [...env.admissibleActions()], task: env.task, done: state.done })
      const act: Sandbox.HostFunction = (command) => {
        if (typeof command !== "string") throw new Sandbox.HostCallError({ fn: "act", reason: "the command must be a string" })
        if (state.done) throw new Sandbox.HostCallError({ fn: "act", reason: "the episode has ended" })
        if (state.steps >= maxSteps) throw new Sandbox.HostCallError({ fn: "act", reason: `more than ${maxSteps} primitive steps` })
        if (!env.admissibleActions().includes(command)) throw new Sandbox.HostCallError({ fn: "act", reason: `inadmissible command ${JSON.stringify(command)}` })
        const r = env.step(command)
        state.steps++
        state.trace.push(command)
        state.observation = r.observation
        state.done = r.terminated || r.truncated
        state.won = state.won || r.info["won"] === true
        return { observation: r.observation, reward: r.reward, admissible: [...env.admissibleActions()], done: state.done, won: r.info["won"] === true }
      }
      const callSkill: Sandbox.HostFunction = (name, args) => {
        if (typeof name !== "string") throw new Sandbox.HostCallError({ fn: "callSkill", reason: "the skill name must be a string" })
        return Effect.runPromise(
          library.call(name, args, { observe, act }).pipe(
            Effect.mapError((e) => new Sandbox.HostCallError({ fn: "callSkill", reason: `${name}: ${e._tag}: ${"message" in e ? e.message : ""}` }))
          )
        )
      }
      const context = () =>
        `; commands: ${state.trace.length === 0 ? "(none)" : state.trace.slice(-8).join("; ")}${state.trace.length > 8 ? ` (last 8 of ${state.trace.length})` : ""}; last observation: ${
          oneLine(state.observation, 200)
        }`
      const run = yield* Effect.result(
        library.sandbox.run({ source: spec.source, ...(spec.entry !== undefined ? { entry: spec.entry } : {}), args: c.args, host: { observe, act, callSkill } })
      )
      if (run._tag === "Failure") return { ok: false, reason: `${label}: ${run.failure._tag}: ${run.failure.message}${context()}` }
      const verdict = c.expect({ result: run.success, env, steps: state.steps, won: state.won })
      if (verdict !== true) return { ok: false, reason: `${label}: ${verdict}; result ${clip(JSON.stringify(run.success) ?? "undefined", 300)}${context()}` }
    }
    return true
  })

// ---------------------------------------------------------------------------------------------------------------------
// The writer

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
    const limits: PromptLimits = { ...defaultLimits, ...options.limits }
    for (const [key, v] of Object.entries(limits)) yield* checkOption(`limits.${key}`, v, Number.isInteger(v) && v >= 0, "must be an integer ≥ 0")

    const examples = request.examples ?? (k > 0 && library.names().length > 0 ? (yield* library.retrieve(request.task, { k })).map((h) => h.spec) : [])
    const episodeIds = (request.trajectories ?? []).slice(0, limits.maxTrajectories).map(trajectoryId)
    const attempts: Array<Attempt> = []
    const failures: Array<AttemptError> = []
    const errorLines = () => attempts.flatMap((a) => (a.error !== undefined ? [`attempt ${a.attempt} (${a.error.stage}): ${a.error.message}`] : []))
    let feedback: Feedback | undefined
    let modelId: string | undefined = options.model

    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      const prompt = buildPrompt(request, examples, feedback, limits)
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
    const parsed = parseAnswer(text)
    if (!parsed.ok) return { _tag: "Rejected", error: { stage: "parse", message: parsed.reason } } as const
    const decoded = yield* Effect.result(decodeAnswer(parsed, provenance, { name: request.name, tags: request.tags }))
    if (decoded._tag === "Failure") return { _tag: "Rejected", error: decoded.failure } as const
    const spec = decoded.success
    const rejected = (stage: Stage, message: string): Outcome => ({ _tag: "Rejected", spec, error: { stage, message } })
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

// ---------------------------------------------------------------------------------------------------------------------
// Text helpers

/** `s`, or its first `n` characters and a marker of how many were cut. */
const clip = (s: string, n: number): string => (s.length <= n ? s : `${s.slice(0, Math.max(0, n - 40))} … [${s.length - Math.max(0, n - 40)} more chars]`)

/** `s`, or its head and tail with a marker in the middle (for code: both ends matter). */
const clipMiddle = (s: string, n: number): string => {
  if (s.length <= n) return s
  const keep = Math.max(0, n - 40)
  const head = Math.ceil(keep / 2)
  return `${s.slice(0, head)}\n… [${s.length - keep} chars omitted] …\n${s.slice(s.length - (keep - head))}`
}

const oneLine = (s: string, n: number): string => clip(s.replace(/\s+/g, " ").trim(), n)

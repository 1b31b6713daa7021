/**
 * An LLM policy for the text environments through `effect/ai`'s `LanguageModel` service: ReAct-style prompting
 * (Yao et al. 2022) with the task, an optional block of learned experiences or insights, the episode so far and the
 * admissible actions; parsing of the chosen action with a documented fallback; retries with backoff on transient
 * model errors; token usage and latency per step.
 *
 * **When to use**: to run any chat model (an OpenAI-compatible server through `@autodidact/llm`'s layer, or any other
 * `LanguageModel` layer) as the policy of a text environment, alone ({@link LlmRollout}) or inside the training-free
 * optimizers ({@link TrainingFreeGrpo}, {@link Expel}, {@link Gepa}). The policy only needs the `LanguageModel`
 * service, so any provider layer plugs in.
 *
 * **Details**
 * - Prompt ({@link buildPrompt}): a system message with `instruction`, the environment's rules (the system turn of
 *   its chat view, which {@link LlmRollout} takes from `toMessages` when the env has it), the task, the `experiences`
 *   block (when non-empty) and the answer format; then the last `historyWindow` steps as chat turns (user: the observation;
 *   assistant: `Thought: ...` / `Action: ...`); then a user message with the current observation and the admissible
 *   actions, one per line.
 * - Tool calling (`toolCalling: true`): the request carries one tool, `act`, with a string parameter `action` (its
 *   description lists the admissible actions) and `toolChoice: "required"`; the first `act` call's `action` is the
 *   choice. A text answer instead of a call is parsed as text.
 * - Parsing ({@link parseAction}): the last `Action: ...` line (or the whole answer when it is one line), stripped of
 *   quotes, backticks, brackets and a final period, matched to the admissible list: exactly, then ignoring case and
 *   punctuation, then as a unique substring either way (the longest admissible action the answer contains), then by
 *   edit-distance similarity ≥ `fuzzyThreshold` (default 0.8).
 * - Invalid output: the model is asked once more (`reask`, default true) with its answer and the parse error appended;
 *   if that also fails, `fallback` decides: `"first"` (default) the first admissible action, `"random"` a uniformly
 *   random admissible action, `"invalid"` the unparsed answer is sent to the environment as is (it penalizes or
 *   rejects it: an invalid step), `"fail"` an {@link UnknownActionError}.
 * - Retries: a failure whose `AiError` says `isRetryable` (transport errors, 429, 5xx, malformed output) is retried
 *   up to `retries` times (default 3) after `baseDelayMs · 2^k` ms (default 500, capped at `maxDelayMs`, default
 *   10 000; a provider's `retryAfter` is honoured up to the cap). Other errors, or the last retryable one, fail with
 *   {@link ModelCallError}.
 * - Recorded per step ({@link StepRecord}): the answer, thought, how the action was matched, fallback, re-ask,
 *   model calls and attempts, input/output tokens (summed over calls; 0 when the provider reports none) and wall
 *   latency in ms.
 * - Sampling: `LanguageModel` requests carry no temperature; the policy sets the {@link Temperature} reference around
 *   each call (provider layers may read it) and passes the call through `sampling` when given, so a caller can
 *   apply a provider's own config (e.g. `withConfigOverride({ temperature })`).
 *
 * @example
 * ```ts
 * import { LlmPolicy } from "@autodidact/llm"
 * import { Rng } from "@autodidact/core"
 * const decision = LlmPolicy.decide(LlmPolicy.config({ instruction: "You are a household robot." }), {
 *   task: "put a clean mug in the coffeemachine",
 *   observation: "You are in the kitchen.",
 *   admissible: ["go to countertop 1", "go to sinkbasin 1"]
 * }, Rng.make(1)) // Effect<LlmDecision, LlmPolicyError, LanguageModel>
 * ```
 * @see Yao et al., "ReAct: Synergizing Reasoning and Acting in Language Models", arXiv:2210.03629
 * @since 0.1.0
 */
import { InvalidOptionError, type Rng } from "@autodidact/core"
import { Cause, Context, Duration, Effect, Schema } from "effect"
import { AiError, LanguageModel, type Prompt, type Response, Tool, Toolkit } from "effect/ai"
import type { GroupRollout } from "@autodidact/optim"

// ---------------------------------------------------------------------------------------------------------------
// Configuration
// ---------------------------------------------------------------------------------------------------------------

/** What to do when the answer names no admissible action (after the re-ask). */
export type Fallback = "first" | "random" | "invalid" | "fail"

/** A hook that wraps each model call (e.g. to apply a provider's sampling config). */
export type Sampling = (params: { readonly temperature: number | undefined; readonly purpose: string }) => <A, E, R>(
  self: Effect.Effect<A, E, R>
) => Effect.Effect<A, E, R>

/** Policy configuration. */
export interface Config {
  /** The instruction opening the system prompt (what GEPA optimizes). */
  readonly instruction: string
  /** A block of experiences or insights placed in the system prompt ("" for none). */
  readonly experiences: string
  /** Ask for the action through an `act` tool call instead of an `Action:` line. Default false. */
  readonly toolCalling: boolean
  /** Steps of history shown (most recent). Default 10. */
  readonly historyWindow: number
  /** Ask once more with the parse error after an invalid answer. Default true. */
  readonly reask: boolean
  /** After an invalid answer (and re-ask). Default `"first"`. */
  readonly fallback: Fallback
  /** Minimum edit-distance similarity for a fuzzy match, in (0, 1]. Default 0.8. */
  readonly fuzzyThreshold: number
  /** Retries of a retryable model error. Default 3. */
  readonly retries: number
  /** First backoff delay in ms (doubles each retry). Default 500. */
  readonly baseDelayMs: number
  /** Backoff cap in ms. Default 10 000. */
  readonly maxDelayMs: number
  /** Sampling temperature, set as {@link Temperature} around each call. Default undefined (the provider's). */
  readonly temperature?: number | undefined
  /** Wraps each model call. */
  readonly sampling?: Sampling | undefined
}

/** Defaults. */
export const defaults: Config = {
  instruction: "You are an agent acting in a text environment. Solve the task in as few steps as possible.",
  experiences: "",
  toolCalling: false,
  historyWindow: 10,
  reask: true,
  fallback: "first",
  fuzzyThreshold: 0.8,
  retries: 3,
  baseDelayMs: 500,
  maxDelayMs: 10_000
}

/**
 * A policy configuration: {@link defaults} with `overrides` (no validation; {@link validate} checks it).
 * @example
 * ```ts
 * const policy = LlmPolicy.config({ instruction: "You are a household robot.", fallback: "first", temperature: 0.3 })
 * ```
 * @since 0.1.0
 */
export const config = (overrides: Partial<Config> = {}): Config => ({ ...defaults, ...overrides })

/**
 * Check a configuration (the rollouts and optimizers call it once; {@link decide} does not): `fallback` one of
 * `"first" | "random" | "invalid" | "fail"`, `fuzzyThreshold` in (0, 1], `retries` an integer ≥ 0, non-negative
 * delays and temperature. Fails with `InvalidOptionError` naming the first bad field and its value.
 * @since 0.1.0
 */
export const validate = (c: Config): Effect.Effect<Config, InvalidOptionError> => {
  const bad = (option: string, value: unknown, reason: string) => Effect.fail(new InvalidOptionError({ option, value, reason }))
  if (!["first", "random", "invalid", "fail"].includes(c.fallback)) return bad("fallback", c.fallback, 'expected "first", "random", "invalid" or "fail"')
  if (!(c.fuzzyThreshold > 0 && c.fuzzyThreshold <= 1)) return bad("fuzzyThreshold", c.fuzzyThreshold, "must be in (0, 1]")
  if (!(Number.isInteger(c.retries) && c.retries >= 0)) return bad("retries", c.retries, "must be an integer ≥ 0")
  if (!(Number.isInteger(c.historyWindow) && c.historyWindow >= 0)) return bad("historyWindow", c.historyWindow, "must be an integer ≥ 0")
  if (!(c.baseDelayMs >= 0 && Number.isFinite(c.baseDelayMs))) return bad("baseDelayMs", c.baseDelayMs, "must be a finite number ≥ 0")
  if (!(c.maxDelayMs >= 0)) return bad("maxDelayMs", c.maxDelayMs, "must be ≥ 0")
  if (c.temperature !== undefined && !(c.temperature >= 0 && Number.isFinite(c.temperature))) return bad("temperature", c.temperature, "must be a finite number ≥ 0")
  return Effect.succeed(c)
}

/**
 * The sampling temperature of the model call in progress (undefined: the provider's default). Provider layers that
 * support it may read it; the policy and the optimizers set it around their calls.
 * @category references
 */
export const Temperature = Context.Reference<number | undefined>("@autodidact/llm/LlmPolicy/Temperature", {
  defaultValue: () => undefined
})

// ---------------------------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------------------------

/**
 * The model's answer named no admissible action and `fallback` is `"fail"`.
 * @category errors
 */
export class UnknownActionError extends Schema.TaggedError<UnknownActionError>()("UnknownActionError", {
  output: Schema.String,
  admissible: Schema.Array(Schema.String),
  reason: Schema.String
}) {
  override get message() {
    return `the model chose no admissible action (${this.reason}); answer: ${JSON.stringify(this.output.slice(0, 200))}`
  }
}

/**
 * A model call failed: a non-retryable error, or a retryable one after every retry.
 * @category errors
 */
export class ModelCallError extends Schema.TaggedError<ModelCallError>()("ModelCallError", {
  purpose: Schema.String,
  attempts: Schema.Number,
  retryable: Schema.Boolean,
  reason: Schema.String,
  cause: Schema.optional(Schema.Defect())
}) {
  override get message() {
    return `model call (${this.purpose}) failed after ${this.attempts} attempt(s): ${this.reason}`
  }
}

/** Errors of {@link decide}. */
export type LlmPolicyError = UnknownActionError | ModelCallError

// ---------------------------------------------------------------------------------------------------------------
// Model calls with retries
// ---------------------------------------------------------------------------------------------------------------

/** Usage and timing of one or more calls. */
export interface CallStats {
  readonly attempts: number
  readonly inputTokens: number
  readonly outputTokens: number
  readonly latencyMs: number
}

/** Options of {@link generate}. */
export interface CallOptions {
  readonly purpose: string
  readonly retries: number
  readonly baseDelayMs: number
  readonly maxDelayMs: number
  readonly temperature?: number | undefined
  readonly sampling?: Sampling | undefined
}

const describe = (e: unknown): string => (e instanceof Error ? e.message : String(e))

/**
 * Run `request` (a `LanguageModel` call) with the retry policy of the module docs, setting {@link Temperature};
 * returns its result with the attempts, summed usage and wall latency (of the successful attempt).
 */
export const withRetries = <A extends { readonly usage: Response.Usage }, E, R>(
  request: Effect.Effect<A, E, R>,
  o: CallOptions
): Effect.Effect<{ readonly response: A; readonly stats: CallStats }, ModelCallError, R> =>
  Effect.gen(function* () {
    const wrapped = Effect.provideService(o.sampling === undefined ? request : o.sampling({ temperature: o.temperature, purpose: o.purpose })(request), Temperature, o.temperature)
    for (let attempt = 1; ; attempt++) {
      const started = performance.now()
      const exit = yield* Effect.exit(wrapped)
      const latencyMs = performance.now() - started
      if (exit._tag === "Success") {
        const u = exit.value.usage
        return {
          response: exit.value,
          stats: { attempts: attempt, inputTokens: u.inputTokens.total ?? 0, outputTokens: u.outputTokens.total ?? 0, latencyMs }
        }
      }
      // an interruption stays an interruption (a cancelled run is not a model error)
      if (Cause.hasInterruptsOnly(exit.cause)) return yield* Effect.interrupt
      const failure = exit.cause.reasons.find((r) => r._tag === "Fail")
      if (failure === undefined || failure._tag !== "Fail") {
        return yield* new ModelCallError({ purpose: o.purpose, attempts: attempt, retryable: false, reason: "the call died or was interrupted", cause: exit.cause })
      }
      const error = failure.error
      const retryable = AiError.isAiError(error) && error.isRetryable
      if (!retryable || attempt > o.retries) {
        return yield* new ModelCallError({ purpose: o.purpose, attempts: attempt, retryable, reason: describe(error), cause: error })
      }
      const after = AiError.isAiError(error) && error.retryAfter !== undefined ? Duration.toMillis(error.retryAfter) : 0
      const delay = Math.min(o.maxDelayMs, Math.max(after, o.baseDelayMs * 2 ** (attempt - 1)))
      if (delay > 0) yield* Effect.sleep(delay)
    }
  })

/**
 * Ask the model for text (`prompt`) with the retry policy; the helper the optimizers use for their summarize /
 * extract / reflect calls.
 */
export const generate = (
  prompt: Prompt.RawInput,
  o: CallOptions
): Effect.Effect<{ readonly text: string; readonly stats: CallStats }, ModelCallError, LanguageModel.LanguageModel> =>
  Effect.map(withRetries(LanguageModel.generateText({ prompt }), o), ({ response, stats }) => ({ text: response.text, stats }))

// ---------------------------------------------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------------------------------------------

/** How the chosen action was found. */
export type Match = "exact" | "case-insensitive" | "substring" | "fuzzy" | "free"

/** A parse result. */
export type Parsed =
  | { readonly ok: true; readonly action: string; readonly index: number; readonly match: Match; readonly thought: string }
  | { readonly ok: false; readonly reason: string; readonly candidate: string; readonly thought: string }

const ACTION_LINE = /^[\s>*#_-]*action[\s*_]*(?:\d+[\s*_]*)?[:：][\s*_]*(.*)$/i
const THOUGHT_LINE = /^[\s>*#_-]*thought[\s*_]*[:：]\s*(.*)$/i

const clean = (s: string): string =>
  s
    .trim()
    .replace(/^[`"'“”‘’[(<]+/, "")
    .replace(/[`"'“”‘’\])>]+$/, "")
    .replace(/[.!]+$/, "")
    .trim()

const norm = (s: string): string => s.toLowerCase().replace(/[^\p{L}\p{N}\s]/gu, " ").replace(/\s+/g, " ").trim()

/** Levenshtein distance (two rows). */
export const editDistance = (a: string, b: string): number => {
  if (a === b) return 0
  let prev = new Int32Array(b.length + 1)
  let cur = new Int32Array(b.length + 1)
  for (let j = 0; j <= b.length; j++) prev[j] = j
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i
    for (let j = 1; j <= b.length; j++) {
      const sub = prev[j - 1]! + (a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1)
      cur[j] = Math.min(sub, prev[j]! + 1, cur[j - 1]! + 1)
    }
    const t = prev
    prev = cur
    cur = t
  }
  return prev[b.length]!
}

/**
 * Match a candidate action text to the admissible list: exactly, then ignoring case and punctuation, then as a
 * unique substring either way (the longest admissible action the answer contains), then by edit-distance similarity
 * `1 − distance / max(length)` ≥ `fuzzyThreshold` (in (0, 1], default 0.8). Returns the admissible index and the
 * match kind, or index −1 with the reason (empty, ambiguous, or no match).
 */
export const matchAction = (
  candidate: string,
  admissible: ReadonlyArray<string>,
  fuzzyThreshold = defaults.fuzzyThreshold
): { readonly index: number; readonly match: Match } | { readonly index: -1; readonly reason: string } => {
  const c = clean(candidate)
  if (c.length === 0) return { index: -1, reason: "empty action" }
  const exact = admissible.indexOf(c)
  if (exact >= 0) return { index: exact, match: "exact" }
  const nc = norm(c)
  const ci = admissible.findIndex((a) => norm(a) === nc)
  if (ci >= 0) return { index: ci, match: "case-insensitive" }
  // the longest admissible action the answer contains, or the unique one containing the answer
  const padded = ` ${nc} `
  let best = -1
  for (let i = 0; i < admissible.length; i++) {
    const na = norm(admissible[i]!)
    if (na.length > 0 && padded.includes(` ${na} `) && (best < 0 || na.length > norm(admissible[best]!).length)) best = i
  }
  if (best >= 0) return { index: best, match: "substring" }
  const containing = admissible.flatMap((a, i) => (` ${norm(a)} `.includes(` ${nc} `) ? [i] : []))
  if (containing.length === 1) return { index: containing[0]!, match: "substring" }
  let bestSim = -1
  let bestIndex = -1
  let tie = false
  for (let i = 0; i < admissible.length; i++) {
    const na = norm(admissible[i]!)
    const sim = 1 - editDistance(nc, na) / Math.max(nc.length, na.length, 1)
    if (sim > bestSim) {
      bestSim = sim
      bestIndex = i
      tie = false
    } else if (sim === bestSim) tie = true
  }
  if (bestIndex >= 0 && !tie && bestSim >= fuzzyThreshold) return { index: bestIndex, match: "fuzzy" }
  return {
    index: -1,
    reason: containing.length > 1 ? `"${c}" is ambiguous (${containing.length} admissible actions contain it)` : `"${c}" is not one of the admissible actions`
  }
}

/**
 * Parse a model answer: the last `Action:` line (or a one-line answer), matched to `admissible`. With an empty
 * admissible list any non-empty candidate is accepted (`match: "free"`).
 */
export const parseAction = (output: string, admissible: ReadonlyArray<string>, fuzzyThreshold = defaults.fuzzyThreshold): Parsed => {
  const lines = output.split(/\r?\n/)
  let candidate: string | undefined
  let actionLine = -1
  for (let i = lines.length - 1; i >= 0; i--) {
    const m = ACTION_LINE.exec(lines[i]!)
    if (m !== null) {
      candidate = m[1]!
      actionLine = i
      // "Action:" alone with the action on the next line
      if (clean(candidate).length === 0 && i + 1 < lines.length) candidate = lines[i + 1]!
      break
    }
  }
  const nonEmpty = lines.filter((l) => l.trim().length > 0)
  if (candidate === undefined && nonEmpty.length === 1) candidate = nonEmpty[0]!
  let thought = ""
  for (const l of lines) {
    const m = THOUGHT_LINE.exec(l)
    if (m !== null) thought = m[1]!.trim()
  }
  if (thought === "" && actionLine > 0) thought = lines.slice(0, actionLine).join(" ").trim()
  if (candidate === undefined) {
    return { ok: false, reason: output.trim().length === 0 ? "empty answer" : 'no "Action:" line', candidate: "", thought }
  }
  if (admissible.length === 0) {
    const c = clean(candidate)
    return c.length === 0 ? { ok: false, reason: "empty action", candidate: c, thought } : { ok: true, action: c, index: -1, match: "free", thought }
  }
  const m = matchAction(candidate, admissible, fuzzyThreshold)
  if (m.index < 0) return { ok: false, reason: "reason" in m ? m.reason : "no match", candidate: clean(candidate), thought }
  return { ok: true, action: admissible[m.index]!, index: m.index, match: (m as { match: Match }).match, thought }
}

// ---------------------------------------------------------------------------------------------------------------
// Prompt
// ---------------------------------------------------------------------------------------------------------------

/** One earlier step as the policy shows it. */
export interface HistoryStep {
  readonly observation: string
  readonly action: string
  readonly thought?: string | undefined
}

/** What the policy sees at a step (a `GroupRollout.PolicyInput` whose history may carry thoughts). */
export interface Input {
  readonly task: string
  /** The environment's rules (the system turn of its chat view, `TextEnv.toMessages`), when it has one. */
  readonly rules?: string | undefined
  readonly observation: string
  readonly admissible: ReadonlyArray<string>
  readonly history?: ReadonlyArray<HistoryStep> | undefined
}

const formatAdmissible = (admissible: ReadonlyArray<string>): string =>
  admissible.length === 0 ? "Admissible actions: any command." : `Admissible actions:\n${admissible.map((a) => `- ${a}`).join("\n")}`

/**
 * The chat prompt of a step (see the module docs): a system message (instruction, the env's rules, the task, the
 * experiences block when non-empty, the answer format), the last `historyWindow` steps as user/assistant turns, and a
 * user message with the current observation and the admissible actions one per line. Pure; in `effect/ai`'s encoded
 * message form.
 * @see Yao et al., "ReAct: Synergizing Reasoning and Acting in Language Models", arXiv:2210.03629
 */
export const buildPrompt = (c: Config, input: Input): Array<Prompt.MessageEncoded> => {
  const answer = c.toolCalling
    ? "Think briefly about the situation, then call the `act` tool with exactly one of the admissible actions."
    : 'Think briefly, then answer with two lines:\nThought: <your reasoning>\nAction: <exactly one of the admissible actions>'
  const rules = input.rules?.trim() ?? ""
  const task = rules.includes(input.task) ? "" : `Your task: ${input.task}`
  const system = [c.instruction.trim(), rules, task, c.experiences.trim(), answer].filter((s) => s.length > 0).join("\n\n")
  const messages: Array<Prompt.MessageEncoded> = [{ role: "system", content: system }]
  const history = input.history ?? []
  const shown = c.historyWindow <= 0 ? [] : history.slice(Math.max(0, history.length - c.historyWindow))
  if (shown.length < history.length) {
    messages.push({ role: "user", content: `(${history.length - shown.length} earlier steps omitted)` })
    messages.push({ role: "assistant", content: "Understood." })
  }
  for (const h of shown) {
    messages.push({ role: "user", content: `Observation:\n${h.observation}` })
    messages.push({ role: "assistant", content: `${h.thought !== undefined && h.thought.length > 0 ? `Thought: ${h.thought}\n` : ""}Action: ${h.action}` })
  }
  messages.push({ role: "user", content: `Observation:\n${input.observation}\n\n${formatAdmissible(input.admissible)}` })
  return messages
}

// ---------------------------------------------------------------------------------------------------------------
// Deciding
// ---------------------------------------------------------------------------------------------------------------

/** What was recorded about one decision. */
export interface StepRecord {
  /** The model's last answer (text, or the `act` call's action in tool mode). */
  readonly output: string
  readonly thought: string
  /** How the action was matched, or `"fallback"`. */
  readonly match: Match | "tool" | "fallback"
  readonly fallback?: Exclude<Fallback, "fail"> | undefined
  /** The parse error of the first answer, when it had one. */
  readonly parseError?: string | undefined
  readonly reasked: boolean
  /** Model calls (1, or 2 with a re-ask). */
  readonly calls: number
  /** Attempts over all calls, retries included. */
  readonly attempts: number
  readonly inputTokens: number
  readonly outputTokens: number
  readonly latencyMs: number
}

/** A decision (the rollout's `Decision`, log π unknown: 0) with its record. */
export interface LlmDecision extends GroupRollout.Decision {
  readonly record: StepRecord
}

const ActTool = Tool.make("act", {
  description: "Take one action in the environment.",
  parameters: Schema.Struct({ action: Schema.String }),
  success: Schema.String
})
const ActToolkit = Toolkit.make(ActTool)
const actHandlers = ActToolkit.toLayer({ act: ({ action }) => Effect.succeed(action) })
const actToolkit = ActToolkit.pipe(Effect.provide(actHandlers))

/** The name of the tool of tool-calling mode. */
export const ACT_TOOL = "act"

const callOptions = (c: Config, purpose: string): CallOptions => ({
  purpose,
  retries: c.retries,
  baseDelayMs: c.baseDelayMs,
  maxDelayMs: c.maxDelayMs,
  temperature: c.temperature,
  sampling: c.sampling
})

const ask = (c: Config, prompt: ReadonlyArray<Prompt.MessageEncoded>) =>
  c.toolCalling
    ? Effect.map(
      withRetries(
        LanguageModel.generateText({ prompt, toolkit: actToolkit, toolChoice: "required", disableToolCallResolution: true }),
        callOptions(c, "act")
      ),
      ({ response, stats }) => {
        const call = response.toolCalls.find((p) => p.name === ACT_TOOL)
        const params = call?.params as { readonly action?: unknown } | undefined
        const action = typeof params?.action === "string" ? params.action : undefined
        return { text: action === undefined ? response.text : `Action: ${action}`, tool: action !== undefined, stats }
      }
    )
    : Effect.map(withRetries(LanguageModel.generateText({ prompt }), callOptions(c, "act")), ({ response, stats }) => ({
      text: response.text,
      tool: false,
      stats
    }))

const add = (a: CallStats, b: CallStats): CallStats => ({
  attempts: a.attempts + b.attempts,
  inputTokens: a.inputTokens + b.inputTokens,
  outputTokens: a.outputTokens + b.outputTokens,
  latencyMs: a.latencyMs + b.latencyMs
})

/**
 * Choose an action for `input` (see the module docs for the prompt, parsing, re-ask, fallback and retries).
 * `rng` is used only by the `"random"` fallback.
 *
 * Returns the {@link LlmDecision}: the action text, its index in `input.admissible` (−1 for an inadmissible one under
 * the `"invalid"` fallback), how it matched (exact, case-insensitive, substring, fuzzy or fallback), the model's
 * thought, and the step's usage (input/output tokens, latency in ms, model calls, re-asks). Fails with
 * {@link UnknownActionError} when no admissible action could be read after the re-ask and `fallback` is `"fail"`,
 * and {@link ModelCallError} when the model call still fails after `retries` retryable errors (exponential backoff
 * from `baseDelayMs`, capped at `maxDelayMs`) or fails with a non-retryable one.
 * @see Yao et al., "ReAct: Synergizing Reasoning and Acting in Language Models", arXiv:2210.03629
 * @since 0.1.0
 */
export const decide = (c: Config, input: Input, rng: Rng): Effect.Effect<LlmDecision, LlmPolicyError, LanguageModel.LanguageModel> =>
  Effect.gen(function* () {
    const prompt = buildPrompt(c, input)
    const first = yield* ask(c, prompt)
    let stats = first.stats
    let parsed = parseAction(first.text, input.admissible, c.fuzzyThreshold)
    let output = first.text
    let tool = first.tool
    let calls = 1
    let reasked = false
    const parseError = parsed.ok ? undefined : parsed.reason
    if (!parsed.ok && c.reask) {
      reasked = true
      const retry = yield* ask(c, [
        ...prompt,
        { role: "assistant", content: first.text },
        {
          role: "user",
          content: `Your answer could not be used: ${parsed.reason}. Reply with "Action: <action>", copying exactly one of the admissible actions:\n${input.admissible.join("\n")}`
        }
      ])
      calls++
      stats = add(stats, retry.stats)
      output = retry.text
      tool = retry.tool
      parsed = parseAction(retry.text, input.admissible, c.fuzzyThreshold)
    }
    const base = { output, reasked, calls, ...stats, ...(parseError === undefined ? {} : { parseError }) }
    if (parsed.ok) {
      return {
        action: parsed.action,
        index: parsed.index,
        logProb: 0,
        record: { ...base, thought: parsed.thought, match: tool && parsed.match === "exact" ? "tool" : parsed.match }
      }
    }
    const k = input.admissible.length
    const fallback = c.fallback
    if (fallback === "fail" || (k === 0 && fallback !== "invalid")) {
      return yield* new UnknownActionError({ output, admissible: input.admissible.slice(), reason: parsed.reason })
    }
    if (fallback === "invalid") {
      const action = parsed.candidate.length > 0 ? parsed.candidate : output.trim()
      return { action, index: -1, logProb: 0, record: { ...base, thought: parsed.thought, match: "fallback", fallback } }
    }
    const index = fallback === "random" ? rng.integers(k) : 0
    return { action: input.admissible[index]!, index, logProb: 0, record: { ...base, thought: parsed.thought, match: "fallback", fallback } }
  })

/**
 * An LLM as a reward model ("LLM-as-a-judge"): an OpenAI-compatible chat-completions endpoint is asked to rate each
 * outcome (prompt/response, or a task and its trajectory) and each step (in the context of the task and the steps
 * before it) with a single number on a scale, which is parsed and normalized to `[0, 1]`.
 *
 * **When to use**
 * When no verifier or trained reward model exists for a task, or as an execution-free member of
 * `RewardModel.ensemble` next to a rule verifier (a gate). Judges are slow and noisy: prefer a trained model or a
 * verifier where one exists, and calibrate the judge against it.
 *
 * **Details**
 * - Request: `POST {baseUrl}/chat/completions` with `{ model, messages: [system, user], temperature: 0 }` and
 *   `Authorization: Bearer {apiKey}` when an `apiKey` is given (any OpenAI-compatible server: OpenAI, vLLM, llama.cpp,
 *   Ollama, ...). Built on effect's `HttpClient` (no provider package): {@link make}/{@link layer} read it from the
 *   context, {@link layerFetch} provides `FetchHttpClient` (on Node 20 do not use the undici client).
 * - Prompts (see {@link outcomeSystemPrompt}, {@link stepSystemPrompt}, {@link renderOutcome}, {@link renderStep}):
 *   the system message states the judge's role, the rubric (default {@link defaultRubric} /
 *   {@link defaultStepRubric}) and the instruction "Answer with a single number from {min} to {max} ... and nothing
 *   else."; the user message carries the task/prompt and the response or trajectory in `[Task]`, `[Response]`,
 *   `[Trajectory]`, `[Previous steps]`, `[Current state]`, `[Action to judge]` sections.
 * - Parsing ({@link parseScore}): the first number in the answer that lies within `[min, max]` (so `"Score: 8/10"`
 *   gives 8, `"[[7]]"` gives 7); none fails with `JudgeAnswerError` naming the answer text. Scores are normalized to
 *   `(x - min) / (max - min)`.
 * - Retries: HTTP 429 and 5xx (`JudgeHttpError`) and unreachable/timed-out requests (`JudgeUnreachableError`) are
 *   retried with exponential backoff (`Schedule.exponential(retryBase)`, at most `retries` times, default 3 from
 *   200 ms); other statuses fail at once. Each request is bounded by `timeout` (default 60 s).
 * - Requests of a batch run with at most `maxConcurrency` (default 4) in flight; steps are judged one request each.
 *
 * @example
 * ```ts
 * import { LlmJudge, RewardModel } from "@autodidact/rewards"
 * import { Effect } from "effect"
 * import { FetchHttpClient } from "effect/http"
 * const program = Effect.gen(function* () {
 *   const judge = yield* LlmJudge.make({ baseUrl: "http://127.0.0.1:8000/v1", model: "qwen2.5-7b-instruct" })
 *   return yield* judge.scoreOutcome([{ prompt: "6*7?", response: "42" }]) // e.g. [1]
 * }).pipe(Effect.provide(FetchHttpClient.layer))
 * ```
 * @see Zheng et al., "Judging LLM-as-a-Judge with MT-Bench and Chatbot Arena", NeurIPS 2023 Datasets and Benchmarks, arXiv:2306.05685
 * @since 0.1.0
 */
import { Duration, Effect, Layer, Schedule } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import { JudgeAnswerError, JudgeHttpError, JudgeUnreachableError, messageOf } from "./RewardError.js"
import type { JudgeError } from "./RewardError.js"
import * as RewardModel from "./RewardModel.js"
import type { Candidate, RewardModelShape, StepView } from "./RewardModel.js"

/** Configuration of a judge. */
export interface Config {
  /** Base URL of an OpenAI-compatible API, e.g. `http://127.0.0.1:8000/v1` (`/chat/completions` is appended). */
  readonly baseUrl: string
  /** The model name sent in the request body. */
  readonly model: string
  /** Sent as `Authorization: Bearer {apiKey}` when given. */
  readonly apiKey?: string | undefined
  /** What a good outcome (or step) is; replaces {@link defaultRubric} / {@link defaultStepRubric}. */
  readonly rubric?: string | undefined
  /** The rating scale `[min, max]` asked for (default `[0, 10]`); scores are normalized to `[0, 1]`. */
  readonly scale?: readonly [number, number] | undefined
  /** Requests in flight at once (default 4). */
  readonly maxConcurrency?: number | undefined
  /** Time limit of one request (default 60 seconds). */
  readonly timeout?: Duration.Input | undefined
  /** Retries of a transient failure (429, 5xx, unreachable, timeout); default 3. */
  readonly retries?: number | undefined
  /** First backoff delay, doubled on each retry (default 200 millis). */
  readonly retryBase?: Duration.Input | undefined
  /** The reward model's name (default `llm-judge:{model}`). */
  readonly name?: string | undefined
}

/** The default outcome rubric. */
export const defaultRubric =
  "Judge whether the response correctly and completely accomplishes the task. Consider correctness first, then helpfulness and relevance; ignore length and style."

/** The default step rubric. */
export const defaultStepRubric =
  "Judge whether the action is a correct and useful next step toward accomplishing the task, given the current state and the previous steps."

const fmt = (x: number) => String(x)

/** The system message for outcome scoring. */
export const outcomeSystemPrompt = (rubric: string, [min, max]: readonly [number, number]): string =>
  [
    "You are an impartial judge evaluating the quality of an AI assistant's answer or an agent's trajectory for a task.",
    rubric,
    `Answer with a single number from ${fmt(min)} to ${fmt(max)} (${fmt(min)} = completely wrong, ${fmt(max)} = perfect) and nothing else.`
  ].join("\n")

/** The system message for step scoring. */
export const stepSystemPrompt = (rubric: string, [min, max]: readonly [number, number]): string =>
  [
    "You are an impartial judge evaluating one step of an agent working on a task.",
    rubric,
    `Answer with a single number from ${fmt(min)} to ${fmt(max)} (${fmt(min)} = harmful or useless, ${fmt(max)} = clearly the right step) and nothing else.`
  ].join("\n")

/** The user message for outcome scoring: `[Task]` (task or prompt), then `[Response]` and/or `[Trajectory]`. */
export const renderOutcome = (c: Candidate): string => {
  const parts: Array<string> = []
  const task = c.task ?? c.prompt
  if (task !== undefined) parts.push(`[Task]\n${task}`)
  if (c.task !== undefined && c.prompt !== undefined && c.prompt !== c.task) parts.push(`[Prompt]\n${c.prompt}`)
  if (c.steps !== undefined && c.steps.length > 0) {
    parts.push(`[Trajectory]\n${c.steps.map((s, i) => `Step ${i + 1}\nState: ${s.state}\nAction: ${s.action}`).join("\n")}`)
  }
  if (c.response !== undefined) parts.push(`[Response]\n${c.response}`)
  return parts.join("\n\n")
}

/** The user message for step scoring: `[Task]`, `[Previous steps]` (the step's `history`), `[Current state]`, `[Action to judge]`. */
export const renderStep = (s: StepView, c: Candidate): string => {
  const parts: Array<string> = []
  const task = c.task ?? c.prompt
  if (task !== undefined) parts.push(`[Task]\n${task}`)
  if (s.history !== undefined && s.history.length > 0) parts.push(`[Previous steps]\n${s.history.map((a, i) => `${i + 1}. ${a}`).join("\n")}`)
  parts.push(`[Current state]\n${s.state}`)
  parts.push(`[Action to judge]\n${s.action}`)
  return parts.join("\n\n")
}

/** The first number in `answer` within `[min, max]`, or `undefined`. */
export const parseScore = (answer: string, [min, max]: readonly [number, number]): number | undefined => {
  for (const m of answer.matchAll(/[-+]?(?:\d+(?:\.\d+)?|\.\d+)/g)) {
    const v = Number(m[0])
    if (Number.isFinite(v) && v >= min && v <= max) return v
  }
  return undefined
}

/** Whether a judge error is worth retrying (429, 5xx, unreachable, timed out). */
export const isTransient = (e: JudgeError): boolean =>
  e._tag === "JudgeUnreachableError" || (e._tag === "JudgeHttpError" && (e.status === 429 || e.status >= 500))

interface ChatMessage {
  readonly role: "system" | "user"
  readonly content: string
}

const contentOf = (json: unknown): string | undefined => {
  const choices = (json as { choices?: unknown } | null)?.choices
  if (!Array.isArray(choices) || choices.length === 0) return undefined
  const content = (choices[0] as { message?: { content?: unknown } } | null)?.message?.content
  return typeof content === "string" ? content : undefined
}

/**
 * A judge reward model over the `HttpClient` in the context (see the module docs for the prompts, parsing and
 * retries): scores in `[0, 1]` (`(x − min) / (max − min)` of the judge's number on `config.scale`, default
 * `[0, 10]`), one request per candidate or step, at most `maxConcurrency` in flight. Scoring fails with
 * `JudgeAnswerError` (no number in the scale; the answer text is kept), `JudgeHttpError` (non-2xx after retries) or
 * `JudgeUnreachableError` (connection failure or timeout after retries). A scale without finite `min < max` is a
 * defect at construction. Source: Zheng et al. 2023, arXiv:2306.05685.
 * @category constructors
 */
export const make = (config: Config): Effect.Effect<RewardModelShape, never, HttpClient.HttpClient> =>
  Effect.gen(function* () {
    const client = yield* HttpClient.HttpClient
    const scale = config.scale ?? [0, 10]
    const [min, max] = scale
    if (!(Number.isFinite(min) && Number.isFinite(max) && max > min)) {
      return yield* Effect.die(new Error(`LlmJudge: scale must be [min, max] with finite min < max, got [${min}, ${max}]`))
    }
    const name = config.name ?? `llm-judge:${config.model}`
    const url = `${config.baseUrl.replace(/\/+$/, "")}/chat/completions`
    const timeout = config.timeout ?? Duration.seconds(60)
    const concurrency = config.maxConcurrency ?? 4
    const schedule = Schedule.exponential(config.retryBase ?? Duration.millis(200))
    const outcomeSystem = outcomeSystemPrompt(config.rubric ?? defaultRubric, scale)
    const stepSystem = stepSystemPrompt(config.rubric ?? defaultStepRubric, scale)

    const once = (messages: ReadonlyArray<ChatMessage>): Effect.Effect<string, JudgeError> => {
      let request = HttpClientRequest.post(url).pipe(
        HttpClientRequest.bodyJsonUnsafe({ model: config.model, messages, temperature: 0 })
      )
      if (config.apiKey !== undefined) request = HttpClientRequest.bearerToken(request, config.apiKey)
      return client.execute(request).pipe(
        Effect.flatMap((res) => Effect.map(res.text, (body) => [res.status, body] as const)),
        Effect.timeout(timeout),
        Effect.mapError((e): JudgeError =>
          new JudgeUnreachableError({
            model: name,
            url,
            reason: e._tag === "TimeoutError" ? `no answer within ${Duration.format(Duration.fromInputUnsafe(timeout))}` : messageOf(e)
          })
        ),
        Effect.flatMap(([status, body]): Effect.Effect<string, JudgeError> => {
          if (status < 200 || status >= 300) return Effect.fail(new JudgeHttpError({ model: name, url, status, body: body.slice(0, 1000) }))
          let json: unknown
          try {
            json = JSON.parse(body)
          } catch {
            return Effect.fail(new JudgeAnswerError({ model: name, answer: body.slice(0, 1000), reason: "the response body is not JSON" }))
          }
          const content = contentOf(json)
          if (content === undefined) {
            return Effect.fail(new JudgeAnswerError({ model: name, answer: body.slice(0, 1000), reason: "no choices[0].message.content" }))
          }
          return Effect.succeed(content)
        })
      )
    }

    const judge = (system: string, user: string): Effect.Effect<number, JudgeError> =>
      once([{ role: "system", content: system }, { role: "user", content: user }]).pipe(
        Effect.retry({ schedule, times: config.retries ?? 3, while: isTransient }),
        Effect.flatMap((answer) => {
          const v = parseScore(answer, scale)
          return v === undefined
            ? Effect.fail(new JudgeAnswerError({ model: name, answer, reason: `no number in [${fmt(min)}, ${fmt(max)}]` }))
            : Effect.succeed((v - min) / (max - min))
        })
      )

    return RewardModel.make(name, {
      outcome: (batch) => Effect.forEach(batch, (c) => judge(outcomeSystem, renderOutcome(c)), { concurrency }),
      steps: (flat, owner) => Effect.forEach(flat, (s, i) => judge(stepSystem, renderStep(s, owner[i]!)), { concurrency })
    })
  })

/**
 * The judge as the `RewardModel` service, over the `HttpClient` in the context.
 * @category layers
 */
export const layer = (config: Config): Layer.Layer<RewardModel.RewardModel, never, HttpClient.HttpClient> => RewardModel.layer(make(config))

/**
 * The judge as the `RewardModel` service over `FetchHttpClient` (safe on Node 20).
 * @category layers
 */
export const layerFetch = (config: Config): Layer.Layer<RewardModel.RewardModel> => Layer.provide(layer(config), FetchHttpClient.layer)

/**
 * The judge as a plain {@link RewardModel.Scorer} over `fetch` (`FetchHttpClient`): `await judge.score(batch)` gives
 * scores in `[0, 1]`; failures reject with the same `JudgeAnswerError` / `JudgeHttpError` / `JudgeUnreachableError`
 * as {@link make}. Synchronous to build (no request is sent until scoring).
 * @category plain
 * @since 0.2.0
 */
export const create = (config: Config): RewardModel.Scorer =>
  RewardModel.toScorer(Effect.runSync(make(config).pipe(Effect.provide(FetchHttpClient.layer))))

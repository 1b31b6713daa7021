/**
 * The prompt of the Voyager-style skill writer (`SkillWriter`): a system message (the writer's role, the guest API of
 * a text-environment skill, the environment's rules, the answer format) and a user message (the task, example
 * skills, trajectories, earlier errors and, on a retry, the feedback of the previous attempt), each section clipped
 * to {@link PromptLimits} (Wang et al. 2023, "Voyager: An Open-Ended Embodied Agent with Large Language Models",
 * arXiv:2305.16291, Sec. 2.2–2.3: iterative prompting with execution errors and self-verification).
 *
 * **When to use**: `SkillWriter.write` builds the prompt itself; call {@link buildPrompt} or the section builders to
 * inspect or reuse it (e.g. to log what a model saw, or to prompt another model the same way).
 *
 * **Details**: every function is pure and returns plain text (or `effect/ai` prompt messages). Sizes are in
 * characters; {@link defaultLimits} lists the defaults, and the `SkillWriter` module docs say how the user message is
 * fitted to `maxPromptChars` (trajectories, then examples, dropped from the end, then the text clipped in the middle).
 *
 * @see Wang et al., "Voyager: An Open-Ended Embodied Agent with Large Language Models", arXiv:2305.16291
 * @since 0.1.0
 */
import type { Prompt } from "effect/ai"
import type * as Discovery from "./Discovery.js"
import { clip, clipMiddle, oneLine } from "./internal/Text.js"
import type * as Skill from "./Skill.js"

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

/**
 * What a prompt is built from: the fields of `SkillWriter.WriteRequest` the prompt shows.
 * @since 0.1.0
 */
export interface PromptRequest {
  /** What the skill should do (Voyager's task), in words. */
  readonly task: string
  /** The environment's rules / extra guest API notes, appended to {@link GUEST_API}. */
  readonly environment?: string
  /** Force the skill's name (the model's name is replaced by it). */
  readonly name?: string
  readonly trajectories?: ReadonlyArray<TrajectoryInput>
  /** Earlier errors (e.g. from running an earlier version), shown in the first prompt. */
  readonly errors?: ReadonlyArray<string>
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

/** Where an attempt failed. */
export type Stage = "parse" | "decode" | "name" | "compile" | "test" | "verifier" | "check"

/** Why an attempt failed (fed back verbatim, clipped, to the next prompt). */
export interface AttemptError {
  readonly stage: Stage
  readonly message: string
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

/** The guest API of a text-environment skill (what `SkillOptions` and `EpisodeCheck.episodeCheck` grant). */
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
  request: PromptRequest,
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


/**
 * The household agent with an LLM policy (`--llm-base-url URL`): the same task stream ({@link Stream}) played by the
 * ReAct LLM policy of `@autodidact/llm` through any OpenAI-compatible chat-completions endpoint, improved over the
 * stream without weight updates by the in-context learners, each update gated by the release gate.
 *
 * - Recording: the run starts the recording gateway (`Gateway.start`, loopback, any free port) in front of the
 *   endpoint; every model call of the run (policy steps, learner calls, gate evaluations) goes through it and is
 *   recorded into `<out>/llm/sessions/*.jsonl` (`Recorder.layerJsonl`; session `household-<seed>`, keys redacted).
 * - The stream, in blocks of `learnEvery` tasks: each task gets a group of `groupSize` rollouts with the promoted
 *   experiences in the prompt (Training-Free GRPO's rollouts, `TrainingFreeGrpo.train` with one epoch on the block,
 *   its library starting from the promoted one); the task's outcome is the share of its group that succeeded
 *   (scored before anything learns from it, as Evo-Memory's streaming evaluation asks) and goes to
 *   {@link StreamMetrics} (forward-transfer baseline: the random policy on the same task, as {@link Agent}). These
 *   rollouts sample at Training-Free GRPO's `rolloutTemperature` (0.7); the gate's evaluations at the provider's
 *   default temperature.
 * - Learning, after each block: a candidate = Training-Free GRPO's library after the block's update (semantic group
 *   advantages → ADD/MODIFY/DELETE; Cai et al., arXiv:2510.08191) and ExpeL insights extracted from the block's
 *   successes and failures (`Expel.extract`, starting from the promoted insights; Zhao et al., arXiv:2308.10144).
 * - Gate: `ReleaseGate.gate` evaluates the promoted and the candidate prompts on a fixed held-out set of `gateTasks`
 *   seen-family tasks (train split, seeds drawn apart from the stream's) and promotes the candidate only if it fixes
 *   more tasks than it breaks (AgentDevel's flip-centred rule, arXiv:2601.04620). An unchanged candidate is not
 *   evaluated (row with `accepted: false`, `reason: "unchanged"`).
 *
 * The generator's phases count stream tasks here (the seen phase lasts `seenFraction · tasks` tasks), not env steps:
 * an LLM run is budgeted in tasks (model calls), not in the millions of env steps of the DRRN agent.
 *
 * Writes one run directory (core `RunDirectory`, as {@link Agent}): `config.json`; `metrics.jsonl` with a `stream`
 * row per task (`taskSuccess`, `streamSuccess`, `unseenSuccess`, `forwardTransfer`, `forgetting`, tokens), a `learn`
 * row and a `gate` row per block (`accepted`, `fixed`, `broken`, both pass rates, library and insight sizes), and a
 * `summary` row; `experiences.json` (the promoted library snapshot and insights, rewritten at each promotion);
 * `trajectories/stream.jsonl` (core `TextEpisode`s as {@link Agent} writes them, here every rollout of every stream
 * task, labelled with its stream position and attempt, with the model's thought as each step's dashboard `notes`:
 * `LlmRollout.toTextEpisode`; rewritten after each block); `llm/sessions/*.jsonl` (the gateway's recording).
 * @since 0.0.0
 */
import { InvalidOptionError, Rng, TextEpisode } from "@autodidact/core"
import { AtomicFile, RunDirectory } from "@autodidact/core/node"
import { Expel, ExperienceLibrary, Gateway, LlmConfigError, LlmRollout, LlmPolicy, OpenAiCompat, Recorder, ReleaseGate, TrainingFreeGrpo } from "@autodidact/llm"
import { type GroupRollout, TextTasks } from "@autodidact/optim"
import { Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import * as path from "node:path"
import { parseArgs } from "node:util"
import * as Stream from "./Stream.js"
import { StreamMetrics, streamRow, summaryFigures, type SummaryFigures } from "./StreamMetrics.js"

const ENV_ID = "TextHousehold-v0"

/** Which in-context learners propose the candidate. */
export type Learner = "both" | "grpo" | "expel"

/** What an LLM run takes. */
export interface LlmAgentOptions {
  /** The run directory. */
  readonly out: string
  /** The OpenAI-compatible API root, e.g. `http://127.0.0.1:8000/v1` (`--llm-base-url`). */
  readonly llmBaseUrl: string
  /** Model name sent in each request (`--llm-model`; default `AUTODIDACT_LLM_MODEL`). */
  readonly llmModel?: string | undefined
  /**
   * Name of the environment variable holding the API key (`--llm-api-key-env`; default: `AUTODIDACT_LLM_API_KEY`,
   * then `OPENAI_API_KEY`). A non-loopback endpoint without a key is refused. The key is never written to the run.
   */
  readonly llmApiKeyEnv?: string | undefined
  /** Seed of the stream, the rollouts and the gate's tasks (non-negative integer). */
  readonly seed: number
  /** Stream tasks played (positive integer; a `stream` file may end earlier). */
  readonly tasks: number
  /** A JSON-lines stream file instead of the generator. */
  readonly stream?: string | undefined
  /** Share of `tasks` in the generator's seen phase, in [0, 1]. */
  readonly seenFraction: number
  /** TextHousehold difficulty: easy, default or hard. */
  readonly difficulty: string
  /** Step limit of an episode (default: the setup's, 50). */
  readonly maxSteps?: number | undefined
  /** Rollouts per stream task (≥ 2: Training-Free GRPO compares a group). */
  readonly groupSize: number
  /** Stream tasks per learning step (and gate decision). */
  readonly learnEvery: number
  /** Held-out seen tasks the gate evaluates both prompts on. */
  readonly gateTasks: number
  /** The in-context learners that propose the candidate. */
  readonly learner: Learner
  /** Replace an existing run directory. */
  readonly overwrite: boolean
  /** The environment to read the model name and key from (default `process.env`). */
  readonly env?: { readonly [key: string]: string | undefined } | undefined
  /** A line of progress (stderr in the command line). */
  readonly log?: ((line: string) => void) | undefined
}

/** Defaults of everything but `out` and `llmBaseUrl`. */
export const defaults: Omit<LlmAgentOptions, "out" | "llmBaseUrl"> = {
  seed: 1,
  tasks: 40,
  seenFraction: 0.5,
  difficulty: "default",
  groupSize: 4,
  learnEvery: 8,
  gateTasks: 8,
  learner: "both",
  overwrite: false
}

/** What a run reports (also its `summary` row). */
export interface LlmSummary extends SummaryFigures {
  readonly run: string
  readonly seed: number
  readonly model: string
  readonly learner: Learner
  readonly gateDecisions: number
  readonly promotions: number
  readonly librarySize: number
  readonly insights: number
  readonly inputTokens: number
  readonly outputTokens: number
  readonly wallSeconds: number
}

const positiveInt = (name: string, v: number, min = 1) => {
  if (!Number.isSafeInteger(v) || v < min) throw new InvalidOptionError({ option: name, value: v, reason: `must be an integer ≥ ${min}` })
}

/** Validate the non-endpoint options; throws InvalidOptionError naming the first bad one. */
export const validate = (o: LlmAgentOptions): LlmAgentOptions => {
  if (!Number.isSafeInteger(o.seed) || o.seed < 0) throw new InvalidOptionError({ option: "seed", value: o.seed, reason: "must be a non-negative integer" })
  positiveInt("tasks", o.tasks)
  positiveInt("groupSize", o.groupSize, 2)
  positiveInt("learnEvery", o.learnEvery)
  positiveInt("gateTasks", o.gateTasks)
  if (o.maxSteps !== undefined) positiveInt("maxSteps", o.maxSteps)
  if (!(o.seenFraction >= 0 && o.seenFraction <= 1)) throw new InvalidOptionError({ option: "seenFraction", value: o.seenFraction, reason: "must be in [0, 1]" })
  if (!["easy", "default", "hard"].includes(o.difficulty)) throw new InvalidOptionError({ option: "difficulty", value: o.difficulty, reason: "must be easy, default or hard" })
  if (!["both", "grpo", "expel"].includes(o.learner)) throw new InvalidOptionError({ option: "learner", value: o.learner, reason: "must be both, grpo or expel" })
  if (o.out.length === 0) throw new InvalidOptionError({ option: "out", value: o.out, reason: "must name a directory" })
  return o
}

const FLAG: Record<string, string> = { baseUrl: "--llm-base-url", model: "--llm-model", apiKey: "--llm-api-key-env" }

/**
 * The endpoint of the options, resolved and checked by `OpenAiCompat.resolveConfig`; its `LlmConfigError` names the
 * command-line flag (`--llm-base-url` for a missing or malformed URL, `--llm-model`, `--llm-api-key-env`).
 */
export const resolveEndpoint = (o: Pick<LlmAgentOptions, "llmBaseUrl" | "llmModel" | "llmApiKeyEnv" | "env">): Effect.Effect<OpenAiCompat.Config, LlmConfigError> => {
  const env = o.env ?? process.env
  const apiKey = o.llmApiKeyEnv === undefined ? undefined : env[o.llmApiKeyEnv]
  if (o.llmApiKeyEnv !== undefined && (apiKey === undefined || apiKey === "")) {
    return Effect.fail(new LlmConfigError({ option: "--llm-api-key-env", value: o.llmApiKeyEnv, reason: "names an unset or empty environment variable" }))
  }
  return OpenAiCompat.resolveConfig({ baseUrl: o.llmBaseUrl, model: o.llmModel, apiKey, env }).pipe(
    Effect.mapError((e) => new LlmConfigError({ option: FLAG[e.option] ?? e.option, value: e.option === "apiKey" ? null : e.value, reason: e.reason }))
  )
}

interface Learned {
  readonly library: ExperienceLibrary.Snapshot
  readonly insights: Expel.Insights
}

/**
 * The prompt block of promoted (or candidate) experiences: the insights, then the library (the order in which
 * `TrainingFreeGrpo.train` joins the policy's own block and its library), "" when both are empty.
 */
const rendered = (l: Learned): string =>
  [l.insights.insights.length > 0 ? Expel.render(l.insights) : "", l.library.experiences.length > 0 ? ExperienceLibrary.render(l.library) : ""].filter((s) => s.length > 0).join("\n\n")

/**
 * Run the LLM agent over the stream and write the run directory; returns the summary. Fails with InvalidOptionError
 * for bad options, `LlmConfigError` naming the flag of a bad endpoint, `ServerStartError` when the gateway cannot
 * bind, the run directory's and recorder's errors. Model and env failures inside episodes count as failed episodes.
 */
export const run = (input: Partial<LlmAgentOptions> & { readonly out: string; readonly llmBaseUrl: string }): Effect.Effect<LlmSummary, Error> =>
  Effect.scoped(Effect.gen(function*() {
    const o = yield* Effect.try({ try: () => validate({ ...defaults, ...input }), catch: (e) => e as Error })
    const endpoint = yield* resolveEndpoint(o)
    const log = o.log ?? (() => {})
    const setup = yield* Effect.try({ try: () => TextTasks.setupFor(ENV_ID, { difficulty: o.difficulty, maxSteps: o.maxSteps }), catch: (e) => e as Error })
    const stream = yield* Effect.try({
      try: () => (o.stream === undefined ? Stream.generator(o.seed, Math.round(o.seenFraction * o.tasks)) : Stream.fromFile(o.stream)),
      catch: (e) => e as Error
    })
    const runDir = yield* RunDirectory.open(o.out, {
      command: "household-agent",
      policy: "llm",
      env: ENV_ID,
      algo: `llm-${o.learner}`,
      seed: o.seed,
      model: endpoint.model,
      baseUrl: endpoint.baseUrl,
      stream: stream.description,
      agent: { ...o, log: undefined, out: undefined, env: undefined },
      startedAt: new Date().toISOString()
    }, { overwrite: o.overwrite })

    // the recording gateway in front of the endpoint; the model layer talks to it (loopback: no key needed there)
    const gw = yield* Gateway.start({ upstream: endpoint.baseUrl, upstreamApiKey: endpoint.apiKey }).pipe(
      Effect.provide(Layer.mergeAll(Recorder.layerJsonl(path.join(o.out, "llm")), FetchHttpClient.layer))
    )
    const model = OpenAiCompat.layerFetch({
      baseUrl: `${gw.url}/v1`,
      model: endpoint.model,
      headers: { [Gateway.headers.session]: `household-${o.seed}` },
      env: {}
    })

    const started = performance.now()
    const wall = () => (performance.now() - started) / 1000
    const envs = [setup.makeEnv()]
    const baselineEnv = setup.makeEnv()
    const rng = Rng.make([o.seed, 0x11a6])
    const gateRng = Rng.make([o.seed, 0x6a7e])
    const gateTasks: Array<GroupRollout.Task> = Array.from({ length: o.gateTasks }, (_, k) =>
      Stream.envTask({
        index: k,
        family: Stream.SEEN_FAMILIES[gateRng.integers(Stream.SEEN_FAMILIES.length)]!,
        split: "train",
        seed: 1_000_000 + gateRng.integers(1_000_000), // apart from the generator's seeds (< 10^6)
        novelty: "seen",
        revisit: false,
        key: ""
      }))
    const basePolicy = LlmPolicy.config({ instruction: "You are a household robot acting in a text environment. Solve the task in as few steps as possible." })
    const maxSteps = setup.maxSteps
    const metrics = new StreamMetrics()
    const transcripts: Array<string> = []
    const transcriptsFile = path.join(o.out, "trajectories", "stream.jsonl")
    let promoted: Learned = { library: ExperienceLibrary.empty, insights: Expel.empty }
    let streamTasks = 0
    let gateDecisions = 0
    let promotions = 0
    let inputTokens = 0
    let outputTokens = 0

    const program = Effect.gen(function*() {
      for (let block = 0; streamTasks < o.tasks; block++) {
        const tasks: Array<Stream.StreamTask> = []
        while (tasks.length < o.learnEvery && streamTasks + tasks.length < o.tasks) {
          const t = stream.next(streamTasks + tasks.length)
          if (t === undefined) break
          tasks.push(t)
        }
        if (tasks.length === 0) break
        // rollouts with the promoted prompt (scored before learning) and Training-Free GRPO's candidate library
        const groups: Array<LlmRollout.LlmGroup> = []
        const policy = { ...basePolicy, experiences: promoted.insights.insights.length > 0 ? Expel.render(promoted.insights) : "" }
        const tf = yield* TrainingFreeGrpo.train(envs, tasks.map(Stream.envTask), policy, {
          epochs: 1,
          groupSize: o.groupSize,
          maxSteps,
          seed: (o.seed * 7919 + block) % 2_147_483_647,
          updateLibrary: o.learner !== "expel"
        }, { onGroup: (g) => groups.push(g) }).pipe(Effect.provide(ExperienceLibrary.layerMemory(promoted.library)))
        const epoch = tf.epochs[0]
        inputTokens += epoch?.inputTokens ?? 0
        outputTokens += epoch?.outputTokens ?? 0
        groups.forEach((g, i) => {
          const st = tasks[i]!
          const n = g.trajectories.length + g.failures.length
          const success = n === 0 ? 0 : g.trajectories.filter((t) => t.success).length / n
          const baseline = Stream.randomBaseline(baselineEnv, st, rng, maxSteps)
          const snap = metrics.add({ key: st.key, novelty: st.novelty, success, baseline })
          streamTasks++
          runDir.append(streamRow(st, success, baseline, snap, { globalStep: streamTasks, wallSeconds: wall() }, { failedEpisodes: g.failures.length }))
          g.trajectories.forEach((tr, j) =>
            transcripts.push(TextEpisode.toJsonLine(LlmRollout.toTextEpisode(tr, { task: Stream.transcriptTask(tr.task, st, { k: j + 1, n: g.trajectories.length }) })))
          )
        })
        yield* AtomicFile.write(transcriptsFile, transcripts.join(""))
        // ExpeL insights from the block's successes and failures (no extra rollouts)
        let insights = promoted.insights
        let extractionCalls = 0
        if (o.learner !== "grpo") {
          const experience: Array<Expel.TaskExperience> = groups.map((g) => ({
            task: g.task,
            successes: g.trajectories.filter((t) => t.success),
            failures: g.trajectories.filter((t) => !t.success)
          }))
          insights = yield* Expel.extract(experience, promoted.insights, { policy: basePolicy, maxSteps }, { onExtraction: () => void extractionCalls++ })
        }
        const candidate: Learned = { library: o.learner === "expel" ? promoted.library : tf.library, insights }
        runDir.append({
          kind: "learn",
          globalStep: streamTasks,
          wallSeconds: wall(),
          block,
          groupsWithSignal: epoch?.groupsWithSignal ?? 0,
          advantages: epoch?.advantages ?? 0,
          libraryOperations: epoch?.operations ?? {},
          extractionCalls,
          candidateLibrarySize: candidate.library.experiences.length,
          candidateInsights: candidate.insights.insights.length
        })
        // the release gate on the held-out seen tasks
        const before = rendered(promoted)
        const after = rendered(candidate)
        gateDecisions++
        if (after === before) {
          runDir.append({ kind: "gate", globalStep: streamTasks, wallSeconds: wall(), block, accepted: false, reason: "unchanged", fixed: [], broken: [], tasks: gateTasks.length })
          continue
        }
        const d = yield* ReleaseGate.gate(envs, gateTasks, { ...basePolicy, experiences: before }, { ...basePolicy, experiences: after }, { maxSteps, seed: o.seed })
        inputTokens += d.baseline.inputTokens + d.candidate.inputTokens
        outputTokens += d.baseline.outputTokens + d.candidate.outputTokens
        runDir.append({
          kind: "gate",
          globalStep: streamTasks,
          wallSeconds: wall(),
          block,
          accepted: d.accepted,
          reason: d.reason,
          fixed: d.fixed,
          broken: d.broken,
          tasks: d.tasks,
          baselinePassRate: d.baselinePassRate,
          candidatePassRate: d.candidatePassRate,
          librarySize: candidate.library.experiences.length,
          insights: candidate.insights.insights.length
        })
        if (d.accepted) {
          promoted = candidate
          promotions++
          yield* AtomicFile.write(path.join(o.out, "experiences.json"), `${JSON.stringify({ block, library: promoted.library, insights: promoted.insights }, null, 2)}\n`)
        }
        log(`block ${block}: ${streamTasks}/${o.tasks} tasks, stream success ${metrics.snapshot().streamSuccess?.toFixed(3) ?? "-"}, gate ${d.accepted ? "accepted" : "rejected"} (${d.reason})`)
      }
    })
    yield* program.pipe(Effect.provide(model))

    const snap = metrics.snapshot()
    const summary: LlmSummary = {
      run: o.out,
      seed: o.seed,
      model: endpoint.model,
      learner: o.learner,
      ...summaryFigures(snap, streamTasks),
      gateDecisions,
      promotions,
      librarySize: promoted.library.experiences.length,
      insights: promoted.insights.insights.length,
      inputTokens,
      outputTokens,
      wallSeconds: wall()
    }
    runDir.append({ kind: "summary", ...summary })
    return summary
  }))

/** Whether a command line asks for the LLM policy (`--llm-base-url` given). */
export const wanted = (argv: ReadonlyArray<string>): boolean => argv.some((a) => a === "--llm-base-url" || a.startsWith("--llm-base-url="))

/**
 * The options of an LLM command line: `--llm-base-url URL --out DIR [--llm-model NAME] [--llm-api-key-env VAR]
 * [--seed N] [--tasks N] [--stream FILE] [--seen-fraction X] [--difficulty D] [--max-steps N] [--group-size N]
 * [--learn-every N] [--gate-tasks N] [--learner both|grpo|expel] [--overwrite] [--quiet]`. Throws InvalidOptionError
 * naming a missing flag or a bad number (the URL itself is checked by {@link run}: `LlmConfigError`).
 */
export const parse = (argv: ReadonlyArray<string>): Partial<LlmAgentOptions> & { readonly out: string; readonly llmBaseUrl: string } => {
  // flag → [option, kind]
  const flags: Record<string, readonly [string, "string" | "number" | "boolean"]> = {
    out: ["out", "string"],
    "llm-base-url": ["llmBaseUrl", "string"],
    "llm-model": ["llmModel", "string"],
    "llm-api-key-env": ["llmApiKeyEnv", "string"],
    seed: ["seed", "number"],
    tasks: ["tasks", "number"],
    stream: ["stream", "string"],
    "seen-fraction": ["seenFraction", "number"],
    difficulty: ["difficulty", "string"],
    "max-steps": ["maxSteps", "number"],
    "group-size": ["groupSize", "number"],
    "learn-every": ["learnEvery", "number"],
    "gate-tasks": ["gateTasks", "number"],
    learner: ["learner", "string"],
    overwrite: ["overwrite", "boolean"],
    quiet: ["quiet", "boolean"]
  }
  const { values } = parseArgs({
    args: [...argv],
    options: Object.fromEntries(Object.entries(flags).map(([f, [, kind]]) => [f, { type: kind === "boolean" ? "boolean" as const : "string" as const }])),
    strict: true
  })
  const out: Record<string, unknown> = {}
  for (const [f, [option, kind]] of Object.entries(flags)) {
    const v = values[f]
    if (v === undefined || option === "quiet") continue
    const n = Number(v)
    if (kind === "number" && (typeof v !== "string" || v.trim() === "" || !Number.isFinite(n))) throw new InvalidOptionError({ option: `--${f}`, value: v, reason: "must be a number" })
    out[option] = kind === "number" ? n : v
  }
  for (const f of ["out", "llm-base-url"]) {
    if (values[f] === undefined) throw new InvalidOptionError({ option: `--${f}`, value: "(missing)", reason: f === "out" ? "name the run directory to write" : "name the OpenAI-compatible API root" })
  }
  if (values["quiet"] !== true) out["log"] = (line: string) => process.stderr.write(`${line}\n`)
  return out as Partial<LlmAgentOptions> & { readonly out: string; readonly llmBaseUrl: string }
}

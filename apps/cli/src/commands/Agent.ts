/**
 * `autodidact agent eval|train`: an LLM agent on a text environment through any OpenAI-compatible chat-completions
 * endpoint (vLLM, llama.cpp's server, Ollama, a hosted API; or the recording `autodidact gateway` in front of one).
 *
 * - `agent eval` plays `--episodes` evaluation tasks with the ReAct {@link LlmPolicy} (optionally with an experience
 *   library learned earlier, `--library`) and prints the success rate, mean return/length, tokens and latency.
 * - `agent train` runs Training-Free GRPO (Cai et al., arXiv:2510.08191): per epoch a group of rollouts per task, the
 *   model summarizes them, extracts semantic advantages and edits the experience library (`<run>/library.json`, atomic
 *   writes, every version kept); with `--eval-episodes` the library is evaluated after each epoch. Rows go to
 *   `<run>/metrics.jsonl` (`kind: "epoch"` and `kind: "evaluation"`).
 *
 * The endpoint comes from `--base-url`/`--model`/`--api-key` or `AUTODIDACT_LLM_BASE_URL`, `AUTODIDACT_LLM_MODEL`,
 * `AUTODIDACT_LLM_API_KEY` (then `OPENAI_API_KEY`); a non-loopback URL without an API key is refused
 * (`LlmConfigError`). All the logic lives in `@autodidact/optim` and `@autodidact/llm`.
 * @since 0.1.0
 */
import { Rng } from "@autodidact/core"
import { TextTasks } from "@autodidact/optim"
import { ExperienceLibrary, LlmPolicy, LlmRollout, OpenAiCompat, TrainingFreeGrpo } from "@autodidact/llm"
import { Effect, Layer } from "effect"
import * as path from "node:path"
import * as Inputs from "../Inputs.js"
import * as Output from "../Output.js"
import * as RunDirectory from "../RunDirectory.js"
import { versions } from "../Versions.js"
import type { Configs } from "../Commands.js"

const some = <A>(o: { readonly _tag: "Some"; readonly value: A } | { readonly _tag: "None" }): A | undefined => (o._tag === "Some" ? o.value : undefined)

interface EndpointConfig {
  readonly baseUrl: { readonly _tag: "Some"; readonly value: string } | { readonly _tag: "None" }
  readonly model: { readonly _tag: "Some"; readonly value: string } | { readonly _tag: "None" }
  readonly apiKey: { readonly _tag: "Some"; readonly value: string } | { readonly _tag: "None" }
  readonly temperature: { readonly _tag: "Some"; readonly value: number } | { readonly _tag: "None" }
  readonly toolCalling: boolean
  readonly fallback: LlmPolicy.Fallback
}

/** The model layer of the endpoint flags. */
const modelLayer = (c: EndpointConfig) =>
  OpenAiCompat.layerFetch({ baseUrl: some(c.baseUrl), model: some(c.model), apiKey: some(c.apiKey) })

/** The policy of the endpoint flags (the provider layer reads the policy's `LlmPolicy.Temperature` per call). */
const policyConfig = (c: EndpointConfig, experiences: string): LlmPolicy.Config =>
  LlmPolicy.config({
    toolCalling: c.toolCalling,
    fallback: c.fallback,
    experiences,
    temperature: some(c.temperature)
  })

const setupOf = (c: { readonly env: string; readonly difficulty: { _tag: "Some"; value: string } | { _tag: "None" }; readonly split: { _tag: "Some"; value: string } | { _tag: "None" }; readonly maxSteps: { _tag: "Some"; value: number } | { _tag: "None" } }) =>
  Effect.try({
    try: () => TextTasks.setupFor(c.env, { difficulty: some(c.difficulty), split: some(c.split), maxSteps: some(c.maxSteps) }),
    catch: (e) => e as Error
  })

/** `autodidact agent eval` (counts are range-checked when the flags are parsed: Flags.ts) */
export const handleAgentEval = (c: Configs["agent eval"]): Effect.Effect<void, unknown> =>
    Effect.gen(function* () {
      const setup = yield* setupOf(c)
      const libraryFile = some(c.library)
      // an experience library is read, never created here: a missing or empty file is a mistake, not an empty library
      if (libraryFile !== undefined) yield* Inputs.requireNonEmptyFile("library", libraryFile)
      const experiences = libraryFile === undefined
        ? ""
        : ExperienceLibrary.render(yield* ExperienceLibrary.ExperienceLibrary.use((l) => l.current).pipe(Effect.provide(ExperienceLibrary.layerFile(libraryFile))))
      const envs = Array.from({ length: c.concurrency }, () => setup.makeEnv())
      const tasks = Array.from({ length: c.episodes }, (_, k) => setup.evalTask(k))
      const result = yield* LlmRollout.evaluate(envs, policyConfig(c, experiences), tasks, {
        maxSteps: setup.maxSteps,
        concurrency: c.concurrency,
        envId: setup.envId
      }, {
        onEpisode: (row) => { if (c.json) console.log(JSON.stringify(row)) }
      }).pipe(Effect.provide(modelLayer(c)))
      Output.printSummary(c.json, `LLM agent on ${setup.envId} (${setup.evalName})`, { env: setup.envId, ...result.row })
    })

/** `autodidact agent train` (counts are range-checked when the flags are parsed: Flags.ts) */
export const handleAgentTrain = (c: Configs["agent train"]): Effect.Effect<void, unknown> =>
    Effect.gen(function* () {
      const setup = yield* setupOf(c)
      const dir = some(c.run) ?? path.join("runs", `agent-${setup.envId}-${c.seed}`)
      const config = {
        command: "agent train",
        method: c.method,
        env: setup.envId,
        difficulty: some(c.difficulty) ?? null,
        epochs: c.epochs,
        groupSize: c.groupSize,
        tasks: c.tasks,
        evalEpisodes: c.evalEpisodes,
        seed: c.seed,
        model: some(c.model) ?? process.env["AUTODIDACT_LLM_MODEL"] ?? null,
        baseUrl: some(c.baseUrl) ?? process.env["AUTODIDACT_LLM_BASE_URL"] ?? null,
        temperature: some(c.temperature) ?? null,
        toolCalling: c.toolCalling,
        versions
      }
      const run = yield* RunDirectory.open(dir, config, { overwrite: c.overwrite })
      const rng = Rng.make(c.seed)
      const tasks = Array.from({ length: c.tasks }, () => setup.trainTask(rng))
      const evalTasks = Array.from({ length: c.evalEpisodes }, (_, k) => setup.evalTask(k))
      const envs = Array.from({ length: c.concurrency }, () => setup.makeEnv())
      const libraryFile = path.join(dir, "library.json")
      const result = yield* TrainingFreeGrpo.train(envs, tasks, policyConfig(c, ""), {
        epochs: c.epochs,
        groupSize: c.groupSize,
        maxSteps: setup.maxSteps,
        concurrency: c.concurrency,
        seed: c.seed,
        evalTasks
      }, {
        onEpoch: (row) => {
          run.append(row)
          Output.note(c.json, `epoch ${row.epoch}: success ${row.successRate.toFixed(3)}, ${row.groupsWithSignal}/${row.groups} groups with signal, library v${row.libraryVersion} (${row.librarySize} experiences)`)
          if (c.json) console.log(JSON.stringify(row))
        },
        onEvaluation: (row) => {
          run.append(row)
          if (c.json) console.log(JSON.stringify(row))
        }
      }).pipe(Effect.provide(Layer.merge(modelLayer(c), ExperienceLibrary.layerFile(libraryFile))))
      const last = result.epochs[result.epochs.length - 1]
      const lastEval = result.evaluations[result.evaluations.length - 1]
      Output.printSummary(c.json, "Training-Free GRPO", {
        run: dir,
        env: setup.envId,
        epochs: result.epochs.length,
        firstEpochSuccess: result.epochs[0]?.successRate ?? null,
        lastEpochSuccess: last?.successRate ?? null,
        evalSuccess: lastEval?.successRate ?? null,
        libraryVersion: result.library.version,
        librarySize: result.library.experiences.length,
        library: libraryFile
      })
    })

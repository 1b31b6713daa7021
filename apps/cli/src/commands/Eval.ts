/**
 * `autodidact eval --run runs/x --episodes 100`: load a run's checkpoint, play episodes with the trained policy
 * and print the mean and standard deviation of the return. Appends a `kind: "evaluation"` row to `metrics.jsonl`.
 * Text runs: the success rate on the evaluation tasks (`--split`); TextHousehold-v0 `--task-types F,...|all` plays
 * `--episodes` tasks of each family and prints a row per family.
 * @since 0.1.0
 */
import { Registry, TextHouseholdWorld } from "@autodidact/envs"
import { Evaluate } from "@autodidact/optim"
import { Checkpoint } from "@autodidact/optim/node"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Output from "../Output.js"
import * as RunDirectory from "../RunDirectory.js"
import { evaluateText, isTextEnvId } from "./TextTrain.js"
import { checkpointPath, TrainConfigError } from "./Train.js"
import { commaList, type Configs } from "../Commands.js"

/** What an evaluation reports. */
export interface EvalSummary {
  readonly run: string
  readonly env: string
  readonly episodes: number
  readonly greedy: boolean
  readonly meanReturn: number
  readonly stdReturn: number
  readonly minReturn: number
  readonly maxReturn: number
  readonly meanLength: number
  readonly solveThreshold: number | null
}

/** Evaluate the policy saved in `runDir` for `episodes` episodes (seeds `seed`, `seed + 1`, ...). */
export const evaluate = (runDir: string, options: { readonly episodes: number; readonly seed: number; readonly greedy: boolean }) =>
  Effect.gen(function* () {
    if (!Number.isSafeInteger(options.episodes) || options.episodes <= 0) {
      return yield* new TrainConfigError({ option: "episodes", value: options.episodes, reason: "must be a positive integer" })
    }
    const config = yield* RunDirectory.readConfig(runDir)
    const envId = config["env"]
    if (typeof envId !== "string") {
      return yield* new RunDirectory.RunDirectoryError({ path: runDir, reason: "config.json has no env id" })
    }
    const state = yield* Checkpoint.load(checkpointPath(runDir))
    const env = yield* Effect.acquireRelease(
      Effect.try({ try: () => Registry.make(envId), catch: (e) => e }),
      (e) => Effect.sync(() => e.close())
    )
    const report = yield* Evaluate.run(state.agent, env, { episodes: options.episodes, seed: options.seed, greedy: options.greedy })
    const summary: EvalSummary = {
      run: runDir,
      env: envId,
      episodes: report.returns.length,
      greedy: options.greedy,
      meanReturn: Number(report.mean.toFixed(3)),
      stdReturn: Number(report.std.toFixed(3)),
      minReturn: Math.min(...report.returns),
      maxReturn: Math.max(...report.returns),
      meanLength: Number(report.meanLength.toFixed(2)),
      solveThreshold: Registry.spec(envId).rewardThreshold ?? null
    }
    yield* Effect.sync(() =>
      fs.appendFileSync(path.join(runDir, "metrics.jsonl"), JSON.stringify(RunDirectory.relativeRow(runDir, { kind: "evaluation", globalStep: state.globalStep, ...summary })) + "\n")
    )
    return summary
  }).pipe(Effect.scoped)

/**
 * The TextHousehold task families of `eval --task-types` (`all`: the six, in `TASK_TYPES` order); fails with
 * TrainConfigError naming the value for another env or an unknown family.
 */
const householdFamilies = (envId: unknown, value: string): Effect.Effect<ReadonlyArray<string>, TrainConfigError> => {
  if (envId !== "TextHousehold-v0") {
    return Effect.fail(new TrainConfigError({ option: "task-types", value, reason: `applies to TextHousehold-v0 runs (this run's env is ${String(envId)})` }))
  }
  const known: ReadonlyArray<string> = TextHouseholdWorld.TASK_TYPES
  const names = value.trim() === "all" ? known : commaList(value)
  const unknown = names.find((n) => !known.includes(n))
  if (names.length === 0 || unknown !== undefined) {
    return Effect.fail(new TrainConfigError({ option: "task-types", value: unknown ?? value, reason: `expected \`all\` or comma-separated task families: ${known.join(", ")}` }))
  }
  return Effect.succeed(names)
}

/** `autodidact eval` */
export const handleEval = (config: Configs["eval"]): Effect.Effect<void, unknown> =>
    Effect.gen(function* () {
      const runConfig = yield* RunDirectory.readConfig(config.run)
      if (runConfig["command"] === "selfplay" || config.against._tag === "Some") {
        const { evaluateSelfplay, SelfPlayRequestError } = yield* Effect.promise(() => import("./SelfPlay.js"))
        if (runConfig["command"] !== "selfplay") {
          return yield* new SelfPlayRequestError({ option: "against", value: config.against._tag === "Some" ? config.against.value : null, reason: `applies to a selfplay run; ${config.run} was written by ${String(runConfig["command"] ?? "another command")}` })
        }
        const summaries = yield* evaluateSelfplay(config.run, runConfig, {
          against: config.against._tag === "Some" ? config.against.value : "random",
          episodes: config.episodes,
          seed: config.seed,
          sample: config.sample,
          depth: config.depth._tag === "Some" ? config.depth.value : undefined
        })
        for (const s of summaries) Output.printSummary(config.json, `Evaluation against ${s.against}`, { ...s })
        return
      }
      if (typeof runConfig["env"] === "string" && isTextEnvId(runConfig["env"])) {
        if (!Number.isSafeInteger(config.episodes) || config.episodes <= 0) {
          return yield* new TrainConfigError({ option: "episodes", value: config.episodes, reason: "must be a positive integer" })
        }
        if (config.search._tag === "Some") {
          const { evaluateTextSearch } = yield* Effect.promise(() => import("./EvalSearch.js"))
          const summary = yield* evaluateTextSearch(config.run, runConfig, {
            episodes: config.episodes,
            split: config.split._tag === "Some" ? config.split.value : undefined,
            seed: config.seed,
            search: config.search.value,
            budget: config.budget,
            rollout: config.rollout,
            rolloutDepth: config.rolloutDepth._tag === "Some" ? config.rolloutDepth.value : undefined
          })
          Output.printSummary(config.json, "Evaluation with search", { ...summary })
          return
        }
        const options = {
          episodes: config.episodes,
          split: config.split._tag === "Some" ? config.split.value : undefined,
          greedy: !config.sample,
          seed: config.seed
        }
        if (config.taskTypes._tag === "Some") {
          const families = yield* householdFamilies(runConfig["env"], config.taskTypes.value)
          for (const family of families) {
            const summary = yield* evaluateText(config.run, runConfig, { ...options, taskTypes: [family] })
            Output.printSummary(config.json, `Evaluation: ${family}`, { ...summary })
          }
          return
        }
        const summary = yield* evaluateText(config.run, runConfig, options)
        Output.printSummary(config.json, "Evaluation", { ...summary })
        return
      }
      if (config.search._tag === "Some") {
        return yield* new TrainConfigError({ option: "search", value: config.search.value, reason: "applies to runs on a text env (TextHousehold-v0, Sokoban-6x6-1box-v0, TextFrozenLake-v1)" })
      }
      const summary = yield* evaluate(config.run, { episodes: config.episodes, seed: config.seed, greedy: !config.sample })
      Output.printSummary(config.json, "Evaluation", { ...summary })
    })

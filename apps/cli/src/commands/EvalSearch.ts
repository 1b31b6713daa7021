/**
 * `autodidact eval --run DIR --search mcts --budget N`: play a text run's evaluation tasks with a search before every
 * step, and the run's policy alone on the same tasks, and report both success rates (Wilson 95% intervals) and the env
 * steps the searches spent. The search is `@autodidact/search`'s MCTS with PUCT, its prior the run's DRRN action
 * probabilities and its leaf value a rollout of the same DRRN, sampled or greedy (`Drrn.prior`, `Drrn.rolloutValue`),
 * within the episode's step limit (`horizon`); a search that reaches the goal stops, and its plan (tree path plus
 * rollout) is followed without searching again while the state keys match (`stopAtGoal`, `followPlan`: the
 * text envs are deterministic). Appends a `kind: "evaluation"` row with `search` to `metrics.jsonl`.
 * @since 0.1.0
 */
import { Rng } from "@autodidact/core"
import { TextEnv } from "@autodidact/envs"
import { MultiTurnTrainer, TextTasks } from "@autodidact/optim"
import { Drrn, SearchPolicy } from "@autodidact/search"
import { Effect, Option } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as RunDirectory from "../RunDirectory.js"
import * as SkillEnv from "../SkillEnv.js"
import { loadPolicy, policyPath } from "./TextTrain.js"
import { TrainConfigError } from "./Train.js"

/** Options of {@link evaluateTextSearch}. */
export interface SearchEvalOptions {
  readonly episodes: number
  readonly split?: string | undefined
  /** Seed of the searches' generators (episode k: seed + k). */
  readonly seed: number
  readonly search: "mcts"
  /** Env steps per decision. */
  readonly budget: number
  /** Rollouts sample the DRRN (`"sample"`) or take its most probable action (`"greedy"`). */
  readonly rollout: "sample" | "greedy"
  /** Steps per rollout at most (default: the env's step limit). */
  readonly rolloutDepth?: number | undefined
}

const pct = (x: number): number => Number((100 * x).toFixed(1))

/** Evaluate the run's DRRN with MCTS before every step and alone, on the run's evaluation tasks 0 … episodes − 1. */
export const evaluateTextSearch = (
  runDir: string,
  config: Record<string, unknown>,
  options: SearchEvalOptions
): Effect.Effect<Record<string, string | number>, Error> =>
  Effect.gen(function* () {
    const envId = String(config["env"])
    if (Option.isSome(yield* SkillEnv.fromConfig(config))) {
      return yield* new TrainConfigError({ option: "search", value: options.search, reason: `${runDir} was trained with skills; search evaluates plain text envs only` })
    }
    const setup = yield* Effect.try({
      try: () => TextTasks.setupFor(envId, { difficulty: typeof config["difficulty"] === "string" ? config["difficulty"] : undefined, split: options.split }),
      catch: (e) => e as Error
    })
    const policy = yield* loadPolicy(policyPath(runDir))
    const env = setup.makeEnv()
    if (!TextEnv.isRestorableTextEnv(env)) {
      return yield* new TrainConfigError({ option: "search", value: options.search, reason: `${envId} has no snapshot()/restore()` })
    }
    const tasks = Array.from({ length: options.episodes }, (_, k) => setup.evalTask(k))
    const start = performance.now()
    const searcher = new SearchPolicy.SearchPolicy({
      search: {
        kind: "mcts",
        selection: "puct",
        budget: { envSteps: options.budget },
        prior: Drrn.prior(policy),
        value: Drrn.rolloutValue(policy, { depth: options.rolloutDepth ?? setup.maxSteps, greedy: options.rollout === "greedy" }),
        stopAtGoal: true,
        seed: options.seed
      },
      policy: Drrn.policy(policy),
      followPlan: true
    })
    const withSearch = yield* Effect.try({
      try: () => SearchPolicy.evaluate(env, searcher, tasks, { maxSteps: setup.maxSteps, seed: options.seed }),
      catch: (e) => e as Error
    })
    const searchSeconds = (performance.now() - start) / 1000
    const alone = MultiTurnTrainer.evaluate([setup.makeEnv()], MultiTurnTrainer.drrnTextPolicy(policy), setup.evalTask, options.episodes, Rng.make([options.seed, 0x5eed]), {
      maxSteps: setup.maxSteps,
      greedy: true
    })
    const aloneSuccesses = Math.round(alone.successRate * options.episodes)
    const summary = {
      run: runDir,
      env: envId,
      tasks: setup.evalName,
      episodes: options.episodes,
      search: `${options.search} (PUCT, DRRN prior, ${options.rollout} DRRN rollouts, goal plans followed)`,
      budget: options.budget,
      rolloutDepth: options.rolloutDepth ?? setup.maxSteps,
      successRate: withSearch.successRate,
      successInterval: `[${withSearch.successLow.toFixed(3)}, ${withSearch.successHigh.toFixed(3)}]`,
      policySuccessRate: alone.successRate,
      policySuccesses: aloneSuccesses,
      gainPoints: Number((pct(withSearch.successRate) - pct(alone.successRate)).toFixed(1)),
      meanLength: Number(withSearch.meanLength.toFixed(2)),
      searches: withSearch.decisions,
      searchEnvSteps: withSearch.searchEnvSteps,
      searchStepsPerDecision: Number(withSearch.searchStepsPerDecision.toFixed(1)),
      solvedSearches: withSearch.solvedSearches,
      searchSeconds: Number(searchSeconds.toFixed(1))
    }
    yield* Effect.sync(() => fs.appendFileSync(path.join(runDir, "metrics.jsonl"), JSON.stringify(RunDirectory.relativeRow(runDir, { kind: "evaluation", ...summary })) + "\n"))
    return summary
  })

/**
 * `autodidact train --env CartPole-v1 --algo ppo --seed 1 --total-steps 500000 --out runs/x [--until-solved]`:
 * train an agent and write a run directory (`config.json`, `metrics.jsonl`, `checkpoints/latest.json`); with
 * `--save-trajectories N`, also N greedy evaluation episodes of the trained policy in `trajectories/eval.jsonl`
 * (one `@autodidact/core` `Trajectory` per line, which the dashboard's episode viewer shows).
 * @since 0.1.0
 */
import { Policy, RolloutService, TextTrainer, Trainer } from "@autodidact/cluster"
import { Trajectory } from "@autodidact/core"
import { AtomicFile } from "@autodidact/core/node"
import { Registry } from "@autodidact/envs"
import { ActorCritic } from "@autodidact/optim"
import { Checkpoint, Ppo } from "@autodidact/optim/node"
import { Effect, Option, Schema } from "effect"
import * as path from "node:path"
import * as Output from "../Output.js"
import * as RunDirectory from "../RunDirectory.js"
import * as RunnerWait from "../RunnerWait.js"
import { versions } from "../Versions.js"
import { type Configs, textEnvIds } from "../Commands.js"
import { textEstimators } from "../Estimators.js"
import { isTextEnvId, trainText, trainTextCluster } from "./TextTrain.js"

/** A training request that cannot be carried out as given (unknown algorithm, no solve threshold, ...). */
export class TrainConfigError extends Schema.TaggedError<TrainConfigError>()("TrainConfigError", {
  option: Schema.String,
  value: Schema.Unknown,
  reason: Schema.String
}) {
  override get message() {
    return `--${this.option} ${JSON.stringify(this.value)}: ${this.reason}`
  }
}

/** Resolved options of a training run. */
export interface TrainRequest {
  readonly env: string
  readonly algo: string
  readonly seed: number
  readonly totalSteps: number
  readonly out: string
  readonly untilSolved: boolean
  readonly numEnvs: number
  readonly resume: boolean
  /** With `resume`: continue even if the seed, env or another result-changing key differs (recorded in config.json). */
  readonly resumeOverride?: boolean
  readonly overwrite: boolean
  readonly json: boolean
  /** Greedy evaluation episodes to write to `<out>/trajectories/eval.jsonl` after training (default 0: none). */
  readonly saveTrajectories?: number
  /** `postgres://...`: collect rollouts on the cluster runners registered there (`autodidact runner`). */
  readonly cluster?: string | undefined
  /** With `cluster`: fail with `RunnerWaitTimeoutError` when no runner has sent an episode after this many seconds. */
  readonly timeout?: number | undefined
  /** The command recorded in config.json (default `"train"`; `autodidact start` records `"start"`). */
  readonly command?: string | undefined
  /** The mean return (last 100 episodes) that counts as solved, instead of the env's threshold (not a flag: for tests). */
  readonly solveThreshold?: number | undefined
}

/** What a finished training run reports (the summary table, or the `--json` line). */
export interface TrainSummary {
  readonly run: string
  readonly env: string
  readonly algo: string
  readonly seed: number
  readonly stopReason: "solved" | "budget" | "aborted"
  readonly globalStep: number
  readonly episodes: number
  readonly meanReturnLast100: number
  readonly wallSeconds: number
  readonly checkpoint: string
  /** `<out>/trajectories/eval.jsonl`, when `--save-trajectories` was given. */
  readonly trajectories?: string
}

/** The checkpoint file of a run directory. */
export const checkpointPath = (runDir: string): string => path.join(runDir, "checkpoints", "latest.json")

/** The evaluation trajectories file of a run directory. */
export const trajectoriesPath = (runDir: string): string => path.join(runDir, "trajectories", "eval.jsonl")

/**
 * Play `episodes` greedy episodes of `agent` on a fresh `envId` (episode k reset with seed `seed + k`) and return
 * them as core `Trajectory` records: per step the observation it acted on (as a plain array), the action, the
 * reward and the end flags; `finalObservation` is the observation after the last step.
 */
export const playEpisodes = (
  agent: ActorCritic.ActorCritic,
  envId: string,
  episodes: number,
  seed: number,
  maxSteps = 100_000
): Effect.Effect<Array<Trajectory.Trajectory>, TrainConfigError> =>
  Effect.gen(function* () {
    const env = Registry.make(envId)
    try {
      const obsSpace = env.observationSpace
      const actSpace = env.actionSpace
      if (obsSpace._tag !== "Box" || actSpace._tag !== "Discrete") {
        return yield* new TrainConfigError({ option: "save-trajectories", value: envId, reason: "needs a Box observation space and a Discrete action space" })
      }
      const D = agent.obsDim
      const obs = new Float32Array(D)
      const action = new Int32Array(1)
      const out: Array<Trajectory.Trajectory> = []
      for (let k = 0; k < episodes; k++) {
        let current: unknown = env.reset({ seed: seed + k }).observation
        const steps: Array<Trajectory.Step> = []
        let done = false
        while (!done && steps.length < maxSteps) {
          const flat = current as ArrayLike<number>
          for (let i = 0; i < D; i++) obs[i] = flat[i]!
          ActorCritic.actGreedy(agent, obs, 1, action)
          const a = action[0]! + actSpace.start
          const r = env.step(a)
          steps.push({ observation: Trajectory.toJsonValue(current), action: a, reward: r.reward, terminated: r.terminated, truncated: r.truncated })
          done = r.terminated || r.truncated
          current = r.observation
        }
        out.push(Trajectory.fromSteps(envId, steps, { seed: seed + k, finalObservation: Trajectory.toJsonValue(current) }))
        yield* Effect.yieldNow
      }
      return out
    } finally {
      env.close()
    }
  })

/**
 * The end of a CartPole-style run (local or `--cluster`): the summary row, and with `saveTrajectories` that many
 * greedy evaluation episodes of the final policy in the core Trajectory schema (atomic write).
 */
const finishRun = (
  run: RunDirectory.RunDirectory,
  request: TrainRequest,
  result: {
    readonly agent: Parameters<typeof playEpisodes>[0]
    readonly stopReason: TrainSummary["stopReason"]
    readonly globalStep: number
    readonly episodes: number
    readonly meanRecentReturn: number
    readonly wallSeconds: number
  },
  checkpoint: string,
  saveTrajectories: number
) =>
  Effect.gen(function* () {
    const summary: TrainSummary = {
      ...RunDirectory.summaryHead(run, request),
      stopReason: result.stopReason,
      globalStep: result.globalStep,
      episodes: result.episodes,
      meanReturnLast100: Number(result.meanRecentReturn.toFixed(2)),
      wallSeconds: Number(result.wallSeconds.toFixed(2)),
      checkpoint,
      ...(saveTrajectories > 0 ? { trajectories: trajectoriesPath(run.dir) } : {})
    }
    if (saveTrajectories > 0) {
      const episodes = yield* playEpisodes(result.agent, request.env, saveTrajectories, request.seed * 1000)
      const file = trajectoriesPath(run.dir)
      yield* Effect.try({
        try: () => AtomicFile.writeSync(file, episodes.map((e) => JSON.stringify(e) + "\n").join("")),
        catch: (e) => new RunDirectory.RunDirectoryError({ path: file, reason: `cannot write trajectories: ${String(e)}` })
      })
      Output.note(request.json, `Wrote ${saveTrajectories} evaluation episode${saveTrajectories === 1 ? "" : "s"} (mean return ${(episodes.reduce((a, e) => a + e.return, 0) / episodes.length).toFixed(1)}) -> ${file}`)
    }
    run.append({ kind: "summary", ...summary })
    return summary
  })

/**
 * The checks both CartPole-style trainers (local and `--cluster`) make of a request: `--until-solved` needs an env
 * with a reward threshold, `--total-steps` a positive integer. Returns the env's threshold (undefined when it has
 * none); fails with {@link TrainConfigError} naming the flag, or the registry's `UnknownEnvError`.
 */
const checkBudget = (request: TrainRequest): Effect.Effect<number | undefined, TrainConfigError | Registry.UnknownEnvError> =>
  Effect.gen(function* () {
    const spec = yield* Effect.try({ try: () => Registry.spec(request.env), catch: (e) => e as Registry.UnknownEnvError })
    const threshold = request.solveThreshold ?? spec.rewardThreshold
    if (request.untilSolved && threshold === undefined) {
      return yield* new TrainConfigError({ option: "env", value: request.env, reason: "has no reward threshold, so --until-solved cannot tell when it is solved" })
    }
    if (!Number.isSafeInteger(request.totalSteps) || request.totalSteps <= 0) {
      return yield* new TrainConfigError({ option: "total-steps", value: request.totalSteps, reason: "must be a positive integer" })
    }
    return threshold
  })

/** The `config.json` fields both CartPole-style trainers record (each adds its own trainer's options). */
const runConfig = (request: TrainRequest, threshold: number | undefined) => ({
  command: request.command ?? "train",
  env: request.env,
  algo: request.algo,
  seed: request.seed,
  totalSteps: request.totalSteps,
  untilSolved: request.untilSolved,
  solveThreshold: threshold ?? null
})

/**
 * The progress bar of a CartPole-style run, showing the mean return of the last 100 episodes: `onEpisode` appends
 * the row to the run and advances the bar (to at most `--total-steps`); `stop` ends the bar.
 */
const episodeProgress = (run: RunDirectory.RunDirectory, request: TrainRequest) => {
  const bar = Output.progress(request.json, request.totalSteps, "{bar} {percentage}% | {value}/{total} steps | mean return (last 100) {meanReturn} | {eta_formatted} left")
  const recent: Array<number> = []
  let recentSum = 0
  return {
    onEpisode: (row: { readonly globalStep: number; readonly episodeReturn: number }) => {
      run.append(row)
      recent.push(row.episodeReturn)
      recentSum += row.episodeReturn
      if (recent.length > 100) recentSum -= recent.shift()!
      bar.update(Math.min(row.globalStep, request.totalSteps), { meanReturn: (recentSum / recent.length).toFixed(1) })
    },
    /** A run that stopped because it was solved: the bar completes at that step, and a line says why it stopped. */
    finish: (result: { readonly stopReason: string; readonly globalStep: number; readonly meanRecentReturn: number }, threshold: number | undefined) => {
      if (result.stopReason === "solved") {
        bar.complete(result.globalStep, { meanReturn: result.meanRecentReturn.toFixed(1) })
        bar.stop()
        Output.note(request.json, solvedLine(result.globalStep, result.meanRecentReturn, threshold))
      }
    },
    stop: () => bar.stop()
  }
}

/** The line a run solved before its budget prints. */
export const solvedLine = (step: number, meanReturn: number, threshold: number | undefined): string =>
  `solved at step ${step} (mean return ${meanReturn.toFixed(1)} ≥ threshold ${threshold ?? "?"}); stopping early`

/**
 * The error for `--algo` other than `ppo` on an env that is not a text env: an advantage estimator (registered in
 * `@autodidact/optim`) trains the text envs only, and an env of the registry trains with PPO, which has none.
 */
const notPpo = (algo: string, env: string): TrainConfigError => {
  const estimators = textEstimators()
  return new TrainConfigError({
    option: "algo",
    value: algo,
    reason: estimators.includes(algo)
      ? `is an advantage estimator: it trains the text environments (${textEnvIds.join(", ")}), and ${env} is not one; ${env} trains with ppo, which uses none`
      : `unknown algorithm: ${env} trains with ppo (the text environments with an advantage estimator: ${estimators.join(", ")})`
  })
}

/**
 * The advantage estimator of a text run: `--algo` (default `gigpo`), one of the estimators registered in
 * `@autodidact/optim` that train the critic-free DRRN policy (`Estimators.textEstimators`); with `--cluster`, one the
 * cluster's `TextTrainer` offers (`TextTrainer.algos`). Fails with {@link TrainConfigError} listing the valid names.
 */
const textAlgo = (env: string, algo: Option.Option<string>, cluster: boolean): Effect.Effect<string, TrainConfigError> =>
  Effect.suspend(() => {
    const name = Option.getOrElse(algo, () => "gigpo")
    const valid = cluster ? TextTrainer.algos : textEstimators()
    if (valid.includes(name)) return Effect.succeed(name)
    const reason = name === "ppo"
      ? `${env} is a text environment; use an advantage estimator: ${valid.join(", ")}`
      : cluster && textEstimators().includes(name)
      ? `--cluster trains the text environments with ${valid.join(", ")} only (${name} trains without --cluster)`
      : `not an advantage estimator registered in @autodidact/optim that trains text environments; use one of ${valid.join(", ")}`
    return Effect.fail(new TrainConfigError({ option: "algo", value: name, reason }))
  })

/** Train per `request`, writing the run directory; prints a progress bar and returns the summary. */
export const train = (request: TrainRequest) =>
  Effect.gen(function* () {
    if (request.algo !== "ppo") return yield* notPpo(request.algo, request.env)
    const threshold = yield* checkBudget(request)
    const saveTrajectories = request.saveTrajectories ?? 0
    if (!Number.isSafeInteger(saveTrajectories) || saveTrajectories < 0) {
      return yield* new TrainConfigError({ option: "save-trajectories", value: saveTrajectories, reason: "must be a non-negative integer" })
    }
    const ckpt = checkpointPath(request.out)
    const loaded = request.resume ? yield* Checkpoint.load(ckpt) : undefined
    // with --resume-override the run continues with the requested seed and number of envs (the checks below refuse
    // a changed seed or env count without it); everything else comes from the checkpoint
    const resumeState: Ppo.TrainState | undefined = loaded === undefined
      ? undefined
      : { ...loaded, options: { ...loaded.options, seed: request.seed, numEnvs: request.numEnvs } }
    const options: Ppo.TrainOptions = {
      seed: request.seed,
      numEnvs: request.numEnvs,
      totalTimesteps: request.totalSteps,
      stopWhen: request.untilSolved && threshold !== undefined ? { meanReturn: threshold, window: 100 } : undefined,
      checkpoint: { path: ckpt, everyUpdates: 10 },
      ...(resumeState === undefined ? {} : { resume: resumeState })
    }
    const run = yield* RunDirectory.open(
      request.out,
      {
        ...runConfig(request, threshold),
        numEnvs: request.numEnvs,
        autoresetMode: "SameStep",
        // the budget (and its learning-rate schedule) is the one thing a resume may change: --total-steps extends a run
        ppo: { ...Ppo.defaults, ...(resumeState?.options ?? {}), seed: request.seed, numEnvs: request.numEnvs, totalTimesteps: request.totalSteps },
        versions: versions(),
        startedAt: new Date().toISOString()
      },
      {
        overwrite: request.overwrite,
        resume: resumeState === undefined
          ? undefined
          : { step: resumeState.globalStep, override: request.resumeOverride ?? false, mayDiffer: ["totalSteps", "untilSolved", "solveThreshold", "ppo", "command"] }
      }
    )
    if (resumeState !== undefined) {
      Output.note(request.json, `Resuming ${run.dir} at step ${resumeState.globalStep} (update ${resumeState.iteration})${run.dropped > 0 ? `: dropped ${run.dropped} metrics row${run.dropped === 1 ? "" : "s"} written after that checkpoint` : ""}`)
    }
    const env = yield* Effect.acquireRelease(
      Effect.try({ try: () => Registry.makeVec(request.env, request.numEnvs, { autoresetMode: "SameStep" }), catch: (e) => e }),
      (e) => Effect.sync(() => e.close())
    )
    Output.note(request.json, `Training ${request.algo.toUpperCase()} on ${request.env} (seed ${request.seed}, ${request.numEnvs} envs) -> ${run.dir}`)
    const progress = episodeProgress(run, request)
    const result = yield* Ppo.train(env, options, {
      onEpisode: progress.onEpisode,
      onUpdate: (row) => run.append(row)
    }).pipe(Effect.ensuring(Effect.sync(progress.stop)))
    progress.finish(result, threshold)
    return yield* finishRun(run, request, result, ckpt, saveTrajectories)
  }).pipe(Effect.scoped)

/** The final policy of a `--cluster` run (`Policy.encode` bytes of `@autodidact/cluster`). */
export const clusterPolicyPath = (runDir: string): string => path.join(runDir, "checkpoints", "policy.bin")

const redactUrl = (url: string): string => {
  try {
    const u = new URL(url)
    if (u.password !== "") u.password = "***"
    return u.toString()
  } catch {
    return "<invalid url>"
  }
}

/**
 * `train --cluster postgres://...`: episode-based PPO (`Trainer` of `@autodidact/cluster`) whose rollouts are
 * collected by the runners registered in that database. Each update consumes `2 × --num-envs` whole episodes;
 * `metrics.jsonl` gets `episode` rows (with `episodeId`, `policyVersion`, `runner`), `update` rows and, after each
 * update, one `runner` row per runner (episodes/s, steps/s, policy-version lag, failures, storage and send retries). The final weights
 * are written to `checkpoints/policy.bin`.
 */
export const trainCluster = (request: TrainRequest & { readonly cluster: string }) =>
  Effect.gen(function*() {
    if (request.algo !== "ppo") return yield* notPpo(request.algo, request.env)
    if (request.resume) return yield* new TrainConfigError({ option: "resume", value: true, reason: "resuming is not supported with --cluster yet" })
    const u = yield* Effect.try({ try: () => new URL(request.cluster), catch: () => new TrainConfigError({ option: "cluster", value: request.cluster, reason: "is not a URL (expected postgres://user@host:port/database)" }) })
    if (u.protocol !== "postgres:" && u.protocol !== "postgresql:") return yield* new TrainConfigError({ option: "cluster", value: request.cluster, reason: "must be a postgres:// URL" })
    const threshold = yield* checkBudget(request)
    const saveTrajectories = request.saveTrajectories ?? 0
    const episodesPerUpdate = 2 * request.numEnvs
    const options: Partial<Trainer.Options> & { envId: string } = {
      envId: request.env,
      runId: RunDirectory.clusterRunId(request.out, request.seed),
      seed: request.seed,
      episodesPerUpdate,
      updates: Math.floor((2 ** 32 - 1) / Math.max(1, episodesPerUpdate)),
      totalSteps: request.totalSteps,
      ...(request.untilSolved && threshold !== undefined ? { stopWhenMeanReturn: threshold } : {})
    }
    const run = yield* RunDirectory.open(
      request.out,
      {
        ...runConfig(request, threshold),
        cluster: redactUrl(request.cluster),
        trainer: { ...Trainer.defaults, ...options },
        versions: versions(),
        startedAt: new Date().toISOString()
      },
      { overwrite: request.overwrite }
    )
    Output.note(request.json, `Training PPO on ${request.env} with rollouts from the cluster at ${redactUrl(request.cluster)} (seed ${request.seed}, ${episodesPerUpdate} episodes per update) -> ${run.dir}`)
    const progress = episodeProgress(run, request)
    const result = yield* RunnerWait.awaitingRunners(redactUrl(request.cluster), { timeoutSeconds: request.timeout }, (arrived) =>
      Trainer.train(options, {
        onEpisode: (row) => (arrived(), progress.onEpisode(row)),
        onUpdate: (row) => run.append(row),
        onRunner: (row) => run.append(row)
      }).pipe(
        Effect.provide(RolloutService.layerCluster({
          url: request.cluster,
          onAvailability: (a) => Output.note(request.json, a._tag === "Down" ? `cluster storage unavailable (${a.reason}); waiting` : `cluster storage available again after ${a.downSeconds.toFixed(1)} s; resuming`)
        }))
      )).pipe(Effect.ensuring(Effect.sync(progress.stop)))
    progress.finish(result, threshold)
    const policyFile = clusterPolicyPath(run.dir)
    yield* Effect.try({
      try: () => AtomicFile.writeSync(policyFile, Policy.encode(Policy.ofActorCritic(result.agent))),
      catch: (e) => new RunDirectory.RunDirectoryError({ path: policyFile, reason: `cannot write the policy: ${String(e)}` })
    })
    return yield* finishRun(run, request, result, policyFile, saveTrajectories)
  })

/** `autodidact train` */
export const handleTrain = ({ cluster, skills: skillsFlag, timeout: timeoutFlag, ...config }: Configs["train"]): Effect.Effect<void, unknown> =>
    Effect.gen(function* () {
      const skills = skillsFlag._tag === "Some" ? skillsFlag.value : undefined
      const timeout = timeoutFlag._tag === "Some" ? timeoutFlag.value : undefined
      if (timeout !== undefined && cluster._tag === "None") {
        return yield* new TrainConfigError({ option: "timeout", value: timeout, reason: "only applies with --cluster (how long to wait for runners)" })
      }
      // the one check of --skills' scope (trainText trusts it)
      if (skills !== undefined && (cluster._tag === "Some" || config.env !== "TextHousehold-v0")) {
        return yield* new TrainConfigError({ option: "skills", value: skills, reason: cluster._tag === "Some" ? "not supported with --cluster yet" : `skills as options are for TextHousehold-v0, not ${config.env}` })
      }
      // the local text trainer's options (each: its value when given, else undefined)
      const textOnly: ReadonlyArray<readonly [string, string | number | boolean | undefined, string?]> = [
        ["curriculum", Option.getOrUndefined(config.curriculum)],
        ["zero-advantage-groups", config.zeroAdvantageGroups === "keep" ? undefined : config.zeroAdvantageGroups],
        ["learning-rate", Option.getOrUndefined(config.learningRate), " (PPO's is its env's tuned setting)"],
        ["epo", config.epo || undefined],
        ["entropy-balanced-clip", config.entropyBalancedClip || undefined],
        ["anneal-lr", config.annealLr || undefined],
        ["target-kl", Option.getOrUndefined(config.targetKl)]
      ]
      for (const [option, value, more = ""] of textOnly) {
        if (value !== undefined && (cluster._tag === "Some" || !isTextEnvId(config.env))) {
          return yield* new TrainConfigError({ option, value, reason: cluster._tag === "Some" ? "not supported with --cluster yet" : `applies to the text envs, not ${config.env}${more}` })
        }
      }
      if (cluster._tag === "Some") {
        if (isTextEnvId(config.env)) {
          const algo = yield* textAlgo(config.env, config.algo, true)
          const u = yield* Effect.try({ try: () => new URL(cluster.value), catch: () => new TrainConfigError({ option: "cluster", value: cluster.value, reason: "is not a URL (expected postgres://user@host:port/database)" }) })
          if (u.protocol !== "postgres:" && u.protocol !== "postgresql:") return yield* new TrainConfigError({ option: "cluster", value: cluster.value, reason: "must be a postgres:// URL" })
          if (config.saveTrajectories > 0) {
            return yield* new TrainConfigError({ option: "save-trajectories", value: config.saveTrajectories, reason: "not supported with --cluster on text environments yet" })
          }
          const summary = yield* trainTextCluster({ ...config, algo, cluster: cluster.value, clusterLocation: redactUrl(cluster.value), timeout })
          Output.printSummary(config.json, "Training summary", { ...summary })
          return
        }
        const summary = yield* trainCluster({ ...config, algo: config.algo._tag === "Some" ? config.algo.value : "ppo", cluster: cluster.value, timeout })
        Output.printSummary(config.json, "Training summary", { ...summary })
        return
      }
      if (config.resumeOverride && !config.resume) {
        return yield* new TrainConfigError({ option: "resume-override", value: true, reason: "only applies with --resume" })
      }
      if (isTextEnvId(config.env)) {
        if (config.resume) return yield* new TrainConfigError({ option: "resume", value: true, reason: `resuming is not supported for the text environments yet (${config.env}); start a new run or pass --overwrite` })
        const algo = yield* textAlgo(config.env, config.algo, false)
        const summary = yield* trainText({ ...config, algo, skills })
        Output.printSummary(config.json, "Training summary", { ...summary })
        return
      }
      const summary = yield* train({ ...config, algo: config.algo._tag === "Some" ? config.algo.value : "ppo" })
      Output.printSummary(config.json, "Training summary", { ...summary })
    })

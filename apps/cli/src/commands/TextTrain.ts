/**
 * Multi-turn training on the text environments (`TextHousehold-v0`, `Sokoban-6x6-1box-v0`, `TextFrozenLake-v1`)
 * with a group-based optimizer (GiGPO, GRPO, Dr. GRPO, RLOO, REINFORCE++, or any advantage estimator registered in
 * `@autodidact/optim`: `Estimators.textEstimators`) and the DRRN text policy, writing the same
 * run directory as PPO: `config.json`, `metrics.jsonl` (episode rows with `success`, update rows, evaluation rows
 * with `successRate`), and `checkpoints/policy.json` (the DRRN configuration and weights, written atomically).
 * @since 0.1.0
 */
import { RolloutService, TextTrainer } from "@autodidact/cluster"
import { Rng, TextEpisode } from "@autodidact/core"
import { AtomicFile } from "@autodidact/core/node"
import { DrrnPolicy, GroupRollout, MultiTurnTrainer, TextTasks } from "@autodidact/optim"
import { DrrnPolicyFile } from "@autodidact/optim/node"
import { Effect, Option } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Output from "../Output.js"
import * as RunDirectory from "../RunDirectory.js"
import * as RunnerWait from "../RunnerWait.js"
import * as SkillEnv from "../SkillEnv.js"
import { versions } from "../Versions.js"

/** Whether `envId` trains through this module. */
export const isTextEnvId = (envId: string): boolean => (TextTasks.envIds as ReadonlyArray<string>).includes(envId)

/** The saved policy file (`checkpoints/policy.json`): optim's `DrrnPolicyFile`. */
export const policyPath = DrrnPolicyFile.policyPath
const savePolicy = DrrnPolicyFile.save
/** Read a run's DRRN policy file (`checkpoints/policy.json`). */
export const loadPolicy = DrrnPolicyFile.load

/** The evaluation trajectories file of a run directory (the same file PPO runs write). */
export const textTrajectoriesPath = (runDir: string): string => path.join(runDir, "trajectories", "eval.jsonl")

/**
 * Play `episodes` evaluation tasks (task k: the env's evaluation task k) with the policy, greedily, one env, and
 * return them as core `TextEpisode`s (the dashboard's episode viewer reads them).
 */
export const playTextEpisodes = (
  envId: string,
  makeEnv: () => GroupRollout.TextEnv,
  setup: TextTasks.Setup,
  policy: DrrnPolicy.Drrn,
  episodes: number,
  seed: number
): Array<TextEpisode.TextEpisode> => {
  const env = makeEnv()
  const textPolicy = MultiTurnTrainer.drrnTextPolicy(policy)
  const rng = Rng.make([seed, 0x7a3])
  const out: Array<TextEpisode.TextEpisode> = []
  for (let k = 0; k < episodes; k++) {
    const group = GroupRollout.collectGroup([env], textPolicy, setup.evalTask(k), rng, { groupSize: 1, maxSteps: setup.maxSteps, greedy: true })
    const tr = group.trajectories[0]
    if (tr === undefined) throw group.failures[0]?.error ?? new Error(`evaluation task ${k} failed`)
    const steps = tr.steps.map((st) => ({ observation: st.observation, action: st.action, reward: st.reward, terminated: st.terminated, truncated: st.truncated }))
    out.push(TextEpisode.make(envId, steps, { seed: tr.seed, task: tr.task, success: tr.success }))
  }
  return out
}

/** What `train` asks of a text run. */
export interface TextTrainRequest {
  readonly env: string
  readonly algo: string
  readonly seed: number
  readonly totalSteps: number
  readonly out: string
  readonly groupSize: number
  readonly difficulty: string
  readonly overwrite: boolean
  readonly json: boolean
  /** `--skills DIR`: add the discovered macros of this skill library as options (TextHousehold-v0 only: `train` checks). */
  readonly skills?: string | undefined
  /** Skill commands offered per state with `skills` (default 2). */
  readonly maxSkillActions?: number | undefined
  /** Greedy evaluation episodes to write to `<out>/trajectories/eval.jsonl` after training (default 0: none). */
  readonly saveTrajectories?: number | undefined
  /** Evaluation tasks of each periodic and the final evaluation (`--eval-episodes`, default 100). */
  readonly evalEpisodes?: number | undefined
  /** `--zero-advantage-groups` (default keep). */
  readonly zeroAdvantageGroups?: "keep" | "skip" | "resample" | undefined
  /** `--epo`: EPO's entropy smoothing with optim's `Epo.defaults` (default off). */
  readonly epo?: boolean | undefined
  /** `--entropy-balanced-clip`: AEPO's entropy-balanced clipping (default off). */
  readonly entropyBalancedClip?: boolean | undefined
  /** `--anneal-lr`: anneal the learning rate linearly to 0 over the run (default off). */
  readonly annealLr?: boolean | undefined
  /** `--learning-rate`: the policy's Adam learning rate (default: the setup's measured `trainer.learningRate`). */
  readonly learningRate?: Option.Option<number> | number | undefined
  /** `--target-kl`: stop an update early once a minibatch's approximate KL exceeds 1.5× this (default: no stop). */
  readonly targetKl?: Option.Option<number> | number | undefined
  /** `--curriculum`: a task sampler of `TextTasks.curriculumFor` instead of the setup's task draws. */
  readonly curriculum?: Option.Option<string> | string | undefined
}

/** What a text training run reports. */
export interface TextTrainSummary {
  readonly run: string
  readonly env: string
  readonly algo: string
  readonly seed: number
  readonly stopReason: string
  readonly globalStep: number
  readonly updates: number
  readonly evalTasks: string
  readonly successRate: number
  readonly meanReturn: number
  readonly wallSeconds: number
  readonly checkpoint: string
  /** With `--skills`: the share of decisions that called a skill, and the primitive env steps taken. */
  readonly skillShare?: number
  readonly primitiveSteps?: number
  /** `<out>/trajectories/eval.jsonl`, when `--save-trajectories` was given. */
  readonly trajectories?: string
}

/** With skills: how many decisions called a skill, and the primitive env steps they took (training and evaluations). */
const skillUsage = (skills: SkillEnv.SkillEnv) => {
  const u = skills.usage()
  return { skillShare: u.decisions === 0 ? 0 : Number((u.skillDecisions / u.decisions).toFixed(4)), primitiveSteps: u.primitiveSteps }
}

/** The `config.json` fields every text run records (the local and `--cluster` trainers add their own). */
const runConfig = (request: TextTrainRequest, setup: TextTasks.Setup) => ({
  command: "train",
  env: request.env,
  algo: request.algo,
  seed: request.seed,
  totalSteps: request.totalSteps,
  groupSize: request.groupSize,
  difficulty: request.difficulty,
  ...(curriculumOf(request) === undefined ? {} : { curriculum: curriculumOf(request) }),
  // envgen's promotion threshold (a constant a run cannot otherwise be told apart by)
  ...(curriculumOf(request) === "envgen" ? { promoteAbove: TextTasks.ENVGEN_PROMOTE_ABOVE } : {}),
  evalTasks: setup.evalName
})

/** A request field given as the CLI's `Option` or as a plain value (programmatic callers), as a plain value. */
const valueOf = <A>(field: Option.Option<A> | A | undefined): A | undefined =>
  Option.isOption(field) ? Option.getOrUndefined(field as Option.Option<A>) : field

const curriculumOf = (request: TextTrainRequest): string | undefined => valueOf(request.curriculum)

/**
 * The summary of a text run (local or `--cluster`): what was trained, how far, and the final evaluation's success
 * rate (in [0, 1]) and mean return (3 decimals) on the evaluation tasks.
 */
const textSummary = (
  run: RunDirectory.RunDirectory,
  request: TextTrainRequest,
  setup: TextTasks.Setup,
  result: { readonly stopReason: string; readonly globalStep: number; readonly updates: number; readonly wallSeconds: number },
  final: { readonly successRate: number; readonly episodeReturn: number },
  checkpoint: string
): TextTrainSummary => ({
  ...RunDirectory.summaryHead(run, request),
  stopReason: result.stopReason,
  globalStep: result.globalStep,
  updates: result.updates,
  evalTasks: setup.evalName,
  successRate: final.successRate,
  meanReturn: Number(final.episodeReturn.toFixed(3)),
  wallSeconds: Number(result.wallSeconds.toFixed(2)),
  checkpoint
})

/**
 * Train on a text environment; returns the summary (final evaluation included). Fails with the tagged errors of the
 * trainer, the run directory and the atomic policy write (all `Error`s, printed by the CLI with their tag).
 */
export const trainText = (request: TextTrainRequest): Effect.Effect<TextTrainSummary, Error> =>
  Effect.scoped(Effect.gen(function* () {
    const setup = yield* Effect.try({ try: () => TextTasks.setupFor(request.env, { difficulty: request.difficulty }), catch: (e) => e as Error })
    const skills = request.skills === undefined ? undefined : yield* SkillEnv.open(request.skills, request.maxSkillActions ?? 2)
    const curriculum = curriculumOf(request)
    const learningRate = valueOf(request.learningRate)
    const targetKl = valueOf(request.targetKl)
    const taskSampler = curriculum === undefined
      ? undefined
      : yield* Effect.try({ try: () => TextTasks.curriculumFor(setup, curriculum, request.groupSize), catch: (e) => e as Error })
    const options: MultiTurnTrainer.TrainOptions = {
      algo: request.algo,
      seed: request.seed,
      totalEnvSteps: request.totalSteps,
      groupSize: request.groupSize,
      maxSteps: setup.maxSteps,
      evalEvery: 10,
      evalEpisodes: request.evalEpisodes ?? 100,
      policy: { grid: setup.grid },
      tasks: taskSampler === undefined ? { train: setup.trainTask, eval: setup.evalTask } : { eval: setup.evalTask },
      ...(taskSampler === undefined ? {} : { taskSampler }),
      ...(request.zeroAdvantageGroups === undefined ? {} : { zeroAdvantageGroups: request.zeroAdvantageGroups }),
      ...(request.epo === true ? { epo: {} } : {}),
      ...(request.entropyBalancedClip === true ? { entropyBalancedClip: true } : {}),
      ...(request.annealLr === true ? { annealLr: true } : {}),
      ...setup.trainer, // the env's measured settings (TextHousehold-v0: lr 5e-3, 1.5e-3 when hard, 4 epochs)
      ...(learningRate === undefined ? {} : { learningRate }),
      ...(targetKl === undefined ? {} : { targetKl })
    }
    const run = yield* RunDirectory.open(
      request.out,
      {
        ...runConfig(request, setup),
        ...(skills === undefined ? {} : { skills: skills.config }),
        multiTurn: { ...MultiTurnTrainer.defaults, ...options, tasks: undefined, taskSampler: taskSampler?.name },
        versions: versions(),
        startedAt: new Date().toISOString()
      },
      { overwrite: request.overwrite }
    )
    Output.note(request.json, `Training ${request.algo.toUpperCase()} (DRRN policy, groups of ${request.groupSize}) on ${request.env}${skills === undefined ? "" : ` with ${skills.config.macros.length} skill macros from ${request.skills} (steps count decisions)`} -> ${run.dir}`)
    const bar = Output.progress(request.json, request.totalSteps, "{bar} {percentage}% | {value}/{total} steps | success (eval) {success}")
    let lastSuccess = "-"
    const envs = [skills === undefined ? setup.makeEnv() : skills.wrap(setup.makeEnv())]
    const result = yield* MultiTurnTrainer.train(envs, options, {
      onEpisode: (row) => {
        run.append(row)
        bar.update(row.globalStep, { success: lastSuccess })
      },
      onUpdate: (row) => run.append(row),
      onEvaluation: (row) => {
        run.append(row)
        lastSuccess = row.successRate.toFixed(2)
      }
    }).pipe(Effect.ensuring(Effect.sync(() => bar.stop())))
    const file = policyPath(request.out)
    yield* savePolicy(file, result.policy)
    const saveTrajectories = request.saveTrajectories ?? 0
    const trajectories = textTrajectoriesPath(request.out)
    if (saveTrajectories > 0) {
      const makeEnv = () => (skills === undefined ? setup.makeEnv() : skills.wrap(setup.makeEnv()))
      const episodes = yield* Effect.try({ try: () => playTextEpisodes(request.env, makeEnv, setup, result.policy, saveTrajectories, request.seed), catch: (e) => e as Error })
      yield* AtomicFile.write(trajectories, episodes.map(TextEpisode.toJsonLine).join(""))
      Output.note(request.json, `Wrote ${saveTrajectories} evaluation episode${saveTrajectories === 1 ? "" : "s"} (mean return ${(episodes.reduce((a, e) => a + e.return, 0) / episodes.length).toFixed(2)}) -> ${trajectories}`)
    }
    const summary: TextTrainSummary = {
      ...textSummary(run, request, setup, result, result.final, file),
      ...(skills === undefined ? {} : skillUsage(skills)),
      ...(saveTrajectories > 0 ? { trajectories } : {})
    }
    run.append({ kind: "summary", ...summary })
    return summary
  }))

/**
 * `train --cluster postgres://...` on a text environment: `TextTrainer` of `@autodidact/cluster` (the group-based
 * optimizer with group rollouts from the cluster's runners), then a final 100-task evaluation here. Writes the same
 * run directory as {@link trainText} (episode rows also carry `groupId`, `policyVersion` and `runner`).
 */
export const trainTextCluster = (
  request: TextTrainRequest & { readonly cluster: string; readonly clusterLocation: string; readonly timeout?: number | undefined }
): Effect.Effect<TextTrainSummary, Error> =>
  Effect.gen(function* () {
    const setup = yield* Effect.try({ try: () => TextTasks.setupFor(request.env, { difficulty: request.difficulty }), catch: (e) => e as Error })
    const options: Partial<TextTrainer.Options> & { envId: string } = {
      envId: request.env,
      runId: RunDirectory.clusterRunId(request.out, request.seed),
      algo: request.algo,
      seed: request.seed,
      totalSteps: request.totalSteps,
      groupSize: request.groupSize,
      difficulty: request.difficulty,
      ...setup.trainer
    }
    const run = yield* RunDirectory.open(
      request.out,
      {
        ...runConfig(request, setup),
        cluster: request.clusterLocation,
        textTrainer: { ...TextTrainer.defaults, ...options },
        versions: versions(),
        startedAt: new Date().toISOString()
      },
      { overwrite: request.overwrite }
    )
    Output.note(request.json, `Training ${request.algo.toUpperCase()} (DRRN policy, groups of ${request.groupSize}) on ${request.env} with group rollouts from the cluster at ${request.clusterLocation} -> ${run.dir}`)
    const bar = Output.progress(request.json, request.totalSteps, "{bar} {percentage}% | {value}/{total} steps | success (batch) {success}")
    let lastSuccess = "-"
    const result = yield* RunnerWait.awaitingRunners(request.clusterLocation, { timeoutSeconds: request.timeout }, (arrived) =>
      TextTrainer.train(options, {
        onEpisode: (row) => {
          arrived()
          run.append(row)
          bar.update(Math.min(row.globalStep, request.totalSteps), { success: lastSuccess })
        },
        onUpdate: (row) => {
          run.append(row)
          lastSuccess = row.successRate.toFixed(2)
        }
      }).pipe(
        Effect.provide(RolloutService.layerCluster({
          url: request.cluster,
          onAvailability: (a) => Output.note(request.json, a._tag === "Down" ? `cluster storage unavailable (${a.reason}); waiting` : `cluster storage available again after ${a.downSeconds.toFixed(1)} s; resuming`)
        }))
      )).pipe(Effect.ensuring(Effect.sync(() => bar.stop())))
    const final = MultiTurnTrainer.evaluate([setup.makeEnv()], MultiTurnTrainer.drrnTextPolicy(result.policy), setup.evalTask, request.evalEpisodes ?? 100, Rng.make([request.seed, 0x5eed]), { maxSteps: setup.maxSteps })
    run.append({ kind: "evaluation", globalStep: result.globalStep, wallSeconds: result.wallSeconds, ...final })
    const file = policyPath(request.out)
    yield* savePolicy(file, result.policy)
    const summary: TextTrainSummary = textSummary(run, request, setup, { ...result, stopReason: "budget" }, final, file)
    run.append({ kind: "summary", ...summary })
    return summary
  })

/** Evaluation task `k` of `evalTask`, restricted to TextHousehold task families (`options.taskTypes` of its reset). */
export const withTaskTypes = (evalTask: (k: number) => GroupRollout.Task, taskTypes: ReadonlyArray<string>) => (k: number): GroupRollout.Task => {
  const t = evalTask(k)
  return { ...t, options: { ...t.options, taskTypes } }
}

/**
 * Evaluate a text run's policy on `episodes` tasks of `split` (TextHousehold) or the test levels; `taskTypes`
 * (TextHousehold) keeps the tasks of those families only.
 */
export const evaluateText = (
  runDir: string,
  config: Record<string, unknown>,
  options: {
    readonly episodes: number
    readonly split?: string | undefined
    readonly greedy: boolean
    readonly seed: number
    /** TextHousehold-v0: only these task families (the k-th evaluation task drawn among them). */
    readonly taskTypes?: ReadonlyArray<string> | undefined
  }
): Effect.Effect<Record<string, string | number | boolean>, Error> =>
  Effect.scoped(Effect.gen(function* () {
    const envId = String(config["env"])
    const setup = yield* Effect.try({
      try: () =>
        TextTasks.setupFor(envId, {
          difficulty: typeof config["difficulty"] === "string" ? config["difficulty"] : undefined,
          split: options.split
        }),
      catch: (e) => e as Error
    })
    const policy = yield* loadPolicy(policyPath(runDir))
    const textPolicy: GroupRollout.TextPolicy<DrrnPolicy.Encoded> = MultiTurnTrainer.drrnTextPolicy(policy)
    // a run trained with skills is evaluated with the same options
    const skillsConfig = yield* SkillEnv.fromConfig(config)
    const skills = Option.isNone(skillsConfig) ? undefined : yield* SkillEnv.reopen(skillsConfig.value)
    const makeEnv = () => (skills === undefined ? setup.makeEnv() : skills.wrap(setup.makeEnv()))
    const taskTypes = options.taskTypes
    const evalTask = taskTypes === undefined ? setup.evalTask : withTaskTypes(setup.evalTask, taskTypes)
    const r = MultiTurnTrainer.evaluate([makeEnv()], textPolicy, evalTask, options.episodes, Rng.make([options.seed, 0x5eed]), {
      maxSteps: setup.maxSteps,
      greedy: options.greedy
    })
    const random = MultiTurnTrainer.evaluate([makeEnv()], GroupRollout.randomPolicy, evalTask, options.episodes, Rng.make([options.seed, 1]), {
      maxSteps: setup.maxSteps
    })
    const summary = {
      run: runDir,
      env: envId,
      episodes: options.episodes,
      tasks: setup.evalName,
      ...(taskTypes === undefined ? {} : { taskTypes: taskTypes.join(",") }),
      greedy: options.greedy,
      successRate: r.successRate,
      meanReturn: Number(r.episodeReturn.toFixed(3)),
      meanLength: Number(r.episodeLength.toFixed(2)),
      randomPolicySuccessRate: random.successRate,
      ...(skills === undefined ? {} : { skills: skills.config.library })
    }
    yield* Effect.sync(() => fs.appendFileSync(path.join(runDir, "metrics.jsonl"), JSON.stringify(RunDirectory.relativeRow(runDir, { kind: "evaluation", ...summary })) + "\n"))
    return summary
  }))

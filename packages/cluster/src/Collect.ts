/**
 * Rollout collection where an episode's content is a function of (run seed, episode id, policy weights) only, so
 * it does not matter which process, runner or retry produced it.
 *
 * **Seeds**: episode `e` of a run with seed `s` draws everything from `Rng.make([s mod 2³², ⌊s / 2³²⌋, e])`
 * (NumPy's `SeedSequence` over the three words): first the environment's reset seed, then every action. A text
 * group `g` uses the same rule with `g` for `e`: the task seed, then the G trajectories' actions in order.
 *
 * **Episodes** ({@link collectEpisode}): Box observation / Discrete action environments (`CartPole-v1`, ...) with
 * an {@link ActorCritic} policy, sampled as PPO's rollout does (`ActorCritic.act`), recording per step the flat
 * observation, action (0-based), log π(a|s), V(s) and reward, up to the environment's own time limit (or
 * `maxSteps`).
 *
 * **Groups** ({@link collectGroup}): G trajectories of one text task (`TextHousehold-v0`, ...) with a
 * {@link DrrnPolicy}, as `GroupRollout.collectGroup` of `@autodidact/optim` (GRPO/GiGPO groups); the policy's
 * per-step encodings are dropped (a learner re-encodes), the rest of each trajectory is kept.
 *
 * @since 0.1.0
 */
import { InvalidOptionError, Rng } from "@autodidact/core"
import { Registry } from "@autodidact/envs"
import { ActorCritic, DrrnPolicy, GroupRollout, MultiTurnTrainer, TextTasks } from "@autodidact/optim"
import { Schema } from "effect"
import type * as Policy from "./Policy.js"

/** One episode of a Box/Discrete environment, as it crosses process boundaries (plain arrays of numbers). */
export const Episode = Schema.Struct({
  runId: Schema.String,
  episodeId: Schema.Number,
  envId: Schema.String,
  policyVersion: Schema.Number,
  policyHash: Schema.String,
  /** The reset seed drawn from the episode's generator. */
  resetSeed: Schema.Number,
  obsDim: Schema.Number,
  length: Schema.Number,
  /** `[length, obsDim]` row-major: the observation each action was taken on. */
  obs: Schema.Array(Schema.Number),
  actions: Schema.Array(Schema.Number),
  logprobs: Schema.Array(Schema.Number),
  values: Schema.Array(Schema.Number),
  rewards: Schema.Array(Schema.Number),
  terminated: Schema.Boolean,
  truncated: Schema.Boolean,
  episodeReturn: Schema.Number,
  /** The runner (or `"local"`) that produced it, and how long it took there. */
  runner: Schema.String,
  collectSeconds: Schema.Number,
  /** That runner's cumulative counters when it replied: failed requests and retried storage calls. */
  runnerFailures: Schema.Number,
  runnerStorageRetries: Schema.Number
})
export type Episode = typeof Episode.Type

/** One text trajectory of a group, without the policy's encodings. */
export const TextTrajectory = Schema.Struct({
  task: Schema.String,
  seed: Schema.Number,
  observations: Schema.Array(Schema.String),
  actions: Schema.Array(Schema.String),
  actionIndices: Schema.Array(Schema.Number),
  logprobs: Schema.Array(Schema.Number),
  rewards: Schema.Array(Schema.Number),
  stateKeys: Schema.Array(Schema.String),
  admissible: Schema.Array(Schema.Array(Schema.String)),
  success: Schema.Boolean,
  episodeReturn: Schema.Number
})
export type TextTrajectory = typeof TextTrajectory.Type

/** A group of G trajectories of one text task. */
export const Group = Schema.Struct({
  runId: Schema.String,
  groupId: Schema.Number,
  envId: Schema.String,
  policyVersion: Schema.Number,
  policyHash: Schema.String,
  taskSeed: Schema.Number,
  trajectories: Schema.Array(TextTrajectory),
  /** Trajectories lost to environment errors (index and message). */
  failures: Schema.Array(Schema.Struct({ trajectory: Schema.Number, error: Schema.String })),
  steps: Schema.Number,
  runner: Schema.String,
  collectSeconds: Schema.Number,
  runnerFailures: Schema.Number,
  runnerStorageRetries: Schema.Number
})
export type Group = typeof Group.Type

/** The generator of episode (or group) `id` of a run seeded `runSeed`. */
export const episodeRng = (runSeed: number, id: number): Rng => Rng.make([runSeed % 2 ** 32, Math.floor(runSeed / 2 ** 32), id])

/** What identifies an episode request. */
export interface EpisodeSpec {
  readonly runId: string
  readonly runSeed: number
  readonly envId: string
  readonly episodeId: number
  readonly policy: Policy.PolicyRef
  /** Step cap on top of the environment's own time limit. Default 100 000. */
  readonly maxSteps?: number | undefined
}

const checkId = (what: string, id: number) => {
  if (!Number.isInteger(id) || id < 0 || id >= 2 ** 32) throw new InvalidOptionError({ option: what, value: id, reason: "must be an integer in [0, 2^32)" })
}

/**
 * Play episode `spec.episodeId` with the actor-critic `net` (its weights must be those of `spec.policy`).
 * @throws InvalidOptionError for an environment without Box observations and Discrete actions, or sizes that do not
 * match the network.
 */
export const collectEpisode = (spec: EpisodeSpec, net: ActorCritic.ActorCritic, runner: string): Episode => {
  checkId("episodeId", spec.episodeId)
  const started = performance.now()
  const env = Registry.make(spec.envId)
  try {
    const obsSpace = env.observationSpace
    const actSpace = env.actionSpace
    if (obsSpace._tag !== "Box" || actSpace._tag !== "Discrete") {
      throw new InvalidOptionError({ option: "envId", value: spec.envId, reason: "episodes need a Box observation space and a Discrete action space" })
    }
    const D = obsSpace.shape.reduce((a, b) => a * b, 1)
    if (D !== net.obsDim || actSpace.n !== net.numActions) {
      throw new InvalidOptionError({ option: "policy", value: `${net.obsDim}→${net.numActions}`, reason: `${spec.envId} has ${D} observation dims and ${actSpace.n} actions` })
    }
    const rng = episodeRng(spec.runSeed, spec.episodeId)
    const resetSeed = rng.integers(2 ** 31)
    const maxSteps = spec.maxSteps ?? 100_000
    const obsRow = new Float32Array(D)
    const a = new Int32Array(1)
    const lp = new Float64Array(1)
    const v = new Float64Array(1)
    const obs: Array<number> = []
    const actions: Array<number> = []
    const logprobs: Array<number> = []
    const values: Array<number> = []
    const rewards: Array<number> = []
    let current = env.reset({ seed: resetSeed }).observation as ArrayLike<number>
    let terminated = false
    let truncated = false
    let ret = 0
    while (actions.length < maxSteps) {
      for (let i = 0; i < D; i++) {
        obsRow[i] = current[i]!
        obs.push(obsRow[i]!)
      }
      ActorCritic.act(net, obsRow, 1, rng, a, lp, v)
      const out = env.step(a[0]! + actSpace.start)
      actions.push(a[0]!)
      logprobs.push(lp[0]!)
      values.push(v[0]!)
      rewards.push(out.reward)
      ret += out.reward
      current = out.observation as ArrayLike<number>
      terminated = out.terminated
      truncated = out.truncated
      if (terminated || truncated) break
    }
    if (!terminated && !truncated) truncated = true
    return {
      runId: spec.runId,
      episodeId: spec.episodeId,
      envId: spec.envId,
      policyVersion: spec.policy.version,
      policyHash: spec.policy.hash,
      resetSeed,
      obsDim: D,
      length: actions.length,
      obs,
      actions,
      logprobs,
      values,
      rewards,
      terminated,
      truncated,
      episodeReturn: ret,
      runner,
      collectSeconds: (performance.now() - started) / 1000,
      runnerFailures: 0,
      runnerStorageRetries: 0
    }
  } finally {
    env.close()
  }
}

/** What identifies a group request. */
export interface GroupSpec {
  readonly runId: string
  readonly runSeed: number
  readonly envId: string
  readonly groupId: number
  readonly groupSize: number
  readonly policy: Policy.PolicyRef
  readonly difficulty?: string | undefined
  readonly maxSteps?: number | undefined
}

/**
 * Roll out group `spec.groupId`: a training task drawn from the group's generator, then `groupSize` trajectories
 * with the DRRN policy `p` (its weights must be those of `spec.policy`).
 * @throws InvalidOptionError for an environment without a multi-turn setup or a bad group size.
 */
export const collectGroup = (spec: GroupSpec, p: DrrnPolicy.Drrn, runner: string): Group => {
  checkId("groupId", spec.groupId)
  if (!Number.isInteger(spec.groupSize) || spec.groupSize < 1) throw new InvalidOptionError({ option: "groupSize", value: spec.groupSize, reason: "must be a positive integer" })
  const started = performance.now()
  const setup = TextTasks.setupFor(spec.envId, { difficulty: spec.difficulty, maxSteps: spec.maxSteps })
  const rng = episodeRng(spec.runSeed, spec.groupId)
  const task = setup.trainTask(rng)
  const env = setup.makeEnv()
  const result = GroupRollout.collectGroup([env], MultiTurnTrainer.drrnTextPolicy(p), task, rng, {
    groupSize: spec.groupSize,
    maxSteps: setup.maxSteps,
    envId: spec.envId,
    policyVersion: spec.policy.version
  })
  let steps = 0
  const trajectories = result.trajectories.map((t): TextTrajectory => {
    steps += t.steps.length
    return {
      task: t.task,
      seed: t.seed,
      observations: t.steps.map((s) => s.observation),
      actions: t.steps.map((s) => s.action),
      actionIndices: t.steps.map((s) => s.actionIndex),
      logprobs: t.steps.map((s) => s.logProb),
      rewards: t.steps.map((s) => s.reward),
      stateKeys: t.steps.map((s) => s.stateKey),
      admissible: t.steps.map((s) => [...s.admissible]),
      success: t.success,
      episodeReturn: t.return
    }
  })
  return {
    runId: spec.runId,
    groupId: spec.groupId,
    envId: spec.envId,
    policyVersion: spec.policy.version,
    policyHash: spec.policy.hash,
    taskSeed: task.seed,
    trajectories,
    failures: result.failures.map((f) => ({ trajectory: f.trajectory, error: String(f.error) })),
    steps,
    runner,
    collectSeconds: (performance.now() - started) / 1000,
    runnerFailures: 0,
    runnerStorageRetries: 0
  }
}

/**
 * Episode-based PPO over the {@link RolloutService.RolloutService}: each update consumes a batch of whole episodes
 * requested from the service (in-process or from cluster runners) instead of stepping a local vector environment.
 *
 * The math is `@autodidact/optim`'s PPO (Schulman et al. 2017, CleanRL's `ppo.py`): the same clipped-surrogate loss
 * and gradients (`Ppo.lossAndGradient`), global-norm clipping and Adam, GAE(γ, λ) (Schulman et al. 2016) per
 * episode with the episode's end treated as terminal (CleanRL's default for truncations), advantages normalized per
 * minibatch, the learning rate annealed linearly over the updates.
 *
 * **Batches and versions**: update `k` consumes episodes `k·E .. k·E + E − 1` (E = `episodesPerUpdate`) collected
 * with policy version `max(0, k − maxPolicyLag)` ({@link RolloutService.requestVersion}) and publishes version
 * k + 1. With `maxPolicyLag: 0` this is synchronous on-policy PPO; with L > 0, L + 1 batches are in flight while the
 * learner trains (asynchronous RL with bounded staleness, as IMPALA/AReaL); every episode's lag is checked.
 *
 * **What is bit-identical across layers and runner counts** (same seed and options): every episode's content (it
 * depends only on run seed, episode id and the weights of its version: see `Collect`), hence every batch once
 * sorted by episode id, hence every update, the final weights (`result.weightsHash`) and the per-episode returns.
 * **What is not**: the order in which episodes arrive and therefore the order and `globalStep`/`wallSeconds` of the
 * `episode` metric rows, wall-clock times, and which runner produced which episode. The learner sorts each batch by
 * episode id before the update precisely so that arrival order cannot change the result.
 *
 * @since 0.1.0
 */
import { InvalidOptionError, Metrics, NonFiniteValueError, Rng } from "@autodidact/core"
import { Registry } from "@autodidact/envs"
import { ActorCritic, Adam, Advantages, Ppo } from "@autodidact/optim"
import { Effect, Schema, Stream } from "effect"
import type * as Collect from "./Collect.js"
import type { PolicyLagError, RolloutError } from "./Errors.js"
import * as Policy from "./Policy.js"
import * as RolloutService from "./RolloutService.js"

/** The PPO hyper-parameters this trainer takes from `@autodidact/optim`'s `Ppo.Options` (same meaning and defaults). */
type PpoHyperParameters = Pick<
  Ppo.Options,
  | "hidden" | "learningRate" | "annealLr" | "adamEps" | "gamma" | "gaeLambda" | "numMinibatches" | "updateEpochs"
  | "normAdv" | "clipCoef" | "clipVloss" | "entCoef" | "vfCoef" | "maxGradNorm"
>

/** Options: PPO's hyper-parameters (CleanRL defaults) plus the batch and staleness settings. */
export interface Options extends PpoHyperParameters {
  readonly envId: string
  /** Run identity in the cluster tables. Default `"<envId>-<seed>-<timestamp>"`. */
  readonly runId: string
  readonly seed: number
  /** Whole episodes per update. Default 8. */
  readonly episodesPerUpdate: number
  /** Number of updates (at most). Default 10. */
  readonly updates: number
  /** Stop after the update whose consumed batches reach this many environment steps. Default: no limit. */
  readonly totalSteps?: number | undefined
  /** Stop once the mean return of the last 100 consumed episodes (by id) reaches this. Default: never. */
  readonly stopWhenMeanReturn?: number | undefined
  /** Maximum policy-version lag of a consumed episode. Default 0 (synchronous). */
  readonly maxPolicyLag: number
  /** Episodes per cluster message. Default 1. */
  readonly perMessage: number
}

/** Defaults (PPO's are CleanRL's). */
export const defaults: Omit<Options, "envId" | "runId"> = {
  seed: 1,
  episodesPerUpdate: 8,
  updates: 10,
  maxPolicyLag: 0,
  perMessage: 1,
  hidden: Ppo.defaults.hidden,
  learningRate: Ppo.defaults.learningRate,
  annealLr: Ppo.defaults.annealLr,
  adamEps: Ppo.defaults.adamEps,
  gamma: Ppo.defaults.gamma,
  gaeLambda: Ppo.defaults.gaeLambda,
  numMinibatches: Ppo.defaults.numMinibatches,
  updateEpochs: Ppo.defaults.updateEpochs,
  normAdv: Ppo.defaults.normAdv,
  clipCoef: Ppo.defaults.clipCoef,
  clipVloss: Ppo.defaults.clipVloss,
  entCoef: Ppo.defaults.entCoef,
  vfCoef: Ppo.defaults.vfCoef,
  maxGradNorm: Ppo.defaults.maxGradNorm
}

/**
 * A consumed episode: the `episode` row of `metrics.jsonl` (`Metrics.EpisodeRow` of `@autodidact/core`) plus where
 * it came from: `episodeId` (an integer in [0, 2^32)), the `policyVersion` that collected it and the `runner`.
 * @since 0.1.0
 */
export const EpisodeRow = Schema.Struct({ ...Metrics.EpisodeRow.fields, episodeId: Schema.Int, ...Metrics.provenanceFields })
export type EpisodeRow = typeof EpisodeRow.Type

/**
 * After each update: the `update` row (`Metrics.UpdateRow` with every PPO diagnostic present) and the
 * `policyVersion` the update published.
 * @since 0.1.0
 */
export const UpdateRow = Schema.Struct({
  ...Metrics.UpdateRow.fields,
  policyLoss: Schema.Number,
  valueLoss: Schema.Number,
  entropy: Schema.Number,
  approxKl: Schema.Number,
  clipFraction: Schema.Number,
  explainedVariance: Schema.Number,
  learningRate: Schema.Number,
  policyVersion: Metrics.provenanceFields.policyVersion
})
export type UpdateRow = typeof UpdateRow.Type

/**
 * After each update, one per runner seen so far: `@autodidact/core`'s `Metrics.RunnerRow` (cumulative throughput
 * and staleness of what the runner produced; the dashboard's runners table reads it).
 * @since 0.1.0
 */
export const RunnerRow = Metrics.RunnerRow
export type RunnerRow = Metrics.RunnerRow

/** Callbacks (all optional, synchronous). */
export interface Hooks {
  readonly onEpisode?: ((row: EpisodeRow) => void) | undefined
  readonly onUpdate?: ((row: UpdateRow) => void) | undefined
  readonly onRunner?: ((row: RunnerRow) => void) | undefined
}

/**
 * What {@link train} returns: the trained agent and its weights' hash, the return of every consumed episode in
 * episode-id order, step and episode counts, the wall time (seconds), the last runner rows and why it stopped.
 */
export interface TrainResult {
  readonly runId: string
  readonly agent: ActorCritic.ActorCritic
  /** SHA-256 of the final weights' bytes (`Policy.encode`). */
  readonly weightsHash: string
  /** Return of every consumed episode, in episode-id order (episode i at index i). */
  readonly returns: ReadonlyArray<number>
  /** Episodes consumed by updates. */
  readonly episodes: number
  /** Environment steps consumed by updates. */
  readonly globalStep: number
  readonly wallSeconds: number
  /** Mean return of the last (up to) 100 consumed episodes by id. */
  readonly meanRecentReturn: number
  readonly runners: ReadonlyArray<RunnerRow>
  readonly stopReason: "budget" | "solved"
}

const mean = (xs: ReadonlyArray<number>) => xs.reduce((a, b) => a + b, 0) / xs.length

/** Check the options; {@link InvalidOptionError} names the first bad one. */
export const validate = (o: Options): Effect.Effect<Options, InvalidOptionError> =>
  Effect.suspend(() => {
    const bad = (option: string, value: unknown, reason: string) => Effect.fail(new InvalidOptionError({ option, value, reason }))
    for (const key of ["episodesPerUpdate", "updates", "perMessage", "hidden", "numMinibatches", "updateEpochs"] as const) {
      if (!Number.isInteger(o[key]) || o[key] < 1) return bad(key, o[key], "must be a positive integer")
    }
    if (!Number.isInteger(o.maxPolicyLag) || o.maxPolicyLag < 0) return bad("maxPolicyLag", o.maxPolicyLag, "must be a non-negative integer")
    if (!Number.isSafeInteger(o.seed) || o.seed < 0) return bad("seed", o.seed, "must be a non-negative safe integer")
    if (o.episodesPerUpdate * o.updates >= 2 ** 32) return bad("updates", o.updates, "episode ids must stay below 2^32")
    if (!(o.learningRate > 0 && Number.isFinite(o.learningRate))) return bad("learningRate", o.learningRate, "must be a positive finite number")
    if (!(o.gamma >= 0 && o.gamma <= 1)) return bad("gamma", o.gamma, "must be in [0, 1]")
    if (!(o.gaeLambda >= 0 && o.gaeLambda <= 1)) return bad("gaeLambda", o.gaeLambda, "must be in [0, 1]")
    for (const key of ["clipCoef", "entCoef", "vfCoef", "maxGradNorm", "adamEps"] as const) {
      if (!(o[key] >= 0 && Number.isFinite(o[key]))) return bad(key, o[key], "must be a non-negative finite number")
    }
    if (o.totalSteps !== undefined && !(Number.isSafeInteger(o.totalSteps) && o.totalSteps > 0)) return bad("totalSteps", o.totalSteps, "must be a positive integer")
    if (o.stopWhenMeanReturn !== undefined && !Number.isFinite(o.stopWhenMeanReturn)) return bad("stopWhenMeanReturn", o.stopWhenMeanReturn, "must be finite")
    if (o.runId.length === 0 || o.runId.includes("/")) return bad("runId", o.runId, "must be non-empty and contain no '/'")
    return Effect.succeed(o)
  })

/** The batch of one update, sorted by episode id, in flat typed arrays. */
interface Batch {
  readonly size: number
  readonly obs: Float32Array
  readonly actions: Int32Array
  readonly logprobs: Float64Array
  readonly values: Float64Array
  readonly advantages: Float64Array
  readonly returns: Float64Array
}

/**
 * GAE(γ, λ) over each episode (Schulman et al. 2016, arXiv:1506.02438; terminal at its end, so V after the last step
 * is 0), by `@autodidact/optim`'s `Advantages.gae`, written with returns = advantages + values into one flat batch
 * in episode-id order (`obs` row-major, `obsDim` floats per step).
 */
export const toBatch = (episodes: ReadonlyArray<Collect.Episode>, obsDim: number, gamma: number, lambda: number): Batch => {
  const sorted = [...episodes].sort((a, b) => a.episodeId - b.episodeId)
  const size = sorted.reduce((a, e) => a + e.length, 0)
  const b: Batch = {
    size,
    obs: new Float32Array(size * obsDim),
    actions: new Int32Array(size),
    logprobs: new Float64Array(size),
    values: new Float64Array(size),
    advantages: new Float64Array(size),
    returns: new Float64Array(size)
  }
  // one group per episode, each terminal at its end (bootstrap value 0): optim's GAE estimator
  const advantages = Advantages.gae(sorted.map((e) => [{ rewards: e.rewards, values: e.values }]), { ...Advantages.defaults, gamma, lambda })
  let row = 0
  for (const [i, e] of sorted.entries()) {
    const T = e.length
    for (let k = 0; k < T * obsDim; k++) b.obs[row * obsDim + k] = e.obs[k]!
    const adv = advantages[i]![0]!
    for (let t = 0; t < T; t++) {
      b.advantages[row + t] = adv[t]!
      b.returns[row + t] = adv[t]! + e.values[t]!
    }
    for (let t = 0; t < T; t++) {
      b.actions[row + t] = e.actions[t]!
      b.logprobs[row + t] = e.logprobs[t]!
      b.values[row + t] = e.values[t]!
    }
    row += T
  }
  return b
}

/** `updateEpochs` epochs of shuffled minibatches over the batch; returns the last minibatch's losses. */
const update = (agent: ActorCritic.ActorCritic, adam: Adam.AdamState, shuffleRng: Rng, o: Options, b: Batch, lr: number) => {
  const inds = Int32Array.from({ length: b.size }, (_, k) => k)
  const mb = Math.ceil(b.size / o.numMinibatches)
  const A = agent.numActions
  const sc = { mbAdv: new Float64Array(mb), dLogits: new Float64Array(mb * A), dValues: new Float64Array(mb), grad: new Float64Array(agent.params.length) }
  let last: Ppo.LossParts = { loss: 0, policyLoss: 0, valueLoss: 0, entropy: 0, approxKl: 0, clipFraction: 0 }
  let clipSum = 0
  let clipCount = 0
  for (let epoch = 0; epoch < o.updateEpochs; epoch++) {
    shuffleRng.shuffle(inds)
    for (let start = 0; start < b.size; start += mb) {
      const size = Math.min(mb, b.size - start)
      last = Ppo.lossAndGradient(agent, o, { obs: b.obs, actions: b.actions, logprobs: b.logprobs, advantages: b.advantages, returns: b.returns, values: b.values, indices: inds, start, size }, sc)
      const norm = Adam.clipGradNorm(sc.grad, o.maxGradNorm)
      if (!Number.isFinite(norm)) throw new NonFiniteValueError({ where: "Trainer.gradNorm", value: norm })
      Adam.step(adam, agent.params, sc.grad, lr)
      clipSum += last.clipFraction
      clipCount++
    }
  }
  return { ...last, clipFraction: clipSum / clipCount }
}

/**
 * Train an actor-critic with episode-based PPO (Schulman et al. 2017, arXiv:1707.06347; GAE, arXiv:1506.02438) on
 * whole episodes from the {@link RolloutService.RolloutService} in context (in process, worker threads or
 * `effect/cluster` runners: the layer decides, the result does not depend on it).
 *
 * *When to use*: `autodidact train --cluster`, or any learner whose rollouts should come from other threads or
 * machines. For one process with a local vector env, `@autodidact/optim`'s `Ppo.train` is simpler.
 *
 * *Details*: `envId` must have a `Box` observation space and a `Discrete` action space (CartPole-v1, Acrobot-v1);
 * update k consumes `episodesPerUpdate` episodes collected with version max(0, k − `maxPolicyLag`) (see the module
 * docs), then publishes version k + 1. Runs `updates` updates, or stops earlier at `totalSteps` consumed steps or
 * once the mean return of the last 100 episodes reaches `stopWhenMeanReturn` (`stopReason: "solved"`). `hooks`
 * receive each {@link EpisodeRow} as it arrives, an {@link UpdateRow} after each update and one {@link RunnerRow}
 * per runner after each update (the rows of `metrics.jsonl`). The run id defaults to `<envId>-<seed>-<ms>`.
 *
 * *Errors*: {@link InvalidOptionError} for a bad option or env; `NonFiniteValueError` when a gradient norm is not
 * finite; `RolloutError` when collection fails; `PolicyLagError` when an episode is staler than `maxPolicyLag`.
 *
 * @example
 * ```ts
 * const result = await Effect.runPromise(
 *   Trainer.train({ envId: "CartPole-v1", seed: 1, updates: 50 }).pipe(Effect.provide(RolloutService.layerLocal))
 * )
 * console.log(result.meanRecentReturn, result.weightsHash)
 * ```
 * @see effect/cluster (Entity, Sharding, SqlMessageStorage): https://effect.website/docs
 * @since 0.1.0
 */
export const train = (
  options: Partial<Options> & { readonly envId: string },
  hooks: Hooks = {}
): Effect.Effect<TrainResult, InvalidOptionError | NonFiniteValueError | RolloutError | PolicyLagError, RolloutService.RolloutService> =>
  Effect.gen(function*() {
    const o = yield* validate({ ...defaults, runId: `${options.envId}-${options.seed ?? defaults.seed}-${Date.now()}`, ...options })
    const svc = yield* RolloutService.RolloutService
    const spec = yield* Effect.try({
      try: () => {
        const env = Registry.make(o.envId)
        try {
          return { obs: env.observationSpace, act: env.actionSpace }
        } finally {
          env.close()
        }
      },
      catch: (e) => new InvalidOptionError({ option: "envId", value: o.envId, reason: String(e) })
    })
    if (spec.obs._tag !== "Box" || spec.act._tag !== "Discrete") {
      return yield* new InvalidOptionError({ option: "envId", value: o.envId, reason: "needs a Box observation space and a Discrete action space" })
    }
    const D = spec.obs.shape.reduce((a, b) => a * b, 1)
    const [initRng, , shuffleRng] = Rng.make(o.seed).spawn(3) as [Rng, Rng, Rng]
    const agent = ActorCritic.make({ obsDim: D, numActions: spec.act.n, hidden: o.hidden, rng: initRng })
    const adam = Adam.make(agent.params.length, { eps: o.adamEps })
    const started = performance.now()
    const wall = () => (performance.now() - started) / 1000
    const E = o.episodesPerUpdate
    const U = o.updates
    const L = o.maxPolicyLag
    const perRunner = new Map<string, { episodes: number; steps: number; lagSum: number; lagMax: number; failures: number; storageRetries: number }>()
    let globalStep = 0
    let learnerVersion = 0
    const onArrival = (e: Collect.Episode) =>
      Effect.sync(() => {
        globalStep += e.length
        const r = perRunner.get(e.runner) ?? { episodes: 0, steps: 0, lagSum: 0, lagMax: 0, failures: 0, storageRetries: 0 }
        r.failures = Math.max(r.failures, e.runnerFailures)
        r.storageRetries = Math.max(r.storageRetries, e.runnerStorageRetries)
        const lag = Math.max(0, learnerVersion - e.policyVersion)
        r.episodes++
        r.steps += e.length
        r.lagSum += lag
        r.lagMax = Math.max(r.lagMax, lag)
        perRunner.set(e.runner, r)
        hooks.onEpisode?.({ kind: "episode", globalStep, episodeReturn: e.episodeReturn, episodeLength: e.length, wallSeconds: wall(), episodeId: e.episodeId, policyVersion: e.policyVersion, runner: e.runner })
      })
    const batches = yield* RolloutService.pipeline({
      maxPolicyLag: L,
      maxBatches: U,
      initial: yield* svc.publish(o.runId, 0, Policy.ofActorCritic(agent)),
      request: (k, policy) =>
        svc.episodes({ runId: o.runId, runSeed: o.seed, envId: o.envId, policy, episodeIds: Array.from({ length: E }, (_, i) => k * E + i), perMessage: o.perMessage }).pipe(
          Stream.tap(onArrival)
        ),
      idOf: (e) => e.episodeId,
      versionOf: (e) => e.policyVersion
    })
    const runnerRows = (): Array<RunnerRow> =>
      [...perRunner.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([runner, r]) => ({
        kind: "runner",
        runner,
        globalStep,
        wallSeconds: wall(),
        episodes: r.episodes,
        steps: r.steps,
        episodesPerSecond: r.episodes / Math.max(wall(), 1e-9),
        stepsPerSecond: r.steps / Math.max(wall(), 1e-9),
        meanPolicyLag: r.lagSum / Math.max(1, r.episodes),
        maxPolicyLag: r.lagMax,
        failures: r.failures,
        storageRetries: r.storageRetries,
        sendRetries: svc.stats.retries,
        duplicatesDropped: svc.stats.duplicatesDropped
      }))
    let consumedSteps = 0
    let stopReason: TrainResult["stopReason"] = "budget"
    const consumed: Array<number> = []
    for (let k = 0; k < U; k++) {
      learnerVersion = k
      const episodes = yield* batches.take(k)
      for (const e of [...episodes].sort((a, b) => a.episodeId - b.episodeId)) {
        consumedSteps += e.length
        consumed.push(e.episodeReturn)
      }
      const lr = o.annealLr ? (1 - k / U) * o.learningRate : o.learningRate
      const batch = toBatch(episodes, D, o.gamma, o.gaeLambda)
      const stats = yield* Effect.try({ try: () => update(agent, adam, shuffleRng, o, batch, lr), catch: (e) => e }).pipe(
        Effect.catch((e) => e instanceof NonFiniteValueError || e instanceof InvalidOptionError ? Effect.fail(e) : Effect.die(e))
      )
      yield* batches.published(k, yield* svc.publish(o.runId, k + 1, Policy.ofActorCritic(agent)))
      hooks.onUpdate?.({
        kind: "update",
        globalStep,
        wallSeconds: wall(),
        policyLoss: stats.policyLoss,
        valueLoss: stats.valueLoss,
        entropy: stats.entropy,
        approxKl: stats.approxKl,
        clipFraction: stats.clipFraction,
        explainedVariance: Ppo.explainedVariance(batch.values, batch.returns),
        learningRate: lr,
        policyVersion: k + 1
      })
      for (const row of runnerRows()) hooks.onRunner?.(row)
      if (o.stopWhenMeanReturn !== undefined && consumed.length >= 100 && mean(consumed.slice(-100)) >= o.stopWhenMeanReturn) {
        stopReason = "solved"
        break
      }
      if (o.totalSteps !== undefined && consumedSteps >= o.totalSteps) break
    }
    yield* batches.close
    const recent = consumed.slice(-100)
    return {
      runId: o.runId,
      agent,
      weightsHash: Policy.hashOf(Policy.encode(Policy.ofActorCritic(agent))),
      returns: consumed,
      episodes: consumed.length,
      globalStep: consumedSteps,
      wallSeconds: wall(),
      meanRecentReturn: mean(recent),
      runners: runnerRows(),
      stopReason
    }
  })

/**
 * The plain (Promise) face of {@link train}: episode-based PPO with rollouts on this machine, on a pool of worker
 * threads (`threads`, default `os.availableParallelism()`) or, with `threads: 0`, in the calling thread. The pool
 * is closed when the run ends. Rejects with the same tagged errors as {@link train} (`InvalidOptionError` naming the
 * option, `NonFiniteValueError`, `RolloutError`, `PolicyLagError`); `instanceof` and `_tag` work.
 *
 * @example
 * ```ts
 * const result = await Trainer.trainLocal({ envId: "CartPole-v1", seed: 1, updates: 20 }, { onUpdate: (row) => console.log(row) })
 * ```
 * @category plain
 * @since 0.2.0
 */
export const trainLocal = (
  options: Partial<Options> & { readonly envId: string; readonly threads?: number | undefined },
  hooks: Hooks = {}
): Promise<TrainResult> => {
  const { threads, ...rest } = options
  const rollouts = threads === 0 ? RolloutService.layerInProcess : RolloutService.layerThreads(threads === undefined ? {} : { workers: threads })
  return Effect.runPromise(train(rest, hooks).pipe(Effect.provide(rollouts)))
}

/**
 * Group-based multi-turn training (GiGPO, GRPO, Dr. GRPO, RLOO, REINFORCE++) of the DRRN text policy with group
 * rollouts from the {@link RolloutService.RolloutService}: `MultiTurnTrainer` of `@autodidact/optim`, with its
 * rollout step replaced by `RolloutService.groups` so the groups can come from cluster runners.
 *
 * Each update consumes `tasksPerBatch` groups (group `g`'s task and actions are seeded by (run seed, g), see
 * `Collect`), collected with policy version `max(0, k − maxPolicyLag)`. Trajectories cross the wire without the
 * policy's encodings; the learner re-featurizes each step (`DrrnPolicy.encode` depends only on the policy's
 * configuration and the step's text), then computes the estimator's advantages and runs the clipped-surrogate epochs
 * of `MultiTurnTrainer.lossAndGradient` (Shao et al. 2024, GRPO; Feng et al. 2025, GiGPO). As in {@link Trainer},
 * groups are sorted by id before the update, so the result does not depend on arrival order or runner count.
 * No KL reference and no periodic evaluation (evaluate the returned policy with `MultiTurnTrainer.evaluate`).
 *
 * @since 0.1.0
 */
import { InvalidOptionError, Metrics, NonFiniteValueError, Rng } from "@autodidact/core"
import { Adam, Advantages, DrrnPolicy, MultiTurnTrainer, TextTasks } from "@autodidact/optim"
import { Effect, Schema, Stream } from "effect"
import type * as Collect from "./Collect.js"
import type { PolicyLagError, RolloutError } from "./Errors.js"
import * as Policy from "./Policy.js"
import * as RolloutService from "./RolloutService.js"
import * as Trainer from "./Trainer.js"

/** Options (the optimizer's are `MultiTurnTrainer`'s defaults). */
export interface Options {
  readonly envId: string
  readonly runId: string
  readonly seed: number
  readonly algo: string
  readonly groupSize: number
  readonly tasksPerBatch: number
  readonly totalSteps: number
  readonly maxPolicyLag: number
  readonly difficulty?: string | undefined
  readonly learningRate: number
  readonly epochs: number
  readonly minibatches: number
  readonly clip: number
  readonly entCoef: number
  readonly gamma: number
  readonly omega: number
  readonly maxGradNorm: number
}

/** Defaults: `MultiTurnTrainer.defaults` for the optimizer, 10 000 steps, synchronous. */
export const defaults: Omit<Options, "envId" | "runId"> = {
  seed: 1,
  algo: MultiTurnTrainer.defaults.algo,
  groupSize: MultiTurnTrainer.defaults.groupSize,
  tasksPerBatch: MultiTurnTrainer.defaults.tasksPerBatch,
  totalSteps: 10_000,
  maxPolicyLag: 0,
  learningRate: MultiTurnTrainer.defaults.learningRate,
  epochs: MultiTurnTrainer.defaults.epochs,
  minibatches: MultiTurnTrainer.defaults.minibatches,
  clip: MultiTurnTrainer.defaults.clip,
  entCoef: MultiTurnTrainer.defaults.entCoef,
  gamma: MultiTurnTrainer.defaults.gamma,
  omega: MultiTurnTrainer.defaults.omega,
  maxGradNorm: MultiTurnTrainer.defaults.maxGradNorm
}

/**
 * A consumed trajectory: the `episode` row (`Metrics.EpisodeRow` of `@autodidact/core`) with its `success`, the
 * `groupId` it belongs to, the `policyVersion` that collected it and the `runner`.
 * @since 0.1.0
 */
export const EpisodeRow = Schema.Struct({ ...Metrics.EpisodeRow.fields, success: Schema.Boolean, groupId: Schema.Int, ...Metrics.provenanceFields })
export type EpisodeRow = typeof EpisodeRow.Type

const { valueLoss: _valueLoss, explainedVariance: _explainedVariance, ...criticFreeUpdateFields } = Trainer.UpdateRow.fields

/**
 * After each update: `Trainer.UpdateRow` without the critic's fields (`valueLoss`, `explainedVariance`: the policy
 * has no critic), so `policyLoss`, `entropy`, `approxKl`, `clipFraction`, `learningRate` and the published
 * `policyVersion`; plus the batch's `successRate` (in [0, 1]) and mean `episodeReturn`, and the number of rollout
 * `failures` in the batch.
 * @since 0.1.0
 */
export const UpdateRow = Schema.Struct({
  ...criticFreeUpdateFields,
  successRate: Schema.Number,
  episodeReturn: Schema.Number,
  failures: Schema.Int
})
export type UpdateRow = typeof UpdateRow.Type

/** Callbacks (all optional, synchronous): each consumed trajectory as it arrives, each update. */
export interface Hooks {
  readonly onEpisode?: ((row: EpisodeRow) => void) | undefined
  readonly onUpdate?: ((row: UpdateRow) => void) | undefined
}

/**
 * What {@link train} returns: the trained policy and its weights' hash, updates made, environment steps consumed,
 * wall time (seconds), and the last update batch's success rate (in [0, 1]) and mean return.
 */
export interface TrainResult {
  readonly runId: string
  readonly policy: DrrnPolicy.Drrn
  readonly weightsHash: string
  readonly updates: number
  readonly globalStep: number
  readonly wallSeconds: number
  /** Success rate and mean return of the last update's trajectories. */
  readonly successRate: number
  readonly episodeReturn: number
}

/** The group-based estimators (critic-free; `gae` needs values and is not one). */
export const algos: ReadonlyArray<string> = ["gigpo", "grpo", "dr-grpo", "rloo", "reinforce++"]

/** Check the options; {@link InvalidOptionError} names the first bad one. */
export const validate = (o: Options): Effect.Effect<Options, InvalidOptionError> =>
  Effect.suspend(() => {
    const bad = (option: string, value: unknown, reason: string) => Effect.fail(new InvalidOptionError({ option, value, reason }))
    for (const key of ["groupSize", "tasksPerBatch", "totalSteps", "epochs", "minibatches"] as const) {
      if (!Number.isInteger(o[key]) || o[key] < 1) return bad(key, o[key], "must be a positive integer")
    }
    if (!Number.isInteger(o.maxPolicyLag) || o.maxPolicyLag < 0) return bad("maxPolicyLag", o.maxPolicyLag, "must be a non-negative integer")
    if (!Number.isSafeInteger(o.seed) || o.seed < 0) return bad("seed", o.seed, "must be a non-negative safe integer")
    if (!algos.includes(o.algo)) return bad("algo", o.algo, `must be one of ${algos.join(", ")}`)
    if (!(o.learningRate > 0 && Number.isFinite(o.learningRate))) return bad("learningRate", o.learningRate, "must be a positive finite number")
    if (o.runId.length === 0 || o.runId.includes("/")) return bad("runId", o.runId, "must be non-empty and contain no '/'")
    return Effect.succeed(o)
  })

/**
 * The optimizer's samples of a batch of groups (sorted by group id): every step whose action was admissible,
 * re-featurized with `policy`'s configuration, with its recorded log π_old and its advantage.
 */
export const samplesOf = (groups: ReadonlyArray<Collect.Group>, policy: DrrnPolicy.Drrn, algo: string, advOptions: Advantages.Options): Array<MultiTurnTrainer.Sample> => {
  const kept = [...groups].sort((a, b) => a.groupId - b.groupId).filter((g) => g.trajectories.length > 0)
  const adv = Advantages.get(algo)(kept.map((g) => g.trajectories.map((t) => ({ rewards: t.rewards, stateKeys: t.stateKeys }))), advOptions)
  const samples: Array<MultiTurnTrainer.Sample> = []
  kept.forEach((g, gi) =>
    g.trajectories.forEach((t, i) => {
      const history: Array<{ observation: string; action: string }> = []
      for (let s = 0; s < t.actions.length; s++) {
        if (t.actionIndices[s]! >= 0) {
          const encoded = DrrnPolicy.encode(policy, { task: t.task, observation: t.observations[s]!, admissible: t.admissible[s]!, history })
          samples.push({ encoded, action: t.actionIndices[s]!, oldLogProb: t.logprobs[s]!, advantage: adv[gi]![i]![s]!, refLogProb: 0 })
        }
        history.push({ observation: t.observations[s]!, action: t.actions[s]! })
      }
    })
  )
  return samples
}

/**
 * Train the DRRN text policy with a group-based estimator (`algo`: GiGPO, Feng et al. 2025, arXiv:2505.10978; GRPO,
 * Shao et al. 2024, arXiv:2402.03300; Dr. GRPO, RLOO, REINFORCE++) on groups of `groupSize` trajectories from the
 * {@link RolloutService.RolloutService} in context, until `totalSteps` consumed environment steps.
 *
 * *Details*: `envId` is a text environment `TextTasks.setupFor` knows (TextHousehold-v0, the text Sokoban ids);
 * update k consumes `tasksPerBatch` groups collected with version max(0, k − `maxPolicyLag`) and publishes version
 * k + 1 (see the module docs). `hooks.onEpisode` gets each trajectory as it arrives ({@link EpisodeRow}),
 * `hooks.onUpdate` an {@link UpdateRow} after each update; the result's `successRate` (in [0, 1]) and
 * `episodeReturn` are those of the last update's batch, not an evaluation.
 *
 * *Errors*: {@link InvalidOptionError} for a bad option or unknown env; `NonFiniteValueError` when a gradient norm is
 * not finite; `RolloutError` when collection fails; `PolicyLagError` when a group is staler than `maxPolicyLag`.
 * @see effect/cluster: https://effect.website/docs
 * @since 0.1.0
 */
export const train = (
  options: Partial<Options> & { readonly envId: string },
  hooks: Hooks = {}
): Effect.Effect<TrainResult, InvalidOptionError | NonFiniteValueError | RolloutError | PolicyLagError, RolloutService.RolloutService> =>
  Effect.gen(function*() {
    const o = yield* validate({ ...defaults, runId: `${options.envId}-${options.seed ?? defaults.seed}-${Date.now()}`, ...options })
    const svc = yield* RolloutService.RolloutService
    const setup = yield* Effect.try({ try: () => TextTasks.setupFor(o.envId, { difficulty: o.difficulty }), catch: (e) => e instanceof InvalidOptionError ? e : new InvalidOptionError({ option: "envId", value: o.envId, reason: String(e) }) })
    const [initRng, , , shuffleRng] = Rng.make(o.seed).spawn(4) as [Rng, Rng, Rng, Rng]
    const policy = DrrnPolicy.make({ grid: setup.grid, rng: initRng })
    const adam = Adam.make(policy.params.length, { eps: 1e-8 })
    const grad = new Float64Array(policy.params.length)
    const advOptions: Advantages.Options = { ...Advantages.defaults, gamma: o.gamma, omega: o.omega }
    const started = performance.now()
    const wall = () => (performance.now() - started) / 1000
    const B = o.tasksPerBatch
    const L = o.maxPolicyLag
    let arrivedSteps = 0
    const maxBatches = Math.floor((2 ** 32 - 1) / B)
    const batches = yield* RolloutService.pipeline({
      maxPolicyLag: L,
      maxBatches,
      initial: yield* svc.publish(o.runId, 0, Policy.ofDrrn(policy)),
      request: (k, ref) =>
        svc.groups({ runId: o.runId, runSeed: o.seed, envId: o.envId, policy: ref, groupIds: Array.from({ length: B }, (_, i) => k * B + i), groupSize: o.groupSize, difficulty: o.difficulty }).pipe(
          Stream.tap((g) =>
            Effect.sync(() => {
              for (const t of g.trajectories) {
                arrivedSteps += t.actions.length
                hooks.onEpisode?.({ kind: "episode", globalStep: arrivedSteps, episodeReturn: t.episodeReturn, episodeLength: t.actions.length, wallSeconds: wall(), success: t.success, groupId: g.groupId, policyVersion: g.policyVersion, runner: g.runner })
              }
            })
          )
        ),
      idOf: (g) => g.groupId,
      versionOf: (g) => g.policyVersion
    })
    let consumedSteps = 0
    let last = { successRate: 0, episodeReturn: 0 }
    let k = 0
    for (; k < maxBatches && consumedSteps < o.totalSteps; k++) {
      const groups = yield* batches.take(k)
      let episodes = 0
      let successes = 0
      let returns = 0
      let failures = 0
      for (const g of groups) {
        failures += g.failures.length
        for (const t of g.trajectories) {
          episodes++
          consumedSteps += t.actions.length
          if (t.success) successes++
          returns += t.episodeReturn
        }
      }
      const stats = yield* Effect.try({
        try: () => {
          const samples = samplesOf(groups, policy, o.algo, advOptions)
          const n = samples.length
          const inds = Int32Array.from({ length: n }, (_, i) => i)
          const mb = Math.max(1, Math.ceil(n / o.minibatches))
          let maxActions = 1
          for (const s of samples) maxActions = Math.max(maxActions, s.encoded.actions.length)
          const dLogits = new Float64Array(2 * maxActions)
          let parts: MultiTurnTrainer.LossParts | undefined
          let clipSum = 0
          let clipCount = 0
          for (let epoch = 0; epoch < o.epochs; epoch++) {
            shuffleRng.shuffle(inds)
            for (let start = 0; start < n; start += mb) {
              const size = Math.min(mb, n - start)
              parts = MultiTurnTrainer.lossAndGradient(policy, { clip: o.clip, klCoef: 0, klEstimator: "k3", entCoef: o.entCoef }, samples, inds, start, size, grad, dLogits)
              const norm = Adam.clipGradNorm(grad, o.maxGradNorm)
              if (!Number.isFinite(norm)) throw new NonFiniteValueError({ where: "TextTrainer.gradNorm", value: norm })
              Adam.step(adam, policy.params, grad, o.learningRate)
              clipSum += parts.clipFraction
              clipCount++
            }
          }
          return { policyLoss: parts?.policyLoss ?? 0, entropy: parts?.entropy ?? 0, approxKl: parts?.approxKl ?? 0, clipFraction: clipCount === 0 ? 0 : clipSum / clipCount }
        },
        catch: (e) => e
      }).pipe(Effect.catch((e) => e instanceof NonFiniteValueError || e instanceof InvalidOptionError ? Effect.fail(e) : Effect.die(e)))
      yield* batches.published(k, yield* svc.publish(o.runId, k + 1, Policy.ofDrrn(policy)), consumedSteps < o.totalSteps)
      last = { successRate: episodes === 0 ? 0 : successes / episodes, episodeReturn: episodes === 0 ? 0 : returns / episodes }
      hooks.onUpdate?.({ kind: "update", globalStep: consumedSteps, wallSeconds: wall(), ...stats, learningRate: o.learningRate, ...last, failures, policyVersion: k + 1 })
    }
    yield* batches.close
    return {
      runId: o.runId,
      policy,
      weightsHash: Policy.hashOf(Policy.encode(Policy.ofDrrn(policy))),
      updates: k,
      globalStep: consumedSteps,
      wallSeconds: wall(),
      ...last
    }
  })

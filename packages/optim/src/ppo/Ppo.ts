/**
 * Proximal Policy Optimization for discrete actions, following CleanRL's `ppo.py` line by line.
 *
 * Schulman, Wolski, Dhariwal, Radford, Klimov, "Proximal Policy Optimization Algorithms", 2017 (arXiv:1707.06347);
 * Huang, Dossa, Raffin, Kanervisto, Wang, "The 37 Implementation Details of Proximal Policy Optimization",
 * ICLR Blog Track 2022. One step of the paper per module, read in order: options with CleanRL's defaults
 * (`internal/PpoOptions.ts`), the training state (`internal/PpoState.ts`), 1. rollout and 2. GAE
 * (`internal/PpoRollout.ts`), 3. the minibatch loop and 4. the losses and their gradients (`internal/PpoUpdate.ts`),
 * then the training loop that ties them together (this file). Every public name is exported from this namespace.
 *
 * **Details**
 * - Network: {@link ActorCritic} (two 64-64 tanh MLPs, orthogonal init) on the `engine` option's implementation:
 *   `"wasm-simd"` by default (float32 WebAssembly SIMD kernels, as PyTorch computes in float32; ~7× less wall time to
 *   solve CartPole than the float64 `"typed-array"` reference, which stays selectable); optimizer: {@link Adam}
 *   (PyTorch rule, ε = 1e-5), learning rate linearly annealed to 0 over `totalTimesteps`, global-norm clipping at 0.5.
 * - Vector environment: any `VectorEnv` with a `Box` observation space and a `Discrete` action space, created
 *   with `autoresetMode: "SameStep"` (what CleanRL's gymnasium-0.29-era loop assumes). Observations are flattened
 *   to `Float32Array`.
 * - Reproducibility: with a fixed `seed` and `engine` a run is bit-for-bit reproducible (both engines are
 *   single-threaded and deterministic): env seeds are `seed + i`, weight init, action sampling and minibatch shuffles
 *   draw from children of `Rng.make(seed)`. The two engines round differently, so they give different runs.
 * - Where the time goes (CartPole, `wasm-simd`, one seed, `node --cpu-prof`): the minibatch forward/backward passes
 *   ~50 %, Adam ~10 %, the rollout ~10 % (env steps and the 4-row forward pass), GC ~5 % (the vector env's per-step
 *   result objects), loss, clipping, shuffles and GAE a few % together. `autodidact bench ppo` measures it.
 * - Loss kernel: the double-precision reference by default; `AUTODIDACT_PPO_LOSS_KERNEL=wasm-simd` uses the
 *   WebAssembly SIMD kernel (float32 inside, 1.5–2.5× faster per call, a different but still reproducible run; see
 *   {@link LossKernel}).
 * - Truncations are treated as terminations (CleanRL); `bootstrapTruncated: true` bootstraps from the value of
 *   `infos.finalObservation` instead (see `Gae`).
 * - Between updates the loop yields to the Effect runtime, so interruption (Ctrl-C) and progress rendering work;
 *   an `AbortSignal` stops it cleanly with `stopReason: "aborted"`.
 *
 * **Errors**: {@link InvalidOptionError} for an invalid option (naming it and its value),
 * `NonFiniteValueError` when a reward, value or loss becomes NaN/Infinity, `CheckpointError` when a periodic
 * checkpoint cannot be written.
 *
 * @example
 * ```ts
 * import { Registry } from "@autodidact/envs"
 * import { Ppo } from "@autodidact/optim"
 * import { Effect } from "effect"
 *
 * const env = Registry.makeVec("CartPole-v1", 4, { autoresetMode: "SameStep" })
 * const result = await Effect.runPromise(
 *   Ppo.train(env, { seed: 1, stopWhen: { meanReturn: 475 } }, { onUpdate: (row) => console.log(row) })
 * )
 * console.log(result.stopReason, result.globalStep)
 * ```
 * @see https://github.com/vwxyzjn/cleanrl/blob/master/cleanrl/ppo.py
 * @see https://iclr-blog-track.github.io/2022/03/25/ppo-implementation-details/
 * @since 0.1.0
 */
import { InvalidOptionError, NonFiniteValueError } from "@autodidact/core"
import { Registry, UnknownEnvError, type VectorEnv } from "@autodidact/envs"
import { Gae } from "@autodidact/kernels"
import { Effect } from "effect"
import type * as ActorCritic from "./ActorCritic.js"
import type { CheckpointError } from "./CheckpointError.js"
import type { Hooks } from "../internal/PpoHooks.js"
import { defaults, type Options, validate } from "../internal/PpoOptions.js"
import { advantages, copyObs, makeBuffer, mean, rollout, type Tracker } from "../internal/PpoRollout.js"
import { initialState, type TrainState } from "../internal/PpoState.js"
import { lossKernelFromEnv, update, type UpdateScratch } from "../internal/PpoUpdate.js"

export type { Hooks } from "../internal/PpoHooks.js"
export { defaults, type Options, validate } from "../internal/PpoOptions.js"
export { initialState, type TrainState } from "../internal/PpoState.js"
export { type LossKernel, lossKernelFromEnv, type LossParts, lossAndGradient, type LossScratch, type Minibatch } from "../internal/PpoUpdate.js"

/** What {@link train} returns. */
export interface TrainResult {
  readonly state: TrainState
  readonly agent: ActorCritic.ActorCritic
  readonly globalStep: number
  readonly wallSeconds: number
  readonly episodes: number
  /** Mean return of the last ≤ 100 (or `stopWhen.window`) finished episodes; NaN if none finished. */
  readonly meanRecentReturn: number
  readonly stopReason: "solved" | "budget" | "aborted"
}

// ---------------------------------------------------------------------------------------------------------------
// The training loop
// ---------------------------------------------------------------------------------------------------------------

/**
 * Explained variance of the value function, `1 − Var(R − V) / Var(R)` over the rollout (population variances, as
 * CleanRL's `np.var`): 1 is a perfect critic, 0 one no better than a constant, negative worse; NaN when Var(R) = 0.
 * `values` and `returns` are `[n]`, same length.
 */
export const explainedVariance = (values: ArrayLike<number>, returns: ArrayLike<number>): number => {
  const n = returns.length
  let mr = 0
  let md = 0
  for (let k = 0; k < n; k++) {
    mr += returns[k]!
    md += returns[k]! - values[k]!
  }
  mr /= n
  md /= n
  let vr = 0
  let vd = 0
  for (let k = 0; k < n; k++) {
    vr += (returns[k]! - mr) ** 2
    vd += (returns[k]! - values[k]! - md) ** 2
  }
  return vr === 0 ? Number.NaN : 1 - vd / vr
}

/** Options merged over {@link defaults}. */
export type TrainOptions = Partial<Options> & { readonly resume?: TrainState | undefined }

const rethrowTyped = (e: unknown): Effect.Effect<never, InvalidOptionError | NonFiniteValueError | Gae.GaeShapeError> =>
  e instanceof InvalidOptionError || e instanceof NonFiniteValueError || e instanceof Gae.GaeShapeError ? Effect.fail(e) : Effect.die(e)

/**
 * Train a PPO agent on a vector environment until `totalTimesteps`, the `stopWhen` goal, or an abort.
 *
 * With `resume` (a {@link TrainState}, e.g. from `Checkpoint.load`), training continues its global step, learning
 * rate schedule, weights, Adam moments and generators; the environments are re-seeded with `seed + globalStep`
 * (an episode in progress at save time is not restored). The options of the resumed state are used, except
 * `totalTimesteps`, `stopWhen` and `checkpoint`, which may be overridden.
 */
export const train = (
  env: VectorEnv.VectorEnv,
  options: TrainOptions = {},
  hooks: Hooks = {}
): Effect.Effect<TrainResult, InvalidOptionError | NonFiniteValueError | Gae.GaeShapeError | CheckpointError> =>
  Effect.gen(function* () {
    const { resume, ...rest } = options
    const merged: Options = resume === undefined
      ? { ...defaults, numEnvs: env.numEnvs, ...rest }
      : { ...resume.options, ...pick(rest, ["totalTimesteps", "stopWhen", "checkpoint"]) }
    const o = yield* validate(merged)
    const save = hooks.saveCheckpoint
    if (o.checkpoint !== undefined && save === undefined) {
      return yield* new InvalidOptionError({ option: "checkpoint", value: o.checkpoint.path, reason: "writing checkpoints needs Node: use Ppo.train from @autodidact/optim/node (or pass hooks.saveCheckpoint)" })
    }
    if (o.numEnvs !== env.numEnvs) return yield* new InvalidOptionError({ option: "numEnvs", value: o.numEnvs, reason: `the vector env has ${env.numEnvs} envs` })
    const obsSpace = env.singleObservationSpace
    const actSpace = env.singleActionSpace
    if (obsSpace._tag !== "Box") return yield* new InvalidOptionError({ option: "env", value: obsSpace._tag, reason: "PPO needs a Box observation space" })
    if (actSpace._tag !== "Discrete") return yield* new InvalidOptionError({ option: "env", value: actSpace._tag, reason: "this PPO needs a Discrete action space" })
    if (o.bootstrapTruncated && env.autoresetMode !== "SameStep") {
      return yield* new InvalidOptionError({ option: "bootstrapTruncated", value: true, reason: `needs autoresetMode SameStep, the env uses ${env.autoresetMode}` })
    }
    const D = obsSpace.shape.reduce((a, b) => a * b, 1)
    const s: TrainState = resume === undefined ? initialState(o, D, actSpace.n) : { ...resume, options: o }
    if (s.agent.obsDim !== D || s.agent.numActions !== actSpace.n) {
      return yield* new InvalidOptionError({ option: "resume", value: `${s.agent.obsDim}→${s.agent.numActions}`, reason: `the env has ${D} observation dims and ${actSpace.n} actions` })
    }
    const T = o.numSteps
    const N = o.numEnvs
    const batchSize = T * N
    const numIterations = Math.floor(o.totalTimesteps / batchSize)
    const buf = makeBuffer(T, N, D)
    const sc: UpdateScratch = {
      inds: Int32Array.from({ length: batchSize }, (_, k) => k),
      mbAdv: new Float64Array(batchSize / o.numMinibatches),
      dLogits: new Float64Array((batchSize / o.numMinibatches) * actSpace.n),
      dValues: new Float64Array(batchSize / o.numMinibatches),
      grad: new Float64Array(s.agent.params.length),
      lossKernel: lossKernelFromEnv()
    }
    const tr: Tracker = { started: performance.now(), window: o.stopWhen?.window ?? 100, episodes: 0, solvedAt: undefined }
    const wallAtStart = s.wallSeconds
    const wall = () => wallAtStart + (performance.now() - tr.started) / 1000
    // next_obs, _ = envs.reset(seed=args.seed); next_done = zeros
    const first = env.reset({ seed: o.seed + s.globalStep })
    copyObs(first.observations as ArrayLike<number>, buf.nextObs, N * D)
    let stopReason: TrainResult["stopReason"] = "budget"
    const everyUpdates = o.checkpoint?.everyUpdates ?? 10
    while (s.iteration < numIterations) {
      const iteration = s.iteration + 1
      const lr = o.annealLr ? (1 - (iteration - 1) / numIterations) * o.learningRate : o.learningRate
      const completed = yield* Effect.try({ try: () => rollout(env, s, buf, wall, actSpace.start, tr, hooks), catch: (e) => e }).pipe(Effect.catch(rethrowTyped))
      if (!completed) {
        stopReason = tr.solvedAt !== undefined ? "solved" : "aborted"
        break
      }
      const stats = yield* Effect.try({ try: () => (advantages(s, buf), update(s, buf, sc, lr)), catch: (e) => e }).pipe(Effect.catch(rethrowTyped))
      s.iteration = iteration
      hooks.onUpdate?.({
        kind: "update",
        globalStep: s.globalStep,
        wallSeconds: wall(),
        policyLoss: stats.policyLoss,
        valueLoss: stats.valueLoss,
        entropy: stats.entropy,
        approxKl: stats.approxKl,
        clipFraction: stats.clipFraction,
        explainedVariance: explainedVariance(buf.values, buf.returns),
        learningRate: lr
      })
      if (o.checkpoint !== undefined && iteration % everyUpdates === 0) {
        s.wallSeconds = wall()
        yield* save!(o.checkpoint.path, s)
      }
      yield* Effect.yieldNow // let the runtime interrupt us and the CLI render progress
      if (hooks.signal?.aborted === true) {
        stopReason = "aborted"
        break
      }
    }
    s.wallSeconds = wall()
    if (o.checkpoint !== undefined) yield* save!(o.checkpoint.path, s)
    return {
      state: s,
      agent: s.agent,
      globalStep: tr.solvedAt ?? s.globalStep,
      wallSeconds: s.wallSeconds,
      episodes: tr.episodes,
      meanRecentReturn: s.recentReturns.length === 0 ? Number.NaN : mean(s.recentReturns),
      stopReason
    }
  })

const pick = <K extends keyof Options>(o: Partial<Options>, keys: ReadonlyArray<K>): Partial<Options> => {
  const out: { [key: string]: unknown } = {}
  for (const k of keys) if (o[k] !== undefined) out[k] = o[k]
  return out as Partial<Options>
}

/** Options of {@link trainOn}: {@link TrainOptions}, and how an environment named by id is made. */
export type TrainOnOptions = TrainOptions & {
  /** Constructor options of an environment named by id (`Registry.makeVec`'s `kwargs`). */
  readonly envKwargs?: { readonly [key: string]: unknown } | undefined
}

/**
 * {@link train} on an environment given by registry id (e.g. `"CartPole-v1"`: a synchronous vector env of
 * `options.numEnvs` (default 4) copies with `autoresetMode: "SameStep"`) or as a `VectorEnv`. Fails as {@link train},
 * and with `UnknownEnvError` for an id the registry does not know. The Effect face of the plain `trainPpo`.
 */
export const trainOn = (
  env: string | VectorEnv.VectorEnv,
  options: TrainOnOptions = {},
  hooks: Hooks = {}
): Effect.Effect<TrainResult, InvalidOptionError | NonFiniteValueError | Gae.GaeShapeError | CheckpointError | UnknownEnvError> =>
  Effect.gen(function* () {
    const { envKwargs, ...rest } = options
    const vec = typeof env !== "string" ? env : yield* Effect.try({
      try: () => Registry.makeVec(env, rest.numEnvs ?? rest.resume?.options.numEnvs ?? defaults.numEnvs, { autoresetMode: "SameStep", kwargs: envKwargs ?? {} }),
      catch: (e) => e
    }).pipe(Effect.catch((e) => (e instanceof UnknownEnvError || e instanceof InvalidOptionError ? Effect.fail(e) : Effect.die(e))))
    return yield* train(vec, rest, hooks)
  })

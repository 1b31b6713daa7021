/**
 * PPO's hyper-parameters with CleanRL `ppo.py`'s defaults and their validation: the
 * `Options`, `defaults` and `validate` of the public {@link Ppo} namespace (re-exported there).
 * @internal
 * @since 0.2.0
 */
import { InvalidOptionError } from "@autodidact/core"
import { Effect } from "effect"
import type { Engine } from "./ActorCriticNet.js"

/** PPO hyper-parameters (CleanRL `ppo.py` `Args`, same meaning and defaults). */
export interface Options {
  /** Parallel environments; must equal the vector env's `numEnvs`. Default 4. */
  readonly numEnvs: number
  /** Steps per environment per rollout. Default 128 (batch = numEnvs × numSteps = 512). */
  readonly numSteps: number
  /** Total environment steps (all envs). Default 500 000. */
  readonly totalTimesteps: number
  /** Adam learning rate. Default 2.5e-4. */
  readonly learningRate: number
  /** Anneal the learning rate linearly to 0 over `totalTimesteps`. Default true. */
  readonly annealLr: boolean
  /** Adam ε. Default 1e-5. */
  readonly adamEps: number
  /** Discount γ. Default 0.99. */
  readonly gamma: number
  /** GAE λ. Default 0.95. */
  readonly gaeLambda: number
  /** Minibatches per epoch. Default 4 (minibatch = 128). */
  readonly numMinibatches: number
  /** Epochs over each batch. Default 4. */
  readonly updateEpochs: number
  /** Normalize advantages per minibatch. Default true. */
  readonly normAdv: boolean
  /** Surrogate clipping ε. Default 0.2. */
  readonly clipCoef: number
  /** Clip the value loss as in the PPO2 code. Default true. */
  readonly clipVloss: boolean
  /** Entropy bonus coefficient. Default 0.01. */
  readonly entCoef: number
  /** Value loss coefficient. Default 0.5. */
  readonly vfCoef: number
  /** Global gradient-norm clip. Default 0.5. */
  readonly maxGradNorm: number
  /** Stop the epochs of an update early once the approximate KL exceeds this. Default none. */
  readonly targetKl?: number | undefined
  /** Hidden width of both MLPs. Default 64. */
  readonly hidden: number
  /**
   * Engine of the actor-critic's forward/backward passes (`ActorCritic.Engine`). Default `"wasm-simd"` (float32
   * WebAssembly SIMD, as PyTorch's float32; falls back to `"typed-array"` where unavailable); `"typed-array"` is the
   * float64 reference. Both are reproducible for a fixed seed, but give different (equally valid) runs.
   */
  readonly engine?: Engine | undefined
  /** Seed of everything (env seeds, init, sampling, shuffles). Default 1 (CleanRL's default seed). */
  readonly seed: number
  /** Bootstrap truncated episodes from V(final observation) instead of treating them as terminal. Default false. */
  readonly bootstrapTruncated: boolean
  /** Stop once the mean return of the last `window` (default 100) finished episodes reaches `meanReturn`. */
  readonly stopWhen?: { readonly meanReturn: number; readonly window?: number | undefined } | undefined
  /** Save a checkpoint to `path` every `everyUpdates` updates (default 10) and at the end. */
  readonly checkpoint?: { readonly path: string; readonly everyUpdates?: number | undefined } | undefined
}

/** CleanRL's defaults. */
export const defaults: Options = {
  numEnvs: 4,
  numSteps: 128,
  totalTimesteps: 500_000,
  learningRate: 2.5e-4,
  annealLr: true,
  adamEps: 1e-5,
  gamma: 0.99,
  gaeLambda: 0.95,
  numMinibatches: 4,
  updateEpochs: 4,
  normAdv: true,
  clipCoef: 0.2,
  clipVloss: true,
  entCoef: 0.01,
  vfCoef: 0.5,
  maxGradNorm: 0.5,
  hidden: 64,
  engine: "wasm-simd",
  seed: 1,
  bootstrapTruncated: false
}

/**
 * Validate options: positive sizes, `numSteps × numEnvs` divisible by `numMinibatches`, positive learning rate, ...
 * Fails with {@link InvalidOptionError} naming the first offending option and its value.
 */
export const validate = (o: Options): Effect.Effect<Options, InvalidOptionError> =>
  Effect.suspend(() => {
    const bad = (option: string, value: unknown, reason: string) => Effect.fail(new InvalidOptionError({ option, value, reason }))
    for (const key of ["numEnvs", "numSteps", "numMinibatches", "updateEpochs", "hidden", "totalTimesteps"] as const) {
      if (!Number.isInteger(o[key]) || o[key] < 1) return bad(key, o[key], "must be a positive integer")
    }
    if ((o.numEnvs * o.numSteps) % o.numMinibatches !== 0) {
      return bad("numMinibatches", o.numMinibatches, `must divide the batch size numEnvs × numSteps = ${o.numEnvs * o.numSteps}`)
    }
    if (!(o.learningRate > 0 && Number.isFinite(o.learningRate))) return bad("learningRate", o.learningRate, "must be a positive finite number")
    if (!(o.adamEps > 0)) return bad("adamEps", o.adamEps, "must be positive")
    if (!(o.gamma >= 0 && o.gamma <= 1)) return bad("gamma", o.gamma, "must be in [0, 1]")
    if (!(o.gaeLambda >= 0 && o.gaeLambda <= 1)) return bad("gaeLambda", o.gaeLambda, "must be in [0, 1]")
    for (const key of ["clipCoef", "entCoef", "vfCoef", "maxGradNorm"] as const) {
      if (!(o[key] >= 0 && Number.isFinite(o[key]))) return bad(key, o[key], "must be a non-negative finite number")
    }
    if (o.engine !== undefined && o.engine !== "typed-array" && o.engine !== "wasm-simd") return bad("engine", o.engine, "must be \"typed-array\" or \"wasm-simd\"")
    if (o.targetKl !== undefined && !(o.targetKl > 0)) return bad("targetKl", o.targetKl, "must be positive when set")
    if (!Number.isSafeInteger(o.seed) || o.seed < 0) return bad("seed", o.seed, "must be a non-negative safe integer")
    if (o.stopWhen !== undefined && !Number.isFinite(o.stopWhen.meanReturn)) return bad("stopWhen.meanReturn", o.stopWhen.meanReturn, "must be finite")
    if (o.stopWhen?.window !== undefined && !(Number.isInteger(o.stopWhen.window) && o.stopWhen.window >= 1)) {
      return bad("stopWhen.window", o.stopWhen.window, "must be a positive integer")
    }
    return Effect.succeed(o)
  })

/**
 * Proximal Policy Optimization for discrete actions, following CleanRL's `ppo.py` line by line.
 *
 * Schulman, Wolski, Dhariwal, Radford, Klimov, "Proximal Policy Optimization Algorithms", 2017 (arXiv:1707.06347);
 * Huang, Dossa, Raffin, Kanervisto, Wang, "The 37 Implementation Details of Proximal Policy Optimization",
 * ICLR Blog Track 2022. The file reads top to bottom like the paper: options (CleanRL's defaults), 1. rollout,
 * 2. GAE, 3. minibatch loop, 4. losses and their gradients, then the training loop that ties them together.
 *
 * **Details**
 * - Network: {@link ActorCritic} (two 64-64 tanh MLPs, orthogonal init); optimizer: {@link Adam} (PyTorch rule,
 *   ε = 1e-5), learning rate linearly annealed to 0 over `totalTimesteps`, global-norm clipping at 0.5.
 * - Vector environment: any `VectorEnv` with a `Box` observation space and a `Discrete` action space, created
 *   with `autoresetMode: "SameStep"` (what CleanRL's gymnasium-0.29-era loop assumes). Observations are flattened
 *   to `Float32Array`.
 * - Reproducibility: with a fixed `seed` (and backend-free arithmetic) a run is bit-for-bit reproducible: env
 *   seeds are `seed + i`, weight init, action sampling and minibatch shuffles draw from children of
 *   `Rng.make(seed)`.
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
import { InvalidOptionError, Metrics, NonFiniteValueError, Rng } from "@autodidact/core"
import type { VectorEnv } from "@autodidact/envs"
import { Gae, PpoLoss, WasmSimd } from "@autodidact/kernels"
import { Effect } from "effect"
import * as Adam from "./Adam.js"
import * as ActorCritic from "./ActorCritic.js"
import * as Checkpoint from "./Checkpoint.js"

// ---------------------------------------------------------------------------------------------------------------
// Options: CleanRL ppo.py's defaults
// ---------------------------------------------------------------------------------------------------------------

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
  seed: 1,
  bootstrapTruncated: false
}

/** Per-run callbacks; all optional. They run synchronously inside the loop: keep them cheap. */
export interface Hooks {
  /** Called for every finished episode (`kind: "episode"` row of `metrics.jsonl`). */
  readonly onEpisode?: ((row: Metrics.EpisodeRow) => void) | undefined
  /** Called after every update (`kind: "update"` row). */
  readonly onUpdate?: ((row: Metrics.UpdateRow) => void) | undefined
  /** Stop at the next step boundary when aborted (`stopReason: "aborted"`). */
  readonly signal?: AbortSignal | undefined
}

/** Everything needed to continue a run (what a checkpoint stores). */
export interface TrainState {
  readonly options: Options
  readonly agent: ActorCritic.ActorCritic
  readonly adam: Adam.AdamState
  readonly actionRng: Rng
  readonly shuffleRng: Rng
  /** Completed updates. */
  iteration: number
  /** Environment steps so far (all envs). */
  globalStep: number
  /** Training wall-clock seconds so far (summed over resumed runs). */
  wallSeconds: number
  /** Returns of the most recent finished episodes (at most the `stopWhen` window, default 100). */
  recentReturns: Array<number>
}

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
    if (o.targetKl !== undefined && !(o.targetKl > 0)) return bad("targetKl", o.targetKl, "must be positive when set")
    if (!Number.isSafeInteger(o.seed) || o.seed < 0) return bad("seed", o.seed, "must be a non-negative safe integer")
    if (o.stopWhen !== undefined && !Number.isFinite(o.stopWhen.meanReturn)) return bad("stopWhen.meanReturn", o.stopWhen.meanReturn, "must be finite")
    if (o.stopWhen?.window !== undefined && !(Number.isInteger(o.stopWhen.window) && o.stopWhen.window >= 1)) {
      return bad("stopWhen.window", o.stopWhen.window, "must be a positive integer")
    }
    return Effect.succeed(o)
  })

/** The initial training state for `options` on an env with these sizes (weights from `Rng.make(seed)`). */
export const initialState = (options: Options, obsDim: number, numActions: number): TrainState => {
  const root = Rng.make(options.seed)
  const [initRng, actionRng, shuffleRng] = root.spawn(3) as [Rng, Rng, Rng]
  const agent = ActorCritic.make({ obsDim, numActions, hidden: options.hidden, rng: initRng })
  return {
    options,
    agent,
    adam: Adam.make(agent.params.length, { eps: options.adamEps }),
    actionRng,
    shuffleRng,
    iteration: 0,
    globalStep: 0,
    wallSeconds: 0,
    recentReturns: []
  }
}

/** Rollout storage, `[numSteps, numEnvs]` row-major (CleanRL's `obs`, `actions`, `logprobs`, ...). */
interface Buffer {
  readonly obs: Float32Array // [T, N, obsDim]
  readonly actions: Int32Array
  readonly logprobs: Float32Array
  readonly rewards: Float32Array
  readonly dones: Float32Array
  readonly values: Float32Array
  readonly truncations: Float32Array
  readonly finalValues: Float32Array
  readonly advantages: Float32Array
  readonly returns: Float32Array
  readonly nextObs: Float32Array // [N, obsDim]
  readonly nextDone: Float32Array // [N]
  readonly nextValue: Float32Array // [N]
  readonly envActions: Int32Array
  readonly episodeReturn: Float64Array
  readonly episodeLength: Int32Array
}

const makeBuffer = (T: number, N: number, D: number): Buffer => ({
  obs: new Float32Array(T * N * D),
  actions: new Int32Array(T * N),
  logprobs: new Float32Array(T * N),
  rewards: new Float32Array(T * N),
  dones: new Float32Array(T * N),
  values: new Float32Array(T * N),
  truncations: new Float32Array(T * N),
  finalValues: new Float32Array(T * N),
  advantages: new Float32Array(T * N),
  returns: new Float32Array(T * N),
  nextObs: new Float32Array(N * D),
  nextDone: new Float32Array(N),
  nextValue: new Float32Array(N),
  envActions: new Int32Array(N),
  episodeReturn: new Float64Array(N),
  episodeLength: new Int32Array(N)
})

const copyObs = (src: ArrayLike<number>, dst: Float32Array, n: number): void => {
  for (let k = 0; k < n; k++) dst[k] = src[k]!
}

/** Episode bookkeeping shared by the rollout and the loop. */
interface Tracker {
  readonly started: number
  readonly window: number
  episodes: number
  solvedAt: number | undefined
}

// ---------------------------------------------------------------------------------------------------------------
// 1. Rollout: numSteps steps of numEnvs envs with the current policy (CleanRL: `for step in range(0, args.num_steps)`)
// ---------------------------------------------------------------------------------------------------------------

/** Collect one rollout into `buf`; returns false when stopped early (solved or aborted). */
const rollout = (env: VectorEnv.VectorEnv, s: TrainState, buf: Buffer, wall: () => number, actionStart: number, tr: Tracker, hooks: Hooks): boolean => {
  const { numSteps: T, numEnvs: N } = s.options
  const D = s.agent.obsDim
  const agent = s.agent
  for (let t = 0; t < T; t++) {
    s.globalStep += N
    const row = t * N
    buf.obs.set(buf.nextObs, row * D) // obs[step] = next_obs
    buf.dones.set(buf.nextDone, row) // dones[step] = next_done
    // action, logprob, _, value = agent.get_action_and_value(next_obs)
    ActorCritic.act(agent, buf.nextObs, N, s.actionRng, buf.actions, buf.logprobs, buf.values, row)
    for (let i = 0; i < N; i++) buf.envActions[i] = buf.actions[row + i]! + actionStart
    const out = env.step(buf.envActions)
    copyObs(out.observations as ArrayLike<number>, buf.nextObs, N * D)
    for (let i = 0; i < N; i++) {
      const r = out.rewards[i]!
      buf.rewards[row + i] = r
      const ended = out.terminations[i] === 1 || out.truncations[i] === 1
      buf.nextDone[i] = ended ? 1 : 0
      buf.truncations[row + i] = out.truncations[i] === 1 && out.terminations[i] !== 1 ? 1 : 0
      buf.episodeReturn[i] += r
      buf.episodeLength[i]++
      if (!ended) continue
      if (s.options.bootstrapTruncated && buf.truncations[row + i] === 1) {
        const finalObs = out.infos.finalObservation?.[i] as ArrayLike<number> | undefined
        if (finalObs === undefined) throw new InvalidOptionError({ option: "bootstrapTruncated", value: true, reason: "the vector env gives no infos.finalObservation (use autoresetMode SameStep)" })
        ActorCritic.values(agent, finalObs, 1, buf.finalValues, row + i)
      }
      // RecordEpisodeStatistics: report the finished episode
      const episodeReturn = buf.episodeReturn[i]!
      tr.episodes++
      s.recentReturns.push(episodeReturn)
      if (s.recentReturns.length > tr.window) s.recentReturns.shift()
      hooks.onEpisode?.({
        kind: "episode",
        globalStep: s.globalStep,
        episodeReturn,
        episodeLength: buf.episodeLength[i]!,
        wallSeconds: wall()
      })
      buf.episodeReturn[i] = 0
      buf.episodeLength[i] = 0
      const goal = s.options.stopWhen
      if (goal !== undefined && s.recentReturns.length >= tr.window && mean(s.recentReturns) >= goal.meanReturn) tr.solvedAt = s.globalStep
    }
    if (tr.solvedAt !== undefined || hooks.signal?.aborted === true) return false
  }
  // next_value = agent.get_value(next_obs)
  ActorCritic.values(agent, buf.nextObs, N, buf.nextValue)
  return true
}

// ---------------------------------------------------------------------------------------------------------------
// 2. GAE (Schulman et al. 2016): advantages and λ-returns, bootstrapped from next_value / next_done
// ---------------------------------------------------------------------------------------------------------------

const advantages = (s: TrainState, buf: Buffer): void =>
  Gae.computeInto(
    {
      numSteps: s.options.numSteps,
      numEnvs: s.options.numEnvs,
      gamma: s.options.gamma,
      lambda: s.options.gaeLambda,
      rewards: buf.rewards,
      values: buf.values,
      dones: buf.dones,
      nextValue: buf.nextValue,
      nextDone: buf.nextDone,
      ...(s.options.bootstrapTruncated ? { truncations: buf.truncations, finalValues: buf.finalValues } : {})
    },
    buf.advantages,
    buf.returns
  )

// ---------------------------------------------------------------------------------------------------------------
// 3. Minibatch loop: updateEpochs epochs over shuffled minibatches (CleanRL: `for epoch in range(update_epochs)`)
// ---------------------------------------------------------------------------------------------------------------

/** Scratch for the update, allocated once per run. */
interface UpdateScratch {
  readonly inds: Int32Array
  readonly mbAdv: Float64Array
  readonly dLogits: Float64Array
  readonly dValues: Float64Array
  readonly grad: Float64Array
  /** Loss implementation for this run ({@link lossKernelFromEnv}, read once per `train` call). */
  readonly lossKernel: LossKernel
}

interface LossStats {
  policyLoss: number
  valueLoss: number
  entropy: number
  approxKl: number
  clipFraction: number
}

const update = (s: TrainState, buf: Buffer, sc: UpdateScratch, lr: number): LossStats => {
  const o = s.options
  const batchSize = o.numSteps * o.numEnvs
  const mbSize = batchSize / o.numMinibatches
  const stats: LossStats = { policyLoss: 0, valueLoss: 0, entropy: 0, approxKl: 0, clipFraction: 0 }
  let clipSum = 0
  let clipCount = 0
  for (let epoch = 0; epoch < o.updateEpochs; epoch++) {
    s.shuffleRng.shuffle(sc.inds) // np.random.shuffle(b_inds)
    for (let start = 0; start < batchSize; start += mbSize) {
      const clipFrac = minibatchStep(s, buf, sc, start, mbSize, lr, stats)
      clipSum += clipFrac
      clipCount++
    }
    if (o.targetKl !== undefined && stats.approxKl > o.targetKl) break
  }
  stats.clipFraction = clipSum / clipCount
  return stats
}

// ---------------------------------------------------------------------------------------------------------------
// 4. Losses (clipped surrogate, clipped value loss, entropy bonus) and their gradients for one minibatch
// ---------------------------------------------------------------------------------------------------------------

/** One minibatch's data: rows `indices[start .. start + size)` of the rollout arrays (CleanRL's `mb_inds`). */
export interface Minibatch {
  /** Observations `[rows, obsDim]` (`b_obs`). */
  readonly obs: ArrayLike<number>
  /** Actions (0-based) taken at rollout time (`b_actions`). */
  readonly actions: ArrayLike<number>
  /** log π_old(a|s) at rollout time (`b_logprobs`). */
  readonly logprobs: ArrayLike<number>
  /** GAE advantages (`b_advantages`), normalized per minibatch when `normAdv`. */
  readonly advantages: ArrayLike<number>
  /** λ-returns (`b_returns`). */
  readonly returns: ArrayLike<number>
  /** V_old(s) at rollout time (`b_values`), the centre of the value clipping. */
  readonly values: ArrayLike<number>
  readonly indices: ArrayLike<number>
  readonly start: number
  readonly size: number
}

/** Scratch of {@link lossAndGradient}: `mbAdv` ≥ size, `dLogits` ≥ size × numActions, `dValues` ≥ size, `grad` = numParams. */
export interface LossScratch {
  readonly mbAdv: Float64Array
  readonly dLogits: Float64Array
  readonly dValues: Float64Array
  readonly grad: Float64Array
}

/** The minibatch loss and its parts (CleanRL's logged `losses/*`). */
export interface LossParts {
  readonly loss: number
  readonly policyLoss: number
  readonly valueLoss: number
  readonly entropy: number
  readonly approxKl: number
  readonly clipFraction: number
}

/** Per-scratch gather buffers: the minibatch's `[B]` rows made contiguous for the kernel, and its log-prob scratch. */
interface Gathered {
  readonly actions: Float64Array
  readonly oldLogProbs: Float64Array
  readonly oldValues: Float64Array
  readonly returns: Float64Array
  readonly logProbs: Float64Array
}

const gathered = new WeakMap<LossScratch, Gathered>()

/** The gather buffers of `sc` (allocated on first use and when the minibatch outgrows them; no allocation after). */
const gatheredOf = (sc: LossScratch, B: number, A: number): Gathered => {
  const g = gathered.get(sc)
  if (g !== undefined && g.actions.length >= B && g.logProbs.length >= B * A) return g
  const fresh: Gathered = {
    actions: new Float64Array(B),
    oldLogProbs: new Float64Array(B),
    oldValues: new Float64Array(B),
    returns: new Float64Array(B),
    logProbs: new Float64Array(B * A)
  }
  gathered.set(sc, fresh)
  return fresh
}

/**
 * Which implementation computes the minibatch loss and its gradients:
 * - `"reference"` (default): `PpoLoss.lossAndGradientInto`, doubles throughout (bit-for-bit reproducible, and what
 *   the float64 finite-difference tests check);
 * - `"wasm-simd"`: `WasmSimd.ppoLossInto` of `@autodidact/kernels`, the same arguments, float32 per element inside
 *   (loss parts accumulated in doubles; they agree with the reference to ~1e-6 relative, gradients to ~1e-5), 1.5–2.5×
 *   faster per call (CartPole's `[128, 2]` minibatch: ~10 vs ~15 µs; `[256, 6]`: ~21 vs ~54 µs). Still reproducible
 *   for a fixed seed, but not bit-identical to `"reference"` runs. Falls back to the reference when WebAssembly SIMD
 *   is unavailable.
 * Chosen per process by `AUTODIDACT_PPO_LOSS_KERNEL` (`reference` | `wasm-simd`; unset = `reference`). The loss call
 * is a small share of a PPO update (the MLP forward/backward dominates), so the wall-time effect is small: see
 * `packages/kernels/README.md` ("PPO CartPole").
 */
export type LossKernel = "reference" | "wasm-simd"

/** The {@link LossKernel} named by `AUTODIDACT_PPO_LOSS_KERNEL` (an unknown value is ignored: `"reference"`). */
export const lossKernelFromEnv = (env: { readonly [key: string]: string | undefined } = process.env): LossKernel =>
  env["AUTODIDACT_PPO_LOSS_KERNEL"] === "wasm-simd" && WasmSimd.load().ok ? "wasm-simd" : "reference"

/**
 * loss = pg_loss − entCoef · entropy + vfCoef · v_loss, with
 *   ratio = π(a|s) / π_old(a|s),  pg_loss = mean(max(−A·ratio, −A·clip(ratio, 1 ± ε)))
 *   v_loss = ½ · mean(max((V − R)², (V_old + clip(V − V_old, ±ε) − R)²))
 * The loss and its gradients w.r.t. the logits and the values are the kernel `PpoLoss.lossAndGradientInto` of
 * `@autodidact/kernels` (closed form, doubles; value clipping ε_v = ε as CleanRL), or `WasmSimd.ppoLossInto` when
 * `kernel` is `"wasm-simd"` (see {@link LossKernel}; `train` passes {@link lossKernelFromEnv}), on the minibatch rows gathered
 * into contiguous scratch; they are then backpropagated through the MLPs: `scratch.grad` receives dloss/dθ (zeroed
 * first; not clipped). What {@link train} runs for every minibatch; exported for tests.
 * @internal
 */
export const lossAndGradient = (
  agent: ActorCritic.ActorCritic,
  o: Pick<Options, "clipCoef" | "normAdv" | "clipVloss" | "entCoef" | "vfCoef">,
  mb: Minibatch,
  sc: LossScratch,
  kernel: LossKernel = "reference"
): LossParts => {
  const A = agent.numActions
  const B = mb.size
  const start = mb.start
  ActorCritic.forward(agent, mb.obs, B, mb.indices, start) // newlogprob, entropy, newvalue
  const g = gatheredOf(sc, B, A)
  for (let b = 0; b < B; b++) {
    const k = mb.indices[start + b]!
    sc.mbAdv[b] = mb.advantages[k]!
    g.actions[b] = mb.actions[k]!
    g.oldLogProbs[b] = mb.logprobs[k]!
    g.oldValues[b] = mb.values[k]!
    g.returns[b] = mb.returns[k]!
  }
  if (o.normAdv) Gae.normalizeInPlace(sc.mbAdv, 1e-8, 0, B)
  const lossInto = kernel === "wasm-simd" ? WasmSimd.ppoLossInto : PpoLoss.lossAndGradientInto
  const parts = lossInto(
    {
      batch: B,
      numActions: A,
      logits: ActorCritic.logitsOf(agent),
      actions: g.actions,
      oldLogProbs: g.oldLogProbs,
      advantages: sc.mbAdv,
      values: ActorCritic.valuesOf(agent),
      oldValues: g.oldValues,
      returns: g.returns,
      clipCoef: o.clipCoef,
      clipVloss: o.clipVloss,
      entCoef: o.entCoef,
      vfCoef: o.vfCoef
    },
    { logProbs: g.logProbs, dLogits: sc.dLogits, dValues: sc.dValues }
  )
  if (!Number.isFinite(parts.loss)) throw new NonFiniteValueError({ where: "Ppo.loss", value: parts.loss })
  // optimizer.zero_grad(); loss.backward()
  sc.grad.fill(0)
  ActorCritic.backward(agent, B, sc.dLogits, sc.dValues, sc.grad)
  return parts
}

/**
 * One optimizer step on a minibatch: {@link lossAndGradient}, global-norm clipping, Adam. Returns this minibatch's
 * clip fraction.
 */
const minibatchStep = (s: TrainState, buf: Buffer, sc: UpdateScratch, start: number, B: number, lr: number, stats: LossStats): number => {
  const o = s.options
  const parts = lossAndGradient(
    s.agent,
    o,
    { obs: buf.obs, actions: buf.actions, logprobs: buf.logprobs, advantages: buf.advantages, returns: buf.returns, values: buf.values, indices: sc.inds, start, size: B },
    sc,
    sc.lossKernel
  )
  // clip_grad_norm_(...); optimizer.step()
  const norm = Adam.clipGradNorm(sc.grad, o.maxGradNorm)
  if (!Number.isFinite(norm)) throw new NonFiniteValueError({ where: "Ppo.gradNorm", value: norm })
  Adam.step(s.adam, s.agent.params, sc.grad, lr)
  stats.policyLoss = parts.policyLoss
  stats.valueLoss = parts.valueLoss
  stats.entropy = parts.entropy
  stats.approxKl = parts.approxKl
  return parts.clipFraction
}

// ---------------------------------------------------------------------------------------------------------------
// The training loop
// ---------------------------------------------------------------------------------------------------------------

const mean = (xs: ReadonlyArray<number>): number => xs.reduce((a, b) => a + b, 0) / xs.length

/** 1 − Var(R − V) / Var(R) (population variances, as `np.var`); NaN when Var(R) = 0. */
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
): Effect.Effect<TrainResult, InvalidOptionError | NonFiniteValueError | Gae.GaeShapeError | Checkpoint.CheckpointError> =>
  Effect.gen(function* () {
    const { resume, ...rest } = options
    const merged: Options = resume === undefined
      ? { ...defaults, numEnvs: env.numEnvs, ...rest }
      : { ...resume.options, ...pick(rest, ["totalTimesteps", "stopWhen", "checkpoint"]) }
    const o = yield* validate(merged)
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
        yield* Checkpoint.save(o.checkpoint.path, s)
      }
      yield* Effect.yieldNow // let the runtime interrupt us and the CLI render progress
      if (hooks.signal?.aborted === true) {
        stopReason = "aborted"
        break
      }
    }
    s.wallSeconds = wall()
    if (o.checkpoint !== undefined) yield* Checkpoint.save(o.checkpoint.path, s)
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

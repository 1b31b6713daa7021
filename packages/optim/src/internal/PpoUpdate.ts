/**
 * PPO steps 3 and 4 (CleanRL `ppo.py`): `updateEpochs` epochs over shuffled minibatches, and for each minibatch the
 * clipped surrogate, clipped value loss and entropy bonus with their gradients (the `PpoLoss` kernel of
 * `@autodidact/kernels`), backpropagated through the MLPs, global-norm clipped and applied by Adam. The `Minibatch`,
 * `LossScratch`, `LossParts`, `LossKernel`, `lossKernelFromEnv` and `lossAndGradient` of the public {@link Ppo}
 * namespace (re-exported there).
 * @see Schulman et al., "Proximal Policy Optimization Algorithms", arXiv:1707.06347
 * @internal
 * @since 0.2.0
 */
import { NonFiniteValueError } from "@autodidact/core"
import { Gae, PpoLoss, WasmSimd } from "@autodidact/kernels"
import * as ActorCritic from "../ppo/ActorCritic.js"
import * as Adam from "../Adam.js"
import type { Options } from "./PpoOptions.js"
import type { Buffer } from "./PpoRollout.js"
import type { TrainState } from "./PpoState.js"

// ---------------------------------------------------------------------------------------------------------------
// 3. Minibatch loop: updateEpochs epochs over shuffled minibatches (CleanRL: `for epoch in range(update_epochs)`)
// ---------------------------------------------------------------------------------------------------------------

/** Scratch for the update, allocated once per run. */
export interface UpdateScratch {
  readonly inds: Int32Array
  readonly mbAdv: Float64Array
  readonly dLogits: Float64Array
  readonly dValues: Float64Array
  readonly grad: Float64Array
  /** Loss implementation for this run ({@link lossKernelFromEnv}, read once per `train` call). */
  readonly lossKernel: LossKernel
}

export interface LossStats {
  policyLoss: number
  valueLoss: number
  entropy: number
  approxKl: number
  clipFraction: number
}

/**
 * One PPO update (CleanRL: `for epoch in range(update_epochs)`): `updateEpochs` passes over the batch in shuffled
 * minibatches of `numSteps · numEnvs / numMinibatches`, each an optimizer step at learning rate `lr`; stops early
 * once the approximate KL exceeds `targetKl`. Returns the last minibatch's losses and the mean clip fraction.
 */
export const update = (s: TrainState, buf: Buffer, sc: UpdateScratch, lr: number): LossStats => {
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
export const lossKernelFromEnv = (env: { readonly [key: string]: string | undefined } = typeof process === "undefined" ? {} : process.env): LossKernel =>
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
export const minibatchStep = (s: TrainState, buf: Buffer, sc: UpdateScratch, start: number, B: number, lr: number, stats: LossStats): number => {
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

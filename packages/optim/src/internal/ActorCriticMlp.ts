/**
 * The actor-critic's math in plain typed arrays: the forward pass of both MLPs with a stable softmax, log-probs and
 * entropy, action sampling (CleanRL's `get_action_and_value`), greedy actions, critic values, and the hand-written
 * backward pass (checked against finite differences in the tests). Re-exported by the public {@link ActorCritic}
 * namespace.
 * @internal
 * @since 0.2.0
 */
import type { Rng } from "@autodidact/core"
import { MlpSimd } from "@autodidact/kernels"
import { dense, denseBackward } from "./Dense.js"
import { type ActorCritic, ensure } from "./ActorCriticNet.js"

/**
 * Forward pass of both networks on `batch` observations (`obs` is `[batch, obsDim]`, any numeric array; `rows`
 * optionally selects rows of `obs` by index, for minibatches) on the network's `engine`. Results stay in the
 * network's scratch buffers: {@link logitsOf}/{@link valuesOf}/{@link probsOf}. No allocation once the buffers have
 * grown to `batch`.
 */
export const forward = (net: ActorCritic, obs: ArrayLike<number>, batch: number, rows?: ArrayLike<number>, rowOffset = 0): void => {
  const c = ensure(net, batch)
  if (net.simd !== undefined) {
    MlpSimd.forward(net.simd, net.params, obs, batch, rows, rowOffset, c.logits, c.values)
    softmaxRows(net, batch)
    return
  }
  const { obsDim: D, hidden: H, numActions: A, params: p } = net
  const L = net.layout
  for (let b = 0; b < batch; b++) {
    const src = (rows === undefined ? b : rows[rowOffset + b]!) * D
    for (let i = 0; i < D; i++) c.x[b * D + i] = obs[src + i]!
  }
  dense(p, L[0]!.offset, c.x, batch, D, H, c.a1, true)
  dense(p, L[2]!.offset, c.a1, batch, H, H, c.a2, true)
  dense(p, L[4]!.offset, c.a2, batch, H, A, c.logits, false)
  dense(p, L[6]!.offset, c.x, batch, D, H, c.c1, true)
  dense(p, L[8]!.offset, c.c1, batch, H, H, c.c2, true)
  dense(p, L[10]!.offset, c.c2, batch, H, 1, c.values, false)
  softmaxRows(net, batch)
}

/** Softmax probabilities (stable) of the logits in scratch. */
const softmaxRows = (net: ActorCritic, batch: number): void => {
  const c = net.cache
  const A = net.numActions
  for (let b = 0; b < batch; b++) {
    let max = -Infinity
    for (let a = 0; a < A; a++) max = Math.max(max, c.logits[b * A + a]!)
    let sum = 0
    for (let a = 0; a < A; a++) {
      const e = Math.exp(c.logits[b * A + a]! - max)
      c.probs[b * A + a] = e
      sum += e
    }
    for (let a = 0; a < A; a++) c.probs[b * A + a] = c.probs[b * A + a]! / sum
  }
}

/** Logits `[batch, numActions]` of the last {@link forward} (a view into scratch; copy to keep). */
export const logitsOf = (net: ActorCritic): Float64Array => net.cache.logits
/** Action probabilities `[batch, numActions]` of the last {@link forward} (view into scratch). */
export const probsOf = (net: ActorCritic): Float64Array => net.cache.probs
/** Values `[batch]` of the last {@link forward} (view into scratch). */
export const valuesOf = (net: ActorCritic): Float64Array => net.cache.values

/** log π(a | s) of row b from the last forward: `logits[a] − logsumexp(logits)`. */
export const logProbAt = (net: ActorCritic, b: number, action: number): number => logProbStable(net, b, action)

const logProbStable = (net: ActorCritic, b: number, action: number): number => {
  const A = net.numActions
  const z = net.cache.logits
  let max = -Infinity
  for (let a = 0; a < A; a++) max = Math.max(max, z[b * A + a]!)
  let sum = 0
  for (let a = 0; a < A; a++) sum += Math.exp(z[b * A + a]! - max)
  return z[b * A + action]! - max - Math.log(sum)
}

/** Entropy −Σ p log p of row b from the last forward (nats). */
export const entropyAt = (net: ActorCritic, b: number): number => {
  const A = net.numActions
  let h = 0
  for (let a = 0; a < A; a++) {
    const pa = net.cache.probs[b * A + a]!
    if (pa > 0) h -= pa * logProbStable(net, b, a)
  }
  return h
}

/**
 * Sample actions for a batch of observations (CleanRL's `get_action_and_value` at rollout time): one uniform draw
 * per row from `rng`, inverse-CDF over the softmax probabilities. Writes actions, log-probs and values.
 * Allocation-free; reproducible for a fixed `rng` state.
 */
export const act = (
  net: ActorCritic,
  obs: ArrayLike<number>,
  batch: number,
  rng: Rng,
  outActions: Int32Array,
  outLogProbs: Float32Array | Float64Array,
  outValues: Float32Array | Float64Array,
  outOffset = 0
): void => {
  forward(net, obs, batch)
  const A = net.numActions
  const probs = net.cache.probs
  for (let b = 0; b < batch; b++) {
    const u = rng.random()
    let acc = 0
    let action = A - 1
    for (let a = 0; a < A; a++) {
      acc += probs[b * A + a]!
      if (u < acc) {
        action = a
        break
      }
    }
    outActions[outOffset + b] = action
    outLogProbs[outOffset + b] = logProbStable(net, b, action)
    outValues[outOffset + b] = net.cache.values[b]!
  }
}

/** Greedy actions (argmax of the logits, first on ties) for a batch of observations. */
export const actGreedy = (net: ActorCritic, obs: ArrayLike<number>, batch: number, outActions: Int32Array): void => {
  forward(net, obs, batch)
  const A = net.numActions
  const z = net.cache.logits
  for (let b = 0; b < batch; b++) {
    let best = 0
    for (let a = 1; a < A; a++) if (z[b * A + a]! > z[b * A + best]!) best = a
    outActions[b] = best
  }
}

/** Critic values of a batch of observations, written into `out` (CleanRL's `get_value`). */
export const values = (net: ActorCritic, obs: ArrayLike<number>, batch: number, out: Float32Array | Float64Array, outOffset = 0): void => {
  forward(net, obs, batch)
  for (let b = 0; b < batch; b++) out[outOffset + b] = net.cache.values[b]!
}

/**
 * Backward pass for the batch of the last {@link forward}: given dL/dlogits (`[batch, numActions]`) and dL/dvalue
 * (`[batch]`), ADD dL/dθ into `grad` (flat, same layout as `params`). The caller zeroes `grad` first.
 */
export const backward = (net: ActorCritic, batch: number, dLogits: Float64Array, dValues: Float64Array, grad: Float64Array): void => {
  if (net.simd !== undefined) return MlpSimd.backward(net.simd, batch, dLogits, dValues, grad)
  const c = net.cache
  const { obsDim: D, hidden: H, numActions: A, params: p } = net
  const L = net.layout
  // actor: logits = a2 W3 + b3; a2 = tanh(a1 W2 + b2); a1 = tanh(x W1 + b1)
  denseBackward(p, grad, L[4]!.offset, c.a2, dLogits, batch, H, A, c.d2)
  for (let k = 0; k < batch * H; k++) c.d2[k] = c.d2[k]! * (1 - c.a2[k]! * c.a2[k]!)
  denseBackward(p, grad, L[2]!.offset, c.a1, c.d2, batch, H, H, c.d1)
  for (let k = 0; k < batch * H; k++) c.d1[k] = c.d1[k]! * (1 - c.a1[k]! * c.a1[k]!)
  denseBackward(p, grad, L[0]!.offset, c.x, c.d1, batch, D, H, undefined)
  // critic
  denseBackward(p, grad, L[10]!.offset, c.c2, dValues, batch, H, 1, c.d2)
  for (let k = 0; k < batch * H; k++) c.d2[k] = c.d2[k]! * (1 - c.c2[k]! * c.c2[k]!)
  denseBackward(p, grad, L[8]!.offset, c.c1, c.d2, batch, H, H, c.d1)
  for (let k = 0; k < batch * H; k++) c.d1[k] = c.d1[k]! * (1 - c.c1[k]! * c.c1[k]!)
  denseBackward(p, grad, L[6]!.offset, c.x, c.d1, batch, D, H, undefined)
}

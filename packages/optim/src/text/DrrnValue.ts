/**
 * A value head for a trained, critic-free DRRN text policy ({@link DrrnPolicy}): a linear regression of the Monte
 * Carlo return on the policy's own state representation, fitted after training on the policy's rollouts. It gives
 * search (best-first priority, MCTS leaf value) a learned value without changing the policy.
 *
 * **Details**
 * - Features of a state: the DRRN's sparse state vector (`DrrnPolicy.encode(...).state`: hashed words, grid cells,
 *   the relational keys, unit L2 norm; `buckets` entries) and the state tower's activations after
 *   `DrrnPolicy.forward` — hidden layer `h(s)` (`hidden` entries, tanh) and embedding `z(s)` (`embed` entries) — plus a
 *   bias. Value `V(s) = w · [x(s), h(s), z(s)] + b`. The DRRN's parameters are frozen (read only).
 * - {@link fit}: mean squared error to `target` (e.g. the discounted return-to-go of the step in a rollout of the
 *   policy: a Monte Carlo estimate of `V^π(s)`) plus `l2 · |w|²`, minimized by Adam (`@autodidact/kernels`) over
 *   shuffled minibatches for `epochs` passes; `b` starts at the mean target. A held-out fraction (`validFraction`) is
 *   scored at the end (mean squared error and R² = 1 − MSE / variance of its targets).
 * - Plain and synchronous: each sample's features are computed once, the loop allocates nothing per sample.
 *
 * **Gotchas**: {@link predict} runs `DrrnPolicy.forward` on the head's policy (its scratch is overwritten: not
 * re-entrant, as the DRRN itself).
 * @see Sutton & Barto, "Reinforcement Learning: An Introduction", 2nd ed., Sec. 9.4 (linear Monte Carlo value
 *   prediction) and Sec. 5.1 (Monte Carlo targets)
 * @see He et al. 2016, "Deep Reinforcement Learning with a Natural Language Action Space", arXiv:1511.04636 (the
 *   state tower)
 * @since 0.2.0
 */
import { InvalidOptionError, Rng } from "@autodidact/core"
import { Adam } from "@autodidact/kernels"
import * as DrrnPolicy from "./DrrnPolicy.js"

/** A fitted value head: `weights` = `[sparse (buckets), hidden, embed]`, then `bias`. */
export interface ValueHead {
  readonly policy: DrrnPolicy.Drrn
  /** `buckets + hidden + embed` weights. */
  readonly weights: Float32Array
  bias: number
}

/** One regression sample: the decision's input and its target value (finite). */
export interface Sample {
  readonly input: DrrnPolicy.Input
  readonly target: number
}

/** Options of {@link fit}. */
export interface FitOptions {
  /** Passes over the training samples (default 20). */
  readonly epochs?: number | undefined
  /** Adam step size (default 0.01). */
  readonly learningRate?: number | undefined
  /** Samples per Adam step (default 32). */
  readonly batchSize?: number | undefined
  /** L2 penalty on the weights (default 1e-4). */
  readonly l2?: number | undefined
  /** Held-out fraction in [0, 1) (default 0.1). */
  readonly validFraction?: number | undefined
  /** Shuffling and the split (default seed 0). */
  readonly rng?: Rng | undefined
}

/** What {@link fit} returns. */
export interface FitResult {
  readonly head: ValueHead
  readonly trainSamples: number
  readonly validSamples: number
  /** Mean squared error on the training samples after the last epoch. */
  readonly trainMse: number
  /** Mean squared error on the held-out samples (NaN when none). */
  readonly validMse: number
  /** 1 − validMse / variance of the held-out targets (NaN when none or constant). */
  readonly validR2: number
}

/** The dense width (hidden + embed) and total width of a head over `policy`. */
const widths = (policy: DrrnPolicy.Drrn) => {
  const { buckets, hidden, embed } = policy.config
  return { buckets, dense: hidden + embed, total: buckets + hidden + embed }
}

/** A zero head over `policy` (value = 0 everywhere). */
export const make = (policy: DrrnPolicy.Drrn): ValueHead => ({ policy, weights: new Float32Array(widths(policy).total), bias: 0 })

interface Features {
  readonly sparse: DrrnPolicy.SparseVector
  /** h(s) then z(s). */
  readonly dense: Float64Array
}

const features = (policy: DrrnPolicy.Drrn, input: DrrnPolicy.Input): Features => {
  const enc = DrrnPolicy.encode(policy, input)
  DrrnPolicy.forward(policy, enc)
  const { hidden: H, embed: E } = policy.config
  const dense = new Float64Array(H + E)
  dense.set(policy.scratch.hS.subarray(0, H), 0)
  dense.set(policy.scratch.zS.subarray(0, E), H)
  return { sparse: enc.state, dense }
}

const valueOf = (head: ValueHead, f: Features, buckets: number): number => {
  const w = head.weights
  let v = head.bias
  const { indices, values } = f.sparse
  for (let n = 0; n < indices.length; n++) v += w[indices[n]!]! * values[n]!
  const d = f.dense
  for (let j = 0; j < d.length; j++) v += w[buckets + j]! * d[j]!
  return v
}

/**
 * The head's value of a decision input (`input.admissible` must be non-empty: the DRRN's forward needs it).
 * @throws RangeError (DrrnPolicy.forward) when nothing is admissible.
 */
export const predict = (head: ValueHead, input: DrrnPolicy.Input): number => valueOf(head, features(head.policy, input), head.policy.config.buckets)

const positiveInt = (option: string, value: number): number => {
  if (!(Number.isInteger(value) && value >= 1)) throw new InvalidOptionError({ option, value, reason: "expected a positive integer" })
  return value
}

/**
 * Fit a head on `samples` (see the module docs).
 * @throws InvalidOptionError for no samples, a non-finite target (naming its index), or a bad option.
 */
export const fit = (policy: DrrnPolicy.Drrn, samples: ReadonlyArray<Sample>, options: FitOptions = {}): FitResult => {
  if (samples.length === 0) throw new InvalidOptionError({ option: "samples", value: 0, reason: "need at least one sample" })
  samples.forEach((s, i) => {
    if (!Number.isFinite(s.target)) throw new InvalidOptionError({ option: `samples[${i}].target`, value: s.target, reason: "expected a finite number" })
  })
  const epochs = positiveInt("epochs", options.epochs ?? 20)
  const batchSize = positiveInt("batchSize", options.batchSize ?? 32)
  const lr = options.learningRate ?? 0.01
  if (!(lr > 0 && Number.isFinite(lr))) throw new InvalidOptionError({ option: "learningRate", value: lr, reason: "expected a positive finite number" })
  const l2 = options.l2 ?? 1e-4
  if (!(l2 >= 0 && Number.isFinite(l2))) throw new InvalidOptionError({ option: "l2", value: l2, reason: "expected a finite number >= 0" })
  const validFraction = options.validFraction ?? 0.1
  if (!(validFraction >= 0 && validFraction < 1)) throw new InvalidOptionError({ option: "validFraction", value: validFraction, reason: "expected a number in [0, 1)" })
  const rng = options.rng ?? Rng.make(0)

  const { buckets, total } = widths(policy)
  const feats = samples.map((s) => features(policy, s.input))
  const order = Int32Array.from({ length: samples.length }, (_, i) => i)
  rng.shuffle(order)
  const nValid = samples.length > 1 ? Math.floor(validFraction * samples.length) : 0
  const valid = order.subarray(0, nValid)
  const train = order.slice(nValid)

  const head = make(policy)
  let mean = 0
  for (const i of train) mean += samples[i]!.target
  head.bias = mean / train.length
  // Adam over [weights..., bias]
  const params = new Float32Array(total + 1)
  params[total] = head.bias
  const grad = new Float64Array(total + 1)
  const adam = Adam.make(total + 1)
  const view: ValueHead = { policy, weights: params.subarray(0, total), bias: 0 }
  for (let epoch = 0; epoch < epochs; epoch++) {
    rng.shuffle(train)
    for (let start = 0; start < train.length; start += batchSize) {
      const end = Math.min(train.length, start + batchSize)
      const scale = 2 / (end - start)
      grad.fill(0)
      view.bias = params[total]!
      for (let k = start; k < end; k++) {
        const i = train[k]!
        const f = feats[i]!
        const err = (valueOf(view, f, buckets) - samples[i]!.target) * scale
        const { indices, values } = f.sparse
        for (let n = 0; n < indices.length; n++) grad[indices[n]!] += err * values[n]!
        const d = f.dense
        for (let j = 0; j < d.length; j++) grad[buckets + j] += err * d[j]!
        grad[total] += err
      }
      if (l2 > 0) for (let j = 0; j < total; j++) grad[j] += 2 * l2 * params[j]!
      Adam.step(adam, params, grad, lr)
    }
  }
  head.weights.set(params.subarray(0, total))
  head.bias = params[total]!
  const mse = (ids: ArrayLike<number>): number => {
    if (ids.length === 0) return Number.NaN
    let s = 0
    for (let k = 0; k < ids.length; k++) {
      const i = ids[k]!
      const e = valueOf(head, feats[i]!, buckets) - samples[i]!.target
      s += e * e
    }
    return s / ids.length
  }
  const validMse = mse(valid)
  let vm = 0
  for (const i of valid) vm += samples[i]!.target
  vm /= Math.max(1, valid.length)
  let vv = 0
  for (const i of valid) vv += (samples[i]!.target - vm) ** 2
  vv /= Math.max(1, valid.length)
  return {
    head,
    trainSamples: train.length,
    validSamples: valid.length,
    trainMse: mse(train),
    validMse,
    validR2: valid.length > 0 && vv > 0 ? 1 - validMse / vv : Number.NaN
  }
}

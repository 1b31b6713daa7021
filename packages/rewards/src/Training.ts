/**
 * Reward-model training in TensorFlow.js with autodiff and Adam: Bradley-Terry pairwise (TRL's `RewardTrainer`,
 * InstructGPT's reward model) and pointwise regression/classification.
 *
 * **Details**
 * - Pairwise: `loss = mean(−log σ(r(chosen) − r(rejected)))`, written as `softplus(−(r_c − r_r))` for stability
 *   (Bradley & Terry 1952; Ouyang et al. 2022, eq. 1, with K = 2).
 * - Pointwise: `"bce"` (binary labels in [0, 1], the score is a logit: `softplus(s) − y·s`) or `"mse"`.
 * - Minibatches are shuffled each epoch with the given `Rng` (`rng.shuffle` of `0..n-1`, the one shuffle of
 *   `@autodidact/core`); `epochSeconds` is the wall time of each epoch.
 * - Defaults follow TRL's `RewardConfig` where they apply (one pass is TRL's default; small MLPs need more):
 *   `epochs` 20, `batchSize` 64, `learningRate` 1e-3, no weight decay.
 * @see Ouyang et al., "Training language models to follow instructions with human feedback", arXiv:2203.02155
 * @see https://huggingface.co/docs/trl/reward_trainer
 * @since 0.1.0
 */
import type { Rng } from "@autodidact/core"
import type * as tfc from "@tensorflow/tfjs-core"
import * as Mlp from "./Mlp.js"
import { InputMismatchError } from "./RewardError.js"

/** Options of {@link trainPairwise} / {@link trainPointwise} (defaults from TRL's `RewardConfig` where they apply). */
export interface TrainOptions {
  readonly epochs?: number | undefined
  readonly batchSize?: number | undefined
  readonly learningRate?: number | undefined
  readonly rng: Rng
}

/** What training returns. */
export interface TrainResult {
  /** Mean loss of each epoch. */
  readonly losses: Array<number>
  readonly epochSeconds: Array<number>
}

/** Preference pairs: row-major `[n, dim]` feature matrices of the chosen and the rejected item of each pair. */
export interface Pairs {
  readonly n: number
  readonly dim: number
  readonly chosen: Float32Array
  readonly rejected: Float32Array
}

/** Labelled items for pointwise training. */
export interface Labelled {
  readonly n: number
  readonly dim: number
  readonly x: Float32Array
  readonly y: Float32Array
}

const gather = (src: Float32Array, dim: number, idx: Int32Array, from: number, to: number): Float32Array => {
  const out = new Float32Array((to - from) * dim)
  for (let k = from; k < to; k++) out.set(src.subarray(idx[k]! * dim, idx[k]! * dim + dim), (k - from) * dim)
  return out
}

/** Throws InputMismatchError unless `matrix` is `[n, dim]` with `dim` the model's input size. */
const checkRows = (m: Mlp.Mlp, input: string, matrix: Float32Array, n: number, dim: number): void => {
  if (dim !== m.spec.inputSize) throw new InputMismatchError({ model: "mlp", input, expected: `dim ${m.spec.inputSize} (the model's input size)`, actual: `dim ${dim}` })
  if (!Number.isSafeInteger(n) || n < 1 || matrix.length !== n * dim) {
    throw new InputMismatchError({ model: "mlp", input, expected: `n ≥ 1 rows of ${dim} (length n · dim)`, actual: `n = ${n}, length ${matrix.length}` })
  }
}

const loop = (
  m: Mlp.Mlp,
  n: number,
  options: TrainOptions,
  lossOf: (idx: Int32Array, from: number, to: number) => tfc.Scalar
): TrainResult => {
  const { tf } = m
  const epochs = options.epochs ?? 20
  const batchSize = options.batchSize ?? 64
  const optimizer = tf.train.adam(options.learningRate ?? 1e-3)
  const vars = m.layers.flatMap((l) => [l.w, l.b])
  const losses: Array<number> = []
  const epochSeconds: Array<number> = []
  try {
    for (let e = 0; e < epochs; e++) {
      const t0 = performance.now()
      // a fresh uniform permutation of the items each epoch (core's `Rng.shuffle`, in place)
      const idx = options.rng.shuffle(Int32Array.from({ length: n }, (_, i) => i))
      let sum = 0
      for (let from = 0; from < n; from += batchSize) {
        const to = Math.min(n, from + batchSize)
        const loss = optimizer.minimize(() => lossOf(idx, from, to), true, vars)!
        sum += loss.dataSync()[0]! * (to - from)
        loss.dispose()
      }
      losses.push(sum / n)
      epochSeconds.push((performance.now() - t0) / 1000)
    }
  } finally {
    optimizer.dispose()
  }
  return { losses, epochSeconds }
}

/**
 * Bradley-Terry pairwise training of `m` in place: minimizes `mean(−log σ(r(chosen) − r(rejected)))` (Ouyang et al.
 * 2022, arXiv:2203.02155, eq. 1 with K = 2; TRL's `RewardTrainer`) with Adam over shuffled minibatches.
 *
 * Shapes: `data.chosen`, `data.rejected` row-major `[n, dim]` float32 with `dim = m.spec.inputSize` (else
 * `InputMismatchError` is thrown, as for `n < 1`). Returns the
 * mean loss of each epoch (nats) and each epoch's wall time (seconds). Deterministic for a given `rng` state and
 * TF.js backend.
 */
export const trainPairwise = (m: Mlp.Mlp, data: Pairs, options: TrainOptions): TrainResult => {
  const { tf } = m
  checkRows(m, "chosen", data.chosen, data.n, data.dim)
  checkRows(m, "rejected", data.rejected, data.n, data.dim)
  return loop(m, data.n, options, (idx, from, to) => {
    const c = tf.tensor2d(gather(data.chosen, data.dim, idx, from, to), [to - from, data.dim])
    const r = tf.tensor2d(gather(data.rejected, data.dim, idx, from, to), [to - from, data.dim])
    return tf.mean(tf.softplus(tf.neg(tf.sub(Mlp.forward(m, c), Mlp.forward(m, r))))) as tfc.Scalar
  })
}

/**
 * Pointwise training of `m` in place: `"bce"` (default; the score is a logit, labels `y` in `[0, 1]`, loss
 * `softplus(s) − y·s`) or `"mse"` (`(s − y)²`), with Adam over shuffled minibatches.
 *
 * Shapes: `data.x` row-major `[n, dim]` float32, `data.y` `[n]` (else `InputMismatchError` is thrown). Returns per-epoch mean losses and wall times (s).
 */
export const trainPointwise = (m: Mlp.Mlp, data: Labelled, options: TrainOptions & { readonly loss?: "bce" | "mse" | undefined }): TrainResult => {
  const { tf } = m
  checkRows(m, "x", data.x, data.n, data.dim)
  if (data.y.length !== data.n) throw new InputMismatchError({ model: "mlp", input: "y", expected: `${data.n} labels`, actual: `${data.y.length}` })
  const kind = options.loss ?? "bce"
  return loop(m, data.n, options, (idx, from, to) => {
    const x = tf.tensor2d(gather(data.x, data.dim, idx, from, to), [to - from, data.dim])
    const y = tf.tensor1d(gather(data.y, 1, idx, from, to))
    const s = Mlp.forward(m, x)
    return (kind === "bce" ? tf.mean(tf.sub(tf.softplus(s), tf.mul(y, s))) : tf.mean(tf.square(tf.sub(s, y)))) as tfc.Scalar
  })
}

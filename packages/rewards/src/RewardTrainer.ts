/**
 * The plain (Promise) face of reward-model training: one call selects a TensorFlow.js backend, builds an
 * {@link Mlp}, trains it Bradley-Terry pairwise or pointwise ({@link Training}), and returns the trained model with
 * its losses, a {@link RewardModel.Scorer} and an ONNX export.
 *
 * **Details**
 * - Backend: `@autodidact/kernels`' `Backend.select` (`backend` forces one; otherwise native `tensorflow` when
 *   installed, else `wasm`, else `cpu`); a backend that cannot load is `BackendUnavailableError`.
 * - Data: `{ chosen, rejected }` pairs (row-major `[n, dim]` float32) train pairwise (`−log σ(r_c − r_r)`), `{ x, y }`
 *   labelled rows train pointwise (`loss` `"bce"`, default, or `"mse"`); a matrix whose length is not `n · dim` is
 *   `InputMismatchError`, thrown by {@link Training} itself (the same error for every caller).
 * - Defaults: `hidden` `[64]`, `activation` `"relu"`, `seed` 0 (`Rng.make(seed)` draws the initial weights and the
 *   minibatch order), and `Training`'s epochs 20, batch 64, learning rate 1e-3.
 * Part of `@autodidact/rewards/train` (optional peers `@tensorflow/tfjs-core` + a backend, `onnx-proto` for `toOnnx`).
 * @since 0.2.0
 */
import { Rng } from "@autodidact/core"
import { Backend } from "@autodidact/kernels/tfjs"
import { Effect } from "effect"
import { loadTfCore } from "./internal/peers.js"
import * as Mlp from "./Mlp.js"
import * as OnnxExport from "./OnnxExport.js"
import * as RewardModel from "./RewardModel.js"
import * as Training from "./Training.js"

// `@tensorflow/tfjs-core` is an optional peer of `@autodidact/rewards/train`: missing, importing this module fails with MissingPeerError
await loadTfCore()

/** Options of {@link trainRewardModel}. */
export interface TrainRewardModelOptions {
  /** Preference pairs (pairwise training) or labelled rows (pointwise). */
  readonly data: Training.Pairs | Training.Labelled
  /** Pointwise loss (default `"bce"`; ignored for pairs). */
  readonly loss?: "bce" | "mse" | undefined
  readonly hidden?: ReadonlyArray<number> | undefined
  readonly activation?: Mlp.MlpSpec["activation"] | undefined
  readonly epochs?: number | undefined
  readonly batchSize?: number | undefined
  readonly learningRate?: number | undefined
  /** Seed of the weights' initialization and the shuffles (default 0). */
  readonly seed?: number | undefined
  /** Force a TF.js backend (default: the first available of `tensorflow`, `wasm`, `cpu`). */
  readonly backend?: Backend.BackendName | undefined
}

/** A trained model. */
export interface TrainedRewardModel {
  readonly mlp: Mlp.Mlp
  /** The TF.js backend it was trained on. */
  readonly backend: Backend.BackendName
  /** Mean loss of each epoch (nats). */
  readonly losses: ReadonlyArray<number>
  readonly epochSeconds: ReadonlyArray<number>
  /** Scores `[n]` of a row-major `[n, dim]` float32 matrix. */
  predict(rows: Float32Array, n: number): Float32Array
  /** The model as a {@link RewardModel.Scorer} over candidates' `features` (named `mlp`). */
  readonly scorer: RewardModel.Scorer
  /** ONNX bytes (`features [batch, dim]` → `reward [batch]`) for `OnnxRewardModel.load` or any ONNX runtime. */
  toOnnx(): Uint8Array
  /** Release the TF.js variables (the model is unusable afterwards). */
  dispose(): void
}

/**
 * Train a reward model on pairs or labelled rows (see the module notes); resolves when training is done.
 * @returns rejects with `BackendUnavailableError` (no TF.js backend) or `InputMismatchError` (data shapes).
 * @category plain
 */
export const trainRewardModel = async (options: TrainRewardModelOptions): Promise<TrainedRewardModel> => {
  const { name, tf } = await Effect.runPromise(Backend.select({ force: options.backend }))
  const rng = Rng.make(options.seed ?? 0)
  const { data } = options
  const spec: Mlp.MlpSpec = { inputSize: data.dim, hidden: options.hidden ?? [64], activation: options.activation ?? "relu" }
  const mlp = Mlp.make(tf, spec, rng)
  const train = { epochs: options.epochs, batchSize: options.batchSize, learningRate: options.learningRate, rng }
  let result: Training.TrainResult
  try {
    result = "chosen" in data ? Training.trainPairwise(mlp, data, train) : Training.trainPointwise(mlp, data, { ...train, loss: options.loss })
  } catch (e) {
    Mlp.dispose(mlp)
    throw e
  }
  const model = RewardModel.fromFeatures("mlp", data.dim, (rows, n) => Effect.sync(() => Mlp.predict(mlp, rows, n)))
  return {
    mlp,
    backend: name,
    losses: result.losses,
    epochSeconds: result.epochSeconds,
    predict: (rows, n) => Mlp.predict(mlp, rows, n),
    scorer: RewardModel.toScorer(model),
    toOnnx: () => OnnxExport.exportMlp(Mlp.weights(mlp), { activation: spec.activation }),
    dispose: () => Mlp.dispose(mlp)
  }
}

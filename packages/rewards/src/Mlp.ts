/**
 * A multilayer perceptron reward head over feature vectors in TensorFlow.js: `[n, dim] → [n]` scores, trained with
 * autodiff and Adam by {@link Training}, exported to ONNX by {@link OnnxExport}.
 *
 * **Details**
 * - Layers `dim → hidden[0] → … → 1`, activation `relu` or `tanh` between them, none after the last (a raw score:
 *   a Bradley-Terry reward, or a logit for pointwise classification).
 * - Weights are `W [in, out]` and `b [out]` (`x W + b`), Glorot-uniform initialized from the given {@link Rng}.
 * - The `tf` module is passed in (read it from `@autodidact/kernels`' `Backend` service), so the model runs on
 *   whichever backend was selected (wasm here).
 * @since 0.1.0
 */
import type { Rng } from "@autodidact/core"
import type * as tfc from "@tensorflow/tfjs-core"

/** The TF.js module (`@tensorflow/tfjs-core`, e.g. the `tf` of `@autodidact/kernels`' `Backend` service). */
export type Tf = typeof tfc

/** Architecture. */
export interface MlpSpec {
  readonly inputSize: number
  readonly hidden: ReadonlyArray<number>
  readonly activation: "relu" | "tanh"
}

/** One dense layer's weights as plain arrays (`w` row-major `[rows=in, cols=out]`). */
export interface DenseWeights {
  readonly w: Float32Array
  readonly rows: number
  readonly cols: number
  readonly b: Float32Array
}

/** A model. */
export interface Mlp {
  readonly tf: Tf
  readonly spec: MlpSpec
  readonly layers: ReadonlyArray<{ readonly w: tfc.Variable; readonly b: tfc.Variable }>
}

/**
 * A new model: layers `spec.inputSize → ...spec.hidden → 1`, weights Glorot-uniform in `±sqrt(6 / (in + out))`
 * (Glorot & Bengio 2010) drawn from `rng` in layer order, biases 0. Dispose it with {@link dispose}.
 * @category constructors
 */
export const make = (tf: Tf, spec: MlpSpec, rng: Rng): Mlp => {
  const sizes = [spec.inputSize, ...spec.hidden, 1]
  const layers: Array<{ w: tfc.Variable; b: tfc.Variable }> = []
  for (let l = 0; l + 1 < sizes.length; l++) {
    const [rows, cols] = [sizes[l]!, sizes[l + 1]!]
    const limit = Math.sqrt(6 / (rows + cols))
    const w = new Float32Array(rows * cols)
    for (let i = 0; i < w.length; i++) w[i] = rng.uniform(-limit, limit)
    layers.push({ w: tf.variable(tf.tensor2d(w, [rows, cols])), b: tf.variable(tf.zeros([cols])) })
  }
  return { tf, spec, layers }
}

/**
 * A model from dense weights (e.g. {@link weights} of a trained model, or a checkpoint): `weights[l].w`
 * `[rows, cols]` row-major, `b` `[cols]`; the last layer must have `cols = 1`. Copies into new TF.js variables.
 */
export const fromWeights = (tf: Tf, activation: MlpSpec["activation"], weights: ReadonlyArray<DenseWeights>): Mlp => ({
  tf,
  spec: { inputSize: weights[0]!.rows, hidden: weights.slice(0, -1).map((d) => d.cols), activation },
  layers: weights.map((d) => ({ w: tf.variable(tf.tensor2d(d.w, [d.rows, d.cols])), b: tf.variable(tf.tensor1d(d.b)) }))
})

/**
 * Scores of a `[n, dim]` batch, as a `[n]` tensor: `x W₁ + b₁ → act → … → x Wₗ + bₗ` (no activation after the
 * last layer). Differentiable (used inside `optimizer.minimize`); call inside `tf.tidy` or dispose the result.
 */
export const forward = (m: Mlp, x: tfc.Tensor2D): tfc.Tensor1D => {
  const { tf } = m
  let h: tfc.Tensor2D = x
  for (let l = 0; l < m.layers.length; l++) {
    const z = tf.add(tf.matMul(h, m.layers[l]!.w as tfc.Tensor2D), m.layers[l]!.b) as tfc.Tensor2D
    h = l + 1 < m.layers.length ? (m.spec.activation === "relu" ? tf.relu(z) : tf.tanh(z)) : z
  }
  return tf.reshape(h, [-1]) as tfc.Tensor1D
}

/** Scores `[n]` (float32) of a row-major `[n, dim]` float32 matrix (`rows.length` must be `n · dim`); allocates no tensor that outlives the call. */
export const predict = (m: Mlp, rows: Float32Array, n: number): Float32Array =>
  m.tf.tidy(() => forward(m, m.tf.tensor2d(rows, [n, m.spec.inputSize]))).dataSync() as Float32Array

/** The weights as plain float32 arrays, first layer first (`w` `[rows = in, cols = out]` row-major, `b` `[out]`): the input of `OnnxExport.exportMlp`. */
export const weights = (m: Mlp): Array<DenseWeights> =>
  m.layers.map((l) => ({
    w: l.w.dataSync() as Float32Array,
    rows: l.w.shape[0]!,
    cols: l.w.shape[1]!,
    b: l.b.dataSync() as Float32Array
  }))

/** Release the model's TF.js variables (the model is unusable afterwards). */
export const dispose = (m: Mlp): void => {
  for (const l of m.layers) {
    l.w.dispose()
    l.b.dispose()
  }
}

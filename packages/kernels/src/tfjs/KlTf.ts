/**
 * KL estimators with TensorFlow.js ops (the `tfjs` engine of `Kl`).
 * Part of `@autodidact/kernels/tfjs`: the `tf` module is passed in (from the `Backend` service); this module itself
 * loads no TensorFlow.js.
 * @since 0.2.0
 */
import type { Tf } from "../engines/BackendTag.js"
import { f32 } from "../NumArray.js"
import type { KlInput, KlResult } from "../policy/Kl.js"
import { validate } from "../policy/Kl.js"

/** KL estimates with TensorFlow.js ops (validates; the mean is a float32 reduction). */
export const estimateTf = (tf: Tf, input: KlInput): KlResult => {
  validate(input, tf.getBackend())
  const n = input.logProbs.length
  const [v, m] = tf.tidy(() => {
    const lr = tf.sub(tf.tensor1d(f32(input.otherLogProbs)), tf.tensor1d(f32(input.logProbs)))
    const values = input.estimator === "k1"
      ? tf.neg(lr)
      : input.estimator === "k2"
      ? tf.mul(tf.square(lr), 0.5)
      : tf.sub(tf.expm1(lr), lr)
    return [values, tf.mean(values)] as const
  })
  const values = v.dataSync() as Float32Array
  const mean = m.dataSync()[0]!
  tf.dispose([v, m])
  return n === 0 ? { values, mean: Number.NaN } : { values, mean }
}

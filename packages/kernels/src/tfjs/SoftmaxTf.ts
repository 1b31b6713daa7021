/**
 * Masked log-softmax and entropy with TensorFlow.js ops (the `tfjs` engine of `Softmax`).
 * Part of `@autodidact/kernels/tfjs`: the `tf` module is passed in (from the `Backend` service); this module itself
 * loads no TensorFlow.js.
 * @since 0.2.0
 */
import type { Tf } from "../engines/BackendTag.js"
import { f32 } from "../NumArray.js"
import type { SoftmaxInput, SoftmaxResult } from "../policy/Softmax.js"
import { kernelName, validate } from "../policy/Softmax.js"

/** Masked log-softmax and entropy with TensorFlow.js ops (validates). */
export const logSoftmaxTf = (tf: Tf, input: SoftmaxInput): SoftmaxResult => {
  validate(input, kernelName, tf.getBackend())
  const { batch: B, numActions: A } = input
  const [lp, h] = tf.tidy(() => {
    const z = tf.tensor2d(f32(input.logits), [B, A])
    let masked = z
    let valid = tf.cast(tf.onesLike(z), "bool")
    if (input.mask !== undefined) {
      valid = tf.cast(tf.tensor2d(f32(input.mask), [B, A]), "bool")
      masked = tf.where(valid, z, tf.fill([B, A], -Infinity))
    }
    const logProbs = tf.logSoftmax(masked)
    const plogp = tf.where(valid, tf.mul(tf.exp(logProbs), logProbs), tf.zerosLike(logProbs))
    return [logProbs, tf.neg(tf.sum(plogp, 1))] as const
  })
  const logProbs = lp.dataSync() as Float32Array
  const entropy = h.dataSync() as Float32Array
  tf.dispose([lp, h])
  return { logProbs, entropy }
}

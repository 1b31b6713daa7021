/**
 * Inverse-CDF categorical sampling with TensorFlow.js ops (the `tfjs` engine of `Categorical`).
 * Part of `@autodidact/kernels/tfjs`: the `tf` module is passed in (from the `Backend` service); this module itself
 * loads no TensorFlow.js.
 * @since 0.2.0
 */
import type { Tf } from "../engines/BackendTag.js"
import { f32 } from "../NumArray.js"
import type { CategoricalInput, CategoricalResult } from "../policy/Categorical.js"
import { validate } from "../policy/Categorical.js"

/** Inverse-CDF sampling with given uniforms, TensorFlow.js ops (validates). */
export const fromUniformsTf = (tf: Tf, input: CategoricalInput): CategoricalResult => {
  validate(input, tf.getBackend())
  const { batch: B, numActions: A } = input
  const [act, lp] = tf.tidy(() => {
    const z = tf.tensor2d(f32(input.logits), [B, A])
    const valid = input.mask === undefined ? tf.cast(tf.onesLike(z), "bool") : tf.cast(tf.tensor2d(f32(input.mask), [B, A]), "bool")
    const logProbs = tf.logSoftmax(tf.where(valid, z, tf.fill([B, A], -Infinity)))
    const cdf = tf.cumsum(tf.exp(logProbs), 1)
    const u = tf.tensor2d(f32(input.uniforms), [B, 1])
    // first index with cdf > u = number of indices with cdf ≤ u; past the end: the last valid action
    const count = tf.sum(tf.cast(tf.lessEqual(cdf, u), "int32"), 1)
    const lastValid = tf.sub(tf.scalar(A - 1, "int32"), tf.argMax(tf.reverse(tf.cast(valid, "int32"), 1), 1))
    const actions = tf.minimum(count, lastValid)
    const chosen = tf.sum(tf.mul(tf.where(valid, logProbs, tf.zerosLike(logProbs)), tf.oneHot(actions, A)), 1)
    return [actions, chosen] as const
  })
  const actions = Int32Array.from(act.dataSync())
  const logProbs = lp.dataSync() as Float32Array
  tf.dispose([act, lp])
  return { actions, logProbs }
}

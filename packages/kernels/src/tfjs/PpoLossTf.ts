/**
 * The PPO loss and its gradients with TensorFlow.js autodiff (the `tfjs` engine of `PpoLoss`). `tf.valueAndGrads` needs TensorFlow.js's gradient functions registered (see `Backend.registerGradients`).
 * Part of `@autodidact/kernels/tfjs`: the `tf` module is passed in (from the `Backend` service); this module itself
 * loads no TensorFlow.js.
 * @since 0.2.0
 */
import type * as tfc from "@tensorflow/tfjs-core"
import type { Tf } from "../engines/BackendTag.js"
import { f32 } from "../NumArray.js"
import type { PpoLossInput, PpoLossResult } from "../policy/PpoLoss.js"
import { validate } from "../policy/PpoLoss.js"

/** A logit that stands in for a masked action inside the differentiated graph (finite, so no 0 · ∞ = NaN). */
const MASKED_LOGIT = -1e9

/** Loss and gradients with TensorFlow.js: the forward pass differentiated by `tf.valueAndGrads` (validates). */
export const lossAndGradientTf = (tf: Tf, input: PpoLossInput): PpoLossResult => {
  const { c, cv, clipVloss, ent, vf } = validate(input, tf.getBackend())
  const B = input.batch
  const A = input.numActions
  const result = tf.tidy(() => {
    const valid = input.mask === undefined ? tf.cast(tf.ones([B, A]), "bool") : tf.cast(tf.tensor2d(f32(input.mask), [B, A]), "bool")
    const onehot = tf.oneHot(tf.tensor1d(Int32Array.from(input.actions as ArrayLike<number>), "int32"), A)
    const oldLogProbs = tf.tensor1d(f32(input.oldLogProbs))
    const adv = tf.tensor1d(f32(input.advantages))
    const oldValues = tf.tensor1d(f32(input.oldValues))
    const returns = tf.tensor1d(f32(input.returns))
    const fill = tf.fill([B, A], MASKED_LOGIT)
    const parts = (z: tfc.Tensor, v: tfc.Tensor) => {
      const logp = tf.logSoftmax(tf.where(valid, z, fill))
      const logRatio = tf.sub(tf.sum(tf.mul(logp, onehot), 1), oldLogProbs)
      const ratio = tf.exp(logRatio)
      const pg1 = tf.mul(tf.neg(adv), ratio)
      const pg2 = tf.mul(tf.neg(adv), tf.clipByValue(ratio, 1 - c, 1 + c))
      const pgLoss = tf.mean(tf.maximum(pg1, pg2))
      const entropy = tf.mean(tf.neg(tf.sum(tf.where(valid, tf.mul(tf.exp(logp), logp), tf.zerosLike(logp)), 1)))
      const un = tf.square(tf.sub(v, returns))
      const vLoss = clipVloss
        ? tf.mul(tf.mean(tf.maximum(un, tf.square(tf.sub(tf.add(oldValues, tf.clipByValue(tf.sub(v, oldValues), -cv, cv)), returns)))), 0.5)
        : tf.mul(tf.mean(un), 0.5)
      const loss = tf.add(tf.sub(pgLoss, tf.mul(entropy, ent)), tf.mul(vLoss, vf)) as tfc.Scalar
      return { loss, pgLoss, vLoss, entropy, logRatio, ratio }
    }
    const z = tf.tensor2d(f32(input.logits), [B, A])
    const v = tf.tensor1d(f32(input.values))
    const { value, grads } = tf.valueAndGrads((zz: tfc.Tensor, vv: tfc.Tensor) => parts(zz, vv).loss)([z, v])
    const p = parts(z, v)
    const approxKl = tf.mean(tf.sub(tf.sub(p.ratio, 1), p.logRatio))
    const clipFraction = tf.mean(tf.cast(tf.greater(tf.abs(tf.sub(p.ratio, 1)), c), "float32"))
    const scalars = tf.stack([value, p.pgLoss, p.vLoss, p.entropy, approxKl, clipFraction])
    return [scalars, grads[0]!, grads[1]!] as const
  })
  const s = result[0].dataSync()
  const dLogits = Float64Array.from(result[1].dataSync())
  const dValues = Float64Array.from(result[2].dataSync())
  tf.dispose([...result])
  return { loss: s[0]!, policyLoss: s[1]!, valueLoss: s[2]!, entropy: s[3]!, approxKl: s[4]!, clipFraction: s[5]!, dLogits, dValues }
}

/**
 * Group-relative normalization, RLOO and GiGPO anchor statistics with TensorFlow.js ops (the `tfjs` engine of `GroupNorm`).
 * Part of `@autodidact/kernels/tfjs`: the `tf` module is passed in (from the `Backend` service); this module itself
 * loads no TensorFlow.js.
 * @since 0.2.0
 */
import type * as tfc from "@tensorflow/tfjs-core"
import type { Tf } from "../engines/BackendTag.js"
import { f32 } from "../NumArray.js"
import type { AnchorInput, AnchorResult, NormalizeInput, RlooResult, SegmentInput } from "../advantages/GroupNorm.js"
import { anchorIdsOf, kernelName, rlooKernelName, segmentStatsSync, validate } from "../advantages/GroupNorm.js"

/** Segment sums with `tf.bincount` (weights), `[numSegments]` float32. */
const segmentSumTf = (tf: Tf, ids: tfc.Tensor1D, weights: tfc.Tensor1D, G: number): tfc.Tensor1D => tf.bincount(ids, weights, G)

/** Group-relative normalization with TensorFlow.js ops (validates). */
export const groupNormalizeTf = (tf: Tf, input: NormalizeInput): Float32Array => {
  const count = validate(input, kernelName, tf.getBackend())
  const G = input.numSegments
  const ddof = input.ddof ?? 1
  const eps = input.eps ?? 1e-4
  const out = tf.tidy(() => {
    const x = tf.tensor1d(f32(input.values))
    const ids = tf.tensor1d(Int32Array.from(input.segmentIds as ArrayLike<number>), "int32")
    const n = tf.tensor1d(Float32Array.from(count))
    const mean = tf.div(segmentSumTf(tf, ids, x, G), n)
    const centred = tf.sub(x, tf.gather(mean, ids))
    if (input.scale === false) return centred
    const ss = segmentSumTf(tf, ids, tf.square(centred) as tfc.Tensor1D, G)
    const dof = tf.sub(n, ddof)
    const std = tf.where(tf.greater(dof, 0), tf.sqrt(tf.div(ss, tf.maximum(dof, 1))), tf.zerosLike(ss))
    return tf.div(centred, tf.gather(tf.add(std, eps), ids))
  })
  const data = out.dataSync() as Float32Array
  out.dispose()
  return data
}

/** RLOO with TensorFlow.js ops (validates; a one-member group gets baseline x and advantage 0, as {@link rlooInto}). */
export const rlooTf = (tf: Tf, input: SegmentInput): RlooResult => {
  const count = validate(input, rlooKernelName, tf.getBackend())
  const [b, a] = tf.tidy(() => {
    const x = tf.tensor1d(f32(input.values))
    const ids = tf.tensor1d(Int32Array.from(input.segmentIds as ArrayLike<number>), "int32")
    const sum = tf.gather(segmentSumTf(tf, ids, x, input.numSegments), ids)
    const n = tf.gather(tf.tensor1d(Float32Array.from(count)), ids)
    const many = tf.greater(n, 1)
    const baselines = tf.where(many, tf.div(tf.sub(sum, x), tf.maximum(tf.sub(n, 1), 1)), x)
    return [baselines, tf.where(many, tf.sub(x, baselines), tf.zerosLike(x))] as const
  })
  const baselines = b.dataSync() as Float32Array
  const advantages = a.dataSync() as Float32Array
  tf.dispose([b, a])
  return { baselines, advantages }
}

/** GiGPO anchor statistics with TensorFlow.js ops (the (group, anchor) numbering is a hash map in JavaScript). */
export const anchorStatsTf = (tf: Tf, input: AnchorInput): AnchorResult => {
  const { ids, numAnchors } = anchorIdsOf(input, tf.getBackend())
  const stats = segmentStatsSync({ values: input.values, segmentIds: ids, numSegments: numAnchors, ddof: input.ddof })
  const advantages = groupNormalizeTf(tf, { values: input.values, segmentIds: ids, numSegments: numAnchors, ddof: input.ddof, eps: input.eps, scale: input.scale })
  return { ...stats, anchorIds: ids, numAnchors, advantages }
}

/**
 * Exact top-k with TensorFlow.js ops (the `tfjs` engine of `TopK`).
 * Part of `@autodidact/kernels/tfjs`: the `tf` module is passed in (from the `Backend` service); this module itself
 * loads no TensorFlow.js.
 * @since 0.2.0
 */
import type * as tfc from "@tensorflow/tfjs-core"
import type { Tf } from "../engines/BackendTag.js"
import { f32 } from "../NumArray.js"
import { checkFinite } from "../KernelError.js"
import type { TopKInput, TopKResult } from "../retrieval/TopK.js"
import { validate } from "../retrieval/TopK.js"

/** Top-k with TensorFlow.js: one `matMul` for the scores, then `tf.topk` (validates). */
export const topKTf = (tf: Tf, input: TopKInput): TopKResult => {
  const site = validate(input, tf.getBackend())
  const { numQueries: Q, numRows: M, dim: D, k } = input
  const [vals, idx, bad] = tf.tidy(() => {
    const qs = tf.tensor2d(f32(input.queries), [Q, D])
    const ms = tf.tensor2d(f32(input.matrix), [M, D])
    let scores: tfc.Tensor2D = tf.matMul(qs, ms, false, true)
    const nonFinite = tf.any(tf.logicalNot(tf.isFinite(scores)))
    if (input.metric === "cosine") {
      const inv = (n: tfc.Tensor) => tf.where(tf.greater(n, 0), tf.div(1, n), tf.zerosLike(n))
      const rn = input.rowNorms === undefined ? tf.norm(ms, "euclidean", 1) : tf.tensor1d(f32(input.rowNorms))
      const qn = tf.norm(qs, "euclidean", 1)
      scores = tf.mul(tf.mul(scores, tf.reshape(inv(qn), [Q, 1])), tf.reshape(inv(rn), [1, M]))
    }
    const { values, indices } = tf.topk(scores, k, true)
    return [values, indices, nonFinite] as const
  })
  const isBad = bad.dataSync()[0] !== 0
  const scores = vals.dataSync() as Float32Array
  const indices = Int32Array.from(idx.dataSync())
  tf.dispose([vals, idx, bad])
  if (isBad) {
    // find the offending element with the reference check
    checkFinite({ ...site }, "queries", input.queries, [Q, D])
    checkFinite({ ...site }, "matrix", input.matrix, [M, D])
  }
  return { indices, scores }
}

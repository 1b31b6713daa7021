/**
 * Prefix-sum sampling with TensorFlow.js on a flat priority vector (the TensorFlow.js equivalent of `SumTree.sampleBatch`).
 * Part of `@autodidact/kernels/tfjs`: the `tf` module is passed in (from the `Backend` service); this module itself
 * loads no TensorFlow.js.
 * @since 0.2.0
 */
import type { Tf } from "../engines/BackendTag.js"
import type { NumArray } from "../NumArray.js"
import type { Site } from "../KernelError.js"
import { fail } from "../KernelError.js"
import { kernelName } from "../trees/SumTree.js"

/** Prefix-sum sampling with TensorFlow.js on a flat priority vector `[n]`: `upperBound(cumsum(p), u)`. */
export const sampleTf = (tf: Tf, priorities: NumArray, prefixes: NumArray): Int32Array => {
  const site: Site = { kernel: `${kernelName}.sample`, backend: tf.getBackend() }
  for (let j = 0; j < priorities.length; j++) {
    const p = priorities[j]!
    if (!(p >= 0 && p < Infinity)) fail(site, "priorities", p !== p || p === Infinity ? "non-finite" : "range", `[${priorities.length}]`, `priority ${p} at index ${j}`)
  }
  const out = tf.tidy(() => {
    const cdf = tf.cumsum(tf.tensor1d(Float32Array.from(priorities as ArrayLike<number>)))
    const u = tf.tensor1d(Float32Array.from(prefixes as ArrayLike<number>))
    return tf.minimum(tf.upperBound(cdf, u), priorities.length - 1)
  })
  const indices = Int32Array.from(out.dataSync())
  out.dispose()
  return indices
}

/**
 * Discounted returns with TensorFlow.js ops (the `tfjs` engine of `Returns`).
 * Part of `@autodidact/kernels/tfjs`: the `tf` module is passed in (from the `Backend` service); this module itself
 * loads no TensorFlow.js.
 * @since 0.2.0
 */
import type * as tfc from "@tensorflow/tfjs-core"
import type { Tf } from "../engines/BackendTag.js"
import { f32 } from "../NumArray.js"
import type { ReturnsInput } from "../advantages/Returns.js"
import { validate } from "../advantages/Returns.js"

/**
 * The reverse linear recurrence `y_t = x_t + c_t · y_{t+1}` (`y_T = 0`) along axis 0 of `[T, N]` tensors, as a
 * Hillis–Steele scan: after the round with offset s, `(x_t, c_t)` is the composition of the maps t … t+2s−1.
 * Returns a new tensor; the caller owns (and disposes) it. Use inside `tf.tidy`.
 */
export const reverseScanTf = (tf: Tf, x: tfc.Tensor2D, c: tfc.Tensor2D): tfc.Tensor2D => {
  const [T, N] = x.shape
  let xs = x
  let cs = c
  for (let s = 1; s < T; s *= 2) {
    const pad = tf.zeros([s, N])
    const xShift = tf.concat([tf.slice(xs, [s, 0], [T - s, N]), pad], 0)
    const cShift = tf.concat([tf.slice(cs, [s, 0], [T - s, N]), pad], 0)
    xs = tf.add(xs, tf.mul(cs, xShift))
    if (2 * s < T) cs = tf.mul(cs, cShift)
  }
  return xs
}

/** Discounted returns with TensorFlow.js ops ({@link reverseScanTf}); float32, agrees with the reference to ~1e-5. */
export const discountedReturnsTf = (tf: Tf, input: ReturnsInput): Float32Array => {
  validate(input, tf.getBackend())
  const { numSteps: T, numEnvs: N, gamma } = input
  const out = tf.tidy(() => {
    const r = tf.tensor2d(f32(input.rewards), [T, N])
    const d = tf.tensor2d(f32(input.dones), [T, N])
    const nv = input.nextValue === undefined ? tf.zeros([1, N]) : tf.tensor2d(f32(input.nextValue), [1, N])
    const nd = input.nextDone === undefined ? tf.zeros([1, N]) : tf.tensor2d(f32(input.nextDone), [1, N])
    const dNext = T > 1 ? tf.concat([tf.slice(d, [1, 0], [T - 1, N]), nd], 0) : nd
    const c = tf.mul(tf.sub(1, dNext), gamma) as tfc.Tensor2D
    // fold the bootstrap into the last reward: x_{T−1} = r_{T−1} + γ (1 − nextDone) nextValue
    const boot = tf.concat([tf.zeros([T - 1, N]), tf.mul(tf.mul(nv, tf.sub(1, nd)), gamma)], 0)
    return reverseScanTf(tf, tf.add(r, boot) as tfc.Tensor2D, c)
  })
  const data = out.dataSync() as Float32Array
  out.dispose()
  return data
}

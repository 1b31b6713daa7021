/**
 * TensorFlow.js interop of the actor-critic: its parameters as `tf.Variable`s and back, and the same forward pass
 * with tf ops (tested equal to the typed-array one). Re-exported by the public {@link ActorCritic} namespace.
 * @internal
 * @since 0.2.0
 */
import type { Backend } from "@autodidact/kernels/tfjs"
import type { ActorCritic } from "./ActorCriticNet.js"

type Tf = Backend.Tf

/** The parameters as TensorFlow.js variables, one per layer (names as {@link layout}); the caller disposes them. */
export const toVariables = (net: ActorCritic, tf: Tf): Array<import("@tensorflow/tfjs-core").Variable> =>
  net.layout.map((l) => tf.variable(tf.tensor(net.params.subarray(l.offset, l.offset + l.size), [...l.shape]), true))

/** Copy TensorFlow.js variables (from {@link toVariables}) back into `net.params` (one `dataSync` per variable). */
export const fromVariables = (net: ActorCritic, variables: ReadonlyArray<import("@tensorflow/tfjs-core").Tensor>): void => {
  net.layout.forEach((l, k) => net.params.set(variables[k]!.dataSync() as Float32Array, l.offset))
}

/**
 * The same forward pass with TensorFlow.js ops (batched inference on the selected backend): logits
 * `[batch, numActions]` and values `[batch]` as `Float32Array`s.
 */
export const forwardTf = (net: ActorCritic, tf: Tf, obs: Float32Array, batch: number): { logits: Float32Array; values: Float32Array } => {
  const out = tf.tidy(() => {
    const w = net.layout.map((l) => tf.tensor(net.params.subarray(l.offset, l.offset + l.size), [...l.shape]))
    const x = tf.tensor2d(obs.subarray(0, batch * net.obsDim), [batch, net.obsDim])
    const mlp = (k: number) =>
      tf.add(tf.matMul(tf.tanh(tf.add(tf.matMul(tf.tanh(tf.add(tf.matMul(x, w[k]!), w[k + 1]!)), w[k + 2]!), w[k + 3]!)), w[k + 4]!), w[k + 5]!)
    return [mlp(0), tf.reshape(mlp(6), [batch])] as const
  })
  const logits = Float32Array.from(out[0].dataSync() as Float32Array)
  const values = Float32Array.from(out[1].dataSync() as Float32Array)
  tf.dispose([out[0], out[1]])
  return { logits, values }
}

/**
 * GAE with TensorFlow.js ops (the `tfjs` engine of `Gae`), and GAE on the {@link Backend} service's backend as an Effect.
 * Part of `@autodidact/kernels/tfjs`: the `tf` module is passed in (from the `Backend` service); this module itself
 * loads no TensorFlow.js.
 * @since 0.2.0
 */
import { NonFiniteValueError } from "@autodidact/core"
import type { Tensor2D } from "@tensorflow/tfjs-core"
import { Effect } from "effect"
import type { Tf } from "../engines/BackendTag.js"
import { Backend } from "../engines/BackendTag.js"
import { f32 } from "../NumArray.js"
import type { GaeInput, GaeResult } from "../advantages/Gae.js"
import { catchTyped, GaeShapeError, validate } from "../advantages/Gae.js"
import { reverseScanTf } from "./ReturnsTf.js"

/**
 * GAE with TensorFlow.js ops: δ computed elementwise, then the backward recursion
 * `Â_t = δ_t + γλ · nextnonterminal_t · Â_{t+1}` as a Hillis–Steele scan of affine maps
 * (`Returns.reverseScanTf`): ⌈log₂ T⌉ rounds over `[T, N]`, O(T·N·log T) work and O(T·N) memory, float32;
 * agrees with {@link computeSync} to ~1e-5 relative. Validates first.
 * @throws GaeShapeError | NonFiniteValueError
 */
export const computeTf = (tf: Tf, input: GaeInput): GaeResult => {
  validate(input)
  const { numSteps: T, numEnvs: N, gamma, lambda } = input
  const out = tf.tidy(() => {
    const r = tf.tensor2d(f32(input.rewards), [T, N])
    const v = tf.tensor2d(f32(input.values), [T, N])
    const d = tf.tensor2d(f32(input.dones), [T, N])
    const nv = tf.tensor2d(f32(input.nextValue), [1, N])
    const nd = tf.tensor2d(f32(input.nextDone), [1, N])
    // next-step values and done flags: rows 1..T-1 of values/dones, then the bootstrap row
    const vNext = T > 1 ? tf.concat([tf.slice(v, [1, 0], [T - 1, N]), nv], 0) : nv
    const dNext = T > 1 ? tf.concat([tf.slice(d, [1, 0], [T - 1, N]), nd], 0) : nd
    const nonTerminal = tf.sub(1, dNext)
    let bootstrap = tf.mul(tf.mul(vNext, nonTerminal), gamma)
    if (input.truncations !== undefined) {
      const tr = tf.tensor2d(f32(input.truncations), [T, N])
      const fv = tf.tensor2d(f32(input.finalValues!), [T, N])
      bootstrap = tf.add(tf.mul(bootstrap, tf.sub(1, tr)), tf.mul(tf.mul(fv, tr), gamma))
    }
    const delta = tf.sub(tf.add(r, bootstrap), v) as Tensor2D // [T, N]
    const adv = reverseScanTf(tf, delta, tf.mul(nonTerminal, gamma * lambda) as Tensor2D)
    return [adv, tf.add(adv, v)] as const
  })
  const advantages = out[0].dataSync() as Float32Array
  const returns = out[1].dataSync() as Float32Array
  tf.dispose([out[0], out[1]])
  return { advantages, returns }
}

/** GAE on the TensorFlow.js backend of the {@link Backend} service, as an Effect. */
export const computeWithBackend = (input: GaeInput): Effect.Effect<GaeResult, GaeShapeError | NonFiniteValueError, Backend> =>
  Effect.gen(function* () {
    const backend = yield* Backend
    return yield* catchTyped(() => computeTf(backend.tf, input))
  })

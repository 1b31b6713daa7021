/**
 * `@autodidact/optim/tfjs`: TensorFlow.js interop of the actor-critic ({@link ActorCriticTf}: its parameters as
 * `tf.Variable`s and back, the forward pass with tf ops) and {@link loadBackend}, which selects a TensorFlow.js backend
 * (`@autodidact/kernels/tfjs`' `Backend.load`: tfjs-node when installed, else `@tensorflow/tfjs-backend-wasm`, else
 * `@tensorflow/tfjs-backend-cpu`; with neither it rejects with `MissingPeerError` naming `@tensorflow/tfjs-backend-wasm`).
 * `@tensorflow/tfjs-core` and the backends are optional peer dependencies: importing this entry point without
 * `@tensorflow/tfjs-core` fails with `MissingPeerError`. PPO itself needs none of them (its network math is plain typed
 * arrays).
 * @since 0.2.0
 */
import { Backend } from "@autodidact/kernels/tfjs"

export * as ActorCriticTf from "./internal/ActorCriticTf.js"

/** Select and initialize a TensorFlow.js backend (see the module docs); resolves to `{ name, tf, reason, tried }`. */
export const loadBackend = (options: Backend.SelectOptions = {}): Promise<Backend.BackendShape> => Backend.load(options)

/**
 * An MLP actor-critic for discrete actions, as CleanRL `ppo.py`'s `Agent`: two separate MLPs
 * `obsDim → 64 → 64 → numActions` (actor, logits of a categorical policy) and `obsDim → 64 → 64 → 1` (critic),
 * tanh activations, orthogonal weights (gain √2 for hidden layers, 0.01 for the actor head, 1 for the critic head)
 * and zero biases.
 *
 * **Why plain typed arrays (measured, and the design choice)**
 * - Rollouts run the network on 4 observations per step. Through TensorFlow.js every op is a dispatch (and a
 *   `dataSync` to read the sampled action); on this 2-core machine that costs milliseconds per step on the wasm
 *   backend, while the whole 4-64-64-2 forward pass is ~10 µs in plain JavaScript.
 * - The update needs gradients. TensorFlow.js has them (`tf.variableGrads`, once `Backend.select` of
 *   `@autodidact/kernels/tfjs` has registered tfjs-core's gradient functions), but at these sizes its per-op dispatch
 *   costs more than the arithmetic: forward + backward of a 128-row minibatch took 4.2 ms on its wasm backend against
 *   2.5 ms for the typed-array loops and 0.23 ms for `wasm-simd` (`autodidact bench ppo`, same run). The backward pass
 *   of this fixed network is short, so it is written out by hand ({@link backward}) and checked against finite
 *   differences in the tests.
 * - Two engines run the same network on the same flat parameters ({@link Engine}): `"typed-array"` (the float64
 *   loops of `internal/Dense.ts`, the reference) and `"wasm-simd"` (the float32x4 WebAssembly kernels `MlpSimd` of
 *   `@autodidact/kernels`, ~10× faster on 128-row minibatches, ~9× on the 4-row rollout step; what PPO uses by
 *   default). Measured beside TensorFlow.js by `autodidact bench ppo` (`Ppo.benchmark`).
 * - TensorFlow.js stays the interop path, in `@autodidact/optim/tfjs` (`ActorCriticTf`): `toVariables` exports the
 *   weights as `tf.Variable`s and `forwardTf` runs the same network with tf ops (tested equal to {@link forward}).
 *
 * **Layout**: all parameters live in one `Float32Array` (`net.params`), layer by layer as {@link layout} lists them;
 * a dense layer's weight is `[in, out]` row-major (`y = x · W + b`, the transpose of PyTorch's `[out, in]`).
 * Gradients and Adam moments use the same flat layout, so global-norm clipping and checkpoints are one loop/array.
 *
 * **Modules** (one concept each, all re-exported here): the structure and initialization
 * (`internal/ActorCriticNet.ts`), the dense layer and its backward pass (`internal/Dense.ts`), the forward/backward
 * math, sampling and values (`internal/ActorCriticMlp.ts`), and the TensorFlow.js mirror (`internal/ActorCriticTf.ts`).
 *
 * @see https://github.com/vwxyzjn/cleanrl/blob/master/cleanrl/ppo.py (`Agent`, `layer_init`)
 * @see Saxe, McClelland, Ganguli, "Exact solutions to the nonlinear dynamics of learning in deep linear neural
 *   networks", arXiv:1312.6120 (orthogonal initialization, PyTorch's `nn.init.orthogonal_`)
 * @since 0.1.0
 */
export {
  type ActorCritic,
  type Engine,
  engines,
  fromParams,
  type LayerSpec,
  layout,
  make,
  type MakeOptions,
  numParams,
  orthogonalInto,
  resolveEngine,
  type Sizes
} from "../internal/ActorCriticNet.js"
export { act, actGreedy, backward, entropyAt, forward, logitsOf, logProbAt, probsOf, values, valuesOf } from "../internal/ActorCriticMlp.js"

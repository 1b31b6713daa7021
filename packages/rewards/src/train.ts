/**
 * `@autodidact/rewards/train`: reward-model training in TensorFlow.js: an MLP reward head ({@link Mlp}),
 * Bradley-Terry pairwise and pointwise training ({@link Training}), process reward models from Monte Carlo targets
 * ({@link ProcessRewardModel}), and export to ONNX ({@link OnnxExport}).
 *
 * Optional peers: `@tensorflow/tfjs-core` with a backend (`@tensorflow/tfjs-backend-wasm` or
 * `@tensorflow/tfjs-backend-cpu`, or native `@tensorflow/tfjs-node`), and `onnx-proto`; importing this entry without
 * `@tensorflow/tfjs-core` or `onnx-proto` fails with `MissingPeerError` naming the package to install.
 *
 * Plain face: `const trained = await trainRewardModel({ data: { n, dim, chosen, rejected } })`.
 * @since 0.2.0
 */
export * as Mlp from "./Mlp.js"
export * as Training from "./Training.js"
export * as OnnxExport from "./OnnxExport.js"
export * as ProcessRewardModel from "./ProcessRewardModel.js"
export * as RewardTrainer from "./RewardTrainer.js"
export { trainRewardModel } from "./RewardTrainer.js"

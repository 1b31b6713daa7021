/**
 * `@autodidact/rewards/onnx`: ONNX reward models (feature-vector models and Hugging Face sequence-classification
 * text models with a local `tokenizer.json`) behind the `RewardModel` contract of the main entry.
 *
 * Optional peers: `onnxruntime-node` (loaded by `@autodidact/kernels/ort` when the first model opens) and
 * `@huggingface/tokenizers` (loaded when this entry is imported; missing, the import fails with `MissingPeerError`
 * naming the package to install).
 *
 * Plain face: `const rm = await loadRewardModel("rm.onnx"); const scores = await rm.score([{ features }]); await rm.close()`.
 * @since 0.2.0
 */
export * as OnnxRewardModel from "./OnnxRewardModel.js"
export { load as loadRewardModel, loadText as loadTextRewardModel } from "./OnnxRewardModel.js"
export * as TextTokenizer from "./TextTokenizer.js"
export { loadTokenizer } from "./TextTokenizer.js"

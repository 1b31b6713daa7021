/**
 * `@autodidact/rewards`: reward models for agents that learn: one {@link RewardModel} service for outcome and
 * process rewards (rules, ONNX models via onnxruntime-node, TF.js models, ensembles), Bradley-Terry and pointwise
 * training in TF.js with export to ONNX, process reward models from Monte Carlo targets, an LLM judge over OpenAI-compatible endpoints, reward-guided search and
 * potential-based shaping.
 * @since 0.1.0
 */
export * as RewardError from "./RewardError.js"
export {
  EmptyBatchError,
  InferenceError,
  InputMismatchError,
  JudgeAnswerError,
  JudgeHttpError,
  JudgeUnreachableError,
  ModelLoadError,
  NonFiniteScoreError,
  TokenizerMismatchError
} from "./RewardError.js"
export * as RewardModel from "./RewardModel.js"
export * as LlmJudge from "./LlmJudge.js"
export * as OnnxRewardModel from "./OnnxRewardModel.js"
export * as TextTokenizer from "./TextTokenizer.js"
export * as Mlp from "./Mlp.js"
export * as Training from "./Training.js"
export * as Calibration from "./Calibration.js"
export * as OnnxExport from "./OnnxExport.js"
export * as Search from "./Search.js"
export * as ProcessReward from "./ProcessReward.js"
export * as Shaping from "./Shaping.js"

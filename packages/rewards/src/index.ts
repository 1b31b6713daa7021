/**
 * `@autodidact/rewards`: reward models for agents that learn. The main entry is light (no ONNX Runtime, TF.js,
 * tokenizer or protobuf): one {@link RewardModel} contract for outcome and process rewards with rules, ensembles
 * and an LLM judge over OpenAI-compatible endpoints, reward-guided search, Monte Carlo process-reward targets,
 * step advantages and potential-based shaping. Plain face: `createRules`, `createEnsemble`, `LlmJudge.create`,
 * `toScorer` (Promises, the same tagged errors). `CheckRewardModel.checkRewardModel` checks that a model keeps the
 * contract.
 *
 * Heavy backends live behind their own entry points (optional peer dependencies):
 * - `@autodidact/rewards/onnx`: ONNX reward models (`loadRewardModel`, `OnnxRewardModel`, `TextTokenizer`).
 * - `@autodidact/rewards/train`: TF.js MLP training with ONNX export (`trainRewardModel`, `Mlp`, `Training`, ...).
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
  NonFiniteInputError,
  NonFiniteScoreError,
  TokenizerMismatchError
} from "./RewardError.js"
export * as RewardModel from "./RewardModel.js"
export { createEnsemble, createRules, type Scorer, toScorer } from "./RewardModel.js"
export * as LlmJudge from "./LlmJudge.js"
export * as CheckRewardModel from "./CheckRewardModel.js"
export * as Calibration from "./Calibration.js"
export * as Search from "./Search.js"
export * as ProcessReward from "./ProcessReward.js"
export * as Shaping from "./Shaping.js"

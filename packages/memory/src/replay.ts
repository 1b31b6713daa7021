/**
 * `@autodidact/memory/replay`: the replay buffers alone (uniform ring, n-step returns, proportional prioritized replay
 * on `@autodidact/kernels/trees`, episode buffers, the replay file format and their errors). Importing it loads no
 * database, no tokenizer, no ONNX Runtime and no TensorFlow.js; the main entry re-exports the same modules.
 * @since 0.1.0
 */
export * as EpisodeBuffer from "./replay/EpisodeBuffer.js"
export * as NStep from "./replay/NStep.js"
export * as PrioritizedReplay from "./replay/PrioritizedReplay.js"
export * as ReplayBuffer from "./replay/ReplayBuffer.js"
export * as ReplayFile from "./replay/ReplayFile.js"
export {
  CorruptReplayFileError,
  DtypeMismatchError,
  InsufficientDataError,
  InvalidPriorityError,
  ReplayIoError,
  ShapeMismatchError
} from "./replay/ReplayErrors.js"

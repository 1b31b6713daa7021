/**
 * `@autodidact/memory/replay`: the replay buffers alone (uniform ring, n-step returns, proportional prioritized replay
 * on `@autodidact/kernels/trees`, episode buffers) and their errors. Synchronous, plain classes (`create`, `add`,
 * `sample`; `make` is the Effect constructor). No Node built-in, no database, tokenizer, ONNX Runtime or TensorFlow.js
 * in its import graph: it bundles for browsers. Saving and loading (Node's `fs`) is `ReplayFile` in
 * `@autodidact/memory/replay/node`. The main entry re-exports the same modules.
 * @since 0.1.0
 */
export * as EpisodeBuffer from "./replay/EpisodeBuffer.js"
export * as NStep from "./replay/NStep.js"
export * as PrioritizedReplay from "./replay/PrioritizedReplay.js"
export * as ReplayBuffer from "./replay/ReplayBuffer.js"
export type { Contents, Decoded, Restorer, Saveable } from "./replay/ReplayFormat.js"
export {
  CorruptReplayFileError,
  DtypeMismatchError,
  InsufficientDataError,
  InvalidPriorityError,
  ReplayIoError,
  ShapeMismatchError
} from "./replay/ReplayErrors.js"

/**
 * `@autodidact/memory`: what agents that learn keep. The main entry is the light part, with no backend and no Node
 * built-in (it bundles for browsers): the replay buffers (uniform ring, n-step returns, proportional prioritized
 * replay on sum/min trees, episode buffers), the text embedders that need no package (hashed features; an
 * OpenAI-compatible endpoint over `effect/http`), and the experience store's record schemas, retrieval scoring and
 * errors. The rest has its own entry point:
 *
 * - `@autodidact/memory/replay`: the replay buffers alone; `@autodidact/memory/replay/node`: `ReplayFile` (save/load).
 * - `@autodidact/memory/store`: the experience store (PGlite or PostgreSQL; optional peers, loaded on open).
 * - `@autodidact/memory/onnx`: `OnnxEmbedder` (ONNX Runtime and `@huggingface/tokenizers`; optional peers).
 * @since 0.1.0
 */
export * as ReplayBuffer from "./replay/ReplayBuffer.js"
export * as NStep from "./replay/NStep.js"
export * as PrioritizedReplay from "./replay/PrioritizedReplay.js"
export * as EpisodeBuffer from "./replay/EpisodeBuffer.js"
export {
  CorruptReplayFileError,
  DtypeMismatchError,
  InsufficientDataError,
  InvalidPriorityError,
  ReplayIoError,
  ShapeMismatchError
} from "./replay/ReplayErrors.js"
export * as Records from "./store/Records.js"
export * as Embedder from "./embedders/Embedder.js"
export * as Retrieval from "./store/Retrieval.js"
export * as StoreErrors from "./store/StoreErrors.js"
export {
  EmbedderError,
  EmbedderLoadError,
  EmbedderTokenizerMismatchError,
  InvalidQueryError,
  InvalidRecordError,
  SchemaVersionError,
  StoreOpenError,
  StoreSqlError
} from "./store/StoreErrors.js"

/**
 * `@autodidact/memory`: what agents that learn keep. Replay buffers for RL (uniform ring, n-step returns,
 * proportional prioritized replay on sum/min trees, episode buffers), and a persistent experience store
 * (trajectories, insights, reflections, tips) with weighted retrieval, on PGlite by default or a PostgreSQL server.
 * @since 0.1.0
 */
export * as ReplayBuffer from "./replay/ReplayBuffer.js"
export * as NStep from "./replay/NStep.js"
export * as PrioritizedReplay from "./replay/PrioritizedReplay.js"
export * as EpisodeBuffer from "./replay/EpisodeBuffer.js"
export * as ExemplarAgent from "./store/ExemplarAgent.js"
export * as ReplayFile from "./replay/ReplayFile.js"
export {
  CorruptReplayFileError,
  DtypeMismatchError,
  InsufficientDataError,
  InvalidPriorityError,
  ReplayIoError,
  ShapeMismatchError
} from "./replay/ReplayErrors.js"
export * as Records from "./store/Records.js"
export * as Store from "./store/Store.js"
export * as Embedder from "./embedders/Embedder.js"
export * as OnnxEmbedder from "./embedders/OnnxEmbedder.js"
export * as Retrieval from "./store/Retrieval.js"
export * as Consolidation from "./store/Consolidation.js"
export * as Migrations from "./store/Migrations.js"
export * as SqlBackend from "./store/SqlBackend.js"
export * as StoreErrors from "./store/StoreErrors.js"
export * as Summary from "./store/Summary.js"
export { ExperienceStore } from "./store/Store.js"
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

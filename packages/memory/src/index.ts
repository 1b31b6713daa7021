/**
 * `@autodidact/memory`: what agents that learn keep. Replay buffers for RL (uniform ring, n-step returns,
 * proportional prioritized replay on sum/min trees, episode buffers), and a persistent experience store
 * (trajectories, insights, reflections, tips) with weighted retrieval, on PGlite by default or a PostgreSQL server.
 * @since 0.1.0
 */
export * as ReplayBuffer from "./ReplayBuffer.js"
export * as NStep from "./NStep.js"
export * as PrioritizedReplay from "./PrioritizedReplay.js"
export * as EpisodeBuffer from "./EpisodeBuffer.js"
export * as ExemplarAgent from "./ExemplarAgent.js"
export * as ReplayFile from "./ReplayFile.js"
export {
  CorruptReplayFileError,
  DtypeMismatchError,
  InsufficientDataError,
  InvalidPriorityError,
  ReplayIoError,
  ShapeMismatchError
} from "./ReplayErrors.js"
export * as Records from "./Records.js"
export * as Store from "./Store.js"
export * as Embedder from "./Embedder.js"
export * as OnnxEmbedder from "./OnnxEmbedder.js"
export * as Retrieval from "./Retrieval.js"
export * as Consolidation from "./Consolidation.js"
export * as Migrations from "./Migrations.js"
export * as SqlBackend from "./SqlBackend.js"
export * as StoreErrors from "./StoreErrors.js"
export * as Summary from "./Summary.js"
export { ExperienceStore } from "./Store.js"
export {
  EmbedderError,
  EmbedderLoadError,
  EmbedderTokenizerMismatchError,
  InvalidQueryError,
  InvalidRecordError,
  SchemaVersionError,
  StoreOpenError,
  StoreSqlError
} from "./StoreErrors.js"

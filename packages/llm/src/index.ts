/**
 * `@autodidact/llm`: LLM agents that learn.
 *
 * - Models: an effect/ai `LanguageModel` for OpenAI-compatible endpoints ({@link OpenAiCompat});
 * - in-context learning (no weight updates): the ReAct LLM policy ({@link LlmPolicy}) and its group rollouts
 *   ({@link LlmRollout}), Training-Free GRPO ({@link TrainingFreeGrpo}, arXiv:2510.08191), ExpeL ({@link Expel},
 *   arXiv:2308.10144), GEPA ({@link Gepa}, arXiv:2507.19457), the versioned experience library
 *   ({@link ExperienceLibrary}, {@link ExperienceLibraryStore}) and the flip-centered release gate
 *   ({@link ReleaseGate});
 * - recording and export: a trajectory-recording OpenAI-compatible gateway ({@link Gateway}, {@link Recorder}),
 *   exports for Python trainers (TRL/OpenAI chat JSONL, verl; {@link Export});
 * - an AgentGym-protocol environment server ({@link EnvServer}).
 *
 * Gradient-based learners and advantage estimators are in `@autodidact/optim`, which this package imports.
 * @since 0.1.0
 */
export * as LlmErrors from "./LlmErrors.js"
export * as OpenAiCompat from "./OpenAiCompat.js"
export * as Recorder from "./Recorder.js"
export * as Gateway from "./Gateway.js"
export * as Export from "./Export.js"
export * as EnvServer from "./EnvServer.js"
export * as ExperienceLibraryStore from "./ExperienceLibraryStore.js"
export * as LlmPolicy from "./LlmPolicy.js"
export * as LlmRollout from "./LlmRollout.js"
export * as ExperienceLibrary from "./ExperienceLibrary.js"
export * as TrainingFreeGrpo from "./TrainingFreeGrpo.js"
export * as Expel from "./Expel.js"
export * as Gepa from "./Gepa.js"
export * as ReleaseGate from "./ReleaseGate.js"
export { ExportInputError, LlmConfigError, RecordError, ServerStartError } from "./LlmErrors.js"

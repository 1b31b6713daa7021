/**
 * `@autodidact/llm`: LLM agents that learn: an effect/ai `LanguageModel` for OpenAI-compatible endpoints, a
 * trajectory-recording OpenAI-compatible gateway, exports for Python trainers (TRL/OpenAI chat JSONL, verl), and an
 * AgentGym-protocol environment server.
 * @since 0.1.0
 */
export * as LlmErrors from "./LlmErrors.js"
export * as OpenAiCompat from "./OpenAiCompat.js"
export * as Sse from "./Sse.js"
export * as Recorder from "./Recorder.js"
export * as HttpListen from "./HttpListen.js"
export * as Gateway from "./Gateway.js"
export * as Export from "./Export.js"
export * as EnvServer from "./EnvServer.js"
export * as ExperienceLibraryStore from "./ExperienceLibraryStore.js"
export { ExportInputError, LlmConfigError, RecordError, ServerStartError } from "./LlmErrors.js"

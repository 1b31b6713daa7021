/**
 * `@autodidact/llm`: LLM agents that learn: effect/ai OpenAI-compatible model layer, trajectory-recording gateway, trainer exports, AgentGym environment server..
 * @since 0.0.0
 */
export const name = "llm"

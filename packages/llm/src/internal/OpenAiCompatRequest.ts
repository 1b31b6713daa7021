/**
 * Request encoding for OpenAI-compatible `/v1/chat/completions`: an `effect/ai` `Prompt` as chat messages on the
 * wire, a `Toolkit`'s tools and tool choice as OpenAI functions, and the request body with the sampling parameters.
 * Re-exported by the public {@link OpenAiCompat} namespace.
 * @see https://platform.openai.com/docs/api-reference/chat/create
 * @internal
 * @since 0.2.0
 */
import { LanguageModel, Prompt, Tool } from "effect/ai"
import type { Sampling } from "./OpenAiCompatConfig.js"

/** An OpenAI chat message as sent on the wire. @category models @since 0.1.0 */
export type ChatMessage =
  | { readonly role: "system"; readonly content: string }
  | { readonly role: "user"; readonly content: string | ReadonlyArray<{ readonly [key: string]: unknown }> }
  | { readonly role: "assistant"; readonly content: string | null; readonly tool_calls?: ReadonlyArray<WireToolCall> }
  | { readonly role: "tool"; readonly tool_call_id: string; readonly content: string }

/** A tool call on the wire. @category models @since 0.1.0 */
export interface WireToolCall {
  readonly id: string
  readonly type: "function"
  readonly function: { readonly name: string; readonly arguments: string }
}

const jsonText = (v: unknown): string => (typeof v === "string" ? v : JSON.stringify(v ?? null))

const fileUrl = (part: Prompt.FilePart): string | undefined => {
  if (part.data instanceof URL) return part.data.href
  if (typeof part.data === "string") return /^(https?:|data:)/.test(part.data) ? part.data : `data:${part.mediaType};base64,${part.data}`
  return `data:${part.mediaType};base64,${Buffer.from(part.data).toString("base64")}`
}

/**
 * The chat messages of a prompt.
 *
 * @category encoding
 * @since 0.1.0
 */
export const toChatMessages = (prompt: Prompt.Prompt): Array<ChatMessage> => {
  const out: Array<ChatMessage> = []
  for (const m of prompt.content) {
    switch (m.role) {
      case "system":
        out.push({ role: "system", content: m.content })
        break
      case "user": {
        const hasFile = m.content.some((p) => p.type === "file" && p.mediaType.startsWith("image/"))
        if (!hasFile) {
          out.push({ role: "user", content: m.content.filter((p) => p.type === "text").map((p) => p.text).join("") })
        } else {
          out.push({
            role: "user",
            content: m.content.flatMap((p): Array<{ readonly [key: string]: unknown }> =>
              p.type === "text"
                ? [{ type: "text", text: p.text }]
                : p.mediaType.startsWith("image/")
                ? [{ type: "image_url", image_url: { url: fileUrl(p) } }]
                : []
            )
          })
        }
        break
      }
      case "assistant": {
        const text = m.content.filter((p) => p.type === "text").map((p) => (p as Prompt.TextPart).text).join("")
        const calls: Array<WireToolCall> = []
        const results: Array<ChatMessage> = []
        for (const p of m.content) {
          if (p.type === "tool-call" && !p.providerExecuted) {
            calls.push({ id: p.id, type: "function", function: { name: p.name, arguments: jsonText(p.params) } })
          } else if (p.type === "tool-result" && !p.providerExecuted) {
            results.push({ role: "tool", tool_call_id: p.id, content: jsonText(p.result) })
          }
        }
        out.push(calls.length > 0 ? { role: "assistant", content: text === "" ? null : text, tool_calls: calls } : { role: "assistant", content: text })
        out.push(...results)
        break
      }
      case "tool":
        for (const p of m.content) {
          if (p.type === "tool-result") out.push({ role: "tool", tool_call_id: p.id, content: jsonText(p.result) })
        }
        break
    }
  }
  return out
}

const wireTools = (tools: ReadonlyArray<Tool.Any>) =>
  tools
    .filter((t) => Tool.isUserDefined(t) || Tool.isDynamic(t))
    .map((t) => {
      const description = Tool.getDescription(t)
      return {
        type: "function" as const,
        function: { name: t.name, ...(description === undefined ? {} : { description }), parameters: Tool.getJsonSchema(t) }
      }
    })

const wireToolChoice = (choice: LanguageModel.ProviderOptions["toolChoice"], names: ReadonlyArray<string>): { readonly choice: unknown; readonly keep: ReadonlyArray<string> } => {
  if (choice === "auto" || choice === "none" || choice === "required") return { choice, keep: names }
  if ("tool" in choice) return { choice: { type: "function", function: { name: choice.tool } }, keep: names }
  return { choice: choice.mode === "required" ? "required" : "auto", keep: choice.oneOf }
}

/**
 * The JSON body of a chat-completions request for provider options and sampling parameters.
 *
 * @category encoding
 * @since 0.1.0
 */
export const requestBody = (
  model: string,
  options: Pick<LanguageModel.ProviderOptions, "prompt" | "tools" | "toolChoice" | "responseFormat">,
  sampling: Sampling,
  stream: boolean
): { [key: string]: unknown } => {
  const body: { [key: string]: unknown } = { model, messages: toChatMessages(options.prompt) }
  const tools = wireTools(options.tools)
  if (tools.length > 0 && options.toolChoice !== "none") {
    const { choice, keep } = wireToolChoice(options.toolChoice, tools.map((t) => t.function.name))
    body["tools"] = tools.filter((t) => keep.includes(t.function.name))
    body["tool_choice"] = choice
  }
  if (options.responseFormat.type === "json") {
    body["response_format"] = {
      type: "json_schema",
      json_schema: { name: options.responseFormat.objectName, schema: Tool.getJsonSchemaFromSchema(options.responseFormat.schema), strict: false }
    }
  }
  if (sampling.temperature !== undefined) body["temperature"] = sampling.temperature
  if (sampling.topP !== undefined) body["top_p"] = sampling.topP
  if (sampling.maxTokens !== undefined) body["max_tokens"] = sampling.maxTokens
  if (sampling.seed !== undefined) body["seed"] = sampling.seed
  if (sampling.stop !== undefined) body["stop"] = sampling.stop
  if (sampling.logprobs !== undefined) body["logprobs"] = sampling.logprobs
  if (sampling.topLogprobs !== undefined) body["top_logprobs"] = sampling.topLogprobs
  if (sampling.presencePenalty !== undefined) body["presence_penalty"] = sampling.presencePenalty
  if (sampling.frequencyPenalty !== undefined) body["frequency_penalty"] = sampling.frequencyPenalty
  if (stream) {
    body["stream"] = true
    body["stream_options"] = { include_usage: true }
  }
  return { ...body, ...sampling.extraBody }
}
